"""Limits on one page's extraction: its size, its element count and its time budget.

A crawl meets pages no extractor was designed for: 50 MB dumps, a million sibling elements,
markup generated in a loop. :class:`Limits` turns each of them into an empty
:class:`~scrapy_cetd.result.ExtractionResult` whose ``reason`` names the limit, instead of
minutes of CPU or gigabytes of memory:

* ``max_body_size``: the bytes of an undecoded page, checked before anything is decoded or
  parsed (for a Scrapy response, the downloader middleware and the pipeline check
  ``CETD_MAX_BODY_SIZE`` the same way);
* ``max_nodes``: the elements of the parsed tree, counted by libxml2 (one XPath ``count()``, no
  Python object per node) before the extractor builds anything. Every extractor is linear or
  close to it in this number, so it bounds the time and memory of each extraction step;
* ``max_attributes``: the attributes of one tag, counted in the page's text before it is
  parsed (:mod:`scrapy_cetd.guard`), since libxml2 parses them in quadratic time, in one C call
  no budget can interrupt;
* ``time_budget``: seconds for the extraction. No signal and no ``alarm()`` is involved, so it
  works in any thread: the budget is a deadline in a :class:`~contextvars.ContextVar` (one per
  thread, so concurrent extractions never see each other's), and the extraction checks it
  between its steps and inside its long loops with :func:`check_deadline`. The deadline is an
  absolute :func:`time.monotonic` time, so a caller may start the budget earlier than the
  extraction (a crawl starts it when the response arrives, see :meth:`Limits.extract`); an
  extraction whose deadline has passed before it begins stops at its first check. A step
  already running ends first; its length is bounded through ``max_nodes``. Long loops,
  including a user's own extractor, may call :func:`check_deadline` as often as they like to
  stop sooner.

A limit that is hit gives the reason ``"<limit> exceeded: <detail>"`` and the
:class:`~scrapy_cetd.result.Reason` of the same name as the result's ``reason_code``.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from lxml import etree

from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES, markup_problem
from scrapy_cetd.result import EmptyReason, ExtractionResult, Reason, sanitize

DEFAULT_MAX_BODY_SIZE = 10 * 1024 * 1024
"""10 MiB: about ten times the largest page of the shared datasets."""

DEFAULT_MAX_NODES = 200_000
"""Twenty times the largest page of the shared datasets (about 10,000 elements); a few seconds
of extraction at most."""

DEFAULT_TIME_BUDGET = 10.0
"""Seconds for one page's extraction in a crawl (``CETD_TIME_BUDGET``) and a corpus run; a
hundred times the slowest page of the shared datasets. :func:`scrapy_cetd.extract` itself has
no budget unless given one."""

LIMITS = ("max_body_size", "max_nodes", "max_attributes", "time_budget")
"""The names of the limits, as options of :func:`scrapy_cetd.extract`, in reasons and as
:class:`~scrapy_cetd.result.Reason` values."""

PARSER_MAX_DEPTH = 2048
"""The depth at which libxml2's HTML parser stops reading a page, even with ``huge_tree``
(``Excessive depth in document``): a page that nests deeper loses everything after that point,
for Scrapy's selectors as for the extractor."""

_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("scrapy_cetd_deadline", default=None)
"""The running extraction's ``(deadline, budget)`` in :func:`time.monotonic` seconds."""


class LimitExceededError(Exception):
    """A limit was hit. ``code`` is the limit (its value one of :data:`LIMITS`); ``str()`` is
    the reason."""

    def __init__(self, code: Reason, detail: str) -> None:
        if code.value not in LIMITS:
            raise ValueError(f"code must name a limit ({', '.join(LIMITS)}), not {code.value!r}")
        super().__init__(f"{code.value} exceeded: {detail}")
        self.code = code

    def reason(self) -> EmptyReason:
        """This error as the reason of an empty result."""
        return EmptyReason(str(self), self.code)


def check_deadline(step: str) -> None:
    """Raise :class:`LimitExceededError` when the running extraction's time budget is spent.

    ``step`` says what was being done, for the reason. Outside an extraction with a budget
    (see :func:`deadline`) this returns at once: reading a context variable and the monotonic
    clock costs well under a microsecond, so loops may call it every few thousand iterations.
    """
    current = _DEADLINE.get()
    if current is not None and time.monotonic() > current[0]:
        raise LimitExceededError(Reason.TIME_BUDGET, f"more than {current[1]:g} s, stopped {step}")


MAX_URL = 8192
"""Characters of the longest URL worth reading (the longest request line common servers
accept): a longer one is an inlined image or junk, and each step that reads it (a join, a
comparison) costs its length."""

CHECK_EVERY = 4095
"""A long loop over a page's elements checks the deadline when its step count has all these
bits set (``i & CHECK_EVERY == CHECK_EVERY``): once in 4,096 steps, and a shorter loop adds no
check to those made between the steps."""


def usable_cores() -> int:
    """The processor cores this process may use (its CPU affinity where the system has one):
    how many worker processes a crawl or a corpus run starts unless told otherwise, as more
    processes than cores only share them."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def time_left() -> float | None:
    """The seconds left in the running extraction's time budget (0 once it is spent), or
    ``None`` outside an extraction with a budget: for a step that cannot check the deadline
    while it runs (a third-party call) and must decide beforehand whether it fits."""
    current = _DEADLINE.get()
    return None if current is None else max(current[0] - time.monotonic(), 0.0)


@contextlib.contextmanager
def deadline(budget: float | None, *, start: float | None = None) -> Iterator[None]:
    """Give the code in the block (in this thread) ``budget`` seconds, checked by
    :func:`check_deadline`; ``None`` adds no budget. The seconds count from ``start``, a
    :func:`time.monotonic` time (now when ``None``; an earlier time leaves less than
    ``budget``, possibly nothing). A budget inside another never ends later than the outer
    one."""
    if budget is None:
        yield
        return
    current = _DEADLINE.get()
    end = (time.monotonic() if start is None else start) + budget
    if current is not None and current[0] < end:
        end, budget = current
    token = _DEADLINE.set((end, budget))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


class TreeExtractor(Protocol):
    """What :meth:`Limits.extract` runs: an extractor's ``extract(tree, *, url=None)``."""

    def extract(self, tree: etree._Element, *, url: str | None = None) -> ExtractionResult:
        """The main content below ``tree``."""
        ...


def count_elements_by_xpath(tree: etree._Element) -> int:
    """The elements of ``tree`` (itself included), counted by libxml2's XPath in C; on a tree
    of more than ten million, where libxml2 refuses so large a node set
    (``XPathEvalError``), by a walk in Python, with the running deadline checked."""
    try:
        count = _ELEMENTS(tree)
    except etree.XPathEvalError:
        total = 0
        for k, element in enumerate(tree.iter()):
            total += isinstance(element.tag, str)
            if not k & 0xFFFF:
                check_deadline("counting the elements")
        return total
    assert isinstance(count, float)
    return int(count)


_ELEMENTS = etree.XPath("count(descendant-or-self::*)")


@dataclass(frozen=True)
class Limits:
    """The limits of one extraction; ``None`` switches a limit off (see the module docstring).

    Frozen and made of numbers only, so one instance is shared by threads and pickles.
    """

    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE
    """Bytes of an undecoded page (a ``str`` page counts its UTF-8 bytes)."""
    max_nodes: int | None = DEFAULT_MAX_NODES
    """Elements of the parsed document (the tree handed to the extractor and its
    descendants)."""
    time_budget: float | None = None
    """Seconds for the extraction, from the ``start`` given to :meth:`extract` (by default,
    from the call)."""
    max_attributes: int | None = DEFAULT_MAX_ATTRIBUTES
    """Attributes of one tag in the page's text, checked before it is parsed
    (:meth:`markup_reason`)."""

    def __post_init__(self) -> None:
        for name in LIMITS:
            value = getattr(self, name)
            fits = isinstance(value, numbers.Real if name == "time_budget" else numbers.Integral)
            if value is not None and (isinstance(value, bool) or not fits or not value > 0):
                kind = "a positive number" if name == "time_budget" else "a positive whole number"
                raise ValueError(f"{name} must be {kind} or None, not {value!r:.80}")

    def size_reason(self, size: int) -> EmptyReason | None:
        """The reason a page of ``size`` bytes is refused, or ``None`` when it is not."""
        if self.max_body_size is not None and size > self.max_body_size:
            detail = f"{size:,} bytes, more than {self.max_body_size:,}"
            return LimitExceededError(Reason.MAX_BODY_SIZE, detail).reason()
        return None

    def markup_reason(self, text: str) -> EmptyReason | None:
        """The reason the decoded page ``text`` is refused before it is parsed, or ``None``:
        ``max_attributes`` (see :func:`scrapy_cetd.guard.markup_problem`)."""
        problem = markup_problem(text, max_attributes=self.max_attributes)
        return None if problem is None else EmptyReason(problem, Reason.MAX_ATTRIBUTES)

    def extract(
        self,
        extractor: TreeExtractor,
        tree: etree._Element,
        *,
        url: str | None = None,
        start: float | None = None,
        elements: int | None = None,
    ) -> ExtractionResult:
        """``extractor.extract(tree, url=url)`` within ``max_nodes`` and ``time_budget``.

        ``elements`` is the number of elements of ``tree`` (itself included) when the caller
        has counted them (:func:`scrapy_cetd.api.extract` and the crawl's jobs count them with
        a compiled pass, :func:`scrapy_cetd.page.dom.count_elements`); ``None``: they are
        counted here, by libxml2's XPath.

        The budget counts from ``start``, a :func:`time.monotonic` time (by default, from this
        call): a crawl passes the time its response arrived, so that waiting for a worker
        counts too, and an extraction begun after its deadline stops at its first check. A
        limit that is hit gives an empty result whose reason names it. The result's text is
        cleaned of control characters a damaged page leaves in the tree (:func:`sanitize`).
        When nothing visible was found on a page that reaches :data:`PARSER_MAX_DEPTH`, the
        reason says that the parser cut the page there (code
        :attr:`~scrapy_cetd.result.Reason.TOO_DEEP`). Other exceptions of the extractor
        propagate, and a return value that is not an :class:`ExtractionResult` raises
        :class:`TypeError`.
        """
        name = str(getattr(extractor, "name", "") or type(extractor).__name__)
        with deadline(self.time_budget, start=start):
            try:
                if self.max_nodes is not None:
                    count = count_elements_by_xpath(tree) if elements is None else elements
                    if count > self.max_nodes:
                        raise LimitExceededError(
                            Reason.MAX_NODES, f"{count:,} elements, more than {self.max_nodes:,}"
                        )
                result = extractor.extract(tree, url=url)
            except LimitExceededError as exc:
                return exc.reason().result(name)
        if not isinstance(result, ExtractionResult):
            raise TypeError(f"{name}.extract() returned {result!r:.80}, not an ExtractionResult")
        if not result.text and _reaches_parser_depth(tree):
            return ExtractionResult.empty(
                result.algorithm,
                f"{result.reason or 'no content'}: the page nests more than "
                f"{PARSER_MAX_DEPTH:,} elements deep, where the HTML parser stops reading it",
                Reason.TOO_DEEP,
            )
        return sanitize(result)


def _reaches_parser_depth(tree: etree._Element) -> bool:
    """Whether the last node of the document lies :data:`PARSER_MAX_DEPTH` deep: where
    libxml2 stops, the last node it read is the deepest. Follows last children down, so it
    costs one step per level of that one branch."""
    node = tree.getroottree().getroot()
    depth = 1
    while len(node) and depth < PARSER_MAX_DEPTH:
        node = node[-1]
        depth += 1
    return depth >= PARSER_MAX_DEPTH

"""What every extractor shares: finding the body, the visible view, rendering, empty results."""

from __future__ import annotations

import abc
import copy
import inspect
from collections.abc import Sequence
from typing import Any, ClassVar

from lxml import etree

from scrapy_cetd.dom import INVISIBLE_TAGS, DomView, build_view, find_body, has_frameset, local_tag
from scrapy_cetd.limits import check_deadline
from scrapy_cetd.output import Keep, render
from scrapy_cetd.result import ExtractionResult


class Extractor(abc.ABC):
    """A main-content extractor: options in the constructor, one page per :meth:`extract` call.

    Instances hold only their options, so one instance may serve many threads at once and
    pickles for distributed engines. A subclass sets :attr:`name` and implements
    :meth:`select`; a user's own extractor for the Scrapy pipeline only needs the same
    ``extract(tree, *, url=None) -> ExtractionResult`` method.
    """

    name: ClassVar[str] = ""

    def __init__(self, *, remove_hidden: bool = True) -> None:
        """``remove_hidden``: drop elements hidden by their own markup (``hidden``,
        ``input[type=hidden]``, inline ``display:none``) before scoring, as the CETD paper
        recommends for hidden disclaimers (§5.4, §6.1; ``docs/algorithms.md`` §0.2)."""
        self.remove_hidden = remove_hidden

    def __repr__(self) -> str:
        options = ", ".join(f"{key}={value!r}" for key, value in self.options().items())
        return f"{type(self).__name__}({options})"

    def options(self) -> dict[str, Any]:
        """The constructor options of this instance, by name."""
        names = inspect.signature(type(self)).parameters
        return {name: getattr(self, name) for name in names}

    def extract(self, tree: etree._Element, *, url: str | None = None) -> ExtractionResult:
        """Extract the main content below ``tree``'s ``<body>``; ``tree`` is left unchanged.

        ``tree`` is a document root (``<html>``) or any element taken as the root of a
        fragment. ``url`` is for messages and for algorithms that resolve links. Between its
        steps the extraction checks the time budget of :mod:`scrapy_cetd.limits`, if one is
        running.
        """
        view = self.view(tree)
        if isinstance(view, str):
            return ExtractionResult.empty(self.name, view)
        selection = self.select(view)
        if isinstance(selection, str):
            return ExtractionResult.empty(self.name, selection)
        check_deadline("after selecting the content")
        html, text = render(view, selection)
        if not text:
            return ExtractionResult.empty(self.name, "no text in the selected content")
        return ExtractionResult(text=text, html=html, algorithm=self.name)

    def view(self, tree: etree._Element) -> DomView | str:
        """The visible view of ``tree``'s body, or why there is none (a frameset page).

        Two kinds of document are viewed in a repaired copy, as a browser's parser would
        build them, and the input tree is left as it is:

        - one without ``<body>`` (a tree built by hand or by an XML parser; libxml2's HTML
          parser always makes one when there is content): everything outside its ``<head>``
          is read as the body;
        - one with text after its body (libxml2 closes the body at a stray ``</body>`` and
          puts what follows beside it, where browsers go on filling the body): what follows
          is read as the end of the body.

        The view's first element is then the copy's body, in a document that keeps the head.
        The time budget is checked before and after the view is built.
        """
        check_deadline("before building the view")
        body = find_body(tree)
        if body is None:
            if has_frameset(tree):
                return "frameset page"
            body = _with_body(tree)
        elif _text_after(body):
            body = _with_text_after(body)
        if local_tag(body) == "frameset":
            return "frameset page"
        view = build_view(body, remove_hidden=self.remove_hidden)
        check_deadline("after building the view")
        return view

    @abc.abstractmethod
    def select(self, view: DomView) -> Sequence[Keep] | str:
        """What to keep of each element of ``view``, or why nothing is kept."""


def _with_body(root: etree._Element) -> etree._Element:
    """The body of a copy of the document ``root`` (which is not changed) in which everything
    but the ``<head>`` is moved into a new ``<body>``."""
    document = copy.deepcopy(root)
    namespace = etree.QName(root).namespace
    body = document.makeelement(f"{{{namespace}}}body" if namespace else "body")
    body.text, document.text = document.text, None
    for child in list(document):
        if local_tag(child) != "head":
            body.append(child)
    document.append(body)
    return body


def _text_after(body: etree._Element) -> bool:
    """Whether libxml2 put text after the document's ``<body>``, beside it."""
    if local_tag(body) != "body" or body.getparent() is None:
        return False
    return bool((body.tail or "").strip()) or any(
        local_tag(sibling) not in INVISIBLE_TAGS and any(t.strip() for t in sibling.itertext())
        for sibling in body.itersiblings()
        if isinstance(sibling.tag, str)
    )


def _with_text_after(body: etree._Element) -> etree._Element:
    """The body of a copy of ``body``'s document (which is not changed) that ends with what
    follows it."""
    root = body.getparent()
    if root is None:
        return body
    clone = copy.deepcopy(root)[root.index(body)]
    tail, clone.tail = clone.tail, None
    if tail:
        last = clone[-1] if len(clone) else None
        if last is None:
            clone.text = (clone.text or "") + tail
        else:
            last.tail = (last.tail or "") + tail
    for sibling in list(clone.itersiblings()):
        clone.append(sibling)
    return clone

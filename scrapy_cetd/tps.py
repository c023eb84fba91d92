"""TPS: main-region pruning of record (list) pages by tag path sequences.

Velloso & Dorneles, Journal of Information and Data Management 4(3), 2013
(``docs/algorithms.md`` §5; ``[P §x]`` below cites a section of the paper).

Every element of ``<body>`` (after the pre-processing of §0.2) gets the code of its tag path:
the tags from ``<body>`` down to it, each with its style signature [P Def. 3.2-3.3]. The
sequence of codes in document order is the TPS. searchRegion [P Alg. 3] looks for the first
point where the sequence splits into two parts with disjoint alphabets, ignoring the symbols
rarer than a frequency threshold [P §4, Alg. 4], keeps the larger part when it is larger by
more than the minimum size gap [P §5.3] and repeats on it. What remains is the main region;
:func:`prune_tag_paths` returns a copy of the page holding only that region and its ancestors
[P Alg. 5], so a record extractor (or a spider's CSS selectors) no longer sees menus, footers
and sidebars with repeating structures of their own.

Everything here is iterative (no recursion over the DOM; searchRegion's recursion is a loop),
deterministic, and keeps no state between calls; the input tree is never modified.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from lxml import etree

from scrapy_cetd.extractors.cetd_plus import CetdPlusExtractor
from scrapy_cetd.extractors.cetd_plus.record_runs import MIN_RECORDS
from scrapy_cetd.extractors.cetd_plus.regions import main_landmark
from scrapy_cetd.extractors.furniture import boilerplate
from scrapy_cetd.extractors.registry import coerce_options
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES
from scrapy_cetd.limits import (
    DEFAULT_MAX_NODES,
    LimitExceededError,
    check_deadline,
    deadline,
)
from scrapy_cetd.page.density import count_nodes
from scrapy_cetd.page.dom import (
    DomView,
    build_view,
    count_elements,
    viewed_body,
    viewed_document,
)
from scrapy_cetd.page.flags import ancestors_of, within
from scrapy_cetd.page.output import Keep, kept_elements, remove_keeping_tails
from scrapy_cetd.result import EmptyReason, Reason

MIN_SIZE_GAP = 0.20
"""The paper's minimum size gap: a split is accepted only when ``|n - 2i| / n`` exceeds it
[P §5.3: "at least 20% larger than the rest", 20% in the experiments]. The default of
:func:`search_region` and of :meth:`TpsOptions.paper`; :class:`TpsOptions` defaults to
:data:`DEFAULT_MIN_SIZE_GAP`."""

DEFAULT_MIN_SIZE_GAP = MIN_SIZE_GAP
"""The minimum size gap of :class:`TpsOptions`' defaults: the paper's. A gap of 0.25 was
measured with the other defaults on the WCXB record pages (``docs/tps.md``) and wins on one
half of the sites, loses on the other, so the paper's stays."""

MAIN_LANDMARK_SHARE = 0.5
"""The share of the body's text the page's ``<main>`` (or ``role="main"``) must hold for
``main_landmark_share`` to prune to it by default: the ``main_landmark_share`` of ``cetd-plus``
(a ``<main>`` around one widget is no main column)."""

Size = Literal["nodes", "text"]
"""How the size of a part of the sequence is measured (see :attr:`TpsOptions.size`)."""

WIDGET_TAGS = frozenset({"svg", "button", "input", "textarea"})
"""Inline graphics and form controls: what ``remove_widgets`` drops when it holds no text."""

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
"""Headings: a button inside or around one is an accordion's header, which ``remove_buttons``
keeps."""

_EPSILON = 1e-9
"""Float tolerance of threshold comparisons (``docs/algorithms.md`` §0.5)."""

_CHECK_EVERY = 4095
"""Long loops check the time budget once in 4,096 iterations, when ``i & _CHECK_EVERY`` is
``_CHECK_EVERY``: a shorter loop adds no check to those made between the steps."""


@dataclass(frozen=True)
class TpsOptions:
    """Every option of TPS pruning, checked once, when the object is made.

    Frozen and made of numbers, strings and flags only, so one instance is shared by threads,
    pickles, and can be kept in a spider's attribute or a module constant. The defaults are
    the configuration measured best on real list pages (the WCXB listing, collection and
    product pages; see ``docs/tps.md``): searchRegion is the paper's, the page's main content
    and its heading are kept beside its region, and then only what lies in the page's main
    landmark stays, without the page furniture, the text-less widgets and the buttons.
    :meth:`paper` gives the paper's literal algorithm instead.

    Every value is converted to the type its field declares, as the extractors' options are
    (:func:`~scrapy_cetd.extractors.registry.coerce_options`: ``"0.3"`` is ``0.3``, ``"no"``
    is ``False``, ``"none"`` switches a limit off), and checked: a value of the wrong type or
    out of range raises :class:`ValueError` naming the option and the value.
    :func:`dataclasses.replace` (or :meth:`replace`, which also names an unknown option)
    makes a changed copy, checked the same way.
    """

    min_size_gap: float = DEFAULT_MIN_SIZE_GAP
    """A split at ``i`` of a range of ``n`` elements is accepted only when
    ``|n - 2i| / n > min_size_gap`` [P §5.3, 0.20 in the paper's experiments]. The test is
    symmetric, so that a trailing region (a footer) can be cut too (``docs/algorithms.md``
    §5.4 S-6: as printed, ``(n - 2i) / n``, the "keep the prefix" branch of Alg. 3 is
    unreachable). Larger values split less and prune less. In ``[0, 1)``."""
    size: Size = "nodes"
    """How the two parts of a split are weighed, for the size gap and for the side to keep.
    ``"nodes"`` (the default) counts elements, as the paper does: the main region of a record
    page is the one with more nodes [P §4, assumption 2]. ``"text"`` (not in the paper)
    counts the characters of visible text each element owns (§0.3), so a part made of many
    short links (a menu) weighs less than records with a description; when a range has no
    text at all nothing is split."""
    invert: bool = False
    """Keep everything *but* the region, the complement of Algorithm 6 [P §6.3], for pages
    whose records are the smaller side (the paper's g1.com.br). The paper leaves its "is
    content" test unspecified, so the choice is the caller's (§5.4 S-13)."""
    remove_hidden: bool = True
    """Leave elements hidden by their own markup out of the sequence, with scripts, styles
    and comments (``docs/algorithms.md`` §0.2; S-3)."""
    keep_main_content: bool = True
    """Not in the paper. What the default extractor (``cetd-plus``) selects as the page's main
    block (its single-block step always on: a page that is all content would otherwise leave
    nothing to prune) is kept with its ancestors as shells even where it lies outside the
    region. Keeps the heading, introduction or product description beside the records, and
    the records themselves when the paper's region is the site's menu."""
    guard_main_content: bool = False
    """Not in the paper. searchRegion refuses a split whose removed side holds any text of
    ``cetd-plus``'s main block (the "is content" test the paper leaves open for its Algorithm
    6; not with ``invert``). Off by default: the region then stays around the main content and
    keeps the boilerplate beside it (measured in ``docs/tps.md``), where ``keep_main_content``
    alone keeps the main content and lets the search cut the rest."""
    complete_records: bool = True
    """Not in the paper. Where ``cetd-plus``'s main block has text in :data:`MIN_RECORDS` or
    more records of one list (siblings with the same tag path: tag, classes and style), those
    records are kept whole: the title link and the image of each
    product card beside the description and price the extractor chose. The record of an
    element is its closest ancestor-or-self that has such siblings."""
    keep_heading: bool = True
    """Not in the paper. The page's first ``<h1>`` that holds text is kept with its subtree,
    wherever the region is: the heading of highest rank (HTML Living Standard §4.3.6), the
    name of the list or of the product above the records."""
    main_landmark_share: float | None = MAIN_LANDMARK_SHARE
    """Not in the paper. When the page's ``<main>`` element (or ``role="main"``) with the most
    text holds at least this share of the body's text, everything outside it is removed, the
    region, the main content and the heading alike: by the HTML Living Standard (§4.4.14)
    ``<main>`` holds the dominant contents of the document, and what lies around it (site
    header, breadcrumbs, newsletter boxes, footer) is not. In ``[0, 1]``; ``None`` switches it
    off."""
    remove_furniture: bool = True
    """Not in the paper. The page furniture that ``cetd-plus`` removes by markup (``nav``,
    ``aside``, ``footer``, ``dialog``, ``menu``, ``select`` and the ARIA furniture roles; not
    forms, which hold a product's options) is removed from the kept part too, except inside
    an ``<article>`` (a record's own footer stays)."""
    remove_widgets: bool = True
    """Not in the paper. Inline SVG graphics and form controls (``button``, ``input``,
    ``textarea``) that hold no visible text are removed from the kept part too: icons, icon
    buttons and fields, whose markup a record's text, links and images do not need. The
    visible text of the pruned page is the same with or without it; a spider that reads a
    record's icons (rating stars drawn in SVG) turns it off."""
    remove_buttons: bool = True
    """Not in the paper. Buttons (``<button>`` or ``role="button"``, WAI-ARIA 1.2 §5.4) are
    removed from the kept part with their text: "add to cart", "load more", "filter & sort"
    are controls, not content. A button inside or around a heading is kept: it is an
    accordion's header (WAI-ARIA Authoring Practices, Accordion), whose text is the title of
    the panel below it."""
    keep_positions: bool = False
    """Pruning only (:func:`prune_tag_paths`, ``tps_selector``): a removed element that comes
    before a sibling of the same tag that stays is emptied (no attributes, text or children)
    instead of removed, so that positional XPaths written for the original page
    (``main/section[2]/article``) select the same elements in the copy. The empty elements
    also match tag selectors such as ``css("li")``."""
    max_nodes: int | None = DEFAULT_MAX_NODES
    """Elements of the tree (counted by libxml2 before anything is built), as in
    :func:`scrapy_cetd.extract`; a page over it is left unpruned, with the reason. ``None``
    switches it off."""
    time_budget: float | None = None
    """Seconds for the whole call, checked inside every long loop; a page that takes longer
    is left unpruned, with the reason. ``None`` (the default) switches it off."""
    max_attributes: int | None = DEFAULT_MAX_ATTRIBUTES
    """Attributes on one tag, checked in the page's text before it is parsed, as
    :func:`scrapy_cetd.extract` checks it (:mod:`scrapy_cetd.guard`): by ``tps_selector`` and
    ``scrapy-cetd prune``, which see the text; the functions given a tree cannot apply it.
    ``None`` switches it off."""

    def __post_init__(self) -> None:
        given = {field.name: getattr(self, field.name) for field in fields(self)}
        for name, value in coerce_options(TpsOptions, given).items():
            object.__setattr__(self, name, value)
        if not 0.0 <= self.min_size_gap < 1.0:
            raise ValueError(f"option min_size_gap={self.min_size_gap!r} is not in [0, 1)")
        share = self.main_landmark_share
        if share is not None and not 0.0 <= share <= 1.0:
            raise ValueError(f"option main_landmark_share={share!r} is not in [0, 1] or None")
        for name in ("max_nodes", "time_budget", "max_attributes"):
            limit = getattr(self, name)
            if limit is not None and not limit > 0:
                raise ValueError(f"option {name}={limit!r} is not a positive number or None")

    @classmethod
    def paper(cls, **overrides: Any) -> TpsOptions:
        """The paper's literal algorithm: ``min_size_gap=0.20``, ``size="nodes"``, and none of
        the additions (``keep_main_content``, ``guard_main_content``, ``complete_records``,
        ``keep_heading``, ``main_landmark_share``, ``remove_furniture``, ``remove_widgets``,
        ``remove_buttons``); ``overrides`` change any option (a limit, ``invert``) on top of
        it."""
        paper = cls(
            min_size_gap=MIN_SIZE_GAP,
            size="nodes",
            keep_main_content=False,
            guard_main_content=False,
            complete_records=False,
            keep_heading=False,
            main_landmark_share=None,
            remove_furniture=False,
            remove_widgets=False,
            remove_buttons=False,
        )
        return paper.replace(**overrides)

    def replace(self, **overrides: Any) -> TpsOptions:
        """A copy with ``overrides`` applied and checked; an option that does not exist
        raises :class:`ValueError` naming the valid ones."""
        if not overrides:
            return self
        unknown = sorted(set(overrides) - {field.name for field in fields(self)})
        if unknown:
            valid = ", ".join(field.name for field in fields(self))
            raise ValueError(f"unknown TPS option(s) {', '.join(unknown)}; valid options: {valid}")
        return dataclasses.replace(self, **overrides)


def tps_options(
    options: TpsOptions | None = None, overrides: Mapping[str, Any] | None = None
) -> TpsOptions:
    """``options`` (the defaults when ``None``) with the keyword ``overrides`` of a call applied:
    how every TPS function reads its options. Raises :class:`ValueError` for an unknown option
    or a bad value, and :class:`TypeError` when ``options`` is not a :class:`TpsOptions`."""
    if options is None:
        options = DEFAULT_OPTIONS
    elif not isinstance(options, TpsOptions):
        raise TypeError(f"options must be a TpsOptions, not {type(options).__name__}")
    return options.replace(**overrides) if overrides else options


DEFAULT_OPTIONS = TpsOptions()
"""The default options (:class:`TpsOptions` ``()``), shared by every call that gives none."""


@dataclass(frozen=True)
class TagPathSplit:
    """One accepted split of searchRegion [P Alg. 3]: the range it split, how, what it kept.

    Positions are 1-based preorder positions of the body's elements (``<body>`` is 1), as in
    the paper's Figure 2.
    """

    start: int
    """First position of the range that was split."""
    end: int
    """Last position of the range that was split (inclusive)."""
    threshold: int
    """The frequency threshold whose filtered alphabet gave the split [P Def. 3.6, Alg. 4]."""
    at: int
    """``i``: the split falls after the ``i``-th element of the range [P Alg. 3 line 30]."""
    kept_start: int
    """First position of the part kept: the suffix when ``i < n/2``, else the prefix."""
    kept_end: int
    """Last position of the part kept (inclusive)."""


@dataclass(frozen=True)
class TagPathRegion:
    """The tag path sequence of a page and the main region searchRegion found in it.

    Holds only numbers and strings (no reference to the tree), so it pickles and can be
    printed or logged to see why a region was chosen: :attr:`splits` replays every accepted
    split, :attr:`paths` names every code.
    """

    sequence: tuple[int, ...]
    """The TPS: the tag path code of each element of ``<body>`` in preorder (position ``p``
    is ``sequence[p - 1]``); codes are numbered 1, 2, 3, ... in order of first appearance
    [P Def. 3.3, Alg. 2]. Empty when the page has no body."""
    steps: tuple[str, ...]
    """``steps[c - 1]`` is the last step of code ``c``'s tag path, ``tag.class1.class2[style=...]``
    (classes sorted; the style normalised)."""
    step_parents: tuple[int, ...]
    """``step_parents[c - 1]`` is the code of the path code ``c`` extends (0 for ``body``'s
    own). Paths are kept as these (parent, step) pairs, so the sequence costs memory linear in
    the page even when it nests thousands deep; :meth:`path` spells one out."""
    start: int
    """First position of the main region (1-based; 0 when the sequence is empty)."""
    end: int
    """Last position of the main region (inclusive; 0 when the sequence is empty)."""
    splits: tuple[TagPathSplit, ...]
    """The accepted splits, in order; empty when nothing was split off."""
    invert: bool
    """Whether the pruning keeps the complement of the region [P §6.3, Alg. 6]."""
    kept_count: int
    """Elements the pruned page keeps: the kept positions and their ancestors (shells); the
    elements that ``keep_positions`` empties instead of removing are not counted."""

    reason: str | None = None
    """Why the page was not searched, ``"<limit> exceeded: <detail>"`` (see
    :func:`search_tag_path_region`); ``None`` when it was. The sequence is then empty."""

    def path(self, code: int) -> str:
        """The tag path of ``code``: its steps joined by ``/`` from ``body``'s."""
        if not 0 < code <= len(self.steps):
            raise ValueError(f"code must be in 1..{len(self.steps)}, not {code!r}")
        steps: list[str] = []
        while code:
            steps.append(self.steps[code - 1])
            code = self.step_parents[code - 1]
        return "/".join(reversed(steps))

    @property
    def paths(self) -> tuple[str, ...]:
        """Every code's :meth:`path`: ``paths[c - 1]`` is the tag path of code ``c``. Built on
        each access; on a page that nests ``d`` deep it holds ``d``-step strings, so read
        :attr:`steps` and :attr:`step_parents` instead where that matters."""
        return tuple(self.path(code) for code in range(1, len(self.steps) + 1))

    @property
    def node_count(self) -> int:
        """Elements in the sequence (the body's elements after pre-processing)."""
        return len(self.sequence)

    @property
    def removed_share(self) -> float:
        """The share of the sequence's elements that pruning removes (0.0 for an empty one)."""
        if not self.sequence:
            return 0.0
        return 1.0 - self.kept_count / len(self.sequence)

    def region(self) -> tuple[int, ...]:
        """The main region's codes, ``sequence[start - 1 : end]``."""
        return self.sequence[self.start - 1 : self.end] if self.sequence else ()


def search_tag_path_region(
    tree: etree._Element, options: TpsOptions | None = None, **overrides: Any
) -> TagPathRegion:
    """The tag path sequence of ``tree``'s ``<body>`` and its main region; ``tree`` is only read.

    ``options`` (:class:`TpsOptions`, its defaults when ``None``) say how; keyword
    ``overrides`` change some of them for this call (``min_size_gap=0.3`` is
    ``options.replace(min_size_gap=0.3)``). The region and :attr:`TagPathRegion.kept_count` are
    those :func:`prune_tag_paths` uses (``keep_positions`` and ``max_attributes`` play no part
    here).

    ``max_nodes`` and ``time_budget`` are the limits of :func:`scrapy_cetd.extract`: the
    elements of ``tree`` and the seconds of the whole call. A page over a limit is not
    searched: the region comes back empty (no sequence, nothing split) with a
    :attr:`~TagPathRegion.reason` that names the limit, ``"max_nodes exceeded: ..."`` or
    ``"time_budget exceeded: ..."``. An unknown option or a bad value raises
    :class:`ValueError`.
    """
    chosen = tps_options(options, overrides)
    with deadline(chosen.time_budget):
        try:
            return _search(tree, chosen)[0]
        except LimitExceededError as error:
            return _unsearched(chosen.invert, str(error))


def prune_tag_paths(
    tree: etree._Element, options: TpsOptions | None = None, **overrides: Any
) -> etree._Element:
    """A pruned **copy** of ``tree`` holding only the main region of its ``<body>``.

    ``tree`` is a document root (``<html>``; the copy keeps its ``<head>`` unchanged) or an
    element taken as the root of a fragment; it is never modified. In the body of the copy
    [P Alg. 5, ``docs/algorithms.md`` §5.2 step 4]:

    * an element in the region is kept with its text, its attributes, the tails of its kept
      children and the nodes outside the sequence below it (comments, scripts, hidden
      elements: they belong to the region's markup); its children outside the region are
      removed, so the last element of the region may end up empty (S-12);
    * an ancestor of the region is kept as a *shell*: tag and attributes, no text of its own,
      only the children that lead to the region (S-11);
    * everything else is removed.

    With ``invert`` the kept positions are those outside the region [P Alg. 6 line 7]
    (when nothing was split off, that leaves an empty ``<body>``). A frameset page, or one
    whose sequence does not split, comes back as an unpruned copy. A document without a body,
    or with content after a stray ``</body>``, is read as the extractors read it, with its body
    repaired (:func:`~scrapy_cetd.page.dom.viewed_body`), and the copy is of the repaired document.

    ``options`` and ``overrides`` are those of :func:`search_tag_path_region`; the options
    beyond the paper (``keep_main_content``, ``complete_records``, ``keep_heading``,
    ``main_landmark_share``,
    ``remove_furniture``, ``remove_widgets`` and ``remove_buttons``, on by default,
    ``guard_main_content`` and ``keep_positions``) are described on :class:`TpsOptions`. A page over
    ``max_nodes`` or ``time_budget`` comes back as an unpruned copy
    (:func:`prune_tag_paths_region` gives the reason): a spider's selectors still find every
    record on it, where an exception would lose the whole callback.
    """
    return prune_tag_paths_region(tree, options, **overrides)[0]


def prune_tag_paths_region(
    tree: etree._Element, options: TpsOptions | None = None, **overrides: Any
) -> tuple[etree._Element, TagPathRegion]:
    """:func:`prune_tag_paths` and the :class:`TagPathRegion` it pruned to, from one search.

    Over a limit, whether it is hit while searching or while trimming the copy, the copy is
    unpruned and the region's :attr:`~TagPathRegion.reason` names the limit.
    """
    chosen = tps_options(options, overrides)
    with deadline(chosen.time_budget):
        try:
            region, view, modes = _search(tree, chosen)
            if view is None:
                return copy.deepcopy(tree), region
            source = viewed_document(tree, view.elements[0])
            clone = copy.deepcopy(source)
            _trim(source, clone, view, modes, keep_positions=chosen.keep_positions)
        except LimitExceededError as error:
            return copy.deepcopy(tree), _unsearched(chosen.invert, str(error))
    return clone, region


def unsearched_region(reason: str, options: TpsOptions | None = None) -> TagPathRegion:
    """The region of a page that was not searched because of ``reason`` (a limit), as the
    functions above return it: what a caller that refuses a page before TPS sees it (the
    pre-parse check of ``max_attributes``) reports."""
    return _unsearched((options or DEFAULT_OPTIONS).invert, reason)


def _unsearched(invert: bool, reason: str | None) -> TagPathRegion:
    """The region of a page that was not searched: no body, or ``reason``."""
    return TagPathRegion((), (), (), 0, 0, (), invert, 0, reason)


def _search(
    tree: etree._Element, options: TpsOptions
) -> tuple[TagPathRegion, DomView | None, list[int]]:
    """The region of ``tree``'s body, the body's view and what pruning does to each element.
    Raises :class:`~scrapy_cetd.limits.LimitExceededError` over ``options.max_nodes`` elements
    or past the running deadline."""
    max_nodes = options.max_nodes
    if max_nodes is not None:
        count = count_elements(tree)
        if count > max_nodes:
            raise LimitExceededError(
                Reason.MAX_NODES, f"{count:,} elements, more than {max_nodes:,}"
            )
    invert = options.invert
    body = viewed_body(tree)
    if body is None:
        return _unsearched(invert, None), None, []
    view = build_view(body, remove_hidden=options.remove_hidden)
    codes, steps, step_parents = tag_path_sequence(view)
    counts = count_nodes(view)
    own_text = list(map(sum, counts.run_chars))
    check_deadline("counting the text")
    main = None
    if options.keep_main_content or options.guard_main_content or options.complete_records:
        main = _main_content(viewed_document(tree, body), view)
    protected = None
    if main is not None and options.guard_main_content and not invert:
        protected = [selected and text > 0 for selected, text in zip(main, own_text, strict=True)]
    start, end, splits = search_region(
        codes,
        min_size_gap=options.min_size_gap,
        weights=own_text if options.size == "text" else None,
        protected=protected,
    )
    region = TagPathRegion(
        tuple(codes), tuple(steps), tuple(step_parents), start, end, tuple(splits), invert, 0
    )
    modes = _modes(view, region)
    if main is not None and options.keep_main_content:
        for i, selected in enumerate(main):
            if selected:
                modes[i] = _KEEP
    if main is not None and options.complete_records:
        _complete_records(view, codes, main, own_text, modes)
    if options.keep_heading:
        _keep_heading(view, counts.chars, modes)
    if options.main_landmark_share is not None:
        _bound_to_main_landmark(view, counts.chars, modes, options.main_landmark_share)
    if options.remove_furniture:
        _remove_furniture(view, counts.chars, modes)
    if options.remove_widgets:
        _remove_widgets(view, counts.chars, modes)
    if options.remove_buttons:
        _remove_buttons(view, modes)
    _add_shells(view, modes)
    check_deadline("choosing what to keep")
    kept = sum(1 for mode in modes if mode)
    return replace(region, kept_count=kept), view, modes


# --- the tag path sequence [P Alg. 2] ---------------------------------------------------------


def style_signature(element: etree._Element) -> tuple[tuple[str, ...], str]:
    """The style part of a tag path step (``docs/algorithms.md`` §5.1, S-2): the sorted
    ``class`` tokens and the ``style`` attribute without whitespace, property names in lower
    case, empty declarations (a trailing ``;``) dropped. ``id`` is not part of it."""
    classes = tuple(sorted(set((element.get("class") or "").split())))
    style = element.get("style")
    if not style:
        return classes, ""
    declarations = []
    for declaration in "".join(style.split()).split(";"):
        if not declaration:
            continue
        name, colon, value = declaration.partition(":")
        declarations.append(f"{name.lower()}{colon}{value}")
    return classes, ";".join(declarations)


def _step(tag: str, signature: tuple[tuple[str, ...], str]) -> str:
    classes, style = signature
    text = tag + "".join(f".{name}" for name in classes)
    return f"{text}[style={style}]" if style else text


def tag_path_sequence(view: DomView) -> tuple[list[int], list[str], list[int]]:
    """The TPS of ``view`` (codes from 1, in order of first appearance), each code's last step
    and the code of the path it extends (0 for the first step).

    Two elements share a code iff their parents do and their own tags and style signatures
    are equal, which is equality of the whole paths [P Def. 3.3] checked in O(1) per element:
    a path is interned as the pair (its parent path's code, its last step), never spelt out,
    so time and memory stay linear in the page however deep it nests.
    """
    codes: list[int] = []
    steps: list[str] = []
    parents: list[int] = []
    known: dict[tuple[int, str, tuple[str, ...], str], int] = {}
    tags, parent, elements = view.tags, view.parent, view.elements
    for i in range(len(view)):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("coding the tag paths")
        up = codes[parent[i]] if i else 0
        signature = style_signature(elements[i])
        key = (up, tags[i], *signature)
        code = known.get(key)
        if code is None:
            code = known[key] = len(steps) + 1
            steps.append(_step(tags[i], signature))
            parents.append(up)
        codes.append(code)
    return codes, steps, parents


# --- searchRegion [P Alg. 3, 4] ---------------------------------------------------------------


def search_region(
    sequence: Sequence[int],
    *,
    min_size_gap: float = MIN_SIZE_GAP,
    weights: Sequence[int] | None = None,
    protected: Sequence[bool] | None = None,
) -> tuple[int, int, list[TagPathSplit]]:
    """searchRegion on a whole sequence: the final range ``(start, end)``, 1-based inclusive,
    and the accepted splits (``docs/algorithms.md`` §5.2 step 3).

    For each frequency threshold in ascending order [P Def. 3.6], only the symbols at least
    that frequent are read [P Alg. 4]; the scan stops at the first point where every symbol
    seen so far has had its last occurrence (the prefix and suffix alphabets are disjoint).
    That point is a split when the suffix is not empty and ``|n - 2i| / n > min_size_gap``;
    otherwise the next threshold is tried (only the first disjoint point per threshold, S-8).
    The search ends when the filtered alphabet has fewer than two symbols or the thresholds
    are exhausted (S-5, S-9). The paper's recursion is a loop here.

    ``weights`` (one per element, default 1) replace the element counts in the size test and
    in the choice of the side to keep (:attr:`TpsOptions.size` ``"text"``).
    ``protected`` (one flag per element) marks elements no split may remove: a split whose
    removed side holds one fails like one that fails the size test (``guard_main_content``).

    The symbol counts of the current range, their histogram and the sorted thresholds are
    kept up to date as parts are cut off, and a scan allocates only for the symbols it meets,
    so a split costs the length of the scans plus the size of the part removed, not a pass
    over the whole alphabet: a 10,000-deep chain of distinct paths, which splits 10,000 times,
    stays linear. Scans of the thresholds that find no split stop at a few passes over the
    range (see :meth:`_Range.first_split`): a page whose symbols all open early and close late
    at a thousand different frequencies costs a few passes, not a thousand.
    """
    if not 0.0 <= min_size_gap < 1.0:
        raise ValueError(f"min_size_gap must be in [0, 1), not {min_size_gap!r}")
    if weights is not None and len(weights) != len(sequence):
        raise ValueError("weights must have one value per element of the sequence")
    if protected is not None and len(protected) != len(sequence):
        raise ValueError("protected must have one flag per element of the sequence")
    if not sequence:
        return 0, 0, []
    state = _Range(
        sequence,
        min_size_gap,
        _prefix_sums(weights if weights is not None else [1] * len(sequence)),
        _prefix_sums(protected if protected is not None else [0] * len(sequence)),
    )
    splits: list[TagPathSplit] = []
    while True:
        check_deadline("searching the region")
        found = state.first_split()
        lo, hi = state.lo, state.hi
        if found is None:
            return lo + 1, hi + 1, splits
        threshold, i = found
        state.cut(i)
        splits.append(TagPathSplit(lo + 1, hi + 1, threshold, i, state.lo + 1, state.hi + 1))


class _Range:
    """The range ``sequence[lo..hi]`` searchRegion works on, with its symbol counts, their
    histogram and the sorted list of the frequencies present, kept up to date as parts are
    cut off."""

    def __init__(
        self,
        sequence: Sequence[int],
        min_size_gap: float,
        prefix: Sequence[int],
        guarded: Sequence[int],
    ) -> None:
        self.sequence = sequence
        self.min_size_gap = min_size_gap
        self.prefix = prefix
        """Prefix sums of the weights."""
        self.guarded = guarded
        """Prefix sums of the protected flags."""
        self.lo, self.hi = 0, len(sequence) - 1
        self.counts: dict[int, int] = {}
        for symbol in sequence:
            self.counts[symbol] = self.counts.get(symbol, 0) + 1
        self.histogram: dict[int, int] = {}  # frequency -> number of symbols with it
        for frequency in self.counts.values():
            self.histogram[frequency] = self.histogram.get(frequency, 0) + 1
        self.frequencies = sorted(self.histogram)
        """The frequencies of the histogram, ascending: the thresholds [P Def. 3.6]."""
        self.alphabet = len(self.counts)
        """Symbols that occur in the range."""

    def cut(self, i: int) -> None:
        """Cut off the lighter side of a split at ``i`` (the prefix [P Alg. 3 line 41] or the
        suffix [line 43]), updating the counts, histogram and frequencies."""
        lo, hi = self.lo, self.hi
        if _prefix_lighter(self.prefix, lo, hi, i):
            cut = range(lo, lo + i)
            self.lo = lo + i
        else:
            cut = range(lo + i, hi + 1)
            self.hi = lo + i - 1
        sequence, counts, histogram = self.sequence, self.counts, self.histogram
        for p in cut:
            if p & _CHECK_EVERY == _CHECK_EVERY:
                check_deadline("searching the region")
            symbol = sequence[p]
            frequency = counts[symbol]
            counts[symbol] = frequency - 1
            histogram[frequency] -= 1
            if not histogram[frequency]:
                del histogram[frequency]
                del self.frequencies[bisect.bisect_left(self.frequencies, frequency)]
            if frequency > 1:
                below = histogram.get(frequency - 1, 0)
                histogram[frequency - 1] = below + 1
                if not below:
                    bisect.insort(self.frequencies, frequency - 1)
            else:
                self.alphabet -= 1

    def first_split(self) -> tuple[int, int] | None:
        """The ``(threshold, i)`` of the accepted split of the range, or ``None``.

        For each threshold, the first point where the prefix and suffix alphabets are
        disjoint is the end of the first run of overlapping ``[first, last]`` occurrence
        intervals of the symbols at least that frequent. It is first found by scanning from
        ``lo``, which stops there (cheap when the split comes early, as when a chain of
        wrappers is peeled one at a time); once the scans of this call have read as many
        positions as the range holds, the intervals are indexed (:class:`_Intervals`) and each
        remaining threshold costs only the symbols of its run. Either way a call costs
        at most a few passes over the range, where scanning alone would cost one per
        threshold (quadratic in the number of distinct frequencies).
        """
        lo, hi = self.lo, self.hi
        length = hi - lo + 1
        scanned = 0
        intervals: _Intervals | None = None
        passed = 0  # symbols below the current threshold
        for threshold in self.frequencies:
            alphabet_size = self.alphabet - passed
            passed += self.histogram[threshold]
            if alphabet_size < 2:
                return None
            check_deadline("searching the region")
            if intervals is None and scanned >= length:
                intervals = _Intervals(self.sequence, lo, hi, self.counts, threshold)
            if intervals is not None:
                p, finished = intervals.first_run(threshold)
            else:
                p, finished = self._scan(threshold)
                scanned += p - lo + 1
            i = p - lo + 1
            if (
                finished < alphabet_size
                and _gap(self.prefix, lo, hi, i) > self.min_size_gap + _EPSILON
                and not _cuts_protected(self.prefix, self.guarded, lo, hi, i)
            ):
                return threshold, i
        return None

    def _scan(self, threshold: int) -> tuple[int, int]:
        """The first position where every symbol at least ``threshold`` frequent that has
        been read has had its last occurrence, and the number of those symbols [P Alg. 4]."""
        sequence, counts = self.sequence, self.counts
        used: dict[int, int] = {}
        open_symbols = 0  # seen in the prefix and still occurring after it
        finished = 0  # symbols whose last occurrence has been read
        for p in range(self.lo, self.hi + 1):
            if p & _CHECK_EVERY == _CHECK_EVERY:
                check_deadline("searching the region")
            symbol = sequence[p]
            total = counts[symbol]
            if total < threshold:
                continue
            seen = used.get(symbol, 0) + 1
            used[symbol] = seen
            if seen == 1:
                open_symbols += 1
            if seen == total:
                open_symbols -= 1
                finished += 1
                if open_symbols == 0:  # prefix and suffix alphabets are disjoint
                    return p, finished
        raise AssertionError("a range with two symbols has a last occurrence")


class _Intervals:
    """The ``[first, last]`` occurrence intervals of the symbols of ``sequence[lo..hi]`` at
    least ``threshold`` frequent, in order of their first occurrence, as a linked list from
    which the symbols below each next threshold are unlinked."""

    def __init__(
        self,
        sequence: Sequence[int],
        lo: int,
        hi: int,
        counts: dict[int, int],
        threshold: int,
    ) -> None:
        index: dict[int, int] = {}
        self.first: list[int] = []
        self.last: list[int] = []
        frequency: list[int] = []
        for p in range(lo, hi + 1):
            if p & _CHECK_EVERY == _CHECK_EVERY:
                check_deadline("searching the region")
            symbol = sequence[p]
            k = index.get(symbol)
            if k is None:
                total = counts[symbol]
                if total < threshold:
                    continue
                k = index[symbol] = len(self.first)
                self.first.append(p)
                self.last.append(p)
                frequency.append(total)
            else:
                self.last[k] = p
        size = len(self.first)
        self.next = [*range(1, size), -1]
        self.previous = list(range(-1, size - 1))
        self.head = 0 if size else -1
        self.below: dict[int, list[int]] = {}  # frequency -> its symbols, to unlink
        for k, total in enumerate(frequency):
            self.below.setdefault(total, []).append(k)
        self.pending = sorted(self.below, reverse=True)

    def first_run(self, threshold: int) -> tuple[int, int]:
        """The end of the first run of overlapping intervals of the symbols at least
        ``threshold`` frequent (thresholds come in ascending order), and its symbols."""
        while self.pending and self.pending[-1] < threshold:
            for k in self.below[self.pending.pop()]:
                self._unlink(k)
        k = self.head
        end = self.last[k]
        members = 1
        k = self.next[k]
        while k >= 0 and self.first[k] <= end:
            end = max(end, self.last[k])
            members += 1
            k = self.next[k]
        return end, members

    def _unlink(self, k: int) -> None:
        before, after = self.previous[k], self.next[k]
        if before >= 0:
            self.next[before] = after
        else:
            self.head = after
        if after >= 0:
            self.previous[after] = before


def _prefix_sums(values: Sequence[int]) -> list[int]:
    sums = [0]
    for value in values:
        sums.append(sums[-1] + value)
    return sums


def _cuts_protected(
    prefix: Sequence[int], guarded: Sequence[int], lo: int, hi: int, i: int
) -> bool:
    """Whether the side a split at ``i`` removes holds a protected element."""
    if _prefix_lighter(prefix, lo, hi, i):
        return guarded[lo + i] > guarded[lo]
    return guarded[hi + 1] > guarded[lo + i]


def _sizes(prefix: Sequence[int], lo: int, hi: int, i: int) -> tuple[int, int]:
    first = prefix[lo + i] - prefix[lo]
    return first, prefix[hi + 1] - prefix[lo + i]


def _gap(prefix: Sequence[int], lo: int, hi: int, i: int) -> float:
    first, second = _sizes(prefix, lo, hi, i)
    if first + second == 0:
        return 0.0
    return abs(second - first) / (first + second)


def _prefix_lighter(prefix: Sequence[int], lo: int, hi: int, i: int) -> bool:
    first, second = _sizes(prefix, lo, hi, i)
    return first < second


# --- pruneDOMTree [P Alg. 5] ------------------------------------------------------------------

_DROP, _SHELL, _KEEP = 0, 1, 2


def _modes(view: DomView, region: TagPathRegion) -> list[int]:
    """For each element of ``view``: kept with its text or dropped, by position (in the
    region, or outside it with ``invert``) [P Alg. 5; S-10: by position, not by code]."""
    first, last = region.start - 1, region.end - 1
    return [_KEEP if (first <= i <= last) != region.invert else _DROP for i in range(len(view))]


def _remove_furniture(view: DomView, chars: Sequence[int], modes: list[int]) -> None:
    """Drop the page furniture ``cetd-plus`` removes by markup, forms aside, and outside
    ``<article>`` elements: a record's own ``<footer>`` or ``<nav>`` is part of the record
    (HTML Living Standard §4.3.7). ``chars`` are the view's :func:`count_nodes` characters."""
    furniture = boilerplate(view, chars, structural=True, comments=False, forms=False)
    in_article = within(view, [tag == "article" for tag in view.tags])
    for i, is_furniture in enumerate(furniture):
        if is_furniture and not in_article[i]:
            modes[i] = _DROP


def _remove_widgets(view: DomView, chars: Sequence[int], modes: list[int]) -> None:
    """Drop the :data:`WIDGET_TAGS` elements that hold no visible text (``chars``, the view's
    :func:`count_nodes` characters), with their subtrees."""
    widgets = within(view, [tag in WIDGET_TAGS and not chars[i] for i, tag in enumerate(view.tags)])
    for i in range(1, len(view)):
        if widgets[i]:
            modes[i] = _DROP


def _complete_records(
    view: DomView,
    codes: Sequence[int],
    main: Sequence[bool],
    own_text: Sequence[int],
    modes: list[int],
) -> None:
    """Keep whole the records that hold text of the main block (``main``; ``own_text``, the
    characters each element owns), in the lists where :data:`MIN_RECORDS` or more of them do
    (:attr:`TpsOptions.complete_records`). The records of a list are siblings with the same
    tag path (``codes``, :func:`tag_path_sequence`: the same tag, classes and style). One pass
    counts each element's siblings alike, one finds each element's record, one groups the
    records by list: linear in the view."""
    size, parent = len(view), view.parent
    keys = [(parent[i], codes[i]) for i in range(size)]
    alike: dict[tuple[int, int], int] = {}  # a list's key -> its records
    for key in keys[1:]:
        alike[key] = alike.get(key, 0) + 1
    record = [-1] * size
    for i in range(1, size):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("completing the records")
        record[i] = i if alike[keys[i]] >= MIN_RECORDS else record[parent[i]]
    lists: dict[tuple[int, int], set[int]] = {}
    for i in range(size):
        r = record[i]
        if main[i] and own_text[i] and r >= 0:
            lists.setdefault(keys[r], set()).add(r)
    whole = [False] * size
    for records in lists.values():
        if len(records) >= MIN_RECORDS:
            for r in records:
                whole[r] = True
    for i, inside in enumerate(within(view, whole)):
        if inside:
            modes[i] = _KEEP


def _keep_heading(view: DomView, chars: Sequence[int], modes: list[int]) -> None:
    """Keep the first ``<h1>`` of ``view`` that holds text (``chars``, the view's
    :func:`count_nodes` characters) with its subtree."""
    tags = view.tags
    heading = next((i for i in range(len(view)) if tags[i] == "h1" and chars[i]), None)
    if heading is not None:
        end = view.subtree_end(heading)
        modes[heading:end] = [_KEEP] * (end - heading)


def _bound_to_main_landmark(
    view: DomView, chars: Sequence[int], modes: list[int], share: float
) -> None:
    """Drop everything outside the page's main landmark, when one holds ``share`` of the text
    (``chars``, the view's :func:`count_nodes` characters; :func:`main_landmark`)."""
    landmark = main_landmark(view, chars, share)
    if landmark is None:
        return
    end = view.subtree_end(landmark)
    modes[:landmark] = [_DROP] * landmark
    modes[end:] = [_DROP] * (len(modes) - end)


def _roles(view: DomView) -> list[str]:
    """The first token of each element's ``role``, lower-cased (WAI-ARIA 1.2 §7.1: the first
    token that names a role is the role); ``""`` without one."""
    roles = []
    for element in view.elements:
        role = element.get("role")
        tokens = role.split() if role else ()
        roles.append(tokens[0].lower() if tokens else "")
    return roles


def _remove_buttons(view: DomView, modes: list[int]) -> None:
    """Drop the buttons (``<button>``, ``role="button"``) with their subtrees, but those inside
    or around a heading (``h1``-``h6``, ``role="heading"``): an accordion's headers."""
    tags, roles = view.tags, _roles(view)
    buttons = [tag == "button" or roles[i] == "button" for i, tag in enumerate(tags)]
    if not any(buttons):
        return
    headings = [tag in HEADING_TAGS or roles[i] == "heading" for i, tag in enumerate(tags)]
    in_heading, around_heading = within(view, headings), ancestors_of(view, headings)
    dropped = within(
        view,
        [
            button and not in_heading[i] and not around_heading[i]
            for i, button in enumerate(buttons)
        ],
    )
    for i in range(1, len(view)):
        if dropped[i]:
            modes[i] = _DROP


def _add_shells(view: DomView, modes: list[int]) -> None:
    """Make every element that is not kept but has a kept descendant a shell [P Alg. 5]."""
    below = ancestors_of(view, [mode == _KEEP for mode in modes])
    for i, mode in enumerate(modes):
        if mode != _KEEP:
            modes[i] = _SHELL if below[i] else _DROP


def _main_content(tree: etree._Element, view: DomView) -> list[bool]:
    """Which elements of ``view`` ``cetd-plus`` keeps with their text in its output, its main
    block chosen even on pages it would keep whole, and without page-type detection, whose
    profiles keep the whole of a list page (none when it finds no content; elements it reads
    from a fallback view are not in ``view``)."""
    main = [False] * len(view)
    extractor = CetdPlusExtractor(whole_page_share=None, detect_page_type=False)
    content_view = extractor.view(tree)
    if isinstance(content_view, EmptyReason):
        return main
    selection = extractor.select(content_view)
    if isinstance(selection, EmptyReason):
        return main
    index_of = {element: i for i, element in enumerate(view.elements)}
    in_output = kept_elements(content_view, selection)
    for element, mode, shown in zip(content_view.elements, selection, in_output, strict=True):
        i = index_of.get(element)
        if mode == Keep.TEXT and shown and i is not None:
            main[i] = True
    return main


def _trim(
    tree: etree._Element,
    clone: etree._Element,
    view: DomView,
    modes: Sequence[int],
    *,
    keep_positions: bool = False,
) -> None:
    """Prune ``clone``, a deep copy of ``tree``, to the kept elements of ``view``; with
    ``keep_positions``, a removed element before a remaining sibling of the same tag is emptied
    instead (:func:`prune_tag_paths`).

    Copies are paired with originals by walking both trees in the same order. Every proxy
    stays referenced until the end: lxml frees a proxy by searching its ancestors for a live
    one, which would make a walk of a deep tree quadratic. An element kept with its text whose
    children in the view are all kept is left as copied, without a look at its children.
    """
    index_of: dict[etree._Element, int] = {}
    for i, element in enumerate(view.elements):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("trimming the copy")
        index_of[element] = i
    originals = list(tree.iter())
    duplicates = list(clone.iter())
    copies: list[etree._Element | None] = [None] * len(view)
    for step, (original, twin) in enumerate(zip(originals, duplicates, strict=True)):
        if step & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("trimming the copy")
        position = index_of.get(original)
        if position is not None:
            copies[position] = twin
    children = view.children
    if not modes[0]:  # ``invert`` of a region that is the whole body: nothing is kept
        body = copies[0]
        if body is not None:
            body.text = None
            for child in list(body):
                body.remove(child)
        return
    for i, mode in enumerate(modes):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("trimming the copy")
        target = copies[i]
        if mode == _DROP or target is None:
            continue
        if mode == _KEEP and all(modes[c] for c in children[i]):
            continue  # nothing of it goes
        duplicate: etree._Element = target
        own = {id(copies[c]): c for c in children[i]}
        if mode == _SHELL:
            duplicate.text = None
        later: set[object] = set()  # the tags of the children that stay, after this one
        doomed: list[etree._Element] = []  # removed with their tails kept, in reverse order
        for step, child in enumerate(reversed(list(duplicate)), 1):
            if step & _CHECK_EVERY == _CHECK_EVERY:
                check_deadline("trimming the copy")
            c = own.get(id(child))
            goes = (
                (c is None or not modes[c]) if mode == _SHELL else (c is not None and not modes[c])
            )
            if mode == _SHELL:
                child.tail = None
            if not goes:
                later.add(child.tag)
            elif keep_positions and isinstance(child.tag, str) and child.tag in later:
                child.clear(keep_tail=True)  # type: ignore[call-arg]  # lxml >= 4.4; not in lxml-stubs
            elif mode == _SHELL:
                duplicate.remove(child)
            else:
                doomed.append(child)
        remove_keeping_tails(duplicate, doomed[::-1])

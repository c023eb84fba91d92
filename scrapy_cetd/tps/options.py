"""The options of TPS pruning: :class:`TpsOptions`, checked once when made, its defaults and
the paper's preset (:meth:`TpsOptions.paper`), and :func:`tps_options`, how every TPS function
reads them.

Kept apart from the algorithm so that a spider, the command line and the benchmarks can build
and compare options without reading a page.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from scrapy_cetd.extractors.registry import coerce_options
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES
from scrapy_cetd.limits import DEFAULT_MAX_NODES

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

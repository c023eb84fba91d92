"""TPS on a page: :func:`search_tag_path_region` finds the main region of a tree's body,
:func:`prune_tag_paths` and :func:`prune_tag_paths_region` return a copy pruned to it, each
within the limits of its options; the steps are those of the modules below (the sequence, the
search, the modes, the trimmed copy).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from lxml import etree

from scrapy_cetd.limits import LimitExceededError, check_deadline, deadline
from scrapy_cetd.page.density import count_nodes
from scrapy_cetd.page.dom import (
    DomView,
    build_view,
    count_elements,
    viewed_body,
    viewed_document,
)
from scrapy_cetd.result import Reason
from scrapy_cetd.tps.modes import element_modes, main_content
from scrapy_cetd.tps.options import DEFAULT_OPTIONS, TpsOptions, tps_options
from scrapy_cetd.tps.region import TagPathRegion
from scrapy_cetd.tps.search import search_region
from scrapy_cetd.tps.sequence import tag_path_sequence
from scrapy_cetd.tps.trim import trim


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
            trim(source, clone, view, modes, keep_positions=chosen.keep_positions)
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
        main = main_content(viewed_document(tree, body), view)
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
    modes = element_modes(
        view, region, options, codes=codes, main=main, own_text=own_text, chars=counts.chars
    )
    check_deadline("choosing what to keep")
    kept = sum(1 for mode in modes if mode)
    return replace(region, kept_count=kept), view, modes

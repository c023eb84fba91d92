"""What pruning does to each element of the body [P Alg. 5]: dropped, kept as a shell (tag and
attributes, for a kept descendant) or kept with its text; by position in the region, then
changed by the options beyond the paper (the main content, the records, the heading, the main
landmark, the furniture, the widgets, the buttons).
"""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from scrapy_cetd.extractors.cetd_plus import CetdPlusExtractor
from scrapy_cetd.extractors.cetd_plus.record_runs import MIN_RECORDS
from scrapy_cetd.extractors.cetd_plus.regions import main_landmark
from scrapy_cetd.extractors.furniture import boilerplate
from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import HEADING_TAGS, DomView
from scrapy_cetd.page.flags import ancestors_of, within
from scrapy_cetd.page.output import Keep, kept_elements
from scrapy_cetd.result import EmptyReason
from scrapy_cetd.tps.options import TpsOptions
from scrapy_cetd.tps.region import TagPathRegion

DROP, SHELL, KEEP = 0, 1, 2
"""The modes of an element: removed, kept as a shell, kept with its text."""

WIDGET_TAGS = frozenset({"svg", "button", "input", "textarea"})
"""Inline graphics and form controls: what ``remove_widgets`` drops when it holds no text."""


def element_modes(
    view: DomView,
    region: TagPathRegion,
    options: TpsOptions,
    *,
    codes: Sequence[int],
    main: Sequence[bool] | None,
    own_text: Sequence[int],
    chars: Sequence[int],
) -> list[int]:
    """The mode of each element of ``view``: by position in ``region`` [P Alg. 5], then
    changed by the ``options`` beyond the paper, in this order: the main content (``main``,
    :func:`main_content`; ``None`` when no option needs it) and its records kept, the heading
    kept, everything outside the main landmark dropped, the furniture, widgets and buttons
    dropped; last, the ancestors of what is kept become shells. ``codes`` are the view's tag
    path codes (:func:`~scrapy_cetd.tps.sequence.tag_path_sequence`), ``own_text`` the
    characters each element owns and ``chars`` those of its subtree (:func:`count_nodes`)."""
    modes = _modes(view, region)
    if main is not None and options.keep_main_content:
        for i, selected in enumerate(main):
            if selected:
                modes[i] = KEEP
    if main is not None and options.complete_records:
        _complete_records(view, codes, main, own_text, modes)
    if options.keep_heading:
        _keep_heading(view, chars, modes)
    if options.main_landmark_share is not None:
        _bound_to_main_landmark(view, chars, modes, options.main_landmark_share)
    if options.remove_furniture:
        _remove_furniture(view, chars, modes)
    if options.remove_widgets:
        _remove_widgets(view, chars, modes)
    if options.remove_buttons:
        _remove_buttons(view, modes)
    _add_shells(view, modes)
    return modes


def _modes(view: DomView, region: TagPathRegion) -> list[int]:
    """For each element of ``view``: kept with its text or dropped, by position (in the
    region, or outside it with ``invert``) [P Alg. 5; S-10: by position, not by code]."""
    first, last = region.start - 1, region.end - 1
    return [KEEP if (first <= i <= last) != region.invert else DROP for i in range(len(view))]


def _remove_furniture(view: DomView, chars: Sequence[int], modes: list[int]) -> None:
    """Drop the page furniture ``cetd-plus`` removes by markup, forms aside, and outside
    ``<article>`` elements: a record's own ``<footer>`` or ``<nav>`` is part of the record
    (HTML Living Standard §4.3.7). ``chars`` are the view's :func:`count_nodes` characters."""
    furniture = boilerplate(view, chars, structural=True, comments=False, forms=False)
    in_article = within(view, [tag == "article" for tag in view.tags])
    for i, is_furniture in enumerate(furniture):
        if is_furniture and not in_article[i]:
            modes[i] = DROP


def _remove_widgets(view: DomView, chars: Sequence[int], modes: list[int]) -> None:
    """Drop the :data:`WIDGET_TAGS` elements that hold no visible text (``chars``, the view's
    :func:`count_nodes` characters), with their subtrees."""
    widgets = within(view, [tag in WIDGET_TAGS and not chars[i] for i, tag in enumerate(view.tags)])
    for i in range(1, len(view)):
        if widgets[i]:
            modes[i] = DROP


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
        if i & CHECK_EVERY == CHECK_EVERY:
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
            modes[i] = KEEP


def _keep_heading(view: DomView, chars: Sequence[int], modes: list[int]) -> None:
    """Keep the first ``<h1>`` of ``view`` that holds text (``chars``, the view's
    :func:`count_nodes` characters) with its subtree."""
    tags = view.tags
    heading = next((i for i in range(len(view)) if tags[i] == "h1" and chars[i]), None)
    if heading is not None:
        end = view.subtree_end(heading)
        modes[heading:end] = [KEEP] * (end - heading)


def _bound_to_main_landmark(
    view: DomView, chars: Sequence[int], modes: list[int], share: float
) -> None:
    """Drop everything outside the page's main landmark, when one holds ``share`` of the text
    (``chars``, the view's :func:`count_nodes` characters; :func:`main_landmark`)."""
    landmark = main_landmark(view, chars, share)
    if landmark is None:
        return
    end = view.subtree_end(landmark)
    modes[:landmark] = [DROP] * landmark
    modes[end:] = [DROP] * (len(modes) - end)


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
            modes[i] = DROP


def _add_shells(view: DomView, modes: list[int]) -> None:
    """Make every element that is not kept but has a kept descendant a shell [P Alg. 5]."""
    below = ancestors_of(view, [mode == KEEP for mode in modes])
    for i, mode in enumerate(modes):
        if mode != KEEP:
            modes[i] = SHELL if below[i] else DROP


def main_content(tree: etree._Element, view: DomView) -> list[bool]:
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

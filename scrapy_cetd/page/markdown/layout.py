"""Which tables hold data and which are used for layout, found before the writer's walk.

A table used for layout (a cell holding paragraphs, headings, lists, a code block, a quote or
another table, or text outside its cells, or a single cell) is written as the blocks it holds:
as a GitHub table, whose cells hold one line each, its content would lose its structure. The
writer must know this when the table opens, and the answer lies in the table's whole content,
hence a pass of its own, over the tables alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import local_tag
from scrapy_cetd.page.markdown.tags import CELLS, HEADINGS, LISTS, ROW_GROUPS, SKIPPED

_TABLE_PARTS = frozenset({"caption", "colgroup", "col", "tr", *ROW_GROUPS})
_LAYOUT_MARKERS = frozenset({"table", "p", *LISTS, "dl", "pre", "blockquote", "hr", *HEADINGS})
"""Elements that make a table a layout table when a cell holds one."""


def layout_tables(root: etree._Element) -> dict[etree._Element, bool]:
    """For every table below ``root``, whether it is a layout table (see the module's
    docstring); empty when there is none. Only the tables are walked, each outermost one
    once with the tables it holds: the rest of the content, most of it on most pages, is
    not."""
    layout: dict[etree._Element, bool] = {}
    steps = 0
    for table in root.iter("table"):
        if table is not root and table not in layout:  # a held table was walked with its own
            steps = _walk_table(table, layout, steps)
    return layout


def _walk_table(table: etree._Element, layout: dict[etree._Element, bool], before: int) -> int:
    """Record in ``layout`` whether ``table`` and each table inside it is a layout table, in
    one walk over ``table``; the steps walked so far, the ``before`` earlier ones included."""
    cells: dict[etree._Element, int] = {}
    open_tables: list[etree._Element] = []
    structure: list[bool] = []
    """For each open element: whether it is a table's own structure (table, row group, row)."""
    events = chain((("start", table),), _walk(table), (("end", table),))
    steps = before
    for steps, (event, element) in enumerate(events, before + 1):
        if steps & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding the layout tables")
        tag = local_tag(element)
        inside = structure[-1] if structure else False
        if event == "start":
            if inside and tag not in _TABLE_PARTS and tag not in CELLS:
                layout[open_tables[-1]] = True
            if open_tables and tag in _LAYOUT_MARKERS:
                layout[open_tables[-1]] = True
            if tag == "table":
                layout.setdefault(element, False)
                cells[element] = 0
                open_tables.append(element)
            elif tag in CELLS and open_tables:
                cells[open_tables[-1]] += 1
            own = tag in ("table", "tr") or tag in ROW_GROUPS
            if own and (element.text or "").strip():
                layout[open_tables[-1]] = True
            structure.append(own)
        else:
            structure.pop()
            if tag == "table":
                nested = open_tables.pop()
                if cells[nested] < 2:
                    layout[nested] = True
            if structure and structure[-1] and (element.tail or "").strip():
                layout[open_tables[-1]] = True
    return steps


def _walk(root: etree._Element) -> Iterator[tuple[str, etree._Element]]:
    """The start and end events below ``root``, without what :data:`.tags.SKIPPED` elements
    hold, nor comments and processing instructions."""
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, element in walker:
        if element is root:
            continue
        if local_tag(element) in SKIPPED or not isinstance(element.tag, str):
            if event == "start":
                walker.skip_subtree()
            continue
        yield event, element

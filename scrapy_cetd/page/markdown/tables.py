"""Data tables in the walk: :class:`Tables` opens a frame for a data table (not a layout
table, see :mod:`.layout`), its rows, its cells and its caption, and writes the table as a
GitHub table (:mod:`.grid`) when it closes, its caption as a paragraph before it.

A cell's content is written on one line (a hard break is a space there): a GitHub table's
cell holds one line, which is why a table whose cells hold blocks is a layout table.
"""

from __future__ import annotations

from lxml import etree

from scrapy_cetd.page.markdown.frames import Frame, Stack
from scrapy_cetd.page.markdown.grid import Cell, Table
from scrapy_cetd.page.markdown.inline import Inline
from scrapy_cetd.page.markdown.tags import CELLS
from scrapy_cetd.result import blank


class Tables:
    """The data tables of one walk."""

    def __init__(self, stack: Stack, layout: dict[etree._Element, bool]) -> None:
        self.stack = stack
        self.layout = layout
        """Whether each table is a layout table (:func:`.layout.layout_tables`)."""

    def open(self, element: etree._Element, tag: str, *, inline: bool) -> Frame | None:
        """The frame of a data table or of a part of the open one that holds content (a
        row, a cell, a caption); ``None`` for any other element, and for a table inside
        inline Markdown, which is written as its text."""
        stack = self.stack
        if tag in CELLS and stack.last.row is not None:
            stack.inline_depth += 1
            return Frame(element, "cell", inline=Inline(cell=True))
        if tag == "tr" and stack.last.table is not None:
            return Frame(element, "tr", row=[])
        if tag == "caption" and stack.last.table is not None:
            stack.inline_depth += 1
            return Frame(element, "caption", inline=Inline())
        if tag == "table" and not inline and not self.layout.get(element, True):
            stack.container().flush()
            stack.table_depth += 1
            return Frame(element, "table", table=Table())
        return None

    def close(self, frame: Frame, element: etree._Element) -> None:
        """Write what the frame of :meth:`open`, opened by ``element``, holds: a cell into its
        row, a row or the caption into the table, the table into its container."""
        stack = self.stack
        kind = frame.kind
        if kind in ("cell", "caption"):
            stack.inline_depth -= 1
            text = (frame.inline or Inline()).value().replace("\\\n", " ")
            outer = stack.last
            if kind == "cell" and outer.row is not None:
                outer.row.append(Cell(text, _span(element, "colspan"), _span(element, "rowspan")))
            elif kind == "caption" and outer.table is not None:
                outer.table.caption = text
        elif kind == "tr":
            table = stack.last.table
            if table is not None and frame.row:
                table.rows.append(frame.row)
        elif kind == "table":
            stack.table_depth -= 1
            table = frame.table or Table()
            container = stack.container()
            if not blank(table.caption):
                container.add("paragraph", [table.caption])
            container.add("table", table.lines())


def _span(element: etree._Element, name: str) -> int:
    """A cell's ``colspan`` or ``rowspan``: its ASCII digits, else one."""
    value = (element.get(name) or "").strip()
    return int(value) if value.isascii() and value.isdigit() and 0 < len(value) < 7 else 1

"""A data table as a GitHub table: :class:`Table` holds the rows of :class:`Cell` the walk
read, and lays them out on a grid where a cell spanning several columns or rows
(``colspan`` / ``rowspan``) leaves empty cells, so that the columns stay aligned; the first
row is the header row, and every row is as wide as the widest.

The grid is bounded by the table's own size (:data:`_GRID_GROWTH`, :data:`_MAX_GRID`): a few
cells spanning thousands of columns must not make the Markdown of a page many times the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_MAX_COLSPAN = 1000
_MAX_GRID = 200_000
"""Cells of one table's grid beyond which its spans are ignored (each cell in one column) and
its rows are not filled to the width of the widest."""
_GRID_GROWTH = 8
_GRID_SLACK = 64
"""A table's grid (its spans filled and its rows padded) holds at most this many times its own
cells, plus the slack, and at most :data:`_MAX_GRID`: the Markdown stays linear in the page,
where a few cells spanning a thousand columns each, over a few rows, would ask for a grid of
their product (a 100 KB page, 150 million characters of Markdown)."""


@dataclass
class Cell:
    """A cell's Markdown (on one line, ``|`` escaped) and the columns and rows it spans."""

    text: str
    colspan: int
    rowspan: int


@dataclass
class Table:
    """A data table's rows and caption, as the walk read them."""

    rows: list[list[Cell]] = field(default_factory=list)
    caption: str = ""

    def lines(self) -> list[str]:
        """The table's lines; none when no cell holds anything."""
        cells = sum(len(row) for row in self.rows)
        limit = min(_MAX_GRID, _GRID_GROWTH * cells + _GRID_SLACK)
        grid = _grid(self.rows, limit)
        if not grid or not any(any(cell for cell in row) for row in grid):
            return []
        width = max(len(row) for row in grid)
        padded = width * len(grid) <= limit
        out = [_row(grid[0], width), "|" + " --- |" * width]
        out.extend(_row(row, width if padded else len(row)) for row in grid[1:])
        return out


def _row(cells: list[str], width: int) -> str:
    """A table's row of ``cells``, padded with empty cells to ``width``."""
    padded = cells + [""] * (width - len(cells))
    return "| " + " | ".join(padded) + " |"


def _grid(rows: list[list[Cell]], limit: int) -> list[list[str]]:
    """The rows with every spanned position filled with an empty cell, or each cell in one
    column when the spans would make a grid of more than ``limit`` cells."""
    rows = [row for row in rows if row]
    size = sum(
        min(max(c.colspan, 1), _MAX_COLSPAN) * min(max(c.rowspan, 1), len(rows))
        for r in rows
        for c in r
    )  # a span of 0 is written as 1, and counted so
    if size > limit:
        return [[cell.text for cell in row] for row in rows]
    grid: list[list[str]] = []
    taken: dict[tuple[int, int], bool] = {}
    for r, row in enumerate(rows):
        line: list[str] = []
        column = 0
        for cell in row:
            while taken.pop((r, column), False):
                line.append("")
                column += 1
            line.append(cell.text)
            span = min(max(cell.colspan, 1), _MAX_COLSPAN)
            line.extend([""] * (span - 1))
            for below in range(r + 1, min(r + max(cell.rowspan, 1), len(rows))):
                for c in range(column, column + span):
                    taken[(below, c)] = True
            column += span
        while taken.pop((r, column), False):
            line.append("")
            column += 1
        grid.append(line)
    return grid

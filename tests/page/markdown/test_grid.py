"""Data tables as GitHub tables (scrapy_cetd.page.markdown.grid): spanned cells filled,
pipes escaped, and a grid that stays as large as its table."""

from __future__ import annotations

from markdownkit import (
    body_markdown,
    tables,
)


def test_tables_fill_spanned_cells_and_escape_pipes() -> None:
    page = (
        "<body><table><thead><tr><th>a</th><th>b | c</th><th>d</th></tr></thead><tbody>"
        "<tr><td colspan='2'>wide</td><td>x</td></tr>"
        "<tr><td rowspan='2'>tall</td><td><code>p|q</code></td><td>y</td></tr>"
        "<tr><td>z</td><td><a href='/l'>link</a></td></tr></tbody></table></body>"
    )
    markdown = body_markdown(page, "http://example.com/")
    (table,) = tables(markdown)
    assert table == [
        ["a", "b | c", "d"],
        ["wide", "", "x"],
        ["tall", "p|q", "y"],
        ["", "z", "link"],
    ]
    assert "[link](http://example.com/l)" in markdown


def test_a_table_of_more_cells_than_its_grid_allows_does_not_widen_every_row() -> None:
    width, rows = 1000, 300  # 300,000 cells once every row is filled: more than _MAX_GRID
    page = (
        "<body><table><tr>"
        + "<td>h</td>" * width
        + "</tr>"
        + "<tr><td>b</td></tr>" * rows
        + "</table></body>"
    )
    markdown = body_markdown(page)
    assert len(markdown) < 4 * len(page)  # not the width times the rows
    header, _, first, *_ = markdown.splitlines()
    assert header.count("| h") == width
    assert first == "| b |"
    (table,) = tables(markdown)
    assert len(table[0]) == width
    assert table[1] == ["b"] + [""] * (width - 1)  # GitHub's tables fill in the rest


def test_tables_of_a_few_cells_spanning_thousands_stay_as_large_as_the_page() -> None:
    """A grid holds at most eight times its table's cells (and some slack): twenty cells of
    ``colspan=1000`` over ten rows would ask for 200,000 cells per table, the Markdown of a
    100 KB page growing to 150 million characters."""
    table = "<table><tr>" + "<td colspan=1000>h</td>" * 20 + "<tr><td>w</td>" * 9 + "</table>"
    page = "<body>" + table * 200 + "</body>"
    markdown = body_markdown(page)
    assert len(markdown) < 4 * len(page)
    first = tables(markdown)[0]
    assert first[0] == ["h"] * 20
    assert first[1][0] == "w"
    spanned = (
        "<table><tr><td colspan=3>wide</td></tr><tr><td>a</td><td>b</td><td>c</td></tr></table>"
    )
    assert tables(body_markdown(f"<body>{spanned}</body>")) == [[["wide", "", ""], ["a", "b", "c"]]]


def test_a_span_of_zero_counts_as_one_in_the_grid_s_bound() -> None:
    """``rowspan=0`` (valid HTML: to the end of the group) is written as one row, and counted
    so: counted as nothing, it let cells of ``colspan=1000`` fill every row to the width of
    the widest (a 1 MB page gave 90 MB of Markdown)."""
    row = "<tr>" + "<td colspan=1000 rowspan=0>cell</td>" * 10 + "</tr>"
    page = "<body><table>" + row * 300 + "</table></body>"
    assert len(body_markdown(page)) < 4 * len(page)

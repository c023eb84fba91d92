"""Layout tables (scrapy_cetd.page.markdown.layout) are written as the blocks they
hold."""

from __future__ import annotations

from markdownkit import (
    body_markdown,
    tables,
)


def test_layout_tables_are_written_as_their_blocks() -> None:
    page = (
        "<body><table><tr><td><h2>Story</h2><p>First.</p><p>Second.</p></td>"
        "<td><ul><li>menu</li></ul></td></tr></table></body>"
    )
    markdown = body_markdown(page)
    assert tables(markdown) == []
    assert markdown == "## Story\n\nFirst.\n\nSecond.\n\n- menu"


def test_a_cell_holding_a_dir_or_a_menu_makes_a_layout_table() -> None:
    """Written as lists (as ``<ul>`` is), they make the table around them a layout table, as
    a ``<ul>`` does: a GitHub table's cell holds one line, and the list would lose its
    items."""
    for tag in ("ul", "dir", "menu"):
        cell = f"<td><{tag}><li>x</li><li>y</li></{tag}></td>"
        page = f"<body><table><tr>{cell}<td>z</td></tr></table></body>"
        markdown = body_markdown(page)
        assert tables(markdown) == [], tag
        assert markdown.splitlines() == ["- x", "- y", "", "z"], tag

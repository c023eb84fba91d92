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

"""The text a selection keeps."""

from __future__ import annotations

from conftest import body_of, parse

from scrapy_cetd.extractors.cetd_plus.kept_text import kept_chars
from scrapy_cetd.page.density import count_nodes
from scrapy_cetd.page.dom import build_view
from scrapy_cetd.page.output import Keep


def test_text_dropped_inside_a_dropped_block_is_not_subtracted_twice() -> None:
    page = parse(
        "<body><div><p>Kept text here.</p><ul><li><a href='/a'>Menu</a></li></ul></div></body>"
    )
    view = build_view(body_of(page))
    counts = count_nodes(view)
    modes = [Keep.TEXT] * len(view)
    ul, li = view.tags.index("ul"), view.tags.index("li")
    modes[ul] = Keep.DROP
    assert kept_chars(view, counts, modes) == counts.chars[0] - counts.chars[ul]
    modes[li] = Keep.DROP  # inside the dropped list: already gone
    assert kept_chars(view, counts, modes) == counts.chars[0] - counts.chars[ul]

"""Step 8, the link blocks inside the selection."""

from __future__ import annotations

import pytest
from cetdpluskit import ARTICLE, lines


def test_link_blocks_inside_the_content_go() -> None:
    related = "<ul>" + "".join(f"<li><a href='/r{i}'>Related {i}</a></li>" for i in range(3))
    page = f"<html><body><div>{ARTICLE.replace('</article>', related + '</ul></article>')}"
    page += "</div></body></html>"
    assert "Related 1" not in "\n".join(lines(page))
    assert "Related 1" in "\n".join(lines(page, link_block_ratio=1.0))


@pytest.mark.parametrize(("declared", "kept"), [("Product", True), ("NewsArticle", False)])
def test_pages_that_declare_no_article_keep_their_link_blocks(declared: str, kept: bool) -> None:
    related = "<ul>" + "".join(f"<li><a href='/r{i}'>Related {i}</a></li>" for i in range(3))
    page = (
        f'<html><head><script type=\'application/ld+json\'>{{"@type": "{declared}"}}'
        f"</script></head><body><div>{ARTICLE.replace('</article>', related + '</ul></article>')}"
        "</div></body></html>"
    )
    assert ("Related 1" in "\n".join(lines(page))) is kept

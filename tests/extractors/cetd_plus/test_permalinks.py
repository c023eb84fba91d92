"""The permalinks of headings (scrapy_cetd.extractors.cetd_plus.permalinks, step 31)."""

from __future__ import annotations

import pytest
from cetdpluskit import prose

from scrapy_cetd import extract
from scrapy_cetd.extractors.cetd_plus import CetdPlusExtractor
from scrapy_cetd.page.parse import to_tree


def page(heading: str) -> str:
    return (
        f"<html><body><main><h1>Glazes</h1><p>{prose('a glaze', 3)}</p>{heading}"
        f"<p>{prose('the kiln', 3)}</p></main></body></html>"
    )


@pytest.mark.parametrize(
    ("heading", "mark"),
    [
        (
            '<h2 id="f">Firing<a class="headerlink" href="#f" title="Permalink">\u00b6</a></h2>',
            "\u00b6",
        ),
        ('<h2 id="f"><a href="#f" aria-hidden="true">#</a> Firing</h2>', "#"),
        ('<h2 id="f">Firing <a href="https://example.com/guide#f">\u00a7</a></h2>', "\u00a7"),
        ('<h2 id="f">Firing<a class="anchor" href="#f"><svg><path d="M0"/></svg></a></h2>', ""),
    ],
)
def test_a_headings_permalink_goes(heading: str, mark: str) -> None:
    """The mark leaves the text, and the Markdown's heading is no link; without the step the
    mark is in the text (an icon has none)."""
    result = extract(page(heading), url="https://example.com/guide", markdown=True)
    assert "Firing" in result.text.splitlines()
    assert "## Firing\n" in (result.markdown or "")
    assert "example.com/guide#f" not in (result.markdown or "")
    kept = CetdPlusExtractor(heading_permalinks=False).extract(to_tree(page(heading)))
    assert mark in kept.text
    assert not mark or mark not in result.text


@pytest.mark.parametrize(
    "heading",
    [
        '<h2><a href="#firing">Firing</a></h2>',
        '<h2>Firing<a href="#note-1">1</a></h2>',
        '<h2>Firing <a href="/firing">\u00b6</a></h2>',
        '<p>Firing <a href="#firing">\u00b6</a></p>',
    ],
)
def test_a_link_with_words_or_to_another_page_or_outside_a_heading_stays(heading: str) -> None:
    """A heading's own link (a section's title, a footnote's number), a link to another page,
    and a mark outside a heading are the page's text."""
    result = extract(page(heading))
    kept = CetdPlusExtractor(heading_permalinks=False).extract(to_tree(page(heading)))
    assert result.text == kept.text

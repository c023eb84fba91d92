"""Step 1, the fallback content: pages that show their text only to scripts."""

from __future__ import annotations

from cetdpluskit import ARTICLE, NEWS_PAGE, PARAGRAPHS, extraction, lines
from ratios import TENFOLD, growth

from scrapy_cetd import extract


def test_noscript_content_is_read_when_the_page_shows_nothing() -> None:
    page = f"<html><body><div id='app'></div><noscript>{ARTICLE}</noscript></body></html>"
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    assert extract(page, algorithm="cetd-plus", fallback_content=False).reason == (
        "no visible text"
    )


def test_a_page_hidden_until_a_script_runs_is_read() -> None:
    page = f"<html><body><div style='visibility:hidden'>{ARTICLE}</div></body></html>"
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    assert not extract(page, algorithm="cetd-plus", fallback_content=False)


def test_a_part_react_streams_into_the_page_is_read() -> None:
    # React's streaming rendering sends what was not ready in a <div hidden id="S:..."> at
    # the end, which its script moves into the placeholder at once (Next.js articles)
    first, *streamed = PARAGRAPHS
    page = (
        f"<html><body><main><article><h1>Storm hits the coast</h1><p>{first}</p><!--$?-->"
        "<template id='B:0'></template><p>Loading</p><!--/$--></article></main><div hidden"
        f" id='S:0'>{''.join(f'<p>{text}</p>' for text in streamed)}</div>"
        "<script>$RC('B:0','S:0')</script></body></html>"
    )
    assert set(streamed) <= set(lines(page))
    assert not set(streamed) & set(lines(page.replace("id='S:0'", "id='S:0x'")))


def test_a_small_hidden_part_stays_hidden() -> None:
    page = NEWS_PAGE.replace("</article>", "<p hidden>Secret note kept from readers.</p></article>")
    assert "Secret note" not in "\n".join(lines(page))


def test_nested_noscripts_are_read_once() -> None:
    def noscripts(depth: int) -> str:
        nested = "<noscript><p>text of the noscript</p>" * depth + "</noscript>" * depth
        return f"<html><body><div id='app'></div>{nested}</body></html>"

    assert growth(extraction(noscripts), 100, 1_000) < TENFOLD

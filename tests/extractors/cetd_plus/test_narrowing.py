"""Steps 4 and 5, the narrowing to the main block: the article body, the single block and the
blocks of its tag path.
"""

from __future__ import annotations

from collections.abc import Callable

from cetdpluskit import ARTICLE, FURNITURE, PARAGRAPHS, extraction, lines
from conftest import deep_chain
from ratios import TENFOLD, growth

from scrapy_cetd.extractors.cetd_plus.narrowing import add_same_path_blocks
from scrapy_cetd.page.dom import build_view

TEASERS = "".join(
    f"<p>A teaser of story {i}, with a summary that goes on for long enough to look like the "
    "text of an article itself, written by an editor who wanted readers to read on.</p>"
    for i in range(2)
)


def test_single_block_drops_distant_dense_regions() -> None:
    nav, footer = FURNITURE
    page = (
        f"<html><body>{nav}<div id='page'><div id='a'>{ARTICLE}</div><p>By our reporter.</p>"
        f"</div><div id='more'>{TEASERS}</div>{footer}</body></html>"
    )
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    assert "A teaser of story 1" in "\n".join(lines(page, single_block_share=0))


def test_a_page_that_is_all_content_is_not_narrowed_to_one_block() -> None:
    page = (
        f"<html><body><div id='page'><div id='a'>{ARTICLE}</div><p>By our reporter.</p>"
        f"</div><div id='more'>{TEASERS}</div></body></html>"
    )
    assert "A teaser of story 1" in "\n".join(lines(page))
    assert lines(page, whole_page_share=None) == ["Storm hits the coast", *PARAGRAPHS]


def _topics_column(topics: list[str]) -> str:
    return (
        "<td><h2>Categories</h2><div class='topics'>"
        + "".join(
            f"<p><a href='/{topic}'>{topic}</a> Articles about {topic}, from the first signs to "
            "the care that follows, written by doctors for readers who want to understand it.</p>"
            for topic in topics
        )
        + "</div></td>"
    )


def test_blocks_of_the_same_kind_as_the_single_block_join_it() -> None:
    nav, footer = FURNITURE
    promo = (
        "<div class='promo'><p>Subscribe to our letter and get a long list of offers, deals and "
        "news from partners every single week of the year.</p></div>"
    )
    first, second = (
        _topics_column(["Diagnosis", "Treatment"]),
        _topics_column(["Support", "Work", "Family"]),
    )
    columns = f"<table><tr>{first}{second}</tr></table>"
    page = f"<html><body>{nav}{columns}{promo}{footer}</body></html>"
    starts = [line.split()[0] for line in lines(page)]
    assert starts == ["Diagnosis", "Treatment", "Support", "Work", "Family"]
    assert [line.split()[0] for line in lines(page, same_path_blocks=False)] == starts[2:]
    assert "Subscribe" in lines(page, single_block_share=0)[-1]


def test_article_body_bounds_the_selection() -> None:
    page = (
        "<html><body><div><div itemprop='articleBody'>"
        + "".join(f"<p>{text}</p>" for text in PARAGRAPHS[:2])
        + f"</div><div class='box'><p>{PARAGRAPHS[2]}</p></div></div></body></html>"
    )
    assert lines(page) == PARAGRAPHS[:2]
    assert lines(page, article_body=False) == PARAGRAPHS


def test_many_article_bodies_are_found_in_one_pass() -> None:
    def page(count: int) -> str:
        bodies = "<div itemprop='articleBody'><p>a line</p></div>" * count
        return f"<html><body>{bodies}<article>{ARTICLE}</article></body></html>"

    assert growth(extraction(page), 300, 3_000) < TENFOLD


def test_tag_paths_are_read_in_linear_time_on_deep_chains() -> None:
    def make(depth: int) -> Callable[[], object]:
        _, chain = deep_chain(depth)
        view = build_view(chain[0])
        whole = [True] * len(view)

        def add() -> None:
            local = [False] * len(view)
            local[-1] = True
            add_same_path_blocks(view, whole, local)

        return add

    assert growth(make, 1_500, 15_000) < TENFOLD

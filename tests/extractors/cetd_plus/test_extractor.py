"""cetd-plus's options and the steps its class runs itself (the furniture of step 2, the
links of step 3, the list rule of step 11), on hand-made pages.
"""

from __future__ import annotations

import json
import pickle

import lxml.html
import pytest
from cetdpluskit import ARTICLE, NEWS_PAGE, PARAGRAPHS, Options, lines
from conftest import STORM_PAGE, deep_chain, parse, texts_from_threads
from lxml import etree

from scrapy_cetd import DEFAULT_ALGORITHM, CetdPlusExtractor, extract
from scrapy_cetd.page.markup import page_markup


def test_cetd_plus_is_the_default_algorithm() -> None:
    assert DEFAULT_ALGORITHM == "cetd-plus"
    assert extract(NEWS_PAGE).algorithm == "cetd-plus"


def test_news_page_keeps_the_article_without_furniture_or_comments() -> None:
    assert lines(NEWS_PAGE) == ["Storm hits the coast", *PARAGRAPHS]


def test_furniture_comes_back_when_boilerplate_removal_is_off() -> None:
    text = extract(
        NEWS_PAGE, algorithm="cetd-plus", remove_boilerplate=False, single_block_share=0
    ).text
    assert "Other stories that readers liked" in text


def test_a_site_footer_built_of_divs_goes_unless_footer_names_is_off() -> None:
    footer = (
        "<div class='site-footer'><p>About Example News: our newsroom, our editors and our "
        "values, how to reach us and how to send us a story, in a long footer line that goes "
        "on about the paper's history since its founding, its awards and its readers.</p></div>"
    )
    page = NEWS_PAGE.replace("</aside>", "</aside>" + footer)
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    assert "About Example News" not in extract(page, single_block_share=0).text
    assert "About Example News" in extract(page, footer_names=False, single_block_share=0).text


def test_include_comments_keeps_the_comment_section() -> None:
    comments = [
        f"Reader {i} wrote a long comment about the storm and the response of the council, "
        "which they found slow and badly organised this time."
        for i in range(2)
    ]
    assert lines(NEWS_PAGE, include_comments=True) == [
        "Storm hits the coast",
        *PARAGRAPHS,
        *comments,
    ]


def test_discussion_pages_keep_their_comments() -> None:
    page = NEWS_PAGE.replace(
        "<title>",
        '<script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script><title>',
    )
    assert "Reader 0 wrote a long comment" in "\n".join(lines(page))


REVIEW = (
    "I bought this jacket for a winter trip to the mountains and it kept me warm and dry "
    "through three days of snow, wind and rain, so I would buy it again."
)


def _reviewed_product() -> str:
    data = {
        "@type": "Product",
        "name": "Jacket",
        "review": [{"@type": "Review", "reviewBody": REVIEW}],
    }
    return (
        f"<html><head><script type='application/ld+json'>{json.dumps(data)}</script></head>"
        "<body><div>"
        + ARTICLE.replace(
            "</article>",
            "<div class='opinions'><h3>What buyers say</h3><div class='r'><p>"
            + REVIEW.replace("mountains", "<b>mountains</b>")
            + "</p><p>Anna, 3 March</p></div></div></article>",
        )
        + "</div></body></html>"
    )


def test_reviews_the_page_declares_are_comments() -> None:
    page = _reviewed_product()
    assert page_markup(parse(page)).user_texts == (REVIEW,)
    assert "three days of snow" not in "\n".join(lines(page))
    assert "three days of snow" in "\n".join(lines(page, include_comments=True))


def test_a_nav_wrapping_the_whole_page_is_not_furniture() -> None:
    page = f"<html><body><nav class='navbar'><a href='/'>Home</a>{ARTICLE}</body></html>"
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    assert lines(page.replace("<nav class='navbar'>", "<div>")) == lines(page)


def test_an_unclosed_anchor_without_href_is_not_a_link() -> None:
    page = f"<html><body><a name='top'><div>{ARTICLE}</div></body></html>"
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    assert lines(page, href_links=False, listing_share=0) != lines(page)


JOBS = "".join(
    f"<li><a href='/job/{i}'><span>Engineer number {i}</span><span>Company {i}</span>"
    f"<span>Remote, full time, from 50,000 a year</span></a></li>"
    for i in range(60)
)


LISTING = (
    "<html><body><header><p>Looking for a job? Here are this week's offers, picked for you "
    "by our editors from hundreds of companies.</p></header>"
    f"<div class='jobs'><ul>{JOBS}</ul></div></body></html>"
)


def test_a_page_of_link_records_is_read_whole() -> None:
    """Step 11, on a page of unknown type (the classifier takes this one for a listing, whose
    profile reads it whole too, its header aside)."""
    text = "\n".join(lines(LISTING, detect_page_type=False))
    assert "Engineer number 0" in text
    assert "Company 59" in text
    assert "Looking for a job?" in text
    without_rule = lines(LISTING, listing_share=0, detect_page_type=False)
    assert without_rule == [
        "Looking for a job? Here are this week's offers, picked for you by our editors from "
        "hundreds of companies."
    ]


def test_an_article_with_many_links_around_it_is_not_a_listing() -> None:
    menu = "<ul>" + "".join(f"<li><a href='/{i}'>Section {i}</a></li>" for i in range(40))
    page = f"<html><body><div>{menu}</ul></div><div>{ARTICLE}</div></body></html>"
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]


@pytest.mark.parametrize(
    "option",
    [
        {"single_block_share": 1.5},
        {"link_block_ratio": 0},
        {"threshold_coefficient": -1},
        {"listing_share": 2},
        {"whole_page_share": 0},
        {"shell_prose_chars": -1},
    ],
)
def test_invalid_options_are_rejected(option: Options) -> None:
    with pytest.raises(ValueError, match=next(iter(option))):
        CetdPlusExtractor(**option)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("profile_confidence", 1.5),
        ("profile_confidence", -0.1),
        ("main_landmark_share", 2.0),
        ("record_share", -1.0),
        ("post_region", 1.5),
        ("whole_posts", -0.5),
        ("post_comments", 2.0),
        ("menu_link_chars", 0),
        ("before_heading_share", 1.5),
        ("after_records_share", -0.1),
        ("after_records_share", float("nan")),
        ("after_posts_share", -0.1),
        ("after_posts_share", float("nan")),
    ],
)
def test_out_of_range_options_are_refused(option: str, value: float) -> None:
    with pytest.raises(ValueError, match=option):
        CetdPlusExtractor(**{option: value})  # type: ignore[arg-type]


def test_input_tree_is_unchanged() -> None:
    tree = parse(NEWS_PAGE.replace("<body>", "<body><a name='x'>"))
    before = etree.tostring(tree)
    CetdPlusExtractor(include_title=True).extract(tree)
    assert etree.tostring(tree) == before


def test_page_without_text_is_an_empty_result_with_reason() -> None:
    result = CetdPlusExtractor().extract(parse("<body><div><img src='x.png'></div></body>"))
    assert result.reason == "no visible text"
    assert not result


def test_deep_nesting_completes() -> None:
    root, chain = deep_chain(100_000)
    chain[-1].text = PARAGRAPHS[0]
    result = CetdPlusExtractor().extract(root)
    assert result.text == PARAGRAPHS[0]
    assert lxml.html.fragment_fromstring(result.html) is not None


def test_threads_and_pickling_give_the_same_results() -> None:
    extractor = CetdPlusExtractor(include_title=True)
    pages = [parse(NEWS_PAGE), parse(STORM_PAGE)]
    expected = [extractor.extract(page).text for page in pages]
    assert texts_from_threads(extractor, pages) == expected
    copy = pickle.loads(pickle.dumps(extractor))
    assert [copy.extract(page).text for page in pages] == expected

"""Page metadata: each source, the title's site name, authors' cleaning, the language, and
no exception on any input."""

from __future__ import annotations

import json
import pickle
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import lxml.html
import pytest
from conftest import parse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from ratios import TENFOLD, growth

from scrapy_cetd import extract
from scrapy_cetd.limits import deadline
from scrapy_cetd.page import metadata
from scrapy_cetd.page.metadata import page_metadata
from scrapy_cetd.result import Metadata

ENGLISH = (
    "The council approved the new budget on Tuesday after a long debate about schools, roads "
    "and the future of the public library, which many residents had asked to keep open. "
) * 4
FRENCH = (
    "Le conseil municipal a adopté mardi le nouveau budget après un long débat sur les écoles, "
    "les routes et l'avenir de la bibliothèque publique, que beaucoup d'habitants voulaient "
    "garder ouverte. "
) * 4


def page(head: str = "", body: str = "", lang: str = "") -> etree._Element:
    lang_attribute = f" lang='{lang}'" if lang else ""
    return parse(f"<html{lang_attribute}><head>{head}</head><body>{body}</body></html>")


def json_ld(data: object) -> str:
    return f"<script type='application/ld+json'>{json.dumps(data)}</script>"


def test_threads_that_need_the_language_model_at_once_load_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from py3langid.langid import LanguageIdentifier  # type: ignore[import-untyped]

    loads: list[int] = []
    real = LanguageIdentifier.from_modelpath

    def slow_load(*args: object, **kwargs: object) -> object:
        loads.append(1)
        time.sleep(0.2)  # long enough for every thread to ask while it loads
        return real(*args, **kwargs)

    monkeypatch.setattr(LanguageIdentifier, "from_modelpath", slow_load)
    metadata._loaded_identifier.cache_clear()
    try:
        with ThreadPoolExecutor(4) as pool:
            found = list(pool.map(lambda _: metadata.language_identifier(), range(4)))
    finally:
        metadata._loaded_identifier.cache_clear()  # the next test loads the real one again
    assert len(loads) == 1
    assert all(identifier is found[0] for identifier in found)


def test_json_ld_graph_gives_every_field() -> None:
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "name": "The Daily Example"},
            {
                "@type": "NewsArticle",
                "headline": "Council approves the budget",
                "author": [{"@type": "Person", "name": "Jane Doe"}, {"name": "John Roe"}],
                "datePublished": "2024-03-12T08:30:00+01:00",
                "dateModified": "2024-03-13T10:00:00Z",
                "description": "The vote, and what it means.",
                "image": {"@type": "ImageObject", "url": "/img/council.jpg"},
                "keywords": "budget, council",
                "articleSection": "Local",
            },
        ],
    }
    found = page_metadata(
        page(json_ld(graph) + "<title>Something else | The Daily Example</title>"),
        url="https://example.com/news/council",
    )
    assert found == Metadata(
        title="Council approves the budget",
        authors=("Jane Doe", "John Roe"),
        published="2024-03-12T08:30:00+01:00",
        modified="2024-03-13T10:00:00Z",
        site_name="The Daily Example",
        description="The vote, and what it means.",
        image="https://example.com/img/council.jpg",
        tags=("budget", "council"),
        categories=("Local",),
    )


def test_microdata_headline_author_and_date() -> None:
    body = (
        "<article itemscope itemtype='https://schema.org/BlogPosting'>"
        "<h2 itemprop='headline'>Spring in the garden</h2>"
        "<span itemprop='author' itemscope itemtype='https://schema.org/Person'>"
        "Written by <span itemprop='name'>Ana Souza</span></span>"
        "<time itemprop='datePublished' datetime='2023-04-05'>April 5</time>"
        "<p>Text.</p></article>"
    )
    found = page_metadata(page(body=body))
    assert (found.title, found.authors, found.published) == (
        "Spring in the garden",
        ("Ana Souza",),
        "2023-04-05",
    )


def test_a_microdata_text_keeps_its_blocks_apart() -> None:
    body = (
        "<div itemscope itemtype='https://schema.org/Product'><h1 itemprop='name'>Shoe</h1>"
        "<div itemprop='description'><p>Light shoe.</p><h2>Specs</h2>"
        "<table><tr><th>Weight</th><td>280 g</td></tr></table></div></div>"
    )
    assert page_metadata(page(body=body)).description == "Light shoe. Specs Weight 280 g"


def test_open_graph_and_article_meta() -> None:
    head = (
        "<meta property='og:title' content='Rates rise again | Money Weekly'>"
        "<meta property='og:site_name' content='Money Weekly'>"
        "<meta property='article:published_time' content='2022-11-02T09:00:00Z'>"
        "<meta property='article:modified_time' content='2022-11-03'>"
        "<meta property='article:author' content='Lee Chan'>"
        "<meta property='article:tag' content='rates'>"
        "<meta property='article:section' content='Economy'>"
        "<meta property='og:image' content='/rates.png'>"
        "<link rel='canonical' href='/2022/rates'>"
    )
    found = page_metadata(page(head), url="https://money.example/x?utm=1")
    assert found.title == "Rates rise again"
    assert found.site_name == "Money Weekly"
    assert found.published == "2022-11-02T09:00:00Z"
    assert found.modified == "2022-11-03"
    assert found.authors == ("Lee Chan",)
    assert (found.tags, found.categories) == (("rates",), ("Economy",))
    assert found.image == "https://money.example/rates.png"
    assert found.canonical_url == "https://money.example/2022/rates"


def test_citation_meta_of_a_paper() -> None:
    head = (
        "<meta name='citation_title' content='On the density of text'>"
        "<meta name='citation_author' content='Sun, Fei'>"
        "<meta name='citation_author' content='Song, Dandan'>"
        "<meta name='citation_publication_date' content='2011/10/24'>"
    )
    found = page_metadata(page(head))
    assert found.title == "On the density of text"
    assert found.published == "2011-10-24"
    assert found.authors == ("Fei Sun", "Dandan Song")


def test_byline_next_to_the_headline() -> None:
    body = (
        "<nav><a class='author-link' href='/authors'>Our authors</a></nav>"
        "<h1>Storm closes the harbour</h1>"
        "<p class='byline'>By Maria Rossi — 12 March 2024, 10:00</p><p>Text.</p>"
    )
    found = page_metadata(page(body=body))
    assert found.title == "Storm closes the harbour"
    assert found.authors == ("Maria Rossi",)


@pytest.mark.parametrize(
    ("byline", "authors"),
    [
        ("Posted by admin on 2024-01-02", ("admin",)),
        ("Von Hans Meier am 3. März 2024", ("Hans Meier",)),
        ("By Maria Rossi 12 March 2024", ("Maria Rossi",)),
        ("By Ludwig van Beethoven", ("Ludwig van Beethoven",)),
        ("By Jane Doe, dpa 12.03.2024", ("Jane Doe", "dpa")),  # a credit of its own
        ("By jane doe - March 3", ("jane doe",)),  # no date right after the name
    ],
)
def test_the_word_between_a_byline_s_name_and_its_date_is_no_name(
    byline: str, authors: tuple[str, ...]
) -> None:
    body = f"<h1>Storm</h1><p class='byline'>{byline}</p><p>Text.</p>"
    assert page_metadata(page(body=body)).authors == authors


@pytest.mark.parametrize(
    ("byline", "authors"),
    [
        ("By Jane Doe and John Roe | March 3, 2024", ("Jane Doe and John Roe",)),
        ("By Jane Doe, John Roe | Updated March 3, 2024", ("Jane Doe", "John Roe")),
        ("By Jane Doe • Mar 3, 2024", ("Jane Doe",)),
        ("Jane Doe · 5 min read", ("Jane Doe",)),
        ("Jane Doe | John Roe", ("Jane Doe", "John Roe")),  # no date: names
    ],
)
def test_the_field_of_a_byline_s_date_is_no_name(byline: str, authors: tuple[str, ...]) -> None:
    """``|``, ``•`` and ``·`` part a byline's fields: the words between the last of them and
    a date are the date's (``Updated March``), not a name."""
    body = f"<h1>Storm</h1><p class='byline'>{byline}</p><p>Text.</p>"
    assert page_metadata(page(body=body)).authors == authors


@pytest.mark.parametrize(
    ("byline", "authors"),
    [
        ("By <a href='/a/jd'>Jane Doe</a>, Staff Writer", ("Jane Doe",)),
        (
            "Por <a href='/a/mr'>María Ruiz</a>, redactora de Cultura, El Diario",
            ("María Ruiz",),
        ),
        ("By <a href='/a/jd'>Jane Doe</a>, <a href='/a/jr'>John Roe</a>", ("Jane Doe", "John Roe")),
        ("By Jane Doe, John Roe", ("Jane Doe", "John Roe")),  # nothing linked: names
        ("By Jane Doe, <a href='/'>Reuters</a>", ("Jane Doe", "Reuters")),  # not her name
        ("By <a href='/a/jd'>Jane Doe</a>", ("Jane Doe",)),
    ],
)
def test_what_a_byline_does_not_link_beside_a_linked_name_is_no_name(
    byline: str, authors: tuple[str, ...]
) -> None:
    """A byline that links its author's name leaves the job title or the affiliation after it
    unlinked, in any language."""
    body = f"<h1>Storm</h1><p class='byline'>{byline}</p><p>Text.</p>"
    assert page_metadata(page(body=body)).authors == authors


def test_a_byline_laid_out_in_blocks_gives_the_name_alone() -> None:
    body = (
        "<h1>Storm closes the harbour</h1><div class='author-box'><div>Written By</div>"
        "<div><div class='author-name'>Maria Rossi</div><div>Staff writer, The Daily</div>"
        "</div></div><p>Text.</p>"
    )
    assert page_metadata(page(body=body)).authors == ("Maria Rossi",)
    microdata = (
        "<h1>Storm</h1><div itemprop='author'><div>By</div><div>Maria Rossi</div>"
        "<div>Editor</div></div>"
    )
    assert page_metadata(page(body=microdata)).authors == ("Maria Rossi",)


@pytest.mark.parametrize("home", ["https://tones.example", "https://tones.example/", "/"])
def test_an_h1_that_links_home_is_the_site_s_logo_not_the_headline(home: str) -> None:
    head = "<title>Building a UI pipeline - Part 1 | Playful Tones</title>"
    body = (
        f"<header><h1 class='x'><a href='{home}'>Playful Tones</a></h1></header>"
        "<article><h2>Building a UI pipeline</h2><p>Text.</p></article>"
    )
    found = page_metadata(page(head, body), url="https://tones.example/blog/ui")
    assert found.title == "Building a UI pipeline - Part 1"
    section = "<h1><a href='/blog/'>Playful Tones</a></h1><p>Text.</p>"  # a link, not home
    assert page_metadata(page(head, section)).title == "Playful Tones"


@pytest.mark.parametrize(
    ("declared", "published"),
    [
        ("2021-02-31", None),
        ("2021-04-31T10:00", None),
        ("2020-02-29T10:15", "2020-02-29T10:15:00"),
        ("2021-03-01T10:60:00Z", "2021-03-01"),
        ("2021-02-28T24:60:60.9999999999Z", "2021-02-28"),
        ("Tue, 12 Mar 2024 08:30:00 GMT", "2024-03-12T08:30:00+00:00"),  # RFC 5322
        ("12 Mar 2024 08:30 +0100", "2024-03-12T08:30:00+01:00"),
        ("Sat, 31 Feb 2024 08:30:00 GMT", None),
        ("Tue, 12 Mar 2024 08:30:00 +0100 (CET)", "2024-03-12T08:30:00+01:00"),
        ("Tue, 12 Mar 2024 08:30:00 +01", None),  # no zone of the RFC's: the time is unsure
        ("Tue, 12 Mar 2024 08:30:00 CET", None),
    ],
)
def test_a_declared_date_is_a_real_day_and_time(declared: str, published: str | None) -> None:
    head = json_ld({"@type": "Article", "headline": "A", "datePublished": declared})
    assert page_metadata(page(head, "<h1>A</h1><p>No date in the text.</p>")).published == published


def test_time_element_and_url_date_through_htmldate() -> None:
    with_time = page(body="<h1>A</h1><time datetime='2021-06-30T12:00'>June 30</time><p>x</p>")
    assert page_metadata(with_time).published == "2021-06-30"
    plain = page(body="<h1>A</h1><p>No date in the text.</p>")
    assert page_metadata(plain).published is None
    found = page_metadata(plain, url="https://news.example/2020/07/14/a-story.html")
    assert found.published == "2020-07-14"


def test_a_tree_deeper_than_a_parse_gives_is_dated_from_what_it_declares() -> None:
    """htmldate's search of a deep tree costs its elements times its depth (80,000 nested
    elements given as a tree: 23 s); one deeper than a parse of HTML gives (2,048 levels) is
    dated only from its declarations."""
    declared = "<meta property='article:published_time' content='2020-07-14'>"
    for head, published in (("", None), (declared, "2020-07-14")):
        deep = page(head, "<h1>A</h1><time datetime='2021-06-30T12:00'>June 30</time>")
        body = deep.find("body")
        assert body is not None
        chain = outermost = etree.SubElement(body, "div")
        for _ in range(2_100):
            chain = etree.SubElement(chain, "div")
        assert page_metadata(deep).published == published
        body.remove(outermost)
        assert page_metadata(deep).published == (published or "2021-06-30")


@pytest.mark.parametrize("page_type", ["product", "collection"])
def test_a_shop_s_page_has_the_date_it_declares_not_one_htmldate_finds(page_type: str) -> None:
    review = "<h1>Kettle</h1><p>Review: <time datetime='2021-06-30'>June 30</time></p>"
    assert page_metadata(page(body=review), page_type="article").published == "2021-06-30"
    assert page_metadata(page(body=review), page_type=page_type).published is None
    declared = page("<meta property='article:published_time' content='2020-01-02'>", review)
    assert page_metadata(declared, page_type=page_type).published == "2020-01-02"


def test_an_article_date_written_next_to_its_headline_is_found() -> None:
    body = (
        "<div class='page'><header><div class='post-header'><h1>Council approves the budget</h1>"
        "<div><p>November 2, 2022</p></div></div></header>"
        "<div class='entry'><p>The council approved the budget.</p></div></div>"
        "<footer><div><div><p>Copyright 2025, all rights reserved.</p></div></div></footer>"
    )
    tree = page(body=body)
    assert page_metadata(tree, page_type="article").published == "2022-11-02"
    # on other types, and when the type is not known, only the fast mode is used
    assert page_metadata(tree, page_type="listing").published is None
    assert page_metadata(tree).published is None
    # an article whose only date is the footer's copyright year gets none: a year is no day
    footer = body[body.index("<footer>") :]
    undated = page(
        body="<main><div><div><h1>About us</h1><p>We write.</p></div></div></main>" + footer
    )
    assert page_metadata(undated, page_type="article").published is None
    for shallow in ("<h1>About us</h1>", "<div><h1>About us</h1></div>"):
        undated = page(body=f"{shallow}<p>We write.</p>{footer}")
        assert page_metadata(undated, page_type="article").published is None
    # nor a month alone
    archive = page(body="<main><div><h1>Our news</h1></div><p>Filed in 11/2022.</p></main>")
    assert page_metadata(archive, page_type="article").published is None


def test_an_article_date_far_from_its_headline_is_found_on_the_whole_page() -> None:
    body = (
        "<div class='top'><div><div><h1>Council approves the budget</h1></div></div></div>"
        "<div class='entry'><p>The council approved the budget.</p></div>"
        "<div class='entry'><p>We wrote this on November 2, 2022.</p></div>"
        "<footer><p>Copyright 2025, all rights reserved.</p></footer>"
    )
    tree = page(body=body)
    assert page_metadata(tree, page_type="article").published == "2022-11-02"
    assert page_metadata(tree, page_type="service").published is None


def test_the_headline_section_is_searched_before_the_whole_page() -> None:
    # the whole page's search keeps the oldest date it reads: the sidebar's story
    body = (
        "<main><div><header><h1>Council approves the budget</h1>"
        "<p>Posted on November 2, 2022.</p></header>"
        "<p>The council approved the budget.</p></div></main>"
        "<aside><p>Read also, from May 14, 2021: the last budget.</p></aside>"
    )
    assert page_metadata(page(body=body), page_type="article").published == "2022-11-02"


def test_the_extensive_search_reads_no_part_of_the_page_above_its_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # each text that looks like a date may go to dateparser, some milliseconds each, in a call
    # that no time budget stops: a part of the page with too many is not read (the dates are
    # within htmldate's range, from 1995 on, as its own patterns read them)
    def dated(paragraphs: int, *, in_section: bool = False, empty: int = 0) -> etree._Element:
        texts = "".join(
            f"<p>Held on November {2 + n % 27}, {2000 + n % 20}, item {n}.</p>"
            for n in range(paragraphs)
        )
        texts += "<i></i>" * empty
        if in_section:
            return page(body=f"<main><div><h1>Minutes</h1>{texts}</div></main><p>End.</p>")
        return page(body=f"<div><div><div><h1>Minutes</h1></div></div></div>{texts}")

    assert page_metadata(dated(50), page_type="article").published is not None
    assert page_metadata(dated(50, in_section=True), page_type="article").published is not None
    assert page_metadata(dated(300), page_type="article").published is None
    assert page_metadata(dated(300, in_section=True), page_type="article").published is None
    # nor a part of more elements than its bound: the search costs their depth too
    assert page_metadata(dated(50, empty=9_000), page_type="article").published is not None
    assert page_metadata(dated(50, empty=10_000), page_type="article").published is None
    # nor a part whose search the time left could not afford at worst: 25 ms per date
    monkeypatch.setattr(metadata, "time_left", lambda: 1.0)
    assert page_metadata(dated(50), page_type="article").published is None
    monkeypatch.setattr(metadata, "time_left", lambda: 1.5)
    assert page_metadata(dated(50), page_type="article").published is not None


def test_htmldate_reads_no_more_than_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # htmldate reads the whole text of each byline, so nested bylines read the page's text
    # again and again, in a call no time budget stops (1,000 around 1.3 MB took 39 s)
    def bylines(
        nested: int, *, named: bool = True, chars: int = 30_000, comment: str = ""
    ) -> etree._Element:
        opening = "<div class='byline'>" if named else "<div>"
        words = "word " * (chars // 5)
        text = comment + words if comment else f"<p>{words}</p>"  # the comment's tail, or a <p>
        body = opening * nested + "Posted 2021-03-04 " + text + "</div>" * nested
        return page(body=f"<h1>Minutes</h1>{body}")

    assert page_metadata(bylines(3)).published == "2021-03-04"
    assert page_metadata(bylines(250, chars=100_000)).published is None  # 25 million
    # such a page is still dated by what it declares: its URL, its meta tags
    url = "https://news.example/2020/05/06/minutes"
    assert page_metadata(bylines(250, chars=100_000), url=url).published == "2020-05-06"
    monkeypatch.setattr(metadata, "_HTMLDATE_MAX_READ", 200_000)
    # shallow: known from its depth alone; deep: counted, unless its deep elements are unnamed
    assert page_metadata(bylines(5)).published == "2021-03-04"
    assert page_metadata(bylines(10)).published is None
    assert (
        page_metadata(bylines(10, comment="<!-- a comment's tail is read too -->")).published
        is None
    )
    assert page_metadata(bylines(100, named=False)).published == "2021-03-04"
    # the nodes are read as well as the characters: empty elements inside the bylines
    empty = page(
        body="<div class='byline'>" * 10 + "2021-03-04" + "<b></b>" * 30_000 + "</div>" * 10
    )
    assert page_metadata(empty).published is None
    monkeypatch.setattr(metadata, "_HTMLDATE_MAX_READ", 40)
    assert page_metadata(bylines(6, chars=40)).published is None


def test_htmldate_reads_no_page_of_more_comments_than_its_bound() -> None:
    # lxml reads a run of sibling comments in a time that grows as its square
    def commented(comments: int) -> etree._Element:
        return page(
            body="<p class='byline'>Posted 2021-03-04</p><div>" + "<!---->" * comments + "</div>"
        )

    assert page_metadata(commented(10_000)).published == "2021-03-04"
    assert page_metadata(commented(30_000)).published is None


def test_dateparser_reads_no_more_texts_than_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # dateparser tries every language on a text it cannot read (about 20 ms), and a page can
    # hold thousands of them where htmldate's extensive mode looks; the search stops at the
    # bound, or when the time budget left is shorter than one text (each page's texts are new:
    # htmldate remembers the texts it has read, and searches the headline's part, then all)
    def dated(first: int) -> etree._Element:
        undated = "".join(
            f"<b class='date'><i>ab {1 + n % 28}</i> <i>cd</i> <i>{2000 + n // 28}</i> <i>e</i></b>"
            for n in range(first, first + 8)
        )
        later = "<b class='date'><i>March</i> <i>4,</i> <i>2021</i></b>"
        return page(body=f"<div><div><h1>Minutes</h1><p>Held.</p>{undated}{later}</div></div>")

    assert page_metadata(dated(100), page_type="article").published == "2021-03-04"
    monkeypatch.setattr(metadata, "_DATEPARSER_CALLS", 3)
    assert page_metadata(dated(200), page_type="article").published is None
    monkeypatch.setattr(metadata, "_DATEPARSER_CALLS", 50)
    monkeypatch.setattr(metadata, "time_left", lambda: 0.02)
    assert page_metadata(dated(300), page_type="article").published is None


def test_a_tree_of_lxml_etree_is_dated_as_one_of_lxml_html() -> None:
    # htmldate refuses any tree but lxml.html's (TypeError), which lost the date
    html = "<html><body><h1>Minutes</h1><p class='byline'>Posted 2021-03-04</p></body></html>"
    assert page_metadata(etree.HTML(html)).published == "2021-03-04"
    assert page_metadata(parse(html)).published == "2021-03-04"
    # deeper than lxml.html parses by default, and XHTML read as XML (its tags namespaced)
    deep = html.replace("<h1>", "<div>" * 500 + "<h1>").replace(
        "</body>", "</div>" * 500 + "</body>"
    )
    assert (
        page_metadata(etree.HTML(deep, etree.HTMLParser(huge_tree=True))).published == "2021-03-04"
    )
    xhtml = html.replace("<html>", "<html xmlns='http://www.w3.org/1999/xhtml'>")
    assert page_metadata(etree.fromstring(xhtml)).published == "2021-03-04"


def test_xhtml_read_as_xml_gives_the_metadata_of_the_same_page_read_as_html() -> None:
    html = (
        "<html lang='en'><head><title>Storm hits | Daily</title>"
        "<meta property='og:site_name' content='Daily'/></head><body><h1>Storm hits</h1>"
        "<p class='byline'>By Jane Doe</p><p>Text.</p></body></html>"
    )
    xhtml = html.replace("<html ", "<html xmlns='http://www.w3.org/1999/xhtml' ")
    found = page_metadata(etree.fromstring(xhtml))
    assert found == page_metadata(parse(html))
    assert (found.title, found.authors, found.site_name) == ("Storm hits", ("Jane Doe",), "Daily")


def test_an_xhtml_page_is_read_within_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # htmldate's rules name tags without a namespace: the bound is measured on the tree it reads
    monkeypatch.setattr(metadata, "_HTMLDATE_MAX_READ", 200_000)
    bylines = "<div class='byline'>" * 10 + "Posted 2021-03-04 " + "word " * 6_000 + "</div>" * 10
    xhtml = f"<html xmlns='http://www.w3.org/1999/xhtml'><body><h1>M</h1>{bylines}</body></html>"
    assert page_metadata(etree.fromstring(xhtml)).published is None


def test_the_earlier_of_declared_and_found_dates_is_the_publication() -> None:
    head = "<meta property='article:published_time' content='2019-05-02T10:00:00Z'>"
    found = page_metadata(page(head), url="https://news.example/2019/04/30/story")
    assert found.published == "2019-04-30"


def test_the_article_published_time_is_trusted_before_microdata() -> None:
    # the same instant in two zones: the Open Graph tag is the more reliable source (95% of
    # its dates right on wcxb_dev, against 80% for microdata)
    head = "<meta property='article:published_time' content='2025-07-05T00:04:00+00:00'>"
    body = "<h1>A</h1><time itemprop='datePublished' datetime='2025-07-04T20:04:00-04:00'>x</time>"
    assert page_metadata(page(head, body)).published == "2025-07-05T00:04:00+00:00"


def test_an_unknown_time_zone_in_a_date_prints_no_warning() -> None:
    # dateutil, called by htmldate, warns about "EDT" on every such page
    tree = page("<meta name='publish-date' content='2024-03-12 10:30 EDT'>", "<h1>A</h1>")
    with warnings.catch_warnings(record=True) as shown:
        found = page_metadata(tree)
    assert found.published == "2024-03-12"  # htmldate read the date
    assert not [w for w in shown if "not understood" in str(w.message)]
    other = page("<meta name='publish-date' content='2024-03-13 10:30 EDT'>", "<h1>A</h1>")
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")  # an application's own filter still wins
        page_metadata(other)  # another date: htmldate caches what it parsed
    assert [w for w in shown if "not understood" in str(w.message)]


def test_title_site_name_suffix_and_prefix_are_stripped() -> None:
    site = "<meta property='og:site_name' content='Example Times'>"
    assert page_metadata(page(site + "<title>Big News | Example Times</title>")).title == (
        "Big News"
    )
    assert page_metadata(page(site + "<title>Example Times - Big News</title>")).title == (
        "Big News"
    )
    by_host = page("<title>Big News \u2013 Example Times</title>")
    assert page_metadata(by_host, url="https://www.exampletimes.com/a").title == "Big News"
    hyphenated = page("<title>Big News | The Example Times</title>")
    assert page_metadata(hyphenated, url="https://example-times.com/a").title == "Big News"
    # a separator inside the headline stays when no part names the site
    kept = page("<title>Cats - a history</title>")
    assert page_metadata(kept, url="https://pets.example/a").title == "Cats - a history"


def test_the_heading_wins_over_a_title_that_adds_sections_to_it() -> None:
    tree = page("<title>Using promises - JavaScript | MDN</title>", "<h1>Using promises</h1>")
    assert page_metadata(tree).title == "Using promises"


def test_a_structured_title_that_neither_title_nor_heading_holds_is_not_the_headline() -> None:
    # Wikipedia's JSON-LD headline is the article's short description
    tree = page(
        json_ld({"@type": "Article", "headline": "Wikimedia list article"})
        + "<title>List of films featuring time loops - Wikipedia</title>"
        + "<meta property='og:title' content='A teaser that names nothing of it'>",
        "<h1>List of films featuring time loops</h1>",
    )
    assert page_metadata(tree).title == "List of films featuring time loops"
    # a structured headline the visible titles agree with stays
    kept = page(
        json_ld({"@type": "Article", "headline": "Time loops in film, a list"})
        + "<title>List of films featuring time loops - Wikipedia</title>",
        "<h1>List of films featuring time loops</h1>",
    )
    assert page_metadata(kept).title == "Time loops in film, a list"


def test_character_references_in_json_ld_are_decoded() -> None:
    # many CMSs write the HTML-escaped title and names into their JSON-LD
    tree = page(
        json_ld(
            {
                "@type": "BlogPosting",
                "headline": "Planning Tools &#8211; Caterer Sheet &bull; Happily",
                "author": {"@type": "Person", "name": "Ana &amp; Jos&eacute;"},
                "keywords": ["Q&amp;A"],
            }
        )
        + "<title>Planning Tools \u2013 Caterer Sheet • Happily</title>",
        "<h1>Planning Tools \u2013 Caterer Sheet</h1>",
    )
    found = page_metadata(tree)
    assert found.title == "Planning Tools \u2013 Caterer Sheet"
    assert found.authors == ("Ana", "José")
    assert found.tags == ("Q&A",)


def test_a_url_in_json_ld_keeps_its_parameters() -> None:
    # "&region" and "&sect" would be the legacy references to "®" and "§" without their ";"
    image = "https://cdn.example.com/a.jpg?w=800&region=us&section=news"
    tree = page(json_ld({"@type": "NewsArticle", "headline": "A", "image": image}), "<h1>A</h1>")
    assert page_metadata(tree, url="https://example.com/a").image == image


def test_a_first_heading_the_title_does_not_name_gives_way_to_one_it_does() -> None:
    tree = page(
        "<title>Academy of Art Earns 19 Honors</title>",
        "<h1>abdz—do</h1><h1>Academy of Art Earns 19 Honors</h1>",
    )
    assert page_metadata(tree).title == "Academy of Art Earns 19 Honors"
    # no later heading the title names: the first stays
    single = page("<title>Reddit - The heart of the internet</title>", "<h1>Best laptops</h1>")
    assert page_metadata(single).title == "Best laptops"


def test_author_cleaning() -> None:
    def authors(value: str) -> tuple[str, ...]:
        return page_metadata(page(f"<meta name='author' content='{value}'>")).authors

    assert authors("By Jane Doe, PhD") == ("Jane Doe",)
    assert authors("Dylan Bailey, MS, RD") == ("Dylan Bailey",)
    assert authors("Ana Souza & João Lima") == ("Ana Souza", "João Lima")
    assert authors("von Klaus Weber") == ("Klaus Weber",)
    assert authors("Lucas Nolan22 Dec 2016") == ("Lucas Nolan",)
    assert authors("jane@example.com") == ()
    assert authors("https://www.facebook.com/someone") == ()


def test_language_declared_checked_and_identified() -> None:
    assert page_metadata(page(lang="en-us"), text=ENGLISH).language == "en-US"
    assert page_metadata(page(lang="en"), text=FRENCH).language == "fr"
    assert page_metadata(page(), text=FRENCH).language == "fr"
    assert page_metadata(page(lang="pt_br")).language == "pt-BR"
    assert page_metadata(page(lang="ZH-hans-cn")).language == "zh-Hans-CN"  # BCP 47's cases
    assert page_metadata(page(lang="de-CH-1996")).language == "de-CH-1996"
    assert page_metadata(page(lang="not a tag!")).language is None
    assert page_metadata(page(lang="de"), text="Kurz.").language == "de"


def test_a_declared_language_the_text_opens_in_is_read_no_further(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    identifier = metadata.language_identifier()
    read: list[int] = []

    class Counting:
        def classify(self, text: str) -> Any:
            read.append(len(text))
            return identifier.classify(text)

    monkeypatch.setattr(metadata, "language_identifier", Counting)
    long_english = ENGLISH * (1 + 1000 // len(ENGLISH))
    assert page_metadata(page(lang="en"), text=long_english).language == "en"
    assert read == [300]
    read.clear()
    assert page_metadata(page(lang="de"), text=long_english).language == "en"
    assert read == [300, 1000]  # another language: the whole sample decides


def test_broken_and_hostile_json_ld_gives_nothing_and_raises_nothing() -> None:
    scripts = (
        "<script type='application/ld+json'>{not json</script>"
        "<script type='application/ld+json'>" + "[" * 100_000 + "</script>"
        "<script type='application/ld+json'>"
        + json.dumps({"author": {"name": [1, None]}})
        + "</script>"
        "<script type='application/ld+json'>"
        + json.dumps({"@type": "Article", "headline": 5, "datePublished": "2024-13-45"})
        + "</script>"
    )
    found = page_metadata(page(scripts))
    assert found.title is None and found.authors == () and found.published is None


def test_the_tree_is_not_modified() -> None:
    tree = page(
        json_ld({"@type": "Article", "headline": "H"}),
        "<h1>H</h1><p class='byline'>By A B</p><time datetime='2020-01-02'>x</time>"
        "<script>var a;</script><style>p{}</style><p>Text</p>",
    )
    before = lxml.html.tostring(tree)
    page_metadata(tree, url="https://example.com/2020/01/02/h", text=ENGLISH)
    assert lxml.html.tostring(tree) == before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(max_size=300),
    st.sampled_from(["", "https://example.com/2020/01/02/", "not a url", "http://[::1"]),
)
def test_no_input_raises(fragment: str, url: str) -> None:
    html = (
        "<html lang='" + fragment[:5] + "'><head><title>" + fragment + "</title>"
        "<script type='application/ld+json'>" + fragment + "</script>"
        "<meta name='author' content='" + fragment.replace("'", "") + "'></head>"
        "<body><h1>" + fragment + "</h1><p class='byline'>" + fragment + "</p></body></html>"
    )
    try:
        tree = parse(html)
    except (ValueError, etree.ParserError):
        return
    found = page_metadata(tree, url=url or None, text=fragment)
    assert isinstance(found, Metadata)


def test_extract_fills_metadata_only_when_asked() -> None:
    html = (
        "<html lang='en'><head><meta property='og:site_name' content='Example'>"
        "<title>Council approves the budget | Example</title></head><body>"
        f"<h1>Council approves the budget</h1><p class='byline'>By Jane Doe</p><p>{ENGLISH}</p>"
        "</body></html>"
    )
    assert extract(html).metadata is None
    result = extract(html, metadata=True, url="https://example.com/2024/03/12/budget")
    found = result.metadata
    assert found is not None
    assert found.title == "Council approves the budget"
    assert found.authors == ("Jane Doe",)
    assert found.published == "2024-03-12"
    assert found.language == "en"
    assert found.site_name == "Example"
    assert pickle.loads(pickle.dumps(result)) == result
    for algorithm in ("cetd-ds", "cetr", "coreex", "cset"):
        assert extract(html, algorithm=algorithm, metadata=True).metadata is not None


def test_time_grows_linearly_with_the_page() -> None:
    def shapes(size: int) -> dict[str, str]:
        item = {"@type": "Article", "author": [{"name": "A B"}] * 3, "headline": "h"}
        return {
            "graph": json_ld({"@graph": [item] * (size // 80)}),
            "meta": "<meta name='author' content='By A B, 1 May'>" * (size // 50),
            "microdata": "<p itemprop='author'><b itemprop='name'> </b></p>" * (size // 50),
            "bylines": "<h1>t</h1>" + "<p class='byline'>By A B</p>" * (size // 30),
            "text": "<h1>t</h1>" + "<p>Words of a long page, 12 May 2020.</p>" * (size // 40),
            "undated": "<div><div><div><h1>t</h1>" + "<p>Words, no date.</p>" * (size // 20),
        }

    for name in shapes(0):

        def make(size: int, name: str = name) -> Callable[[], object]:
            tree = page(body=shapes(size)[name])
            return lambda: page_metadata(
                tree, url="https://example.com/a", text=ENGLISH, page_type="article"
            )

        assert growth(make, 10_000, 100_000) < TENFOLD, name


def test_json_escapes_of_control_characters_and_surrogates_are_dropped() -> None:
    script = '{"@type": "Article", "headline": "A\\u0000 b\\ud800", "keywords": ["x\\u0007"]}'
    found = page_metadata(page(f"<script type='application/ld+json'>{script}</script>"))
    assert (found.title, found.tags) == ("A b", ("x",))


def test_a_title_longer_than_any_title_is_read_to_its_bound() -> None:
    # a text this long is no title; read whole, each comparison with a heading cost its length
    words = " ".join(f"word{n}" for n in range(50_000))
    found = page_metadata(page(f"<title>{words}</title>", "<p>Text.</p>"))
    assert found.title is not None
    assert words.startswith(found.title)
    assert len(found.title) <= metadata._MAX_TEXT
    padded = page(f"<title>{' ' * 1500}\n Storm hits the coast</title>", "<p>Text.</p>")
    assert page_metadata(padded).title == "Storm hits the coast"  # its bound is on the text


def test_the_declarations_htmldate_reads_first_are_copied_without_their_content() -> None:
    """A tree built otherwise than by parsing may nest ``<meta>`` in ``<meta>``: each is copied
    as its tag, attributes and text, so the copies grow with the elements, not as the square
    of their depth (3,000 levels took 45 s and 6 GB)."""
    root = page(body="<p>Text</p>")
    node, body = root.find("head"), root.find("body")
    assert node is not None and body is not None
    for level in range(3_001):
        node = etree.SubElement(node, "meta", name="x" if level else "date", content="2020-05-04")
    script = etree.SubElement(body, "script", type="application/ld+json")
    script.text = '{"datePublished": "2020-05-04"}'
    head = metadata._declarations(root).find("head")
    assert head is not None and len(head) == 3_002
    assert all(len(element) == 0 for element in head)
    assert head[0].items() == [("name", "date"), ("content", "2020-05-04")]
    assert head[-1].text == script.text
    assert page_metadata(root).published == "2020-05-04"


def test_time_grows_linearly_with_the_depth_of_a_built_author_item() -> None:
    """A tree built otherwise than by parsing nests as deep as it likes: the name inside a
    microdata author item is found by libxml2, not by a walk that lxml makes quadratic in the
    depth (80,000 levels took 9.5 s)."""

    def make(size: int) -> Callable[[], object]:
        root = page(body="<article><h1>Title</h1><p>Words of the article.</p></article>")
        article = root.find(".//article")
        assert article is not None
        node = etree.SubElement(article, "div", itemprop="author", itemscope="")
        for _ in range(size):
            node = etree.SubElement(node, "span")
        node.text = "Jane Doe"
        del node  # no proxy kept deep in the chain: lxml's walk up from each freed one is long
        return lambda: page_metadata(root, text=ENGLISH, page_type="article")

    assert growth(make, 4_000, 40_000) < TENFOLD


def test_long_values_are_cut_to_their_bounds() -> None:
    """A megabyte in a title, a site name, a description, a keyword, an image URL or a ``lang``
    does not go whole into the metadata (it did, as far as a 900 kB "language tag")."""
    long = "Headline words " * 70_000
    found = page_metadata(
        page(
            f"<meta property='og:title' content='{long}'>"
            f"<meta property='og:site_name' content='{long}'>"
            f"<meta name='description' content='{long}'><meta name='keywords' content='{long},b'>"
            f"<meta property='og:image' content='https://example.com/{'a' * 10_000}.png'>",
            lang=f"en-{'abcdefgh-' * 10_000}x",
        ),
        url="https://example.com/a",
    )
    assert found.title is not None and 900 < len(found.title) <= 1_000
    assert found.site_name is not None and len(found.site_name) <= 1_000
    assert found.description is not None and len(found.description) <= 10_000
    assert [len(tag) <= 1_000 for tag in found.tags] == [True, True]
    assert (found.image, found.language) == (None, None)


def test_a_page_too_large_for_the_time_left_is_dated_from_its_declarations() -> None:
    """htmldate's search cannot be stopped, and takes up to half a second a megabyte of text:
    a page is searched only when the time budget left allows for its text (a 9.6 MB page took
    4.6 s of a 1 s budget); otherwise it is dated from what it declares."""
    root = page(body="<p>Posted on 2020-05-12.</p><p>" + "words " * 50_000 + "</p>")
    assert page_metadata(root, page_type="listing").published == "2020-05-12"
    with deadline(0.2):
        assert page_metadata(root, page_type="listing").published is None
    declared = page(head="<meta property='article:published_time' content='2021-01-02'>")
    with deadline(0.05):
        assert page_metadata(declared, page_type="listing").published == "2021-01-02"


def test_placeholders_are_no_names() -> None:
    """What a script or a template left in place of a name: the next source is read."""
    left_by_scripts = ("undefined", "undefined undefined", "null", "NaN", "[object Object]")
    for left in (*left_by_scripts, "{{ author.name }}", "${author}"):
        found = page_metadata(
            page(json_ld({"@type": "Article", "author": {"name": left}}))
            if left != "${author}"
            else page(f"<meta name='author' content='{left}'>"),
        )
        assert found.authors == (), left
    found = page_metadata(
        page(
            json_ld({"@type": "Article", "author": {"name": "undefined"}})
            + "<meta name='author' content='Jane Roe'>"
        )
    )
    assert found.authors == ("Jane Roe",)


def test_a_name_in_capitals_takes_the_case_another_source_writes_it_in() -> None:
    body = (
        "<h1>Deal</h1><p><span itemprop='author' itemscope><span itemprop='name'>STEVEN "
        "DAVIDOFF SOLOMON</span></span> and <span itemprop='author' itemscope><span "
        "itemprop='name'>ANN LEE</span></span></p>"
    )
    head = "<meta name='author' content='Steven Davidoff Solomon'>"
    assert page_metadata(page(head, body)).authors == ("Steven Davidoff Solomon", "ANN LEE")
    assert page_metadata(page("", body)).authors == ("STEVEN DAVIDOFF SOLOMON", "ANN LEE")

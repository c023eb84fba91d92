"""htmldate's search for the publication date: where it looks (the headline's section, the
whole page, the declarations), which pages it leaves undated, and the bounds on what it reads."""

from __future__ import annotations

import warnings

import pytest
from conftest import parse
from lxml import etree
from metadatakit import page

from scrapy_cetd.limits import deadline
from scrapy_cetd.page.metadata import date_search, page_metadata, read_metadata


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


def test_an_article_dated_only_by_its_update_gets_the_earlier_date_written_by_its_headline() -> (
    None
):
    """Asked for the original date, htmldate falls back to the modification date the header
    declares (a WordPress post updated in October, written in April, as on a page of
    ``wcxb_dev``): that day is searched past, as when htmldate finds nothing."""
    updated = "<meta property='article:modified_time' content='2024-10-28T22:26:10+00:00'>"
    body = (
        "<main><div><header><h1>Organic pest control</h1>"
        "<p>{written}</p><p>Updated on: October 28, 2024</p></header>"
        "<p>Ladybugs eat aphids.</p></div></main>"
    )
    written = page(updated, body.format(written="April 26, 2024"))
    found = page_metadata(written, page_type="article")
    assert (found.published, found.modified) == ("2024-04-26", "2024-10-28T22:26:10+00:00")
    # other types get the fast mode alone, as before
    assert page_metadata(written, page_type="listing").published == "2024-10-28"
    # an article with no other date, or only a later one, keeps the update's day
    for text in ("Written by Jane Doe", "Reviewed on December 2, 2024"):
        tree = page(updated, body.format(written=text))
        assert page_metadata(tree, page_type="article").published == "2024-10-28"
    # a publication date the page declares is kept: it is the earlier one
    declared = page(
        updated + "<meta property='article:published_time' content='2024-05-01'>",
        body.format(written="April 26, 2024"),
    )
    assert page_metadata(declared, page_type="article").published == "2024-05-01"


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
    monkeypatch.setattr(date_search, "time_left", lambda: 1.0)
    assert page_metadata(dated(50), page_type="article").published is None
    monkeypatch.setattr(date_search, "time_left", lambda: 1.5)
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
    monkeypatch.setattr(date_search, "_HTMLDATE_MAX_READ", 200_000)
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
    monkeypatch.setattr(date_search, "_HTMLDATE_MAX_READ", 40)
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
    monkeypatch.setattr(date_search, "_DATEPARSER_CALLS", 3)
    assert page_metadata(dated(200), page_type="article").published is None
    monkeypatch.setattr(date_search, "_DATEPARSER_CALLS", 50)
    monkeypatch.setattr(date_search, "time_left", lambda: 0.02)
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


def test_an_xhtml_page_is_read_within_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # htmldate's rules name tags without a namespace: the bound is measured on the tree it reads
    monkeypatch.setattr(date_search, "_HTMLDATE_MAX_READ", 200_000)
    bylines = "<div class='byline'>" * 10 + "Posted 2021-03-04 " + "word " * 6_000 + "</div>" * 10
    xhtml = f"<html xmlns='http://www.w3.org/1999/xhtml'><body><h1>M</h1>{bylines}</body></html>"
    assert page_metadata(etree.fromstring(xhtml)).published is None


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
    head = date_search._declarations(root).find("head")
    assert head is not None and len(head) == 3_002
    assert all(len(element) == 0 for element in head)
    assert head[0].items() == [("name", "date"), ("content", "2020-05-04")]
    assert head[-1].text == script.text
    assert page_metadata(root).published == "2020-05-04"


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


def test_a_date_search_the_time_budget_cuts_short_says_so() -> None:
    """The extensive search reads an article's part only when the time left allows
    ``_SECONDS_PER_CANDIDATE`` for each text that looks like a date: under a shorter budget
    the written date is not read, and the notes say why, where a longer budget finds it.
    A page dated all the same, or whose search was not cut, has no such note."""
    numbers = "".join(f"<p>Ref. {1000 + n} {2000 + n}</p>" for n in range(40))
    body = f"<article><h1>Council approves</h1><p>July 13, 2002</p>{numbers}</article>"
    root = page(body=body)
    needed = 41 * date_search._SECONDS_PER_CANDIDATE
    with deadline(needed / 2):
        found, notes = read_metadata(root, page_type="article")
    assert found.published is None
    assert len(notes) == 1 and notes[0].startswith("date-search-cut-short: ")
    assert "texts that look like dates (25 ms each)" in notes[0]
    with deadline(needed * 4):
        assert read_metadata(root, page_type="article") == (
            page_metadata(root, page_type="article"),
            (),
        )
    assert page_metadata(root, page_type="article").published == "2002-07-13"
    declared = page("<meta property='article:published_time' content='2002-07-14'>", body)
    with deadline(needed / 2):
        found, notes = read_metadata(declared, page_type="article")
    assert (found.published, notes) == ("2002-07-14", ())

"""The authors: JSON-LD, microdata and meta names, bylines next to the headline, and the
cleaning of names (prefixes, dates, job titles, degrees, placeholders, capitals)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from lxml import etree
from metadatakit import ENGLISH, json_ld, page
from ratios import TENFOLD, growth

from scrapy_cetd.page.metadata import page_metadata


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
    ("mark", "authors"),
    [
        ("class='post-author'", ("Jane Doe",)),
        ("class='meta entry__byline'", ("Jane Doe",)),
        ("class='authorName'", ("Jane Doe",)),
        ("class='byline1'", ("Jane Doe",)),
        ("class='storybyline'", ("Jane Doe",)),
        ("id='story-byline'", ("Jane Doe",)),
        ("class='authority-control'", ()),
        ("class='authorized-dealer'", ()),
        ("class='product-authorized__logo'", ()),
        ("id='authorbox'", ()),
    ],
)
def test_a_byline_is_marked_by_a_word_of_its_class(mark: str, authors: tuple[str, ...]) -> None:
    """``author`` or ``byline`` marks a byline at the end of a word of a class's name
    (between ``-``, ``_``, digits or a capital), not at the start of a longer word
    (Wikipedia's ``authority-control``)."""
    body = f"<h1>Storm</h1><p>Text.</p><div {mark}>Jane Doe</div>"
    assert page_metadata(page(body=body)).authors == authors


def test_a_heading_before_the_h1_that_is_the_page_s_title_is_the_headline() -> None:
    """A template that sets the headline in an ``<h3>``, its byline under it, and a promotion
    under the article in the page's ``<h1>``, before a list of other articles and their
    bylines: the byline follows the heading that the page's structured title names."""
    body = (
        "<h3 class='post-title'>Storm closes the harbour</h3>"
        "<p class='meta'>by <a href='/author/jane-doe/'>Jane Doe</a></p><p>Text.</p>"
        "<h1>A message from our founder</h1><p>Support us.</p>"
        "<ul><li><a href='/2024/a'>Other news</a> <span class='author'>John Roe</span></li>"
        "<li><a href='/2024/b'>More news</a> <span class='author'>Ann Lee</span></li></ul>"
    )
    title = "<meta property='og:title' content='Storm closes the harbour - The Tribune'>"
    assert page_metadata(page(title, body)).authors == ("Jane Doe",)
    assert page_metadata(page("", body)).authors == ("John Roe",)  # no title to tell
    without_h1 = body.replace("h1>", "h2>")
    assert page_metadata(page(title, without_h1)).authors == ()  # no headline, as before


@pytest.mark.parametrize(
    ("link", "authors"),
    [
        ("<a href='/author/jane-doe/'>Jane Doe</a>", ("Jane Doe",)),
        ("<a href='https://example.com/blog/authors/jane-doe'>Jane Doe</a>", ("Jane Doe",)),
        ("<a href='/authors/'>Our authors</a>", ()),  # the list of authors, no one's page
        ("<a href='/authorship-policy'>Our policy</a>", ()),
    ],
)
def test_a_link_to_an_author_s_page_is_a_byline(link: str, authors: tuple[str, ...]) -> None:
    """A byline's name linked to the author's page (``/author/jane-doe/``), without a class
    that names it."""
    body = f"<h1>Storm</h1><div class='meta'><span>{link}</span></div><p>Text.</p>"
    assert page_metadata(page(body=body)).authors == authors


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
        ("By <a href='/authors/jd'>Jane Doe</a> <span>Senior Reporter</span>", ("Jane Doe",)),
        ("By <a href='/authors/jd'>Jane Doe</a><span>Senior Reporter</span>", ("Jane Doe",)),
        ("By <a href='/a/jd'>Jane Doe</a> <span>Follow</span>", ("Jane Doe",)),
        ("<a href='/u/1'>salty_dog</a> <span>Posts: 412</span>", ("salty_dog",)),
        ("By <a href='/a/jd'>Jane Doe</a> <a href='/a/jr'>John Roe</a>", ("Jane Doe", "John Roe")),
        (
            "By <a href='/a/jd'>Jane Doe</a> and <a href='/a/jr'>John Roe</a>",
            ("Jane Doe", "John Roe"),
        ),
        (
            "By <a href='/a/jd'>Jane Doe</a>, MD. Reviewed by <a href='/a/jr'>John Roe</a>",
            ("Jane Doe",),
        ),
    ],
)
def test_what_a_byline_does_not_link_beside_a_linked_name_is_no_name(
    byline: str, authors: tuple[str, ...]
) -> None:
    """A byline that links its author's name leaves the job title, the affiliation or a
    button after it unlinked, in any language, even with no comma between them: each link's
    text is one name, and a name after unlinked words (``Reviewed by``) is dropped with
    them."""
    body = f"<h1>Storm</h1><p class='byline'>{byline}</p><p>Text.</p>"
    assert page_metadata(page(body=body)).authors == authors


@pytest.mark.parametrize(
    ("byline", "authors"),
    [
        ("<b>By<!-- --> <span>Jane Doe</span></b>", ("Jane Doe",)),
        ("<span>By</span><span>Jane Doe</span>", ("Jane Doe",)),
        ("By <span>Jane Doe</span><span>Editor</span>", ("Jane Doe Editor",)),
    ],
)
def test_a_byline_s_elements_are_words_apart(byline: str, authors: tuple[str, ...]) -> None:
    """The texts of two elements of a byline are never glued into one word (``ByJane``,
    ``DoeEditor``); without a link, the words after a name are not told from it."""
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
    # a suffix ends a name; "Sr." before a job title is a senior's title, no suffix
    assert authors("Martin Luther King, Jr.") == ("Martin Luther King, Jr",)
    assert authors("John Smith, Sr., Reuters") == ("John Smith, Sr", "Reuters")
    assert authors("Benjamin Johnson, Sr. Director of Operations, Atlas Van Lines") == (
        "Benjamin Johnson",
        "Sr. Director of Operations",
        "Atlas Van Lines",
    )


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


@pytest.mark.parametrize(
    "field",
    [
        "<p class='comment-form-author'><label for='author'>Name <span>*</span></label>"
        "<input id='author' name='author'></p>",
        "<p class='comment-form-author'><input id='author' name='author' placeholder='Name'>"
        "<span>Name (required)</span></p>",
        "<label class='author-label'>Your name</label>",
    ],
)
def test_a_form_s_field_is_no_byline(field: str) -> None:
    """A comment form's author field (``comment-form-author``) is marked as an author: its
    label is no name, with or without the ``<form>`` around it."""
    body = f"<article><h1>Storm</h1><p>Text.</p></article><div id='respond'>{field}</div>"
    assert page_metadata(page(body=body)).authors == ()
    form = f"<h1>Storm</h1><p>Text.</p><form>{field}</form>"
    assert page_metadata(page(body=form)).authors == ()


def test_another_article_whose_class_names_its_author_is_no_byline() -> None:
    """A list of teasers whose records' classes name their authors (``author-jane-doe``): an
    ``<article>``, or a record that holds a headline, is no byline."""
    teasers = "".join(
        f"<article class='entry author-jane-doe'><div>Comment</div><h2>{title}</h2>"
        "<p>Teaser.</p></article>"
        for title in ("Harbour reopens", "Storm moves north")
    )
    assert page_metadata(page(body=f"<h1>News</h1>{teasers}")).authors == ()
    record = (
        "<div class='entry entry-author-jdoe'><h3>Entrenched music business hates free content"
        " again</h3><p>Text.</p></div>"
    )
    assert page_metadata(page(body=f"<h1>Blog</h1>{record}")).authors == ()
    box = "<div class='author-box'><h4>Jane Doe</h4><p>Jane writes about storms.</p></div>"
    assert page_metadata(page(body=f"<h1>Storm</h1><p>Text.</p>{box}")).authors == ("Jane Doe",)


@pytest.mark.parametrize(
    ("value", "authors"),
    [
        ("Author:Madison Slinker", ("Madison Slinker",)),
        ("Authored by: Dr. Jane Doe", ("Dr. Jane Doe",)),
        ("Текст: Венера Ерофеева", ("Венера Ерофеева",)),
        ("content: Acme, design: Jane Doe, code: John Roe", ("Acme", "Jane Doe", "John Roe")),
        ("https://www.example.com/jane", ()),  # a link, not a label
    ],
)
def test_a_label_before_a_colon_is_no_name(value: str, authors: tuple[str, ...]) -> None:
    """One or two words and a colon before a name are its label, in any script."""
    assert page_metadata(page(f"<meta name='author' content='{value}'>")).authors == authors
    body = f"<h1>Storm</h1><p class='byline'>{value}</p><p>Text.</p>"
    assert page_metadata(page(body=body)).authors == authors


@pytest.mark.parametrize(
    ("byline", "authors"),
    [
        (
            "Posted\n  by\n  <a href='/u/msmash'>msmash</a>\n  <time>on Friday January 12</time>",
            ("msmash",),
        ),
        (
            "<ul><li>Posted in <a href='/c/a' rel='category tag'>Architecture</a></li>"
            "<li>By <a href='/a/l'>Lavinia</a></li></ul>",
            ("Lavinia",),
        ),
        (
            "<div>Updated <span>January 08, 2026</span></div>"
            "<div>Written by Meghan Neville</div><div>Content Marketing Coordinator</div>",
            ("Meghan Neville",),
        ),
        ("<div>Guide</div><div>by <a href='/a/wj'>Will Judd</a></div>", ("Will Judd",)),
        ("<div>Jane Doe</div><div>Staff writer</div>", ("Jane Doe",)),
    ],
)
def test_a_byline_s_line_that_begins_with_by_holds_the_name(
    byline: str, authors: tuple[str, ...]
) -> None:
    """The lines of a byline before the one that begins with its prefix (``By``) are a label,
    a date or a section, not a name."""
    body = f"<h1>Storm</h1><div class='byline'>{byline}</div><p>Text.</p>"
    assert page_metadata(page(body=body)).authors == authors


@pytest.mark.parametrize(
    ("byline", "authors"),
    [
        ("Jane Doe March 3, 2024", ("Jane Doe",)),
        ("BWoodrum on Aug 3, 2012", ("BWoodrum",)),
        ("August 28, 2025 • 5 min read", ()),
        ("on 2012-10-11 at 7:50 am", ()),
        ("Ann Lee 3 March 2024", ("Ann Lee",)),
    ],
)
def test_a_date_is_no_name(byline: str, authors: tuple[str, ...]) -> None:
    """The month of a date written month first (``March 3, 2024``) and a connector with
    nothing before it (``on 2012-10-11``) are the date's, not a name."""
    body = f"<h1>Storm</h1><p class='byline'>{byline}</p><p>Text.</p>"
    assert page_metadata(page(body=body)).authors == authors


@pytest.mark.parametrize(
    ("byline", "authors"),
    [
        ("<p class='byline'><a href='#c1'>On November 1, 2012 at 10:12 am</a></p>", ()),
        (
            "<p class='byline'>Tuesday, March 28, 2017 6:20 PM by <a class='author-url'"
            " href='/author/jane-doe/'>Jane Doe</a></p>",
            ("Jane Doe",),
        ),
        ("<p class='byline'>Tuesday 28 March 2017</p>", ()),
        (
            "<p class='byline'><span class='fn'>Nadia</span> October 25, 2012 at 12:22 pm</p>",
            ("Nadia",),
        ),
        ("<p class='byline'>Nadia <time>October 25, 2012</time></p>", ("Nadia",)),
    ],
)
def test_the_word_a_date_opens_with_is_no_name(byline: str, authors: tuple[str, ...]) -> None:
    """A word alone before a date, in the text that holds the date, is the date's (a weekday,
    ``On``): the next byline is read; a name is set apart from the date by the markup."""
    body = f"<h1>Storm</h1>{byline}<p>Text.</p>"
    assert page_metadata(page(body=body)).authors == authors


def test_a_label_that_introduces_the_byline_is_no_name() -> None:
    """WordPress's TwentyTen byline: ``meta-prep-author`` holds ``Posted on``, the author
    comes after the date."""
    body = (
        "<div class='post'><h1 class='entry-title'>Ten easy projects</h1><div"
        " class='entry-meta'><span class='meta-prep meta-prep-author'>Posted on</span> <a"
        " href='/?p=1' rel='bookmark'><span class='entry-date'>August 9, 2012</span></a> <span"
        " class='meta-sep'>by</span> <span class='author vcard'><a class='url fn n'"
        " href='/author/jane/'>Jane Doe</a></span></div><p>Text.</p></div>"
    )
    assert page_metadata(page(body=body)).authors == ("Jane Doe",)
    assert page_metadata(page("<meta name='author' content='Michiel de'>")).authors == (
        "Michiel de",
    )


def test_a_byline_s_line_that_repeats_its_class_is_its_label() -> None:
    """``Author`` above the name in ``<div class="post-author">``: the text names the field
    as the markup does; a class that names the author (``comment-author-jdoe``) names no
    label."""
    body = (
        "<h1>Storm</h1><div class='pillar-header-author'><div class='caption'>Author</div>"
        "<div>Isaiah Shelton</div></div><p>Text.</p>"
    )
    assert page_metadata(page(body=body)).authors == ("Isaiah Shelton",)
    named = "<h1>Storm</h1><div class='comment-author-jdoe'><div>jdoe</div></div><p>Text.</p>"
    assert page_metadata(page(body=named)).authors == ("jdoe",)


@pytest.mark.parametrize("tag", ["h2", "label", "span"])
def test_time_grows_linearly_with_what_a_byline_holds(tag: str) -> None:
    """A byline's headings and form fields are looked at once each: headings nested without
    a text of their own were each read whole (40,000 levels took 33 s)."""

    def make(size: int) -> Callable[[], object]:
        root = page(body="<article><h1>Title</h1><p>Words of the article.</p></article>")
        article = root.find(".//article")
        assert article is not None
        node = etree.SubElement(article, "div", attrib={"class": "author"})
        for _ in range(size):
            node = etree.SubElement(node, tag)
        node.text = "Jane"
        del node
        return lambda: page_metadata(root, text=ENGLISH, page_type="article")

    assert growth(make, 4_000, 40_000) < TENFOLD

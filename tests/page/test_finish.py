"""Finishing an extraction's HTML: absolute links, the clean mode, the content tree."""

from __future__ import annotations

from urllib.parse import urljoin

import lxml.html
import pytest
from conftest import deep_chain, parse
from lxml import etree

from scrapy_cetd import extract
from scrapy_cetd.limits import MAX_URL
from scrapy_cetd.page import finish
from scrapy_cetd.page.decoding import BLANK_URL, html_response
from scrapy_cetd.page.finish import (
    URL_GROWTH,
    URL_GROWTH_FLOOR,
    absolute_links,
    content_tree,
    document_base,
    finish_html,
)
from scrapy_cetd.page.output import element_text

ARTICLE = (
    "<html><head>{head}</head><body><nav><a href='/'>Home</a></nav><article class='post'>"
    "<h1 id='t' style='color:red'>Title</h1><p data-id='7' class='lead' onclick='x()'>"
    + "A paragraph long enough to be the main content of this page. "
    * 4
    + "<a href='rel/page.html' class='l' title='T'>a link</a>, <a href='#note'>a note</a>, "
    "<a href='mailto:a@b.example'>mail</a> and "
    "<img src='img/a.png' srcset='img/a.png 1x, /img/b.png 2x' alt='A' width='5'>.</p>"
    "<table><tr><td colspan='2' class='c'>cell</td></tr></table>"
    "<pre class='language-py hl'><code class='language-py'>x = 1</code></pre></article>"
    "</body></html>"
)


def test_links_and_images_are_absolute_against_the_url_and_the_base_href() -> None:
    url = "https://example.com/news/2024/story.html"
    plain = extract(ARTICLE.format(head=""))
    result = extract(ARTICLE.format(head=""), url=url)
    assert result.text == plain.text
    assert 'href="https://example.com/news/2024/rel/page.html"' in result.html
    assert 'href="https://example.com/news/2024/story.html#note"' in result.html
    assert 'href="mailto:a@b.example"' in result.html
    assert 'src="https://example.com/news/2024/img/a.png"' in result.html
    assert (
        'srcset="https://example.com/news/2024/img/a.png 1x, https://example.com/img/b.png 2x"'
        in result.html
    )
    assert 'class="lead"' in result.html  # the default keeps every attribute
    based = extract(ARTICLE.format(head="<base href='/base/'>"), url=url)
    assert 'href="https://example.com/base/rel/page.html"' in based.html
    assert based.text == plain.text


def test_without_a_url_the_html_is_the_extractors_own() -> None:
    page = ARTICLE.format(head="")
    result = extract(page)
    assert 'href="rel/page.html"' in result.html
    assert extract(page, url="not a url").html == result.html
    assert extract(ARTICLE.format(head="<base href='http://b.example/'>")).html != result.html


def test_clean_mode_keeps_the_semantic_attributes_only() -> None:
    page = ARTICLE.format(head="")
    result = extract(page, url="https://example.com/", clean_html=True)
    assert result.text == extract(page).text
    assert 'href="https://example.com/rel/page.html" title="T"' in result.html
    html = (
        "<body class='b'><h1 id='t' style='color:red'>Title</h1><p data-id='7' lang='en'>"
        "<a href='/x' class='l' onclick='go()'>x</a><img src='a.png' alt='A' width='5'></p>"
        "<table><tr><td colspan='2' class='c'>cell</td></tr></table>"
        "<pre class='language-py hl'><code class='lang-py x'>x = 1</code></pre></body>"
    )
    cleaned = finish_html(html, base_url=None, clean=True).html
    assert cleaned == (
        '<body><h1>Title</h1><p lang="en"><a href="/x">x</a><img src="a.png" alt="A"></p>'
        '<table><tr><td colspan="2">cell</td></tr></table>'
        '<pre class="language-py"><code class="lang-py">x = 1</code></pre></body>'
    )
    assert element_text(content_tree(cleaned)) == element_text(content_tree(html))


def test_clean_mode_drops_attribute_names_lxml_cannot_delete_by_name() -> None:
    """A damaged page can leave an attribute named ``{`` (found by the fuzzer), which lxml
    reads as the start of a namespace and refuses to delete by name."""
    html = (
        "<body><article><h1>Title</h1><p { ='x' class='lead' title='T' {x}y='z'>"
        + "Storm text goes here and on. " * 20
        + "</p></article></body>"
    )
    result = extract(html, clean_html=True)
    assert result.text == extract(html).text
    assert '<p title="T">Storm text' in result.html


def test_document_base() -> None:
    tree = lxml.html.document_fromstring("<html><head><base href='../up/'></head><body></body>")
    assert document_base(tree, "https://example.com/a/b/c") == "https://example.com/a/up/"
    assert document_base(tree, None) is None
    assert document_base(parse("<p>x</p>"), "https://example.com/") == "https://example.com/"
    broken = lxml.html.document_fromstring("<head><base href='https://x.example:port/'></head>")
    assert document_base(broken, "https://example.com/") == "https://example.com/"


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("https://a.example/&#1;/", None),
        ("https://a.example/\x01/", None),
        (None, "https://a.example/x\x00y/"),
        (None, "https://a.example/\ud800/"),
    ],
)
def test_a_base_no_attribute_can_hold_leaves_the_links_relative(
    base: str | None, url: str | None
) -> None:
    """A ``<base href>`` or page URL holding a character no lxml attribute takes (a control
    character, a lone surrogate) is no base: joined to the links, it made lxml raise."""
    head = f"<head><base href='{base}'></head>" if base else ""
    text = "Words of the article, long enough to be its main content. " * 8
    page = f"<html>{head}<body><article><p>{text}<a href='rel'>link</a></p></article></body></html>"
    tree = lxml.html.document_fromstring(page)
    assert document_base(tree, url) is None
    result = extract(page, url=url, markdown=True, metadata=True)
    assert '<a href="rel">' in result.html
    assert result.markdown is not None and "(rel)" in result.markdown


def test_finish_html_leaves_html_without_links_as_it_is() -> None:
    html = "<body><p class='x'>Text &amp; more</p></body>"
    assert finish_html(html, base_url="https://example.com/") == (html, None, ())


@pytest.mark.parametrize("html", ["<!-- only a comment -->", "   \n "])
def test_html_without_an_element_or_text_is_finished_as_it_is(html: str) -> None:
    """HTML of an extractor's that the parser reads as an empty document: no links to make
    absolute, and an empty Markdown (lxml.html's parser raised ParserError here)."""
    assert finish_html(html, base_url="https://example.com/", markdown=True) == (html, "", ())


def test_the_content_tree_has_no_lxml_html_classes() -> None:
    """The Markdown and the links read tags and attributes alone: the content is parsed
    without lxml.html's element classes, which it looks up in Python for each element."""
    root = content_tree("<div><p>a <a href='x'>b</a></p></div>")
    assert [type(element) for element in root.iter()] == [etree._Element] * 3


@pytest.mark.parametrize("tag", ["iframe", "noembed", "noframes", "xmp"])
def test_text_that_lxml_reads_back_raw_is_restored(tag: str) -> None:
    """lxml writes the text of these elements escaped and reads it back raw: the reparse
    restores the text of the first parse, so neither the HTML nor the Markdown changes it."""
    root = lxml.html.document_fromstring(
        f"<body><div><{tag}>a &amp;lt; &lt;b&gt;</{tag}><a href='x'>l</a></div></body>"
    )
    body = root.find("body")
    assert body is not None
    html = lxml.html.tostring(body, encoding="unicode")
    again = content_tree(html)
    assert [e.text for e in again.iter(tag)] == [e.text for e in body.iter(tag)]
    finished = finish_html(html, base_url="https://example.com/").html
    assert finished == html.replace('href="x"', 'href="https://example.com/x"')


def test_html_deeper_than_the_parser_reads_keeps_the_content_of_tags_lxml_cannot_build() -> None:
    """lxml's HTML parser keeps a tag named ``o:p`` (Word's paragraphs), which lxml's tree
    builder refuses: HTML deeper than the parser reads, finished by Python's parser, raised
    ValueError. The element is left out, its content kept."""
    _root, chain = deep_chain(3_000)
    chain[-1].append(lxml.html.fragment_fromstring("<p>Word<o:p> text</o:p> <a href='r'>l</a></p>"))
    html = lxml.html.tostring(chain[0], encoding="unicode")
    assert "<o:p>" in html
    finished, markdown, _ = finish_html(html, base_url="https://example.com/", markdown=True)
    assert 'href="https://example.com/r"' in finished and "<o:p>" not in finished
    assert markdown == "Word text [l](https://example.com/r)"


def test_html_deeper_than_the_parser_reads_is_finished_whole() -> None:
    _root, chain = deep_chain(5_000)
    chain[-1].append(lxml.html.fragment_fromstring("<a href='deep'>deep link</a>"))
    html = lxml.html.tostring(chain[0], encoding="unicode")
    finished, markdown, _ = finish_html(html, base_url="https://example.com/", markdown=True)
    assert 'href="https://example.com/deep"' in finished
    assert finished.count("<div>") == 5_000
    assert markdown == "[deep link](https://example.com/deep)"


def test_links_are_made_absolute_within_a_bound_on_the_growth_of_the_html() -> None:
    """Each link grows by the length of the base URL: a long base over many links, or a
    ``srcset`` of many candidates, would multiply them. Past a growth of URL_GROWTH times the
    HTML (plus a floor) the links stay relative, and a note says how many."""
    base = "https://example.com/" + "a" * 100_000 + "/"
    html = "<div>" + "".join(f"<p><a href='p{i}'>link {i}</a></p>" for i in range(100)) + "</div>"
    finished, markdown, notes = finish_html(html, base_url=base, markdown=True)
    bound = (URL_GROWTH + 1) * len(html) + URL_GROWTH_FLOOR
    assert len(finished) <= bound and markdown is not None and len(markdown) <= bound
    assert 0 < finished.count(base) < 100
    assert notes == (f"links-left-relative: {100 - finished.count(base)} kept relative",)
    for written_longer in "& <\u00e9":  # "&amp;", "%20", "%3C", "%C3%A9": counted as written
        base = "https://example.com/" + written_longer * 20_000 + "/"
        finished, markdown, _ = finish_html(html, base_url=base, markdown=True)
        assert len(finished) <= bound and markdown is not None and len(markdown) <= bound
    srcset = "<div><img src='x.png' srcset='" + ",".join(["a"] * 100_000) + "'></div>"
    finished, _, notes = finish_html(srcset, base_url="https://example.com/" + "b" * 2_000)
    assert len(finished) < 2 * len(srcset) and notes == ("links-left-relative: 1 kept relative",)
    ordinary = "<div><a href='/x'>x</a><img srcset='a.png 1x, b.png 2x'></div>"
    assert finish_html(ordinary, base_url="https://example.com/").notes == ()


def test_absolute_links_without_a_bound_makes_every_link_absolute() -> None:
    root = content_tree("<div>" + "<a href='p'>x</a>" * 50 + "</div>")
    assert absolute_links(root, "https://example.com/" + "a" * 10_000 + "/") == (True, 0)
    assert all(a.get("href", "").startswith("https://") for a in root.iter("a"))


def test_a_url_longer_than_a_request_line_is_no_base() -> None:
    """Joining a relative link to a base URL reads the base's path segment by segment: a page
    URL (or a ``<base href>``) of 1.4 MB in 200,000 folders took 151 s of a 2 s budget over
    4,000 links, each join a call no budget stops. A URL longer than
    :data:`~scrapy_cetd.limits.MAX_URL` (no server accepts such a request line) is no base:
    the links stay as the page wrote them."""
    long_url = "https://example.com/" + "f/" * MAX_URL
    assert document_base(parse("<p>x</p>"), long_url) is None
    tree = parse(f"<head><base href='{long_url}'></head><p>x</p>")
    assert document_base(tree, "https://example.com/a") == "https://example.com/a"
    tree = parse(f"<head><base href='{'f/' * MAX_URL}'></head><p>x</p>")
    assert document_base(tree, "https://example.com/a") == "https://example.com/a"
    fits = "https://example.com/" + "f/" * ((MAX_URL - 20) // 2)
    assert document_base(parse("<p>x</p>"), fits) == fits


def test_links_past_the_growth_bound_are_not_joined(monkeypatch: pytest.MonkeyPatch) -> None:
    """A link that would be left relative for the growth bound was joined first, in a time that
    grows with the base's length, for every link past the bound: once the room left is shorter
    than the base, a relative link is not joined (an absolute one still is: it does not grow)."""
    joined: list[str] = []

    def counted(base_url: str, value: str) -> str:
        joined.append(value)
        return urljoin(base_url, value)

    monkeypatch.setattr(finish, "_join", counted)
    base = "https://example.com/" + "a/" * 4_000
    root = content_tree(
        "<div>"
        + "".join(f"<a href='p{k}'>x</a>" for k in range(100))
        + "<a href='https://x/'>y</a></div>"
    )
    assert absolute_links(root, base, growth=20_000) == (True, 98)
    assert joined == ["p0", "p1", "https://x/"]


def test_a_url_that_is_no_absolute_url_leaves_the_links_relative_with_a_note() -> None:
    page = ARTICLE.format(head="")
    result = extract(page, url="gazette.example/news/x", markdown=True, metadata=True)
    assert 'href="rel/page.html"' in result.html
    assert "url-not-absolute: gazette.example/news/x" in result.notes
    absolute = extract(page, url="https://gazette.example/news/x")
    assert not any(note.startswith("url-not-absolute") for note in absolute.notes)
    based = extract(ARTICLE.format(head="<base href='http://b.example/'>"), url="b.example/x")
    assert not any(note.startswith("url-not-absolute") for note in based.notes)
    assert extract(page, url="").notes == extract(page).notes


def test_a_file_url_is_a_base_and_a_url_note_needs_links_to_write() -> None:
    page = ARTICLE.format(head="")
    saved = extract(page, url="file:///srv/site/news/x.html")
    assert 'href="file:///srv/site/news/rel/page.html"' in saved.html
    assert not any(note.startswith("url-not-absolute") for note in saved.notes)
    assert extract(page, url="gazette.example/x", html=False).notes == ()
    assert extract(page, url="gazette.example/x", html=False, markdown=True).notes != ()
    assert extract(page, url="  ").notes == extract(page).notes


def test_a_response_built_without_a_url_gets_no_url_note() -> None:
    response = html_response(ARTICLE.format(head="").encode(), encoding="utf-8")
    assert response.url == BLANK_URL
    assert not any(note.startswith("url-not-absolute") for note in extract(response).notes)

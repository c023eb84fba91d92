"""Inline elements (scrapy_cetd.page.markdown.spans): emphasis where it can open and
close, links and images made absolute."""

from __future__ import annotations

from markdownkit import (
    body_markdown,
    inline_kinds,
    markdown_text,
    squeezed,
    text_of,
    tokens,
)

from scrapy_cetd import extract


def test_headings_paragraphs_and_emphasis() -> None:
    markdown = body_markdown(
        "<body><h2>Big <em>news</em></h2><p>One <b>bold</b> and <i>it</i>alic, "
        "<del>gone</del>.</p><h3>C#</h3><h3>Ranked #</h3></body>"
    )
    assert markdown == (
        "## Big *news*\n\nOne **bold** and *it*alic, ~~gone~~.\n\n### C#\n\n### Ranked \\#"
    )
    found = [token.type for token in tokens(markdown)]
    assert found.count("heading_open") == 3
    assert squeezed(markdown_text(markdown)) == squeezed(
        "Big news One bold and italic, gone. C# Ranked #"
    )
    assert {"em_open", "strong_open", "s_open"} <= inline_kinds(markdown)


def test_emphasis_that_cannot_open_is_written_plain() -> None:
    markdown = body_markdown('<body><p>x<b> "quoted" </b>y <i>(aside)</i></p></body>')
    assert "*" not in markdown
    assert squeezed(markdown_text(markdown)) == squeezed(text_of('<p>x "quoted" y (aside)</p>'))


def test_emphasis_inside_the_same_emphasis_adds_no_delimiters() -> None:
    # *x*y*& w* would read back as x, then "y*& w*" in plain text
    markdown = body_markdown(
        "<body><p><em>x<em>y</em>&amp; w</em> and <b>b <b>c</b> d</b></p></body>"
    )
    assert markdown == "*xy& w* and **b c d**"
    assert squeezed(markdown_text(markdown)) == squeezed("xy& w and b c d")
    assert inline_kinds(markdown) >= {"em_open", "strong_open"}


def test_emphasis_does_not_touch_the_delimiters_of_emphasis_around_it() -> None:
    """An emphasis inside an element that writes none (``<i>`` around a bold that is all it
    holds) is written after what lies before that element: ``**1****1**`` read back as text."""
    markdown = body_markdown(
        "<body><p><b>1</b><i><b>2</b></i></p><h2><span><b>3</b></span><s><b>4</b></s></h2>"
        "<p><i><b>5</b></i><b>6</b></p></body>"
    )
    assert markdown == "**1**2\n\n## **3**4\n\n**5**6"
    assert squeezed(markdown_text(markdown)) == "123456"
    assert inline_kinds(markdown) == {"text", "strong_open", "strong_close"}


def test_quotes_images_and_links_are_absolute() -> None:
    page = (
        "<body><blockquote><p>Said <a href='../who'>who</a></p><p>twice</p></blockquote>"
        "<p><img src='pic.png' alt='A [pic]'> <a href='javascript:go()'>js</a> "
        "<a href='/a b'><img src='i.gif'></a></p></body>"
    )
    markdown = body_markdown(page, "https://example.com/news/today/")
    assert markdown == (
        "> Said [who](https://example.com/news/who)\n>\n> twice\n\n"
        "![A [pic]](https://example.com/news/today/pic.png) js "
        "[![](https://example.com/news/today/i.gif)](https://example.com/a%20b)"
    )
    kinds = [t.type for t in tokens(markdown)]
    assert kinds.count("blockquote_open") == 1
    images = [c for t in tokens(markdown) for c in t.children or [] if c.type == "image"]
    assert len(images) == 2


def test_an_amp_image_is_an_image_and_its_fallback_text_stays() -> None:
    page = (
        "<body><p>Before</p><amp-img src='/a.jpg' alt='Harbour' width='4' height='3'>"
        "<div fallback>No image</div></amp-img><p>After</p></body>"
    )
    markdown = body_markdown(page, "https://example.com/news/")
    images = [c for t in tokens(markdown) for c in t.children or [] if c.type == "image"]
    assert [image.attrs["src"] for image in images] == ["https://example.com/a.jpg"]
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


def test_extract_resolves_against_the_base_href() -> None:
    page = (
        "<html><head><base href='/base/'></head><body><article><h1>Title</h1>"
        "<p>A paragraph long enough to be the main content of this page, with "
        "<a href='rel.html'>a relative link</a> and an image <img src='img.png'>.</p>"
        "<p>More text to be sure that the extractor keeps this article as it is.</p>"
        "</article></body></html>"
    )
    result = extract(page, url="https://example.com/dir/page.html", markdown=True)
    assert result.markdown is not None
    assert "[a relative link](https://example.com/base/rel.html)" in result.markdown
    assert "![](https://example.com/base/img.png)" in result.markdown
    assert 'href="https://example.com/base/rel.html"' in result.html


def test_a_link_that_holds_blocks_is_written_as_its_blocks() -> None:
    """A link around blocks (a card: ``<a><h3>…</h3><p>…</p></a>``, valid HTML5) keeps its
    blocks: the heading stays a heading, the list a list and the code a code block, where one
    link of the whole held them as one line of text. Its URL is written once, around its
    first heading's text, else the first text inside it: in each block, a link of many blocks
    would grow by the URL for each."""
    page = (
        "<body><div><a href='/a'><h3>Title</h3><p>Desc <b>here</b>.</p><span>More</span></a>"
        "</div><div>Intro <a href='/b'>lead<h4>Head</h4>after</a> tail</div>"
        "<div><a href='/c'><img src='i.png' alt='pic'><ul><li>one</li><li>two</li></ul>"
        "<pre>code</pre><p>in <a href='/d'>inner</a> link</p></a></div>"
        "<div><a href='/e'> <p> </p><p><i>First</i> one</p><p>Second</p></a> tail</div>"
        "<div><a href='/f'><h3> </h3><p>After an empty heading</p></a></div></body>"
    )
    markdown = body_markdown(page, "https://example.com/")
    assert markdown == (
        "### [Title](https://example.com/a)\n\nDesc **here**.\n\nMore\n\n"
        "Intro lead\n\n#### [Head](https://example.com/b)\n\nafter tail\n\n"
        "[![pic](https://example.com/i.png)](https://example.com/c)\n\n"
        "- one\n- two\n\n```\ncode\n```\n\nin inner link\n\n"
        "[*First* one](https://example.com/e)\n\nSecond\n\ntail\n\n"
        "[After an empty heading](https://example.com/f)"
    )
    kinds = [t.type for t in tokens(markdown)]
    assert kinds.count("heading_open") == 2 and kinds.count("bullet_list_open") == 1
    assert "fence" in kinds
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))
    # a link of inline content alone stays one link
    assert body_markdown("<body><div><a href='/a'><b>x</b> <span>y</span></a></div></body>") == (
        "[**x** y](/a)"
    )


def test_a_link_around_blocks_ends_before_the_break_that_ends_its_text() -> None:
    """The ``<br>`` that ends the paragraph of a link around blocks is dropped, as any block's
    last break; a break after its text, inside the link, stays after the link."""
    page = (
        "<body><div><a href='/a'><p>Title<br></p><p>Desc</p></a></div>"
        "<div><a href='/b'><div></div>lead<br></a>tail</div></body>"
    )
    assert body_markdown(page) == "[Title](/a)\n\nDesc\n\n[lead](/b)\\\ntail"


def test_a_link_around_many_blocks_writes_its_url_once() -> None:
    """The Markdown of a link around blocks grows by its URL once, however many blocks it
    holds: a page of one long URL around many paragraphs keeps the size of its HTML."""
    url = "https://example.com/" + "x" * 8_000
    page = f"<body><div><a href='{url}'>{'<p>word</p>' * 2_000}</a></div></body>"
    markdown = body_markdown(page)
    assert markdown.count(url) == 1
    assert len(markdown) < len(page)

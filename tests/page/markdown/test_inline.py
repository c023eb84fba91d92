"""Inline Markdown across elements (scrapy_cetd.page.markdown.inline): a line's state
(its start, a number so far, a heading's line) carried from one element to the next, and hard
breaks."""

from __future__ import annotations

import tracemalloc
from html import escape

import lxml.html
import pytest
from markdownkit import (
    PARSER,
    body_markdown,
    inline_kinds,
    markdown_text,
    squeezed,
    text_of,
    tokens,
)

from scrapy_cetd.page.markdown.writer import to_markdown


def test_neighbours_in_two_elements_keep_their_meaning() -> None:
    """A ``!`` before a link would make it an image; two code spans side by side would read
    as one; a number then ``. `` from another element would make a list item."""
    page = (
        "<body><p>stronger!<a href='https://x.example/8'>[8]</a></p>"
        "<p><code>U+00DF</code><code>0xC3</code></p><p><b>1</b><span>. bold one</span></p>"
        "<p><span>2</span>. not a list</p><p><code>a</code><em><code>b</code> c</em></p></body>"
    )
    markdown = body_markdown(page)
    assert "stronger\\![[8]](https://x.example/8)" in markdown
    assert "`U+00DF` `0xC3`" in markdown
    assert {t.type for t in tokens(markdown)} == {"paragraph_open", "paragraph_close", "inline"}
    assert "image" not in inline_kinds(markdown)
    assert [
        c.content for t in tokens(markdown) for c in t.children or [] if c.type == "code_inline"
    ] == ["U+00DF", "0xC3", "a", "b"]
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


def test_hard_breaks_and_double_breaks() -> None:
    """After a hard break, a number then ``.`` is escaped only when it is 1: no list that
    starts at another number interrupts a paragraph."""
    markdown = body_markdown("<body><p>one<br>2. two<br>1. three<br><br>four<br></p></body>")
    assert markdown == "one\\\n2. two\\\n1\\. three\n\nfour"
    assert [t.type for t in tokens(markdown)].count("paragraph_open") == 2
    assert [t.type for t in tokens(markdown)].count("ordered_list_open") == 0


@pytest.mark.parametrize(
    "paragraph",
    ["12<span>3. x</span>", "<span>1</span><b>.</b> x", "1<i>)</i> x", "1<b>2</b>. x"],
)
def test_a_number_split_across_elements_does_not_become_a_list_item(paragraph: str) -> None:
    """A line that is a number so far, then a ``.`` or ``)`` in another element, would read
    as an ordered list's item: the ``.`` is escaped whichever element holds it."""
    markdown = body_markdown(f"<body><p>{paragraph}</p></body>")
    assert [t.type for t in tokens(markdown)][:2] == ["paragraph_open", "inline"]
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(f"<body><p>{paragraph}</p>"))


@pytest.mark.parametrize(
    "heading", ["1. Salad bars", "1986. That year", "- a dash", "+ a plus", "> a quote", "# a hash"]
)
def test_a_heading_s_text_is_not_escaped_as_a_line_s_start(heading: str) -> None:
    """A heading's line starts with its ``#``: what would start a list or a quote at a line's
    start is text there (``#### **1\\. Salad bars**`` escaped what needed no escape)."""
    markdown = body_markdown(f"<body><h4><b>{escape(heading)}</b></h4></body>")
    assert "\\" not in markdown
    tokens = PARSER.parse(markdown)
    assert [token.type for token in tokens] == ["heading_open", "inline", "heading_close"]
    assert tokens[1].content.strip("*") == heading  # bold only where it can open and close


def test_a_paragraph_of_a_megabyte_takes_no_string_for_each_word() -> None:
    """The white space of a long text is collapsed a piece at a time: the Markdown of a
    paragraph of a megabyte of short words took fourteen times its size (a string for each
    word, all at once), three now (the text read, its collapsed copy, the Markdown)."""
    text = "storm hits the coast " * 50_000
    body = lxml.html.document_fromstring(f"<p>{text}</p>").find("body")
    assert body is not None
    tracemalloc.start()
    written = to_markdown(body)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert written == text.strip()
    assert peak < 5 * len(text)

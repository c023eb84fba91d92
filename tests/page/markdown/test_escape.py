"""The escaping of literal characters (scrapy_cetd.page.markdown.escape): text that would
read as markup reads back as the same text."""

from __future__ import annotations

from html import escape as escape_html

import lxml.html
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdownkit import (
    body_markdown,
    inline_kinds,
    inline_text,
    markdown_text,
    squeezed,
    tables,
    text_of,
    tokens,
)


def test_literal_markdown_characters_are_escaped_where_they_would_change_meaning() -> None:
    page = (
        "<body><p># not a heading</p><p>1. not a list</p><p>- not an item</p>"
        "<p>&gt; not a quote</p><p>snake_case stays, _this_ and *that* do not</p>"
        "<p>a [link](http://x) text, `code`, &lt;b&gt;tag&lt;/b&gt;, &amp;amp; a | b ~~x~~</p>"
        "<p>---</p><p>===</p><p>wow![1]</p><p><span>2</span>. not a list</p>"
        "<p>5 * 3 = 15</p><p>back\\slash</p></body>"
    )
    markdown = body_markdown(page)
    assert "snake_case" in markdown and "5 * 3" in markdown
    kinds = {token.type for token in tokens(markdown)}
    assert kinds == {"paragraph_open", "paragraph_close", "inline"}
    assert inline_kinds(markdown) == {"text"}
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


def test_brackets_are_escaped_only_where_they_would_make_a_link() -> None:
    """A ``[`` or ``]`` in text changes the meaning only where it would make a link (``](``),
    a link reference definition or a task list item at a line's start, or end a link's text
    early: elsewhere it is written as it is (``Evidently [the two suspects] did not``)."""
    page = (
        "<body><p>Evidently [the two suspects] did not [sic].</p><p>[1] Smith, 2020</p>"
        "<p>a [link](http://x) in text</p><p>[label]: http://x</p><p>[ref][label] [label]</p>"
        "<p>[x]<span>(y)</span> and <b>[z]</b>(w)</p><ul><li>[ ] not a task</li></ul>"
        "<p><a href='https://x.example/'>a [b] c] d [e</a> wow![2]</p>"
        "<p><img src='https://x.example/i.png' alt='a] [b'></p><p>[Netflix Tudum]</p>"
        "<p>[5] <a href='https://x.example/5'>arXiv</a></p><p>[a]<b>: a definition</b></p>"
        "<p><i>[b]</i>: another</p><p>[c]<br>: not one</p></body>"
    )
    markdown = body_markdown(page)
    assert "Evidently [the two suspects] did not [sic]." in markdown
    assert "\n[1] Smith, 2020\n" in markdown
    assert "\n[Netflix Tudum]\n\n[5] [arXiv](https://x.example/5)\n" in markdown
    assert "\n\\[a]: a definition\n\n\\[b]: another\n\n[c]\\\n: not one" in markdown
    assert "[a [b] c\\] d \\[e](https://x.example/) wow![2]" in markdown
    assert markdown.count("\\") == 13  # the eight above, and before [label]:, [x], (y), (w), [ ]
    assert inline_kinds(markdown) == {"text", "link_open", "link_close", "image", "hardbreak"}
    assert images(markdown) == ["a] [b"]
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


def test_characters_are_not_escaped_where_they_mean_nothing() -> None:
    """``_`` inside a word, ``*`` or ``~`` between spaces, ``#`` away from a line's start, a
    ``<`` that opens no tag, an ``&`` that makes no entity, a ``\\`` before no punctuation and
    a ``|`` outside a table are text."""
    page = (
        "<body><p>snake_case__x, 5 * 3 ** 2, a ~ b, #hashtag, issue #12</p>"
        "<p>a &lt; b, x &lt;= 3, &lt;10 years, Result&lt;T, E&gt;, AT&amp;T, Q&amp;A, "
        "C:\\Users\\me, Home | News</p>"
        "<p>#hashtag at the start, -5 degrees, +1 for this, =SUM(A1), --flag</p></body>"
    )
    markdown = body_markdown(page)
    assert markdown.count("\\") == 2  # the path's
    assert {t.type for t in tokens(markdown)} == {"paragraph_open", "paragraph_close", "inline"}
    assert inline_kinds(markdown) == {"text"}
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


def test_a_line_that_would_be_a_table_s_delimiter_row_is_escaped() -> None:
    """A line of ``|``, ``:`` and ``-`` after a line with a ``|`` would make the paragraph a
    table (``a | b`` then ``:--``), even with every ``|`` escaped."""
    page = "<body><p>a | b<br>:--</p><p>|a<br>:-</p><p>a|b<br>-|-</p><p>x<br>- -</p></body>"
    markdown = body_markdown(page)
    assert {t.type for t in tokens(markdown)} == {"paragraph_open", "paragraph_close", "inline"}
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


def test_a_backslash_before_a_link_does_not_make_its_bang_an_image() -> None:
    markdown = body_markdown("<body><p>a\\!<a href='https://x.example/'>b</a></p></body>")
    assert "image" not in inline_kinds(markdown)
    assert squeezed(markdown_text(markdown)) == "a\\!b"


CHARACTERS = "[]()!*_#`<>|~&;:\\-+=.1ax é"
"""Text of the characters that mean something in Markdown, and a few that do not."""

TAGS = ("", "", "span", "b", "i", "a", "code", "br", "img")


@st.composite
def fragments(draw: st.DrawFn) -> str:
    """Inline HTML: text of :data:`CHARACTERS` in and between inline elements, so that what
    a character means depends on what an element before or after it holds."""
    out = []
    for _ in range(draw(st.integers(1, 6))):
        tag = draw(st.sampled_from(TAGS))
        text = escape_html(draw(st.text(CHARACTERS, max_size=10)))
        if tag == "br":
            out.append(f"<br>{text}")
        elif tag == "img":
            out.append(f"<img src='https://x.example/i.png' alt='{text}'>")
        elif tag == "a":
            out.append(f"<a href='https://x.example/'>{text}</a>")
        elif tag:
            inner = draw(st.sampled_from(("", "b", "a")))
            if inner and tag not in (inner, "code"):
                href = " href='https://x.example/'" if inner == "a" else ""
                text = f"<{inner}{href}>{text}</{inner}>"
            out.append(f"<{tag}>{text}</{tag}>")
        else:
            out.append(text)
    return "".join(out)


def images(markdown: str) -> list[str]:
    """The description of every image, as read (its children: ``content`` is its source)."""
    return [inline_text(c) for t in tokens(markdown) for c in t.children or [] if c.type == "image"]


def alts(html: str) -> list[str]:
    body = lxml.html.document_fromstring(html).find("body")
    assert body is not None
    return [" ".join(img.get("alt", "").split()) for img in body.iter("img")]


def links(html: str) -> int:
    """The links that hold something: text, or an image."""
    body = lxml.html.document_fromstring(html).find("body")
    assert body is not None
    return sum(
        1 for a in body.iter("a") if str(a.xpath("string()")).strip() or a.find("img") is not None
    )


def check_inline(markdown: str, html: str) -> None:
    """What the Markdown reads back as: the text, every link and image, and nothing else."""
    kinds = inline_kinds(markdown)
    assert kinds <= {
        "text",
        "softbreak",
        "hardbreak",
        "code_inline",
        "link_open",
        "link_close",
        "image",
        "em_open",
        "em_close",
        "strong_open",
        "strong_close",
    }, markdown
    opened = [c.type for t in tokens(markdown) for c in t.children or []].count("link_open")
    assert opened == links(html), markdown
    assert [" ".join(alt.split()) for alt in images(markdown)] == alts(html), markdown
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(html)), markdown


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(fragments(), fragments())
def test_text_in_a_paragraph_reads_back_as_itself(first: str, second: str) -> None:
    page = f"<body><p>{first}</p><p>{second}</p></body>"
    markdown = body_markdown(page)
    assert {t.type for t in tokens(markdown)} <= {"paragraph_open", "paragraph_close", "inline"}
    check_inline(markdown, page)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(fragments(), fragments())
def test_text_in_list_items_and_quotes_reads_back_as_itself(first: str, second: str) -> None:
    page = f"<body><ol start='9'><li>{first}</li></ol><blockquote>{second}</blockquote></body>"
    markdown = body_markdown(page)
    blocks = {t.type for t in tokens(markdown)}
    assert blocks <= {
        "ordered_list_open",
        "ordered_list_close",
        "list_item_open",
        "list_item_close",
        "blockquote_open",
        "blockquote_close",
        "paragraph_open",
        "paragraph_close",
        "inline",
    }, markdown
    assert [t.type for t in tokens(markdown)].count("list_item_open") <= 1, markdown
    check_inline(markdown, page)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(fragments())
def test_text_in_a_heading_reads_back_as_itself(fragment: str) -> None:
    page = f"<body><h2>{fragment}</h2></body>"
    markdown = body_markdown(page)
    assert [t.type for t in tokens(markdown)] in (
        [],
        ["heading_open", "inline", "heading_close"],
    ), markdown
    check_inline(markdown, page)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(fragments(), fragments())
def test_text_in_a_table_s_cells_reads_back_as_itself(first: str, second: str) -> None:
    page = (
        f"<body><table><tr><th>h</th><th>{first}</th></tr>"
        f"<tr><td>{second}</td><td>z</td></tr></table></body>"
    )
    markdown = body_markdown(page)
    found = tables(markdown)
    assert len(found) == 1 and [len(row) for row in found[0]] == [2, 2], markdown
    cells = [squeezed(cell) for row in found[0] for cell in row]
    assert cells == [squeezed(text_of(f"<p>{html}</p>")) for html in ("h", first, second, "z")]
    check_inline(markdown, page)

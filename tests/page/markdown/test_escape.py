"""The escaping of literal characters (scrapy_cetd.page.markdown.escape): text that would
read as markup reads back as the same text."""

from __future__ import annotations

from markdownkit import (
    body_markdown,
    inline_kinds,
    markdown_text,
    squeezed,
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

"""Code blocks (scrapy_cetd.page.markdown.blocks): fences longer than the backticks inside,
with the language of the ``<pre>`` or its ``<code>``."""

from __future__ import annotations

from markdownkit import (
    body_markdown,
    tokens,
)


def test_fenced_code_keeps_its_language_and_backticks() -> None:
    page = (
        "<body><pre class='language-python'>def f():\n    return '```'</pre>"
        "<pre><code class='lang-c++'>int x;</code></pre><p>call <code>a`b</code> now</p></body>"
    )
    markdown = body_markdown(page)
    fences = [t for t in tokens(markdown) if t.type == "fence"]
    assert [(t.info, t.content) for t in fences] == [
        ("python", "def f():\n    return '```'\n"),
        ("c++", "int x;\n"),
    ]
    children = [c for t in tokens(markdown) for c in t.children or []]
    spans = [c.content for c in children if c.type == "code_inline"]
    assert spans == ["a`b"]

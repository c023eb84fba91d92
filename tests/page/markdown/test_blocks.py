"""Code blocks (scrapy_cetd.page.markdown.blocks): fences longer than the backticks inside,
with the language of the ``<pre>`` or its ``<code>``, and the breaks in them; and definition
lists, which Markdown has no syntax for."""

from __future__ import annotations

from collections.abc import Callable

from markdownkit import (
    body_markdown,
    tokens,
)
from ratios import seconds

from scrapy_cetd.page.finish import content_tree
from scrapy_cetd.page.markdown import to_markdown
from scrapy_cetd.page.output import element_text


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


def test_a_break_is_a_newline_in_a_code_block_and_a_space_in_a_code_span() -> None:
    """``<br>`` in a ``<pre>`` (a highlighter's lines) ends a line of the code; in a code span,
    which holds one line, it is a space."""
    markdown = body_markdown("<body><pre>one<br>two</pre><p><code>a<br>b</code></p></body>")
    assert markdown == "```\none\ntwo\n```\n\n`a b`"


def test_a_definition_list_is_written_as_its_terms_and_definitions() -> None:
    """CommonMark has no definition lists: each term and each definition is a paragraph (or
    the blocks it holds), in their order."""
    markdown = body_markdown(
        "<body><dl><dt>Term</dt><dd>Its definition.</dd><dt><code>x</code></dt>"
        "<dd><p>One.</p><ul><li>two</li></ul></dd></dl></body>"
    )
    assert markdown == "Term\n\nIts definition.\n\n`x`\n\nOne.\n\n- two"


def test_a_code_block_takes_the_language_its_wrapper_names() -> None:
    """Sphinx (``highlight-python``, Pygments' wrapper), Jekyll's Rouge (``language-ruby``)
    and GitHub (``highlight-source-go``) name a code block's language on the elements around
    its ``<pre>``, which hold nothing else; a class of the ``<pre>`` or its ``<code>`` comes
    first, ``highlight-default`` and ``highlight-none`` name none, and a wrapper that holds
    more than the code block names the language of more than it."""
    page = (
        "<body><div class='highlight-python notranslate'><div class='highlight'>"
        "<pre><span></span>x = 1</pre></div></div>"
        "<div class='language-ruby highlighter-rouge'><div class='highlight'>"
        "<pre class='highlight'><code>puts 1</code></pre></div></div>"
        "<div class='highlight highlight-source-go'><pre>go run</pre></div>"
        "<div class='highlight-python'><pre><code class='language-pycon'>&gt;&gt;&gt; 1</code>"
        "</pre></div>"
        "<div class='highlight-default notranslate'><div class='highlight'><pre>d</pre></div></div>"
        "<div class='lang-en'><p>Some prose.</p><pre>not English</pre></div></body>"
    )
    fences = [t.info for t in tokens(body_markdown(page)) if t.type == "fence"]
    assert fences == ["python", "ruby", "go", "pycon", "", ""]


def test_code_whose_lines_are_elements_keeps_one_line_for_each() -> None:
    """Shiki and GitLab write each line of code as a ``<span class="line">``, which their CSS
    shows as a block, CodeMirror as a ``<div class="cm-line">``: without a newline of the
    code between two of them they are still two lines, and a line that has its own newline
    (or ``<br>``, or a newline and the indentation of the page's source) gets no second one.
    An empty line element is a block of no height, as in a browser; in a code span, which
    holds one line, a line is a space."""
    page = (
        "<body><pre><code><span class='line'><span>foo</span>()</span>"
        "<span class='line'>bar()</span></code></pre>"
        "<pre><code><span class='line'>one</span>\n  <span class='line'>two</span>\n</code></pre>"
        "<pre><code><div class='cm-line'>[<br></div><div class='cm-line'>  x,<br></div>"
        "<div class='cm-line'>]</div></code></pre>"
        "<pre>x<span class='line'></span><span class='line'></span>y<div>z</div>end</pre>"
        "<p>Run <code><span class='line'>a</span><span class='line'>b</span></code> now</p></body>"
    )
    markdown = body_markdown(page)
    fences = [t.content for t in tokens(markdown) if t.type == "fence"]
    assert fences == ["foo()\nbar()\n", "one\n  two\n", "[\n  x,\n]\n", "x\ny\nz\nend\n"]
    assert markdown.endswith("Run `a b` now")


def test_a_class_of_no_language_gives_a_fence_without_one() -> None:
    """Prism's ``language-none`` and Stack Exchange's ``lang-none`` mean no highlighting: the
    fence names no language (an info string ``none`` would name one). Plain text's names,
    which renderers read as plain text, are kept."""
    page = (
        "<body><pre class='language-none'><code class='language-none'>a</code></pre>"
        "<pre class='lang-none prettyprint-override'><code>b</code></pre>"
        "<pre><code class='language-default'>c</code></pre>"
        "<pre class='language-text'>d</pre><pre><code class='language-plaintext'>e</code></pre>"
        "</body>"
    )
    fences = [t.info for t in tokens(body_markdown(page)) if t.type == "fence"]
    assert fences == ["", "", "", "text", "plaintext"]


def test_code_blocks_side_by_side_are_written_in_linear_time() -> None:
    """Whether the element around a ``<pre>`` holds it alone is asked of the ``<pre>``'s
    neighbours, not by counting that element's children: counted, a page of many code blocks
    in one ``<div>`` took quadratic time (1 MB of them, 14 s; 8,000 among 20 empty elements
    each, 11.8 s, 15 times as long as paragraphs; 3,000, 3.9 times)."""

    def make(tag: str) -> Callable[[], object]:
        unit = f"<{tag}>x = 1</{tag}>" + "<i></i>" * 20  # siblings the parent would count
        root = content_tree(f"<body><div>{unit * 3_000}</div></body>")
        return lambda: to_markdown(root)

    assert seconds(make("pre")) < 2 * seconds(make("p"))


def test_a_code_element_that_is_a_line_starts_one_as_the_text_does() -> None:
    """A ``<code>`` directly in a ``<pre>`` gives the block its language, and is a line of its
    own too when it has the class of one: after the code's text before it, it starts a line,
    as the text output starts one."""
    page = "<body><pre>x<code class='line language-js'>a</code></pre></body>"
    fences = [(t.info, t.content) for t in tokens(body_markdown(page)) if t.type == "fence"]
    assert fences == [("js", "x\na\n")]


def test_a_list_in_a_code_block_is_its_items_lines_in_the_fence_and_the_text() -> None:
    """A list inside a ``<pre>`` is code: each item a line of the fence, as each is a line of
    the text, none lost, and so is each line of an item's text. libxml2 closes a ``<pre>`` at
    a ``<ul>`` (not at an ``<ol>``): that list follows the empty code block, and is written as
    a list."""
    ordered = (
        "<body><pre>steps:<ol><li>make\n  venv</li><li>make <b>test</b></li></ol></pre></body>"
    )
    fences = [t.content for t in tokens(body_markdown(ordered)) if t.type == "fence"]
    assert fences == ["steps:\nmake\n  venv\nmake test\n"]
    lines = ["steps:", "make", "venv", "make test"]
    assert element_text(content_tree(ordered)).splitlines() == lines
    bulleted = "<body><pre><ul><li>one</li><li>two</li></ul></pre></body>"
    assert body_markdown(bulleted) == "- one\n- two"
    assert element_text(content_tree(bulleted)).splitlines() == ["one", "two"]

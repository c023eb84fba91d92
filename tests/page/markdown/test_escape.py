"""The escaping of literal characters (scrapy_cetd.page.markdown.escape): text that would
read as markup reads back as the same text."""

from __future__ import annotations

import tracemalloc
from html import escape as escape_html

import lxml.html
import pytest
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
from ratios import seconds

from scrapy_cetd.limits import LimitExceededError, deadline
from scrapy_cetd.page.markdown.escape import last_char, longest_run, markup

PARAGRAPHS = {"paragraph_open", "paragraph_close", "inline"}
"""The tokens of Markdown that holds paragraphs and nothing else."""


def block_kinds(markdown: str) -> set[str]:
    """The kinds of the tokens markdown-it-py reads ``markdown`` into."""
    return {token.type for token in tokens(markdown)}


def assert_reads_back(markdown: str, page: str) -> None:
    """``markdown`` reads back as the text of ``page``, spaces aside."""
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


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
    assert_reads_back(markdown, page)


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
    assert markdown.count("\\") == 12  # the eight above, and before [label]:, (y), (w), [ ]
    assert inline_kinds(markdown) == {"text", "link_open", "link_close", "image", "hardbreak"}
    assert images(markdown) == ["a] [b"]
    assert_reads_back(markdown, page)


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
    assert block_kinds(markdown) == PARAGRAPHS
    assert inline_kinds(markdown) == {"text"}
    assert_reads_back(markdown, page)


def test_a_line_that_would_be_a_table_s_delimiter_row_is_escaped() -> None:
    """A line of ``|``, ``:`` and ``-`` after a line with a ``|`` would make the paragraph a
    table (``a | b`` then ``:--``), even with every ``|`` escaped."""
    page = "<body><p>a | b<br>:--</p><p>|a<br>:-</p><p>a|b<br>-|-</p><p>x<br>- -</p></body>"
    markdown = body_markdown(page)
    assert block_kinds(markdown) == PARAGRAPHS
    assert_reads_back(markdown, page)


def test_a_backslash_before_a_link_does_not_make_its_bang_an_image() -> None:
    markdown = body_markdown("<body><p>a\\!<a href='https://x.example/'>b</a></p></body>")
    assert "image" not in inline_kinds(markdown)
    assert squeezed(markdown_text(markdown)) == "a\\!b"


def test_a_backtick_is_escaped_only_where_a_code_span_could_close() -> None:
    """A run of backticks opens a code span only when a run as long follows it in the block
    (CommonMark reads code spans first, and an escaped backtick still closes one): a lone
    backtick, or the last of a pair, is text as it is, from whichever element they come."""
    page = (
        "<body><p>it`s ``quoted'' text</p><p>All `w` values</p><p>a ` b <span>`</span> c</p>"
        "<p>x ` <code>y</code></p><p>one ` then <code>a`b</code></p><p>` a<br>``` b</p>"
        "<p>`[``[``</p><p><a href='https://x.example/`'>`a</a> b`</p></body>"
    )
    markdown = body_markdown(page)
    assert markdown.split("\n\n") == [
        "it`s ``quoted'' text",
        "All \\`w` values",
        "a \\` b ` c",
        "x \\` `y`",
        "one \\` then ``a`b``",
        "\\` a\\\n\\`\\`\\` b",
        "\\`[\\`\\`[``",
        "[\\`a](https://x.example/%60) b`",
    ]
    assert [
        c.content for t in tokens(markdown) for c in t.children or [] if c.type == "code_inline"
    ] == [
        "y",
        "a`b",
    ]
    assert block_kinds(markdown) == PARAGRAPHS
    assert_reads_back(markdown, page)


def test_what_follows_an_element_s_text_in_the_block_decides_its_escapes() -> None:
    """A character at the edge of an element's text is escaped by what follows it in the
    block, whichever element that comes from: ``&`` only before an entity or a character
    reference, ``\\`` only before punctuation, ``<`` only before an HTML tag or an autolink,
    ``*`` between two spaces not at all."""
    page = (
        "<body><p>Q&amp;<b>A</b>, Perkins&amp;<span>Will</span>, AT&amp;T, M&amp;</p>"
        "<p>&amp;<span>amp;</span>, &amp;#39;, &amp;nbsp without, &amp;foo; &amp;</p>"
        "<p>5 <span>*</span> 3</p><p>C:\\<span>dir</span>\\</p><p>a\\<b>*</b></p>"
        "<p>x &lt;<span>y</span> &lt;<span>b&gt;</span></p><p>a<br>------<br>&#8203;</p></body>"
    )
    markdown = body_markdown(page)
    assert markdown.split("\n\n") == [
        "Q&**A**, Perkins&Will, AT&T, M&",
        "\\&amp;, \\&#39;, &nbsp without, &foo; &",
        "5 * 3",
        "C:\\dir\\",
        "a\\\\*",
        "x <y \\<b>",
        "a\\\n\\------",
    ]
    assert block_kinds(markdown) == PARAGRAPHS
    assert inline_kinds(markdown) == {"text", "strong_open", "strong_close", "hardbreak"}
    assert_reads_back(markdown, page)


def test_brackets_split_across_elements_of_a_link_s_text_match() -> None:
    """The brackets of a link's text are matched over all of it, whichever elements hold
    them: a matched pair is written as it is, the others escaped, and ``](`` never ends the
    text early."""
    page = (
        "<body><p><a href='https://x.example/1'>a <b>[</b> b]</a></p>"
        "<p><a href='https://x.example/2'>a <span>[b</span>] c</a></p>"
        "<p><a href='https://x.example/3'>[<i>x</i>]</a></p>"
        "<p><a href='https://x.example/4'>x]<b>(y)</b></a></p>"
        "<p><a href='https://x.example/5'>[<img src='https://x.example/i.png' alt='[i'>]</a></p>"
        "<p><a href='https://x.example/6'><span>[</span>a</a>]</p></body>"
    )
    markdown = body_markdown(page)
    assert markdown.split("\n\n") == [
        "[a [ b]](https://x.example/1)",
        "[a [b] c](https://x.example/2)",
        "[[*x*]](https://x.example/3)",
        "[x\\](y)](https://x.example/4)",
        "[[![\\[i](https://x.example/i.png)]](https://x.example/5)",
        "[\\[a](https://x.example/6)]",
    ]
    assert link_texts(markdown) == links(page)
    assert images(markdown) == ["[i"]
    assert_reads_back(markdown, page)


def test_a_delimiter_is_escaped_only_where_it_could_open_or_close_with_another() -> None:
    """A run of ``*``, ``_`` or ``~`` makes emphasis or strikethrough only with another that
    it could open or close (as CommonMark reads what each touches, a symbol taken as
    punctuation or not): a lone one, or one that may only close before any opener, is text
    as it is; at a line's start, a list item, a thematic break or a fence is escaped."""
    page = (
        "<body><p>per seat*</p><p>a*b*c</p><p>*****Notes*****</p><p>~4 GB, 2*3, x_ and _y</p>"
        "<p>* x</p><p>***</p><p>* * *</p><p>___</p><p>~~~ a</p><p>€*x* and ¶*y*</p>"
        "<p>a*<b>b</b>*</p><p>Fields with an asterisk <span>*</span> are required*</p></body>"
    )
    markdown = body_markdown(page)
    assert markdown.split("\n\n") == [
        "per seat*",
        "a\\*b\\*c",
        "\\*\\*\\*\\*\\*Notes\\*\\*\\*\\*\\*",
        "~4 GB, 2*3, x_ and _y",
        "\\* x",
        "\\*\\*\\*",
        "\\* * *",
        "\\_\\_\\_",
        "\\~\\~\\~ a",
        "€\\*x\\* and ¶\\*y\\*",
        "a\\*b\\*",
        "Fields with an asterisk * are required*",
    ]
    assert block_kinds(markdown) == PARAGRAPHS
    assert inline_kinds(markdown) == {"text"}
    assert_reads_back(markdown, page)


def test_a_link_reference_definition_is_escaped_only_where_one_could_start() -> None:
    """A ``[`` opens a link reference definition only at a block's start (one does not
    interrupt a paragraph), and only when its first ``]`` is followed by a ``:`` with no
    ``[`` before it."""
    page = (
        "<body><p>[[edit]] x</p><p>a<br>[x]: y</p><p>[a](b)]: c</p><p>[x]<span>: y</span></p>"
        "<p>[<a href='https://x.example/'>z</a>]: w</p></body>"
    )
    markdown = body_markdown(page)
    assert markdown.split("\n\n") == [
        "[[edit]] x",
        "a\\\n[x]: y",
        "\\[a\\](b)]: c",
        "\\[x]: y",
        "[[z](https://x.example/)]: w",
    ]
    assert inline_kinds(markdown) == {"text", "hardbreak", "link_open", "link_close"}
    assert_reads_back(markdown, page)


def test_a_less_than_sign_is_escaped_only_before_a_tag_or_an_autolink() -> None:
    page = (
        "<body><p>&lt;숨바꼭질&gt;, &lt;10 years&gt;, &lt;a b, 3 &lt; 4 &gt; 2, &lt;a\\b&gt;</p>"
        "<p>&lt;n&gt;, &lt;/strong&gt;, &lt;a href='x'&gt;, &lt;http://x&gt;, "
        "&lt;3@x.example&gt;, &lt;!-- x, &lt;?x</p></body>"
    )
    markdown = body_markdown(page)
    assert markdown.split("\n\n") == [
        "<숨바꼭질>, <10 years>, <a b, 3 < 4 > 2, <a\\b>",
        "\\<n>, \\</strong>, \\<a href='x'>, \\<http://x>, \\<3@x.example>, \\<!-- x, \\<?x",
    ]
    assert inline_kinds(markdown) == {"text"}
    assert_reads_back(markdown, page)


def test_control_characters_of_a_tree_are_not_written() -> None:
    """The HTML parser keeps control characters in a tree's text (the extraction's text drops
    them); the writer, whose drafts mark markup with some of them, drops them too."""
    page = (
        "<body><p>a&#1;b <code>&#1;</code><code>x&#2;y</code> "
        "<img src='https://x.example/i&#3;' alt='&#4;[x'> &#1;"
        "<a href='https://x.example/&#1;'>&#3;t</a></p></body>"
    )
    markdown = body_markdown(page)
    assert markdown == "ab `xy` ![\\[x](https://x.example/i) [t](https://x.example/)"
    assert images(markdown) == ["[x"]
    assert link_texts(markdown) == ["t"]


@pytest.mark.parametrize(
    "paragraph",
    ["_a_ " * 20_000, "*" * 100_000, "`x` " * 20_000, "[a](b) " * 20_000, "&amp;lt; " * 20_000],
    ids=["emphasis-runs", "one-run", "backtick-runs", "brackets", "ampersands"],
)
def test_the_escaping_of_a_long_block_checks_the_time_budget(paragraph: str) -> None:
    """A block is escaped whole once it is written, its characters read in Python: a
    paragraph of one element (where the walk, which checks the deadline every few thousand
    elements, checks nothing) holding a megabyte of ``_a_`` took 3.3 s of a 1 s budget. The
    escaping checks the deadline as it goes; a short block is escaped as before."""
    with deadline(1e-9), pytest.raises(LimitExceededError, match="escaping the Markdown"):
        body_markdown(f"<body><p>{paragraph}</p></body>")
    with deadline(1e-9):
        assert body_markdown("<body><p>_a_ *b* `c` [d]</p></body>") == "\\_a\\_ \\*b\\* \\`c` [d]"


def test_the_last_character_of_a_draft_is_read_from_its_end() -> None:
    """Each emphasis or link that opens reads the last character written before it
    (:func:`last_char`): read by stripping the marks from a copy of the draft's last part,
    which a bold of half the page is, once for each empty ``<i>`` after it, it made the
    Markdown's time quadratic in the page (a 2 MB page of a bold and 140,000 ``<i>``: 6 s).
    It reads the characters after the last one written, the marks, alone."""
    small = f"{markup('**')}{'w' * 10}{markup('**')}"
    large = f"{markup('**')}{'w' * 10_000_000}{markup('**')}"
    assert last_char(large) == last_char(small) == "*"
    assert last_char(markup("")) == last_char("") == ""
    assert seconds(lambda: last_char(large)) < 100 * seconds(lambda: last_char(small))


@pytest.mark.parametrize(
    ("text", "longest"),
    [("", 0), ("code", 0), ("`", 1), ("a``b`c", 2), ("`a```", 3), ("``` `` ````", 4)],
)
def test_the_longest_run_of_a_character_is_counted_wherever_it_is(text: str, longest: int) -> None:
    """A fence or a code span outnumbers the longest run of backticks inside its code, at its
    start, in its middle or at its end."""
    assert longest_run(text, "`") == longest


def test_the_longest_run_takes_no_memory_for_each_run() -> None:
    """A code block may hold a page of short runs: they are not gathered, each a string, to
    be measured (300,000 runs of two backticks took 20 MB), and a long run is counted as
    surely."""
    text = "``a" * 300_000
    tracemalloc.start()
    longest = longest_run(text, "`")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert longest == 2
    assert peak < 10_000
    assert longest_run("a" + "`" * 1000 + "b" + "`" * 999, "`") == 1000


@given(st.text(alphabet="`a", max_size=80))
def test_the_longest_run_is_that_of_the_characters_counted_one_by_one(text: str) -> None:
    """Whatever the runs' lengths and places, the count is the longest run of the text."""
    runs = [len(run) for run in text.replace("a", " ").split()]
    assert longest_run(text, "`") == max(runs, default=0)


CHARACTERS = "[]()!*_#`<>|~&;:\\-+=.1ax é"
"""Text of the characters that mean something in Markdown, and a few that do not."""

WORDS = ("amp;", "#39;", "``", "b>", "br />", "http:", "@x.y>", "!--")
"""Pieces of what the characters make together: an entity, a character reference, a run of
backticks, an HTML tag, an autolink, a comment."""

TAGS = ("", "", "span", "b", "i", "a", "code", "br", "img")


@st.composite
def fragments(draw: st.DrawFn) -> str:
    """Inline HTML: text of :data:`CHARACTERS` in and between inline elements, so that what
    a character means depends on what an element before or after it holds."""
    out = []
    for _ in range(draw(st.integers(1, 6))):
        tag = draw(st.sampled_from(TAGS))
        pieces = st.sampled_from((*CHARACTERS, *WORDS))
        text = escape_html("".join(draw(st.lists(pieces, max_size=10))))
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


def links(html: str) -> list[str]:
    """The text of each link that holds something (text, or an image), squeezed."""
    body = lxml.html.document_fromstring(html).find("body")
    assert body is not None
    return [
        squeezed(str(a.xpath("string()")))
        for a in body.iter("a")
        if str(a.xpath("string()")).strip() or a.find(".//img") is not None
    ]


def link_texts(markdown: str) -> list[str]:
    """The text of each link as read, squeezed."""
    texts: list[str] = []
    inside: list[str] | None = None
    for child in (c for t in tokens(markdown) for c in t.children or []):
        if child.type == "link_open":
            inside = []
        elif child.type == "link_close" and inside is not None:
            texts.append(squeezed("".join(inside)))
            inside = None
        elif inside is not None and child.type in ("text", "code_inline"):
            inside.append(child.content)
    return texts


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
    assert link_texts(markdown) == links(html), markdown
    assert [" ".join(alt.split()) for alt in images(markdown)] == alts(html), markdown
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(html)), markdown


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(fragments(), fragments())
def test_text_in_a_paragraph_reads_back_as_itself(first: str, second: str) -> None:
    page = f"<body><p>{first}</p><p>{second}</p></body>"
    markdown = body_markdown(page)
    assert block_kinds(markdown) <= PARAGRAPHS
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

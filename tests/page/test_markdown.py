"""The Markdown of the main content (scrapy_cetd.page.markdown), read back by a CommonMark parser
with GitHub's tables (markdown-it-py): the same text, tables with their cells, lists at their
depth, on hand-made pages for each construct and on pages of every shared dataset."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from html import escape
from pathlib import Path

import lxml.html
import pytest
from lxml import etree
from markdown_it import MarkdownIt
from markdown_it.token import Token
from ratios import TENFOLD, growth

from scrapy_cetd import extract
from scrapy_cetd.evaluation.datasets import Page, default_datasets_root, find_datasets
from scrapy_cetd.page.dom import UNSHOWN_CONTENT_TAGS, local_tag
from scrapy_cetd.page.markdown import to_markdown
from scrapy_cetd.page.output import content_tree
from scrapy_cetd.result import ZERO_WIDTH

PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def tokens(markdown: str) -> list[Token]:
    return PARSER.parse(markdown)


def markdown_text(markdown: str) -> str:
    """The text a CommonMark reader sees: text, code spans and code blocks (not image
    descriptions, which are no text of the page), one space between blocks and lines."""
    out: list[str] = []
    for token in tokens(markdown):
        if token.type == "inline":
            for child in token.children or []:
                if child.type in ("text", "code_inline", "html_inline"):
                    out.append(child.content)
                elif child.type in ("softbreak", "hardbreak"):
                    out.append(" ")
            out.append(" ")
        elif token.type in ("fence", "code_block", "html_block"):
            out.append(token.content + " ")
    return "".join(out)


def inline_kinds(markdown: str) -> set[str]:
    """The kinds of inline token CommonMark reads (``text``, ``em_open``, ``link_open``...)."""
    return {child.type for token in tokens(markdown) for child in token.children or []}


def squeezed(text: str) -> str:
    """``text`` without whitespace and zero-width characters: the text modulo what takes no
    room (a line of zero-width characters alone is blank, and the text and the Markdown break
    their lines in different places)."""
    return "".join(text.translate(NO_ZERO_WIDTH).split())


NO_ZERO_WIDTH = dict.fromkeys(map(ord, ZERO_WIDTH))


def body_markdown(html: str, base_url: str | None = None) -> str:
    root = lxml.html.document_fromstring(html)
    body = root.find("body")
    assert body is not None
    return to_markdown(body, base_url=base_url)


def text_of(html: str) -> str:
    """The text of the page's body as lxml reads it."""
    body = lxml.html.document_fromstring(html).find("body")
    assert body is not None
    return str(body.xpath("string()"))


LISTS = ("ul", "ol", "menu")


def list_depths(markdown: str) -> list[int]:
    """The list depth of every list item CommonMark reads that holds text of its own (outside
    the lists nested in it)."""
    depth = 0
    open_items: list[int] = []
    depths: list[int] = []
    for token in tokens(markdown):
        if token.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif token.type == "list_item_open":
            open_items.append(len(depths))
            depths.append(-depth)  # negative until text of its own is seen
        elif token.type == "list_item_close":
            open_items.pop()
        elif open_items and token.type in ("inline", "fence"):
            text = token.content if token.type == "fence" else markdown_text(token.content)
            if text.strip():
                depths[open_items[-1]] = abs(depths[open_items[-1]])
    return [depth for depth in depths if depth > 0]


def own_text(item: etree._Element) -> bool:
    """Whether ``item`` holds text outside the lists and items nested in it."""
    stack = [item]
    while stack:
        element = stack.pop()
        if (element.text or "").strip():
            return True
        for child in element:
            if (child.tail or "").strip():
                return True
            if isinstance(child.tag, str) and local_tag(child) not in (*LISTS, "li"):
                stack.append(child)
    return False


HOLDERS = frozenset({*LISTS, "li", "blockquote"})
"""The nearest of these around an item must be a list or an item: an ``<li>`` directly in a
quote is in no list."""
INLINE = frozenset({"b", "strong", "i", "em", "del", "s", "code", "pre", "caption"}) | {
    f"h{n}" for n in range(1, 7)
}
"""Where a list cannot be written as one (a list in a heading or a link is written as its
text)."""


def inline_ancestors(element: etree._Element) -> bool:
    return any(
        local_tag(a) in INLINE or (local_tag(a) == "a" and a.get("href"))
        for a in element.iterancestors()
    )


def html_list_depths(root: etree._Element) -> list[int]:
    """The depth of every ``li`` inside a list that holds text of its own and is not inside
    inline markup: its number of list ancestors, or of item ancestors and one (an item
    directly inside an item, which libxml2 leaves unclosed, is nested in it), whichever is
    larger."""
    depths = []
    for item in root.iter("li"):
        tags = [local_tag(a) for a in item.iterancestors()]
        lists = sum(1 for tag in tags if tag in LISTS)
        holder = next((tag for tag in tags if tag in HOLDERS), None)
        if holder in (*LISTS, "li") and own_text(item) and not inline_ancestors(item):
            depths.append(max(lists, tags.count("li") + 1))
    return depths


def tables(markdown: str) -> list[list[list[str]]]:
    """Every GFM table CommonMark reads: its rows of cell texts."""
    found: list[list[list[str]]] = []
    row: list[str] | None = None
    for token in tokens(markdown):
        if token.type == "table_open":
            found.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            found[-1].append(row)
            row = None
        elif token.type in ("th_open", "td_open") and row is not None:
            row.append("")
        elif token.type == "inline" and row:
            row[-1] = " ".join(markdown_text(token.content).split())
    return found


LAYOUT = frozenset({"table", "p", "ul", "ol", "dl", "pre", "blockquote", "hr"}) | {
    f"h{n}" for n in range(1, 7)
}
STRUCTURE = frozenset({"table", "thead", "tbody", "tfoot", "tr"})
SKIPPED = ("script", "style", "template", *UNSHOWN_CONTENT_TAGS)
"""Elements whose content is no text of the page."""


def shown_text(element: etree._Element) -> str:
    """The text of ``element`` without what :data:`SKIPPED` elements hold (their tails kept)."""
    clone = copy.deepcopy(element)
    for skipped in list(clone.iter(*SKIPPED)):
        parent = skipped.getparent()
        if parent is None:
            continue
        before = skipped.getprevious()
        if before is not None:
            before.tail = (before.tail or "") + (skipped.tail or "")
        else:
            parent.text = (parent.text or "") + (skipped.tail or "")
        parent.remove(skipped)
    return str(clone.xpath("string()"))


PARTS = frozenset({"caption", "colgroup", "col", "thead", "tbody", "tfoot", "tr", "td", "th"})


def data_table_cells(root: etree._Element) -> list[list[str]]:
    """The non-empty cell texts of every table of ``root`` that holds data: two cells or more,
    no block (paragraph, heading, list, code, quote, rule, table) in a cell, no text or other
    element outside its cells; and that is not inside a link or inline markup."""
    found = []
    for table in root.iter("table"):
        if inline_ancestors(table):
            continue
        cells = [e for e in table.iter("td", "th")]
        skipped = {e for s in table.iter(*SKIPPED) for e in s.iter()}
        inner = [e for e in table.iter() if e is not table and e not in skipped]
        if len(cells) < 2 or any(local_tag(e) in LAYOUT for e in inner):
            continue
        structure = [table, *(e for e in inner if local_tag(e) in STRUCTURE)]
        if any((e.text or "").strip() for e in structure) or any(
            local_tag(child) not in PARTS or (child.tail or "").strip()
            for e in structure
            for child in e
            if isinstance(child.tag, str) and child not in skipped
        ):
            continue
        texts = [" ".join(shown_text(cell).split()) for cell in cells]
        if any(texts):
            found.append([text for text in texts if text])
    return found


def markdown_cells(markdown: str) -> list[list[str]]:
    return [[cell for row in table for cell in row if cell] for table in tables(markdown)]


# --- each construct on a hand-made page


def test_headings_paragraphs_and_emphasis() -> None:
    markdown = body_markdown(
        "<body><h2>Big <em>news</em></h2><p>One <b>bold</b> and <i>it</i>alic, "
        "<del>gone</del>.</p><h3>C#</h3></body>"
    )
    assert markdown == ("## Big *news*\n\nOne **bold** and *it*alic, ~~gone~~.\n\n### C\\#")
    found = [token.type for token in tokens(markdown)]
    assert found.count("heading_open") == 2
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


def test_neighbours_in_two_elements_keep_their_meaning() -> None:
    """A ``!`` before a link would make it an image; two code spans side by side would read
    as one; a number then ``. `` from another element would make a list item."""
    page = (
        "<body><p>stronger!<a href='https://x.example/8'>[8]</a></p>"
        "<p><code>U+00DF</code><code>0xC3</code></p><p><b>1</b><span>. bold one</span></p>"
        "<p><span>2</span>. not a list</p><p><code>a</code><em><code>b</code> c</em></p></body>"
    )
    markdown = body_markdown(page)
    assert "stronger\\![\\[8\\]](https://x.example/8)" in markdown
    assert "`U+00DF` `0xC3`" in markdown
    assert {t.type for t in tokens(markdown)} == {"paragraph_open", "paragraph_close", "inline"}
    assert "image" not in inline_kinds(markdown)
    assert [
        c.content for t in tokens(markdown) for c in t.children or [] if c.type == "code_inline"
    ] == ["U+00DF", "0xC3", "a", "b"]
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


def test_hard_breaks_and_double_breaks() -> None:
    markdown = body_markdown("<body><p>one<br>2. two<br><br>three<br></p></body>")
    assert markdown == "one\\\n2\\. two\n\nthree"
    assert [t.type for t in tokens(markdown)].count("paragraph_open") == 2


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


def test_nested_lists_keep_their_depth() -> None:
    page = (
        "<body><ul><li>one<ul><li>two<ol start='7'><li>three</li><li>four</li></ol></li>"
        "</ul></li><li>five<p>second paragraph</p></li><ul><li>six, a list in a list</li></ul>"
        "</ul><ol><li>ten</li></ol><ol><li>eleven</li></ol><ul><li>x<dd><li>an item in "
        "an item</li></dd></li></ul></body>"
    )
    markdown = body_markdown(page)
    root = lxml.html.document_fromstring(page)  # libxml2 keeps the item in the item
    assert list_depths(markdown) == html_list_depths(root) == [1, 2, 3, 3, 1, 2, 1, 1, 1, 2]
    ordered = [t for t in tokens(markdown) if t.type == "ordered_list_open"]
    assert [t.attrGet("start") for t in ordered] == [7, None, None]
    assert len(ordered) == 3  # two lists side by side stay two lists
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


def test_content_after_a_list_directly_inside_a_list_makes_no_item() -> None:
    """A list directly inside a list before any ``<li>`` is nested in an item made for it;
    what lies directly in the outer list after it (the next group's title) was that item's
    text: an item the page does not have. It is written between two lists, as the first
    group's title is written before the list."""
    page = (
        "<body><ul><div>First</div><ul><li>a</li><li>b</li></ul>"
        "<div>Second</div><ul><li>c</li></ul></ul>"
        "<ol start='3'><ol><li>d</li></ol>stray<li>e</li></ol></body>"
    )
    markdown = body_markdown(page)
    root = lxml.html.document_fromstring(page)
    assert list_depths(markdown) == html_list_depths(root) == [2, 2, 2, 2, 1]
    assert markdown.splitlines() == [
        "First",
        "",
        "- - a",
        "  - b",
        "",
        "Second",
        "",
        "- - c",
        "",
        "3. 1. d",
        "",
        "stray",
        "",
        "4. e",
    ]
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


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


def test_tables_fill_spanned_cells_and_escape_pipes() -> None:
    page = (
        "<body><table><thead><tr><th>a</th><th>b | c</th><th>d</th></tr></thead><tbody>"
        "<tr><td colspan='2'>wide</td><td>x</td></tr>"
        "<tr><td rowspan='2'>tall</td><td><code>p|q</code></td><td>y</td></tr>"
        "<tr><td>z</td><td><a href='/l'>link</a></td></tr></tbody></table></body>"
    )
    markdown = body_markdown(page, "http://example.com/")
    (table,) = tables(markdown)
    assert table == [
        ["a", "b | c", "d"],
        ["wide", "", "x"],
        ["tall", "p|q", "y"],
        ["", "z", "link"],
    ]
    assert "[link](http://example.com/l)" in markdown


def test_layout_tables_are_written_as_their_blocks() -> None:
    page = (
        "<body><table><tr><td><h2>Story</h2><p>First.</p><p>Second.</p></td>"
        "<td><ul><li>menu</li></ul></td></tr></table></body>"
    )
    markdown = body_markdown(page)
    assert tables(markdown) == []
    assert markdown == "## Story\n\nFirst.\n\nSecond.\n\n- menu"


def test_quotes_images_and_links_are_absolute() -> None:
    page = (
        "<body><blockquote><p>Said <a href='../who'>who</a></p><p>twice</p></blockquote>"
        "<p><img src='pic.png' alt='A [pic]'> <a href='javascript:go()'>js</a> "
        "<a href='/a b'><img src='i.gif'></a></p></body>"
    )
    markdown = body_markdown(page, "https://example.com/news/today/")
    assert markdown == (
        "> Said [who](https://example.com/news/who)\n>\n> twice\n\n"
        "![A \\[pic\\]](https://example.com/news/today/pic.png) js "
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


def test_markdown_costs_nothing_unless_asked() -> None:
    page = "<html><body><p>" + "Some words of text. " * 30 + "</p></body></html>"
    assert extract(page).markdown is None
    assert extract(page, markdown=True).markdown == ("Some words of text. " * 30).strip()
    empty = extract("<html><body><script>x()</script></body></html>", markdown=True)
    assert empty.reason is not None and empty.markdown == ""


def test_deep_nesting_is_walked_without_recursion() -> None:
    depth = 12_000
    root = lxml.html.Element("body")
    node = root
    chain = [root]
    for level in range(depth):
        node = etree.SubElement(node, "blockquote" if level % 1000 == 0 else "div")
        chain.append(node)
    node.text = "deep text"
    markdown = to_markdown(root)
    assert markdown.endswith("deep text")
    assert markdown.count(">") == 8  # twelve quotes, the ninth and deeper written as blocks
    html = lxml.html.tostring(root, encoding="unicode")
    assert to_markdown(content_tree(html)) == markdown  # deeper than lxml's parser reads


def test_quotes_and_lists_nested_past_eight_levels_add_no_more_prefixes() -> None:
    lines = "".join(f"line {k}<br>" for k in range(200))
    for opening, closing in (("<blockquote>", "</blockquote>"), ("<ul><li>", "</li></ul>")):
        page = f"<body>{opening * 100}<p>{lines}</p>{closing * 100}</body>"
        markdown = body_markdown(page)
        assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))
        widest = max(len(line) - len(line.lstrip("> -")) for line in markdown.splitlines())
        assert 8 <= widest <= 2 * 8  # each level adds "> " or two spaces, eight levels


def test_lists_numbered_from_nine_digits_indent_no_more_than_the_bound() -> None:
    """Each level of a list numbered from nine digits indents its lines by eleven columns: eight
    such lists around a thousand short lines gave Markdown 45 times the text. Past 24 columns
    the lists are written as the blocks they hold, and the text is still all there."""
    lines = "".join(f"a{k}<br>" for k in range(1_000))
    opening, closing = "<ol start='999999999'><li>" * 8, "</li></ol>" * 8
    page = f"<body>{opening}<p>{lines}</p>{closing}</body>"
    markdown = body_markdown(page)
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))
    widest = max(len(line) - len(line.lstrip(" 0123456789.")) for line in markdown.splitlines())
    assert widest <= 24
    assert len(markdown) < 8 * len(text_of(page))
    ten = "<body>" + "<ol>" + "<li>i</li>" * 9 + "<li>last" + "</li></ol>"
    deep = "<body>" + ("<ol>" + "<li>i</li>" * 9 + "<li>last") * 8 + "</li></ol>" * 8
    written = body_markdown(deep).splitlines()
    assert max(len(line) - len(line.lstrip(" ")) for line in written) <= 24  # "10." is wider
    assert body_markdown(ten).splitlines()[-1] == "10. last"
    refused = "<ol start='100000000'><li>{}</li></ol>"
    three = refused.format("a" + refused.format("b<ol start='100000000'><li>x</li><li>y</li></ol>"))
    assert body_markdown(f"<body>{three}</body>").splitlines()[-3:] == [
        " " * 22 + "x",  # the third list's items, as the blocks they hold: no list of "-"
        "",
        " " * 22 + "y",
    ]
    usual = body_markdown(
        "<body><ol><li>a<ol start='12'><li>b<ul><li>c</li></ul></li></ol></li></ol></body>"
    )
    assert usual.splitlines() == ["1. a", "", "   12. b", "       - c"]


def test_items_directly_inside_items_nest_no_deeper_than_eight_lists() -> None:
    # each item directly inside the one before it is a list of its own (libxml2 does not
    # close the first); built in code, as a parser given such markup closes the items
    root = lxml.html.Element("body")
    node = etree.SubElement(root, "ul")
    for k in range(15):
        node = etree.SubElement(node, "li")
        node.text = f"item {k}"
    markdown = to_markdown(root)
    assert squeezed(markdown_text(markdown)) == squeezed(str(root.xpath("string()")))
    assert max(len(line) - len(line.lstrip(" ")) for line in markdown.splitlines()) <= 2 * 8


def test_ordered_list_numbers_stay_nine_digits() -> None:
    markdown = body_markdown("<body><ol start='999999999'><li>a</li><li>b</li></ol></body>")
    assert markdown.splitlines() == ["999999999. a", "999999999. b"]
    assert squeezed(markdown_text(markdown)) == "ab"


def test_a_table_of_more_cells_than_its_grid_allows_does_not_widen_every_row() -> None:
    width, rows = 1000, 300  # 300,000 cells once every row is filled: more than _MAX_GRID
    page = (
        "<body><table><tr>"
        + "<td>h</td>" * width
        + "</tr>"
        + "<tr><td>b</td></tr>" * rows
        + "</table></body>"
    )
    markdown = body_markdown(page)
    assert len(markdown) < 4 * len(page)  # not the width times the rows
    header, _, first, *_ = markdown.splitlines()
    assert header.count("| h") == width
    assert first == "| b |"
    (table,) = tables(markdown)
    assert len(table[0]) == width
    assert table[1] == ["b"] + [""] * (width - 1)  # GitHub's tables fill in the rest


def test_tables_of_a_few_cells_spanning_thousands_stay_as_large_as_the_page() -> None:
    """A grid holds at most eight times its table's cells (and some slack): twenty cells of
    ``colspan=1000`` over ten rows would ask for 200,000 cells per table, the Markdown of a
    100 KB page growing to 150 million characters."""
    table = "<table><tr>" + "<td colspan=1000>h</td>" * 20 + "<tr><td>w</td>" * 9 + "</table>"
    page = "<body>" + table * 200 + "</body>"
    markdown = body_markdown(page)
    assert len(markdown) < 4 * len(page)
    first = tables(markdown)[0]
    assert first[0] == ["h"] * 20
    assert first[1][0] == "w"
    spanned = (
        "<table><tr><td colspan=3>wide</td></tr><tr><td>a</td><td>b</td><td>c</td></tr></table>"
    )
    assert tables(body_markdown(f"<body>{spanned}</body>")) == [[["wide", "", ""], ["a", "b", "c"]]]


def test_a_span_of_zero_counts_as_one_in_the_grid_s_bound() -> None:
    """``rowspan=0`` (valid HTML: to the end of the group) is written as one row, and counted
    so: counted as nothing, it let cells of ``colspan=1000`` fill every row to the width of
    the widest (a 1 MB page gave 90 MB of Markdown)."""
    row = "<tr>" + "<td colspan=1000 rowspan=0>cell</td>" * 10 + "</tr>"
    page = "<body><table>" + row * 300 + "</table></body>"
    assert len(body_markdown(page)) < 4 * len(page)


@pytest.mark.parametrize(
    "fragment",
    [
        "<table><tr><td colspan='\u00b2'>a</td><td>b</td></tr><tr><td>c</td><td>d</td></table>",
        "<table><tr><td rowspan='\u00b3'>a</td><td>b</td></tr><tr><td>c</td><td>d</td></table>",
        "<ol start='\u00b2'><li>one</li><li>two</li></ol>",
    ],
)
def test_spans_and_starts_in_digits_other_than_ascii_count_as_none(fragment: str) -> None:
    """``"²".isdigit()`` is true and ``int("²")`` raises: browsers read ASCII digits only."""
    markdown = body_markdown(f"<body>{fragment}</body>")
    assert "| a | b |" in markdown or "1. one" in markdown


def test_time_grows_linearly() -> None:
    unit = (
        "<h2>Part</h2><p>Text with <b>bold</b>, <a href='/x'>a link</a> and a_b * c.</p>"
        "<ul><li>one<ul><li>two</li></ul></li></ul><table><tr><td>a</td><td>b</td></tr>"
        "<tr><td colspan='2'>c</td></tr></table><pre class='language-py'>x = 1</pre>"
    )

    def make(size: int) -> object:
        root = lxml.html.document_fromstring(f"<body><div>{unit * size}</div></body>")
        return lambda: to_markdown(root, base_url="http://example.com/")

    assert growth(make, 100, 1000) < TENFOLD  # type: ignore[arg-type]


# --- every shared dataset

PAGES_PER_DATASET = os.environ.get("CETD_MARKDOWN_PAGES", "12")
"""Pages read from each dataset: a fixed sample (every n-th page in the manifest's order) of
this many, or ``all`` (``CETD_MARKDOWN_PAGES=all pytest tests/page/test_markdown.py``, a few
minutes). The default keeps the test to a few seconds in ``make test``."""


def sample(pages: list[Page]) -> list[Page]:
    if PAGES_PER_DATASET == "all":
        return pages
    step = max(1, len(pages) // int(PAGES_PER_DATASET))
    return pages[::step]


def dataset_params() -> Iterator[object]:
    root = default_datasets_root()
    if root is None or not Path(root).is_dir():
        yield pytest.param(None, marks=pytest.mark.skip(reason="no shared datasets"))
        return
    for dataset in find_datasets(root):
        yield pytest.param(dataset, id=dataset.name)


@pytest.mark.datasets
@pytest.mark.parametrize("dataset", list(dataset_params()))
def test_markdown_of_shared_pages_reads_back_as_the_same_content(dataset: object) -> None:
    """The Markdown's text is the result's text (modulo whitespace), each data table keeps
    its rows and its non-empty cells, each list item its depth."""
    pages = sample(list(dataset.pages()))  # type: ignore[attr-defined]
    assert pages
    for page in pages:
        url = page.meta.get("url") or None
        result = extract(page.html, url=url, encoding=page.encoding, markdown=True)
        if not result.text:
            assert result.markdown == ""
            continue
        assert result.markdown is not None
        assert squeezed(markdown_text(result.markdown)) == squeezed(result.text), page.id
        tree = content_tree(result.html)
        assert list_depths(result.markdown) == html_list_depths(tree), page.id
        for table in tables(result.markdown):
            widths = {len(row) for row in table}
            assert len(widths) == 1, page.id  # every row as wide as the header
        assert [n for t in markdown_cells(result.markdown) if (n := len(t))] == [
            n for t in data_table_cells(tree) if (n := len(t))
        ], page.id


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


def test_headings_and_captions_of_zero_width_characters_alone_are_blank() -> None:
    markdown = body_markdown(
        "<body><h2>\u200b</h2><p>Text.</p><table><caption>\u200d</caption><tr><th>a</th>"
        "<th>b</th></tr><tr><td>c</td><td>d</td></tr></table></body>"
    )
    assert markdown.splitlines() == ["Text.", "", "| a | b |", "| --- | --- |", "| c | d |"]


def test_a_list_that_is_the_whole_content_and_items_that_open_with_a_rule_stay_lists() -> None:
    """The extraction's root element is written as any other (a list that is the whole
    extraction was read as a container: no list), and an item opening with ``<hr>`` does not
    read as one rule (``- ---`` is a thematic break; ``- ***`` is an item holding one)."""
    for html in ("<ul><li><hr>a</li><li>b</li></ul>", "<body><ul><li><hr>a</li></ul></body>"):
        markdown = to_markdown(content_tree(html))
        assert list_depths(markdown) == html_list_depths(content_tree(html)), html
        assert [t.type for t in PARSER.parse(markdown)][:3] == [
            "bullet_list_open",
            "list_item_open",
            "hr",
        ]
    assert to_markdown(content_tree("<ol start='3'><li>a</li></ol>")) == "3. a"
    assert to_markdown(content_tree("<pre>x = 1</pre>")) == "```\nx = 1\n```"

"""Readers of the Markdown for the tests of scrapy_cetd.page.markdown: what a CommonMark parser
with GitHub's tables (markdown-it-py) reads back (its text, its tables, the depth of its list
items), and the same read from the HTML, to compare them."""

from __future__ import annotations

import lxml.html
from lxml import etree
from markdown_it import MarkdownIt
from markdown_it.token import Token

from scrapy_cetd.page.dom import local_tag
from scrapy_cetd.page.markdown import to_markdown
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
            out.append(inline_text(token) + " ")
        elif token.type in ("fence", "code_block", "html_block"):
            out.append(token.content + " ")
    return "".join(out)


def inline_text(token: Token) -> str:
    """The text of an inline token as the parser read it in its place (a table's cell holds
    inline content only: its ``1.`` or ``#`` read again as a document would be a list or a
    heading)."""
    out: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "html_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
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


LISTS = ("ul", "ol", "menu", "dir")


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
"""Where a list cannot be written as one (a list in a heading is written as its text). A link
is not: one around a list is a link around blocks, written as its blocks, and one inside these
is inside them."""


def inline_ancestors(element: etree._Element) -> bool:
    return any(local_tag(a) in INLINE for a in element.iterancestors())


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
            row[-1] = " ".join(inline_text(token).split())
    return found

"""Block quotes and lists nested (scrapy_cetd.page.markdown.nesting): each item at its
depth, broken lists of real pages nested, and the bounds of nesting and indentation."""

from __future__ import annotations

import lxml.html
from lxml import etree
from markdownkit import (
    body_markdown,
    html_list_depths,
    list_depths,
    markdown_text,
    squeezed,
    text_of,
    tokens,
)

from scrapy_cetd.page.markdown import to_markdown


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


def test_a_link_around_items_keeps_them_items_of_their_list() -> None:
    """libxml2 keeps a link directly inside a list around its items (``<ul><a><li>``, invalid
    HTML that browsers show as a list of links): the items stay items of the list around the
    link, a list in the link is nested in the item before it, an item in a link inside an
    item is nested in that item, and the link is written once, around the first item's text,
    as any link around blocks."""
    page = (
        "<body><ul><a href='/x'><li>one</li><li>two</li></a></ul>"
        "<ol start='3'><li>zero</li><a href='/y'><li>one</li><ul><li>nested</li></ul></a>"
        "<li>two</li></ol><ul><li>x<a href='/z'><li>in an item</li></a></li></ul></body>"
    )
    markdown = body_markdown(page)
    assert markdown == (
        "- [one](/x)\n- two\n\n3. zero\n4. [one](/y)\n   - nested\n5. two\n\n"
        "- x\n  - [in an item](/z)"
    )
    root = lxml.html.document_fromstring(page)
    assert list_depths(markdown) == html_list_depths(root) == [1, 1, 1, 1, 2, 1, 1, 2]
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))

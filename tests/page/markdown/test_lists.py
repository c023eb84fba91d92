"""Lists (scrapy_cetd.page.markdown.lists): their numbers, an item that opens with a rule,
a list that is the whole content, and what follows a list directly inside a list or an item
that holds lists alone."""

from __future__ import annotations

import lxml.html
from markdownkit import (
    PARSER,
    body_markdown,
    html_list_depths,
    list_depths,
    markdown_text,
    squeezed,
    text_of,
)

from scrapy_cetd.page.finish import content_tree
from scrapy_cetd.page.markdown import to_markdown


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


def test_content_after_an_item_that_holds_lists_alone_is_not_its_text() -> None:
    """What lies directly in a list after an ``<li>`` that holds nothing but a list (or
    nothing) was that item's text: an item of text the page does not have, where browsers show
    the text outside any item. It is written between two lists, as after a list directly
    inside a list; an item of text of its own keeps what follows it."""
    page = (
        "<body><ul><li><ul><li>a</li></ul></li>tail text<li>b</li></ul>"
        "<ol start='3'><li><ol><li>c</li></ol></li><h3>Title</h3><li>d</li></ol>"
        "<ul><li></li>after an empty item<li>e</li><li>f</li>after f</ul></body>"
    )
    markdown = body_markdown(page)
    root = lxml.html.document_fromstring(page)
    assert list_depths(markdown) == html_list_depths(root) == [2, 1, 2, 1, 1, 1]
    assert markdown.splitlines() == [
        "- - a",
        "",
        "tail text",
        "",
        "- b",
        "",
        "3. 1. c",
        "",
        "### Title",
        "",
        "4. d",
        "",
        "after an empty item",
        "",
        "- e",
        "",
        "- f",
        "",
        "  after f",
    ]
    assert squeezed(markdown_text(markdown)) == squeezed(text_of(page))


def test_ordered_list_numbers_stay_nine_digits() -> None:
    markdown = body_markdown("<body><ol start='999999999'><li>a</li><li>b</li></ol></body>")
    assert markdown.splitlines() == ["999999999. a", "999999999. b"]
    assert squeezed(markdown_text(markdown)) == "ab"


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


def test_dir_and_menu_are_written_as_unordered_lists() -> None:
    """Browsers show ``<menu>`` and the obsolete ``<dir>`` as they show ``<ul>``: each is an
    unordered list, nested as ``<ul>`` is, and CommonMark reads it back as one."""
    for tag in ("dir", "menu"):
        inner = f"<{tag}><li>in</li></{tag}>"
        page = f"<body><p>Intro</p><{tag}><li>one</li><li>two{inner}</li></{tag}></body>"
        markdown = body_markdown(page)
        assert markdown == body_markdown(page.replace(tag, "ul")), tag
        assert markdown.splitlines() == ["Intro", "", "- one", "- two", "  - in"]
        assert [t.type for t in PARSER.parse(markdown)].count("bullet_list_open") == 2
        assert list_depths(markdown) == html_list_depths(lxml.html.document_fromstring(page))
        assert list_depths(markdown) == [1, 1, 2]

"""The walk (scrapy_cetd.page.markdown.writer): Markdown only when asked, trees deeper than
recursion allows, linear time, and the Markdown of pages of every shared dataset read back by
a CommonMark parser as the same content."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from pathlib import Path

import lxml.html
import pytest
from conftest import HTML_BLOCKS, block_between_spans
from lxml import etree
from markdownkit import (
    html_list_depths,
    inline_ancestors,
    list_depths,
    markdown_text,
    squeezed,
    tables,
)
from ratios import TENFOLD, growth

from scrapy_cetd import extract
from scrapy_cetd.evaluation.datasets import Page, default_datasets_root, find_datasets
from scrapy_cetd.page.dom import UNSHOWN_CONTENT_TAGS, local_tag
from scrapy_cetd.page.finish import content_tree
from scrapy_cetd.page.markdown import to_markdown
from scrapy_cetd.page.output import element_text


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


def test_nested_links_without_a_destination_are_read_once() -> None:
    """Only a link with a destination is asked whether it holds blocks: anchors (``<a name>``)
    nested in one another would each read the whole chain below them."""

    def make(size: int) -> object:
        root = lxml.html.Element("body")
        node = root
        for _ in range(size):
            node = etree.SubElement(etree.SubElement(node, "a", name="x"), "div")
        node.text = "deep text"
        return lambda: to_markdown(root)

    assert growth(make, 100, 1000) < TENFOLD  # type: ignore[arg-type]


@pytest.mark.parametrize("tag", HTML_BLOCKS)
def test_the_markdown_and_the_text_separate_the_words_of_every_block(tag: str) -> None:
    """Read back, the Markdown has the text's words, not only its characters: each block of
    HTML is a block of the Markdown and a line of the text (``<details>``, ``<legend>``,
    ``<center>``... were blocks of the Markdown only, and the text glued their words to their
    neighbours')."""
    body = content_tree(block_between_spans(tag))
    text = element_text(body)
    assert markdown_text(to_markdown(body)).split() == text.split() == ["Alpha", "Beta", "Gamma"]


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


PAGES_PER_DATASET = os.environ.get("CETD_MARKDOWN_PAGES", "12")
"""Pages read from each dataset: a fixed sample (every n-th page in the manifest's order) of
this many, or ``all`` (``CETD_MARKDOWN_PAGES=all pytest tests/page/markdown/test_writer.py``, a
few minutes). The default keeps the test to a few seconds in ``make test``."""


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

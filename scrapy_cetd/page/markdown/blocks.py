"""Where blocks go and how they are joined: :class:`Container` holds the blocks of the
document, a block quote or a list item, and writes them separated by blank lines; and a code
block's fence (:func:`fence`, :func:`language`).

A container keeps its blocks with their kind until it is written, because what separates
two blocks depends on both (a list right after its item's paragraph stays tight) and because
a list item that holds lists alone is written as more than one block (:mod:`.lists`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from scrapy_cetd.page.dom import code_line_class
from scrapy_cetd.page.markdown.escape import longest_run
from scrapy_cetd.page.markdown.inline import Inline
from scrapy_cetd.page.markdown.tags import BLOCK_BOXES
from scrapy_cetd.result import blank

_NAME = r"([\w#+.-]{1,40})$"
"""A language's name, at the end of a class."""
_LANGUAGE = re.compile(r"^(?:language|lang)-" + _NAME)
_WRAPPER_LANGUAGE = re.compile(r"^(?:language-|lang-|highlight-(?:source-)?)" + _NAME)
"""A language named by a class of an element around a ``<pre>``: ``language-…`` or
``lang-…`` (Jekyll's Rouge: ``<div class="language-ruby highlighter-rouge">``), Sphinx's
``highlight-…`` (Pygments' wrapper: ``<div class="highlight-python notranslate">``) and
GitHub's ``highlight-source-…``."""
_NO_LANGUAGE = frozenset({"default", "none"})
"""The names of no language, which a fence's info string would give as one: Sphinx's
``highlight-default`` (the project's default lexer, which the page does not name) and
``highlight-none``, Prism's ``language-none`` and Stack Exchange's ``lang-none`` (no
highlighting). Plain text's names (``text``, ``plaintext``, ``txt``, ``plain``) are kept:
highlighters and renderers (Prism, highlight.js, Shiki, GitHub, Pygments) read them as plain
text."""
_WRAPPER_LEVELS = 2
"""The elements around a ``<pre>`` read for its language: Sphinx and Rouge wrap it in two."""


@dataclass
class Container:
    """Where blocks go: the root, a block quote or a list item."""

    kind: str
    blocks: list[tuple[str, list[str]]] = field(default_factory=list)
    paragraph: Inline = field(default_factory=Inline)
    last_list: str = ""
    """The marker of the list just written here, so that a list right after it gets the other
    marker (CommonMark would join two lists of the same marker into one)."""
    lists_only: bool = False
    """An item that holds lists alone: one made for a list directly inside a list before any
    ``<li>`` (no item of the page), or an ``<li>`` that closed holding nothing but lists (or
    nothing). What lay directly in the list after it is written outside the list (see
    :meth:`.lists.List.as_blocks`), where browsers show it, not as an item's text."""

    def flush(self) -> None:
        """End the paragraph being written: a block, unless it is blank."""
        text = self.paragraph.value()
        if not blank(text):
            self.blocks.append(("paragraph", text.split("\n")))
            self.last_list = ""
        self.paragraph = Inline()

    def add(self, kind: str, lines: list[str]) -> None:
        """Add a block of ``kind`` after the paragraph being written; nothing for no lines."""
        self.flush()
        if lines:
            self.blocks.append((kind, lines))
            if not kind.endswith("list"):
                self.last_list = ""

    def lines(self) -> list[str]:
        """The blocks' lines, a blank line between two blocks (none between an item's
        paragraph and the list after it)."""
        self.flush()
        out: list[str] = []
        previous = ""
        for kind, lines in self.blocks:
            # a list interrupts the paragraph of its item: no blank line, the list stays tight
            if out and not (self.kind == "item" and previous == "paragraph" and kind == "list"):
                out.append("")
            out.extend(lines)
            previous = kind
        return out


def fence(raw: list[str], language: str) -> list[str]:
    """The lines of a fenced code block of the text ``raw``, longer than any run of backticks
    inside; none when it holds only whitespace."""
    code = "".join(raw).strip("\n")
    if not code.strip():
        return []
    ticks = "`" * max(3, longest_run(code, "`") + 1)
    return [ticks + language, *code.split("\n"), ticks]


def language(element: etree._Element) -> str:
    """The language a ``<pre>`` or ``<code>`` names by a ``language-…`` or ``lang-…`` class;
    ``""`` for none, and for a name of no language (:data:`_NO_LANGUAGE`)."""
    for name in (element.get("class") or "").split():
        match = _LANGUAGE.match(name)
        if match is not None:
            return "" if match.group(1) in _NO_LANGUAGE else match.group(1)
    return ""


def code_line(element: etree._Element, tag: str) -> bool:
    """Whether ``element`` (of ``tag``), inside code, is a line of its own: a block
    (:data:`.tags.BLOCK_BOXES`: CodeMirror's ``<div class="cm-line">``) or an element of the
    class of a line (:func:`~scrapy_cetd.page.dom.code_line_class`: Shiki's ``<span
    class="line">``), as the text breaks its line there."""
    return tag in BLOCK_BOXES or code_line_class(element)


def wrapper_language(pre: etree._Element) -> str:
    """The language the elements around ``pre`` name (:data:`_WRAPPER_LANGUAGE`), up to
    :data:`_WRAPPER_LEVELS` of them, each holding nothing but the one inside it: a wrapper
    around more than the code block (``<div class="lang-en">`` around an article) names the
    language of more than it. That is asked of the inner element's neighbours: ``len`` counts
    the outer one's children, for each code block of a page of many in one element."""
    inner = pre
    for _ in range(_WRAPPER_LEVELS):
        outer = inner.getparent()
        if (
            outer is None
            or inner.getprevious() is not None
            or inner.getnext() is not None
            or not blank(outer.text or "")
            or not blank(inner.tail or "")
        ):
            return ""
        for name in (outer.get("class") or "").split():
            match = _WRAPPER_LANGUAGE.match(name)
            if match is not None and match.group(1) not in _NO_LANGUAGE:
                return match.group(1)
        inner = outer
    return ""

"""The walk that writes a tree as Markdown: :func:`to_markdown`.

:class:`Writer` walks the tree once with :func:`lxml.etree.iterwalk` (no recursion: trees
nest 10,000 deep), after one pass over its tables (:mod:`.layout`), and hands each element to
what writes its kind: inline elements to :class:`.spans.Spans`, block quotes and lists to
:class:`.nesting.Nesting`, data tables to :class:`.tables.Tables`; it writes headings, code
blocks and rules itself. The walk is linear in the tree: every element's text is appended
once, and a frame (:mod:`.frames`) holds what its element produced until it closes.
"""

from __future__ import annotations

import re

from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import deep_proxies, local_tag
from scrapy_cetd.page.markdown.blocks import code_line, fence, language, wrapper_language
from scrapy_cetd.page.markdown.frames import Frame, Stack
from scrapy_cetd.page.markdown.inline import Inline
from scrapy_cetd.page.markdown.layout import layout_tables
from scrapy_cetd.page.markdown.nesting import Nesting
from scrapy_cetd.page.markdown.spans import Spans
from scrapy_cetd.page.markdown.tables import Tables
from scrapy_cetd.page.markdown.tags import (
    BLOCKS,
    HEADINGS,
    LISTS,
    ROW_GROUPS,
    SKIPPED,
)
from scrapy_cetd.result import blank

_CLOSING = re.compile(r"(?:^| )#+$")
"""The end of a heading's text that would read as its closing sequence of ``#``."""


def to_markdown(root: etree._Element, *, base_url: str | None = None) -> str:
    """``root`` and everything below it as Markdown (see :mod:`scrapy_cetd.page.markdown`);
    links and images are resolved against ``base_url`` when it is given. ``root`` is read,
    never modified."""
    held = deep_proxies(root)  # freed after the writer's, deepest first
    writer = Writer(root, base_url)
    try:
        return writer.run()
    finally:  # the writer's proxies go while every proxy is held (a traceback keeps the writer)
        writer.clear()
        del held


class Writer:
    """One :func:`to_markdown` call: the walk, and the writers of each kind of element."""

    def __init__(self, root: etree._Element, base_url: str | None) -> None:
        self.root = root
        self.stack = Stack()
        self.spans = Spans(self.stack, base_url)
        self.nesting = Nesting(self.stack)
        self.tables = Tables(self.stack, layout_tables(root))

    def clear(self) -> None:
        """Let go of the elements the writer holds (its frames' and the layout tables)."""
        self.tables.layout.clear()
        self.stack.frames.clear()

    def run(self) -> str:
        """The Markdown of the whole tree."""
        walker = etree.iterwalk(self.root, events=("start", "end"))
        tags: list[str | None] = []  # of the open elements: an element's end gets its start's
        steps = 0
        for event, element in walker:
            steps += 1
            if steps & CHECK_EVERY == CHECK_EVERY:
                check_deadline("writing the Markdown")
            if event == "start":
                tag = local_tag(element)
                if tag in SKIPPED:
                    tag = None
                tags.append(tag)
                if tag is None:
                    walker.skip_subtree()  # its end still comes
                    continue
                self._start(element, tag)
                self.stack.text(element.text)
            else:
                tag = tags.pop()
                if tag is not None:
                    self._end(element, tag)
                if element is not self.root:  # the root's tail lies outside what is written
                    self.stack.text(element.tail)
        return "\n".join(self.stack.top.lines())

    def _start(self, element: etree._Element, tag: str) -> None:
        stack = self.stack
        if stack.raw_depth:
            if tag == "br":
                stack.code_break()
                return
            if tag == "code" and stack.last.kind == "pre" and not stack.last.language:
                stack.last.language = language(element)
            if code_line(element, tag):
                stack.code_line()
            return
        if tag == "br":
            self.spans.br()
        elif tag in ("img", "amp-img"):
            self.spans.image(element)
        elif tag == "hr":
            if not stack.inline_depth:
                stack.container().add("rule", ["---"])
        else:
            frame = self._open(element, tag)
            if frame is not None:
                stack.frames.append(frame)

    def _open(self, element: etree._Element, tag: str) -> Frame | None:
        """The frame ``element`` opens, if it is one that produces something."""
        stack = self.stack
        inline = stack.inline_depth > 0
        if tag in ROW_GROUPS and stack.last.table is not None:
            return None  # its rows go to the table
        frame = self.tables.open(element, tag, inline=inline)
        if frame is not None:
            return frame
        if tag in BLOCKS or tag in LISTS:
            stack.boundary()
        if inline:
            return self.spans.open(element, tag)
        if tag in HEADINGS:
            stack.inline_depth += 1
            return Frame(element, tag, inline=Inline(heading=True))
        if tag == "pre":
            stack.raw_depth += 1
            return Frame(element, "pre", raw=[], language=language(element))
        if tag == "blockquote" or tag in LISTS:
            return self.nesting.open(element, tag)
        if tag == "li":
            return self.nesting.item(element)
        if tag == "a":
            return self.spans.open_block_link(element) or self.spans.open(element, tag)
        return self.spans.open(element, tag)

    def _end(self, element: etree._Element, tag: str) -> None:
        stack = self.stack
        link = stack.block_link
        if link is not None and element is link.heading:  # without the link's text, the
            link.heading = None  # next heading or paragraph with text gets it
        if stack.last.element is not element:
            if stack.raw_depth:
                if code_line(element, tag):
                    stack.code_line()
            elif (tag in BLOCKS or tag in LISTS) and tag != "br":
                stack.boundary()
            return
        while stack.last.element is element:
            self._close(stack.frames.pop(), element)
        if tag in BLOCKS or tag in LISTS:
            stack.boundary()

    def _close(self, frame: Frame, element: etree._Element) -> None:
        """Write what ``frame``, opened by ``element``, produced where it goes."""
        kind = frame.kind
        if kind in ("code", "a", "emphasis"):
            self.spans.close(frame)
        elif kind == "block link":
            self.spans.close_block_link()
        elif kind in ("quote", "list"):
            self.nesting.close(frame)
        elif kind == "li":
            self.nesting.close_item(frame)
        elif kind in ("cell", "tr", "caption", "table"):
            self.tables.close(frame, element)
        elif kind == "pre":
            self.stack.raw_depth -= 1
            code_language = frame.language or wrapper_language(element)
            self.stack.container().add("code", fence(frame.raw or [], code_language))
        elif kind in HEADINGS:
            self.stack.inline_depth -= 1
            text = (frame.inline or Inline()).value().replace("\\\n", " ")
            if not blank(text):
                if _CLOSING.search(text) is not None:  # it would close the heading: "# C#" does not
                    text = text[:-1] + "\\#"
                self.stack.container().add("heading", ["#" * HEADINGS[kind] + " " + text])

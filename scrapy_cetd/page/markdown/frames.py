"""The open elements of the writer's walk: a :class:`Frame` for each element that produces
something when it closes (a heading, a list, a link, a table's cell...), and the
:class:`Stack` of them, which says where text, inline Markdown and blocks go.

The walk does not recurse (trees nest 10,000 deep): what an element produced waits in its
frame until the element closes, and is then written into the frame around it.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from scrapy_cetd.page.markdown.blocks import Container
from scrapy_cetd.page.markdown.grid import Cell, Table
from scrapy_cetd.page.markdown.inline import BlockLink, Inline
from scrapy_cetd.page.markdown.lists import List


@dataclass
class Frame:
    """An open element of the walk that produces something when it closes."""

    element: etree._Element
    kind: str
    inline: Inline | None = None
    container: Container | None = None
    listing: List | None = None
    table: Table | None = None
    row: list[Cell] | None = None
    raw: list[str] | None = None
    line_due: bool = False
    """In code: a line of its own started or ended (:func:`.blocks.code_line`), so that the
    next text starts a line, unless the code breaks the line itself (:func:`_code_text`)."""
    line_start: bool = True
    """In code: at a line's start, whitespace aside (nothing written yet, or a newline since
    the last character that is not whitespace)."""
    language: str = ""
    wrap: str = ""
    href: str | None = None
    indent: int = 0
    """The columns a block quote or a list adds to its lines (see :mod:`.nesting`)."""


class Stack:
    """The frames open in one walk, innermost last, and the depths of the kinds that change
    how text is written."""

    def __init__(self) -> None:
        self.top = Container("root")
        # The root's own element is written as any other (a list, a table, a code block that
        # is the whole extraction); the frame that holds the document belongs to none.
        self.frames: list[Frame] = [Frame(etree.Element("document"), "root", container=self.top)]
        self.inline_depth = 0
        """Frames open that write inline Markdown: a block inside them is a space."""
        self.raw_depth = 0
        """Code blocks and code spans open: their text is written as it is."""
        self.table_depth = 0
        """Data tables open: a code span's ``|`` is escaped in them."""
        self.block_link: BlockLink | None = None
        """The link around blocks open."""

    @property
    def last(self) -> Frame:
        """The innermost frame."""
        return self.frames[-1]

    @property
    def holder(self) -> Frame:
        """The innermost frame but a link around blocks: the list or item that what comes next
        belongs to. libxml2 keeps a link directly inside a list around its items (``<ul><a>
        <li>``, which browsers show as a list of links): they are items of the list around it.
        Such links do not nest (a link inside one is its text), so one frame at most is passed."""
        last = self.frames[-1]
        return self.frames[-2] if last.kind == "block link" else last

    def sink(self) -> Inline:
        """The inline being written: the innermost inline frame's, else the paragraph of
        :meth:`container`. A heading's or a paragraph's is offered the link around blocks,
        when its heading is the one the link waits for (:attr:`.BlockLink.heading`)."""
        for frame in reversed(self.frames):
            if frame.inline is not None:
                if frame.inline.heading:
                    self._offer(frame.inline, frame.element)
                return frame.inline
            if frame.container is not None or (frame.listing and frame.listing.items):
                break
        paragraph = self.container().paragraph
        self._offer(paragraph, None)
        return paragraph

    def _offer(self, inline: Inline, heading: etree._Element | None) -> None:
        """Offer ``inline`` (of ``heading``, else a paragraph's) the link around blocks, unless
        its text is placed or it waits for another heading."""
        link = self.block_link
        if link is not None and link.href is not None and link.heading in (None, heading):
            inline.offered = link

    def container(self) -> Container:
        """The innermost block container: content directly inside a list (not in an item)
        joins the list's last item (written after it, outside the list, when that item holds
        lists alone), or, before the first item, the container around the list. (A table's
        stray text never comes here: such a table is a layout table.)"""
        for frame in reversed(self.frames):
            if frame.container is not None:
                return frame.container
            if frame.listing is not None and frame.listing.items:
                return frame.listing.items[-1]
        return self.top

    def code(self) -> Frame | None:
        """The innermost code block or code span: the frame whose :attr:`~Frame.raw` is its
        text."""
        for frame in reversed(self.frames):
            if frame.raw is not None:
                return frame
        return None

    def code_break(self) -> None:
        """A ``<br>`` in code: the line ends here."""
        code = self.code()
        if code is not None and code.raw is not None:
            code.raw.append("\n")
            code.line_start, code.line_due = True, False

    def code_line(self) -> None:
        """A line of its own in code starts or ends (:func:`.blocks.code_line`): what comes
        next starts a line (:attr:`Frame.line_due`)."""
        code = self.code()
        if code is not None:
            code.line_due = True

    def text(self, text: str | None) -> None:
        """Write an element's text or tail where it goes: as it is in code (:func:`_code_text`),
        else escaped."""
        if not text:
            return
        if self.raw_depth:
            code = self.code()
            if code is not None and code.raw is not None:
                _code_text(code, code.raw, text)
            return
        self.sink().text(text)

    def boundary(self) -> None:
        """A block starts or ends: a new paragraph, or a space inside an inline."""
        if self.inline_depth:
            self.sink().add_space()
        else:
            self.container().flush()


def _code_text(code: Frame, raw: list[str], text: str) -> None:
    """Append ``text`` to the code of ``code``, after the line break due there
    (:attr:`Frame.line_due`): the code's own when the whitespace the text begins with holds a
    newline (Shiki's lines, a newline between two), none when the line is still empty, and it
    waits while the text is whitespace alone."""
    printed = text.strip()
    if code.line_due:
        lead = text[: len(text) - len(text.lstrip())]
        if "\n" in lead:
            code.line_due = False
        elif printed:
            if not code.line_start:
                raw.append("\n")
            code.line_due = False
    raw.append(text)
    if printed:
        code.line_start = "\n" in text[len(text.rstrip()) :]
    elif "\n" in text:
        code.line_start = True

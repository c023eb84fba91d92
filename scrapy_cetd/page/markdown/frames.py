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
from scrapy_cetd.page.markdown.inline import Inline
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
        self.pending_link: str | None = None
        """The destination of the open link around blocks (:meth:`.Spans.open_block_link`)
        until its text is placed: in :attr:`link_heading`, else in the first heading or
        paragraph that gets text."""
        self.link_heading: etree._Element | None = None
        """The first heading inside that link, which gets its text."""
        self.armed: Inline | None = None
        """The inline that the pending link waits in (:attr:`.Inline.link_at`)."""

    @property
    def last(self) -> Frame:
        """The innermost frame."""
        return self.frames[-1]

    def sink(self) -> Inline:
        """The inline being written: the innermost inline frame's, else the paragraph of
        :meth:`container`. A heading's or a paragraph's waits for the pending link around
        blocks, when it is the one to get it (:meth:`_arm`)."""
        for frame in reversed(self.frames):
            if frame.inline is not None:
                if frame.inline.heading:
                    self._arm(frame.inline, frame.element)
                return frame.inline
            if frame.container is not None or (frame.listing and frame.listing.items):
                break
        paragraph = self.container().paragraph
        self._arm(paragraph, None)
        return paragraph

    def _arm(self, inline: Inline, heading: etree._Element | None) -> None:
        """Make ``inline`` (of ``heading``, or a paragraph's) the one the pending link waits
        in, unless the link is placed already or goes to :attr:`link_heading`; the inline it
        waited in before (a paragraph that ended without text) no longer waits."""
        href = self.pending_link
        if href is None:
            return
        armed = self.armed
        if armed is not None:
            if armed.link_at is None:  # its text opened the link: the link is placed
                self.pending_link = self.armed = None
                return
            if armed is inline:
                return
        if self.link_heading is not None and heading is not self.link_heading:
            return
        if armed is not None:
            armed.link_at = None
        inline.link_at = href
        self.armed = inline

    def end_pending_link(self) -> None:
        """The link around blocks ends: no inline waits for it any more."""
        if self.armed is not None and self.pending_link is not None:
            self.armed.link_at = None
        self.pending_link = self.link_heading = self.armed = None

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

    def raw(self) -> list[str] | None:
        """The text of the innermost code block or code span."""
        for frame in reversed(self.frames):
            if frame.raw is not None:
                return frame.raw
        return None

    def text(self, text: str | None) -> None:
        """Write an element's text or tail where it goes: as it is in code, else escaped."""
        if not text:
            return
        if self.raw_depth:
            raw = self.raw()
            if raw is not None:
                raw.append(text)
            return
        self.sink().text(text)

    def boundary(self) -> None:
        """A block starts or ends: a new paragraph, or a space inside an inline."""
        if self.inline_depth:
            self.sink().add_space()
        else:
            self.container().flush()

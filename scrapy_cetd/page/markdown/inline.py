"""Inline Markdown being written: a paragraph's, or an inline element's before it closes.

:class:`Inline` writes a draft (:mod:`.escape`): the text as it is, the markup marked, so
that the text of the whole block is escaped at once when the block is done (:meth:`value`),
each character knowing what comes before and after it, from whichever element: ``1<b>2</b>.
x`` must escape its ``.``, and ``Q&<b>A</b>`` needs nothing. It keeps what the spaces and
emphasis delimiters depend on (at the start of a line, a space due, the character before).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from scrapy_cetd.page.markdown.escape import label, last_char, markup, plain, resolve
from scrapy_cetd.page.words import collapse_spaces
from scrapy_cetd.result import blank

_BREAK = markup("\\\n")
"""A hard break in a draft."""


@dataclass
class BlockLink:
    """A link around blocks (:meth:`.Spans.open_block_link`), written once: as a link around
    the first text written in :attr:`heading`, else in the first heading or paragraph that
    gets text inside it (:meth:`.Stack.sink` offers them)."""

    href: str | None
    """The link's destination, until its text is placed or the link ends."""
    heading: etree._Element | None
    """The first heading inside the link, until it ends (without text, or written inline)."""


@dataclass
class Inline:
    """Inline Markdown being written: a paragraph's, or an inline element's before it closes."""

    parts: list[str] = field(default_factory=list)
    start: bool = True
    """At the start of a line: nothing written since the paragraph began or the last break."""
    space: bool = False
    """A space is due before what comes next."""
    lead: bool = False
    """The content began with a space (an inline element moves it before its delimiters)."""
    heading: bool = False
    """A heading's text: its line starts with the heading's ``#``, so what would start a list, a
    quote or a heading at the start of a line (``1.``, ``-``, ``>``) is text there."""
    cell: bool = False
    """A table cell's text: a ``|`` would end the cell, and no block starts there."""
    before: str = ""
    """The character before this inline's content in the inline around it, when nothing is
    written here yet: emphasis delimiters must not touch that one either."""
    offered: BlockLink | None = None
    """The link around blocks offered here: it opens at the first text written here, unless
    it is placed elsewhere or ends first (:meth:`open_link`)."""
    href: str | None = None
    """The destination of the link around blocks that what is written here from
    :attr:`linked_from` on belongs to, until :meth:`close_link`."""
    linked_from: int = 0

    def child(self) -> Inline:
        """The inline of an element inside this one, which goes on with this line (its draft
        is escaped with this one's block)."""
        return Inline(start=self.start, before=self.previous())

    def link(self) -> Inline:
        """The inline of a link's text, which starts after the link's ``[``."""
        return Inline(start=False, before="[")

    def last(self) -> str:
        """The last character written, ``""`` when none."""
        for part in reversed(self.parts):
            char = last_char(part)
            if char:
                return char
        return ""

    def previous(self) -> str:
        """The character what comes next follows: a space when one is due, else the last one
        written here or, when none is, the one before this inline's content."""
        return " " if self.space else self.last() or self.before

    def text(self, raw: str) -> None:
        """Append ``raw`` as text, whitespace collapsed (escaped with its block): its words
        joined by one space (``str.split`` splits at the characters ``\\s`` matches, faster
        than a regular expression; a long text piece by piece,
        :func:`~scrapy_cetd.page.words.collapse_spaces`)."""
        text = plain(raw)
        if not text:
            return
        if text[0].isspace():
            self.add_space()
        words = collapse_spaces(text)
        if words:
            self.draft(words)
            if text[-1].isspace():
                self.space = True

    def add_space(self) -> None:
        """A space: before what comes next, or before the content when nothing is written."""
        if not self.parts:
            self.lead = True
        elif not self.start:
            self.space = True

    def markup(self, markdown: str) -> None:
        """Append ``markdown`` as it is (after the space that is due)."""
        if markdown:
            self.draft(markup(markdown))

    def draft(self, draft: str) -> None:
        """Append ``draft``, text and marked markup (:mod:`.escape`), after the space that
        is due (in the link around blocks :attr:`offered` here, the first that is not blank)."""
        link = self.offered
        if link is not None and link.href is not None and not blank(plain(draft)):
            self.open_link(link.href)
            link.href = None
        if self.space and self.parts and not self.start:
            self.parts.append(" ")
        self.space = False
        self.parts.append(draft)
        self.start = False

    def hard_break(self) -> bool:
        """End the line; ``False`` when the line is still empty (a second ``<br>``)."""
        if self.start:
            return False
        self.parts.append(_BREAK)
        self.start = True
        self.space = False
        return True

    def open_link(self, href: str) -> None:
        """What is written here from now on is the text of a link to ``href``."""
        self.href = href
        self.linked_from = len(self.parts)

    def close_link(self) -> None:
        """Write what came after :meth:`open_link` as the link's text: the space before it,
        and the breaks and blank text after it, outside, where :meth:`value` drops a block's
        last break and its blank lines."""
        href = self.href
        if href is None:
            return
        self.href = None
        parts = self.parts
        start, end = self.linked_from, len(parts)
        while start < end and parts[start] == " ":
            start += 1
        while end > start and (parts[end - 1] == _BREAK or blank(plain(parts[end - 1]))):
            end -= 1
        if start < end:
            parts[start:end] = [label("[", "".join(parts[start:end]), href)]

    def content(self) -> str:
        """The draft written, for the inline around this one."""
        return "".join(self.parts)

    def value(self) -> str:
        """The Markdown of the block written, its text escaped, without its blank lines (a
        line between two ``<br>`` that holds zero-width characters alone, as the text drops
        it) and its last break: dropped before the escaping, which reads each line to its
        end."""
        self.close_link()
        if not self.parts:
            return ""
        content = self.content()
        if _BREAK in content:  # a hard break: the only newline inline
            lines = content.split(_BREAK)
            content = _BREAK.join(line for line in lines if not blank(plain(line)))
        line_start = not self.heading and not self.cell
        return resolve(content, line_start=line_start, cell=self.cell).strip(" ")

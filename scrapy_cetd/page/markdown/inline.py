"""Inline Markdown being written: a paragraph's, or an inline element's before it closes.

:class:`Inline` keeps what the escaping of the next piece of text depends on (at the start of
a line, a space due, a line that is a number so far, in a heading), since the text of one line
comes from many elements: ``1<b>2</b>. x`` must still escape its ``.``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from scrapy_cetd.page.markdown.escape import LABEL, SPACES, ends_with, escape
from scrapy_cetd.result import blank

_NUMBER_GOES_ON = re.compile(r"\d*(?=[.)](?: |$))")
"""Text that goes on with the number a line holds so far, up to a ``.`` or ``)`` that would
make it an ordered list item's (``12`` then ``3. x``)."""


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
    number: bool = False
    """The line so far is a number, which a ``.`` or ``)`` would make a list item's."""
    heading: bool = False
    """A heading's text: its line starts with the heading's ``#``, so what would start a list, a
    quote or a heading at the start of a line (``1.``, ``-``, ``>``) is text there."""
    cell: bool = False
    """A table cell's text: a ``|`` would end the cell, and no block starts there."""
    label: bool = False
    """A link's text, between the link's brackets: a ``[`` or ``]`` that no other matches
    would end it early."""
    before: str = ""
    """The character before this inline's content in the inline around it, when nothing is
    written here yet: emphasis delimiters must not touch that one either."""
    label_at: int = -1
    """The part that is a link label at the line's start (``[Netflix Tudum]``), as long as
    what follows it is unknown: a ``:`` right after it would make it a link reference
    definition (then its ``[`` is escaped); anything else, or the line's end, leaves it text."""

    def child(self) -> Inline:
        """The inline of an element inside this one, which goes on with this line."""
        return Inline(
            start=self.start,
            number=self.number and not self.space,
            heading=self.heading,
            cell=self.cell,
            label=self.label,
            before=self.previous(),
        )

    def link(self) -> Inline:
        """The inline of a link's text, which starts after the link's ``[``."""
        return Inline(start=False, heading=self.heading, cell=self.cell, label=True, before="[")

    def last(self) -> str:
        """The last character written, ``""`` when none."""
        for part in reversed(self.parts):
            if part:
                return part[-1]
        return ""

    def previous(self) -> str:
        """The character what comes next follows: a space when one is due, else the last one
        written here or, when none is, the one before this inline's content."""
        return " " if self.space else self.last() or self.before

    def text(self, raw: str) -> None:
        """Append ``raw`` as text: whitespace collapsed, Markdown characters escaped."""
        if not raw:
            return
        collapsed = SPACES.sub(" ", raw)
        if collapsed[0] == " ":
            self.add_space()
        words = collapsed.strip(" ")
        if words:
            at_start = self.start and not self.heading and not self.cell
            escaped = escape(words, line_start=at_start, cell=self.cell, label=self.label)
            goes_on = self.number and not self.space and not self.heading and not self.cell
            digits = _NUMBER_GOES_ON.match(escaped) if goes_on else None
            if digits is not None:  # the line so far is a number: "1" then ". x", "12" "3. x"
                escaped = f"{digits.group()}\\{escaped[digits.end() :]}"
            number = (goes_on or (self.start and len(escaped) < 10)) and escaped.isdigit()
            self.markup(escaped)
            self.number = number
            if at_start and LABEL.fullmatch(escaped) is not None:
                self.label_at = len(self.parts) - 1
        if collapsed[-1] == " " and words:
            self.space = True

    def add_space(self) -> None:
        """A space: before what comes next, or before the content when nothing is written."""
        if not self.parts:
            self.lead = True
        elif not self.start:
            self.space = True

    def markup(self, markdown: str) -> None:
        """Append ``markdown`` as it is (after the space that is due)."""
        if not markdown:
            return
        if self.label_at >= 0:
            if markdown[0] == ":" and not self.space:
                self.settle()
            self.label_at = -1
        if self.space and self.parts and not self.start:
            self.parts.append(" ")
        elif self.parts and markdown[0] == "[" and ends_with(self.parts[-1], "!"):
            self.parts[-1] = self.parts[-1][:-1] + "\\!"  # "![" would open an image
        elif self.parts and markdown[0] == "(" and ends_with(self.parts[-1], "]"):
            markdown = "\\" + markdown  # "](" would end a link's text and open its URL
        self.space = False
        self.parts.append(markdown)
        self.start = False
        self.number = False

    def settle(self) -> None:
        """Escape the ``[`` of the label at the line's start (see :attr:`label_at`): what
        follows it will be written elsewhere, unknown here."""
        if self.label_at >= 0:
            self.parts[self.label_at] = "\\" + self.parts[self.label_at]
            self.label_at = -1

    def hard_break(self) -> bool:
        """End the line; ``False`` when the line is still empty (a second ``<br>``)."""
        if self.start:
            return False
        self.parts.append("\\\n")
        self.label_at = -1
        self.start = True
        self.space = False
        self.number = False
        return True

    def value(self) -> str:
        """The Markdown written, without its blank lines (a line between two ``<br>`` that
        holds zero-width characters alone, as the text drops it) and its last break."""
        lines = "".join(self.parts).split("\\\n")  # a hard break: the only newline inline
        return "\\\n".join(line for line in lines if not blank(line)).strip(" ")

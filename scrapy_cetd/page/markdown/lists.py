"""Lists as CommonMark lists: :class:`List` holds the items of one list and writes each
item's lines indented under its marker, so that what an item holds (nested lists, paragraphs,
code) stays in it; an ``<ol>`` keeps its ``start`` (:func:`list_start`).

A list directly inside a list before any ``<li>`` (a common error of real pages) is held by
an item made for it (:attr:`.blocks.Container.lists_only`): what lay directly in the outer
list after it is written between two lists, not as the text of an item the page does not
have; and so is what lay directly in the list after an ``<li>`` that holds lists alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from scrapy_cetd.page.dom import local_tag
from scrapy_cetd.page.markdown.blocks import Container

_MAX_START = 999_999_999
"""The largest number of an ordered list's item: CommonMark reads nine digits at most (the
numbers after the first only need to be numbers)."""


@dataclass
class List:
    """One list being written: its kind, its first number, its marker and its items."""

    ordered: bool
    start: int
    marker: str
    items: list[Container] = field(default_factory=list)

    def item(self) -> Container:
        """The last item, or one made for what comes before the list's first ``<li>``."""
        if not self.items:
            self.items.append(Container("item", lists_only=True))
        return self.items[-1]

    def as_blocks(self) -> list[tuple[str, list[str]]]:
        """The list as blocks of the container around it: one list, or, when an item that holds
        lists alone holds what lay directly in the list after them (text, a heading...), the
        lists before and after that content and the content between them. Kept in the item,
        that content would be the text of an item the page does not have."""
        out: list[tuple[str, list[str]]] = []
        rendered: list[list[str]] = []
        number = self.start
        for item in self.items:
            for kind, lines in _item_parts(item):
                if kind == "item":
                    rendered.append(lines)
                    continue
                if rendered:
                    out.append(self._list(rendered, number))
                    number += len(rendered)
                    rendered = []
                out.append((kind, lines))
        if rendered:
            out.append(self._list(rendered, number))
        return out

    def _list(self, rendered: list[list[str]], start: int) -> tuple[str, list[str]]:
        """The items ``rendered`` as a list whose first number is ``start``."""
        loose = any(len(lines) > 1 and "" in lines for lines in rendered)
        out: list[str] = []
        number = start
        for lines in rendered:
            marker = f"{min(number, _MAX_START)}{self.marker}" if self.ordered else self.marker
            number += 1
            indent = " " * (len(marker) + 1)
            if out and loose:
                out.append("")
            first = lines[0]
            if first == "---" and self.marker in "-*":  # "- ---" would read as one rule
                first = "***" if self.marker == "-" else "___"
            out.append(f"{marker} {first}")
            out.extend(f"{indent}{line}" if line else "" for line in lines[1:])
        # an ordered list that starts at another number cannot interrupt a paragraph
        return ("late list" if self.ordered and start != 1 else "list"), out


def _item_parts(item: Container) -> list[tuple[str, list[str]]]:
    """``item`` as ``("item", lines)``; an item that holds lists alone (see
    :attr:`.blocks.Container.lists_only`) as an item for each run of its lists and, between
    them, the other blocks it holds as they are."""
    if not item.lists_only:
        lines = item.lines()
        return [("item", lines)] if lines else []
    item.flush()
    out: list[tuple[str, list[str]]] = []
    run: list[tuple[str, list[str]]] = []
    for kind, lines in [*item.blocks, ("", [])]:  # a last block of no kind ends the last run
        if kind.endswith("list"):
            run.append((kind, lines))
            continue
        if run:
            out.append(("item", Container("item", run).lines()))
            run = []
        if kind:
            out.append((kind, lines))
    return out


def marker_width(element: etree._Element) -> int:
    """The characters of an ordered list's widest marker: its last item's number and a dot."""
    items = sum(1 for child in element if local_tag(child) == "li")
    return len(str(min(list_start(element) + max(items, 1) - 1, _MAX_START))) + 1


def list_start(element: etree._Element) -> int:
    """The number of an ordered list's first item: its ``start``, within :data:`_MAX_START`."""
    start = (element.get("start") or "").strip()
    digits = start.isascii() and start.isdigit()  # "²" is a digit that int() refuses
    return min(int(start), _MAX_START) if digits and len(start) < 10 else 1

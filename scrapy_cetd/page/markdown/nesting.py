"""Block quotes, lists and their items in the walk, within the bounds of nesting and
indentation: :class:`Nesting` opens a frame for each, nests the broken lists of real pages
(a list directly inside a list, an item directly inside an item, items inside a link
inside a list) and writes each as its blocks when it closes.

Each level indents or prefixes every line of what it holds again, so that lists and quotes
nested more than :data:`_MAX_NESTING` deep, or whose indentation would pass
:data:`_MAX_INDENT` columns, are written as the blocks they hold, inside the deepest one.
"""

from __future__ import annotations

from lxml import etree

from scrapy_cetd.page.dom import local_tag
from scrapy_cetd.page.markdown.blocks import Container
from scrapy_cetd.page.markdown.frames import Frame, Stack
from scrapy_cetd.page.markdown.lists import List, list_start, marker_width
from scrapy_cetd.page.markdown.tags import LISTS

_MAX_NESTING = 8
"""Block quotes and lists nested deeper than this are written as the blocks they hold, inside
the deepest one. Each level indents or prefixes every line of what it holds again, so that
deeper nesting would cost the number of levels times the number of lines; and CommonMark
parsers stop at some depth (markdown-it's CommonMark preset reads nine lists deep, where the
tenth stops its reading of the document)."""
_ITEM_REACH = 32
"""Levels an item may lie below the item it is nested in (``<li>x<dd><li>``): further down,
it is written as the blocks it holds (the walk up stays short in a tree thousands deep)."""
_MAX_INDENT = 24
"""Columns of indentation the open block quotes and lists may add to each of their lines (a
quote two, a list its widest marker and a space): deeper ones are written as the blocks they
hold. Eight lists of ``-`` or of fewer than ten items fit; lists numbered from nine digits
would indent each line of their content by eleven columns a level, a page of short lines by
many times its text."""


class Nesting:
    """The block quotes and lists open in one walk, and the columns they indent."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.depth = 0
        """The block quotes and lists open (at most :data:`_MAX_NESTING`)."""
        self.indent = 0
        """The columns they add to each line (at most :data:`_MAX_INDENT`)."""

    def open(self, element: etree._Element, tag: str) -> Frame | None:
        """The frame of a block quote or a list; ``None`` past the bounds, where it is
        written as the blocks it holds."""
        width = marker_width(element) + 1 if tag == "ol" else 2
        if self.depth >= _MAX_NESTING or self.indent + width > _MAX_INDENT:
            return None
        self.depth += 1
        self.indent += width
        if tag == "blockquote":
            return Frame(element, "quote", container=Container("quote"), indent=width)
        # a list directly inside a list is nested in its last item (or in an item of its own)
        outer = self.stack.holder.listing
        container = outer.item() if outer is not None else self.stack.container()
        ordered = tag == "ol"
        number = list_start(element) if ordered else 1
        usual, other = (".", ")") if ordered else ("-", "*")
        marker = other if container.last_list == usual else usual
        return Frame(element, "list", listing=List(ordered, number, marker), indent=width)

    def item(self, element: etree._Element) -> Frame | None:
        """The frame of an ``<li>`` in the open list; ``None`` outside a list."""
        stack = self.stack
        nested = self.depth < _MAX_NESTING and self.indent + 2 <= _MAX_INDENT
        if stack.holder.kind == "li" and nested and self._in_item(element):
            # an item directly inside an item (libxml2 does not close the first): a list of
            # its own, nested, that ends with it
            self.depth += 1
            self.indent += 2
            stack.frames.append(Frame(element, "list", listing=List(False, 1, "-"), indent=2))
        listing = stack.holder.listing
        if listing is None:
            return None
        item = Container("item")
        listing.items.append(item)
        return Frame(element, "li", container=item)

    def close_item(self, frame: Frame) -> None:
        """An ``<li>`` ends, its paragraph written: when it holds lists alone (or nothing), what
        lies directly in the list after it is no text of it
        (:attr:`.blocks.Container.lists_only`)."""
        item = frame.container
        if item is not None:
            item.flush()
            item.lists_only = all(kind.endswith("list") for kind, _ in item.blocks)

    def _in_item(self, element: etree._Element) -> bool:
        """Whether ``element`` lies in the open item with no list between them: an item that
        libxml2 left inside an item (not one of a list written as the blocks it holds)."""
        item = self.stack.holder.element
        node = element.getparent()
        for _ in range(_ITEM_REACH):
            if node is None or node is item or local_tag(node) in LISTS:
                break
            node = node.getparent()
        return node is item

    def close(self, frame: Frame) -> None:
        """Write a block quote or a list, as blocks of the container around it."""
        self.depth -= 1
        self.indent -= frame.indent
        container = self.stack.container()
        if frame.listing is None:
            lines = (frame.container or Container("quote")).lines()
            container.add("quote", [f"> {line}" if line else ">" for line in lines])
            return
        blocks = frame.listing.as_blocks()
        for kind, lines in blocks:
            container.add(kind, lines)
        if blocks and blocks[-1][0].endswith("list"):
            container.last_list = frame.listing.marker

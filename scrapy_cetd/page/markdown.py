"""The main content as Markdown (CommonMark with GitHub's tables and strikethrough).

:func:`to_markdown` writes the tree of an extraction's HTML (``ExtractionResult.html`` parsed
again, see :func:`scrapy_cetd.page.output.content_tree`) as Markdown that a CommonMark parser
reads back as the same text, in the same structure:

- headings as ATX headings (``## ...``), paragraphs separated by a blank line, ``<br>`` as a
  hard line break (``\\`` at the end of the line), ``<hr>`` as ``---``;
- lists as CommonMark lists, each item's content indented under its marker so that nested lists
  stay nested; an ``<ol>`` keeps its ``start``; a list directly inside a list (a common error of
  real pages) is nested in the item before it, or before any item in an item of its own, and
  what follows it directly in the list (a group's title) is written between two lists, not as
  that item's text; lists and block quotes nested more than
  eight deep (:data:`_MAX_NESTING`), or whose indentation would pass 24 columns
  (:data:`_MAX_INDENT`), are written as the blocks they hold;
- ``<pre>`` as a fenced code block, longer than any run of backticks inside it, with the
  language of a ``class="language-…"`` (or ``lang-…``) on the ``<pre>`` or its ``<code>``;
  ``<code>``, ``<kbd>``, ``<samp>`` and ``<tt>`` as code spans;
- data tables as GitHub tables: the first row is the header row, every row has as many cells as
  the widest (beyond :data:`_GRID_GROWTH` times the table's cells, or :data:`_MAX_GRID`, the
  rows after the header stop at their last cell, which GitHub's tables fill in, and the spans
  are not filled: the Markdown stays as large as the table), a cell spanning
  several columns or rows (``colspan`` / ``rowspan``) leaves empty cells where it spans, so
  the columns stay aligned, and ``|`` is escaped. A table used for layout (a cell holding
  paragraphs, headings, lists, a code block, a quote or another table, or text outside its
  cells, or a single cell) is written as the blocks it holds;
- block quotes with ``>``, links as ``[text](url)`` and images (``<img>``, AMP's
  ``<amp-img>``) as ``![alt](src)``, both made
  absolute against ``base_url`` (the page's URL joined with its ``<base href>``);
  ``javascript:`` links keep their text only;
- ``<b>``/``<strong>`` as ``**``, ``<i>``/``<em>`` as ``*``, ``<del>``/``<s>`` as ``~~``, where
  the delimiters can open and close (the emphasised text starts and ends with a letter or a
  digit); elsewhere the text is written plain.

Literal characters that would change the meaning are escaped with a backslash: ``\\``,
``` ` ```, ``[``, ``]``, ``<``, ``|`` and ``~`` everywhere; ``*`` unless it stands between two
spaces; ``_`` unless it stands between two letters or digits (``snake_case``); ``&`` before
what could be an entity; at the start of a line ``#``, ``>``, ``-``, ``+``, ``=`` and the ``.``
or ``)`` of a number (``1986\\. That year``). A ``[`` is always escaped because whether it
opens a link depends on text up to a ``]`` that may lie in another element.

The text is the one :func:`~scrapy_cetd.page.output.element_text` reads from the same tree:
whitespace is collapsed, nothing is added but the Markdown syntax and image descriptions.

The walk is one pass of :func:`lxml.etree.iterwalk` (no recursion: trees nest 10,000 deep),
plus one for pages with tables, linear in the tree: every element's text is appended once, and
a frame of the walk holds what its element produced until it closes.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from urllib.parse import urljoin

from lxml import etree

from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.dom import BLOCK_TAGS, UNSHOWN_CONTENT_TAGS, deep_proxies, local_tag
from scrapy_cetd.result import blank

__all__ = ["to_markdown"]

_CHECK_EVERY = 4095

_SPACES = re.compile(r"\s+")
_ESCAPED = re.compile(r"[\\`\[\]<|~]|&(?=[#A-Za-z0-9])")
"""Characters escaped wherever they are (see the module's docstring)."""
_LINE_START = re.compile(r"[#>+=-]|\d{1,9}(?=[.)](?: |$))")
"""At the start of a line: a character that would start a heading, a quote, a list item, a
setext underline or a thematic break, or the number of an ordered list item (whose ``.`` or
``)`` is escaped)."""
_NUMBER_GOES_ON = re.compile(r"\d*(?=[.)](?: |$))")
"""Text that goes on with the number a line holds so far, up to a ``.`` or ``)`` that would
make it an ordered list item's (``12`` then ``3. x``)."""
_LANGUAGE = re.compile(r"^(?:language|lang)-([\w#+.-]{1,40})$")
_URL_UNSAFE = str.maketrans(
    {" ": "%20", "<": "%3C", ">": "%3E", "(": "%28", ")": "%29", "|": "%7C", "\\": "%5C"}
)
"""Characters of a URL written as ``%XX`` in a link destination (equivalent in a URL)."""

_NOT_LINKS = ("javascript:", "vbscript:", "file:", "data:")
"""Schemes CommonMark parsers refuse as link destinations (markdown-it's ``validateLink``)."""
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*", "del": "~~", "s": "~~"}
_EMPHASIS["strike"] = "~~"
_CODE = frozenset({"code", "kbd", "samp", "tt"})
_LISTS = frozenset({"ul", "ol", "menu"})
_CELLS = frozenset({"td", "th"})
_ROW_GROUPS = frozenset({"thead", "tbody", "tfoot"})
_TABLE_PARTS = frozenset({"caption", "colgroup", "col", "tr", *_ROW_GROUPS})
_LAYOUT_MARKERS = frozenset({"table", "p", "ul", "ol", "dl", "pre", "blockquote", "hr", *_HEADINGS})
"""Elements that make a table a layout table when a cell holds one."""
_BLOCKS = BLOCK_TAGS | {"center", "details", "summary", "fieldset", "legend", "caption"}
_SKIPPED = frozenset(
    {"script", "style", "template", "head", "title", "meta", "link", *UNSHOWN_CONTENT_TAGS}
)
_MAX_COLSPAN = 1000
_MAX_GRID = 200_000
"""Cells of one table's grid beyond which its spans are ignored (each cell in one column) and
its rows are not filled to the width of the widest."""
_GRID_GROWTH = 8
_GRID_SLACK = 64
"""A table's grid (its spans filled and its rows padded) holds at most this many times its own
cells, plus the slack, and at most :data:`_MAX_GRID`: the Markdown stays linear in the page,
where a few cells spanning a thousand columns each, over a few rows, would ask for a grid of
their product (a 100 KB page, 150 million characters of Markdown)."""
_MAX_START = 999_999_999
"""The largest number of an ordered list's item: CommonMark reads nine digits at most (the
numbers after the first only need to be numbers)."""
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


def to_markdown(root: etree._Element, *, base_url: str | None = None) -> str:
    """``root`` and everything below it as Markdown (see the module's docstring); links and
    images are resolved against ``base_url`` when it is given. ``root`` is read, never
    modified."""
    held = deep_proxies(root)  # freed after the writer's, deepest first
    writer = _Writer(root, base_url)
    try:
        return writer.run()
    finally:  # the writer's proxies go while every proxy is held (a traceback keeps the writer)
        writer.layout.clear()
        writer.frames.clear()
        del held


@dataclass
class _Inline:
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

    def last(self) -> str:
        for part in reversed(self.parts):
            if part:
                return part[-1]
        return ""

    def text(self, raw: str) -> None:
        """Append ``raw`` as text: whitespace collapsed, Markdown characters escaped."""
        if not raw:
            return
        collapsed = _SPACES.sub(" ", raw)
        if collapsed[0] == " ":
            self._space()
        words = collapsed.strip(" ")
        if words:
            escaped = _escape(words, line_start=self.start and not self.heading)
            goes_on = self.number and not self.space and not self.heading
            digits = _NUMBER_GOES_ON.match(escaped) if goes_on else None
            if digits is not None:  # the line so far is a number: "1" then ". x", "12" "3. x"
                escaped = f"{digits.group()}\\{escaped[digits.end() :]}"
            number = (goes_on or (self.start and len(escaped) < 10)) and escaped.isdigit()
            self.markup(escaped)
            self.number = number
        if collapsed[-1] == " " and words:
            self.space = True

    def _space(self) -> None:
        if not self.parts:
            self.lead = True
        elif not self.start:
            self.space = True

    def markup(self, markdown: str) -> None:
        """Append ``markdown`` as it is (after the space that is due)."""
        if not markdown:
            return
        if self.space and self.parts and not self.start:
            self.parts.append(" ")
        elif markdown[0] == "[" and _bang(self.parts[-1] if self.parts else ""):
            self.parts[-1] = self.parts[-1][:-1] + "\\!"  # "![" would open an image
        self.space = False
        self.parts.append(markdown)
        self.start = False
        self.number = False

    def hard_break(self) -> bool:
        """End the line; ``False`` when the line is still empty (a second ``<br>``)."""
        if self.start:
            return False
        self.parts.append("\\\n")
        self.start = True
        self.space = False
        self.number = False
        return True

    def value(self) -> str:
        """The Markdown written, without its blank lines (a line between two ``<br>`` that
        holds zero-width characters alone, as the text drops it) and its last break."""
        lines = "".join(self.parts).split("\\\n")  # a hard break: the only newline inline
        return "\\\n".join(line for line in lines if not blank(line)).strip(" ")


def _bang(markdown: str) -> bool:
    """Whether ``markdown`` ends with a ``!`` that a ``[`` after it would make an image's."""
    return markdown.endswith("!") and not markdown.endswith("\\!")


def _escape(text: str, *, line_start: bool) -> str:
    """``text`` (whitespace collapsed, not empty) with the characters that would change its
    meaning escaped."""
    escaped = _ESCAPED.sub(lambda m: "\\" + m.group(), text)
    if "*" in escaped or "_" in escaped:
        escaped = _escape_delimiters(escaped)
    if line_start:
        match = _LINE_START.match(escaped)
        if match is not None:
            end = match.end()
            if match.group()[0].isdigit():
                escaped = f"{escaped[:end]}\\{escaped[end:]}"
            else:
                escaped = "\\" + escaped
    return escaped


def _escape_delimiters(text: str) -> str:
    """``*`` escaped unless between two spaces, ``_`` unless between two letters or digits
    (the edges of ``text`` count as neither: what is next to them is unknown)."""
    out: list[str] = []
    last = len(text) - 1
    for i, char in enumerate(text):
        if char == "*":
            if not (0 < i < last and text[i - 1] == " " and text[i + 1] == " "):
                out.append("\\")
        elif char == "_" and not (0 < i < last and text[i - 1].isalnum() and text[i + 1].isalnum()):
            out.append("\\")
        out.append(char)
    return "".join(out)


def _is_word(char: str) -> bool:
    """A letter, a digit or a combining mark: what a delimiter may touch on either side."""
    return bool(char) and unicodedata.category(char)[0] in "LNM"


@dataclass
class _Container:
    """Where blocks go: the root, a block quote or a list item."""

    kind: str
    blocks: list[tuple[str, list[str]]] = field(default_factory=list)
    paragraph: _Inline = field(default_factory=_Inline)
    last_list: str = ""
    """The marker of the list just written here, so that a list right after it gets the other
    marker (CommonMark would join two lists of the same marker into one)."""
    made: bool = False
    """An item made for a list directly inside a list before any ``<li>`` (no item of the
    page): it holds that list, and what lay directly in the list after it is written outside
    the list (see :meth:`_List.as_blocks`)."""

    def flush(self) -> None:
        text = self.paragraph.value()
        if not blank(text):
            self.blocks.append(("paragraph", text.split("\n")))
            self.last_list = ""
        self.paragraph = _Inline()

    def add(self, kind: str, lines: list[str]) -> None:
        self.flush()
        if lines:
            self.blocks.append((kind, lines))
            if not kind.endswith("list"):
                self.last_list = ""

    def lines(self) -> list[str]:
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


@dataclass
class _List:
    ordered: bool
    start: int
    marker: str
    items: list[_Container] = field(default_factory=list)

    def item(self) -> _Container:
        if not self.items:
            self.items.append(_Container("item", made=True))
        return self.items[-1]

    def as_blocks(self) -> list[tuple[str, list[str]]]:
        """The list as blocks of the container around it: one list, or, when an item made for a
        list directly inside it holds what lay directly in the list after that list (text, a
        heading...), the lists before and after that content and the content between them.
        Kept in the item, that content would be the text of an item the page does not have."""
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


def _item_parts(item: _Container) -> list[tuple[str, list[str]]]:
    """``item`` as ``("item", lines)``; an item made for lists directly inside a list (see
    :attr:`_Container.made`) as an item for each run of its lists and, between them, the
    other blocks it holds as they are."""
    if not item.made:
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
            out.append(("item", _Container("item", run).lines()))
            run = []
        if kind:
            out.append((kind, lines))
    return out


@dataclass
class _Cell:
    text: str
    colspan: int
    rowspan: int


@dataclass
class _Table:
    rows: list[list[_Cell]] = field(default_factory=list)
    caption: str = ""

    def lines(self) -> list[str]:
        cells = sum(len(row) for row in self.rows)
        limit = min(_MAX_GRID, _GRID_GROWTH * cells + _GRID_SLACK)
        grid = _grid(self.rows, limit)
        if not grid or not any(any(cell for cell in row) for row in grid):
            return []
        width = max(len(row) for row in grid)
        padded = width * len(grid) <= limit
        out = [_row(grid[0], width), "|" + " --- |" * width]
        out.extend(_row(row, width if padded else len(row)) for row in grid[1:])
        return out


def _row(cells: list[str], width: int) -> str:
    padded = cells + [""] * (width - len(cells))
    return "| " + " | ".join(padded) + " |"


def _grid(rows: list[list[_Cell]], limit: int) -> list[list[str]]:
    """The rows with every spanned position filled with an empty cell, or each cell in one
    column when the spans would make a grid of more than ``limit`` cells."""
    rows = [row for row in rows if row]
    size = sum(
        min(max(c.colspan, 1), _MAX_COLSPAN) * min(max(c.rowspan, 1), len(rows))
        for r in rows
        for c in r
    )  # a span of 0 is written as 1, and counted so
    if size > limit:
        return [[cell.text for cell in row] for row in rows]
    grid: list[list[str]] = []
    taken: dict[tuple[int, int], bool] = {}
    for r, row in enumerate(rows):
        line: list[str] = []
        column = 0
        for cell in row:
            while taken.pop((r, column), False):
                line.append("")
                column += 1
            line.append(cell.text)
            span = min(max(cell.colspan, 1), _MAX_COLSPAN)
            line.extend([""] * (span - 1))
            for below in range(r + 1, min(r + max(cell.rowspan, 1), len(rows))):
                for c in range(column, column + span):
                    taken[(below, c)] = True
            column += span
        while taken.pop((r, column), False):
            line.append("")
            column += 1
        grid.append(line)
    return grid


def _span(element: etree._Element, name: str) -> int:
    value = (element.get(name) or "").strip()
    return int(value) if value.isascii() and value.isdigit() and 0 < len(value) < 7 else 1


@dataclass
class _Frame:
    """An open element of the walk that produces something when it closes."""

    element: etree._Element
    kind: str
    inline: _Inline | None = None
    container: _Container | None = None
    listing: _List | None = None
    table: _Table | None = None
    row: list[_Cell] | None = None
    raw: list[str] | None = None
    language: str = ""
    wrap: str = ""
    href: str | None = None
    indent: int = 0
    """The columns a block quote or a list adds to its lines (see :data:`_MAX_INDENT`)."""


class _Writer:
    """One :func:`to_markdown` call: the walk's state."""

    def __init__(self, root: etree._Element, base_url: str | None) -> None:
        self.root = root
        self.base_url = base_url
        self.layout = _layout_tables(root)
        self.top = _Container("root")
        # The root's own element is written as any other (a list, a table, a code block that
        # is the whole extraction); the frame that holds the document belongs to none.
        self.frames: list[_Frame] = [_Frame(etree.Element("document"), "root", container=self.top)]
        self.links = 0
        self.inline_depth = 0
        self.raw_depth = 0
        self.table_depth = 0
        self.nesting = 0
        """The block quotes and lists open (at most :data:`_MAX_NESTING`)."""
        self.indent = 0
        """The columns they add to each line (at most :data:`_MAX_INDENT`)."""
        self.emphasis: dict[str, int] = dict.fromkeys(_EMPHASIS.values(), 0)
        """The emphases open, by delimiter: one inside another of the same delimiter adds
        none (``*x*y* w*`` would close the outer one at the inner one's start)."""

    # --- where content goes

    def _sink(self) -> _Inline:
        """The inline being written: the innermost inline frame's, else the paragraph of
        :meth:`_container`."""
        for frame in reversed(self.frames):
            if frame.inline is not None:
                return frame.inline
            if frame.container is not None or (frame.listing and frame.listing.items):
                break
        return self._container().paragraph

    def _container(self) -> _Container:
        """The innermost block container: content directly inside a list (not in an item)
        joins the list's last item, or, before the first item, the container around the
        list. (A table's stray text never comes here: such a table is a layout table.)"""
        for frame in reversed(self.frames):
            if frame.container is not None:
                return frame.container
            if frame.listing is not None and frame.listing.items:
                return frame.listing.items[-1]
        return self.top

    def _raw(self) -> list[str] | None:
        for frame in reversed(self.frames):
            if frame.raw is not None:
                return frame.raw
        return None

    def _text(self, text: str | None) -> None:
        if not text:
            return
        if self.raw_depth:
            raw = self._raw()
            if raw is not None:
                raw.append(text)
            return
        self._sink().text(text)

    def _boundary(self) -> None:
        """A block starts or ends: a new paragraph, or a space inside an inline."""
        if self.inline_depth:
            sink = self._sink()
            sink._space()
        else:
            self._container().flush()

    # --- the walk

    def run(self) -> str:
        walker = etree.iterwalk(self.root, events=("start", "end"))
        tags: list[str | None] = []  # of the open elements: an element's end gets its start's
        steps = 0
        for event, element in walker:
            steps += 1
            if steps & _CHECK_EVERY == _CHECK_EVERY:
                check_deadline("writing the Markdown")
            if event == "start":
                tag = local_tag(element)
                if tag in _SKIPPED:
                    tag = None
                tags.append(tag)
                if tag is None:
                    walker.skip_subtree()  # its end still comes
                    continue
                self._start(element, tag)
                self._text(element.text)
            else:
                tag = tags.pop()
                if tag is not None:
                    self._end(element, tag)
                if element is not self.root:  # the root's tail lies outside what is written
                    self._text(element.tail)
        return "\n".join(self.top.lines())

    def _push(self, frame: _Frame) -> None:
        self.frames.append(frame)

    def _start(self, element: etree._Element, tag: str) -> None:
        if self.raw_depth:
            if tag == "br":
                raw = self._raw()
                if raw is not None:
                    raw.append("\n")
            elif tag == "code" and self.frames[-1].kind == "pre" and not self.frames[-1].language:
                self.frames[-1].language = _language(element)
            return
        if tag == "br":
            self._br()
            return
        if tag in ("img", "amp-img"):
            self._image(element)
            return
        if tag == "hr":
            if not self.inline_depth:
                self._container().add("rule", ["---"])
            return
        frame = self._open(element, tag)
        if frame is not None:
            self._push(frame)

    def _open(self, element: etree._Element, tag: str) -> _Frame | None:
        """The frame ``element`` opens, if it is one that produces something."""
        inline = self.inline_depth > 0
        if tag in _CELLS and self.frames[-1].row is not None:
            self.inline_depth += 1
            return _Frame(element, "cell", inline=_Inline())
        if tag == "tr" and self.frames[-1].table is not None:
            return _Frame(element, "tr", row=[])
        if tag == "caption" and self.frames[-1].table is not None:
            self.inline_depth += 1
            return _Frame(element, "caption", inline=_Inline())
        if tag in _ROW_GROUPS and self.frames[-1].table is not None:
            return None  # its rows go to the table
        if tag == "table" and not inline and not self.layout.get(element, True):
            self._container().flush()
            self.table_depth += 1
            return _Frame(element, "table", table=_Table())
        if tag in _BLOCKS or tag in _LISTS:
            self._boundary()
        if inline:
            return self._open_inline(element, tag)
        if tag in _HEADINGS:
            self.inline_depth += 1
            return _Frame(element, tag, inline=_Inline(heading=True))
        if tag == "pre":
            self.raw_depth += 1
            return _Frame(element, "pre", raw=[], language=_language(element))
        if tag == "blockquote" or tag in _LISTS:
            width = _marker_width(element) + 1 if tag == "ol" else 2
            if self.nesting >= _MAX_NESTING or self.indent + width > _MAX_INDENT:
                return None  # written as the blocks it holds
            self.nesting += 1
            self.indent += width
            if tag == "blockquote":
                return _Frame(element, "quote", container=_Container("quote"), indent=width)
            return self._open_list(element, tag, width)
        nested = self.nesting < _MAX_NESTING and self.indent + 2 <= _MAX_INDENT
        if tag == "li" and self.frames[-1].kind == "li" and nested and self._in_item(element):
            # an item directly inside an item (libxml2 does not close the first): a list of
            # its own, nested, that ends with it
            self.nesting += 1
            self.indent += 2
            self._push(_Frame(element, "list", listing=_List(False, 1, "-"), indent=2))
        if tag == "li" and self.frames[-1].listing is not None:
            item = _Container("item")
            self.frames[-1].listing.items.append(item)
            return _Frame(element, "li", container=item)
        return self._open_inline(element, tag)

    def _in_item(self, element: etree._Element) -> bool:
        """Whether ``element`` lies in the open item with no list between them: an item that
        libxml2 left inside an item (not one of a list written as the blocks it holds)."""
        item = self.frames[-1].element
        node = element.getparent()
        for _ in range(_ITEM_REACH):
            if node is None or node is item or local_tag(node) in _LISTS:
                break
            node = node.getparent()
        return node is item

    def _open_list(self, element: etree._Element, tag: str, indent: int) -> _Frame:
        # a list directly inside a list is nested in its last item (or in an item of its own)
        outer = self.frames[-1].listing
        container = outer.item() if outer is not None else self._container()
        ordered = tag == "ol"
        number = _list_start(element) if ordered else 1
        usual, other = (".", ")") if ordered else ("-", "*")
        marker = other if container.last_list == usual else usual
        listing = _List(ordered, number, marker)
        return _Frame(element, "list", listing=listing, indent=indent)

    def _open_inline(self, element: etree._Element, tag: str) -> _Frame | None:
        if tag in _CODE:
            self.raw_depth += 1
            self.inline_depth += 1
            return _Frame(element, "code", raw=[])
        if tag == "a":
            href = self._url(element.get("href"))
            if href is None or self.links:
                return None
            self.links += 1
            self.inline_depth += 1
            return _Frame(element, "a", inline=self._child_inline(), href=href)
        wrap = _EMPHASIS.get(tag)
        if wrap is not None and not self.emphasis[wrap]:
            self.emphasis[wrap] += 1
            self.inline_depth += 1
            return _Frame(element, "emphasis", inline=self._child_inline(), wrap=wrap)
        return None

    def _child_inline(self) -> _Inline:
        parent = self._sink()
        return _Inline(
            start=parent.start,
            number=parent.number and not parent.space,
            heading=parent.heading,
        )

    def _end(self, element: etree._Element, tag: str) -> None:
        frame = self.frames[-1]
        if frame.element is not element:
            if (tag in _BLOCKS or tag in _LISTS) and tag != "br" and not self.raw_depth:
                self._boundary()
            return
        while self.frames[-1].element is element:
            self._close(self.frames.pop(), element)
        if tag in _BLOCKS or tag in _LISTS:
            self._boundary()

    def _close(self, frame: _Frame, element: etree._Element) -> None:
        """Write what ``frame``, opened by ``element``, produced where it goes."""
        kind = frame.kind
        if kind == "pre":
            self.raw_depth -= 1
            self._container().add("code", _fence(frame.raw or [], frame.language))
        elif kind == "code":
            self.raw_depth -= 1
            self.inline_depth -= 1
            self._code_span(frame.raw or [])
        elif kind in ("a", "emphasis"):
            self.inline_depth -= 1
            self.links -= kind == "a"
            if kind == "emphasis":
                self.emphasis[frame.wrap] -= 1
            self._close_inline(frame)
        elif kind in _HEADINGS:
            self.inline_depth -= 1
            text = (frame.inline or _Inline()).value().replace("\\\n", " ")
            if not blank(text):
                if text.endswith("#"):
                    text = text[:-1] + "\\#"
                self._container().add("heading", ["#" * _HEADINGS[kind] + " " + text])
        elif kind == "quote":
            self.nesting -= 1
            self.indent -= frame.indent
            lines = (frame.container or _Container("quote")).lines()
            self._container().add("quote", [f"> {line}" if line else ">" for line in lines])
        elif kind == "list":
            self.nesting -= 1
            self.indent -= frame.indent
            self._end_list(frame)
        elif kind == "cell":
            self.inline_depth -= 1
            text = (frame.inline or _Inline()).value().replace("\\\n", " ")
            row = self.frames[-1].row
            if row is not None:
                row.append(_Cell(text, _span(element, "colspan"), _span(element, "rowspan")))
        elif kind == "tr":
            table = self.frames[-1].table
            if table is not None and frame.row:
                table.rows.append(frame.row)
        elif kind == "caption":
            self.inline_depth -= 1
            table = self.frames[-1].table
            if table is not None:
                table.caption = (frame.inline or _Inline()).value().replace("\\\n", " ")
        elif kind == "table":
            self.table_depth -= 1
            table = frame.table or _Table()
            container = self._container()
            if not blank(table.caption):
                container.add("paragraph", [table.caption])
            container.add("table", table.lines())

    def _end_list(self, frame: _Frame) -> None:
        assert frame.listing is not None
        container = self._container()
        blocks = frame.listing.as_blocks()
        for kind, lines in blocks:
            container.add(kind, lines)
        if blocks and blocks[-1][0].endswith("list"):
            container.last_list = frame.listing.marker

    def _close_inline(self, frame: _Frame) -> None:
        inline = frame.inline or _Inline()
        content = inline.value()
        parent = self._sink()
        if inline.lead:
            parent._space()
        if content:
            if frame.kind == "a":
                parent.markup(f"[{content}]({frame.href})")
            elif _can_wrap(content, "" if parent.space else parent.last()):
                parent.markup(f"{frame.wrap}{content}{frame.wrap}")
            else:
                number = parent.number and not parent.space and content.isdigit()
                if content[0] == "`" and parent.last() == "`":
                    parent.space = True  # as between two code spans (_code_span)
                parent.markup(content)
                parent.number = number  # "1<b>2</b>. x": the line is still a number
        if inline.space:
            parent.space = True

    def _code_span(self, raw: list[str]) -> None:
        text = _SPACES.sub(" ", "".join(raw))
        parent = self._sink()
        if text[:1] == " ":
            parent._space()
        code = text.strip(" ")
        if code:
            if self.table_depth:
                code = code.replace("|", "\\|")
            if parent.last() == "`":
                parent.space = True  # two code spans side by side would read as one fence
            ticks = "`" * (_longest_run(code, "`") + 1)
            pad = " " if code[0] == "`" or code[-1] == "`" else ""
            parent.markup(f"{ticks}{pad}{code}{pad}{ticks}")
        if text[-1:] == " " and code:
            parent.space = True

    def _br(self) -> None:
        if self.inline_depth:
            self._sink()._space()
            return
        container = self._container()
        if not container.paragraph.hard_break():
            container.flush()

    def _image(self, element: etree._Element) -> None:
        if self.raw_depth:
            return
        src = self._url(element.get("src"))
        if src is None:
            return
        alt = _SPACES.sub(" ", element.get("alt") or "").strip()
        self._sink().markup(f"![{_escape(alt, line_start=False) if alt else ''}]({src})")

    def _url(self, value: str | None) -> str | None:
        """``value`` as a link destination, absolute against the base URL; ``None`` for no
        link (empty, ``javascript:``, ``data:``)."""
        if not value:
            return None
        url = value.strip()
        if not url or url.lower().startswith(_NOT_LINKS):
            return None
        if self.base_url:
            with contextlib.suppress(ValueError):
                url = urljoin(self.base_url, url)
        return url.replace("\n", "").replace("\r", "").replace("\t", "").translate(_URL_UNSAFE)


def _marker_width(element: etree._Element) -> int:
    """The characters of an ordered list's widest marker: its last item's number and a dot."""
    items = sum(1 for child in element if local_tag(child) == "li")
    return len(str(min(_list_start(element) + max(items, 1) - 1, _MAX_START))) + 1


def _list_start(element: etree._Element) -> int:
    """The number of an ordered list's first item: its ``start``, within :data:`_MAX_START`."""
    start = (element.get("start") or "").strip()
    digits = start.isascii() and start.isdigit()  # "²" is a digit that int() refuses
    return min(int(start), _MAX_START) if digits and len(start) < 10 else 1


def _can_wrap(content: str, before: str) -> bool:
    """Whether emphasis delimiters around ``content`` open and close: it starts and ends with
    a letter or digit, and the delimiter does not touch another one."""
    return _is_word(content[0]) and _is_word(content[-1]) and before not in ("*", "~")


def _longest_run(text: str, char: str) -> int:
    longest = run = 0
    for c in text:
        run = run + 1 if c == char else 0
        longest = max(longest, run)
    return longest


def _fence(raw: list[str], language: str) -> list[str]:
    code = "".join(raw).strip("\n")
    if not code.strip():
        return []
    fence = "`" * max(3, _longest_run(code, "`") + 1)
    return [fence + language, *code.split("\n"), fence]


def _language(element: etree._Element) -> str:
    for name in (element.get("class") or "").split():
        match = _LANGUAGE.match(name)
        if match is not None:
            return match.group(1)
    return ""


def _layout_tables(root: etree._Element) -> dict[etree._Element, bool]:
    """For every table below ``root``, whether it is a layout table (see the module's
    docstring); empty when there is none. Only the tables are walked, each outermost one
    once with the tables it holds: the rest of the content, most of it on most pages, is
    not."""
    layout: dict[etree._Element, bool] = {}
    steps = 0
    for table in root.iter("table"):
        if table is not root and table not in layout:  # a held table was walked with its own
            steps = _walk_table(table, layout, steps)
    return layout


def _walk_table(table: etree._Element, layout: dict[etree._Element, bool], before: int) -> int:
    """Record in ``layout`` whether ``table`` and each table inside it is a layout table, in
    one walk over ``table``; the steps walked so far, the ``before`` earlier ones included."""
    cells: dict[etree._Element, int] = {}
    open_tables: list[etree._Element] = []
    structure: list[bool] = []
    """For each open element: whether it is a table's own structure (table, row group, row)."""
    events = chain((("start", table),), _walk(table), (("end", table),))
    steps = before
    for steps, (event, element) in enumerate(events, before + 1):
        if steps & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("finding the layout tables")
        tag = local_tag(element)
        inside = structure[-1] if structure else False
        if event == "start":
            if inside and tag not in _TABLE_PARTS and tag not in _CELLS:
                layout[open_tables[-1]] = True
            if open_tables and tag in _LAYOUT_MARKERS:
                layout[open_tables[-1]] = True
            if tag == "table":
                layout.setdefault(element, False)
                cells[element] = 0
                open_tables.append(element)
            elif tag in _CELLS and open_tables:
                cells[open_tables[-1]] += 1
            own = tag in ("table", "tr") or tag in _ROW_GROUPS
            if own and (element.text or "").strip():
                layout[open_tables[-1]] = True
            structure.append(own)
        else:
            structure.pop()
            if tag == "table":
                nested = open_tables.pop()
                if cells[nested] < 2:
                    layout[nested] = True
            if structure and structure[-1] and (element.tail or "").strip():
                layout[open_tables[-1]] = True
    return steps


def _walk(root: etree._Element) -> Iterator[tuple[str, etree._Element]]:
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, element in walker:
        if element is root:
            continue
        if local_tag(element) in _SKIPPED or not isinstance(element.tag, str):
            if event == "start":
                walker.skip_subtree()
            continue
        yield event, element

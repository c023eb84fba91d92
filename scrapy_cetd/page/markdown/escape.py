"""Literal characters escaped where they would change the meaning of the Markdown (see the
package's docstring for which, and where), and the checks of what a delimiter touches: the
text of the page must read back as that text, never as markup.

Kept apart from the writing itself because each rule is a fact about CommonMark, not about
the page. The text of a block comes from many elements, and what a character means depends
on what lies around it there (a backtick opens a code span only when another closes it
later in the block, ``&`` makes an entity only with what follows it), so nothing is escaped
while a block is written: the inline Markdown is a *draft* (:func:`markup`, :func:`label`),
its text as it is with its markup marked, and :func:`resolve` escapes the text of the whole
block at once, each character knowing its neighbours, whichever element they come from.
A block may hold a whole page's text in one element, so each loop over its characters, runs
or lines checks the time budget as it goes (:func:`_checked`), as the walk does over the
elements.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from html.entities import html5
from typing import NamedTuple, TypeVar

from scrapy_cetd.limits import CHECK_EVERY, check_deadline

_MARKUP, _MARKUP_END, _LABEL, _LABEL_END = "\x01", "\x02", "\x03", "\x04"
"""The marks of a draft: markup between the first two, a link's text or an image's
description between the last two. Control characters, which a page's text may hold (the
HTML parser keeps them) but the extraction's text does not: they are dropped from what is
written (:func:`plain`)."""
_MARK_CHARS = _MARKUP + _MARKUP_END + _LABEL + _LABEL_END
_MARKS = re.compile(f"([{_MARK_CHARS}])")
_ANY_MARK = re.compile(f"[{_MARK_CHARS}]")
_Item = TypeVar("_Item")


def _checked(items: Iterable[_Item], most: int) -> Iterable[_Item]:
    """``items``, at most ``most`` of them, the running deadline checked every
    :data:`~scrapy_cetd.limits.CHECK_EVERY` of them: a block's text may be a page's, read in
    one call the walk cannot interrupt. A loop too short to reach a check (most blocks) runs
    over ``items`` themselves."""
    return items if most <= CHECK_EVERY else _checking(items)


def _checking(items: Iterable[_Item]) -> Iterator[_Item]:
    for count, item in enumerate(items):
        if count & CHECK_EVERY == CHECK_EVERY:
            check_deadline("escaping the Markdown")
        yield item


_SPECIAL = re.compile(r"[\\\[\]<&|!]|`+|\*+|_+|~+")
"""What may be escaped: each is decided by its neighbours in the block (:func:`resolve`)."""
_SPECIAL_CHARS = r"\\\[\]<&|!`*_~"
"""The characters of :data:`_SPECIAL`, as a set of a regular expression."""
_SPECIAL_CHAR = re.compile(f"[{_SPECIAL_CHARS}]")
_SPECIAL_OR_MARK = re.compile(f"[{_MARK_CHARS}{_SPECIAL_CHARS}]")
"""What makes a block more than text that only its line's start may change."""
_BRACKETS = re.compile(r"[\[\]]")
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
"""ASCII punctuation: what a backslash escapes (before anything else it is a backslash)."""
_TAG = re.compile(
    r"[!?]|/[A-Za-z][A-Za-z0-9-]*\s*>|[A-Za-z][A-Za-z0-9-]*"
    r"""(?:\s+[A-Za-z_:][A-Za-z0-9:._-]*(?:\s*=\s*(?:[^"'=<>`\x00-\x20]+|'[^']*'|"[^"]*"))?)*"""
    r"\s*/?>"
)
"""After ``<``: an HTML tag, as CommonMark reads one (its name, its attributes, its ``>``:
``<br>`` and ``<a href="x">``, not ``Result<T, E>`` nor ``<10 years``), or what may start a
comment, a declaration or a processing instruction."""
_AUTOLINK = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\x00-\x20]*>"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>"
)
"""After ``<``: an autolink, a URL (a scheme, ``:``, no space, up to a ``>``) or an e-mail
address (``<3@x.example>``)."""
_REFERENCE = re.compile(r"#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|([A-Za-z][A-Za-z0-9]{1,31};)")
"""After ``&``: a character reference, or what is an entity if its name is one (:data:`html5`):
``AT&T``, ``Q&A`` and ``&nbsp`` without its ``;`` are text."""
_LINE_START = re.compile(
    r"#{1,6}(?: |$)|>|[-+*](?: |$)|[- ]+$|(?:\* *){3,}$|(?:_ *){3,}$|=+$|[|:-](?=[|: -]*$)"
    r"|```|~~~"
)
"""At the start of a line, what would start a block: an ATX heading, a quote, a list item, a
thematic break (of ``-``, ``*`` or ``_``) or a setext underline (of ``-`` or ``=``), a table's
delimiter row (``|``, ``:`` and ``-`` alone), or a code fence. A line that goes on after a
hard break ends with its ``\\``, so that ``$`` is the block's end."""
_TASK = re.compile(r"\[[ xX]\](?: |$)")
"""At the start of a block, a task list item's box (``[ ]``, in an item of a list)."""
_NUMBER = re.compile(r"\d{1,9}(?=[.)](?: |$))")
"""At the start of a line, the number of an ordered list item (whose ``.`` or ``)`` is
escaped): at the block's start any, after a hard break 1 only (CommonMark lets no other
number interrupt a paragraph)."""


def markup(markdown: str) -> str:
    """``markdown`` in a draft, as it is (without the draft's marks): it is never
    escaped."""
    return f"{_MARKUP}{plain(markdown)}{_MARKUP_END}"


def label(opening: str, draft: str, destination: str) -> str:
    """A link (``opening`` ``[``) or an image (``![``) in a draft: ``draft`` is its text or
    description, where a bracket that no other matches is escaped."""
    return f"{markup(opening)}{_LABEL}{draft}{_LABEL_END}{markup(f']({destination})')}"


def plain(draft: str) -> str:
    """The characters of ``draft`` as written, its text unescaped; a page's text without
    the control characters that mark a draft (deleted by a regular expression, which returns
    a text without them as it is: ``str.translate`` looks each character up)."""
    return _ANY_MARK.sub("", draft)


def last_char(draft: str) -> str:
    """The last character of ``draft`` as written, ``""`` when none: read from its end, past
    the marks alone (stripping them would copy the rest, which may be half the page, for each
    element that asks)."""
    at = len(draft) - 1
    while at >= 0 and draft[at] in _MARK_CHARS:
        at -= 1
    return draft[at] if at >= 0 else ""


def resolve(draft: str, *, line_start: bool, cell: bool = False) -> str:
    """The Markdown of the block whose inline Markdown is ``draft``: its text with the
    characters that would change its meaning escaped, at the start of each line too when
    ``line_start`` (not in a heading, whose line starts with its ``#``, nor in a cell), and
    ``|`` when ``cell``."""
    if _SPECIAL_OR_MARK.search(draft) is None:  # text alone, of one line: most blocks
        if line_start and _LINE_START.match(draft) is not None:
            return "\\" + draft
        number = _NUMBER.match(draft) if line_start else None
        if number is not None:
            return f"{draft[: number.end()]}\\{draft[number.end() :]}"
        return draft
    block = _Block(draft)
    escaped = block.escapes(line_start=line_start, cell=cell)
    if not escaped:
        return block.chars
    out: list[str] = []
    last = 0
    for at in _checked(sorted(escaped), len(escaped)):
        out.append(block.chars[last:at])
        out.append("\\")
        last = at
    out.append(block.chars[last:])
    return "".join(out)


class _Block:
    """A block's characters as written, which of them are text, and its labels."""

    def __init__(self, draft: str) -> None:
        pieces: list[str] = []
        text = bytearray()
        self.labels: list[list[int]] = []
        """The brackets of each link's text and image's description (not those of an image
        inside a link's text, which are the image's), in order."""
        self.links: set[int] = set()
        """Where the ``[`` of a link or an image is."""
        self.in_text: set[str] = set()
        """The characters of :data:`_SPECIAL` the block's text holds: only they may be
        escaped, and where the text holds none of a character, what the markup holds of it
        (a link's ``_`` and ``&``, a bold's ``*``) has nothing to close or pair with (most
        blocks with links or emphasis escape nothing but their line starts)."""
        open_labels: list[list[int]] = []
        at = 0
        is_text = True
        for piece in _checked(_MARKS.split(draft), len(draft) + 1):
            if piece in (_MARKUP, _MARKUP_END):
                is_text = piece == _MARKUP_END
            elif piece == _LABEL:
                open_labels.append([])
                self.links.add(at - 1)
            elif piece == _LABEL_END:
                self.labels.append(open_labels.pop())
            elif piece:
                pieces.append(piece)
                text += (b"\1" if is_text else b"\0") * len(piece)
                if is_text:
                    self.in_text.update(_SPECIAL_CHAR.findall(piece))
                if open_labels and is_text and ("[" in piece or "]" in piece):
                    open_labels[-1].extend(at + m.start() for m in _BRACKETS.finditer(piece))
                at += len(piece)
        self.chars = "".join(pieces)
        self.text = bytes(text)

    def escapes(self, *, line_start: bool, cell: bool) -> set[int]:
        """Where a backslash goes, in the block's text (see :func:`resolve`): the backticks
        last, as what is escaped before them (a fence's at a line's start) still closes a
        code span."""
        chars, text = self.chars, self.text
        escaped: set[int] = set()
        ticks: list[tuple[int, int, bool]] = []
        delimiters: dict[str, list[_Delimiter]] = {"*": [], "_": [], "~": []}
        specials = _SPECIAL.finditer(chars) if self.in_text else ()
        for match in _checked(specials, len(chars)):
            start, end = match.span()
            char = chars[start]
            if char not in self.in_text:
                continue  # markup alone: not escaped, and no text's run pairs with it
            if char == "`":
                ticks.extend(self._runs(start, end))
                continue
            if char in delimiters:
                delimiters[char].extend(
                    self._delimiter(char, run) for run in self._runs(start, end)
                )
                continue
            if not text[start]:
                continue
            after = chars[end : end + 1]
            if char == "\\":
                escape = after in _PUNCTUATION and after != ""
            elif char == "]":
                escape = after == "("
            elif char == "<":
                escape = bool(_TAG.match(chars, end) or _AUTOLINK.match(chars, end))
            elif char == "&":
                reference = _REFERENCE.match(chars, end)
                escape = reference is not None and (reference[1] is None or reference[1] in html5)
            elif char == "|":
                escape = cell
            elif char == "!":
                escape = end in self.links  # "![" would open an image
            else:
                escape = False  # "[": in a link's text, or at a line's start (below)
            if escape:
                escaped.add(start)
        for runs in delimiters.values():
            if runs:
                escaped.update(_pairing(runs))
        for brackets in self.labels:
            escaped.update(_unmatched(chars, brackets))
        if line_start:
            self._line_starts(escaped)
        if ticks:
            escaped.update(_opening_ticks(ticks, escaped))
        return escaped

    def _runs(self, start: int, end: int) -> list[tuple[int, int, bool]]:
        """The run of one character from ``start`` to ``end`` in pieces of text and of
        markup (``*`` then a bold's ``**``), each piece's end found in C."""
        text = self.text
        runs: list[tuple[int, int, bool]] = []
        at = start
        while at < end:
            is_text = text[at]
            stop = text.find(b"\0" if is_text else b"\1", at, end)
            stop = end if stop < 0 else stop
            runs.append((at, stop, bool(is_text)))
            at = stop
        return runs

    def _delimiter(self, char: str, run: tuple[int, int, bool]) -> _Delimiter:
        """A run of ``*``, ``_`` or ``~`` and whether it may open or close emphasis or
        strikethrough, by what it touches, as CommonMark reads a delimiter run (a run of
        markup is taken as both)."""
        start, end, is_text = run
        if not is_text:
            return _Delimiter(start, end, False, True, True)
        before = self.chars[start - 1] if start else ""
        after = self.chars[end : end + 1]
        opens = closes = False
        for symbols in (False, True):  # a symbol is punctuation since CommonMark 0.31 only
            space_before, space_after = not before or before.isspace(), not after or after.isspace()
            mark_before, mark_after = (
                _is_punctuation(before, symbols),
                _is_punctuation(after, symbols),
            )
            left = not space_after and (not mark_after or space_before or mark_before)
            right = not space_before and (not mark_before or space_after or mark_after)
            if char == "_":  # inside a word it neither opens nor closes
                opens = opens or (left and (not right or mark_before))
                closes = closes or (right and (not left or mark_after))
            else:
                opens, closes = opens or left, closes or right
        return _Delimiter(start, end, True, opens, closes)

    def _line_starts(self, escaped: set[int]) -> None:
        """Add to ``escaped`` what would start a block at the start of a line (see
        :data:`_LINE_START`, :data:`_NUMBER`), or a task list item or a link reference
        definition at the block's start."""
        chars, text = self.chars, self.text
        starts = [0]
        at = chars.find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = chars.find("\n", at + 1)
        for start in _checked(starts, len(starts)):
            if start >= len(chars) or not text[start] or start in escaped:
                continue
            if _LINE_START.match(chars, start) is not None:
                end = start + 1
                if chars[start] in "*_~":  # the whole run: what is left of it would be one
                    while end < len(chars) and chars[end] == chars[start] and text[end]:
                        end += 1
                escaped.update(range(start, end))
            elif start == 0 and chars[0] == "[":
                if _TASK.match(chars) is not None or self._definition():
                    escaped.add(0)
            else:
                number = _NUMBER.match(chars, start)
                # after a hard break, only a list that starts at 1 interrupts the paragraph
                if number is not None and (start == 0 or int(number[0]) == 1):
                    escaped.add(number.end())

    def _definition(self) -> bool:
        """Whether the block, which starts with a ``[`` of text, would read as a link
        reference definition (which also makes every ``[label]`` of the document a link): the
        first ``]`` after it (not one before a ``(``, escaped) is followed by a ``:``, and no
        ``[`` comes before it (a label holds none unescaped). Only a block's first line can
        be one: a definition does not interrupt a paragraph."""
        chars = self.chars
        for match in _BRACKETS.finditer(chars, 1):
            at = match.start()
            if chars[at] == "[":
                return False
            after = chars[at + 1 : at + 2]
            if after != "(":
                return after == ":"
        return False


class _Delimiter(NamedTuple):
    """A run of ``*``, ``_`` or ``~``: where, whether text, whether it may open or close."""

    start: int
    end: int
    text: bool
    opens: bool
    closes: bool


def _pairing(runs: list[_Delimiter]) -> list[int]:
    """The characters of the runs of text among ``runs`` (of one character, in order) that
    could make emphasis or strikethrough: a run that may open with one after it that may
    close, or that may close with one before it that may open (each other run taken as it
    is written, escaped or not: escaping changes none of what a run touches); and a run that
    touches markup of its character (``*`` then a bold's ``**``), whose run it would
    lengthen. ``5 * 3``, ``snake_case``, ``~4 GB`` and a lone ``*`` are written as they
    are."""
    escaped: list[int] = []
    opener = False
    later_closers = [False] * (len(runs) + 1)
    for i in _checked(range(len(runs) - 1, -1, -1), len(runs)):
        later_closers[i] = later_closers[i + 1] or runs[i].closes
    for i, run in _checked(enumerate(runs), len(runs)):
        if run.text:
            touches = (i > 0 and runs[i - 1].end == run.start) or (
                i + 1 < len(runs) and runs[i + 1].start == run.end
            )
            if touches or (run.opens and later_closers[i + 1]) or (run.closes and opener):
                escaped.extend(range(run.start, run.end))
        opener = opener or run.opens
    return escaped


def _is_punctuation(char: str, symbols: bool) -> bool:
    """Whether ``char`` is punctuation to a delimiter: ASCII punctuation, a Unicode one, and
    a Unicode symbol when ``symbols``."""
    if not char:
        return False
    category = unicodedata.category(char)[0]
    return char in _PUNCTUATION or category == "P" or (symbols and category == "S")


def _unmatched(chars: str, brackets: list[int]) -> list[int]:
    """The brackets of a link's text (at ``brackets`` in ``chars``) that no other closes or
    opens (a ``]`` before a ``(``, escaped, closes none): they would close the link early, or
    open one, so they are escaped there, and a matched pair is written as it is."""
    opened: list[int] = []
    unmatched: list[int] = []
    for at in _checked(brackets, len(brackets)):
        if chars[at] == "[":
            opened.append(at)
        elif opened and chars[at + 1 : at + 2] != "(":
            opened.pop()
        else:
            unmatched.append(at)
    return unmatched + opened


def _opening_ticks(runs: list[tuple[int, int, bool]], escaped: set[int]) -> list[int]:
    """The backticks of text that could open a code span: a run of them opens one when a run
    as long follows it in the block (CommonMark reads code spans first), and touching the
    backticks of a code span it would lengthen them. The runs ``runs`` (start, end, whether
    text) are read from the last: a run of text no later run matches stays as it is, unless
    ``escaped`` holds its start already. An escaped backtick still closes a code span (a
    backslash escapes nothing inside one), as a run of one: an escaped run counts as that."""
    escaping: list[int] = []
    later: set[int] = set()
    for i in _checked(range(len(runs) - 1, -1, -1), len(runs)):
        start, end, is_text = runs[i]
        if not is_text:
            later.add(end - start)
            continue
        touches = (i > 0 and runs[i - 1][1] == start) or (
            i + 1 < len(runs) and runs[i + 1][0] == end
        )
        if touches or end - start in later or start in escaped:
            escaping.extend(range(start, end))
            later.add(1)
        else:
            later.add(end - start)
    return escaping


def can_wrap(content: str, before: str) -> bool:
    """Whether emphasis delimiters around ``content`` (as written) open and close: it starts
    and ends with a letter or digit, and the delimiter does not touch another one."""
    return _is_word(content[0]) and _is_word(content[-1]) and before not in ("*", "~")


def _is_word(char: str) -> bool:
    """A letter, a digit or a combining mark: what a delimiter may touch on either side."""
    return bool(char) and unicodedata.category(char)[0] in "LNM"


def longest_run(text: str, char: str) -> int:
    """The longest run of ``char`` in ``text``: a code span's or a fence's backticks must
    outnumber the longest run of backticks inside. A code block may hold a whole page's text,
    so neither its characters nor its runs are visited one by one in Python: ``text`` holds a
    run of ``n`` exactly when it holds ``char * n``, and ``n`` is doubled, then the gap halved,
    each step one substring search."""
    if char not in text:
        return 0
    low, high = 1, 2  # a run of low is in the text; one of high is unknown, then known not to be
    while char * high in text:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if char * middle in text:
            low = middle
        else:
            high = middle
    return low

"""Literal characters escaped where they would change the meaning of the Markdown (see the
package's docstring for which, and where), and the checks of what a delimiter touches: the
text of the page must read back as that text, never as markup.

Kept apart from the writing itself because each rule is a fact about CommonMark, not about
the page: every piece of text goes through :func:`escape`, whichever element it comes from.
A piece is the text of one element (or its tail): what lies before and after it is unknown
here, so a character whose meaning depends on its neighbour is escaped at the piece's edges.
"""

from __future__ import annotations

import re
import unicodedata

SPACES = re.compile(r"\s+")
_SPECIAL = re.compile(r"[\\`\[\]<&|]|\*+|_+|~+")
"""What may be escaped inside a piece: each is decided by its neighbours (:func:`escape`)."""
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
"""ASCII punctuation: what a backslash escapes (before anything else it is a backslash)."""
_TAG = re.compile(r"[!/?]|[A-Za-z][A-Za-z0-9-]*(?:[ />]|$)")
"""After ``<``: the start of an HTML tag (its name, then a space, ``/``, ``>`` or the piece's
end: ``Result<T, E>`` holds none), a closing tag, a comment, a declaration or a processing
instruction."""
_AUTOLINK = re.compile(r"[^ <>]*(?:>|$)")
"""After ``<``: what may be an autolink (``<3@x.example>``), spaceless up to a ``>``, or up to
the piece's end."""
_ENTITY = re.compile(r"#?[A-Za-z0-9]*(?:;|$)")
"""After ``&``: what may be an entity or a character reference, up to a ``;`` or the piece's
end."""
_LINE_START = re.compile(
    r"#{1,6}(?: |$)|>|-(?: |$)|[- ]+$|\+(?: |$)|=+$|[|:-](?=[|: -]*$)"
    r"|\[(?:[ xX]\](?: |$)|(?![^\[\]]*\](?:[^:(]|$)))"
)
"""At the start of a line, what would start a block: an ATX heading, a quote, a list item, a
thematic break or a setext underline (of ``-`` or ``=`` alone: the piece may go on in the
next), a table's delimiter row (``|``, ``:`` and ``-`` alone), a task list item (``[ ]``) or a
link reference definition: a ``[`` whose first ``]`` is followed by ``:`` or ``(`` (the ``]``
then escaped), or that no ``]`` closes in the piece. One whose ``]`` ends the piece is
:data:`LABEL`: what follows decides (:class:`.inline.Inline`)."""
LABEL = re.compile(r"\[[^\[\]]*\]")
"""A piece at a line's start that is a link label: a ``:`` right after it would make it a link
reference definition, anything else leaves it text."""
_NUMBER = re.compile(r"\d{1,9}(?=[.)](?: |$))")
"""At the start of a line, the number of an ordered list item (whose ``.`` or ``)`` is
escaped)."""


def escape(text: str, *, line_start: bool, cell: bool = False, label: bool = False) -> str:
    """``text`` (whitespace collapsed, not empty, not starting or ending with a space) with
    the characters that would change its meaning escaped: at the start of a line when
    ``line_start``, in a table's cell when ``cell``, in a link's text or an image's
    description when ``label``."""
    unmatched = _unmatched_brackets(text) if label and ("[" in text or "]" in text) else ()
    last = len(text)

    def replace(match: re.Match[str]) -> str:
        char = match.group()
        start, end = match.span()
        after = text[end] if end < last else ""
        if char[0] in "*_~":
            before = text[start - 1] if start else ""
            if before == after == " ":
                return char  # not flanking: it neither opens nor closes
            if char[0] == "_" and before.isalnum() and after.isalnum():
                return char  # inside a word: "_" neither opens nor closes there
            return "\\" + "\\".join(char)
        if char == "\\":
            escaped = not after or after in _PUNCTUATION
        elif char == "]":
            escaped = after == "(" or start in unmatched
        elif char == "[":
            escaped = start in unmatched
        elif char == "<":
            escaped = not after or bool(_TAG.match(text, end) or _AUTOLINK.match(text, end))
        elif char == "&":
            escaped = _ENTITY.match(text, end) is not None
        elif char == "|":
            escaped = cell
        else:  # "`": whether it opens a code span depends on the rest of the paragraph
            escaped = True
        return "\\" + char if escaped else char

    escaped = _SPECIAL.sub(replace, text)
    if line_start and escaped[0] != "\\":
        if _LINE_START.match(escaped) is not None:
            return "\\" + escaped
        number = _NUMBER.match(escaped)
        if number is not None:
            end = number.end()
            return f"{escaped[:end]}\\{escaped[end:]}"
    return escaped


def _unmatched_brackets(text: str) -> set[int]:
    """Where ``text`` has a ``[`` or ``]`` that no other closes or opens (a ``]`` before a
    ``(``, escaped, closes none): inside a link's text it would close the link early, or open
    one, so it is escaped there, and a matched pair is written as it is."""
    opened: list[int] = []
    unmatched: set[int] = set()
    for i, char in enumerate(text):
        if char == "[":
            opened.append(i)
        elif char == "]":
            if opened and text[i + 1 : i + 2] != "(":
                opened.pop()
            else:
                unmatched.add(i)
    unmatched.update(opened)
    return unmatched


def ends_with(markdown: str, char: str) -> bool:
    """Whether ``markdown`` ends with ``char`` unescaped (after an even run of backslashes)."""
    if not markdown.endswith(char):
        return False
    at = len(markdown) - len(char) - 1
    while at >= 0 and markdown[at] == "\\":
        at -= 1
    return (len(markdown) - len(char) - 1 - at) % 2 == 0


def can_wrap(content: str, before: str) -> bool:
    """Whether emphasis delimiters around ``content`` open and close: it starts and ends with
    a letter or digit, and the delimiter does not touch another one."""
    return _is_word(content[0]) and _is_word(content[-1]) and before not in ("*", "~")


def _is_word(char: str) -> bool:
    """A letter, a digit or a combining mark: what a delimiter may touch on either side."""
    return bool(char) and unicodedata.category(char)[0] in "LNM"


def longest_run(text: str, char: str) -> int:
    """The longest run of ``char`` in ``text``: a code span's or a fence's backticks must
    outnumber the longest run of backticks inside."""
    longest = run = 0
    for c in text:
        run = run + 1 if c == char else 0
        longest = max(longest, run)
    return longest

"""Literal characters escaped where they would change the meaning of the Markdown (see the
package's docstring for which, and where), and the checks of what a delimiter touches: the
text of the page must read back as that text, never as markup.

Kept apart from the writing itself because each rule is a fact about CommonMark, not about
the page: every piece of text goes through :func:`escape`, whichever element it comes from.
"""

from __future__ import annotations

import re
import unicodedata

SPACES = re.compile(r"\s+")
_ESCAPED = re.compile(r"[\\`\[\]<|~]|&(?=[#A-Za-z0-9])")
"""Characters escaped wherever they are (see the package's docstring)."""
_LINE_START = re.compile(r"[#>+=-]|\d{1,9}(?=[.)](?: |$))")
"""At the start of a line: a character that would start a heading, a quote, a list item, a
setext underline or a thematic break, or the number of an ordered list item (whose ``.`` or
``)`` is escaped)."""


def escape(text: str, *, line_start: bool) -> str:
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


def bang(markdown: str) -> bool:
    """Whether ``markdown`` ends with a ``!`` that a ``[`` after it would make an image's."""
    return markdown.endswith("!") and not markdown.endswith("\\!")


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

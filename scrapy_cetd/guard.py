"""A cheap check of a page's markup before libxml2 parses it.

A parse runs in one C call that no time budget can interrupt, and libxml2's HTML parser is
not linear in every dimension: the attributes of one tag cost time quadratic in their number
(a single tag with 20,000 attributes takes about half a second, 89,000 about 15 s). The limits
of :mod:`scrapy_cetd.limits` that count elements or time only apply once the tree exists, so
this module reads the page's text first, in one linear pass, and refuses a page whose markup
would make the parse itself the problem.

The scan follows the HTML tokenizer as far as the check needs it: start and end tags with
their attributes (quoted values may hold ``>``), comments, ``<!...>`` and ``<?...>``
declarations, and the raw-text elements (``<script>``, ``<style>``, ...) whose content holds no
tags. Each step is a string search or a regular expression without nested repetition, and every
step moves forward, so the cost is linear in the length of the text. Most tags of a page have
no quote and few characters: a substitution in C first turns the ``<`` of each of them into
an ``x``, so the scan in Python only visits the others. The rest of such a tag reads the same
wherever it stands (text, a comment, a quoted value, or the attributes of a tag around it,
where ``<b c>`` and ``xb c>`` are the same two attributes and the same end).
"""

from __future__ import annotations

import functools
import re

DEFAULT_MAX_ATTRIBUTES = 1_000
"""Attributes on one tag. The pages of the shared datasets have at most a few dozen; at 1,000
one tag costs libxml2 about a millisecond, at 20,000 half a second (the cost is quadratic)."""

_ATTRIBUTE = re.compile(
    r"""[\s/]*[^\s/>][^\s/>=]*(?:\s*=\s*(?:"[^"]*(?:"|\Z)|'[^']*(?:'|\Z)|[^\s>]*))?"""
)
"""One attribute of a tag, with the spaces or slashes before it: a name (which may begin with
``=``), then an optional value, quoted (an unclosed quote runs to the end of the page, as in
the parser) or unquoted. Every part is a single repetition over a class disjoint from what
follows it, so a match never backtracks more than one step."""

_RAW_TEXT = ("script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes")
"""The elements whose content the parser reads as text up to their end tag."""


@functools.lru_cache(maxsize=8)
def _simple_tag(max_attributes: int) -> re.Pattern[str]:
    """A start or end tag without quotes, ``<`` or raw-text name, too short to hold more than
    ``max_attributes`` attributes (each takes a name and a separator): a single bounded
    repetition."""
    names = "|".join((*_RAW_TEXT, "plaintext"))
    return re.compile(
        rf"</?(?!(?:{names})\b)[A-Za-z][^<>\"']{{0,{2 * max_attributes}}}>", re.IGNORECASE
    )


_PIECE = 65_536
"""Characters substituted in one call (a few milliseconds)."""

_TAG_NAME = re.compile(r"[^\s/>]*")

_COMMENT_END = re.compile("--!?>")

_RAW_TEXT_END = {name: re.compile(f"</{name}", re.IGNORECASE) for name in _RAW_TEXT}


def _without_simple_tags(text: str, simple_tag: re.Pattern[str]) -> str:
    """``text`` with every match of ``simple_tag`` made a space (a constant replacement, which
    :func:`re.sub` makes without a Python call per match; a space, so that no ``<`` before a
    removed tag meets the text after it), in pieces of about
    :data:`_PIECE` characters that each end before a ``<`` (which no match holds), so that the
    substitution never holds the GIL for long in a crawl's worker thread."""
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end = text.find("<", start + _PIECE)
        end = len(text) if end < 0 else end
        pieces.append(simple_tag.sub(" ", text[start:end]))
        start = end
    return "".join(pieces)


def _name_end(text: str, start: int) -> int:
    """Where the tag name that begins at ``start`` ends."""
    match = _TAG_NAME.match(text, start)
    return start if match is None else match.end()


def _attributes_end(text: str, start: int, limit: int | None) -> tuple[int, int]:
    """Where the tag whose attributes begin at ``start`` ends (after its ``>``), and how many
    attributes it has (counting stops past ``limit``)."""
    count = 0
    position = start
    match = _ATTRIBUTE.match(text, position)
    while match is not None:
        count += 1
        position = match.end()
        if limit is not None and count > limit:
            break
        match = _ATTRIBUTE.match(text, position)
    end = text.find(">", position)
    return (len(text) if end < 0 else end + 1), count


def markup_problem(text: str, *, max_attributes: int | None = DEFAULT_MAX_ATTRIBUTES) -> str | None:
    """Why ``text`` must not be handed to libxml2's HTML parser, or ``None`` when it may be.

    The reason reads ``"max_attributes exceeded: ..."``, as the reasons of the other limits
    (:meth:`scrapy_cetd.limits.Limits.markup_reason` gives it its code); ``max_attributes=None``
    switches the check off, and then nothing is scanned.
    """
    if max_attributes is None:
        return None
    text = _without_simple_tags(text, _simple_tag(max_attributes))
    position = 0
    length = len(text)
    while True:
        position = text.find("<", position)
        if position < 0 or position + 1 >= length:
            return None
        following = text[position + 1]
        if following.isascii() and following.isalpha():
            name_end = _name_end(text, position + 1)
            name = text[position + 1 : name_end].lower()
            position, count = _attributes_end(text, name_end, max_attributes)
            if count > max_attributes:
                return (
                    f"max_attributes exceeded: a <{name[:40]}> tag with more than "
                    f"{max_attributes:,} attributes"
                )
            if name == "plaintext":
                return None
            raw_end = _RAW_TEXT_END.get(name)
            if raw_end is not None:
                found = raw_end.search(text, position)
                position = length if found is None else found.start()
        elif following == "/" and text[position + 2 : position + 3].isalpha():
            position, _ = _attributes_end(text, _name_end(text, position + 2), None)
        elif text.startswith("!--", position + 1):
            position = _comment_end(text, position + 4)
        elif following in "!?/":
            end = text.find(">", position)
            position = length if end < 0 else end + 1
        else:
            position += 1


def _comment_end(text: str, start: int) -> int:
    """Where the comment whose content begins at ``start`` ends: after ``-->`` (or ``--!>``),
    at once for ``<!-->`` and ``<!--->``, or at the end of the page."""
    if text.startswith(">", start):
        return start + 1
    if text.startswith("->", start):
        return start + 2
    found = _COMMENT_END.search(text, start)
    return len(text) if found is None else found.end()

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
step moves forward, so the cost is linear in the length of the text.

That scan takes a Python step per tag, about a third of what extracting the page costs. Most
pages need none: a tag with too many attributes is long, so its ``<`` stands where few do (far
before the next ``>``, or before a ``>`` in a quoted value), and searches in C find those
places first. Only when a tag that begins there has too many attributes, read wherever it
stands, does the scan run, to tell whether it is a tag at all or the text of a comment, a
script or an attribute value."""

from __future__ import annotations

import re
from collections.abc import Iterator

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


_TAG_NAME = re.compile(r"[^\s/>]*")

_COMMENT_END = re.compile("--!?>")

_RAW_TEXT_END = {name: re.compile(f"</{name}", re.IGNORECASE) for name in _RAW_TEXT}

_START = re.compile("<[A-Za-z]")
"""What begins a start tag."""

_OPEN_VALUES_WITH_GT = (re.compile(r"""=\s*"[^">]*>"""), re.compile(r"""=\s*'[^'>]*>"""))
"""A ``>`` in a quoted attribute value: an ``=``, the opening quote, and no closing quote or
other ``>`` before it (one search per kind of quote, each cheaper than one search for both).
Each repetition runs over a class that excludes what follows it."""


def _span(max_attributes: int) -> int:
    """The fewest characters a tag with more than ``max_attributes`` attributes spans, from its
    ``<``: two for ``<`` and a name, then at least two per attribute (a separator or a closing
    quote before each, one character of name)."""
    return 2 * max_attributes + 4


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
    if max_attributes is None or not _may_hold_a_long_tag(text, max_attributes):
        return None
    return _scan(text, max_attributes)


def _may_hold_a_long_tag(text: str, max_attributes: int) -> bool:
    """``False`` when no ``<`` followed by a letter, wherever it stands (in text, a comment, a
    script, a quoted value), begins a tag of more than ``max_attributes`` attributes; ``True``
    when one may, and then :func:`_scan` decides, reading each tag in its context.

    Such a tag spans :func:`_span` characters, and its only ``>`` before its end are in quoted
    values. So its ``<`` either begins, at least that far from its end, a stretch of text
    without ``>`` (:func:`_long_stretches`), or stands in the stretch before a quoted value's
    first ``>`` (:data:`_OPEN_VALUES_WITH_GT`). Both are found by searches in C that read the
    text once; the tags that begin there (a few on most pages) are then read as the parser
    reads them. When they are many, or their reading covers more than the text's length,
    :func:`_scan` is the cheaper way to decide.
    """
    span = _span(max_attributes)
    readable = len(text)
    starts = 64 + len(text) // 100
    seen: set[int] = set()
    for first, last in _start_regions(text, span):
        for match in _START.finditer(text, first, last):
            start = match.start()
            if start in seen:
                continue
            seen.add(start)
            end, count = _attributes_end(text, _name_end(text, start + 1), max_attributes)
            readable -= end - start
            if count > max_attributes or readable < 0 or len(seen) > starts:
                return True
    return False


def _start_regions(text: str, span: int) -> Iterator[tuple[int, int]]:
    """Where the ``<`` of a tag of ``span`` characters or more may stand: ``(first, last)``
    bounds for a search of :data:`_START` (which matches two characters, so ``last`` is two
    past the last ``<`` to look at). Each kind of region is a set of disjoint stretches."""
    for first, end in _long_stretches(text, span):
        yield first, end - span + 2
    for open_value in _OPEN_VALUES_WITH_GT:
        for match in open_value.finditer(text):
            yield text.rfind(">", 0, match.start()) + 1, match.end() - 1


def _long_stretches(text: str, span: int) -> Iterator[tuple[int, int]]:
    """``(first, end)`` of each stretch of at least ``span`` characters without ``>``.

    Such a stretch holds a whole window of ``(span + 1) // 2`` characters of the text cut into
    windows of that size, so a search for ``>`` in each window (a C loop over the window, a
    Python step per window) finds every one; the stretch is then measured from that window.
    """
    window = (span + 1) // 2
    length = len(text)
    position = 0
    while position < length:
        if text.find(">", position, position + window) >= 0:
            position += window
            continue
        first = text.rfind(">", 0, position) + 1
        end = text.find(">", position + window)
        end = length if end < 0 else end
        if end - first >= span:
            yield first, end
        position = end + 1


def _scan(text: str, max_attributes: int) -> str | None:
    """The reason to refuse ``text``, found by reading it as the HTML tokenizer does: each tag
    in data state, comments, declarations and raw text skipped (linear, a step per tag)."""
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

"""The bounds and the cleaning every metadata value goes through, whatever its source: white
space collapsed, characters no text may hold dropped, lengths and counts bounded."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from scrapy_cetd.limits import MAX_URL
from scrapy_cetd.page.words import collapse_spaces

MAX_VALUES = 50
"""Authors, tags or categories kept from one source."""
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]+")
"""Control characters but tab and line breaks, noncharacters, and lone surrogates."""
MAX_TEXT = 1000
"""Characters of a title, a heading, a byline or a name read: a longer text is none of them,
and reading it whole would make each comparison cost its length."""
MAX_PROPERTY = 10_000
"""Characters of a microdata property's text read, and of a description (a description may be
long)."""


def clean(value: str | None) -> str | None:
    """``value`` with its white space collapsed and the characters no text may hold (control
    characters, lone surrogates a JSON escape can make) dropped; ``None`` when nothing is
    left."""
    if not value:
        return None
    return collapse_spaces(_UNPRINTABLE.sub("", value)) or None


def within(value: str | None, limit: int) -> str | None:
    """``value`` cut to ``limit`` characters (at a space when there is one near the end)."""
    if value is None or len(value) <= limit:
        return value
    cut = value[:limit]
    space = cut.rfind(" ", limit - 50)
    return cut[:space] if space > 0 else cut


def url_within(value: str | None) -> str | None:
    """``value``, or ``None`` when it is longer than :data:`~scrapy_cetd.limits.MAX_URL` (a
    URL cut short points elsewhere)."""
    return None if value is not None and len(value) > MAX_URL else value


def unique(values: Iterable[str]) -> tuple[str, ...]:
    """``values`` without those equal to an earlier one but for case, each cut to
    :data:`MAX_TEXT` characters, at most :data:`MAX_VALUES` of them, in their order; the
    values after the last one kept are not read."""
    seen: dict[str, str] = {}
    for value in (within(value, MAX_TEXT) or "" for value in values):
        key = value.casefold()
        if key not in seen:
            seen[key] = value
            if len(seen) == MAX_VALUES:
                break
    return tuple(seen.values())


def split_keywords(values: Iterable[str]) -> Iterator[str]:
    """The comma-separated words of ``values`` (``<meta name="keywords">``), each cleaned,
    one at a time: a value may hold a page of them, of which :func:`unique` keeps the first
    :data:`MAX_VALUES`."""
    for value in values:
        for part in _KEYWORD.finditer(value):
            word = clean(part[0])
            if word:
                yield word


_KEYWORD = re.compile("[^,]+")
"""A part of a comma-separated list."""

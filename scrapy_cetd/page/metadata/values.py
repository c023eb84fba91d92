"""The bounds and the cleaning every metadata value goes through, whatever its source: white
space collapsed, characters no text may hold dropped, lengths and counts bounded."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from urllib.parse import urljoin

from w3lib.url import safe_url_string

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


_WHITE_SPACE = re.compile(r"\s")


def absolute_url(link: str | None, base: str | None) -> str | None:
    """The URL a page's link to itself or to its image (``<link rel=canonical>``, ``og:url``,
    ``og:image``, JSON-LD's or microdata's ``image``) names: ``link`` made absolute against
    ``base``, the page's URL, when there is one (as it stands when ``urljoin`` refuses it), and
    within :func:`url_within`; ``None`` when it is no URL.

    A value with white space in it is a URL when a ``/`` comes before its first white space (a
    scheme and host, or a path: ``https://example.com/files/Team photo.jpg``,
    ``/files/Team photo.jpg``), and is then written as w3lib's ``safe_url_string``, Scrapy's,
    writes it, its spaces percent-encoded as a browser encodes them; otherwise it is a phrase
    (``Read more about us``, a microdata ``image`` holding a caption), which made absolute
    against the page's URL named a page that does not exist."""
    if not link:
        return None
    if _WHITE_SPACE.search(link) is not None:
        words = link.split(maxsplit=1)
        if not words or "/" not in words[0]:
            return None
        try:
            link = safe_url_string(link)
        except ValueError:  # a port that is no number, a broken IPv6 host: no URL either
            return None
    if base:
        with contextlib.suppress(ValueError):
            link = urljoin(base, link)
    return url_within(link)


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

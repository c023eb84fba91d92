"""The dates a page declares, read as ISO 8601: ISO values with or without their time and zone,
and the e-mail and HTTP dates some pages give where ISO 8601 belongs."""

from __future__ import annotations

import calendar
import email.utils
import re
from collections.abc import Iterable

_ISO_DATE = re.compile(
    r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d{1,9})?\s?(Z|[+-]\d{2}:?\d{2})?)?"
)
"""An ISO 8601 date at the start of a value, with an optional time and zone."""
_INTERNET_DATE = re.compile(
    r"\s*(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{1,2}:\d{2}(?::\d{2})?\s+"
    r"(?:[+-]\d{4}|UT|GMT|Z|[ECMP][SD]T)(?:\s*\([^()]*\))?\s*$",
    re.IGNORECASE,
)
"""An e-mail and HTTP date (RFC 5322 §3.3, §4.3): a day, an English month abbreviation, a
year, a time and a zone: an offset of four digits or one of the names the RFC defines, maybe
followed by a comment (``+0100 (CET)``). Another zone name (``CET``) says nothing certain: the
date is not read."""


def iso(value: str | None) -> str | None:
    """The ISO 8601 date (and time, when it has one) at the start of ``value``; ``None`` when
    it does not start with one or names no real day."""
    if not value:
        return None
    match = _ISO_DATE.match(value.strip())
    if match is None:
        return _internet_date(value)
    year, month, day, hour, minute, second, zone = match.groups()
    if not (1 <= int(month) <= 12 and 1900 < int(year) < 2200):
        return None
    if not 1 <= int(day) <= calendar.monthrange(int(year), int(month))[1]:
        return None  # February 31st
    date = f"{year}-{int(month):02d}-{int(day):02d}"
    if hour is None or int(hour) > 23 or int(minute) > 59 or int(second or 0) > 60:
        return date
    time = f"{int(hour):02d}:{minute}:{second or '00'}"
    if zone and zone != "Z" and ":" not in zone:
        zone = f"{zone[:3]}:{zone[3:]}"
    return f"{date}T{time}{zone or ''}"


def _internet_date(value: str) -> str | None:
    """An e-mail and HTTP date (RFC 5322, ``Tue, 12 Mar 2024 08:30:00 GMT``), which some pages
    declare where ISO 8601 belongs, as ISO 8601 with its time and zone; ``None`` for any other
    text."""
    if not _INTERNET_DATE.match(value):
        return None
    try:
        moment = email.utils.parsedate_to_datetime(value.strip())
    except (ValueError, TypeError, IndexError):
        return None
    if not 1900 < moment.year < 2200:
        return None
    zone = moment.isoformat()[19:]
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (zone or "")


def earliest(declared: str | None, found: str | None) -> str | None:
    """The earlier day of the date the page declares and the one htmldate finds: a page's
    original publication precedes its updates, which structured dates often give instead
    (``datePublished`` of an edited item, a time converted to another day in UTC)."""
    if declared and found:
        return found if found[:10] < declared[:10] else declared
    return declared or found


def first_iso(values: Iterable[str]) -> str | None:
    for value in values:
        found = iso(value)
        if found:
            return found
    return None

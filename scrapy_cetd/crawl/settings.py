"""The ``CETD_*`` Scrapy settings: names, defaults, and reading them the same way everywhere.

Every component reads its settings through :func:`read_settings` in ``from_crawler``, so a
component enabled by hand (without :class:`~scrapy_cetd.crawl.addon.Addon`) gets the same defaults
as one enabled by the add-on, and a setting the user set explicitly to ``None`` stays ``None``
(``Settings.get`` would turn it back into the default).
"""

from __future__ import annotations

import difflib
import json
import logging
import math
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from scrapy_cetd.extractors import DEFAULT_ALGORITHM
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES
from scrapy_cetd.limits import (
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_MAX_NODES,
    DEFAULT_TIME_BUDGET,
    usable_cores,
)
from scrapy_cetd.result import Metadata

ISOLATIONS = ("threads", "process")
"""The values of ``CETD_ISOLATION``: where extractions run (:mod:`scrapy_cetd.crawl.isolation`)."""

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

DEFAULTS: Mapping[str, Any] = {
    "CETD_ENABLED": True,
    "CETD_ALGORITHM": DEFAULT_ALGORITHM,
    "CETD_OPTIONS": {},
    "CETD_MAX_BODY_SIZE": DEFAULT_MAX_BODY_SIZE,
    "CETD_MAX_NODES": DEFAULT_MAX_NODES,
    "CETD_MAX_ATTRIBUTES": DEFAULT_MAX_ATTRIBUTES,
    "CETD_TIME_BUDGET": DEFAULT_TIME_BUDGET,
    "CETD_ISOLATION": "threads",
    "CETD_WORKERS": None,
    "CETD_EAGER_PARSE": False,
    "CETD_HTML_FIELD": "main_content_html",
    "CETD_TEXT_FIELD": "main_content_text",
    "CETD_TITLE_FIELD": "main_content_title",
    "CETD_PAGE_TYPE_FIELD": "main_content_page_type",
    "CETD_PAGE_TYPE_CONFIDENCE_FIELD": None,
    "CETD_SOURCE_FIELD": None,
    "CETD_MARKDOWN_FIELD": None,
    "CETD_METADATA_FIELDS": None,
    "CETD_CLEAN_HTML": False,
    "CETD_DROP_SOURCE": False,
    "CETD_OVERWRITE": True,
    "CETD_DROP_EMPTY": False,
    "CETD_LINK_TABLE_SIZE": 10_000,
    "CETD_LOG_FIELD_LENGTH": 100,
}
"""Every setting of scrapy-cetd and its default (the README's settings table lists them)."""

DOWNLOADER_MIDDLEWARE_PRIORITY = 540
"""Below ``RetryMiddleware`` (550), ``HttpCompressionMiddleware`` (590) and the redirect
middlewares, so ``process_response`` sees the final, decompressed response."""

DECODING_MIDDLEWARE_PRIORITY = 585
"""Below ``HttpCompressionMiddleware`` (590) and above ``MetaRefreshMiddleware`` (580):
``process_response`` sees the decompressed body before anything reads its text."""

SPIDER_MIDDLEWARE_PRIORITY = 10
"""The lowest built-in spider middleware is 25: at 10 the link is made on the item object that
leaves the spider middleware chain, which is the one the pipelines receive."""

PIPELINE_PRIORITY = 300
"""The conventional middle of ``ITEM_PIPELINES``: validation pipelines before it can drop items
cheaply, export and storage pipelines after it see the main content fields."""

DONT_CETD_META_KEY = "dont_cetd"
"""``Request.meta`` key: a true value leaves the response and its items alone."""


def setting_bool(settings: BaseSettings, name: str) -> bool:
    """The boolean setting ``name`` as Scrapy reads it (``True``/``False``, ``1``/``0`` and
    their strings), or a :class:`ValueError` naming the setting and its value: Scrapy's own
    message names neither."""
    try:
        return settings.getbool(name, DEFAULTS[name])
    except ValueError:
        raise ValueError(
            f"{name} must be True or False (or 1/0, 'True'/'False'), not {settings[name]!r:.80}"
        ) from None


THREAD_WORKERS = 16
"""Worker threads by default: Scrapy's default ``CONCURRENT_REQUESTS``, so that a page never
waits behind slow pages for a worker."""


def _workers(settings: BaseSettings, isolation: str) -> int:
    """``CETD_WORKERS``, or by default :data:`THREAD_WORKERS` threads, or one worker process
    per core the crawl may use (:func:`~scrapy_cetd.limits.usable_cores`), two at least so
    that one slow page does not hold the others back until the budget kills it: each process
    loads the metadata's libraries and model when it starts, and processes beyond the cores
    only share them."""
    if not _unset(settings.get("CETD_WORKERS")):
        return _setting_int(settings, "CETD_WORKERS")
    return THREAD_WORKERS if isolation == "threads" else max(2, usable_cores())


def _unset(value: Any) -> bool:
    """Whether a setting's ``value`` is ``None``, or ``"None"`` (any case) or ``""`` as the
    command line writes it: the setting's default (no field, no limit, the default workers)."""
    return value is None or (isinstance(value, str) and value.strip().lower() in ("", "none"))


def _setting_int(settings: BaseSettings, name: str) -> int:
    """The integer setting ``name`` (``None`` is its default, as for Scrapy's own), or a
    :class:`ValueError` naming the setting and its value."""
    value = settings.get(name, DEFAULTS[name])
    number = _whole(value)
    if number is None:
        raise ValueError(f"{name} must be a whole number, not {value!r:.80}")
    return number


def _whole(value: Any) -> int | None:
    """``value`` as a whole number (``10``, ``"10"``, ``10.0``, ``"1e6"``), or ``None`` when it
    is none (``1.5``, ``"ten"``, ``True``): a fraction is no count of workers or bytes, and is
    not cut to one silently."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() else None


def _optional_positive(settings: BaseSettings, name: str, kind: type[int] | type[float]) -> Any:
    """A positive number, or ``None`` (also from ``"None"`` or ``""`` on the command line),
    which switches the limit off."""
    value = settings[name] if name in settings else DEFAULTS[name]
    if _unset(value):
        return None
    what = "whole number" if kind is int else "number"
    problem = ValueError(f"{name} must be a positive {what} or None, not {value!r:.80}")
    if isinstance(value, bool):
        raise problem
    if kind is int:
        number: float | None = _whole(value)
    else:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = None
    if number is None or math.isnan(number) or number <= 0:
        raise problem
    return number


def _optional_str(settings: BaseSettings, name: str) -> str | None:
    """A field name, or ``None`` (also from ``"None"`` or ``""`` on the command line), which
    switches the field off."""
    value = settings[name] if name in settings else DEFAULTS[name]
    if _unset(value):
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a field name or None, not {value!r}")
    return value


METADATA_NAMES: tuple[str, ...] = tuple(item.name for item in dataclass_fields(Metadata))
"""The names of the metadata values, which ``CETD_METADATA_FIELDS = True`` also gives the
item fields."""


def _metadata_fields(value: Any) -> dict[str, str]:
    """``CETD_METADATA_FIELDS``: ``None``/``False`` (off), ``True`` (every value, under its
    own name), a list of names, or a mapping from metadata name to item field; a JSON text of
    any of them too (``-s 'CETD_METADATA_FIELDS={"published": "date"}'``)."""
    original = value
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("", "none", "false", "0"):
            return {}
        if text.lower() in ("true", "1"):
            value = True
        else:
            try:
                value = json.loads(text)
            except ValueError:
                value = [name.strip() for name in text.split(",")]
    if value is None or value is False:
        return {}
    if value is True:
        return {name: name for name in METADATA_NAMES}
    if isinstance(value, list | tuple):
        value = {name: name for name in value}
    if not isinstance(value, Mapping):
        raise ValueError(
            f"CETD_METADATA_FIELDS must be True, a list of metadata names or a dict of metadata"
            f" name to item field, not {original!r}"
        )
    chosen: dict[str, str] = {}
    for name, target in value.items():
        if name not in METADATA_NAMES:
            raise ValueError(
                f"CETD_METADATA_FIELDS: {name!r} is no metadata name (one of "
                f"{', '.join(METADATA_NAMES)}), in {original!r}"
            )
        if not isinstance(target, str) or not target.strip():
            raise ValueError(
                f"CETD_METADATA_FIELDS: the field for {name!r} must be a field name, not {target!r}"
            )
        chosen[name] = target.strip()
    return chosen


@dataclass(frozen=True)
class CETDSettings:
    """The ``CETD_*`` settings of one crawler, validated (see :data:`DEFAULTS`)."""

    enabled: bool = True
    algorithm: str = DEFAULT_ALGORITHM
    options: dict[str, Any] = field(default_factory=dict)
    max_body_size: int | None = DEFAULTS["CETD_MAX_BODY_SIZE"]
    max_nodes: int | None = DEFAULTS["CETD_MAX_NODES"]
    max_attributes: int | None = DEFAULTS["CETD_MAX_ATTRIBUTES"]
    time_budget: float | None = DEFAULTS["CETD_TIME_BUDGET"]
    isolation: str = DEFAULTS["CETD_ISOLATION"]
    workers: int = THREAD_WORKERS
    eager_parse: bool = False
    html_field: str | None = "main_content_html"
    text_field: str | None = "main_content_text"
    title_field: str | None = "main_content_title"
    page_type_field: str | None = "main_content_page_type"
    page_type_confidence_field: str | None = None
    source_field: str | None = None
    markdown_field: str | None = None
    metadata_fields: dict[str, str] = field(default_factory=dict)
    """Metadata name (a field of :class:`~scrapy_cetd.result.Metadata`) -> item field."""
    clean_html: bool = False
    drop_source: bool = False
    overwrite: bool = True
    drop_empty: bool = False
    link_table_size: int = DEFAULTS["CETD_LINK_TABLE_SIZE"]
    log_field_length: int | None = DEFAULTS["CETD_LOG_FIELD_LENGTH"]

    @property
    def content_fields(self) -> tuple[str, ...]:
        """The HTML and text fields (none, one or two): a declared item class that lacks one
        is told of it once, since a misspelt name shows there."""
        return tuple(name for name in (self.html_field, self.text_field) if name is not None)

    @property
    def chosen_fields(self) -> tuple[tuple[str, str], ...]:
        """The fields off by default that the crawl's settings name, with their setting's name
        (the Markdown's, the page type's confidence's): a declared item class that lacks one
        is told of it, since only a user who wants the field sets it (a misspelt name shows
        there)."""
        chosen = (
            ("CETD_MARKDOWN_FIELD", self.markdown_field),
            ("CETD_PAGE_TYPE_CONFIDENCE_FIELD", self.page_type_confidence_field),
        )
        return tuple((setting, name) for setting, name in chosen if name is not None)

    @property
    def fields(self) -> tuple[str, ...]:
        """The content fields, then the title, Markdown, page-type and confidence fields: what
        the pipeline writes and clears. A declared item class gets those of them it declares
        (and the metadata fields it declares); one that declares none of them and no metadata
        field is skipped."""
        optional = (
            self.title_field,
            self.markdown_field,
            self.page_type_field,
            self.page_type_confidence_field,
        )
        return self.content_fields + tuple(name for name in optional if name is not None)


LINKS_PER_ITEM_SLOT = 4
"""Links one response's items may hold at once, per ``CONCURRENT_ITEMS``: Scrapy pulls up to
twice ``CONCURRENT_ITEMS`` items ahead of the ``CONCURRENT_ITEMS`` it processes, and the spider
middleware links each as it is pulled; one more for margin."""


def links_in_flight(settings: BaseSettings) -> int:
    """An estimate of the most item links a crawl holds at once: :data:`LINKS_PER_ITEM_SLOT`
    times ``CONCURRENT_ITEMS`` for each of ``CONCURRENT_REQUESTS`` responses whose callbacks
    run together (a heuristic: Scrapy bounds the responses it processes at once by their
    size, not by that setting). The default ``CETD_LINK_TABLE_SIZE`` grows to it, so that raising
    ``CONCURRENT_ITEMS`` does not evict the links of items still on their way."""
    try:
        items = settings.getint("CONCURRENT_ITEMS", 100)
        requests = settings.getint("CONCURRENT_REQUESTS", 16)
    except (TypeError, ValueError):  # Scrapy itself names these settings' mistakes
        return 0
    return LINKS_PER_ITEM_SLOT * max(items, 0) * max(requests, 0)


def read_settings(settings: BaseSettings) -> CETDSettings:
    """The ``CETD_*`` settings of ``settings``, defaults filled in.

    Raises :class:`ValueError` for a value of the wrong kind, so a typo stops the crawl at
    start-up instead of surfacing as a warning on every item.
    """

    def get(name: str) -> Any:
        return settings[name] if name in settings else DEFAULTS[name]

    algorithm = get("CETD_ALGORITHM")
    if not isinstance(algorithm, str) or not algorithm:
        raise ValueError(f"CETD_ALGORITHM must be an algorithm name or import path: {algorithm!r}")
    try:
        # getdict reads a JSON object too: -s 'CETD_OPTIONS={"include_comments": true}'
        options = settings.getdict("CETD_OPTIONS") if "CETD_OPTIONS" in settings else {}
    except (TypeError, ValueError):
        raise ValueError(
            f"CETD_OPTIONS must be a dict of extractor options (or a JSON object), "
            f"not {settings['CETD_OPTIONS']!r}"
        ) from None
    link_table_size = _setting_int(settings, "CETD_LINK_TABLE_SIZE")
    if link_table_size <= 0:
        raise ValueError(f"CETD_LINK_TABLE_SIZE must be positive: {link_table_size}")
    if settings.get("CETD_LINK_TABLE_SIZE") is None:  # unset, or None: the default
        link_table_size = max(link_table_size, links_in_flight(settings))
    isolation = get("CETD_ISOLATION")
    if isolation not in ISOLATIONS:
        raise ValueError(
            f"CETD_ISOLATION must be one of {', '.join(map(repr, ISOLATIONS))}, not {isolation!r}"
        )
    workers = _workers(settings, isolation)
    if workers <= 0:
        raise ValueError(f"CETD_WORKERS must be positive: {workers}")
    read = CETDSettings(
        enabled=setting_bool(settings, "CETD_ENABLED"),
        algorithm=algorithm,
        options=dict(options),
        max_body_size=_optional_positive(settings, "CETD_MAX_BODY_SIZE", int),
        max_nodes=_optional_positive(settings, "CETD_MAX_NODES", int),
        max_attributes=_optional_positive(settings, "CETD_MAX_ATTRIBUTES", int),
        time_budget=_optional_positive(settings, "CETD_TIME_BUDGET", float),
        isolation=isolation,
        workers=workers,
        eager_parse=setting_bool(settings, "CETD_EAGER_PARSE"),
        html_field=_optional_str(settings, "CETD_HTML_FIELD"),
        text_field=_optional_str(settings, "CETD_TEXT_FIELD"),
        title_field=_optional_str(settings, "CETD_TITLE_FIELD"),
        page_type_field=_optional_str(settings, "CETD_PAGE_TYPE_FIELD"),
        page_type_confidence_field=_optional_str(settings, "CETD_PAGE_TYPE_CONFIDENCE_FIELD"),
        source_field=_optional_str(settings, "CETD_SOURCE_FIELD"),
        markdown_field=_optional_str(settings, "CETD_MARKDOWN_FIELD"),
        metadata_fields=_metadata_fields(get("CETD_METADATA_FIELDS")),
        clean_html=setting_bool(settings, "CETD_CLEAN_HTML"),
        drop_source=setting_bool(settings, "CETD_DROP_SOURCE"),
        overwrite=setting_bool(settings, "CETD_OVERWRITE"),
        drop_empty=setting_bool(settings, "CETD_DROP_EMPTY"),
        link_table_size=link_table_size,
        log_field_length=_optional_positive(settings, "CETD_LOG_FIELD_LENGTH", int),
    )
    _check_distinct_fields(read)
    return read


def _check_distinct_fields(read: CETDSettings) -> None:
    """Raise :class:`ValueError` when two settings name one item field: the pipeline would
    write one value over the other (the HTML over the text, a headline over the text), or
    over the source it extracts from. The metadata's headline may go to the title field: the
    pipeline writes it there anyway."""
    named: dict[str, str] = {}
    pairs = [
        ("CETD_SOURCE_FIELD", read.source_field),
        ("CETD_HTML_FIELD", read.html_field),
        ("CETD_TEXT_FIELD", read.text_field),
        ("CETD_TITLE_FIELD", read.title_field),
        ("CETD_MARKDOWN_FIELD", read.markdown_field),
        ("CETD_PAGE_TYPE_FIELD", read.page_type_field),
        ("CETD_PAGE_TYPE_CONFIDENCE_FIELD", read.page_type_confidence_field),
        *(
            (f"CETD_METADATA_FIELDS[{value!r}]", item_field)
            for value, item_field in read.metadata_fields.items()
            if not (value == "title" and item_field == read.title_field)
        ),
    ]
    for setting, name in pairs:
        if name is None:
            continue
        if name in named:
            raise ValueError(f"{setting} and {named[name]} both name the item field {name!r}")
        named[name] = setting


def warn_unknown_names(crawler: Crawler) -> None:
    """Warn of each setting of ``crawler`` named like scrapy-cetd's that is none of them
    (:data:`DEFAULTS`), with the setting it may have meant (``CETD_METADATA_FIELD`` for
    ``CETD_METADATA_FIELDS``): Scrapy ignores a setting no component reads, so a misspelt name
    would leave its feature off, or its default on, without a word. A warning, not an error: a
    settings file shared with another version of scrapy-cetd may name a setting this one
    lacks."""
    for name in sorted(key for key in crawler.settings if isinstance(key, str)):
        if not name.upper().startswith("CETD") or name in DEFAULTS:
            continue
        close = difflib.get_close_matches(name.upper(), DEFAULTS, n=1)
        logger.warning(
            "scrapy-cetd: %s is no setting of scrapy-cetd: ignored%s",
            name,
            f" (did you mean {close[0]}?)" if close else "",
            extra={"crawler": crawler},
        )


_TOLD_DISABLED: weakref.WeakSet[Crawler] = weakref.WeakSet()
"""The crawlers already told that scrapy-cetd is off, so they are told once."""


def disabled(crawler: Crawler) -> NotConfigured:
    """What a component raises in its constructor when ``CETD_ENABLED`` is false.

    Switching scrapy-cetd off is a choice, not a problem: Scrapy logs a WARNING for a
    :class:`~scrapy.exceptions.NotConfigured` that has a message, so this one has none, and
    the crawl logs one INFO line instead of a warning per component.
    """
    if crawler not in _TOLD_DISABLED:
        _TOLD_DISABLED.add(crawler)
        logger.info("scrapy-cetd is off (CETD_ENABLED is False)", extra={"crawler": crawler})
    return NotConfigured()

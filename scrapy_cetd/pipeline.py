"""The item pipeline: the main content of the page an item came from, written into the item.

For each item, :class:`CETDPipeline` finds the document (the DOM of the linked response, see
:mod:`scrapy_cetd.linking`, else raw HTML in ``CETD_SOURCE_FIELD``), runs the configured
extractor on it and writes ``main_content_html`` / ``main_content_text`` through
:class:`~itemadapter.ItemAdapter`, so dicts, :class:`scrapy.Item`, dataclass and attrs items
all work.

Bad input never costs an item: when there is nothing to extract from, the extractor fails or
finds nothing, or the item cannot hold the fields, the item goes on with the fields set to
``""`` (left untouched when ``CETD_OVERWRITE`` is off and the spider filled them), one warning
names the URL and the cause, and a ``cetd/`` stat counts it. ``CETD_DROP_EMPTY`` drops such
items instead, with the cause in the :exc:`~scrapy.exceptions.DropItem` message.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from itemadapter import ItemAdapter
from lxml import etree
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.misc import load_object

from scrapy_cetd.api import ALGORITHMS, get_extractor
from scrapy_cetd.linking import ItemResponseLinks
from scrapy_cetd.middleware import decline_reason, get_dom
from scrapy_cetd.parse import to_tree
from scrapy_cetd.settings import CETDSettings, read_settings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from scrapy_cetd.result import ExtractionResult

logger = logging.getLogger(__name__)

_MAX_WARNED = 10_000
"""How many (URL, cause) pairs the pipeline remembers to warn about each only once."""

KEEP_ON_DROP_EMPTY = frozenset({"dont_cetd", "already_set"})
"""Skip reasons that do not mean "no main content": ``CETD_DROP_EMPTY`` keeps these items."""


class ExtractorLike(Protocol):
    """What the pipeline needs of an extractor: :meth:`scrapy_cetd.Extractor.extract`."""

    def extract(self, tree: etree._Element, *, url: str | None = None) -> ExtractionResult:
        """The main content below ``tree``."""
        ...


def build_extractor(algorithm: str, options: Mapping[str, Any]) -> ExtractorLike:
    """The extractor named by ``CETD_ALGORITHM``, configured with ``CETD_OPTIONS``.

    ``algorithm`` is a registered name (:data:`scrapy_cetd.ALGORITHMS`) or the import path of
    a class whose instances have the same ``extract(tree, *, url=None)`` method; the class is
    called with ``options`` as keyword arguments. Raises :class:`ValueError` otherwise.
    """
    if algorithm in ALGORITHMS:
        return get_extractor(algorithm, **options)
    if "." not in algorithm:
        valid = ", ".join(sorted(ALGORITHMS))
        raise ValueError(
            f"unknown CETD_ALGORITHM {algorithm!r}: use one of {valid} or the import path of an "
            "extractor class"
        )
    try:
        cls = load_object(algorithm)
    except (ImportError, NameError, ValueError) as exc:
        raise ValueError(f"CETD_ALGORITHM {algorithm!r} cannot be imported: {exc}") from exc
    if not isinstance(cls, type):
        raise ValueError(f"CETD_ALGORITHM {algorithm!r} is not a class")
    try:
        extractor = cls(**options)
    except TypeError as exc:
        raise ValueError(f"CETD_OPTIONS do not fit {algorithm}: {exc}") from exc
    if not callable(getattr(extractor, "extract", None)):
        raise ValueError(f"CETD_ALGORITHM {algorithm!r} has no extract(tree, *, url) method")
    return extractor  # type: ignore[no-any-return]


class _NoContentError(Exception):
    """An item for which no main content could be written: ``stat`` is the stat to count,
    ``reason`` its short name and ``message`` the warning."""

    def __init__(self, stat: str, reason: str, message: str, *, warn_key: str | None = None):
        super().__init__(message)
        self.stat = stat
        self.reason = reason
        self.message = message
        self.warn_key = warn_key


class CETDPipeline:
    """Writes the main content of each item's page into the item (see the module docstring).

    Stats: ``cetd/item_extracted_count``, ``cetd/item_empty_count``,
    ``cetd/item_error_count``, ``cetd/item_skipped_count/<reason>`` and
    ``cetd/extract_seconds`` (total) / ``cetd/extract_seconds_max``. Extraction runs in the
    reactor thread, like Scrapy's own parsing: it is linear in the page size and costs about
    as much as the parse (``benchmarks/speed.py``).
    """

    def __init__(self, crawler: Crawler) -> None:
        settings = read_settings(crawler.settings)
        if not settings.enabled:
            raise NotConfigured("CETD_ENABLED is False")
        if not settings.fields:
            raise NotConfigured("CETD_HTML_FIELD and CETD_TEXT_FIELD are both None")
        self.crawler = crawler
        self.settings: CETDSettings = settings
        self.extractor: ExtractorLike = build_extractor(settings.algorithm, settings.options)
        self.links = ItemResponseLinks.for_crawler(crawler)
        self._warned: set[tuple[str, str]] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CETDPipeline:
        """Build the pipeline and its extractor from the crawler's ``CETD_*`` settings."""
        return cls(crawler)

    async def process_item(self, item: Any) -> Any:
        """Fill the main content fields of ``item`` and return it (or drop it, see above)."""
        response = self.links.pop(item)
        url = response.url if response is not None else _item_url(item)
        try:
            adapter = ItemAdapter(item)
        except TypeError:
            self._report(
                item,
                None,
                url,
                _NoContentError("skipped", "not_an_item", f"not an item: {item!r:.80}"),
            )
            return item
        try:
            self._fill(adapter, response, url)
        except _NoContentError as failure:
            self._report(item, adapter, url, failure)
        return item

    def _fill(self, adapter: ItemAdapter, response: Response | None, url: str | None) -> None:
        settings = self.settings
        stats = self.crawler.stats
        item_class = type(adapter.item)
        declared = ItemAdapter.get_field_names_from_class(item_class)
        if declared is not None:
            missing = [name for name in settings.fields if name not in declared]
            if missing:
                raise _NoContentError(
                    "skipped",
                    "missing_fields",
                    f"{item_class.__name__} declares no field {', '.join(missing)} (declare it,"
                    " or set CETD_HTML_FIELD / CETD_TEXT_FIELD to another name or None)",
                    warn_key=item_class.__qualname__,
                )
        if not settings.overwrite and all(_is_set(adapter, name) for name in settings.fields):
            stats.inc_value("cetd/item_skipped_count/already_set")
            return
        tree = self._document(adapter, response, url)
        started = time.perf_counter()
        try:
            result = self.extractor.extract(tree, url=url)
        except Exception as exc:
            raise _NoContentError("error", "error", f"extractor failed: {exc!r}") from exc
        finally:
            elapsed = time.perf_counter() - started
            stats.set_value(
                "cetd/extract_seconds", stats.get_value("cetd/extract_seconds", 0.0) + elapsed
            )
            stats.max_value("cetd/extract_seconds_max", elapsed)
        html, text = getattr(result, "html", None), getattr(result, "text", None)
        if not isinstance(html, str) or not isinstance(text, str):
            raise _NoContentError(
                "error", "error", f"extractor returned {result!r:.80}, not a result"
            )
        if not text:
            reason = getattr(result, "reason", None) or "no text"
            raise _NoContentError("empty", "empty", f"no main content ({reason})")
        try:
            for name, value in ((settings.html_field, html), (settings.text_field, text)):
                if name is not None and (settings.overwrite or not _is_set(adapter, name)):
                    adapter[name] = value
        except Exception as exc:
            raise _NoContentError(
                "error", "error", f"cannot set the item's fields: {exc!r}"
            ) from exc
        stats.inc_value("cetd/item_extracted_count")

    def _document(
        self, adapter: ItemAdapter, response: Response | None, url: str | None
    ) -> etree._Element:
        """The tree to extract from: the response's DOM, else the source field's HTML."""
        reason = "no_source"
        if response is not None:
            reason = decline_reason(response, max_body_size=self.settings.max_body_size) or ""
            if not reason:
                try:
                    dom = get_dom(response)
                except Exception as exc:
                    raise _NoContentError(
                        "error", "error", f"cannot parse the response: {exc!r}"
                    ) from exc
                if dom is not None:
                    return dom
            if reason == "dont_cetd":
                raise _NoContentError("skipped", reason, "")
        field = self.settings.source_field
        raw = adapter.get(field) if field is not None else None
        if isinstance(raw, str | bytes):
            try:
                return to_tree(raw, url=url)
            except ValueError as exc:
                raise _NoContentError("empty", "empty", f"no main content ({exc})") from exc
            except Exception as exc:
                raise _NoContentError("error", "error", f"cannot parse {field}: {exc!r}") from exc
        what = {
            "no_source": "no response is linked to the item and "
            + (f"its {field} field holds no HTML" if field else "CETD_SOURCE_FIELD is unset"),
            "not_html": "the response is not HTML",
            "too_large": "the response is larger than CETD_MAX_BODY_SIZE",
        }.get(reason, reason)
        raise _NoContentError("skipped", reason, f"nothing to extract from: {what}")

    def _report(
        self, item: Any, adapter: ItemAdapter | None, url: str | None, failure: _NoContentError
    ) -> None:
        """Count, warn once per (URL, cause), clear the fields or drop the item."""
        stats = self.crawler.stats
        if failure.stat == "skipped":
            stats.inc_value(f"cetd/item_skipped_count/{failure.reason}")
        else:
            stats.inc_value(f"cetd/item_{failure.stat}_count")
        if failure.reason == "dont_cetd":
            return
        where = url or "an item without URL"
        if self.settings.drop_empty and failure.reason not in KEEP_ON_DROP_EMPTY:
            raise DropItem(f"scrapy-cetd: no main content for {where}: {failure.message}")
        if adapter is not None:
            self._clear(adapter)
        key = (failure.warn_key or url or "", failure.reason)
        if key not in self._warned:
            if len(self._warned) >= _MAX_WARNED:
                self._warned.clear()
            self._warned.add(key)
            logger.warning(
                "scrapy-cetd: %s: %s", where, failure.message, extra={"crawler": self.crawler}
            )

    def _clear(self, adapter: ItemAdapter) -> None:
        """Set the fields the item can hold to ``""``, sparing the spider's own values when
        ``CETD_OVERWRITE`` is off."""
        declared = ItemAdapter.get_field_names_from_class(type(adapter.item))
        for name in self.settings.fields:
            if declared is not None and name not in declared:
                continue
            if not self.settings.overwrite and _is_set(adapter, name):
                continue
            try:
                adapter[name] = ""
            except Exception:  # a frozen item: leave it as it is
                logger.debug("scrapy-cetd: cannot clear %s", name, exc_info=True)


def _is_set(adapter: ItemAdapter, name: str) -> bool:
    """Whether the spider gave the field a value (``None`` and ``""`` are no value)."""
    value = adapter.get(name)
    return value is not None and value != ""


def _item_url(item: Any) -> str | None:
    """The item's own ``url`` field, for messages when no response is linked."""
    try:
        value = ItemAdapter(item).get("url")
    except TypeError:
        return None
    return value if isinstance(value, str) else None

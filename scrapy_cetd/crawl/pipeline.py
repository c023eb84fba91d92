"""The item pipeline: the main content of the page an item came from, written into the item.

For each item, :class:`CETDPipeline` finds the document (the DOM of the linked response, see
:mod:`scrapy_cetd.crawl.linking`, else raw HTML in ``CETD_SOURCE_FIELD``), runs the configured
extractor on it and writes ``main_content_html`` / ``main_content_text`` /
``main_content_title`` / ``main_content_page_type`` through :class:`~itemadapter.ItemAdapter`,
so dicts, :class:`scrapy.Item`, dataclass and attrs items all work.

The extraction runs in a worker thread (:mod:`scrapy_cetd.crawl.threads`) or, with
``CETD_ISOLATION = "process"``, a worker process (:mod:`scrapy_cetd.crawl.isolation`), never in
the reactor's thread, within the limits of :mod:`scrapy_cetd.limits` (``CETD_MAX_ATTRIBUTES``,
``CETD_MAX_NODES``, ``CETD_TIME_BUDGET``). The budget counts from the response's arrival
(recorded by :class:`~scrapy_cetd.crawl.middleware.CETDDownloaderMiddleware`), so time spent
waiting for a worker counts too: when it runs out the item goes on at once, whether or not the
extractor notices, and a job still waiting is not started. The items of one response share one
extraction (:mod:`scrapy_cetd.crawl.jobs`); the items of a response whose request has
``dont_cetd`` in its ``meta``, or whose callback is marked with
:func:`~scrapy_cetd.crawl.middleware.dont_cetd`, are left alone.

Once an item is done, bytes in its ``CETD_SOURCE_FIELD`` become the text they decode to, so
that a JSON feed can export it; ``CETD_DROP_SOURCE`` removes the field instead.

Bad input never costs an item: when there is nothing to extract from, the input is not a
document, a limit is hit, the extractor fails or finds nothing, or the item cannot hold the
fields, the item goes on with the fields set to ``""`` (left untouched when ``CETD_OVERWRITE``
is off and the spider filled them), one warning names the URL and the cause, and a ``cetd/``
stat counts it. ``CETD_DROP_EMPTY`` drops such items instead, with the cause in the
:exc:`~scrapy.exceptions.DropItem` message.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
import weakref
from collections.abc import Callable, Collection, MutableMapping
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.http import TextResponse

from scrapy_cetd.api import CompletingExtractor, Outputs, build_completing
from scrapy_cetd.crawl.isolation import ProcessExtractors, extract_response
from scrapy_cetd.crawl.jobs import Bridge, Extraction, Outcome
from scrapy_cetd.crawl.linking import ItemResponseLinks
from scrapy_cetd.crawl.middleware import arrival_time, decline_reason
from scrapy_cetd.crawl.settings import CETDSettings, disabled, read_settings
from scrapy_cetd.crawl.threads import MAX_STUCK_THREADS, WorkerThreads
from scrapy_cetd.extractors.registry import build_extractor
from scrapy_cetd.limits import LimitExceededError, Limits, TreeExtractor
from scrapy_cetd.page.decoding import html_response
from scrapy_cetd.page.parse import NotADocumentError
from scrapy_cetd.result import ExtractionResult, Metadata, Reason

if TYPE_CHECKING:
    from concurrent.futures import Future

    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

_MAX_WARNED = 10_000
"""How many (URL, cause) pairs the pipeline remembers to warn about each only once."""

KEEP_ON_DROP_EMPTY = frozenset({"dont_cetd", "already_set"})
"""Skip reasons that do not mean "no main content": ``CETD_DROP_EMPTY`` keeps these items."""

KILL_GRACE = 0.5
"""With ``CETD_ISOLATION = "process"``: seconds a job may run past its budget (counted from
when a worker process took it) to stop at its own next deadline check, before its worker is
killed. Killing costs a new process; most jobs stop on their own within milliseconds."""


class _NoContentError(Exception):
    """An item for which no main content could be written: ``stat`` is the stat to count,
    ``reason`` its short name, ``message`` the warning and, for ``stat == "empty"``, ``cause``
    the kind of emptiness (``cetd/item_empty_reason_count/<cause>``): the result's
    ``reason_code``."""

    def __init__(
        self,
        stat: str,
        reason: str,
        message: str,
        *,
        warn_key: str | None = None,
        cause: Reason | None = None,
    ):
        super().__init__(message)
        self.stat = stat
        self.reason = reason
        self.message = message
        self.warn_key = warn_key
        self.cause = cause


class CETDPipeline:
    """Writes the main content of each item's page into the item (see the module docstring).

    Stats: ``cetd/item_extracted_count``, ``cetd/item_empty_count`` (with
    ``cetd/item_empty_reason_count/<cause>``), ``cetd/item_error_count``,
    ``cetd/item_skipped_count/<reason>``, ``cetd/extract_seconds`` (the jobs' CPU time, in
    total) / ``cetd/extract_seconds_max``, ``cetd/extract_expired_waiting_count`` (jobs whose
    deadline passed before a worker was free), ``cetd/extract_thread_replaced_count`` and
    ``cetd/extract_process_killed_count``.
    """

    def __init__(self, crawler: Crawler) -> None:
        settings = read_settings(crawler.settings)
        if not settings.enabled:
            raise disabled(crawler)
        if not (settings.fields or settings.metadata_fields):
            raise NotConfigured(
                "CETD_HTML_FIELD, CETD_TEXT_FIELD, CETD_TITLE_FIELD, CETD_MARKDOWN_FIELD,"
                " CETD_PAGE_TYPE_FIELD and CETD_PAGE_TYPE_CONFIDENCE_FIELD are all None, and"
                " CETD_METADATA_FIELDS is unset"
            )
        self.crawler = crawler
        self.settings: CETDSettings = settings
        outputs = Outputs(
            metadata=bool(settings.metadata_fields),
            markdown=settings.markdown_field is not None,
            clean_html=settings.clean_html,
        )
        self.extractor: TreeExtractor = build_extractor(settings.algorithm, settings.options)
        self._completing = CompletingExtractor(self.extractor, outputs)
        self.limits = Limits(
            max_body_size=settings.max_body_size,
            max_nodes=settings.max_nodes,
            time_budget=settings.time_budget,
            max_attributes=settings.max_attributes,
        )
        self.links = ItemResponseLinks.for_crawler(crawler)
        self.workers = WorkerThreads(settings.workers)
        self.processes: ProcessExtractors | None = None
        if settings.isolation == "process":
            self.processes = ProcessExtractors(
                settings.workers,
                build=functools.partial(build_completing, outputs=outputs),
                algorithm=settings.algorithm,
                options=settings.options,
                limits=self.limits,
            )
        self._extractions: weakref.WeakKeyDictionary[Response, Extraction] = (
            weakref.WeakKeyDictionary()
        )
        self._name = str(getattr(self.extractor, "name", "") or type(self.extractor).__name__)
        self._warned: set[tuple[str, str]] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CETDPipeline:
        """Build the pipeline and its extractor from the crawler's ``CETD_*`` settings."""
        return cls(crawler)

    async def open_spider(self) -> None:
        """Get ready before the first page, so that it does not spend its budget on the start:
        with worker threads, load what the outputs need (:meth:`CompletingExtractor.prepare`)
        in a thread; with ``CETD_ISOLATION = "process"``, start the worker processes (each
        prepares its own) and wait until they answer."""
        bridge = Bridge()
        if self.processes is None:
            awaitable, fire = bridge.waiter()

            def prepare() -> None:
                try:
                    self._completing.prepare()
                except Exception:  # the first page that needs them tries again
                    logger.warning(
                        "scrapy-cetd: cannot load the metadata's libraries", exc_info=True
                    )
                finally:
                    with contextlib.suppress(RuntimeError):  # the event loop closed meanwhile
                        bridge.call_from_thread(fire, (None, None))

            threading.Thread(target=prepare, name="scrapy-cetd-prepare", daemon=True).start()
            await awaitable
            return
        for future in self.processes.start():
            awaitable, fire = bridge.waiter()

            def answered(_: Future[bool], fire: Callable[[Outcome], None] = fire) -> None:
                bridge.call_from_thread(fire, (None, None))

            future.add_done_callback(answered)
            await awaitable

    async def close_spider(self) -> None:
        """Let the worker threads end; stop the worker processes."""
        self.workers.close()
        if self.processes is not None:
            self.processes.close()

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
        decoded: list[Response] = []
        try:
            await self._fill(adapter, response, url, decoded)
        except _NoContentError as failure:
            self._report(item, adapter, url, failure)
            if failure.reason == "dont_cetd":
                return item
        if response is not None:
            decoded.append(response)
        self._settle_source(adapter, url, decoded)
        return item

    def _settle_source(
        self, adapter: ItemAdapter, url: str | None, decoded: list[Response]
    ) -> None:
        """The source field once the item is done with: removed with ``CETD_DROP_SOURCE``
        (set to ``None`` in an item class whose fields cannot be deleted), else bytes there
        become the text they decode to, so that a JSON, JSON Lines or XML feed can export the
        item. The text is the one of the response extracted from the field, or of the linked
        response when the field holds its body (decoded already), else decoded here, as the
        extraction would have."""
        field = self.settings.source_field
        if field is None or field not in adapter:
            return
        value = adapter[field]
        try:
            if self.settings.drop_source:
                if isinstance(adapter.item, MutableMapping):
                    del adapter[field]
                else:
                    adapter[field] = None
            elif isinstance(value, bytes | bytearray):
                adapter[field] = _text_of(bytes(value), decoded, url)
        except Exception:  # a frozen item: it goes on as it is
            logger.debug("scrapy-cetd: cannot change %s", field, exc_info=True)

    def _writable(self, adapter: ItemAdapter) -> tuple[str, ...]:
        """The fields of :attr:`CETDSettings.fields` this item can hold: every one for a dict,
        those its class declares for a declared item class, so that a class of the Markdown
        field and a headline alone, or of metadata alone, gets what it declares. Raises for a
        declared class with none of these fields and none of ``CETD_METADATA_FIELDS``'s; tells
        once per class, at INFO, of the HTML and text fields a class that gets others lacks (a
        misspelt name shows there)."""
        settings = self.settings
        item_class = type(adapter.item)
        declared = ItemAdapter.get_field_names_from_class(item_class)
        if declared is None:
            return settings.fields
        writable = tuple(name for name in settings.fields if name in declared)
        if not (writable or self._metadata_targets(adapter)):
            every = settings.fields + tuple(settings.metadata_fields.values())
            raise _NoContentError(
                "skipped",
                "missing_fields",
                f"{item_class.__name__} declares none of the fields scrapy-cetd writes"
                f" ({', '.join(every)}; see the CETD_*_FIELD settings and CETD_METADATA_FIELDS)",
                warn_key=item_class.__qualname__,
            )
        lacking = [name for name in settings.content_fields if name not in declared]
        if lacking and self._first_time((item_class.__qualname__, "content_fields")):
            setting = {
                settings.html_field: "CETD_HTML_FIELD",
                settings.text_field: "CETD_TEXT_FIELD",
            }
            logger.info(
                "scrapy-cetd: %s declares no field %s: it gets only the fields it declares"
                " (%s = None, if that is meant, says so)",
                item_class.__name__,
                ", ".join(lacking),
                " and ".join(setting[name] for name in lacking),
                extra={"crawler": self.crawler},
            )
        return writable

    async def _fill(
        self,
        adapter: ItemAdapter,
        response: Response | None,
        url: str | None,
        decoded: list[Response],
    ) -> None:
        settings = self.settings
        writable = self._writable(adapter)
        targets = writable + self._metadata_targets(adapter)
        if not settings.overwrite and all(_is_set(adapter, name) for name in targets):
            self.crawler.stats.inc_value("cetd/item_skipped_count/already_set")
            return
        extraction = self._extraction(adapter, response, url, decoded)
        result, error = await extraction.wait()
        if isinstance(error, NotADocumentError):
            raise _NoContentError(
                "empty", "empty", f"no main content ({error})", cause=Reason.NOT_A_DOCUMENT
            )
        if error is not None:
            raise _NoContentError("error", "error", f"extractor failed: {error!r}")
        assert result is not None
        for note in result.notes:  # what was repaired or bounded on the way
            self.crawler.stats.inc_value(f"cetd/note_count/{note.partition(':')[0]}")
        if not result.text:
            raise _NoContentError(
                "empty",
                "empty",
                f"no main content ({result.reason or 'no text'})",
                cause=result.reason_code or Reason.NO_CONTENT,
            )
        values: dict[str | None, str | float | None] = {
            settings.html_field: result.html,
            settings.text_field: result.text,
            settings.title_field: result.title or "",
            settings.markdown_field: result.markdown or "",
            settings.page_type_field: result.page_type or "",
            settings.page_type_confidence_field: result.page_type_confidence,
        }
        try:
            for name in writable:
                if settings.overwrite or not _is_set(adapter, name):
                    adapter[name] = values[name]
                else:
                    self.crawler.stats.inc_value(f"cetd/field_kept_count/{name}")
            self._write_metadata(adapter, result.metadata)
        except Exception as exc:
            raise _NoContentError(
                "error", "error", f"cannot set the item's fields: {exc!r}"
            ) from exc
        self.crawler.stats.inc_value("cetd/item_extracted_count")
        if result.page_type is not None:
            self.crawler.stats.inc_value(f"cetd/page_type/{result.page_type}")

    def _metadata_targets(self, adapter: ItemAdapter) -> tuple[str, ...]:
        """The item fields of ``CETD_METADATA_FIELDS`` this item can hold (a declared item
        class gets those it declares)."""
        targets = tuple(self.settings.metadata_fields.values())
        declared = ItemAdapter.get_field_names_from_class(type(adapter.item))
        if declared is None:
            return targets
        return tuple(name for name in targets if name in declared)

    def _write_metadata(self, adapter: ItemAdapter, metadata: Metadata | None) -> None:
        """Write each metadata value the page gives into its field (a tuple as a list); a value
        the page does not give leaves the field as it is, and is counted in
        ``cetd/metadata_missing_count/<name>`` (a written one in
        ``cetd/metadata_count/<name>``, and one whose field a declared item class lacks in
        ``cetd/metadata_undeclared_count/<name>``: a misspelt field shows there). Without
        ``CETD_OVERWRITE`` a field the spider filled is kept, the page's value counted in
        ``cetd/metadata_kept_count/<name>``."""
        chosen = self.settings.metadata_fields
        if not chosen:
            return
        targets = set(self._metadata_targets(adapter))
        stats = self.crawler.stats
        for name, field_name in chosen.items():
            if field_name not in targets:
                stats.inc_value(f"cetd/metadata_undeclared_count/{name}")
                self._warn_undeclared(adapter, name, field_name)
                continue
            value = getattr(metadata, name) if metadata is not None else None
            if value is None or value == ():
                stats.inc_value(f"cetd/metadata_missing_count/{name}")
                continue
            if self.settings.overwrite or not _is_set(adapter, field_name):
                adapter[field_name] = list(value) if isinstance(value, tuple) else value
                stats.inc_value(f"cetd/metadata_count/{name}")
            else:
                stats.inc_value(f"cetd/metadata_kept_count/{name}")

    def _warn_undeclared(self, adapter: ItemAdapter, name: str, field_name: str) -> None:
        """Warn once per item class and field that the class declares no field for a metadata
        value (a misspelt field name, as the content fields are warned of)."""
        item_class = type(adapter.item)
        if not self._first_time((item_class.__qualname__, f"metadata:{field_name}")):
            return
        logger.warning(
            "scrapy-cetd: %s declares no field %s for the metadata's %s: not written (declare"
            " it, or send %s to another field in CETD_METADATA_FIELDS)",
            item_class.__name__,
            field_name,
            name,
            name,
            extra={"crawler": self.crawler},
        )

    def _extraction(
        self,
        adapter: ItemAdapter,
        response: Response | None,
        url: str | None,
        decoded: list[Response],
    ) -> Extraction:
        """The extraction for this item: the one of its response (shared by the response's
        items), else one of the source field's HTML (whose response goes to ``decoded``).
        Raises :class:`_NoContentError` when there is nothing to extract from."""
        reason = "no_source"
        if response is not None:
            reason = (
                decline_reason(
                    response,
                    max_body_size=self.settings.max_body_size,
                    spider=getattr(self.crawler, "spider", None),
                )
                or ""
            )
            if not reason:
                return self._response_extraction(response, url)
            if reason == "dont_cetd":
                raise _NoContentError("skipped", reason, "")
        field = self.settings.source_field
        raw = adapter.get(field) if field is not None else None
        if isinstance(raw, str | bytes):
            source = html_response(raw, url=url)
            decoded.append(source)
            if self.limits.size_reason(len(source.body)) is not None:
                raise _NoContentError(
                    "skipped",
                    "too_large",
                    f"nothing to extract from: {field} is larger than CETD_MAX_BODY_SIZE",
                )
            return self._start(source, url, time.monotonic())
        what = {
            "no_source": "no response is linked to the item and "
            + (f"its {field} field holds no HTML" if field else "CETD_SOURCE_FIELD is unset"),
            "not_html": "the response is not HTML",
            "too_large": "the response is larger than CETD_MAX_BODY_SIZE",
        }.get(reason, reason)
        raise _NoContentError("skipped", reason, f"nothing to extract from: {what}")

    def _response_extraction(self, response: Response, url: str | None) -> Extraction:
        """The response's extraction, started by its first item, its budget counted from the
        response's arrival (or from now, for a response the downloader middleware has not
        seen). Nothing is decoded or parsed here, in the reactor's thread: the worker does it,
        and reuses ``response.selector`` when the spider has already parsed the page."""
        extraction = self._extractions.get(response)
        if extraction is None:
            assert isinstance(response, TextResponse)
            start = arrival_time(response)
            extraction = self._start(response, url, time.monotonic() if start is None else start)
            self._extractions[response] = extraction
        return extraction

    def _start(self, response: TextResponse, url: str | None, start: float) -> Extraction:
        """Queue the extraction of ``response`` (a worker thread's or process's job)."""
        budget = self.limits.time_budget
        bridge = Bridge()
        extraction = Extraction(
            None
            if self.processes is not None
            else functools.partial(
                extract_response, self._completing, self.limits, response, url=url, start=start
            ),
            name=self._name,
            budget=budget,
            deadline=None if budget is None else start + budget,
            bridge=bridge,
            on_timing=self._count_time,
            on_overrun=self._overrun,
        )
        if self.processes is None:
            self.workers.submit(extraction)
            return extraction
        try:
            future = self.processes.submit(
                response,
                url=url,
                start=start,
                timeout=None if budget is None else budget + KILL_GRACE,
            )
        except Exception as exc:  # a broken or stopped pool: the item still goes on
            extraction.resolve((None, exc), None)
            return extraction
        extraction.future = future

        def done(future: Future[tuple[ExtractionResult, float]]) -> None:
            try:
                bridge.call_from_thread(self._process_done, extraction, future)
            except RuntimeError:  # the event loop closed under a job given up long ago
                logger.debug("scrapy-cetd: late extraction outcome dropped", exc_info=True)

        future.add_done_callback(done)
        return extraction

    def _process_done(
        self, extraction: Extraction, future: Future[tuple[ExtractionResult, float]]
    ) -> None:
        """A worker process's job ended (in the reactor's thread): hand its outcome over."""
        if future.cancelled():  # given up at the deadline; the items have gone on
            return
        error = future.exception()
        if error is None:
            result, seconds = future.result()
            extraction.resolve((result, None), seconds)
        elif isinstance(error, TimeoutError):
            self.crawler.stats.inc_value("cetd/extract_process_killed_count")
            detail = f"more than {self.limits.time_budget:g} s, the worker process was killed"
            error = LimitExceededError(Reason.TIME_BUDGET, detail)
            extraction.resolve((error.reason().result(self._name), None), None)
        else:
            extraction.resolve((None, error), None)

    def _count_time(self, seconds: float) -> None:
        """Add one job's CPU seconds to ``cetd/extract_seconds`` and its maximum."""
        stats = self.crawler.stats
        stats.set_value(
            "cetd/extract_seconds", stats.get_value("cetd/extract_seconds", 0.0) + seconds
        )
        stats.max_value("cetd/extract_seconds_max", seconds)

    def _overrun(self, extraction: Extraction) -> None:
        """The budget ran out before the job returned: skip the job if it has not started,
        else kill its process or give its thread up."""
        stats = self.crawler.stats
        if extraction.future is not None:
            # A running job stops at its next deadline check, or pebble kills its worker at
            # the job's timeout (see _start); a waiting one is dropped.
            if not extraction.future.running() and extraction.future.cancel():
                stats.inc_value("cetd/extract_expired_waiting_count")
            return
        if self.workers.abandon(extraction):
            stats.inc_value("cetd/extract_thread_replaced_count")
        elif extraction.cancelled:
            stats.inc_value("cetd/extract_expired_waiting_count")
        elif not extraction.finished:
            logger.error(
                "scrapy-cetd: %d extractions are past CETD_TIME_BUDGET and still running; no "
                "more threads are started in their place",
                MAX_STUCK_THREADS,
                extra={"crawler": self.crawler},
            )

    def _report(
        self, item: Any, adapter: ItemAdapter | None, url: str | None, failure: _NoContentError
    ) -> None:
        """Count, warn once per (URL, cause), clear the fields or drop the item."""
        stats = self.crawler.stats
        if failure.stat == "skipped":
            stats.inc_value(f"cetd/item_skipped_count/{failure.reason}")
        else:
            stats.inc_value(f"cetd/item_{failure.stat}_count")
        if failure.cause is not None:
            stats.inc_value(f"cetd/item_empty_reason_count/{failure.cause.value}")
        if failure.reason == "dont_cetd":
            return
        where = url or "an item without URL"
        if self.settings.drop_empty and failure.reason not in KEEP_ON_DROP_EMPTY:
            raise DropItem(f"scrapy-cetd: {where}: {failure.message or failure.reason}")
        if adapter is not None:
            self._clear(adapter)
        if self._first_time((failure.warn_key or url or "", failure.reason)):
            logger.warning(
                "scrapy-cetd: %s: %s", where, failure.message, extra={"crawler": self.crawler}
            )

    def _first_time(self, key: tuple[str, str]) -> bool:
        """Whether ``key`` is warned of for the first time (the set of keys warned of is
        emptied when it reaches :data:`_MAX_WARNED`, so that it stays bounded)."""
        if key in self._warned:
            return False
        if len(self._warned) >= _MAX_WARNED:
            self._warned.clear()
        self._warned.add(key)
        return True

    def _clear(self, adapter: ItemAdapter) -> None:
        """Set the fields the item can hold to ``""`` (the confidence field, a number, to
        ``None``), sparing the spider's own values when ``CETD_OVERWRITE`` is off (counted in
        ``cetd/field_kept_count/<field>``)."""
        declared = ItemAdapter.get_field_names_from_class(type(adapter.item))
        confidence = self.settings.page_type_confidence_field
        for name in self.settings.fields:
            if declared is not None and name not in declared:
                continue
            if not self.settings.overwrite and _is_set(adapter, name):
                self.crawler.stats.inc_value(f"cetd/field_kept_count/{name}")
                continue
            try:
                adapter[name] = None if name == confidence else ""
            except Exception:  # a frozen item: leave it as it is
                logger.debug("scrapy-cetd: cannot clear %s", name, exc_info=True)


def _is_set(adapter: ItemAdapter, name: str) -> bool:
    """Whether the spider gave the field a value. ``None``, ``""`` and an empty collection
    (``[]``, ``()``, ``{}``, an empty set: what ``field(default_factory=list)`` gives a
    dataclass item) are no value; a number is one, ``0`` and ``0.0`` included, since the
    pipeline cannot tell a default from a reading (a number field the pipeline should fill
    defaults to ``None``)."""
    value = adapter.get(name)
    if value is None:
        return False
    return not isinstance(value, Collection) or len(value) > 0


def _text_of(body: bytes, decoded: list[Response], url: str | None) -> str:
    """``body`` as text: the text of a response in ``decoded`` with this body (decoded once
    already, by Scrapy's rules or by :func:`html_response`'s), else decoded by
    :func:`html_response`'s rules."""
    for response in decoded:
        if isinstance(response, TextResponse) and response.body == body:
            try:
                return response.text
            except LookupError:  # a charset label that names no text encoding
                break
    return html_response(body, url=url).text


def _item_url(item: Any) -> str | None:
    """The item's own ``url`` field, for messages when no response is linked."""
    try:
        value = ItemAdapter(item).get("url")
    except TypeError:
        return None
    return value if isinstance(value, str) else None

"""The item pipeline: the main content of the page an item came from, written into the item.

For each item, :class:`CETDPipeline` finds the document (the DOM of the linked response, see
:mod:`scrapy_cetd.crawl.linking`, else raw HTML in ``CETD_SOURCE_FIELD``), runs the configured
extractor on it and writes the result into the item's fields
(``main_content_html`` / ``main_content_text`` / ``main_content_title`` /
``main_content_page_type``, see :mod:`scrapy_cetd.crawl.fields`: which fields an item can hold,
what is written there, what is kept and what is cleared).

The extraction runs in a worker thread (:mod:`scrapy_cetd.crawl.threads`) or, with
``CETD_ISOLATION = "process"``, a worker process (:mod:`scrapy_cetd.crawl.isolation`), never in
the reactor's thread, within the limits of :mod:`scrapy_cetd.limits` (``CETD_MAX_ATTRIBUTES``,
``CETD_MAX_NODES``, ``CETD_TIME_BUDGET``). The budget counts from the response's arrival
(recorded by :class:`~scrapy_cetd.crawl.middleware.CETDDownloaderMiddleware`), so time spent
waiting for a worker counts too: when it runs out the item goes on at once, whether or not the
extractor notices, and a job still waiting is not started. The items of one response share one
extraction (:mod:`scrapy_cetd.crawl.jobs`); the items of a response whose request has
``dont_cetd`` in its ``meta``, or whose callback is marked with
:func:`~scrapy_cetd.crawl.eligibility.dont_cetd`, are left alone.

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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.http import TextResponse

from scrapy_cetd.api import (
    URL_META_KEY,
    CompletingExtractor,
    Outputs,
    build_completing,
    requested_url,
)
from scrapy_cetd.crawl.eligibility import decline_reason
from scrapy_cetd.crawl.fields import ItemFields, NoContentError, item_url
from scrapy_cetd.crawl.isolation import ProcessExtractors
from scrapy_cetd.crawl.jobs import Bridge, Extraction, Outcome
from scrapy_cetd.crawl.linking import ItemResponseLinks
from scrapy_cetd.crawl.middleware import arrival_time
from scrapy_cetd.crawl.response_job import extract_response
from scrapy_cetd.crawl.settings import (
    CETDSettings,
    disabled,
    read_settings,
    warn_unknown_names,
)
from scrapy_cetd.crawl.threads import MAX_STUCK_THREADS, WorkerThreads
from scrapy_cetd.extractors.registry import build_extractor
from scrapy_cetd.limits import LimitExceededError, Limits, TreeExtractor
from scrapy_cetd.page.decoding import html_response
from scrapy_cetd.page.parse import NotADocumentError
from scrapy_cetd.result import ExtractionResult, Reason

if TYPE_CHECKING:
    from concurrent.futures import Future

    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

_MAX_WARNED = 10_000
"""How many keys (a URL or an item class, and a cause) the pipeline remembers to warn about
each only once."""

KEEP_ON_DROP_EMPTY = frozenset({"dont_cetd", "already_set"})
"""Skip reasons that do not mean "no main content": ``CETD_DROP_EMPTY`` keeps these items."""

KILL_GRACE = 0.5
"""With ``CETD_ISOLATION = "process"``: seconds a job may run past its budget (counted from
when a worker process took it) to stop at its own next deadline check, before its worker is
killed. Killing costs a new process; most jobs stop on their own within milliseconds."""


class CETDPipeline:
    """Writes the main content of each item's page into the item (see the module docstring).

    Stats: ``cetd/item_extracted_count``, ``cetd/item_empty_count`` (with
    ``cetd/item_empty_reason_count/<cause>``), ``cetd/item_error_count``,
    ``cetd/item_skipped_count/<reason>``, ``cetd/extract_seconds`` (the jobs' CPU time, in
    total) / ``cetd/extract_seconds_max``, ``cetd/extract_expired_waiting_count`` (jobs whose
    deadline passed before a worker was free), ``cetd/extract_thread_replaced_count`` and
    ``cetd/extract_process_killed_count``; ``cetd/meta_ignored_count/cetd_url`` (responses whose
    request's ``cetd_url`` meta value is no string, read as the response's URL).
    """

    def __init__(self, crawler: Crawler) -> None:
        settings = read_settings(crawler.settings)
        if not settings.enabled:
            raise disabled(crawler)
        warn_unknown_names(crawler)
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
        self.fields = ItemFields(settings, crawler, first_time=self._first_time)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CETDPipeline:
        """Build the pipeline and its extractor from the crawler's ``CETD_*`` settings."""
        return cls(crawler)

    async def open_spider(self) -> None:
        """Get ready before the first page, so that it does not spend its budget on the start:
        with worker threads, load what the outputs need (:meth:`CompletingExtractor.prepare`)
        in a thread; with ``CETD_ISOLATION = "process"``, start the worker processes (each
        prepares its own) and wait until they answer. The crawl waits meanwhile, seconds on a
        loaded machine when the metadata's libraries load: two INFO lines say why."""
        loading = self._completing.outputs.metadata
        if loading:
            logger.info(
                "scrapy-cetd: loading the metadata's libraries before the first page"
                " (htmldate, dateparser, py3langid's model)",
                extra={"crawler": self.crawler},
            )
        began = time.monotonic()
        await self._prepare()
        if loading:
            logger.info(
                "scrapy-cetd: ready for the first page after %.1f s",
                time.monotonic() - began,
                extra={"crawler": self.crawler},
            )

    async def _prepare(self) -> None:
        """What :meth:`open_spider` waits for: the worker threads' libraries, or the worker
        processes' answers."""
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
        url = response.url if response is not None else item_url(item)
        try:
            adapter = ItemAdapter(item)
        except TypeError:
            self._report(
                item,
                None,
                url,
                NoContentError("skipped", "not_an_item", f"not an item: {item!r:.80}"),
            )
            return item
        decoded: list[Response] = []
        try:
            await self._fill(adapter, response, url, decoded)
        except NoContentError as failure:
            self._report(item, adapter, url, failure)
            if failure.reason == "dont_cetd":
                return item
        if response is not None:
            decoded.append(response)
        self.fields.settle_source(adapter, url, decoded)
        return item

    async def _fill(
        self,
        adapter: ItemAdapter,
        response: Response | None,
        url: str | None,
        decoded: list[Response],
    ) -> None:
        """Extract the item's page and write the result into the item; raises
        :class:`~scrapy_cetd.crawl.fields.NoContentError` when no main content is written."""
        writable = self.fields.writable(adapter)
        if self.fields.already_set(adapter, writable):
            self.crawler.stats.inc_value("cetd/item_skipped_count/already_set")
            return
        extraction = self._extraction(adapter, response, url, decoded)
        result, error = await extraction.wait()
        if isinstance(error, NotADocumentError):
            raise NoContentError(
                "empty", "empty", f"no main content ({error})", cause=Reason.NOT_A_DOCUMENT
            )
        if error is not None:
            raise NoContentError("error", "error", f"extractor failed: {error!r}")
        assert result is not None
        for note in result.notes:  # what was repaired or bounded on the way
            self.crawler.stats.inc_value(f"cetd/note_count/{note.partition(':')[0]}")
        if not result.text:
            raise NoContentError(
                "empty",
                "empty",
                f"no main content ({result.reason or 'no text'})",
                cause=result.reason_code or Reason.NO_CONTENT,
            )
        self.fields.write(adapter, writable, result)
        self.crawler.stats.inc_value("cetd/item_extracted_count")
        if result.page_type is not None:
            self.crawler.stats.inc_value(f"cetd/page_type/{result.page_type}")

    def _extraction(
        self,
        adapter: ItemAdapter,
        response: Response | None,
        url: str | None,
        decoded: list[Response],
    ) -> Extraction:
        """The extraction for this item: the one of its response (shared by the response's
        items), else one of the source field's HTML (whose response goes to ``decoded``).
        Raises :class:`NoContentError` when there is nothing to extract from."""
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
                raise NoContentError("skipped", reason, "")
        field = self.settings.source_field
        raw = adapter.get(field) if field is not None else None
        if isinstance(raw, str | bytes):
            source = html_response(raw, url=url)
            decoded.append(source)
            if self.limits.size_reason(len(source.body)) is not None:
                raise NoContentError(
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
        raise NoContentError("skipped", reason, f"nothing to extract from: {what}")

    def _response_extraction(self, response: Response, url: str | None) -> Extraction:
        """The response's extraction, started by its first item, its budget counted from the
        response's arrival (or from now, for a response the downloader middleware has not
        seen). Nothing is decoded or parsed here, in the reactor's thread: the worker does it,
        and reuses ``response.selector`` when the spider has already parsed the page."""
        extraction = self._extractions.get(response)
        if extraction is None:
            assert isinstance(response, TextResponse)
            start = arrival_time(response)
            extraction = self._start(
                response,
                self._page_url(response, url),
                time.monotonic() if start is None else start,
            )
            self._extractions[response] = extraction
        return extraction

    def _page_url(self, response: Response, url: str | None) -> str | None:
        """The URL ``response``'s page is extracted as: its request's ``cetd_url`` meta value,
        the page's own address when it was fetched from another (the date in its path, the
        site's name in its title, its relative links and canonical link are read against it),
        else ``url``. A value that is no string is ignored: counted in
        ``cetd/meta_ignored_count/cetd_url`` and warned of once per type, and the page is read
        as ``url``'s."""
        named = requested_url(response)
        if isinstance(named, str):
            return named or url
        if named is not None:
            kind = type(named).__name__
            self.crawler.stats.inc_value(f"cetd/meta_ignored_count/{URL_META_KEY}")
            if self._first_time((f"meta:{URL_META_KEY}", kind)):
                logger.warning(
                    "scrapy-cetd: %s: the request's meta key %s holds a %s, not a string (the"
                    " page's URL): ignored, the page is read as the response's URL",
                    response.url,
                    URL_META_KEY,
                    kind,
                    extra={"crawler": self.crawler},
                )
        return url

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
        self, item: Any, adapter: ItemAdapter | None, url: str | None, failure: NoContentError
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
            self.fields.clear(adapter)
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

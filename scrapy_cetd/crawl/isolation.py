"""Where a crawl's extractions run: worker threads (the default, see
:mod:`scrapy_cetd.crawl.threads`) or worker processes.

:class:`ProcessExtractors` runs the job of one response
(:func:`~scrapy_cetd.crawl.response_job.extract_response`) in a pool of worker processes
(``CETD_ISOLATION = "process"``), built on :mod:`pebble`, whose pool terminates a worker
process whose job is cancelled or runs past its timeout and starts a fresh one. Nothing a
page does in a worker process (a regular expression that backtracks for minutes in one C call,
a libxml2 parse that never ends) can hold the crawl's interpreter: the job is killed at its
deadline. The price: the worker parses the page again (the spider's ``response.selector`` lives
in the crawl's process), the body crosses a pipe, and each killed worker is replaced by a new
process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from scrapy.http import TextResponse

from scrapy_cetd.api import response_content_language
from scrapy_cetd.crawl.response_job import extract_response
from scrapy_cetd.limits import Limits, TreeExtractor
from scrapy_cetd.page.decoding import html_response
from scrapy_cetd.result import ExtractionResult

if TYPE_CHECKING:
    from concurrent.futures import Future

    import pebble

WORKER_NICENESS = 10
"""How much lower than the crawl's the CPU priority of the worker processes is (``nice``)."""

_WORKER_STATE: tuple[TreeExtractor, Limits] | None = None
"""The extractor and limits of this worker process (set by :func:`_initialize`)."""


def _initialize(
    build: Callable[[str, Mapping[str, Any]], TreeExtractor],
    algorithm: str,
    options: Mapping[str, Any],
    limits: Limits,
) -> None:
    global _WORKER_STATE  # noqa: PLW0603 - one extractor per worker process, built once
    # pebble stops a worker with SIGTERM, whose Python handler would only run once the C call
    # in progress returns (a regular expression may not return for minutes): the default
    # action ends the process at once.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Extraction yields the CPU to the crawl's own process (downloads, callbacks, the items
    # that are ready), which would otherwise get one share among all the busy workers.
    os.nice(WORKER_NICENESS)
    _WORKER_STATE = (build(algorithm, options), limits)


def _extract_in_worker(
    body: bytes, encoding: str, url: str, start: float, content_language: str | None
) -> tuple[ExtractionResult, float]:
    """The worker process's job: the page rebuilt as the response it was (its body, encoding,
    URL and ``Content-Language`` header), then :func:`extract_response`. Returns the result
    and the CPU time the job took here, in seconds: the wall time would count the time the
    worker, niced, waits for the CPU."""
    began = time.thread_time()
    assert _WORKER_STATE is not None
    extractor, limits = _WORKER_STATE
    response = html_response(body, url=url, encoding=encoding)
    if content_language is not None:
        response.headers[b"Content-Language"] = content_language
    result = extract_response(extractor, limits, response, url=url, start=start, cached=False)
    return result, time.thread_time() - began


def _ready() -> bool:
    """A worker's no-op job: it answers once the worker has started."""
    return _WORKER_STATE is not None


_PRELOAD = ["scrapy_cetd.crawl.pipeline"]
"""Modules the fork server imports once, so that each new worker starts in milliseconds."""


class ProcessExtractors:
    """A pool of ``workers`` worker processes that run :func:`extract_response`.

    The pool starts with :meth:`start` (or the first job), its workers forked from a clean
    ``forkserver`` process (never a fork of the crawl's threads) that has imported the package
    once. Each worker builds the extractor once, with ``build(algorithm, options)``, which must
    therefore be importable, as must the extractor class.
    """

    def __init__(
        self,
        workers: int,
        *,
        build: Callable[[str, Mapping[str, Any]], TreeExtractor],
        algorithm: str,
        options: Mapping[str, Any],
        limits: Limits,
    ) -> None:
        self.workers = workers
        self._initargs = (build, algorithm, dict(options), limits)
        self._pool: pebble.ProcessPool | None = None

    def start(self) -> list[Future[bool]]:
        """Start the worker processes; the futures end once workers answer."""
        return [self._started().schedule(_ready) for _ in range(self.workers)]

    def _started(self) -> pebble.ProcessPool:
        if self._pool is None:
            import pebble  # noqa: PLC0415 - only a crawl that asks for processes needs it

            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(_PRELOAD)
            self._pool = pebble.ProcessPool(
                max_workers=self.workers,
                initializer=_initialize,
                initargs=self._initargs,
                context=context,
            )
        return self._pool

    def submit(
        self, response: TextResponse, *, url: str | None, start: float, timeout: float | None
    ) -> Future[tuple[ExtractionResult, float]]:
        """Run the job for ``response`` in a worker. Cancelling the future kills the worker
        that runs it; after ``timeout`` seconds of work it fails with :class:`TimeoutError`
        and the worker is killed too."""
        return self._started().schedule(
            _extract_in_worker,
            args=(
                response.body,
                response.encoding,
                url or response.url,
                start,
                response_content_language(response),
            ),
            timeout=timeout,
        )

    def close(self, timeout: float = 5.0) -> None:
        """Let the worker processes end once their jobs are done; after ``timeout`` seconds,
        stop them (running jobs are killed)."""
        if self._pool is not None:
            self._pool.close()  # type: ignore[no-untyped-call]
            try:
                self._pool.join(timeout=timeout)
            except TimeoutError:
                self._pool.stop()  # type: ignore[no-untyped-call]
                self._pool.join(timeout=timeout)
            self._pool = None

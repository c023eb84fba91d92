"""The worker threads of a crawl's extractions (the default, ``CETD_ISOLATION = "threads"``):
a pool that starts threads on demand, ends idle ones, and replaces a thread stuck on a job past
its budget.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy_cetd.crawl.jobs import Extraction

logger = logging.getLogger(__name__)

MAX_STUCK_THREADS = 16
"""Threads given up on an extraction past its budget (and replaced) while it still runs, at
most; beyond that a thread past its budget keeps its place."""

IDLE_SECONDS = 30.0
"""A worker thread without work for this long ends (another starts when work comes)."""


class WorkerThreads:
    """Daemon threads that run :class:`Extraction` jobs, started on demand.

    Daemon threads, so that an extractor stuck for good cannot keep the process from exiting;
    a thread idle for :data:`IDLE_SECONDS` ends, so a pipeline that is never closed leaves no
    threads behind.

    When an extraction outlives its budget, :meth:`abandon` gives its thread up: another
    thread takes its place (while fewer than :data:`MAX_STUCK_THREADS` are given up) and the
    stuck one ends once its job returns (at its next deadline check), so a few pathological
    pages never stall the others. A job whose deadline passed before a thread took it is
    skipped.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._tasks: queue.SimpleQueue[Extraction | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._stuck = 0
        self._serial = 0

    @property
    def threads(self) -> int:
        """Worker threads alive, stuck ones included."""
        return self._threads

    def submit(self, extraction: Extraction) -> None:
        """Queue ``extraction``; start a thread if fewer than ``size`` are available."""
        with self._lock:
            self._tasks.put(extraction)
            if self._threads - self._stuck < self.size:
                self._start()

    def abandon(self, extraction: Extraction) -> bool:
        """Give up the thread running ``extraction`` and start one in its place. False when
        the job has not started (it is then skipped) or has returned meanwhile, or
        :data:`MAX_STUCK_THREADS` are already given up."""
        with self._lock:
            if not extraction.started:
                extraction.cancelled = True
                return False
            if extraction.finished or self._stuck >= MAX_STUCK_THREADS:
                return False
            extraction.abandoned = True
            self._stuck += 1
            if self._threads - self._stuck < self.size:
                self._start()
            return True

    def close(self) -> None:
        """Let every thread end once the queued jobs are done."""
        with self._lock:
            count = self._threads
        for _ in range(count):
            self._tasks.put(None)

    def _start(self) -> None:
        self._threads += 1
        self._serial += 1
        name = f"scrapy-cetd-extract-{self._serial}"
        threading.Thread(target=self._work, name=name, daemon=True).start()

    def _work(self) -> None:
        while True:
            try:
                extraction = self._tasks.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._tasks.empty():  # else a job came in meanwhile: take it
                        self._threads -= 1
                        return
                continue
            if extraction is None:
                with self._lock:
                    self._threads -= 1
                return
            late = extraction.deadline is not None and time.monotonic() >= extraction.deadline
            with self._lock:
                skip = extraction.cancelled or late  # a late job would only stop at once
                extraction.started = not skip
            if skip:
                extraction.skip()
                continue
            try:
                extraction.run()
            except RuntimeError:  # the event loop closed under a job given up long ago
                logger.debug("scrapy-cetd: late extraction outcome dropped", exc_info=True)
            with self._lock:
                extraction.finished = True
                if extraction.abandoned:  # another thread has taken this one's place
                    self._stuck -= 1
                    self._threads -= 1
                    return

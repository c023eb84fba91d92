"""The worker processes of :func:`scrapy_cetd.corpus.run.run_corpus` and what they run."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Protocol

from scrapy_cetd.corpus.records import Outcome, extract_batch, extract_file
from scrapy_cetd.corpus.settings import CorpusSettings
from scrapy_cetd.corpus.summary import FileSummary
from scrapy_cetd.corpus.warc import NotAWarcError, Skipped, WarcPage, iter_pages
from scrapy_cetd.corpus.writers import open_writer

_BATCH_PAGES = 8
"""Pages sent to a worker per task: enough to amortise the inter-process round trip."""

_BATCHES_PER_JOB = 4
"""Tasks in flight per worker process: keeps every worker busy while bounding memory."""


class Progress(Protocol):
    def update(self, n: float | None = 1) -> bool | None: ...

    def set_description_str(self, desc: str | None = None, refresh: bool | None = True) -> None: ...

    def close(self) -> None: ...


class NoProgress:
    def update(self, n: float | None = 1) -> bool | None:
        return None

    def set_description_str(self, desc: str | None = None, refresh: bool | None = True) -> None:
        return None

    def close(self) -> None:
        return None


class Stopped(Exception):  # noqa: N818 - a request, not an error
    """The run was asked to stop (Ctrl-C): the file's part was left unfinished and removed."""


_PAGES_DONE: Any = None
"""In a worker process of the run: the run's shared count of pages extracted."""

_STOP: Any = None
"""In a worker process of the run: the event set when the run is asked to stop."""


def _init_worker(counter: Any, stop: Any) -> None:
    """Set up a worker process: Ctrl-C goes to the command, which tells the workers through
    ``stop``; a worker ignores the signal (a terminal sends it to every process of the group)."""
    global _PAGES_DONE, _STOP
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _PAGES_DONE, _STOP = counter, stop


def _count_page() -> None:
    with _PAGES_DONE.get_lock():
        _PAGES_DONE.value += 1


def _stop_requested() -> bool:
    return _STOP is not None and bool(_STOP.is_set())


def start_pool(jobs: int) -> tuple[ProcessPoolExecutor, Any, Any]:
    """A pool of ``jobs`` worker processes, the page counter they share with this one and the
    event that asks them to stop.

    The workers are started from a fork server that has already imported this package (cheap,
    and safe with the threads of this process), or spawned where there is no fork server.
    """
    import multiprocessing  # noqa: PLC0415 - only with more than one job

    if "forkserver" in multiprocessing.get_all_start_methods():
        context: Any = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["scrapy_cetd.corpus"])
    else:
        context = multiprocessing.get_context("spawn")
    counter = context.Value("q", 0)
    stop = context.Event()
    pool = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_init_worker, initargs=(counter, stop)
    )
    return pool, counter, stop


def _batches(items: Iterator[WarcPage | Skipped]) -> Iterator[list[WarcPage | Skipped]]:
    """Consecutive items in batches of :data:`_BATCH_PAGES` pages; skips ride along, so the
    outcomes come back in file order."""
    batch: list[WarcPage | Skipped] = []
    pages = 0
    for item in items:
        batch.append(item)
        pages += not isinstance(item, Skipped)
        if pages >= _BATCH_PAGES:
            yield batch
            batch, pages = [], 0
    if batch:
        yield batch


def _outcomes(
    path: str, settings: CorpusSettings, pool: ProcessPoolExecutor, jobs: int
) -> Iterator[Outcome]:
    """The outcomes of one file in file order: read here, extracted by ``pool``.

    Only ``jobs * _BATCHES_PER_JOB`` batches are in flight at a time, so memory stays flat
    however large the file: the reader waits for the workers, not the other way round. When
    the caller stops early, the batches not yet begun are cancelled.
    """
    pending: deque[Future[list[Outcome]]] = deque()
    try:
        for batch in _batches(iter_pages(path, max_bytes=settings.max_bytes)):
            pending.append(pool.submit(extract_batch, batch, settings))
            while len(pending) >= jobs * _BATCHES_PER_JOB:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()


def marker_of(part: Path) -> Path:
    """The file whose presence says ``part`` is complete; it holds the part's counts."""
    return part.with_name(part.name + ".json")


def write_part(
    path: str,
    part: Path,
    fmt: str,
    settings: CorpusSettings,
    *,
    on_page: Callable[[], object] = _count_page,
    should_stop: Callable[[], bool] = _stop_requested,
    pool: tuple[ProcessPoolExecutor, int] | None = None,
) -> FileSummary:
    """Extract one input file into its part, then write the part's marker; its counts.

    The rows the settings' filters reject are counted, not written. The part is written under
    a temporary name and renamed when complete, and the marker only after that, so a part
    with a marker is always whole. ``pool`` (an executor and its size) extracts the pages
    while this process reads the file; without it, this process does both.

    ``should_stop`` is asked before each record: when it says so, the unfinished part is
    removed and :class:`Stopped` raised. A file that cannot be read to its end (an
    :class:`OSError`, or no WARC data) gets no part: its summary's ``error`` says why.
    """
    summary = FileSummary(path)
    started = time.perf_counter()
    temporary = part.with_name(part.name + ".tmp")
    writer = open_writer(temporary, fmt, settings.fields)
    try:
        outcomes = _outcomes(path, settings, *pool) if pool else extract_file(path, settings)
        for outcome in outcomes:
            if should_stop():
                raise Stopped(path)
            rejected = None if isinstance(outcome, Skipped) else settings.rejects(outcome)
            summary.count(outcome, rejected)
            if not isinstance(outcome, Skipped):
                on_page()
                if rejected is None:
                    writer.write(outcome)
    except (OSError, NotAWarcError) as error:
        summary.error = f"{type(error).__name__}: {error}"
    except BaseException:
        writer.close()
        temporary.unlink(missing_ok=True)
        raise
    writer.close()
    if summary.error is not None:
        temporary.unlink(missing_ok=True)
        return summary
    summary.seconds = round(time.perf_counter() - started, 3)
    os.replace(temporary, part)
    marker = marker_of(part)
    marker_temporary = marker.with_name(marker.name + ".tmp")
    marker_temporary.write_text(json.dumps(dataclasses.asdict(summary)), encoding="utf-8")
    os.replace(marker_temporary, marker)
    return summary


def parts_in_workers(
    pool: ProcessPoolExecutor,
    counter: Any,
    stop: Any,
    todo: Sequence[tuple[str, Path]],
    *,
    fmt: str,
    settings: CorpusSettings,
    bar: Progress,
    jobs: int,
    stop_requested: Callable[[], bool],
) -> dict[str, FileSummary]:
    """Each input file read, extracted and written by one worker, as many files at a time as
    there are workers: a file is handed out when a worker is free, not queued at the start.
    The bar follows the page counter the workers share. Once ``stop_requested()``, no file is
    handed out and the workers are told (``stop``) to drop the files they are in."""
    waiting = iter(todo)
    running: dict[Future[FileSummary], str] = {}
    summaries: dict[str, FileSummary] = {}
    shown = 0
    bar.set_description_str(f"{len(todo)} files")
    while True:
        stopping = stop_requested()
        if stopping:
            stop.set()
        while not stopping and len(running) < jobs:
            task = next(waiting, None)
            if task is None:
                break
            path, part = task
            running[pool.submit(write_part, path, part, fmt, settings)] = path
        if not running:
            break
        finished, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
        for future in finished:
            path = running.pop(future)
            with contextlib.suppress(Stopped):
                summaries[path] = future.result()
        pages = counter.value
        bar.update(pages - shown)
        shown = pages
    return summaries

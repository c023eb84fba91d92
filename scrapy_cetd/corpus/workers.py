"""The worker processes of :func:`scrapy_cetd.corpus.run.run_corpus` and what they run."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import threading
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

_STOP_GRACE = 0.5
"""Seconds the workers are given, once the run is asked to stop, to drop their files at their
next record; a worker still busy then (loading the metadata's libraries before its first page,
or on a slow page) is terminated."""

_POLL = 0.2
"""Seconds between two looks at the workers and at whether the run was asked to stop."""


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


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """``SIGINT`` held back (blocked) in this thread while it starts a process, which inherits
    the mask through ``fork`` and ``exec``: a Ctrl-C never reaches a fork server importing the
    package, nor the workers forked from it (either would die of it, and the pool with it).
    This process loses nothing: a Ctrl-C is taken by another of its threads, or stays pending
    until the block ends. Outside the main thread, or where signals cannot be held (Windows),
    it does nothing."""
    holdable = hasattr(signal, "pthread_sigmask")
    if not holdable or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def start_pool(jobs: int) -> tuple[ProcessPoolExecutor, Any, Any]:
    """A pool of ``jobs`` worker processes, the page counter they share with this one and the
    event that asks them to stop.

    The workers are started from a fork server that has already imported this package (cheap,
    and safe with the threads of this process), or spawned where there is no fork server. The
    fork server is started here with ``SIGINT`` blocked (:func:`_sigint_held`), which it
    passes on to the workers it forks: a Ctrl-C sent to the process group (a terminal's)
    while they start cannot kill them, and :func:`_init_worker` has them ignore it.
    """
    import multiprocessing  # noqa: PLC0415 - only with more than one job

    if "forkserver" in multiprocessing.get_all_start_methods():
        from multiprocessing import forkserver, resource_tracker  # noqa: PLC0415 - as above

        context: Any = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["scrapy_cetd.corpus"])
        # The resource tracker unblocks the signals it blocks while it starts: first, alone.
        resource_tracker.ensure_running()
        with _sigint_held():
            forkserver.ensure_running()
    else:
        context = multiprocessing.get_context("spawn")
    counter = context.Value("q", 0)
    stop = context.Event()
    pool = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_init_worker, initargs=(counter, stop)
    )
    return pool, counter, stop


def terminate_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate the worker processes of ``pool`` without waiting for the tasks they are
    running, and shut it down, its tasks not yet begun cancelled (what
    ``terminate_workers()`` does from Python 3.14)."""
    processes = list((pool._processes or {}).values())  # public only from Python 3.14
    for process in processes:
        process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def worker_pool(
    jobs: int, stop_requested: Callable[[], bool]
) -> Iterator[tuple[ProcessPoolExecutor, Any, Any]]:
    """:func:`start_pool`, shut down on leaving: once its tasks are done, or at once (its
    workers terminated, :func:`terminate_workers`) when the run was asked to stop or an
    exception leaves, so that a Ctrl-C never waits for a batch or a slow page."""
    pool, counter, stop = start_pool(jobs)
    done = False
    try:
        yield pool, counter, stop
        done = not stop_requested()
    finally:
        if done:
            pool.shutdown(wait=True)
        else:
            terminate_workers(pool)


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


def _result(future: Future[list[Outcome]], should_stop: Callable[[], bool]) -> list[Outcome]:
    """The outcomes of a batch once its worker has them; :class:`Stopped` as soon as
    ``should_stop()`` says so while waiting (a worker can take seconds on one page)."""
    while not wait([future], timeout=_POLL).done:
        if should_stop():
            raise Stopped
    return future.result()


def _outcomes(
    path: str,
    settings: CorpusSettings,
    pool: ProcessPoolExecutor,
    jobs: int,
    should_stop: Callable[[], bool],
) -> Iterator[Outcome]:
    """The outcomes of one file in file order: read here, extracted by ``pool``.

    Only ``jobs * _BATCHES_PER_JOB`` batches are in flight at a time, so memory stays flat
    however large the file: the reader waits for the workers, not the other way round. When
    the caller stops early, the batches not yet begun are cancelled; a wait for a batch ends
    with :class:`Stopped` once ``should_stop()``.
    """
    pending: deque[Future[list[Outcome]]] = deque()
    try:
        for batch in _batches(iter_pages(path, max_bytes=settings.max_bytes)):
            pending.append(pool.submit(extract_batch, batch, settings))
            while len(pending) >= jobs * _BATCHES_PER_JOB:
                yield from _result(pending.popleft(), should_stop)
        while pending:
            yield from _result(pending.popleft(), should_stop)
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

    ``should_stop`` is asked before each record (and, with ``pool``, while a batch is
    awaited): when it says so, the unfinished part is removed and :class:`Stopped` raised. A
    file that cannot be read to its end (an :class:`OSError`, or no WARC data) gets no part:
    its summary's ``error`` says why.
    """
    summary = FileSummary(path)
    started = time.perf_counter()
    temporary, marker_temporary = _temporaries(part)
    writer = open_writer(temporary, fmt, settings.fields)
    try:
        if pool:
            outcomes = _outcomes(path, settings, *pool, should_stop)
        else:
            outcomes = extract_file(path, settings)
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
    marker_temporary.write_text(json.dumps(dataclasses.asdict(summary)), encoding="utf-8")
    os.replace(marker_temporary, marker_of(part))
    return summary


def _temporaries(part: Path) -> tuple[Path, Path]:
    """The names :func:`write_part` writes ``part`` and its marker under until complete."""
    marker = marker_of(part)
    return part.with_name(part.name + ".tmp"), marker.with_name(marker.name + ".tmp")


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
    The bar follows the page counter the workers share.

    Once ``stop_requested()``, no file is handed out and the workers are told (``stop``) to
    drop the files they are in; those still at work :data:`_STOP_GRACE` seconds later, or when
    this ends by an exception (a second Ctrl-C), are terminated and their unfinished parts
    removed here."""
    waiting = iter(todo)
    running: dict[Future[FileSummary], tuple[str, Path]] = {}
    summaries: dict[str, FileSummary] = {}
    shown = 0
    stopped_at: float | None = None
    bar.set_description_str(f"{len(todo)} files")
    try:
        while True:
            if stopped_at is None and stop_requested():
                stopped_at = time.monotonic()
                stop.set()
            while stopped_at is None and len(running) < jobs:
                task = next(waiting, None)
                if task is None:
                    break
                path, part = task
                running[pool.submit(write_part, path, part, fmt, settings)] = task
            if not running:
                break
            if stopped_at is not None and time.monotonic() - stopped_at > _STOP_GRACE:
                break
            finished, _ = wait(running, timeout=_POLL, return_when=FIRST_COMPLETED)
            for future in finished:
                path, _ = running.pop(future)
                with contextlib.suppress(Stopped):
                    summaries[path] = future.result()
            pages = counter.value
            bar.update(pages - shown)
            shown = pages
    finally:
        if running:
            terminate_workers(pool)
            for _, part in running.values():
                for temporary in _temporaries(part):
                    temporary.unlink(missing_ok=True)
    return summaries

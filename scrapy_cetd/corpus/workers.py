"""The worker processes of :func:`scrapy_cetd.corpus.run.run_corpus` and what they run."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Protocol

from scrapy_cetd.corpus.records import CorpusSettings, Outcome, extract_batch, extract_file
from scrapy_cetd.corpus.summary import FileSummary
from scrapy_cetd.corpus.warc import Skipped, WarcPage, iter_pages
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


_PAGES_DONE: Any = None
"""In a worker process of :func:`run_corpus`: the run's shared count of pages written."""


def _init_worker(counter: Any) -> None:
    global _PAGES_DONE  # noqa: PLW0603 - set once per worker process, read by _count_page
    _PAGES_DONE = counter


def _count_page() -> None:
    with _PAGES_DONE.get_lock():
        _PAGES_DONE.value += 1


def start_pool(jobs: int) -> tuple[ProcessPoolExecutor, Any]:
    """A pool of ``jobs`` worker processes and the page counter they share with this one.

    The workers are started from a fork server that has already imported this module (cheap,
    and safe with the threads of this process), or spawned where there is no fork server.
    """
    import multiprocessing  # noqa: PLC0415 - only with more than one job

    if "forkserver" in multiprocessing.get_all_start_methods():
        context: Any = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["scrapy_cetd.corpus"])
    else:
        context = multiprocessing.get_context("spawn")
    counter = context.Value("q", 0)
    pool = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_init_worker, initargs=(counter,)
    )
    return pool, counter


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
    path: Path, settings: CorpusSettings, pool: ProcessPoolExecutor, jobs: int
) -> Iterator[Outcome]:
    """The outcomes of one file in file order: read here, extracted by ``pool``.

    Only ``jobs * _BATCHES_PER_JOB`` batches are in flight at a time, so memory stays flat
    however large the file: the reader waits for the workers, not the other way round.
    """
    pending: deque[Future[list[Outcome]]] = deque()
    for batch in _batches(iter_pages(path, max_bytes=settings.max_bytes)):
        pending.append(pool.submit(extract_batch, batch, settings))
        while len(pending) >= jobs * _BATCHES_PER_JOB:
            yield from pending.popleft().result()
    while pending:
        yield from pending.popleft().result()


def marker_of(part: Path) -> Path:
    """The file whose presence says ``part`` is complete; it holds the part's counts."""
    return part.with_name(part.name + ".json")


def write_part(
    path: Path,
    part: Path,
    fmt: str,
    settings: CorpusSettings,
    *,
    on_page: Callable[[], object] = _count_page,
    pool: tuple[ProcessPoolExecutor, int] | None = None,
) -> FileSummary:
    """Extract one input file into its part, then write the part's marker; its counts.

    The part is written under a temporary name and renamed when complete, and the marker only
    after that, so a part with a marker is always whole. ``pool`` (an executor and its size)
    extracts the pages while this process reads the file; without it, this process does both.
    """
    summary = FileSummary(str(path))
    started = time.perf_counter()
    temporary = part.with_name(part.name + ".tmp")
    writer = open_writer(temporary, fmt, settings.fields)
    try:
        outcomes = _outcomes(path, settings, *pool) if pool else extract_file(path, settings)
        for outcome in outcomes:
            summary.count(outcome)
            if not isinstance(outcome, Skipped):
                writer.write(outcome)
                on_page()
    finally:
        writer.close()
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
    todo: Sequence[tuple[Path, Path]],
    *,
    fmt: str,
    settings: CorpusSettings,
    bar: Progress,
) -> dict[Path, FileSummary]:
    """Each input file read, extracted and written by one worker, as many files at a time as
    there are workers; the bar follows the page counter the workers share."""
    futures = {pool.submit(write_part, path, part, fmt, settings): path for path, part in todo}
    summaries: dict[Path, FileSummary] = {}
    pending: set[Future[FileSummary]] = set(futures)
    shown = 0
    bar.set_description_str(f"{len(todo)} files")
    while pending:
        finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
        for future in finished:
            summaries[futures[future]] = future.result()
        pages = counter.value
        bar.update(pages - shown)
        shown = pages
    return summaries

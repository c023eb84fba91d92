"""``scrapy-cetd corpus``: :func:`run_corpus`, resumable, on a pool of worker processes.

**Resuming.** :func:`run_corpus` writes one part per input file into ``OUT.parts/`` (the part
is renamed into place when complete, then a small ``.json`` marker with its counts is written),
and assembles ``OUT`` from the parts once every input is done, then removes ``OUT.parts/``, so
no second copy of the output stays behind. A part's name holds a digest of the input (its path,
size and modification time, or what fsspec reports of a URL) and of the settings, so a rerun
skips the inputs already done with the same settings and redoes those that changed. Parts that
belong to no input of the current run are deleted.

**Stopping.** The first Ctrl-C (``SIGINT``) asks the run to stop: no new file is begun, the
files in progress are dropped at their next record (their unfinished parts removed; a worker
still busy shortly after is terminated), the finished parts are kept, and :func:`run_corpus`
returns a summary that says it was interrupted; running the same command again resumes. A
second Ctrl-C raises :class:`KeyboardInterrupt` at once. The worker processes never take the
signal themselves (:func:`~scrapy_cetd.corpus.workers.start_pool`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import FrameType
from typing import Any

from scrapy_cetd.corpus.settings import CorpusSettings
from scrapy_cetd.corpus.summary import CorpusSummary, FileSummary
from scrapy_cetd.corpus.warc import check_warc, find_inputs, identity, is_url
from scrapy_cetd.corpus.workers import (
    NoProgress,
    Progress,
    Stopped,
    marker_of,
    parts_in_workers,
    worker_pool,
    write_part,
)
from scrapy_cetd.corpus.writers import ExactDedup, assemble, output_format
from scrapy_cetd.limits import usable_cores

DEDUP_MODES = ("exact",)
"""The values of ``dedup``: ``exact`` drops a row whose ``content_hash`` an earlier row of the
run has (:class:`~scrapy_cetd.corpus.writers.ExactDedup`)."""


def default_jobs() -> int:
    """The cores this process may use (:func:`~scrapy_cetd.limits.usable_cores`)."""
    return usable_cores()


def checked_jobs(jobs: int | None) -> int:
    """The worker processes for ``jobs``: :func:`default_jobs` for ``None``, else ``jobs``
    itself; :class:`ValueError` below 1."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1: {jobs}")
    return jobs


def _progress(enabled: bool | None) -> Progress:
    """A tqdm bar in pages and pages/s on stderr; by default only when stderr is a terminal."""
    if enabled is False or (enabled is None and not sys.stderr.isatty()):
        return NoProgress()
    from tqdm import tqdm  # noqa: PLC0415 - only on a terminal

    return tqdm(unit=" pages", file=sys.stderr, dynamic_ncols=True, smoothing=0.1)


def _part_name(path: str, settings: CorpusSettings, suffix: str) -> str:
    spec = [identity(path), settings.digest()]
    digest = hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:16]
    name = path.rstrip("/").rsplit("/", 1)[-1]
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in name.split(".")[0]) or "warc"
    return f"{stem}-{digest}{suffix}"


class _StopOnSignal:
    """While active, the first ``SIGINT`` only sets :attr:`requested` (the run stops at its
    next check); a second raises :class:`KeyboardInterrupt`. Outside the main thread, where
    signals cannot be handled, it does nothing."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> _StopOnSignal:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def run_corpus(
    inputs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    settings: CorpusSettings | None = None,
    *,
    dedup: str | None = None,
    jobs: int | None = None,
    progress: bool | None = None,
    echo: bool = False,
) -> CorpusSummary:
    """Extract every HTML page of the WARC files ``inputs`` into ``out`` (what the command does).

    ``inputs`` are WARC files, folders searched for them, or URLs read through fsspec.
    ``dedup="exact"`` drops the rows whose text an earlier row of the run has (in input order).
    ``jobs`` worker processes extract (default: every core; 1 extracts in this process).
    ``progress``: a progress bar on stderr; ``None`` shows it only on a terminal. With
    ``echo``, a line per input file already done is printed. See the module docstring for how
    parts make reruns skip finished files, and for Ctrl-C.

    Raises :class:`ValueError` for bad arguments and for an input that is not a WARC file
    (:class:`~scrapy_cetd.corpus.warc.NotAWarcError`), before any work; :class:`OSError` for
    an input that cannot be opened. The summary says whether ``out`` was written
    (:attr:`~scrapy_cetd.corpus.summary.CorpusSummary.complete`): not when the run was
    interrupted or an input failed.
    """
    settings = settings or CorpusSettings()
    if dedup is not None and dedup not in DEDUP_MODES:
        raise ValueError(f"dedup must be one of {', '.join(DEDUP_MODES)}: {dedup!r}")
    out_path = Path(out)
    fmt = output_format(out_path)
    files = find_inputs(inputs)
    if not files:
        names = ", ".join(os.fspath(entry) for entry in inputs)
        raise ValueError(f"no WARC files in {names}")
    jobs = checked_jobs(jobs)
    for path in files:
        check_warc(path)
    parts_dir = out_path.with_name(out_path.name + ".parts")
    parts_dir.mkdir(parents=True, exist_ok=True)
    suffix = out_path.suffix.lower()
    plan = [(path, parts_dir / _part_name(path, settings, suffix)) for path in files]
    keep = {part.name for _, part in plan} | {part.name + ".json" for _, part in plan}
    for stale in parts_dir.iterdir():
        if stale.name not in keep:
            stale.unlink()

    started = time.perf_counter()
    summaries: dict[str, FileSummary] = {}
    todo: list[tuple[str, Path]] = []
    for path, part in plan:
        marker = marker_of(part)
        if part.exists() and marker.exists():
            done = FileSummary(**json.loads(marker.read_text(encoding="utf-8")))
            done.resumed = True
            summaries[path] = done
            if echo:
                print(f"{path}: already done ({done.pages:,} pages), skipped", file=sys.stderr)
        else:
            todo.append((path, part))
    bar = _progress(progress)
    with _StopOnSignal() as stop, contextlib.ExitStack() as stack:
        stack.callback(bar.close)

        def in_turn(pool: tuple[ProcessPoolExecutor, int] | None) -> None:
            """The inputs one after the other (their pages in ``pool``'s workers, if any)."""
            for number, (path, part) in enumerate(todo, 1):
                bar.set_description_str(f"[{number}/{len(todo)}] {_short(path)}")
                with contextlib.suppress(Stopped):
                    summaries[path] = write_part(
                        path,
                        part,
                        fmt,
                        settings,
                        on_page=bar.update,
                        should_stop=lambda: stop.requested,
                        pool=pool,
                    )
                if stop.requested:
                    break

        if jobs == 1 or not todo:
            in_turn(None)
        else:
            pool, counter, stop_event = stack.enter_context(
                worker_pool(jobs, lambda: stop.requested)
            )
            if len(todo) >= jobs:
                summaries.update(
                    parts_in_workers(
                        pool,
                        counter,
                        stop_event,
                        todo,
                        fmt=fmt,
                        settings=settings,
                        bar=bar,
                        jobs=jobs,
                        stop_requested=lambda: stop.requested,
                    )
                )
            else:
                in_turn((pool, jobs))
        interrupted = stop.requested and len(summaries) < len(plan)
    filters = settings.filters | ({"dedup": dedup} if dedup else {})
    summary = CorpusSummary(
        str(out_path),
        jobs,
        [summaries[path] for path, _ in plan if path in summaries],
        time.perf_counter() - started,
        algorithm=settings.algorithm,
        options=dict(settings.options),
        filters=filters,
        interrupted=interrupted,
        parts=str(parts_dir),
        inputs=len(plan),
    )
    if summary.complete:
        deduplicator = ExactDedup() if dedup else None
        assemble([part for _, part in plan], out_path, fmt, settings.fields, deduplicator)
        if deduplicator is not None:
            summary.duplicates = deduplicator.duplicates
            summary.distinct_texts = len(deduplicator)
        shutil.rmtree(parts_dir)
        summary.seconds = time.perf_counter() - started
    return summary


def _short(path: str) -> str:
    """The file name of a path or URL, for the progress bar."""
    return path.rstrip("/").rsplit("/", 1)[-1] if is_url(path) else Path(path).name

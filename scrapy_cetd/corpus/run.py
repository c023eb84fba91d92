"""``scrapy-cetd corpus``: :func:`run_corpus`, resumable, on a pool of worker processes."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from scrapy_cetd.corpus.records import CorpusSettings
from scrapy_cetd.corpus.summary import CorpusSummary, FileSummary
from scrapy_cetd.corpus.warc import find_warc_files
from scrapy_cetd.corpus.workers import (
    NoProgress,
    Progress,
    marker_of,
    parts_in_workers,
    start_pool,
    write_part,
)
from scrapy_cetd.corpus.writers import assemble, output_format


def default_jobs() -> int:
    """The cores this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _progress(enabled: bool | None) -> Progress:
    """A tqdm bar in pages and pages/s on stderr; by default only when stderr is a terminal."""
    if enabled is False or (enabled is None and not sys.stderr.isatty()):
        return NoProgress()
    from tqdm import tqdm  # noqa: PLC0415 - only on a terminal

    return tqdm(unit=" pages", file=sys.stderr, dynamic_ncols=True, smoothing=0.1)


def _part_name(path: Path, settings: CorpusSettings, suffix: str) -> str:
    stat = path.stat()
    spec = [str(path), stat.st_size, stat.st_mtime_ns, settings.digest()]
    digest = hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:16]
    stem = path.name.split(".")[0] or "warc"
    return f"{stem}-{digest}{suffix}"


def run_corpus(
    inputs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    settings: CorpusSettings | None = None,
    *,
    jobs: int | None = None,
    progress: bool | None = None,
    echo: bool = False,
) -> CorpusSummary:
    """Extract every HTML page of the WARC files ``inputs`` into ``out`` (what the command does).

    ``jobs`` worker processes extract (default: every core; 1 extracts in this process).
    ``progress``: a progress bar on stderr; ``None`` shows it only on a terminal. With
    ``echo``, a line per input file already done is printed. See the module docstring for how
    parts make reruns skip finished files.
    """
    settings = settings or CorpusSettings()
    out_path = Path(out)
    fmt = output_format(out_path)
    files = find_warc_files(inputs)
    if not files:
        names = ", ".join(os.fspath(entry) for entry in inputs)
        raise ValueError(f"no WARC files in {names}")
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1: {jobs}")
    parts_dir = out_path.with_name(out_path.name + ".parts")
    parts_dir.mkdir(parents=True, exist_ok=True)
    suffix = out_path.suffix.lower()
    plan = [(path, parts_dir / _part_name(path, settings, suffix)) for path in files]
    keep = {part.name for _, part in plan} | {part.name + ".json" for _, part in plan}
    for stale in parts_dir.iterdir():
        if stale.name not in keep:
            stale.unlink()

    started = time.perf_counter()
    summaries: dict[Path, FileSummary] = {}
    todo: list[tuple[Path, Path]] = []
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
    with contextlib.ExitStack() as stack:
        stack.callback(bar.close)
        if jobs == 1 or not todo:
            for number, (path, part) in enumerate(todo, 1):
                bar.set_description_str(f"[{number}/{len(todo)}] {path.name}")
                summaries[path] = write_part(path, part, fmt, settings, on_page=bar.update)
        else:
            pool, counter = start_pool(jobs)
            stack.enter_context(pool)
            if len(todo) >= jobs:
                summaries.update(
                    parts_in_workers(pool, counter, todo, fmt=fmt, settings=settings, bar=bar)
                )
            else:
                for number, (path, part) in enumerate(todo, 1):
                    bar.set_description_str(f"[{number}/{len(todo)}] {path.name}")
                    summaries[path] = write_part(
                        path, part, fmt, settings, on_page=bar.update, pool=(pool, jobs)
                    )
    assemble([part for _, part in plan], out_path, fmt, settings.fields)
    ordered = [summaries[path] for path, _ in plan]
    return CorpusSummary(str(out_path), jobs, ordered, time.perf_counter() - started)

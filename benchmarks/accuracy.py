"""Accuracy and speed of every system (our algorithms and the peers) on the shared datasets.

Each system runs in its own child process (``python -m benchmarks.accuracy --child NAME``), one
after the other, on the same pages: its peak RSS is then that system's own, and no system's
imports or caches slow another. In a child, every page is first decoded as Scrapy decodes a
response (:func:`benchmarks.speed.decoded_text`), outside the timings. Then:

* the lxml parse of the page, exactly as parsel does it, is timed once per page (the yardstick
  that makes times comparable across processes on a noisy machine: every time is also reported
  as a multiple of this parse, measured in the same process on the same page);
* :func:`scrapy_cetd.evaluation.scoring.evaluate` runs the system on the decoded text and scores it
  (LCS, BOW and SH with precision, recall and a bootstrap interval; a page that raises or runs
  over ``PAGE_TIMEOUT`` seconds counts as a failure with empty output). For our algorithms the
  system is the parse plus ``Extractor.extract`` with the page's URL, as a crawl calls it (the
  page-type classifier reads the URL's path); both are timed, so the extraction alone is also
  reported as a multiple of the parse. The peers get the decoded text alone, their documented
  call.

The child writes its scores, with the per-page F1s and times that :mod:`benchmarks.summary`
pools and resamples, to a JSON file.
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import scrapy_cetd
from benchmarks import datasets_root
from benchmarks.peers import PEERS
from benchmarks.speed import decoded_text, page_url, parse, parsel_body
from scrapy_cetd.evaluation.datasets import Dataset, Page, find_datasets
from scrapy_cetd.evaluation.metrics import METRICS, bootstrap_interval
from scrapy_cetd.evaluation.scoring import DatasetScore, PageScore, Predict, evaluate
from scrapy_cetd.extractors.registry import build_extractor

PAGE_TIMEOUT = 60
"""Seconds a system may spend on one page before the page counts as a failure."""

EXCLUDED_DATASETS = frozenset({"record_pages_wri"})
"""Datasets that are not main-content benchmarks (record containers for TPS pruning)."""


def our_algorithms() -> list[str]:
    """Our registered algorithms, read from :data:`scrapy_cetd.ALGORITHMS` when called.

    Read at run time rather than at import, so that an algorithm registered later is benchmarked
    without any change here.
    """
    return list(scrapy_cetd.ALGORITHMS)


def all_systems() -> list[str]:
    """Our registered algorithms, then the peers, in report order."""
    return [*our_algorithms(), *PEERS]


def is_ours(system: str) -> bool:
    """Whether ``system`` is one of our registered algorithms."""
    return system in scrapy_cetd.ALGORITHMS


def select_ids(ids: Sequence[str], limit: int | None) -> list[str]:
    """At most ``limit`` page IDs, spread evenly over ``ids`` (all of them without a limit).

    Evenly spaced rather than the first ``limit``, so that a quick run still sees every part of
    a dataset (WCXB lists its pages type by type).
    """
    if limit is None or limit >= len(ids):
        return list(ids)
    if limit <= 0:
        return []
    return [ids[(i * len(ids)) // limit] for i in range(limit)]


def benchmark_datasets(root: Path, names: Sequence[str] | None = None) -> list[Dataset]:
    """The datasets to benchmark under ``root``: all main-content ones, or those named."""
    found = find_datasets(root)
    if names:
        unknown = sorted(set(names) - {dataset.name for dataset in found})
        if unknown:
            raise ValueError(f"no dataset {', '.join(unknown)} under {root}")
        return [dataset for dataset in found if dataset.name in names]
    return [dataset for dataset in found if dataset.name not in EXCLUDED_DATASETS]


class _PageTimeoutError(Exception):
    """A page took longer than ``PAGE_TIMEOUT``."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _PageTimeoutError(f"over {PAGE_TIMEOUT} s")


@contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Raise :class:`_PageTimeoutError` in the block after ``seconds`` (main thread, POSIX only)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Runner:
    """One system made ready to run on pages, with the timings it records per page.

    Pages are decoded one at a time as :func:`evaluate` reads them, so the process holds one
    page at a time and its peak RSS is the system's own rather than the dataset's.
    """

    def __init__(self, system: str) -> None:
        self.system = system
        self.call_ms: dict[str, float] = {}
        """The system's call on the decoded text (decoding excluded, unlike ``evaluate``'s)."""
        self.parse_ms: dict[str, float] = {}
        """The reference lxml parse of each page, timed just before the call."""
        self.extract_ms: dict[str, float] = {}
        """Ours only: ``Extractor.extract`` alone, parse excluded."""
        self._run: Callable[[str, str, str | None], str] = self._build()

    def _build(self) -> Callable[[str, str, str | None], str]:
        if is_ours(self.system):
            extractor = build_extractor(self.system)

            def ours(page_id: str, text: str, url: str | None) -> str:
                tree = parse(parsel_body(text))
                start = time.perf_counter()
                result = extractor.extract(tree, url=url).text
                self.extract_ms[page_id] = (time.perf_counter() - start) * 1000
                return result

            return ours
        peer = PEERS[self.system]
        if not peer.available():
            raise RuntimeError(f"{self.system} is not installed (pip install -e '.[bench]')")
        adapter = peer.make()
        return lambda page_id, text, url: adapter(text)

    def predict(self) -> Predict:
        """The prediction function for :func:`evaluate`.

        It decodes the page as Scrapy would, times the reference parse, then times the system's
        call alone, under :data:`PAGE_TIMEOUT`; a call that raises is timed too.
        """

        def run(page: Page) -> str:
            text = decoded_text(page)
            body = parsel_body(text)
            start = time.perf_counter()
            parse(body)
            self.parse_ms[page.id] = (time.perf_counter() - start) * 1000
            with _time_limit(PAGE_TIMEOUT):
                start = time.perf_counter()
                try:
                    return self._run(page.id, text, page_url(page))
                finally:
                    self.call_ms[page.id] = (time.perf_counter() - start) * 1000

        return run

    def clear(self) -> None:
        """Forget the timings of the last dataset."""
        for table in (self.call_ms, self.parse_ms, self.extract_ms):
            table.clear()


def page_type_scores(pages: Sequence[PageScore]) -> dict[str, dict[str, Any]]:
    """Per page type: page count, and mean P, R, F1 with the F1's bootstrap interval per metric.

    The same macro averages and interval as the dataset's own (``score.py``'s procedure), on the
    pages of one type.
    """
    groups: dict[str, list[PageScore]] = {}
    for page in pages:
        groups.setdefault(page.page_type, []).append(page)
    result: dict[str, dict[str, Any]] = {}
    for page_type, group in sorted(groups.items()):
        metrics: dict[str, Any] = {}
        for name in METRICS:
            rows = [page.scores[name] for page in group]
            f1s = [row.f1 for row in rows]
            metrics[name] = {
                "precision": sum(row.precision for row in rows) / len(rows),
                "recall": sum(row.recall for row in rows) / len(rows),
                "f1": sum(f1s) / len(f1s),
                "f1_ci95": list(bootstrap_interval(f1s)),
            }
        result[page_type] = {"pages": len(group), "metrics": metrics}
    return result


def summarize_score(score: DatasetScore, runner: Runner) -> dict[str, Any]:
    """The JSON summary of one system on one dataset, with its per-page F1s and times.

    ``evaluate``'s own times (``ms_median``, ``ms_p95``) include the decoding and are left out:
    :mod:`benchmarks.summary` computes the speed from the per-page times of the call alone.
    """
    data = score.to_dict()
    for key in ("per_page", "ms_median", "ms_p95"):
        del data[key]
    pages = score.per_page
    ids = [page.id for page in pages]
    data["page_types"] = page_type_scores(pages) if len({p.page_type for p in pages}) > 1 else {}
    data["errors"] = sorted({page.error for page in pages if page.error})[:10]
    data["page_ids"] = ids
    data["page_f1"] = {name: [page.scores[name].f1 for page in pages] for name in METRICS}
    data["page_langs"] = [page.lang for page in pages]
    data["page_ms"] = [runner.call_ms[i] for i in ids]
    data["page_parse_ms"] = [runner.parse_ms[i] for i in ids]
    if runner.extract_ms:
        data["page_extract_ms"] = [runner.extract_ms.get(i, 0.0) for i in ids]
    return data


def _peak_rss_mb() -> float:
    """Peak resident set size of this process, in MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def run_system(system: str, datasets: Sequence[Dataset], limit: int | None) -> dict[str, Any]:
    """Score one system on the datasets, in this process.

    ``rss_ready_mb`` is the peak RSS once the system is imported and built, before any page is
    read; ``peak_rss_mb`` the peak of the whole run, one page in memory at a time.
    """
    runner = Runner(system)
    rss_ready = _peak_rss_mb()
    results: dict[str, Any] = {}
    for dataset in datasets:
        ids = select_ids(dataset.page_ids, limit)
        score = evaluate(dataset, runner.predict(), system=system, ids=ids)
        results[dataset.name] = summarize_score(score, runner)
        runner.clear()
        ms_median = statistics.median(results[dataset.name]["page_ms"] or [0.0])
        print(
            f"    {system:<20} {dataset.name:<18} SH-F1 {score.metrics['SH'].f1:.3f}"
            f"  {ms_median:7.1f} ms  failures {score.failures}",
            file=sys.stderr,
            flush=True,
        )
    peer = PEERS.get(system)
    return {
        "system": system,
        "kind": "ours" if is_ours(system) else "peer",
        "version": peer.version() if peer else None,
        "call": peer.call if peer else f"get_extractor({system!r}).extract(tree, url=url)",
        "rss_ready_mb": rss_ready,
        "peak_rss_mb": _peak_rss_mb(),
        "datasets": results,
    }


def run_all(
    systems: Sequence[str],
    root: Path,
    names: Sequence[str] | None,
    limit: int | None,
    work: Path,
) -> dict[str, dict[str, Any]]:
    """Every system in its own child process, one after the other; results by system.

    A missing peer or a child that dies is recorded with its reason instead of results.
    """
    work.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, Any]] = {}
    for system in systems:
        kind = "ours" if is_ours(system) else "peer"
        peer = PEERS.get(system)
        if peer is not None and not peer.available():
            print(f"  {system}: not installed, skipped", file=sys.stderr)
            results[system] = {"system": system, "kind": kind, "missing": "not installed"}
            continue
        out = work / f"{system}.json"
        out.unlink(missing_ok=True)
        command = [sys.executable, "-m", "benchmarks.accuracy", "--child", system,
                   "--datasets-root", str(root), "--out", str(out)]  # fmt: skip
        if names:
            command += ["--datasets", ",".join(names)]
        if limit is not None:
            command += ["--limit", str(limit)]
        print(f"  {system} ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        completed = subprocess.run(command, check=False)
        if completed.returncode != 0 or not out.is_file():
            reason = f"child process exited with status {completed.returncode}"
            print(f"  {system}: {reason}", file=sys.stderr)
            results[system] = {"system": system, "kind": kind, "missing": reason}
            continue
        results[system] = json.loads(out.read_text(encoding="utf-8"))
        results[system]["wall_seconds"] = time.perf_counter() - started
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """The child process: one system on the datasets, its results as JSON to ``--out``."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.accuracy", description=__doc__)
    parser.add_argument("--child", required=True, choices=all_systems(), help="the system")
    parser.add_argument("--datasets-root", type=Path, default=datasets_root())
    parser.add_argument("--datasets", help="only these datasets (comma-separated names)")
    parser.add_argument("--limit", type=int, help="at most this many pages per dataset")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.datasets_root is None:
        parser.error("no datasets found: pass --datasets-root or set CETD_DATASETS")
    names = args.datasets.split(",") if args.datasets else None
    result = run_system(args.child, benchmark_datasets(args.datasets_root, names), args.limit)
    args.out.write_text(json.dumps(result) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

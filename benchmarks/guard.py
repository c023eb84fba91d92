"""What the markup guard costs :func:`scrapy_cetd.extract`, page by page, over the shared datasets.

The guard (:func:`scrapy_cetd.guard.markup_problem`) reads every page's text before libxml2
parses it. For each page of the shared datasets, decoded once as Scrapy decodes a response,
the script times, back to back in the same process, ``extract(text)`` with the guard (the
default ``max_attributes``) and without it (``max_attributes=None``), each the best of
``--repeat`` runs, and ``markup_problem(text)`` alone. It prints the median over the pages of
the ratio *with / without* (the extra cost of the guard; 1.00 is none), the median times, and
how many pages the guard refused, which must be none: a refusal there is a false alarm.

Usage: ``python -m benchmarks.guard [--datasets-root DIR] [--every N] [--repeat N]``; the exit
status is 1 when a page of the datasets is refused.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import scrapy_cetd
from benchmarks import datasets_root
from scrapy_cetd.evaluation.datasets import find_datasets
from scrapy_cetd.guard import markup_problem
from scrapy_cetd.page.decoding import html_response


def best_ms(runs: Sequence[Callable[[], object]], repeat: int) -> list[float]:
    """The shortest of ``repeat`` timed calls of each of ``runs``, in milliseconds; the calls
    take turns, so a slow spell of a loaded machine falls on all of them alike."""
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for index, run in enumerate(runs):
            start = time.perf_counter()
            run()
            best[index] = min(best[index], time.perf_counter() - start)
    return [seconds * 1000 for seconds in best]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.guard", description=__doc__)
    parser.add_argument("--datasets-root", type=Path, default=datasets_root())
    parser.add_argument("--every", type=int, default=1, help="time every N-th page only")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best kept)")
    args = parser.parse_args(argv)
    if args.datasets_root is None:
        parser.error("no datasets found: pass --datasets-root")
    ratios: list[float] = []
    with_guard: list[float] = []
    without_guard: list[float] = []
    scan: list[float] = []
    refused: list[str] = []
    index = 0
    for dataset in find_datasets(args.datasets_root):
        for page in dataset.pages():
            index += 1
            if (index - 1) % args.every:
                continue
            try:
                text = html_response(page.html, encoding=page.encoding).text
                scrapy_cetd.extract(text, max_attributes=None)
            except ValueError:  # not a document: neither run extracts anything
                continue
            if markup_problem(text) is not None:
                refused.append(f"{dataset.name}/{page.id}")
            unguarded, guarded, alone = best_ms(
                [
                    partial(scrapy_cetd.extract, text, max_attributes=None),
                    partial(scrapy_cetd.extract, text),
                    partial(markup_problem, text),
                ],
                args.repeat,
            )
            without_guard.append(unguarded)
            with_guard.append(guarded)
            ratios.append(guarded / unguarded)
            scan.append(alone)
    if not ratios:
        parser.error("no pages found")
    print(f"pages: {len(ratios)}")
    print(
        f"extract() with the guard / without: median of the pages {statistics.median(ratios):.3f}, "
        f"mean {statistics.fmean(ratios):.3f}"
    )
    print(
        f"median ms: with {statistics.median(with_guard):.2f}, without "
        f"{statistics.median(without_guard):.2f}, markup_problem alone "
        f"{statistics.median(scan):.3f} (largest {max(scan):.2f})"
    )
    print(f"pages refused: {len(refused)} {' '.join(refused[:10])}")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())

"""Extraction time against parse time, page by page, over the shared datasets.

The target is an extraction (tree already parsed) that costs no more than the parse Scrapy
already pays for. Each page is decoded once as Scrapy decodes a response; then, in the same
process and one page after the other, the script times

* the lxml parse of the decoded text exactly as parsel's ``create_root_node`` does it (the
  stripped text, NULs removed, encoded as UTF-8, parsed by a fresh ``lxml.html.HTMLParser``
  with ``recover=True, encoding="utf-8", huge_tree=True``), and
* ``Extractor.extract(tree)`` of each algorithm on that parsed tree.

Each timing is the best of ``--repeat`` runs (3 by default) to cut scheduling noise, and both
are measured on the same page back to back, so their ratio holds on a busy machine.

The table says which implementation ran: the compiled ``scrapy_cetd.page._speedups`` when it is
built for the installed lxml, else the pure-Python reference. Set ``SCRAPY_CETD_PURE_PYTHON=1``
to time the pure-Python code on purpose.

Usage: ``python -m benchmarks.speed [--datasets-root DIR] [--algorithms a,b] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import lxml.html
from lxml import etree
from scrapy.http import HtmlResponse

from benchmarks import datasets_root
from scrapy_cetd.evaluation.datasets import Page, find_datasets
from scrapy_cetd.extractors.registry import ALGORITHMS, build_extractor
from scrapy_cetd.limits import TreeExtractor
from scrapy_cetd.page import accel

DEFAULT_ALGORITHMS = ("cetd-ds", "cectd-ds", "cectd-s")


@dataclass
class DatasetTimes:
    """Per-page best times of one dataset, in milliseconds."""

    name: str
    parse: list[float] = field(default_factory=list)
    extract: dict[str, list[float]] = field(default_factory=dict)


def decoded_text(page: Page) -> str:
    """The page's text as Scrapy decodes a response (header charset, BOM, meta, detection)."""
    headers = {"Content-Type": f"text/html; charset={page.encoding}"} if page.encoding else None
    response = HtmlResponse("about:blank", body=page.html, headers=headers)
    return response.text


def page_url(page: Page) -> str | None:
    """The page's URL when its MANIFEST gives one: what a crawl passes to the extractor."""
    url = page.meta.get("url")
    return url if isinstance(url, str) and url.startswith("http") else None


def parsel_body(text: str) -> bytes:
    """The bytes parsel's ``create_root_node`` hands to lxml for a decoded ``text``."""
    return text.strip().replace("\x00", "").encode("utf-8") or b"<html/>"


def parse(body: bytes) -> etree._Element:
    """Parse ``body`` with the parser and options parsel uses for HTML."""
    parser = lxml.html.HTMLParser(recover=True, encoding="utf-8", huge_tree=True)
    root = etree.fromstring(body, parser=parser)
    if root is None:  # an empty document: parsel falls back to an empty <html/>
        root = etree.fromstring(b"<html/>", parser=parser)
    return root


def best_ms(run: Callable[[], object], repeat: int) -> float:
    """The shortest of ``repeat`` timed calls of ``run``, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1000.0


def time_dataset(
    name: str, pages: Sequence[Page], extractors: dict[str, TreeExtractor], repeat: int
) -> DatasetTimes:
    """Parse and extraction times of every page of one dataset."""
    times = DatasetTimes(name, extract={algorithm: [] for algorithm in extractors})
    for page in pages:
        body = parsel_body(decoded_text(page))
        times.parse.append(best_ms(partial(parse, body), repeat))
        tree = parse(body)
        for algorithm, extractor in extractors.items():
            times.extract[algorithm].append(best_ms(partial(extractor.extract, tree), repeat))
    return times


def implementation() -> str:
    """Which code the extractors run: the compiled accelerator or the pure-Python reference."""
    if accel.COMPILED_LXML_VERSION is None:
        return "pure Python"
    return f"compiled scrapy_cetd.page._speedups (lxml {accel.COMPILED_LXML_VERSION})"


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


def summarize(times: DatasetTimes) -> dict[str, Any]:
    """Medians, p95s and median ratios of one dataset (or of all pages together)."""
    parse_median = statistics.median(times.parse)
    summary: dict[str, Any] = {
        "dataset": times.name,
        "implementation": implementation(),
        "pages": len(times.parse),
        "parse_median_ms": parse_median,
        "parse_p95_ms": percentile(times.parse, 0.95),
        "algorithms": {},
    }
    for algorithm, values in times.extract.items():
        ratios = [extract / parse for extract, parse in zip(values, times.parse, strict=True)]
        summary["algorithms"][algorithm] = {
            "extract_median_ms": statistics.median(values),
            "extract_p95_ms": percentile(values, 0.95),
            "ratio_of_medians": statistics.median(values) / parse_median,
            "median_page_ratio": statistics.median(ratios),
        }
    return summary


def merge(all_times: Sequence[DatasetTimes], algorithms: Sequence[str]) -> DatasetTimes:
    """All pages of all datasets as one pool."""
    merged = DatasetTimes("ALL", extract={algorithm: [] for algorithm in algorithms})
    for times in all_times:
        merged.parse.extend(times.parse)
        for algorithm in algorithms:
            merged.extract[algorithm].extend(times.extract[algorithm])
    return merged


def print_table(summaries: Sequence[dict[str, Any]], algorithms: Sequence[str]) -> None:
    """One row per dataset: parse median/p95, then per algorithm median/p95 and ratio."""
    print(f"implementation: {implementation()}")
    head = f"{'dataset':<18}{'pages':>6}{'parse':>8}{'p95':>8}"
    for algorithm in algorithms:
        head += f" | {algorithm:>9}{'p95':>8}{'ratio':>7}"
    print(head)
    print("-" * len(head))
    for summary in summaries:
        row = f"{summary['dataset']:<18}{summary['pages']:>6}"
        row += f"{summary['parse_median_ms']:>8.2f}{summary['parse_p95_ms']:>8.2f}"
        for algorithm in algorithms:
            stats = summary["algorithms"][algorithm]
            row += f" | {stats['extract_median_ms']:>9.2f}{stats['extract_p95_ms']:>8.2f}"
            row += f"{stats['ratio_of_medians']:>7.2f}"
        print(row)
    print(
        "\nms per page (best of the runs); ratio = median extract / median parse "
        "(<= 1.00 meets the target)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; prints a table and optionally writes the numbers as JSON."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed", description=__doc__)
    parser.add_argument("--datasets-root", type=Path, default=datasets_root())
    parser.add_argument("--algorithms", default=",".join(DEFAULT_ALGORITHMS))
    parser.add_argument("--json", type=Path, help="write the summaries to this file")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per page (best kept)")
    parser.add_argument("--datasets", help="only these datasets (comma-separated names)")
    args = parser.parse_args(argv)

    if args.datasets_root is None:
        parser.error("no datasets found: pass --datasets-root or set CETD_DATASETS")
    algorithms = [name.strip() for name in args.algorithms.split(",") if name.strip()]
    unknown = [name for name in algorithms if name not in ALGORITHMS]
    if unknown:
        parser.error(f"unknown algorithm(s): {', '.join(unknown)}")
    extractors = {name: build_extractor(name) for name in algorithms}
    wanted = set(args.datasets.split(",")) if args.datasets else None

    all_times: list[DatasetTimes] = []
    for dataset in find_datasets(args.datasets_root):
        if wanted is not None and dataset.name not in wanted:
            continue
        print(f"timing {dataset.name} ({len(dataset.page_ids)} pages)...", file=sys.stderr)
        pages = list(dataset.pages())
        all_times.append(time_dataset(dataset.name, pages, extractors, args.repeat))
    if not all_times:
        parser.error("no dataset to time")

    summaries = [summarize(times) for times in all_times]
    summaries.append(summarize(merge(all_times, algorithms)))
    print_table(summaries, algorithms)
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Soak: a long crawl with the add-on on, watching memory and counting items (not a test).

A local HTTP server on 127.0.0.1 serves the site of :mod:`benchmarks.crawl` with ``--pages``
stories (10,000 by default), each one of the 14 bundled WCXB article pages in turn
(``--source example``; no ``../shared`` needed). The example project's ``ArticlesSpider``
crawls it in a child process with ``ADDONS = {"scrapy_cetd.Addon": 100}`` and 16 concurrent
requests, so the server's own memory is not measured.

During the crawl the child samples its resident set size (``/proc/self/statm``) every 100
items. It reports:

* **items in / items out**: article responses the spider received (each yields one item) and
  items that reached the end of the pipelines (``item_scraped``); dropped or failed items are
  counted too. A soak passes only if every item comes out, with main content;
* **RSS growth** from page 1,000 (after warm-up: the caches of lxml, Scrapy and Python are
  full) to the last page, in MiB and per 1,000 pages: a leak grows linearly with the pages;
  a plateau stays flat;
* **pages/s** from the first response to the last item.

Usage: ``python -m benchmarks.soak [--pages 10000] [--json OUT]``; exit status 1 when an item
is lost. Takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.crawler import AsyncCrawlerProcess
from scrapy.http import Response

from benchmarks.crawl import CONCURRENCY, example_pages, example_spider, serve

SAMPLE_EVERY = 100
"""Items between two RSS samples."""

WARM_UP = 1_000
"""The page from which RSS growth is measured."""


def rss_mib() -> float:
    """This process's resident set size now, in MiB (Linux ``/proc``; else the peak)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def crawl_and_sample(base_url: str) -> dict[str, Any]:
    """One crawl of the site in this process; counts, RSS samples and timing."""
    counts = {"in": 0, "out": 0, "with_main_content": 0, "dropped": 0, "errors": 0}
    samples: list[tuple[int, float]] = [(0, rss_mib())]
    marks: dict[str, float] = {}

    def received(response: Response) -> None:
        marks.setdefault("first", time.perf_counter())
        if "/articles/" in response.url:
            counts["in"] += 1

    def scraped(item: Any) -> None:
        marks["last"] = time.perf_counter()
        counts["out"] += 1
        counts["with_main_content"] += bool(item.get("main_content_text"))
        if counts["out"] % SAMPLE_EVERY == 0:
            samples.append((counts["out"], rss_mib()))

    def dropped() -> None:
        counts["dropped"] += 1

    def failed() -> None:
        counts["errors"] += 1

    settings = {
        "ADDONS": {"scrapy_cetd.Addon": 100},
        "LOG_LEVEL": "ERROR",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": CONCURRENCY,
        "CONCURRENT_REQUESTS_PER_DOMAIN": CONCURRENCY,
    }
    process = AsyncCrawlerProcess(settings)
    crawler = process.create_crawler(example_spider("with", []))
    for handler, signal in (
        (received, signals.response_received),
        (scraped, signals.item_scraped),
        (dropped, signals.item_dropped),
        (failed, signals.item_error),
    ):
        crawler.signals.connect(handler, signal=signal)
    process.crawl(crawler, base_url=base_url)
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats else {}
    return {
        **counts,
        "seconds": marks["last"] - marks["first"],
        "samples": samples,
        "stats": {key: value for key, value in stats.items() if key.startswith("cetd/")},
    }


def rss_at(samples: Sequence[Sequence[float]], page: int) -> float:
    """The RSS sampled at ``page`` items (the first sample at or after it)."""
    return next(rss for items, rss in samples if items >= page)


def summary(result: dict[str, Any], pages: int) -> dict[str, Any]:
    """The numbers the robustness page of the docs reports."""
    samples = result["samples"]
    last = samples[-1][0]
    start, end = rss_at(samples, WARM_UP), samples[-1][1]
    return {
        "pages": pages,
        "items_in": result["in"],
        "items_out": result["out"],
        "with_main_content": result["with_main_content"],
        "dropped": result["dropped"],
        "errors": result["errors"],
        "pages_per_s": result["out"] / result["seconds"],
        "rss_mib_at_warm_up": start,
        "rss_mib_at_end": end,
        "rss_mib_peak": max(rss for _, rss in samples),
        "rss_growth_mib": end - start,
        "rss_growth_mib_per_1000_pages": 1000 * (end - start) / max(last - WARM_UP, 1),
        "rss_by_1000_pages": {items: rss for items, rss in samples if items % 1000 == 0},
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the site, crawl it in a child process, print (and optionally write) the summary."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__)
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(crawl_and_sample(args.child)))
        return 0
    if args.pages <= WARM_UP:
        parser.error(f"--pages must be above {WARM_UP:,}, the warm-up")

    with serve(example_pages(args.pages)) as base_url:
        command = [sys.executable, "-m", "benchmarks.soak", "--child", base_url]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
    report = summary(json.loads(done.stdout.strip().splitlines()[-1]), args.pages)

    lines = [
        ("items in / out", f"{report['items_in']:,} / {report['items_out']:,} "
         f"({report['with_main_content']:,} with main content, {report['dropped']} dropped, "
         f"{report['errors']} failed)"),
        (f"RSS at page {WARM_UP:,}", f"{report['rss_mib_at_warm_up']:.1f} MiB"),
        (f"RSS at page {report['items_out']:,}", f"{report['rss_mib_at_end']:.1f} MiB "
         f"(peak {report['rss_mib_peak']:.1f} MiB)"),
        ("RSS growth", f"{report['rss_growth_mib']:+.1f} MiB "
         f"({report['rss_growth_mib_per_1000_pages']:+.2f} MiB per 1,000 pages)"),
        ("throughput", f"{report['pages_per_s']:.0f} pages/s"),
        ("RSS (MiB) by pages", ", ".join(
            f"{items:,}: {rss:.0f}" for items, rss in report["rss_by_1000_pages"].items())),
    ]  # fmt: skip
    print(f"soak: {args.pages:,} pages with the add-on on")
    for label, value in lines:
        print(f"  {label:<22} {value}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    complete = report["items_in"] == report["items_out"] == report["with_main_content"]
    return 0 if complete and report["items_out"] == args.pages else 1


if __name__ == "__main__":
    sys.exit(main())

"""Crawl throughput of the example spider: without the add-on, with it, and with trafilatura.

A local HTTP server on 127.0.0.1 serves a site in the example project's layout: ``index.html``
lists ``--pages`` stories (300 by default) as ``li.story`` links, and each story URL answers with
one page. With ``--source shared`` (the default) the pages are real pages of the shared
datasets, spread evenly over the main-content datasets and served as archived (original bytes,
``Content-Type`` with the MANIFEST's charset); with ``--source example`` they are the 14 bundled
WCXB article pages of ``example_project/site/articles`` in turn (no ``../shared`` needed).

The example project's own spider (``ArticlesSpider`` of ``example_project/news/spiders``) crawls
the site three ways, with the same settings otherwise:

* ``without``: no add-on. The spider reads each page's title with ``response.css()``, so this
  run pays for the parse too;
* ``with``: ``ADDONS = {"scrapy_cetd.Addon": 100}`` with its defaults (the default algorithm,
  recorded as ``extractor``): the pipeline adds ``main_content_html`` and ``main_content_text``
  from the same parse;
* ``trafilatura``: no add-on; the callback sets ``main_content_text`` to
  ``trafilatura.extract(response.text)``, what Scrapy users do today (trafilatura parses the
  page a second time, itself).

Each crawl runs in its own process with Scrapy's default (asyncio) reactor and 16 concurrent
requests. The runs alternate (without, with, trafilatura, without, ...) to spread machine noise
evenly, and the best of ``--repeat`` runs (3) of each is reported. Throughput is pages per
second from the first response to the last item (Scrapy start-up and shutdown excluded).

Usage: ``python -m benchmarks.crawl [--pages 300] [--repeat 3] [--source shared] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from html import escape
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import AsyncCrawlerProcess
from scrapy.http import Response

import scrapy_cetd
from benchmarks import datasets_root
from benchmarks.accuracy import benchmark_datasets, select_ids
from example_project.demo import serve_with

EXAMPLE_PROJECT = Path(__file__).resolve().parent.parent / "example_project"
ARTICLES = EXAMPLE_PROJECT / "site" / "articles"

VARIANTS = ("without", "with", "trafilatura")
"""The three crawls, in the order they alternate."""

SOURCES = ("shared", "example")

CONCURRENCY = 16


@dataclass(frozen=True)
class SitePage:
    """One page of the served site."""

    name: str
    """File name under ``/articles/``."""
    body: bytes
    charset: str | None
    """The charset of the ``Content-Type`` header; ``None`` sends plain ``text/html``."""
    source: str
    """Where the page comes from (a dataset name), shown in the index like the example's."""


def shared_pages(root: Path, count: int) -> list[SitePage]:
    """``count`` pages of the main-content datasets, as evenly spread over them as possible."""
    datasets = benchmark_datasets(root)
    pages: list[SitePage] = []
    for i, dataset in enumerate(datasets):
        share = count // len(datasets) + (1 if i < count % len(datasets) else 0)
        for page in dataset.pages(select_ids(dataset.page_ids, share)):
            name = f"{dataset.name}-{page.id}.html"
            pages.append(SitePage(name, page.html, page.encoding, dataset.name))
    return pages


def example_pages(count: int) -> list[SitePage]:
    """``count`` pages that repeat the example project's article pages in turn."""
    files = sorted(ARTICLES.glob("*.html"))
    bodies = [path.read_bytes() for path in files]
    return [
        SitePage(f"{n}-{files[n % len(files)].name}", bodies[n % len(files)], "utf-8", "example")
        for n in range(count)
    ]


def index_html(pages: Sequence[SitePage]) -> bytes:
    """The site's index in the layout the example spider reads (``li.story``, ``a.story-link``)."""
    items = "".join(
        f'<li class="story"><a class="story-link" href="articles/{escape(page.name)}">'
        f'story {n}</a> <span class="source">{escape(page.source)}</span></li>\n'
        for n, page in enumerate(pages)
    )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Index</title></head>'
        f'<body><ul class="stories">\n{items}</ul></body></html>\n'
    ).encode()


def _handler(pages: Sequence[SitePage]) -> type[BaseHTTPRequestHandler]:
    routes = {"/index.html": (index_html(pages), "text/html; charset=utf-8")}
    for page in pages:
        content_type = f"text/html; charset={page.charset}" if page.charset else "text/html"
        routes[f"/articles/{page.name}"] = (page.body, content_type)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path not in routes:
                self.send_error(404)
                return
            body, content_type = routes[self.path]
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def serve(pages: Sequence[SitePage]) -> AbstractContextManager[str]:
    """Serve the site on 127.0.0.1 (a free port) for the duration of the block."""
    return serve_with(_handler(pages))


def example_spider(variant: str, timer: list[float]) -> type[scrapy.Spider]:
    """The example project's ``ArticlesSpider``; for ``trafilatura`` a subclass whose callback
    also sets ``main_content_text`` with trafilatura, adding the seconds it took to ``timer``."""
    if str(EXAMPLE_PROJECT) not in sys.path:
        sys.path.insert(0, str(EXAMPLE_PROJECT))
    base: type[scrapy.Spider] = importlib.import_module("news.spiders.articles").ArticlesSpider
    if variant != "trafilatura":
        return base
    import trafilatura  # noqa: PLC0415  (a bench extra, needed by this variant only)

    def parse_article(self: scrapy.Spider, response: Response, source: str) -> Iterator[Any]:
        for item in base.parse_article(self, response, source):  # type: ignore[attr-defined]
            start = time.thread_time()  # CPU time, as cetd/extract_seconds counts
            item["main_content_text"] = trafilatura.extract(response.text) or ""
            timer.append(time.thread_time() - start)
            yield item

    return type("TrafilaturaArticlesSpider", (base,), {"parse_article": parse_article})


def crawl_once(base_url: str, variant: str) -> dict[str, Any]:
    """One crawl in this process: items, seconds from first response to last item, extraction."""
    marks: dict[str, float] = {}
    timer: list[float] = []
    filled: list[bool] = []

    def received() -> None:
        marks.setdefault("first", time.perf_counter())

    def scraped(item: Any) -> None:
        marks["last"] = time.perf_counter()
        filled.append(bool(item.get("main_content_text")))

    settings = {
        "ADDONS": {"scrapy_cetd.Addon": 100} if variant == "with" else {},
        "LOG_LEVEL": "ERROR",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": CONCURRENCY,
        "CONCURRENT_REQUESTS_PER_DOMAIN": CONCURRENCY,
    }
    process = AsyncCrawlerProcess(settings)
    crawler = process.create_crawler(example_spider(variant, timer))
    crawler.signals.connect(received, signal=signals.response_received)
    crawler.signals.connect(scraped, signal=signals.item_scraped)
    process.crawl(crawler, base_url=base_url)
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats else {}
    extract_seconds = stats.get("cetd/extract_seconds", 0.0) if variant == "with" else sum(timer)
    algorithm = crawler.settings.get("CETD_ALGORITHM") or scrapy_cetd.DEFAULT_ALGORITHM
    return {
        "extractor": {"with": algorithm, "trafilatura": "trafilatura"}.get(variant),
        "items": len(filled),
        "with_main_content": sum(filled),
        "seconds": marks["last"] - marks["first"] if len(marks) == 2 else None,
        "extract_seconds": extract_seconds,
    }


def _run_child(base_url: str, variant: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.crawl", "--child", base_url, "--variant", variant]
    output = subprocess.run(command, check=True, capture_output=True, text=True, timeout=900)
    result: dict[str, Any] = json.loads(output.stdout.strip().splitlines()[-1])
    return result


def _trafilatura_installed() -> bool:
    return importlib.util.find_spec("trafilatura") is not None


def run(pages: Sequence[SitePage], repeat: int, source: str) -> dict[str, Any]:
    """Crawl the site ``repeat`` times each way, alternating; the runs and the best of each.

    The ``trafilatura`` variant is left out, with a note, when trafilatura is not installed.
    """
    variants = [v for v in VARIANTS if v != "trafilatura" or _trafilatura_installed()]
    runs: dict[str, list[dict[str, Any]]] = {variant: [] for variant in variants}
    with serve(pages) as base_url:
        for _ in range(repeat):
            for variant in variants:
                result = _run_child(base_url, variant)
                if result["items"] != len(pages) or not result["seconds"]:
                    raise RuntimeError(f"{variant}: {result['items']} items of {len(pages)}")
                result["pages_per_s"] = result["items"] / result["seconds"]
                runs[variant].append(result)
                print(f"    crawl {variant:<12} {result['items']} pages in"
                      f" {result['seconds']:.2f} s = {result['pages_per_s']:.0f} pages/s",
                      file=sys.stderr, flush=True)  # fmt: skip
    best = {variant: max(r["pages_per_s"] for r in rs) for variant, rs in runs.items()}
    extract_ms = {
        variant: 1000 * min(r["extract_seconds"] / r["items"] for r in rs)
        for variant, rs in runs.items()
        if variant != "without"
    }
    return {
        "source": source,
        "pages": len(pages),
        "datasets": sorted({page.source for page in pages}),
        "repeat": repeat,
        "concurrency": CONCURRENCY,
        "variants": variants,
        "extractor": {variant: rs[-1]["extractor"] for variant, rs in runs.items()},
        "missing": [] if "trafilatura" in variants else ["trafilatura (not installed)"],
        "best_pages_per_s": best,
        "ratio_to_without": {variant: best[variant] / best["without"] for variant in variants},
        "extract_ms_per_page": extract_ms,
        "with_main_content": {variant: rs[-1]["with_main_content"] for variant, rs in runs.items()},
        "runs": runs,
    }


def site_pages(source: str, count: int, root: Path | None) -> list[SitePage]:
    """The pages of the site for ``source`` (``shared`` needs the datasets ``root``)."""
    if source == "example":
        return example_pages(count)
    if root is None:
        raise ValueError("no datasets found: pass --datasets-root or set CETD_DATASETS")
    return shared_pages(root, count)


def print_summary(result: dict[str, Any]) -> None:
    """The best pages/s of each variant, its ratio to the crawl without extraction."""
    print(f"{result['pages']} pages ({result['source']}), best of {result['repeat']}:")
    for variant in result["variants"]:
        line = f"  {variant:<12} {result['best_pages_per_s'][variant]:6.0f} pages/s"
        line += f"  x{result['ratio_to_without'][variant]:.2f}"
        if variant in result["extract_ms_per_page"]:
            line += f"  extraction {result['extract_ms_per_page'][variant]:.1f} ms/page"
        print(line)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the three crawls and print (optionally write) the throughput of each."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.crawl", description=__doc__)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--source", choices=SOURCES, default="shared")
    parser.add_argument("--datasets-root", type=Path, default=datasets_root())
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--variant", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(crawl_once(args.child, args.variant)))
        return 0
    try:
        pages = site_pages(args.source, args.pages, args.datasets_root)
    except ValueError as exc:
        parser.error(str(exc))
    result = run(pages, args.repeat, args.source)
    print_summary(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

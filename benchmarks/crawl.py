"""Crawl throughput with and without the scrapy-cetd add-on (a benchmark, not a test).

A local HTTP server on 127.0.0.1 serves an index linking to ``--pages`` article URLs (300 by
default), each answered with one of the example project's WCXB article pages
(``example_project/site/articles``, 14 real pages of 22-135 kB) in turn. The same spider
crawls it with ``ADDONS = {}`` and with ``ADDONS = {"scrapy_cetd.Addon": 100}``. The spider
reads each page's ``<title>`` with ``response.css()``, as almost every spider does, so both
runs pay for the parse and the difference is what the add-on adds: extraction and bookkeeping.

Each crawl runs in its own process with Scrapy's default (asyncio) reactor, the runs
alternate (off, on, off, on, ...) to spread machine noise evenly, and the best of ``--repeat``
runs (3) of each is reported. Throughput is pages per second from the first response to the
last item (Scrapy start-up and shutdown excluded).

Usage: ``python -m benchmarks.crawl [--pages 300] [--repeat 3] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import AsyncCrawlerProcess
from scrapy.http import Response

ARTICLES = Path(__file__).resolve().parent.parent / "example_project" / "site" / "articles"


def _handler(pages: list[bytes], count: int) -> type[BaseHTTPRequestHandler]:
    index = "".join(f'<li><a href="/p/{n}.html">story {n}</a></li>' for n in range(count))
    index_body = f"<html><head><title>Index</title></head><body><ul>{index}</ul></body></html>"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path == "/":
                body = index_body.encode()
            elif self.path.startswith("/p/"):
                number = int(self.path[3:].split(".")[0])
                body = pages[number % len(pages)]
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _serve(count: int) -> tuple[ThreadingHTTPServer, str]:
    pages = [path.read_bytes() for path in sorted(ARTICLES.glob("*.html"))]
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(pages, count))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _child(base_url: str, addon: bool) -> None:
    """One crawl in this process; prints a JSON line with its measurements."""
    marks: dict[str, float] = {}

    class BenchSpider(scrapy.Spider):
        name = "bench"

        async def start(self) -> AsyncIterator[Any]:
            yield scrapy.Request(base_url)

        def parse(self, response: Response) -> Iterator[Any]:
            marks.setdefault("first", time.perf_counter())
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href, self.parse_page)

        def parse_page(self, response: Response) -> Iterator[Any]:
            yield {"url": response.url, "title": response.css("title::text").get()}

    def scraped() -> None:
        marks["last"] = time.perf_counter()

    settings = {
        "ADDONS": {"scrapy_cetd.Addon": 100} if addon else {},
        "LOG_LEVEL": "ERROR",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
    }
    process = AsyncCrawlerProcess(settings)
    crawler = process.create_crawler(BenchSpider)
    crawler.signals.connect(scraped, signal=signals.item_scraped)
    process.crawl(crawler)
    process.start()
    stats = crawler.stats.get_stats()
    print(
        json.dumps(
            {
                "items": stats.get("item_scraped_count", 0),
                "seconds": marks["last"] - marks["first"],
                "extract_seconds": stats.get("cetd/extract_seconds", 0.0),
                "extracted": stats.get("cetd/item_extracted_count", 0),
            }
        )
    )


def _run(base_url: str, addon: bool) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.crawl", "--child", base_url]
    if addon:
        command.append("--addon")
    output = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600)
    result: dict[str, Any] = json.loads(output.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--addon", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.addon)
        return 0

    server, base_url = _serve(args.pages)
    runs: dict[str, list[dict[str, Any]]] = {"without": [], "with": []}
    try:
        for _ in range(args.repeat):
            for label, addon in (("without", False), ("with", True)):
                run = _run(base_url, addon)
                if run["items"] != args.pages:
                    raise SystemExit(f"{label}: {run['items']} items, expected {args.pages}")
                runs[label].append(run)
                rate = run["items"] / run["seconds"]
                print(f"  {label:>7} add-on: {run['items']} pages in {run['seconds']:.2f} s"
                      f" = {rate:.0f} pages/s", flush=True)  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()

    best = {label: max(r["items"] / r["seconds"] for r in rs) for label, rs in runs.items()}
    with_runs = runs["with"]
    extract_ms = 1000 * min(r["extract_seconds"] / r["extracted"] for r in with_runs)
    ratio = best["with"] / best["without"]
    print(f"\n{args.pages} pages (14 WCXB article pages in turn), best of {args.repeat}:")
    print(f"  without the add-on  {best['without']:.0f} pages/s")
    print(f"  with the add-on     {best['with']:.0f} pages/s")
    print(f"  ratio with/without  {ratio:.2f}")
    print(f"  extraction          {extract_ms:.1f} ms/page (cetd/extract_seconds)")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "best": best, "ratio": ratio}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

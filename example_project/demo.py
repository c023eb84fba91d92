"""``make demo``: crawl the bundled offline news site with the scrapy-cetd add-on.

Serves ``example_project/site`` on 127.0.0.1 (a free port) with a local HTTP server, runs
``scrapy crawl articles`` in a subprocess from ``example_project`` (a real Scrapy project:
``scrapy.cfg``, ``news/settings.py`` with the add-on), writing ``output/articles.jsonl``,
stops the server and prints a summary. It then checks that every item's
``main_content_text`` (and ``main_content_html``) is exactly what :func:`scrapy_cetd.extract`
gives for the same page, and exits non-zero if not.

Usage: ``python -m example_project.demo`` (from the repository root).
"""

from __future__ import annotations

import contextlib
import functools
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import BaseRequestHandler
from typing import Any
from urllib.parse import urlsplit

import scrapy_cetd

PROJECT = Path(__file__).resolve().parent
SITE = PROJECT / "site"
OUTPUT = Path("output") / "articles.jsonl"
STATS = Path("output") / "stats.json"
CRAWL_TIMEOUT = 300


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 in a thread for the duration of the block."""
    with serve_with(functools.partial(_QuietHandler, directory=str(directory))) as base_url:
        yield base_url


@contextlib.contextmanager
def serve_with(handler: Callable[..., BaseRequestHandler]) -> Iterator[str]:
    """Serve requests with ``handler`` on 127.0.0.1 (a free port) in a thread for the duration
    of the block; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def run_crawl(base_url: str) -> float:
    """Run ``scrapy crawl articles`` against ``base_url``; returns the wall time in seconds."""
    command = [
        sys.executable, "-m", "scrapy", "crawl", "articles",
        "-a", f"base_url={base_url}",
        "-O", str(OUTPUT),
        "-s", f"STATS_JSON_PATH={STATS}",
        "-s", "LOG_LEVEL=WARNING",
    ]  # fmt: skip
    print("$ (cd example_project &&", " ".join(command[2:]) + ")", flush=True)
    started = time.perf_counter()
    subprocess.run(command, cwd=PROJECT, check=True, timeout=CRAWL_TIMEOUT)
    return time.perf_counter() - started


def check(items: list[dict[str, Any]]) -> list[str]:
    """The URLs whose item differs from ``scrapy_cetd.extract`` on the served file."""
    mismatches = []
    for item in items:
        path = SITE / urlsplit(item["url"]).path.lstrip("/")
        expected = scrapy_cetd.extract(path.read_bytes(), url=item["url"])
        if (item.get("main_content_text"), item.get("main_content_html")) != (
            expected.text,
            expected.html,
        ):
            mismatches.append(item["url"])
    return mismatches


def summary(items: list[dict[str, Any]], stats: dict[str, Any], wall: float) -> list[str]:
    """The summary's lines, from the crawl's items and stats and its wall time in seconds.

    ``docs/quickstart.md`` shows these lines; ``tests/test_demo.py`` checks its figures
    against this function on a crawl of the same site. The extraction's figure is CPU time
    (``cetd/extract_seconds``): the wall time of 16 worker threads sharing the GIL would count
    each one's wait for the others."""
    extracted = stats.get("cetd/item_extracted_count", 0)
    seconds = stats.get("cetd/extract_seconds", 0.0)
    characters = sum(len(item.get("main_content_text") or "") for item in items)
    pages = stats.get("cetd/response_count", 0)
    lines = [
        "Summary",
        f"  pages crawled (HTML)      {pages} (1 index + {pages - 1} articles)",
        f"  items written             {len(items)} -> example_project/{OUTPUT}",
        f"  with main content         {extracted}",
        f"  characters extracted      {characters:,} ({characters // max(len(items), 1):,}/item)",
        f"  extraction CPU per page   {1000 * seconds / max(extracted, 1):.1f} ms",
        f"  crawl wall time           {wall:.1f} s (including Scrapy start-up)",
    ]
    problems = {key: value for key, value in stats.items() if "skipped" in key or "error" in key}
    lines.extend(f"  {key:<25} {value}" for key, value in sorted(problems.items()))
    if stats.get("cetd/response_skipped_count/not_html") == 1:
        lines.append("  (the one non-HTML response is robots.txt)")
    return lines


def main() -> int:
    """Crawl, summarise, check; 0 when every item matches ``scrapy_cetd.extract``."""
    (PROJECT / OUTPUT).unlink(missing_ok=True)
    (PROJECT / STATS).unlink(missing_ok=True)
    with serve(SITE) as base_url:
        print(f"Serving {SITE.relative_to(PROJECT.parent)} at {base_url}")
        wall = run_crawl(base_url)
    print("Server stopped.")

    items = [json.loads(line) for line in (PROJECT / OUTPUT).read_text().splitlines() if line]
    stats = json.loads((PROJECT / STATS).read_text())
    print()
    print("\n".join(summary(items, stats, wall)))

    mismatches = check(items)
    if not items or mismatches:
        print(f"\nFAIL: {len(mismatches)} of {len(items)} items differ from scrapy_cetd.extract:")
        for url in mismatches:
            print("  ", url)
        return 1
    print(
        f"\nOK: all {len(items)} items' main_content_text (and main_content_html) equal "
        "scrapy_cetd.extract() on the same pages."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Integration: the add-on in a distributed scrapy-redis crawl, with a real ``redis-server``.

A ``redis-server`` on 127.0.0.1 (a free port, no persistence) holds the scheduler queue and the
duplicate filter; the bundled example site is served on 127.0.0.1; two crawler processes run
the example project's spider with the project's settings (the add-on included) plus the
scrapy-redis settings of docs/scrapy.md. The server answers the index only once both crawlers are
running, and each crawler fetches one page at a time with a download delay, so the crawl
lasts longer than the 5 s in which an idle crawler looks at the shared queue again: both take
pages from it.

``make test`` installs Debian's ``redis-server`` when it is missing; this test is skipped only
where that was not possible.
"""

from __future__ import annotations

import contextlib
import functools
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

import scrapy_cetd

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "example_project"
SITE = PROJECT / "site"
SPIDER = Path(__file__).resolve().parent / "redis_articles.py"
ARTICLES = sorted(path.name for path in (SITE / "articles").glob("*.html"))
PROCESSES = 2
CRAWL_TIMEOUT = 120
GATE_TIMEOUT = 60.0
"""The longest the server holds the index back, waiting for every crawler to start."""

redis = pytest.importorskip("redis", reason="the redis client is in the test extra")
pytest.importorskip("scrapy_redis", reason="scrapy-redis is in the test extra")
REDIS_SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(
    REDIS_SERVER is None,
    reason="redis-server is not installed and could not be installed here: `make test` "
    "installs the Debian package redis-server with apt-get as root or with password-less sudo",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A fresh ``redis-server`` on 127.0.0.1, stopped when the test ends."""
    assert REDIS_SERVER is not None
    port = free_port()
    command = [
        REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
        "--appendonly", "no", "--dir", str(tmp_path), "--daemonize", "no",
    ]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"redis-server did not start on port {port}")
                time.sleep(0.05)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


class _CountingHandler(SimpleHTTPRequestHandler):
    """Serves the site and counts every request by path; holds the index until ``ready()``."""

    requests: Counter[str]
    lock: threading.Lock
    ready: Callable[[], bool]

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        with self.lock:
            self.requests[path] += 1
        deadline = time.monotonic() + GATE_TIMEOUT
        while path == "/index.html" and not self.ready() and time.monotonic() < deadline:
            time.sleep(0.05)
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve_counting(
    directory: Path, ready: Callable[[], bool]
) -> Iterator[tuple[str, Counter[str]]]:
    """Serve ``directory`` on 127.0.0.1; yields the base URL and the live request counts.

    The answer to ``/index.html`` waits until ``ready()`` (at most :data:`GATE_TIMEOUT`).
    """
    requests: Counter[str] = Counter()
    attributes = {"requests": requests, "lock": threading.Lock(), "ready": staticmethod(ready)}
    handler_class = type("Handler", (_CountingHandler,), attributes)
    handler = functools.partial(handler_class, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def crawler_command(base_url: str, redis_url: str, out: Path, number: int) -> list[str]:
    """``scrapy runspider`` in the example project with the scrapy-redis settings of the docs."""
    settings = {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": "True",
        "REDIS_URL": redis_url,
        "MAX_IDLE_TIME_BEFORE_CLOSE": "10",
        "CONCURRENT_REQUESTS": "1",
        "DOWNLOAD_DELAY": "0.5",
        "STATS_JSON_PATH": str(out / f"stats-{number}.json"),
        "LOG_FILE": str(out / f"crawl-{number}.log"),
        "LOG_LEVEL": "INFO",
    }
    command = [sys.executable, "-m", "scrapy", "runspider", str(SPIDER), "-a"]
    command += [f"base_url={base_url}", "-O", str(out / f"items-{number}.jsonl")]
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    return command


def test_two_processes_share_the_frontier_and_fill_every_item(
    redis_url: str, tmp_path: Path
) -> None:
    logs = [tmp_path / f"crawl-{number}.log" for number in range(PROCESSES)]

    def all_open() -> bool:
        """Every crawler is running: the links of the index will find them all polling."""
        return all(log.exists() and "Spider opened" in log.read_text() for log in logs)

    with serve_counting(SITE, all_open) as (base_url, requests):
        crawlers = [
            subprocess.Popen(
                crawler_command(base_url, redis_url, tmp_path, number),
                cwd=PROJECT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for number in range(PROCESSES)
        ]
        errors = []
        for number, crawler in enumerate(crawlers):
            try:
                _, stderr = crawler.communicate(timeout=CRAWL_TIMEOUT)
            except subprocess.TimeoutExpired:
                crawler.kill()
                _, stderr = crawler.communicate()
            if crawler.returncode != 0:
                log = tmp_path / f"crawl-{number}.log"
                errors.append(f"crawler {number}: {stderr.decode()}\n{log.read_text()[-3000:]}")
        assert not errors, "\n".join(errors)

    # Every page was fetched exactly once over both processes (robots.txt is fetched by each
    # process for itself, outside the scheduler).
    pages = {path: count for path, count in requests.items() if path != "/robots.txt"}
    expected = {"/index.html"} | {f"/articles/{name}" for name in ARTICLES}
    assert pages == dict.fromkeys(expected, 1)
    assert requests["/robots.txt"] == PROCESSES

    items_by_process = [
        [json.loads(line) for line in (tmp_path / f"items-{n}.jsonl").read_text().splitlines()]
        for n in range(PROCESSES)
    ]
    # Both processes took pages from the shared queue.
    assert all(items_by_process), [len(items) for items in items_by_process]
    items = [item for items in items_by_process for item in items]
    assert sorted(urlsplit(item["url"]).path for item in items) == sorted(
        f"/articles/{name}" for name in ARTICLES
    )
    for item in items:
        page = SITE / urlsplit(item["url"]).path.lstrip("/")
        expected_result = scrapy_cetd.extract(page.read_bytes(), url=item["url"])
        assert expected_result.text
        assert item["main_content_text"] == expected_result.text
        assert item["main_content_html"] == expected_result.html

    stats = [json.loads((tmp_path / f"stats-{n}.json").read_text()) for n in range(PROCESSES)]
    assert sum(s.get("cetd/item_extracted_count", 0) for s in stats) == len(ARTICLES)
    assert sum(s.get("scheduler/dequeued/redis", 0) for s in stats) == len(expected)
    # The duplicate filter lived in Redis: one fingerprint per page, kept (SCHEDULER_PERSIST).
    client = redis.Redis.from_url(redis_url)
    assert client.scard("articles_redis:dupefilter") == len(expected)

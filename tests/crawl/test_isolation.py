"""The worker processes of a crawl (scrapy_cetd.crawl.isolation), on their own: a page's job
gives in a worker what it gives in the crawl's process, and a job past its timeout or
cancelled has its worker killed and replaced, so the next page is extracted."""

from __future__ import annotations

import concurrent.futures
import functools
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import STORM_PAGE
from conftest import STORM_URL as URL
from conftest import storm_response as page

import scrapy_cetd
from scrapy_cetd.api import Outputs, build_completing
from scrapy_cetd.crawl.isolation import WORKER_NICENESS, ProcessExtractors
from scrapy_cetd.limits import Limits

EXPECTED = scrapy_cetd.extract(STORM_PAGE.encode(), url=URL)


class SleepingExtractor:
    """Sleeps for a minute on pages whose URL holds ``slow=<path>``, in one call no budget
    checks (as a regular expression that backtracks does), once it has written its process's
    id to that file; reports its process's niceness in the title otherwise."""

    def extract(self, tree: Any, *, url: str | None = None) -> scrapy_cetd.ExtractionResult:
        if url and "slow=" in url:
            Path(url.partition("slow=")[2]).write_text(str(os.getpid()))
            time.sleep(60)
        result = scrapy_cetd.extract(tree, url=url)
        return scrapy_cetd.ExtractionResult(
            text=result.text, html=result.html, algorithm="sleeping", title=str(os.nice(0))
        )


def build_sleeping(algorithm: str, options: Mapping[str, Any]) -> SleepingExtractor:
    """The ``build`` of :class:`SleepingExtractor`, importable by the worker processes."""
    return SleepingExtractor()


@pytest.fixture
def sleeping() -> Iterator[ProcessExtractors]:
    extractors = ProcessExtractors(
        1, build=build_sleeping, algorithm="sleeping", options={}, limits=Limits()
    )
    yield extractors
    extractors.close(timeout=1.0)


def test_a_worker_gives_what_the_crawls_process_gives_and_its_cpu_time() -> None:
    build = functools.partial(build_completing, outputs=Outputs())  # as the pipeline's
    extractors = ProcessExtractors(
        1, build=build, algorithm="cetd-plus", options={}, limits=Limits()
    )
    try:
        assert [future.result(timeout=60) for future in extractors.start()] == [True]
        result, seconds = extractors.submit(
            page(), url=None, start=time.monotonic(), timeout=None
        ).result(timeout=60)
    finally:
        extractors.close()
    assert result.text == EXPECTED.text
    assert result.html == EXPECTED.html
    assert 0 < seconds < 60


def test_the_workers_yield_the_cpu_to_the_crawl(sleeping: ProcessExtractors) -> None:
    result, _ = sleeping.submit(page(), url=URL, start=time.monotonic(), timeout=None).result(
        timeout=60
    )
    assert result.title is not None
    assert int(result.title) >= WORKER_NICENESS


def _wait_for(pid_file: Path) -> None:
    """Wait until the worker is in its sleep (it has written ``pid_file``)."""
    for _ in range(600):
        if pid_file.exists() and pid_file.read_text():
            return
        time.sleep(0.05)
    raise AssertionError("the worker never began the slow job")


def _ended(pid_file: Path) -> bool:
    """Whether the worker process whose id ``pid_file`` holds has ended (within 10 s)."""
    pid = int(pid_file.read_text())
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_a_job_past_its_timeout_is_killed_and_the_next_page_is_extracted(
    sleeping: ProcessExtractors, tmp_path: Path
) -> None:
    began = time.monotonic()
    pid_file = tmp_path / "pid"
    slow = sleeping.submit(page(), url=f"{URL}?slow={pid_file}", start=began, timeout=0.5)
    with pytest.raises(TimeoutError):
        slow.result(timeout=30)
    assert time.monotonic() - began < 30
    assert _ended(pid_file)
    result, _ = sleeping.submit(page(), url=URL, start=time.monotonic(), timeout=None).result(
        timeout=60
    )
    assert result.text == EXPECTED.text


def test_a_cancelled_job_is_killed_and_the_next_page_is_extracted(
    sleeping: ProcessExtractors, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    slow = sleeping.submit(
        page(), url=f"{URL}?slow={pid_file}", start=time.monotonic(), timeout=None
    )
    _wait_for(pid_file)
    began = time.monotonic()
    assert slow.cancel()
    assert _ended(pid_file)
    result, _ = sleeping.submit(page(), url=URL, start=time.monotonic(), timeout=None).result(
        timeout=30
    )
    assert time.monotonic() - began < 30
    assert result.text == EXPECTED.text
    with pytest.raises(concurrent.futures.CancelledError):
        slow.result(timeout=0)


def test_closing_stops_a_running_job_after_the_timeout(
    sleeping: ProcessExtractors, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    sleeping.submit(page(), url=f"{URL}?slow={pid_file}", start=time.monotonic(), timeout=None)
    _wait_for(pid_file)
    began = time.monotonic()
    sleeping.close(timeout=0.5)
    assert time.monotonic() - began < 10
    assert _ended(pid_file)

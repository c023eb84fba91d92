"""One page's extraction in a crawl (scrapy_cetd.crawl.jobs), on its own: every item of the
page gets the job's outcome, or the budget's, whichever comes first, and only once."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import weakref

from scrapy_cetd import ExtractionResult, Reason
from scrapy_cetd.crawl.jobs import Bridge, Extraction, Outcome

RESULT = ExtractionResult(text="the text", html="<p>the text</p>", algorithm="test")


class Record:
    """What an extraction reports: the CPU times of its jobs and the extractions overrun."""

    def __init__(self) -> None:
        self.timings: list[float] = []
        self.overruns: list[Extraction] = []

    def extraction(
        self, job: object, *, budget: float | None = None, deadline: float | None = None
    ) -> Extraction:
        return Extraction(
            job,  # type: ignore[arg-type]
            name="test",
            budget=budget,
            deadline=deadline,
            bridge=Bridge(),
            on_timing=self.timings.append,
            on_overrun=self.overruns.append,
        )


async def _in_thread(extraction: Extraction) -> None:
    """Run the job as a worker thread does, off the loop's thread."""
    worker = threading.Thread(target=extraction.run)
    worker.start()
    await asyncio.get_running_loop().run_in_executor(None, worker.join)


def test_every_item_of_the_page_gets_the_jobs_result_and_its_cpu_time_is_reported() -> None:
    record = Record()

    async def main() -> list[Outcome]:
        extraction = record.extraction(lambda: RESULT)
        waits = [asyncio.ensure_future(extraction.wait()) for _ in range(3)]
        await asyncio.sleep(0)
        await _in_thread(extraction)
        outcomes = await asyncio.gather(*waits)
        return [*outcomes, await extraction.wait()]  # awaited after the outcome: at once

    assert asyncio.run(main()) == [(RESULT, None)] * 4
    assert len(record.timings) == 1
    assert record.timings[0] >= 0
    assert record.overruns == []


def test_an_exception_of_the_job_is_its_outcome() -> None:
    record = Record()
    error = RuntimeError("the extractor failed")

    def job() -> ExtractionResult:
        raise error

    async def main() -> Outcome:
        extraction = record.extraction(job)
        await _in_thread(extraction)
        return await extraction.wait()

    assert asyncio.run(main()) == (None, error)


def test_a_budget_that_runs_out_first_gives_every_item_the_time_budget_result() -> None:
    record = Record()
    release = threading.Event()

    def stuck() -> ExtractionResult:
        release.wait(timeout=10)
        return RESULT

    async def main() -> tuple[Extraction, list[Outcome], Outcome]:
        extraction = record.extraction(stuck, budget=0.5, deadline=time.monotonic() + 0.05)
        worker = threading.Thread(target=extraction.run)
        worker.start()
        outcomes = list(await asyncio.gather(extraction.wait(), extraction.wait()))
        release.set()
        await asyncio.get_running_loop().run_in_executor(None, worker.join)
        await asyncio.sleep(0.01)  # the late outcome reaches the loop
        return extraction, outcomes, await extraction.wait()

    extraction, outcomes, later = asyncio.run(main())
    result, error = outcomes[0]
    assert outcomes == [outcomes[0]] * 2
    assert error is None
    assert result is not None
    assert result.reason_code is Reason.TIME_BUDGET
    assert result.reason is not None
    assert "more than 0.5 s since the response arrived" in result.reason
    assert later == outcomes[0]  # the late result does not replace the budget's
    assert record.overruns == [extraction]
    assert len(record.timings) == 1  # but its CPU time counts


def test_without_a_budget_no_timer_is_armed_and_the_job_takes_its_time() -> None:
    record = Record()

    async def main() -> Outcome:
        extraction = record.extraction(lambda: RESULT, budget=None, deadline=time.monotonic())
        assert extraction.deadline is None
        await asyncio.sleep(0.05)
        await _in_thread(extraction)
        return await extraction.wait()

    assert asyncio.run(main()) == (RESULT, None)
    assert record.overruns == []


class Job:
    """A job that holds what a job holds (the page's tree), to see when it is let go."""

    def __call__(self) -> ExtractionResult:
        return RESULT


def test_a_skipped_job_is_let_go_unrun() -> None:
    async def main() -> None:
        job = Job()
        gone = weakref.ref(job)
        extraction = Record().extraction(job)
        del job
        gc.collect()
        assert gone() is not None
        extraction.skip()
        gc.collect()
        assert gone() is None  # while the extraction lives on
        assert extraction.outcome is None

    asyncio.run(main())


def test_a_job_run_is_let_go_before_its_outcome_is_waited_for() -> None:
    async def main() -> Outcome:
        job = Job()
        gone = weakref.ref(job)
        extraction = Record().extraction(job)
        del job
        await _in_thread(extraction)
        gc.collect()
        assert gone() is None  # the page's tree is not kept while the items wait
        return await extraction.wait()

    assert asyncio.run(main()) == (RESULT, None)

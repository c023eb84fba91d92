"""One page's extraction in a crawl: a job that a worker thread or process runs once and that
every item of the page awaits, with its deadline, in the reactor's thread.

:class:`Extraction` holds the job, its timer and its outcome; :class:`Bridge` is how a worker
thread reaches the reactor's thread (asyncio's loop or Twisted's reactor), and how the items
wait there.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrapy.utils.asyncio import call_later, is_asyncio_available
from twisted.internet.defer import Deferred

from scrapy_cetd.limits import LimitExceededError
from scrapy_cetd.result import ExtractionResult, Reason

if TYPE_CHECKING:
    from collections.abc import Awaitable
    from concurrent.futures import Future

    from scrapy.utils.asyncio import CallLaterResult

Outcome = tuple[ExtractionResult | None, BaseException | None]
"""What an extraction ended with: its result, or the exception it raised."""


class Bridge:
    """The reactor's ways to be called from a worker thread, to wait and to time: asyncio's
    loop (the asyncio reactor, or a crawl without Twisted reactor) or Twisted's reactor."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        if is_asyncio_available():
            self.loop = asyncio.get_running_loop()

    def call_from_thread(self, function: Callable[..., object], *args: Any) -> None:
        """Run ``function(*args)`` in the reactor's thread, soon."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(function, *args)
        else:
            from twisted.internet import reactor  # noqa: PLC0415 - the installed one

            reactor.callFromThread(function, *args)

    def waiter(self) -> tuple[Awaitable[Outcome], Callable[[Outcome], None]]:
        """Something to await, and the function that ends the wait with a value."""
        if self.loop is not None:
            future: asyncio.Future[Outcome] = self.loop.create_future()

            def set_future(outcome: Outcome) -> None:
                if not future.done():
                    future.set_result(outcome)

            return future, set_future
        deferred: Deferred[Outcome] = Deferred()

        def fire_deferred(outcome: Outcome) -> None:
            if not deferred.called:
                deferred.callback(outcome)

        return deferred, fire_deferred


class Extraction:
    """One page's extraction: run once by a worker, awaited by every item of the page.

    Everything but the job itself happens in the reactor's thread. The timer is armed at
    creation, for what is left of the budget at ``deadline`` (a :func:`time.monotonic` time):
    whichever comes first, the job's outcome or the timer, ends the wait of every item. A job
    whose deadline passes is given up: a worker that has not started it skips it, a running
    one is replaced or killed (``on_overrun``); its late outcome only counts in the stats.
    """

    def __init__(
        self,
        job: Callable[[], ExtractionResult] | None,
        *,
        name: str,
        budget: float | None,
        deadline: float | None,
        bridge: Bridge,
        on_timing: Callable[[float], None],
        on_overrun: Callable[[Extraction], None],
    ) -> None:
        self._job = job
        self._name = name
        self._budget = budget
        self._bridge = bridge
        self._on_timing = on_timing
        self._on_overrun = on_overrun
        self.outcome: Outcome | None = None
        self._waiters: list[Callable[[Outcome], None]] = []
        self._timer: CallLaterResult | None = None
        self.started = False
        """Set by the worker thread that takes the job (under the workers' lock)."""
        self.cancelled = False
        """Set when the deadline passed before a worker took the job: it is skipped."""
        self.finished = False
        """Set by the worker when the job has returned (under the workers' lock)."""
        self.abandoned = False
        """Set when the budget ran out first and the thread was replaced."""
        self.future: Future[tuple[ExtractionResult, float]] | None = None
        """The worker process's job, with ``CETD_ISOLATION = "process"``."""
        self.deadline = deadline if budget is not None else None
        """When the budget ends (a :func:`time.monotonic` time), or ``None``."""
        if budget is not None and deadline is not None:
            self._timer = call_later(max(0.0, deadline - time.monotonic()), self._expire)

    def run(self) -> None:
        """The worker thread's part: run the job, then hand its outcome to the reactor, with
        the CPU time the job took in this thread. Not the wall time: under the GIL a thread's
        wall time includes its wait for the other workers, and summed over 16 threads it ran
        to several times the crawl's length."""
        job, self._job = self._job, None  # the tree is not kept once the job is done
        assert job is not None
        started = time.thread_time()
        outcome: Outcome
        try:
            outcome = (job(), None)
        except Exception as exc:
            outcome = (None, exc)
        del job
        self._bridge.call_from_thread(self.resolve, outcome, time.thread_time() - started)

    def skip(self) -> None:
        """Drop the job without running it (its deadline passed while it waited)."""
        self._job = None

    async def wait(self) -> Outcome:
        """The outcome, once there is one."""
        if self.outcome is not None:
            return self.outcome
        awaitable, fire = self._bridge.waiter()
        self._waiters.append(fire)
        return await awaitable

    def _expire(self) -> None:
        self._timer = None
        if self.outcome is not None:
            return
        detail = (
            f"more than {self._budget:g} s since the response arrived, the extraction was given up"
        )
        error = LimitExceededError(Reason.TIME_BUDGET, detail)
        self._end((error.reason().result(self._name), None))
        self._on_overrun(self)

    def resolve(self, outcome: Outcome, seconds: float | None) -> None:
        """The job's outcome (in the reactor's thread); ``seconds`` of CPU time the job took,
        when known."""
        if seconds is not None:
            self._on_timing(seconds)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.outcome is None:
            self._end(outcome)

    def _end(self, outcome: Outcome) -> None:
        self.outcome = outcome
        waiters, self._waiters = self._waiters, []
        for fire in waiters:
            fire(outcome)

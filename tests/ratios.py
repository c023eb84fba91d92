"""Growth of a step's time with its input, measured as a ratio so that a loaded machine, which
slows both sizes alike, does not make a test fail."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

SAMPLE_SECONDS = 0.005
"""A timing repeats a quick call until this long has passed, so that the clock's resolution
and a single preemption weigh little."""


def seconds(call: Callable[[], object]) -> float:
    """The best of three timings of ``call()``, each the mean of as many calls as fill
    :data:`SAMPLE_SECONDS` (one call when it takes longer), with the cyclic garbage collector
    off as :mod:`timeit` has it (a collection that falls in one timing and not in the other
    measures the objects alive, not the step)."""
    best = float("inf")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(3):
            calls, start = 0, time.perf_counter()
            while True:
                call()
                calls += 1
                elapsed = time.perf_counter() - start
                if elapsed >= SAMPLE_SECONDS:
                    break
            best = min(best, elapsed / calls)
    finally:
        if enabled:
            gc.enable()
    return best


def thread_seconds(call: Callable[[], object]) -> float:
    """The least CPU time of this thread over three runs of ``call()``: for a call long enough
    to time once (a second's worth of scanning), where what a loaded machine leaves to the run
    must not count."""
    best = float("inf")
    for _ in range(3):
        start = time.thread_time()
        call()
        best = min(best, time.thread_time() - start)
    return best


def growth(make: Callable[[int], Callable[[], object]], small: int, large: int) -> float:
    """How many times longer the call that ``make(large)`` returns takes than ``make(small)``'s
    (inputs are built before the clock starts). A ratio of :data:`TENFOLD` or more is measured
    again, up to :data:`ATTEMPTS` times, and the smallest counts: a preemption or a cache flush
    that falls in one timing does not repeat, a superlinear step does."""
    small_call, large_call = make(small), make(large)
    ratio = float("inf")
    for _ in range(ATTEMPTS):
        ratio = min(ratio, seconds(large_call) / seconds(small_call))
        if ratio < TENFOLD:
            break
    return ratio


ATTEMPTS = 3
"""How many times :func:`growth` measures a ratio that reaches :data:`TENFOLD`."""


TENFOLD = 35.0
"""The most a linear step may slow down when its input grows tenfold: linear is 10, n log n
about 13, quadratic 100. Linear steps measured up to 22 on a 2-core machine under a load of 12
(small inputs fit the caches); the quadratic steps these tests guard against measured 58 to
205."""

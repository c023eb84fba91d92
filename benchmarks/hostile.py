"""The hostile-page acceptance check: every shape, every algorithm and TPS, one 1 MB page each.

For every shape of ``tests/test_growth.py`` (a generator of pages that stretch one input
dimension) and every algorithm of :data:`scrapy_cetd.ALGORITHMS` plus TPS pruning and
``cetd-plus+outputs`` (the default extractor with its metadata and Markdown, a page URL given),
a page of ``--size`` bytes (1 MB) is extracted with ``time_budget=2`` and the default limits,
as a crawl would. The URL shapes of the growth tests (a page URL of ``--size`` characters) run
on ``cetd-plus+outputs`` alone. Each row records:

* the elapsed seconds, which must stay within the budget plus one second;
* the peak memory of the run (its resident set, parse included) as a multiple of the memory
  of the page's lxml parse alone (the parse the run itself makes: Scrapy's selector for the
  extractors, ``lxml.html.document_fromstring`` for TPS), which must stay under 10. A page
  whose parse alone outlasts ``--kill-after`` and that the run refuses before parsing it
  (``max_attributes``) is measured against its own size, which its parse holds at least. A
  run given a URL shape is measured against the page's parse plus the URL's size.

Every run happens in a child process forked for it, so its peak resident set is its own, and
a run that holds the interpreter past ``--kill-after`` seconds is killed and fails its row.
The table is printed as Markdown; the exit status is 1 when any row fails.

Run: ``python -m benchmarks.hostile`` (``--shape`` and ``--algorithm`` narrow the table).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import functools
import gc
import importlib.util
import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import lxml.html
import parsel
from lxml import etree

import scrapy_cetd
from scrapy_cetd.guard import markup_problem
from scrapy_cetd.tps import TpsOptions, prune_tag_paths_region

TPS = "tps"
OUTPUTS = "cetd-plus+outputs"
"""The default extractor with the metadata and the Markdown, as the growth tests name it."""
BUDGET = 2.0
"""The ``time_budget`` of every run, in seconds."""
SLACK = 1.0
"""How far past the budget a run may return."""
MAX_MEMORY_RATIO = 10.0
"""Largest accepted peak memory, as a multiple of the page's lxml parse."""
SIZE = 1_000_000

GROWTH_TESTS = Path(__file__).resolve().parent.parent / "tests" / "test_growth.py"


def load_growth_tests() -> ModuleType:
    """The module of the growth tests: its shapes, URL shapes, page and URL."""
    spec = importlib.util.spec_from_file_location("scrapy_cetd_growth_shapes", GROWTH_TESTS)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rss_kib(field: str) -> int:
    """A ``Vm*`` field of this process's ``/proc/self/status``, in KiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _release_free_memory() -> None:
    """Give the C heap's free memory back to the system (glibc's ``malloc_trim``), so that
    what a parse or a run allocates next grows the resident set it is measured by: a child
    forked from this process inherits, resident, the memory freed by the pages and trees of
    the rows before, and reuses it without growing: a row's parse then measured smaller, and
    its ratio larger, in a full run than run alone (see ``docs/limits-growth.md``)."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to give back
        ctypes.CDLL(None).malloc_trim(0)


def _reset_peak() -> None:
    """Reset this process's peak resident set (``VmHWM``) to its current one (Linux)."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
        clear.write("5")


def parse(html: str, algorithm: str) -> etree._Element:
    """The lxml tree ``algorithm`` works on: the tree of Scrapy's selector (parsel, which reads
    2,047 levels deep) for the extractors, ``lxml.html.document_fromstring`` (255 levels) for
    TPS, as run here."""
    if algorithm == TPS:
        return lxml.html.document_fromstring(html)
    root: etree._Element = parsel.Selector(text=html, type="html").root
    return root


def parse_memory(html: str, algorithm: str) -> int:
    """KiB of resident memory the lxml parse of ``html`` for ``algorithm`` holds (measured in
    this process)."""
    gc.collect()
    _release_free_memory()
    _reset_peak()
    before = _rss_kib("VmRSS")
    tree = parse(html, algorithm)
    after = _rss_kib("VmRSS")
    del tree
    return max(after - before, 1)


def _parse_answer(html: str, algorithm: str) -> dict[str, Any]:
    return {"kib": parse_memory(html, algorithm)}


def run_measured(
    algorithm: str, html: str, *, time_budget: float | None, max_nodes: bool, url: str = ""
) -> dict[str, Any]:
    """Run one extraction (or TPS pruning) of ``html`` (at ``url`` for :data:`OUTPUTS`):
    seconds, peak KiB above the start, and the result's reason."""
    gc.collect()
    _release_free_memory()
    _reset_peak()
    before = _rss_kib("VmRSS")
    start = time.perf_counter()
    reason: str | None = None
    tps = TpsOptions(time_budget=time_budget)  # the defaults, as tps_selector prunes
    if algorithm == TPS and (refused := markup_problem(html, max_attributes=tps.max_attributes)):
        reason = refused  # refused before the parse, as `scrapy-cetd prune` does
    elif algorithm == TPS:
        _, region = prune_tag_paths_region(lxml.html.document_fromstring(html), tps)
        reason = region.reason
    elif algorithm == OUTPUTS:
        result = scrapy_cetd.extract(
            html, url=url, time_budget=time_budget, metadata=True, markdown=True
        )
        reason = result.reason
    elif max_nodes:
        reason = scrapy_cetd.extract(html, algorithm=algorithm, time_budget=time_budget).reason
    else:
        result = scrapy_cetd.extract(
            html, algorithm=algorithm, time_budget=time_budget, max_nodes=None
        )
        reason = result.reason
    seconds = time.perf_counter() - start
    peak = _rss_kib("VmHWM") - before
    return {"seconds": seconds, "peak_kib": peak, "reason": reason}


def in_child(work: Callable[[], dict[str, Any]], kill_after: float) -> dict[str, Any]:
    """``work()`` in a forked child; its JSON result, or ``{"killed": seconds}`` when it did
    not answer within ``kill_after`` seconds, or ``{"error": ...}`` when it raised."""
    read_end, write_end = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        try:
            answer = work()
        except BaseException as error:
            answer = {"error": f"{type(error).__name__}: {error}"[:200]}
        with os.fdopen(write_end, "w") as pipe:
            json.dump(answer, pipe)
        os._exit(0)
    os.close(write_end)
    data = b""
    with os.fdopen(read_end, "rb") as pipe:
        while True:
            left = kill_after - (time.perf_counter() - start)
            ready, _, _ = select.select([pipe], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"killed": kill_after}
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                break
            data += chunk
    os.waitpid(pid, 0)
    result: dict[str, Any] = json.loads(data) if data else {"error": "child died"}
    return result


@dataclass
class Row:
    shape: str
    algorithm: str
    seconds: float | None
    memory_ratio: float | None
    note: str

    @property
    def ok(self) -> bool:
        return (
            self.seconds is not None
            and self.seconds <= BUDGET + SLACK
            and self.memory_ratio is not None
            and self.memory_ratio < MAX_MEMORY_RATIO
        )


def measure(
    shape: str,
    html: str,
    algorithm: str,
    parse_kib: int | None,
    *,
    kill_after: float,
    url: str = "",
    url_kib: int = 0,
) -> Row:
    """One row: ``algorithm`` on ``html`` (at ``url``) with the budget, in a child process.
    When the page's parse alone outlasts ``kill_after`` and the run refused the page before
    parsing it, the memory is measured against the page's size instead; ``url_kib``, the size
    of a hostile URL, is added to the parse's memory."""
    page_kib = max(len(html.encode("utf-8")) // 1024, 1)
    work = functools.partial(
        run_measured, algorithm, html, time_budget=BUDGET, max_nodes=True, url=url
    )
    answer = in_child(work, kill_after)
    if "killed" in answer:
        return Row(shape, algorithm, None, None, f"killed after {kill_after:g} s")
    if "error" in answer:
        return Row(shape, algorithm, None, None, answer["error"])
    reason = answer["reason"] or ""
    if parse_kib is None and reason.startswith("max_attributes exceeded"):
        # Refused before any parse: against the page's own size, which its parse (one that
        # takes longer than kill_after here) holds at least, the ratio is an upper bound.
        note = f"refused before parsing; memory against the page's size ({reason[:40]}...)"
        return Row(shape, algorithm, answer["seconds"], answer["peak_kib"] / page_kib, note)
    if parse_kib is None:
        note = f"the lxml parse alone took over {kill_after:g} s"
        return Row(shape, algorithm, answer["seconds"], None, note)
    return Row(
        shape,
        algorithm,
        answer["seconds"],
        answer["peak_kib"] / (parse_kib + url_kib),
        reason[:70],
    )


def table(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| shape | algorithm | seconds | memory / parse | ok | reason |",
        "|---|---|---:|---:|---|---|",
    ]
    for row in rows:
        seconds = "-" if row.seconds is None else f"{row.seconds:.2f}"
        memory = "-" if row.memory_ratio is None else f"{row.memory_ratio:.1f}"
        mark = "yes" if row.ok else "**FAIL**"
        note = row.note.replace("|", "/")
        lines.append(f"| {row.shape} | {row.algorithm} | {seconds} | {memory} | {mark} | {note} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hostile", description=__doc__)
    parser.add_argument("--size", type=int, default=SIZE, help="page size in bytes")
    parser.add_argument("--shape", action="append", help="only this shape (repeatable)")
    parser.add_argument("--algorithm", action="append", help="only this algorithm (repeatable)")
    parser.add_argument(
        "--kill-after", type=float, default=60.0, help="seconds before a run is killed"
    )
    args = parser.parse_args(argv)
    growth_tests = load_growth_tests()
    shapes: dict[str, Callable[[int], str]] = growth_tests.SHAPES
    url_shapes: dict[str, Callable[[int], str]] = growth_tests.URL_SHAPES
    names = args.shape or [*shapes, *url_shapes]
    algorithms = args.algorithm or [*scrapy_cetd.ALGORITHMS, TPS, OUTPUTS]
    if OUTPUTS in algorithms:  # the metadata's libraries load once, before the forks
        scrapy_cetd.extract(growth_tests.page(), url=growth_tests.URL, metadata=True, markdown=True)
    rows: list[Row] = []
    for name in names:
        in_url = name in url_shapes
        html = growth_tests.page() if in_url else shapes[name](args.size)
        url = url_shapes[name](args.size) if in_url else growth_tests.URL
        parse_kib = {
            kind: in_child(functools.partial(_parse_answer, html, kind), args.kill_after).get("kib")
            for kind in ("extract", TPS)
        }
        for algorithm in algorithms:
            if in_url and algorithm != OUTPUTS:
                continue  # only the outputs read the page URL
            kind = TPS if algorithm == TPS else "extract"
            row = measure(
                name,
                html,
                algorithm,
                parse_kib[kind],
                kill_after=args.kill_after,
                url=url,
                url_kib=len(url.encode()) // 1024 if in_url else 0,
            )
            rows.append(row)
            print(
                f"{name:26} {algorithm:9} {row.seconds if row.seconds is not None else '-'!s:>8.6}"
                f" {row.memory_ratio or 0:6.1f} {'ok' if row.ok else 'FAIL'} {row.note}",
                file=sys.stderr,
                flush=True,
            )
    print(table(rows))
    failed = [row for row in rows if not row.ok]
    print(f"\n{len(rows) - len(failed)} of {len(rows)} rows pass.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

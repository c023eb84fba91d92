"""Throughput, scaling and memory of ``scrapy-cetd corpus``, and the Dask run's identity.

The WARC files are generated here, into a temporary folder, from the shared datasets' pages
(``../shared/datasets/*/html``, research-use pages that are never committed): one ``response``
record per page, served as archived (original bytes, ``Content-Type`` with the MANIFEST's
charset), the datasets taken in turn so that every size has the same mix. Two corpora:

* ``--records`` (1,000) HTML records in 2 files of 500;
* ``--large`` (10,000) records in 10 files of 1,000; past the 1,192 shared pages the pages
  repeat, under new URLs.

Each run is ``scrapy-cetd corpus DIR --out OUT.jsonl`` in its own process; pages/s is the
command's own figure (pages over the time of :func:`~scrapy_cetd.corpus.run_corpus`, the pool's
start included, the interpreter's start-up not). The process tree (the command, its fork server
and its workers) is sampled every 50 ms with psutil for the peak resident memory: summed over
all processes, of the command's own process, and of the largest of the others, and for the
CPU time of every process of the tree. The machine's load average at the start of each run
is reported too: on a shared machine, other jobs' load caps the scaling.

1. the small corpus with ``--jobs 1`` and ``--jobs 2``, alternating, ``--repeat`` (3) times
   each: the best pages/s of each and the scaling ratio;
2. the large corpus with ``--jobs 2``: pages/s and peak memory, against the small corpus's;
3. :func:`scrapy_cetd.corpus.to_dask_bag` over the small corpus on a ``LocalCluster`` of 2
   worker processes: its rows must equal the local runs' rows, in order;
4. datatrove: our step (:class:`~scrapy_cetd.corpus.datatrove_step.CetdExtractor`) and
   datatrove's own ``Trafilatura`` step on the same documents, each run in its own process:
   documents per second of wall time and per CPU second (one core: the step and its sandbox
   process, which run one after the other), documents kept, timeouts, and the peak resident
   memory of the process tree (both processes, summed, and each: the sandbox is forked from
   the step's process, so the pages they share, the documents read among them, count in
   both). The documents are those of a WARC reader over the small corpus, read before the
   step's clock starts (the reading is timed on its own): ``--readers`` names which, by
   default both, each with both steps: ``cetd``, our
   :class:`~scrapy_cetd.corpus.datatrove_step.CetdWarcReader`, which the docs recommend (one
   document per page ``scrapy-cetd corpus`` extracts, decoded as it decodes them), and
   ``datatrove``, datatrove's ``WarcReader`` (the documents the figures measured before ours
   existed were of). Both steps run with datatrove's default timeout (1 s) and options,
   alternating, ``--repeat`` times each: the run of each with the most documents per CPU
   second is reported, with every run's figure.

Usage: ``python -m benchmarks.corpus [--records 1000] [--large 10000] [--repeat 3] [--json OUT]
[--no-datatrove | --only-datatrove] [--readers cetd,datatrove]`` (``--large 0`` skips the
large corpus; ``--only-datatrove`` runs step 4 alone).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
from distributed import Client, LocalCluster
from fastwarc import WarcRecordType

from benchmarks import datasets_root
from benchmarks.make_warc import WarcFile, response_block
from scrapy_cetd.corpus import to_dask_bag
from scrapy_cetd.evaluation.datasets import Dataset, Page, find_datasets

SAMPLE_SECONDS = 0.05


def shared_pages(datasets: Sequence[Dataset]) -> Iterator[tuple[str, Page]]:
    """Every page once, the datasets in turn (one page of each, then the next of each, …)."""
    iterators = [((dataset.name, page) for page in dataset.pages()) for dataset in datasets]
    for batch in itertools.zip_longest(*iterators):
        yield from (item for item in batch if item is not None)


def write_corpus(folder: Path, datasets: Sequence[Dataset], records: int, per_file: int) -> None:
    """``records`` response records in files of ``per_file``, pages repeating as needed."""
    folder.mkdir(parents=True)
    pages = list(shared_pages(datasets))
    for start in range(0, records, per_file):
        path = folder / f"corpus-{start // per_file:05d}.warc.gz"
        with WarcFile(path) as warc:
            warc.warcinfo({"software": "scrapy-cetd benchmarks/corpus.py", "isPartOf": folder.name})
            for number in range(start, min(start + per_file, records)):
                name, page = pages[number % len(pages)]
                url = page.meta.get("url") or f"https://{name}.invalid/{page.id}"
                copy = number // len(pages)
                if copy:
                    url += ("&" if "?" in url else "?") + f"cetd-copy={copy}"
                charset = f"; charset={page.encoding}" if page.encoding else ""
                headers = [
                    ("Content-Type", f"text/html{charset}"),
                    ("Content-Length", str(len(page.html))),
                ]
                block = response_block(200, "OK", headers, page.html)
                warc.write(
                    WarcRecordType.response,
                    block,
                    url=url,
                    content_type="application/http; msgtype=response",
                )


def sample(process: subprocess.Popen[bytes]) -> dict[str, float]:
    """Sample ``process`` and its descendants until it exits: the peak of their summed RSS,
    the peak RSS of ``process`` itself and of its largest descendant (bytes), and the CPU
    seconds of ``process`` and of all of them (as last seen, so up to one sampling interval
    short per process)."""
    root = psutil.Process(process.pid)
    peaks = {"total": 0.0, "main": 0.0, "worker": 0.0}
    cpu: dict[int, float] = {}
    while process.poll() is None:
        try:
            descendants = root.children(recursive=True)
        except psutil.Error:
            break
        sizes = []
        for member in [root, *descendants]:
            with contextlib.suppress(psutil.Error), member.oneshot():
                sizes.append(member.memory_info().rss)
                times = member.cpu_times()
                cpu[member.pid] = times.user + times.system
        if not sizes:
            break
        peaks["total"] = max(peaks["total"], sum(sizes))
        peaks["main"] = max(peaks["main"], sizes[0])
        peaks["worker"] = max(peaks["worker"], max(sizes[1:], default=0))
        time.sleep(SAMPLE_SECONDS)
    return {**peaks, "own_cpu": cpu.get(process.pid, 0.0), "cpu": sum(cpu.values())}


def run_command(folder: Path, out: Path, jobs: int) -> dict[str, Any]:
    """One ``scrapy-cetd corpus`` run: its summary, wall time, peak memory, CPU time and the
    machine's load average when it started (the machine is shared)."""
    stats = out.with_suffix(".stats.json")
    command = [
        sys.executable, "-m", "scrapy_cetd.cli", "corpus", str(folder), "--out", str(out),
        "--jobs", str(jobs), "--no-progress", "--stats", str(stats),
    ]  # fmt: skip
    load = os.getloadavg()[0]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    samples: list[dict[str, float]] = []
    sampler = threading.Thread(target=lambda: samples.append(sample(process)))
    sampler.start()
    process.wait()
    sampler.join()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {process.returncode}")
    summary: dict[str, Any] = json.loads(stats.read_text())
    del summary["files"]
    summary["wall_seconds"] = round(time.perf_counter() - started, 2)
    summary["cpu_seconds"] = round(samples[0]["cpu"], 2)
    summary["main_process_cpu_seconds"] = round(samples[0]["own_cpu"], 2)
    summary["cpu_ms_per_page"] = round(1000 * summary["cpu_seconds"] / summary["pages"], 2)
    summary["peak_rss_total_mib"] = round(samples[0]["total"] / 2**20, 1)
    summary["peak_rss_main_mib"] = round(samples[0]["main"] / 2**20, 1)
    summary["peak_rss_largest_worker_mib"] = round(samples[0]["worker"] / 2**20, 1)
    summary["load_average_at_start"] = round(load, 2)
    return summary


def run_dask(folder: Path) -> tuple[list[dict[str, Any]], float]:
    """The rows of ``to_dask_bag`` on a LocalCluster of 2 worker processes, and the seconds
    the computation took (cluster start-up excluded)."""
    with (
        LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2, threads_per_worker=1, processes=True
        ) as cluster,
        Client(cluster),  # type: ignore[no-untyped-call]
    ):
        started = time.perf_counter()
        rows: list[dict[str, Any]] = to_dask_bag([folder]).compute()  # type: ignore[no-untyped-call]
        return rows, time.perf_counter() - started


READERS = ("cetd", "datatrove")
"""The WARC readers the datatrove steps are timed after, by the name ``--readers`` gives them:
ours (``CetdWarcReader``) and datatrove's (``WarcReader``)."""

READER_LABELS = {"cetd": "CetdWarcReader", "datatrove": "datatrove's WarcReader"}

STEP_LABELS = {"cetd": "CetdExtractor (cetd-plus)", "trafilatura": "Trafilatura"}


def reader_class(reader: str) -> Any:
    """The class of the WARC reader ``reader`` (a name of :data:`READERS`)."""
    from datatrove.pipeline.readers import WarcReader  # type: ignore[import-untyped]  # noqa: PLC0415

    from scrapy_cetd.corpus.datatrove_step import CetdWarcReader  # noqa: PLC0415

    return CetdWarcReader if reader == "cetd" else WarcReader


def cpu_seconds(
    before: Sequence[resource.struct_rusage], after: Sequence[resource.struct_rusage]
) -> float:
    """The CPU seconds between two pairs of ``getrusage()`` (this process, its children)."""
    return sum(
        (end.ru_utime + end.ru_stime) - (start.ru_utime + start.ru_stime)
        for start, end in zip(before, after, strict=True)
    )


def usage() -> tuple[resource.struct_rusage, resource.struct_rusage]:
    """``getrusage()`` of this process and of its children."""
    return resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)


def datatrove_step(step: str, reader: str, folder: Path) -> dict[str, Any]:
    """Run one datatrove extractor step (``cetd`` or ``trafilatura``) over the documents of
    the WARC reader ``reader`` on ``folder`` (:func:`reader_class`), in this process; its
    counts and times, and the reader's (its imports left out)."""
    from datatrove.pipeline.extractors import (  # type: ignore[import-untyped]  # noqa: PLC0415
        Trafilatura,
    )

    from scrapy_cetd.corpus.datatrove_step import CetdExtractor  # noqa: PLC0415

    kind = reader_class(reader)
    before, started = usage(), time.perf_counter()
    documents = list(kind(str(folder), glob_pattern="*.warc.gz").run())
    read_seconds, read_cpu = time.perf_counter() - started, cpu_seconds(before, usage())
    extractor = CetdExtractor() if step == "cetd" else Trafilatura()
    before, started = usage(), time.perf_counter()
    kept = sum(1 for _ in extractor.run(iter(documents)))
    seconds, cpu = time.perf_counter() - started, cpu_seconds(before, usage())
    timeouts = extractor.stats["timeout"].total if "timeout" in extractor.stats.stats else 0
    return {
        "step": step,
        "reader": reader,
        "documents": len(documents),
        "kept": kept,
        "timeouts": int(timeouts),
        "read_seconds": round(read_seconds, 2),
        "read_documents_per_cpu_second": round(len(documents) / read_cpu, 1),
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "documents_per_second": round(len(documents) / seconds, 1),
        "documents_per_cpu_second": round(len(documents) / cpu, 1),
    }


def run_datatrove(folder: Path, step: str, reader: str) -> dict[str, Any]:
    """:func:`datatrove_step` in its own process, its process tree sampled for memory."""
    command = [sys.executable, "-m", "benchmarks.corpus", "--datatrove-step", step, reader]
    process = subprocess.Popen([*command, str(folder)], stdout=subprocess.PIPE)
    samples: list[dict[str, float]] = []
    sampler = threading.Thread(target=lambda: samples.append(sample(process)))
    sampler.start()
    stdout, _ = process.communicate()
    sampler.join()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} {folder} exited with {process.returncode}")
    result: dict[str, Any] = json.loads(stdout.decode().strip().splitlines()[-1])
    result["peak_rss_total_mib"] = round(samples[0]["total"] / 2**20, 1)
    result["peak_rss_step_mib"] = round(samples[0]["main"] / 2**20, 1)
    result["peak_rss_sandbox_mib"] = round(samples[0]["worker"] / 2**20, 1)
    return result


def compare_datatrove(folder: Path, repeat: int, readers: Sequence[str]) -> dict[str, Any]:
    """For each of ``readers``, our step and Trafilatura's, alternating, ``repeat`` times each
    (:func:`run_datatrove`): the run of each with the most documents per CPU second, every
    run's figure, and the ratio of the two best."""
    results: dict[str, Any] = {}
    for reader in readers:
        tries: dict[str, list[dict[str, Any]]] = {"cetd": [], "trafilatura": []}
        for _attempt, step in itertools.product(range(repeat), tries):
            run = run_datatrove(folder, step, reader)
            tries[step].append(run)
            print(f"datatrove, {reader} reader, {step}: {run}", flush=True)
        best = {
            step: max(runs, key=lambda run: run["documents_per_cpu_second"])
            for step, runs in tries.items()
        }
        found: dict[str, Any] = dict(best)
        found["all_documents_per_cpu_second"] = {
            step: [run["documents_per_cpu_second"] for run in runs] for step, runs in tries.items()
        }
        ours, theirs = (best[step]["documents_per_cpu_second"] for step in ("cetd", "trafilatura"))
        found["throughput_ratio"] = round(ours / theirs, 2)
        results[reader] = found
    return results


def print_datatrove(results: dict[str, Any]) -> None:
    """The datatrove comparison as a Markdown table, a row per reader and step."""
    print(
        "\n| reader | read docs per CPU s | datatrove step | documents | kept | timeouts | docs/s "
        "| docs per CPU s | peak RSS, both processes | step process | sandbox |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for reader, found in results.items():
        for step, label in STEP_LABELS.items():
            run = found[step]
            print(
                f"| {READER_LABELS[reader]} | {run['read_documents_per_cpu_second']:.1f} | "
                f"{label} | {run['documents']:,} | {run['kept']:,} | {run['timeouts']} | "
                f"{run['documents_per_second']:.1f} | {run['documents_per_cpu_second']:.1f} | "
                f"{run['peak_rss_total_mib']:.0f} MiB | {run['peak_rss_step_mib']:.0f} MiB | "
                f"{run['peak_rss_sandbox_mib']:.0f} MiB |"
            )
    for reader, found in results.items():
        for step, figures in found["all_documents_per_cpu_second"].items():
            print(
                f"{READER_LABELS[reader]}, {step}, every run (documents per CPU second): {figures}"
            )
        ratio = found["throughput_ratio"]
        print(
            f"{READER_LABELS[reader]}: throughput, ours over Trafilatura's (documents per CPU "
            f"second): {ratio:.2f}"
        )


def checked_readers(value: str) -> tuple[str, ...]:
    """The ``--readers`` value as names of :data:`READERS`, or the usage error."""
    names = tuple(name.strip() for name in value.split(",") if name.strip())
    unknown = [name for name in names if name not in READERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"not a list of readers ({', '.join(READERS)}): {value!r}")
    return names


def read_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def main(argv: Sequence[str] | None = None) -> int:
    """Generate, run, compare; print a table (and ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1000, help="records of the small corpus")
    parser.add_argument("--large", type=int, default=10000, help="records of the large corpus")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each --jobs on the small corpus (best)"
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--no-datatrove", action="store_true", help="skip the datatrove steps' comparison"
    )
    parser.add_argument(
        "--only-datatrove",
        action="store_true",
        help="run only the datatrove steps' comparison (on the small corpus)",
    )
    parser.add_argument(
        "--readers",
        type=checked_readers,
        default=READERS,
        help="the WARC readers the datatrove steps are timed after, comma-separated: cetd "
        "(CetdWarcReader), datatrove (its WarcReader); both by default",
    )
    parser.add_argument(
        "--datatrove-step", nargs=3, metavar=("STEP", "READER", "FOLDER"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.datatrove_step:
        step, reader, folder = args.datatrove_step
        print(json.dumps(datatrove_step(step, reader, Path(folder))), flush=True)
        return 0
    root = datasets_root()
    if root is None:
        print("no shared datasets (../shared/datasets or $CETD_DATASETS)", file=sys.stderr)
        return 1
    datasets = find_datasets(root)
    results: dict[str, Any] = {"datasets": [dataset.name for dataset in datasets]}

    with tempfile.TemporaryDirectory(prefix="cetd-corpus-bench-") as temporary:
        work = Path(temporary)
        small = work / f"small-{args.records}"
        write_corpus(small, datasets, args.records, max(1, args.records // 2))
        if args.only_datatrove:
            results["datatrove"] = compare_datatrove(small, args.repeat, args.readers)
            print_datatrove(results["datatrove"])
            if args.json:
                args.json.write_text(json.dumps(results, indent=1) + "\n")
            return 0
        tries: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
        for attempt, jobs in itertools.product(range(args.repeat), (1, 2)):
            run = run_command(small, work / f"small-j{jobs}-{attempt}.jsonl", jobs)
            tries[jobs].append(run)
            print(f"{args.records} records, --jobs {jobs}: {run}", flush=True)
        runs = {jobs: max(tries[jobs], key=lambda run: run["pages_per_second"]) for jobs in tries}
        results["small"] = {"records": args.records, "jobs1": runs[1], "jobs2": runs[2]}
        results["small"]["all_pages_per_second"] = {
            f"jobs{jobs}": [run["pages_per_second"] for run in tries[jobs]] for jobs in tries
        }
        results["scaling_ratio"] = round(
            runs[2]["pages_per_second"] / runs[1]["pages_per_second"], 2
        )
        local = read_rows(work / "small-j1-0.jsonl")
        results["jobs1_equals_jobs2"] = all(
            read_rows(Path(run["out"])) == local for run in tries[1] + tries[2]
        )
        dask_rows, dask_seconds = run_dask(small)
        results["dask"] = {
            "workers": 2,
            "processes": True,
            "rows": len(dask_rows),
            "pages_per_second": round(len(dask_rows) / dask_seconds, 2),
            "identical_to_local": dask_rows == local,
        }
        print(f"dask: {results['dask']}", flush=True)
        del local, dask_rows
        if not args.no_datatrove:
            results["datatrove"] = compare_datatrove(small, args.repeat, args.readers)
        if args.large:
            large = work / f"large-{args.large}"
            write_corpus(large, datasets, args.large, 1000)
            results["large"] = {
                "records": args.large,
                "jobs2": run_command(large, work / "large-j2.jsonl", 2),
            }
            print(f"{args.large} records, --jobs 2: {results['large']['jobs2']}", flush=True)

    print()
    print(
        "| corpus | jobs | pages/s | wall s | CPU ms/page | peak RSS, all processes "
        "| main process | largest worker | load at start |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = [(args.records, 1, runs[1]), (args.records, 2, runs[2])]
    if args.large:
        rows.append((args.large, 2, results["large"]["jobs2"]))
    for records, jobs, run in rows:
        print(
            f"| {records:,} records | {jobs} | {run['pages_per_second']:.1f} | "
            f"{run['wall_seconds']:.1f} | {run['cpu_ms_per_page']:.1f} | "
            f"{run['peak_rss_total_mib']:.0f} MiB | {run['peak_rss_main_mib']:.0f} MiB | "
            f"{run['peak_rss_largest_worker_mib']:.0f} MiB | "
            f"{run['load_average_at_start']:.1f} |"
        )
    print(f"\nscaling ratio (--jobs 2 / --jobs 1): {results['scaling_ratio']:.2f}")
    print(f"--jobs 1 rows == --jobs 2 rows: {results['jobs1_equals_jobs2']}")
    print(
        f"Dask (LocalCluster, 2 worker processes): {results['dask']['pages_per_second']:.1f} "
        f"pages/s, rows identical to the local run: {results['dask']['identical_to_local']}"
    )
    if "datatrove" in results:
        print_datatrove(results["datatrove"])
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    identical = results["jobs1_equals_jobs2"] and results["dask"]["identical_to_local"]
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())

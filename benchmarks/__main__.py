"""``python -m benchmarks`` (``make bench``): every system, every dataset, one run.

Runs every algorithm registered in :data:`scrapy_cetd.ALGORITHMS` at the time of the run and
every peer of :data:`benchmarks.peers.PEERS`, each in its own process, on the same pages of all
the main-content datasets of ``../shared/datasets`` (:mod:`benchmarks.accuracy`); then the crawl
benchmark (:mod:`benchmarks.crawl`: the example spider without the add-on, with it, and with
trafilatura in the callback). It writes ``results.json`` and ``results.md`` into
``benchmarks/results`` and the plots ``scatter.png`` and ``datasets.png`` into ``docs/images``,
compares the peers with ``peers.md``, and regenerates the block of ``## Accuracy and speed`` in
``docs/benchmarks.md``. Last, the TPS benchmark (:mod:`benchmarks.tps`) measures list-page
pruning and, in a full run, regenerates its tables in ``docs/tps.md`` and ``README.md``
(``--no-tps`` skips it).

``--quick`` runs a fixed subset (``QUICK_PAGES`` evenly spread pages per dataset, a short
crawl) and writes to ``benchmarks/results/tmp/quick`` instead (plots included), so a smoke
test never overwrites the full results; the docs page is regenerated only by a full run of every
system and dataset. ``--render`` measures nothing: it rewrites ``results.md``, the plots and the
page's block from the saved ``results.json`` (after a change of format).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import crawl, datasets_root, reference, report, tps
from benchmarks.accuracy import all_systems, benchmark_datasets, our_algorithms, run_all
from benchmarks.peers import PEERS
from benchmarks.summary import summarize

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "docs" / "benchmarks.md"
"""The docs page whose ``## Accuracy and speed`` block a full run regenerates."""
IMAGES = PAGE.parent / "images"
"""Where a full run writes the plots that page shows."""
RESULTS = HERE / "results"

QUICK_PAGES = 20
"""Pages per dataset in a quick run (evenly spread, so the same pages every time)."""

FULL_CRAWL = (300, 3)
"""Pages served and runs of each crawl variant in a full run (the best run is reported)."""

QUICK_CRAWL = (60, 1)
"""The same for a quick run."""


def choose_systems(spec: str | None) -> list[str]:
    """The systems of ``--systems``: names, ``ours`` or ``peers``, comma-separated; all if empty.

    Raises ``ValueError`` naming the valid choices for an unknown name.
    """
    available = all_systems()
    if not spec:
        return available
    groups = {"ours": our_algorithms(), "peers": list(PEERS)}
    chosen: list[str] = []
    for name in (part.strip() for part in spec.split(",")):
        if not name:
            continue
        if name not in available and name not in groups:
            valid = ", ".join([*groups, *available])
            raise ValueError(f"unknown system {name!r}; valid: {valid}")
        chosen += [s for s in groups.get(name, [name]) if s not in chosen]
    return chosen


def machine() -> dict[str, Any]:
    """The machine the numbers come from: cores, CPU model, Python and OS."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        models = [
            line.split(":", 1)[1].strip()
            for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines()
            if line.startswith("model name")
        ]
        cpu = models[0] if models else cpu
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def source_state() -> dict[str, Any]:
    """The commit of the code measured, and whether the work tree had uncommitted changes."""

    def git(*args: str) -> str:
        command = ["git", *args]
        try:
            done = subprocess.run(
                command, cwd=HERE.parent, capture_output=True, text=True, check=False
            )
        except OSError:
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    return {
        "commit": git("rev-parse", "--short", "HEAD") or None,
        "uncommitted_changes": bool(git("status", "--porcelain", "--untracked-files=no")),
    }


def compare_with_peers_md(summary: dict[str, Any], root: Path, subset: bool) -> dict[str, Any]:
    """This run's peers against ``root/peers.md`` (empty when the file is absent).

    ``subset`` says that this run saw only some of the pages ``peers.md`` was measured on.
    """
    path = root / "peers.md"
    result: dict[str, Any] = {
        "tolerance": reference.TOLERANCE,
        "subset": subset,
        "differences": [],
        "failures": {},
    }
    if not path.is_file():
        return result
    text = path.read_text(encoding="utf-8")
    systems = summary["systems"]
    scores = reference.reference_scores(text)
    differences = reference.compare(scores, systems, summary["datasets"])
    result["differences"] = [d.to_dict() for d in differences]
    result["failures"] = {
        name: {"reference": count, "measured": systems[name]["overall"]["failures"]}
        for name, count in reference.reference_failures(text).items()
        if name in systems
    }
    return result


def _plots(results: dict[str, Any], out: Path) -> list[Path]:
    try:
        from benchmarks import plots  # noqa: PLC0415  (matplotlib is in the bench extra)
    except ImportError as exc:
        print(f"no plots: {exc} (pip install -e '.[bench]')", file=sys.stderr)
        return []
    out.mkdir(parents=True, exist_ok=True)
    return [
        plots.scatter(results, out / report.SCATTER_PNG),
        plots.datasets(results, out / report.DATASETS_PNG),
    ]


def publish(results: dict[str, Any], out: Path, docs: bool) -> list[Path]:
    """Write the results and the plots into ``out``; for a full run, if ``docs``, the plots go
    to :data:`IMAGES` instead and the block of :data:`PAGE` is regenerated."""
    update = docs and bool(results.get("full_run"))
    written = report.write(results, out) + _plots(results, IMAGES if update else out)
    if update:
        results_dir = os.path.relpath(out, PAGE.parent)
        report.update_page(PAGE, results, results_dir, os.path.relpath(IMAGES, PAGE.parent))
        written.append(PAGE)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks and write the results; 1 if a system or the crawl could not run."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_PAGES} pages per dataset")
    parser.add_argument("--systems", help="comma-separated systems, or 'ours' / 'peers'")
    parser.add_argument("--datasets", help="only these datasets (comma-separated names)")
    parser.add_argument("--datasets-root", type=Path, default=datasets_root())
    parser.add_argument("--out", type=Path, help="results folder (default benchmarks/results)")
    parser.add_argument("--no-crawl", action="store_true", help="skip the crawl benchmark")
    parser.add_argument("--no-tps", action="store_true", help="skip the TPS benchmark")
    parser.add_argument(
        "--no-docs", action="store_true", help="leave docs/benchmarks.md and docs/images alone"
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="measure nothing: rewrite results.md, the plots and the docs from results.json",
    )
    args = parser.parse_args(argv)
    out: Path = args.out or (RESULTS / "tmp" / "quick" if args.quick else RESULTS)
    if args.render:
        saved = json.loads((out / report.RESULTS_JSON).read_text(encoding="utf-8"))
        print("\nwrote " + ", ".join(map(str, publish(saved, out, not args.no_docs))))
        return 0
    root: Path | None = args.datasets_root
    if root is None:
        parser.error("no datasets found: pass --datasets-root or set CETD_DATASETS")
    try:
        systems = choose_systems(args.systems)
        names = args.datasets.split(",") if args.datasets else None
        datasets = [dataset.name for dataset in benchmark_datasets(root, names)]
    except ValueError as exc:
        parser.error(str(exc))
    limit = QUICK_PAGES if args.quick else None
    command = " ".join(["python -m benchmarks", *(argv if argv is not None else sys.argv[1:])])

    print(f"accuracy and speed: {len(systems)} systems on {', '.join(datasets)}", file=sys.stderr)
    raw = run_all(systems, root, names, limit, out / "tmp" / "raw")
    crawled: dict[str, Any] | None = None
    crawl_failed = False
    if not args.no_crawl:
        print("crawl: the example spider, three ways", file=sys.stderr)
        count, repeat = QUICK_CRAWL if args.quick else FULL_CRAWL
        try:
            crawled = crawl.run(crawl.shared_pages(root, count), repeat, "shared")
        except (RuntimeError, OSError, ValueError) as exc:
            print(f"crawl benchmark failed: {exc}", file=sys.stderr)
            crawl_failed = True

    summary = summarize(raw)
    results: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "command": command,
        "machine": machine(),
        "source": source_state(),
        "page_limit": limit,
        "full_run": not (args.quick or args.systems or args.datasets),
        **summary,
        "crawl": crawled,
        "reference": compare_with_peers_md(summary, root, subset=limit is not None),
    }
    written = publish(results, out, not args.no_docs)
    print(report.page_table(results))
    print("\n" + report.reference_summary(results["reference"]))
    print("\nwrote " + ", ".join(str(path) for path in written))
    if not args.no_tps:
        print("\nTPS: record pages, the paper's settings and the defaults", file=sys.stderr)
        tps_args = ["--datasets-root", str(root)]
        if limit is not None:
            tps_args += ["--limit", str(limit)]
        if args.no_docs or not results["full_run"]:
            tps_args.append("--no-docs")
        tps.main(tps_args)
    return 1 if summary["missing"] or crawl_failed else 0


if __name__ == "__main__":
    sys.exit(main())

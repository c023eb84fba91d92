"""The benchmark's outputs: ``results.json``, ``results.md`` and the block of the docs page.

Everything here formats numbers already computed (:mod:`benchmarks.summary`,
:mod:`benchmarks.reference`, :mod:`benchmarks.crawl`); nothing is measured. The block is the
part of the ``## Accuracy and speed`` section of ``docs/benchmarks.md`` between
``<!-- bench:start -->`` and ``<!-- bench:end -->``; the rest of the page is never touched.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.reference import KNOWN_CAUSES
from scrapy_cetd.evaluation.metrics import METRICS

START = "<!-- bench:start -->"
END = "<!-- bench:end -->"
SECTION = "## Accuracy and speed"

RESULTS_JSON = "results.json"
RESULTS_MD = "results.md"
SCATTER_PNG = "scatter.png"
DATASETS_PNG = "datasets.png"
RESULTS_PAGE = "benchmark-results.md"
"""The docs page that includes ``results.md`` (beside ``benchmarks.md``)."""

CRAWL_LABELS = {
    "without": "without the add-on",
    "with": "with the add-on",
    "trafilatura": "trafilatura in the callback",
}


def table(header: Sequence[str], rows: Iterable[Sequence[str]], align: str = "") -> str:
    """A Markdown table; ``align`` has one ``l`` or ``r`` per column (default: first left)."""
    align = align or "l" + "r" * (len(header) - 1)
    marks = [":--" if a == "l" else "--:" for a in align]
    lines = [header, marks, *rows]
    return "\n".join(_row(line) for line in lines)


def _row(cells: Sequence[str]) -> str:
    """One Markdown table row; a ``|`` inside a cell is escaped so it does not split the cell."""
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def f3(value: float | None) -> str:
    """A score with three decimals; an em dash when there is none."""
    return "—" if value is None else f"{value:.3f}"


def f_ms(value: float | None) -> str:
    """Milliseconds: one decimal (two below 1 ms)."""
    if value is None:
        return "—"
    return f"{value:.2f}" if value < 1 else f"{value:.1f}"


def f_rate(value: float | None) -> str:
    """Pages per second: no decimals from 10 up."""
    if value is None:
        return "—"
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def f_ratio(value: float | None) -> str:
    """A multiple of the parse time, e.g. ``3.5x``."""
    return "—" if value is None else f"{value:.1f}x"


def f_ci(metric: Mapping[str, Any]) -> str:
    """F1 with its 95% interval: ``0.886 [0.86, 0.91]``."""
    low, high = metric["f1_ci95"]
    return f"{metric['f1']:.3f} [{low:.2f}, {high:.2f}]"


def pr(metric: Mapping[str, Any]) -> str:
    """Precision and recall: ``0.899 / 0.950``."""
    return f"{metric['precision']:.3f} / {metric['recall']:.3f}"


def name_cell(system: str, entry: Mapping[str, Any]) -> str:
    """Our algorithms in code font, the peers plain."""
    return f"`{system}`" if entry.get("kind") == "ours" else system


def ranked(value: str, scores: Mapping[str, Any], metric: str) -> str:
    """``value`` in bold when the system is the best or not significantly below it."""
    tied = scores.get("vs_best", {}).get(metric, {}).get("tied", False)
    return f"**{value}**" if tied else value


def half_widths(results: Mapping[str, Any], metric: str = "SH") -> list[float]:
    """Half-widths of every per-dataset F1 interval of the run."""
    return [
        (scores["metrics"][metric]["f1_ci95"][1] - scores["metrics"][metric]["f1_ci95"][0]) / 2
        for entry in results["systems"].values()
        for scores in entry["datasets"].values()
    ]


def sample_note(results: Mapping[str, Any]) -> str:
    """How many pages each number rests on, and how far apart two systems must be."""
    pages = results["pages"]
    widths = half_widths(results)
    sizes = ", ".join(f"{name} {count}" for name, count in pages.items())
    typical = f"±{statistics.median(widths):.3f}" if widths else "—"
    widest = f"±{max(widths):.3f}" if widths else "—"
    return (
        f"Pages per dataset: {sizes} ({sum(pages.values()):,} in all). A dataset's F1 is a mean "
        f"over its pages; its 95% bootstrap interval (1,000 resamples of pages, seed 0, as "
        f"`score.py` computes it) is typically {typical} SH-F1 here (at most {widest}), so a "
        "difference of a few thousandths between two systems means nothing. **Bold** marks the "
        "best system and every system whose paired bootstrap interval of the difference to the "
        "best (same pages, same resampling) includes zero; the mean over datasets uses a "
        "stratified bootstrap (each dataset resampled on its own)."
    )


def _header(results: Mapping[str, Any]) -> str:
    machine = results["machine"]
    source = results.get("source") or {}
    code = f" at commit {source['commit']}" if source.get("commit") else ""
    if code and source.get("uncommitted_changes"):
        code += " with uncommitted changes"
    quick = " **Quick run: a fixed subset of pages, not comparable with full runs.**"
    return (
        f"Measured {results['date']}{code} on a {machine['cores']}-core machine "
        f"({machine['cpu']}, Python {machine['python']}) with `{results['command']}`."
        + (quick if results["page_limit"] else "")
    )


def accuracy_table(results: Mapping[str, Any], metric: str) -> str:
    """F1 of one metric: a row per system, a column per dataset and the mean over datasets."""
    names = results["datasets"]
    rows = []
    for system, entry in results["systems"].items():
        cells = [
            ranked(f3(entry["datasets"][d]["metrics"][metric]["f1"]), entry["datasets"][d], metric)
            for d in names
        ]
        mean = ranked(f3(entry["overall"]["metrics"][metric]["f1"]), entry["overall"], metric)
        rows.append([name_cell(system, entry), *cells, mean])
    return table(["system", *names, "mean"], rows)


def speed_cells(speed: Mapping[str, Any]) -> list[str]:
    """Median and p95 ms, pages/s, call ÷ parse and extraction ÷ parse."""
    return [
        f_ms(speed["ms_median"]),
        f_ms(speed["ms_p95"]),
        f_rate(speed["pages_per_s"]),
        f_ratio(speed["x_parse"]),
        f_ratio(speed.get("extract_x_parse")),
    ]


SPEED_HEADER = ["ms median", "ms p95", "pages/s", "call ÷ parse", "extract ÷ parse"]


def summary_table(results: Mapping[str, Any]) -> str:
    """Every system over all datasets: F1s with intervals, BOW P/R, speed, memory, failures."""
    rows = []
    for system, entry in results["systems"].items():
        overall = entry["overall"]
        metrics = overall["metrics"]
        rows.append(
            [
                name_cell(system, entry),
                entry.get("version") or "—",
                *(f_ci(metrics[name]) for name in METRICS),
                pr(metrics["BOW"]),
                *speed_cells(overall),
                f"{entry['peak_rss_mb']:.0f} ({entry['rss_ready_mb']:.0f})",
                str(overall["failures"]),
            ]
        )
    header = ["system", "version", *(f"{m}-F1 [95%]" for m in METRICS), "BOW P / R"]
    header += [*SPEED_HEADER, "peak RSS MiB (ready)", "failures"]
    return table(header, rows, "ll" + "r" * (len(header) - 2))


def dataset_table(results: Mapping[str, Any], dataset: str) -> str:
    """One dataset in full: every metric's F1 with its interval, P and R, and the speed."""
    rows = []
    for system, entry in results["systems"].items():
        scores = entry["datasets"][dataset]
        metrics = scores["metrics"]
        rows.append(
            [
                name_cell(system, entry),
                str(scores["failures"]),
                *(ranked(f_ci(metrics[m]), scores, m) for m in METRICS),
                *(pr(metrics[m]) for m in METRICS),
                *speed_cells(scores),
            ]
        )
    header = ["system", "failures", *(f"{m}-F1 [95%]" for m in METRICS)]
    header += [*(f"{m} P / R" for m in METRICS), *SPEED_HEADER]
    return table(header, rows)


def page_type_table(results: Mapping[str, Any], dataset: str = "wcxb") -> str:
    """Per page type of ``dataset``: F1 of each metric with its interval and P / R."""
    rows = []
    for system, entry in results["systems"].items():
        for page_type, scores in entry["datasets"][dataset].get("page_types", {}).items():
            metrics = scores["metrics"]
            rows.append(
                [
                    page_type,
                    name_cell(system, entry),
                    str(scores["pages"]),
                    *(f_ci(metrics[m]) for m in METRICS),
                    *(pr(metrics[m]) for m in METRICS),
                ]
            )
    rows.sort(key=lambda row: row[0])
    header = ["page type", "system", "pages", *(f"{m}-F1 [95%]" for m in METRICS)]
    header += [f"{m} P / R" for m in METRICS]
    return table(header, rows, "ll" + "r" * (len(header) - 2))


def page_type_overview(results: Mapping[str, Any], metric: str, dataset: str = "wcxb") -> str:
    """One metric's F1 per page type of ``dataset`` (a column per type) and snippet accuracy."""
    types: list[str] = []
    for entry in results["systems"].values():
        for page_type in entry["datasets"][dataset].get("page_types", {}):
            if page_type not in types:
                types.append(page_type)
    rows = []
    for system, entry in results["systems"].items():
        scores = entry["datasets"][dataset]
        by_type = scores.get("page_types", {})
        cells = [f3(by_type[t]["metrics"][metric]["f1"]) if t in by_type else "—" for t in types]
        rows.append([name_cell(system, entry), *cells, f3(scores.get("snippet_accuracy"))])
    return table(["system", *types, "snippet acc."], rows)


def not_english_note(results: Mapping[str, Any]) -> str:
    """Which pages :func:`not_english_table` pools (empty when the datasets give none)."""
    pooled = next(
        (e["not_english"] for e in results["systems"].values() if e.get("not_english")), None
    )
    if not pooled:
        return ""
    languages = ", ".join(f"{lang} {count}" for lang, count in pooled["languages"].items())
    return (
        f"**Pages not in English**: the {pooled['pages']} pages whose language the datasets "
        f"give and is not English ({languages}), pooled over the datasets:"
    )


def not_english_table(results: Mapping[str, Any], metrics: Sequence[str] = METRICS) -> str:
    """F1 with its interval on the pages not in English, per system."""
    rows = [
        [name_cell(system, entry), *(f_ci(entry["not_english"]["metrics"][m]) for m in metrics)]
        for system, entry in results["systems"].items()
        if entry.get("not_english")
    ]
    return table(["system", *(f"{m}-F1 [95%]" for m in metrics)], rows)


def crawl_table(crawl: Mapping[str, Any]) -> str:
    """Best pages/s of each crawl variant and its ratio to the crawl without extraction."""
    rows = []
    for variant in crawl["variants"]:
        extract = crawl["extract_ms_per_page"].get(variant)
        label = CRAWL_LABELS.get(variant, variant)
        if variant == "with" and crawl.get("extractor", {}).get(variant):
            label += f" (`{crawl['extractor'][variant]}`)"
        rows.append(
            [
                label,
                f_rate(crawl["best_pages_per_s"][variant]),
                f"{crawl['ratio_to_without'][variant]:.2f}",
                f_ms(extract),
                f"{crawl['with_main_content'][variant]} / {crawl['pages']}",
            ]
        )
    header = ["crawl", "pages/s", "÷ without", "extraction ms/page", "items with main content"]
    return table(header, rows)


def crawl_note(crawl: Mapping[str, Any]) -> str:
    """What the crawl benchmark served and how it was measured."""
    source = (
        f"{crawl['pages']} pages of the shared datasets ({', '.join(crawl['datasets'])})"
        if crawl["source"] == "shared"
        else f"{crawl['pages']} URLs answered with the 14 example article pages in turn"
    )
    missing = f" Not run: {', '.join(crawl['missing'])}." if crawl["missing"] else ""
    return (
        f"The example spider (`example_project/news/spiders/articles.py`) crawls {source} from "
        f"a local server on 127.0.0.1, {crawl['concurrency']} concurrent requests, each crawl in "
        f"its own process, best of {crawl['repeat']} alternating runs, pages/s from the first "
        f"response to the last item (`python -m benchmarks.crawl`).{missing}"
    )


def reference_summary(reference: Mapping[str, Any]) -> str:
    """How many values of ``peers.md`` this run reproduces within the tolerance."""
    differences = reference["differences"]
    if not differences:
        return "No peer of `peers.md` was run, so nothing was compared."
    flagged = [d for d in differences if d["flagged"]]
    largest = max(differences, key=lambda d: abs(d["diff"]))
    scope = (
        "a quick run on a subset of the pages, so differences are expected"
        if reference.get("subset")
        else "same pages, same metrics"
    )
    text = (
        f"Against `../shared/datasets/peers.md` ({scope}): "
        f"{len(differences) - len(flagged)} of {len(differences)} peer F1 values agree within "
        f"{reference['tolerance']} (largest difference {largest['diff']:+.3f}: "
        f"{largest['system']}, {largest['metric']}, {largest['column']})."
    )
    if flagged:
        text += (
            f" **{len(flagged)} differ by more than {reference['tolerance']}**; every compared"
            " value is listed in `results.md`."
        )
    if flagged and not reference.get("subset"):
        systems = sorted({d["system"] for d in flagged})
        text += "\n\n" + "\n".join(
            f"- {system}, {sum(d['system'] == system for d in flagged)} values: "
            + KNOWN_CAUSES.get(system, "cause not found yet.")
            for system in systems
        )
    return text


def reference_table(reference: Mapping[str, Any], only_flagged: bool) -> str:
    """The compared values (or only the flagged ones): peers.md, this run and the difference."""
    rows = [
        [
            d["system"],
            d["metric"],
            d["column"],
            f3(d["reference"]),
            f3(d["measured"]),
            f"{d['diff']:+.3f}",
            "**yes**" if d["flagged"] else "",
        ]
        for d in reference["differences"]
        if d["flagged"] or not only_flagged
    ]
    header = ["system", "metric", "column", "peers.md", "this run", "difference", "> tolerance"]
    return table(header, rows, "lll" + "r" * 4)


def failures_table(reference: Mapping[str, Any]) -> str:
    """Failures of each peer over all datasets: peers.md against this run."""
    rows = [
        [system, str(counts["reference"]), str(counts["measured"])]
        for system, counts in reference["failures"].items()
    ]
    return table(["system", "peers.md failures", "this run"], rows)


def failure_list(results: Mapping[str, Any]) -> str:
    """Every failing system and dataset with the (first distinct) errors, or a line saying none."""
    lines = [
        f"- {system} on {dataset}: {scores['failures']} ({'; '.join(scores['errors'])})"
        for system, entry in results["systems"].items()
        for dataset, scores in entry["datasets"].items()
        if scores["failures"]
    ]
    return "\n".join(lines) if lines else "No system failed on any page."


def missing_list(results: Mapping[str, Any]) -> str:
    """Systems that did not run and why (empty when all ran)."""
    return "\n".join(
        f"- {system}: {entry['missing']}" for system, entry in results["missing"].items()
    )


def markdown(results: Mapping[str, Any]) -> str:
    """The whole of ``results.md``."""
    parts = ["# Benchmark results", _header(results), sample_note(results)]
    if results["missing"]:
        parts += ["Not run:", missing_list(results)]
    parts += ["## All datasets", summary_table(results)]
    parts.append(
        "Times are per page, in each system's own process, on text already decoded as Scrapy "
        "decodes it; ours include the lxml parse. *call ÷ parse* is the whole call and "
        "*extract ÷ parse* our extraction alone, each divided by the reference lxml parse of "
        "the same page timed in the same process (median over pages). Peak RSS is the "
        "system's process over the whole run, pages read one at a time; in brackets, once the "
        "system is imported, before any page."
    )
    for metric in ("SH", "BOW", "LCS"):
        parts += [f"## {metric}-F1 by dataset", accuracy_table(results, metric)]
    for dataset in results["datasets"]:
        parts += [f"## {dataset}", dataset_table(results, dataset)]
    if "wcxb" in results["datasets"]:
        parts += ["## wcxb by page type"]
        for metric in ("BOW", "SH"):
            parts += [f"{metric}-F1 per page type:", page_type_overview(results, metric)]
        parts += ["Every metric per page type, with intervals:", page_type_table(results)]
    if not_english_note(results):
        parts += ["## Pages not in English", not_english_note(results), not_english_table(results)]
    parts += ["## Failures", failure_list(results)]
    if results.get("crawl"):
        parts += ["## Crawl throughput", crawl_note(results["crawl"])]
        parts.append(crawl_table(results["crawl"]))
    reference = results["reference"]
    parts += ["## Against peers.md", reference_summary(reference)]
    if reference["failures"]:
        parts.append(failures_table(reference))
    if reference["differences"]:
        parts.append(reference_table(reference, only_flagged=False))
    return "\n\n".join(parts) + "\n"


def page_table(results: Mapping[str, Any]) -> str:
    """The docs page's table: SH-F1 per dataset, the means, speed, memory and failures."""
    names = results["datasets"]
    rows = []
    for system, entry in results["systems"].items():
        overall = entry["overall"]
        sh = [
            ranked(f3(entry["datasets"][d]["metrics"]["SH"]["f1"]), entry["datasets"][d], "SH")
            for d in names
        ]
        rows.append(
            [
                name_cell(system, entry),
                *sh,
                ranked(f3(overall["metrics"]["SH"]["f1"]), overall, "SH"),
                ranked(f3(overall["metrics"]["BOW"]["f1"]), overall, "BOW"),
                f_ms(overall["ms_median"]),
                f_rate(overall["pages_per_s"]),
                f_ratio(overall.get("extract_x_parse")),
                f"{entry['peak_rss_mb']:.0f}",
                str(overall["failures"]),
            ]
        )
    header = ["system", *names, "mean SH-F1", "mean BOW-F1", "ms/page", "pages/s"]
    header += ["extract ÷ parse", "peak RSS MiB", "failures"]
    return table(header, rows)


def page_block(results: Mapping[str, Any], results_dir: str, images_dir: str) -> str:
    """The block of the docs page (between the markers, markers excluded); ``results_dir``
    (where ``results.json`` is) and ``images_dir`` (the plots) are relative to the page."""
    pages = sum(results["pages"].values())
    parts = [
        _header(results)
        + f" Every algorithm of ours and every peer, each in its own process, on the same "
        f"{pages:,} pages of {len(results['datasets'])} datasets of `../shared/datasets`. "
        f"Full tables (precision, recall, LCS-F1, p95, WCXB page types, intervals): "
        f"[Benchmark results]({RESULTS_PAGE}), numbers in "
        f"{{download}}`{RESULTS_JSON} <{results_dir}/{RESULTS_JSON}>`.",
        f"![SH-F1 against median ms per page]({images_dir}/{SCATTER_PNG})",
        f"![SH-F1 of every system on every dataset]({images_dir}/{DATASETS_PNG})",
        "**SH-F1** by dataset (mean over pages), means over datasets and speed over all pages "
        "(median ms per page including the parse; *extract ÷ parse*: our extraction alone as "
        "a multiple of the lxml parse of the same page):",
        page_table(results),
        sample_note(results),
    ]
    if not_english_note(results):
        parts += [not_english_note(results), not_english_table(results, ("BOW", "SH"))]
    if results["missing"]:
        parts += ["Not run:", missing_list(results)]
    if results.get("crawl"):
        parts += [crawl_note(results["crawl"]), crawl_table(results["crawl"])]
    parts.append(reference_summary(results["reference"]))
    return "\n\n".join(parts)


def replace_block(page: str, block: str) -> str:
    """``page`` with the text between the bench markers of its ``## Accuracy and speed``
    section replaced by ``block``; everything else is kept byte for byte.

    Raises ``ValueError`` when the section or its markers are missing or out of order.
    """
    section = page.find(f"\n{SECTION}\n")
    if section < 0:
        raise ValueError(f"the page has no {SECTION!r} section")
    next_section = page.find("\n## ", section + 1)
    end_of_section = len(page) if next_section < 0 else next_section
    start = page.find(START, section, end_of_section)
    end = page.find(END, section, end_of_section)
    if start < 0 or end < start:
        raise ValueError(f"no {START} ... {END} in the page's {SECTION!r} section")
    return page[: start + len(START)] + "\n" + block.strip("\n") + "\n" + page[end:]


def write(results: Mapping[str, Any], out: Path) -> list[Path]:
    """Write ``results.json`` and ``results.md`` into ``out``; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / RESULTS_JSON, out / RESULTS_MD
    json_path.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    md_path.write_text(markdown(results), encoding="utf-8")
    return [json_path, md_path]


def update_page(page: Path, results: Mapping[str, Any], results_dir: str, images_dir: str) -> None:
    """Regenerate the block of the docs page ``page`` from ``results`` (the folders are
    relative to the page, as for :func:`page_block`)."""
    text = page.read_text(encoding="utf-8")
    block = page_block(results, results_dir, images_dir)
    page.write_text(replace_block(text, block), encoding="utf-8")

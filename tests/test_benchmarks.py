"""The pure parts of ``benchmarks/``: statistics, peers.md parsing, report and docs block.

Tiny synthetic inputs only; nothing here needs the ``bench`` extra (the plot and peer tests
skip without it) and nothing asserts on a wall-clock time.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import gzip
import importlib
import importlib.util
import json
import random
import sys
from pathlib import Path
from typing import Any

import parsel
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import scrapy_cetd  # noqa: E402
from benchmarks import __main__ as bench  # noqa: E402
from benchmarks import accuracy, crawl, output_hashes, reference, report, summary  # noqa: E402
from benchmarks.peers import PEERS, fragment_text  # noqa: E402
from scrapy_cetd.evaluation.datasets import default_datasets_root, load_dataset  # noqa: E402
from scrapy_cetd.evaluation.metrics import METRICS, bootstrap_interval  # noqa: E402

# --- bootstrap and pooled statistics ---------------------------------------------------------


def _score_py() -> Any:
    """``../shared/datasets/score.py`` imported by path (skips when it is absent)."""
    root = default_datasets_root()
    if root is None or not (root / "score.py").is_file():
        pytest.skip("no score.py in the datasets folder")
    spec = importlib.util.spec_from_file_location("cetd_bench_score", root / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_stratum_is_exactly_the_score_py_bootstrap() -> None:
    rng = random.Random(7)
    values = [rng.random() for _ in range(37)]
    assert summary.stratified_interval([values]) == bootstrap_interval(values)
    assert summary.stratified_interval([values]) == _score_py().bootstrap(values)


def test_strata_are_drawn_independently_and_averaged() -> None:
    first, second = [0.2, 0.4, 0.6], [0.9, 0.9, 0.9]
    low, high = summary.stratified_interval([first, second])
    # The constant stratum adds exactly 0.9 / 2 to every draw of the first one (seed 0).
    expected = summary.percentile_interval(
        [(m + 0.9) / 2 for m in summary.resample_means(first, seed=0)]
    )
    assert (low, high) == pytest.approx(expected)
    assert summary.resample_means(first, seed=0) != summary.resample_means(first, seed=1)


def test_empty_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        summary.resample_means([])
    with pytest.raises(ValueError):
        summary.stratified_interval([])


def test_nearest_rank_p95_and_speed() -> None:
    values = [float(n) for n in range(1, 21)]
    assert summary.nearest_rank(values, 95) == 19.0
    assert summary.nearest_rank([], 95) == 0.0
    speed = summary.speed([10.0, 30.0], [5.0, 10.0], [4.0, 12.0])
    assert speed["ms_median"] == 20.0
    assert speed["pages_per_s"] == pytest.approx(50.0)  # 2 pages in 40 ms
    assert speed["x_parse"] == pytest.approx(2.5)  # median of 2.0 and 3.0
    assert speed["extract_x_parse"] == pytest.approx(1.0)
    assert "extract_x_parse" not in summary.speed([1.0], [1.0], None)


# --- a tiny dataset run for real, then summarised ---------------------------------------------

PAGES = {
    "a1": ("The storm hit the coast on Monday and hundreds of people left their homes.", "article"),
    "a2": ("Prices rose by three percent in March, the statistics office said.", "article"),
    "f1": ("I have the same problem with my printer since the last update.", "forum"),
}


LANGS = {"a1": {"lang": "en"}, "a2": {"lang": "fr"}}  # f1 gives none


def _dataset(folder: Path) -> Path:
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    meta = {}
    for page_id, (gold, page_type) in PAGES.items():
        html = (
            "<html><head><title>t</title></head><body><div id='nav'><a href='/'>Home</a>"
            f"<a href='/x'>World</a></div><div><p>{gold}</p></div></body></html>"
        )
        (folder / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(html.encode()))
        (folder / "gold" / f"{page_id}.txt").write_text(gold, encoding="utf-8")
        meta[page_id] = {"page_type": page_type, "encoding": "utf-8", **LANGS.get(page_id, {})}
    (folder / "MANIFEST.json").write_text(json.dumps({"name": folder.name, "pages": meta}))
    return folder


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """``cectd-ds`` and ``coreex`` run for real on a 3-page dataset, plus a missing peer."""
    dataset = load_dataset(_dataset(tmp_path_factory.mktemp("data") / "tiny"))
    runs = {name: accuracy.run_system(name, [dataset], None) for name in ("cectd-ds", "coreex")}
    missing = {"system": "goose3", "kind": "peer", "missing": "not installed"}
    return {**runs, "goose3": missing}


def test_child_results_carry_per_page_arrays_and_page_types(raw: dict[str, Any]) -> None:
    tiny = raw["cectd-ds"]["datasets"]["tiny"]
    assert tiny["page_ids"] == list(PAGES)
    assert set(tiny["page_f1"]) == set(METRICS)
    assert len(tiny["page_ms"]) == len(tiny["page_parse_ms"]) == len(tiny["page_extract_ms"]) == 3
    assert set(tiny["page_types"]) == {"article", "forum"}
    assert tiny["page_types"]["forum"]["pages"] == 1
    assert "ms_median" not in tiny  # evaluate's times include the decoding: recomputed later
    assert all(
        ms >= extract for ms, extract in zip(tiny["page_ms"], tiny["page_extract_ms"], strict=True)
    )
    assert raw["cectd-ds"]["kind"] == "ours"
    assert raw["cectd-ds"]["peak_rss_mb"] >= raw["cectd-ds"]["rss_ready_mb"] > 0


def test_summary_pools_ranks_and_keeps_missing_systems(raw: dict[str, Any]) -> None:
    result = summary.summarize(raw)
    assert result["datasets"] == ["tiny"] and result["pages"] == {"tiny": 3}
    assert set(result["systems"]) == {"cectd-ds", "coreex"}
    assert result["missing"]["goose3"]["missing"] == "not installed"
    ours = result["systems"]["cectd-ds"]
    assert "page_f1" not in ours["datasets"]["tiny"]
    overall = ours["overall"]
    # One dataset: the mean over datasets and its interval are the dataset's own.
    sh = ours["datasets"]["tiny"]["metrics"]["SH"]
    assert overall["metrics"]["SH"]["f1"] == pytest.approx(sh["f1"])
    assert overall["metrics"]["SH"]["f1_ci95"] == pytest.approx(sh["f1_ci95"])
    assert overall["extract_x_parse"] is not None
    for metric in METRICS:
        flags = [entry["overall"]["vs_best"][metric] for entry in result["systems"].values()]
        assert sum(flag["diff"] == 0.0 for flag in flags) >= 1
        assert all(flag["diff"] >= 0 for flag in flags)


def test_pages_not_in_english_are_pooled_apart(raw: dict[str, Any]) -> None:
    tiny = raw["cectd-ds"]["datasets"]["tiny"]
    assert tiny["page_langs"] == ["en", "fr", None]
    pooled = summary.summarize(raw)["systems"]["cectd-ds"]["not_english"]
    assert pooled["pages"] == 1 and pooled["languages"] == {"fr": 1}
    assert pooled["metrics"]["SH"]["f1"] == tiny["page_f1"]["SH"][1]
    assert "page_langs" not in summary.summarize(raw)["systems"]["cectd-ds"]["datasets"]["tiny"]


def test_summary_refuses_systems_run_on_different_pages(raw: dict[str, Any]) -> None:
    changed = json.loads(json.dumps(raw))
    changed["coreex"]["datasets"]["tiny"]["page_ids"].reverse()
    with pytest.raises(ValueError, match="same pages"):
        summary.summarize(changed)


# --- peers.md ---------------------------------------------------------------------------------

PEERS_MD = """# Peers

### BOW-F1 (mean over pages; best per dataset in bold)

| system | tiny | other | mean |
|---|---|---|---|
| cectd-ds | **0.500** | 0.700 | 0.600 |
| coreex | 0.100 | 0.200 | 0.150 |

### SH-F1 (mean over pages)

| system | tiny | other | mean |
|---|---|---|---|
| cectd-ds | 0.400 | 0.600 | 0.500 |

### Median ms per page and failures

| system | tiny | failures |
|---|---|---|
| cectd-ds | 1.0 (2) | 3 |

### WCXB by page type (BOW-F1) and snippet accuracy

| system | article | forum | snippet acc. |
|---|---|---|---|
| cectd-ds | 0.910 | 0.300 | 0.700 |
"""


def test_peers_md_tables_are_parsed() -> None:
    scores = reference.reference_scores(PEERS_MD)
    assert scores["BOW"]["cectd-ds"] == {"tiny": 0.5, "other": 0.7, "mean": 0.6}
    assert scores["SH"] == {"cectd-ds": {"tiny": 0.4, "other": 0.6, "mean": 0.5}}
    assert scores["BOW:wcxb"]["cectd-ds"] == {"article": 0.91, "forum": 0.3, "snippet acc.": 0.7}
    assert "LCS" not in scores
    assert reference.reference_failures(PEERS_MD) == {"cectd-ds": 3}


def test_the_shared_peers_md_parses() -> None:
    root = default_datasets_root()
    if root is None or not (root / "peers.md").is_file():
        pytest.skip("no peers.md in the datasets folder")
    scores = reference.reference_scores((root / "peers.md").read_text(encoding="utf-8"))
    assert set(scores) == {"LCS", "BOW", "SH", "BOW:wcxb"}
    assert set(PEERS) <= set(scores["BOW"])
    assert len(scores["BOW"]["trafilatura"]) == 8  # seven datasets and the mean


def _systems(tiny: float, article: float) -> dict[str, Any]:
    metrics = {m: {"f1": tiny} for m in METRICS}
    page_types = {"article": {"metrics": {"BOW": {"f1": article}}}}
    return {
        "cectd-ds": {
            "datasets": {"tiny": {"metrics": metrics}, "wcxb": {"page_types": page_types}},
            "overall": {"metrics": metrics},
        }
    }


def test_compare_flags_only_differences_beyond_the_tolerance() -> None:
    scores = reference.reference_scores(PEERS_MD)
    found = list(reference.compare(scores, _systems(0.5104, 0.915), ["tiny"]))
    by_cell = {(d.metric, d.column): d for d in found}
    # "mean" is skipped: this run does not cover "other".
    assert set(by_cell) == {("BOW", "tiny"), ("SH", "tiny"), ("BOW:wcxb", "article")}
    assert not by_cell["BOW", "tiny"].flagged  # 0.510 - 0.500: at the tolerance
    assert by_cell["SH", "tiny"].flagged  # 0.510 - 0.400
    assert not by_cell["BOW:wcxb", "article"].flagged
    assert by_cell["SH", "tiny"].to_dict()["diff"] == pytest.approx(0.1104)
    assert reference.Difference("s", "BOW", "x", 0.5, 0.5106).flagged


# --- report and docs block --------------------------------------------------------------------

PAGE = """# Project

## Usage

<!-- bench:start -->
not this one
<!-- bench:end -->

## Accuracy and speed

Intro kept.

<!-- bench:start -->
old table
<!-- bench:end -->

### Every algorithm

Kept too.

## Licence
"""


def test_replace_block_touches_only_the_accuracy_section() -> None:
    new = report.replace_block(PAGE, "| new | table |\n")
    assert "old table" not in new
    assert "not this one" in new
    assert "Intro kept.\n\n<!-- bench:start -->\n| new | table |\n<!-- bench:end -->\n" in new
    assert new.replace("| new | table |", "old table") == PAGE
    assert report.replace_block(new, "| new | table |") == new


@pytest.mark.parametrize(
    "text",
    [
        "# P\n\n## Accuracy and speed\n\nno markers\n",
        "# P\n\n## Other\n\n<!-- bench:start -->\n<!-- bench:end -->\n",
        "# P\n\n## Accuracy and speed\n\n<!-- bench:end -->\n<!-- bench:start -->\n",
        "# P\n\n## Accuracy and speed\n\n## Next\n\n<!-- bench:start -->\n<!-- bench:end -->\n",
    ],
)
def test_replace_block_refuses_a_page_without_its_markers(text: str) -> None:
    with pytest.raises(ValueError):
        report.replace_block(text, "x")


def _results(raw: dict[str, Any], page_limit: int | None = None) -> dict[str, Any]:
    summed = summary.summarize(raw)
    crawled = {
        "source": "shared",
        "pages": 300,
        "datasets": ["tiny"],
        "repeat": 3,
        "concurrency": 16,
        "variants": ["without", "with", "trafilatura"],
        "extractor": {"without": None, "with": "cectd-ds", "trafilatura": "trafilatura"},
        "missing": [],
        "best_pages_per_s": {"without": 150.0, "with": 60.0, "trafilatura": 30.0},
        "ratio_to_without": {"without": 1.0, "with": 0.4, "trafilatura": 0.2},
        "extract_ms_per_page": {"with": 9.5, "trafilatura": 25.0},
        "with_main_content": {"without": 0, "with": 300, "trafilatura": 298},
        "runs": {},
    }
    differences = reference.compare(
        reference.reference_scores(PEERS_MD), summed["systems"], summed["datasets"]
    )
    return {
        "date": "2026-11-23",
        "command": "python -m benchmarks",
        "machine": {"cores": 2, "cpu": "Test CPU", "python": "3.11.7", "platform": "Linux"},
        "page_limit": page_limit,
        **summed,
        "crawl": crawled,
        "reference": {
            "tolerance": reference.TOLERANCE,
            "differences": [d.to_dict() for d in differences],
            "failures": {"coreex": {"reference": 1, "measured": 0}},
        },
    }


def test_markdown_report_has_every_part(raw: dict[str, Any]) -> None:
    text = report.markdown(_results(raw))
    assert text.startswith("# Benchmark results\n\nMeasured 2026-11-23 on a 2-core machine")
    for heading in ("## All datasets", "## SH-F1 by dataset", "## tiny", "## Crawl throughput"):
        assert f"\n{heading}\n" in text
    assert "| `cectd-ds` |" in text and "- goose3: not installed" in text
    assert "| trafilatura in the callback | 30 | 0.20 | 25.0 | 298 / 300 |" in text
    assert "| with the add-on (`cectd-ds`) | 60 | 0.40 | 9.5 | 300 / 300 |" in text
    assert "Pages per dataset: tiny 3 (3 in all)" in text
    assert "No system failed on any page." in text
    assert "| coreex | 1 | 0 |" in text
    assert "Quick run" not in text
    assert "Quick run" in report.markdown(_results(raw, page_limit=20))
    assert "\n## Pages not in English\n" in text and "is not English (fr 1)" in text
    english_only = _results(raw)
    for entry in english_only["systems"].values():
        entry["not_english"] = {}
    assert "not in English" not in report.markdown(english_only)


def test_tables_are_well_formed_and_bold_the_best(raw: dict[str, Any]) -> None:
    results = _results(raw)
    table = report.accuracy_table(results, "SH")
    lines = table.splitlines()
    assert lines[0] == "| system | tiny | mean |"
    assert lines[1] == "| :-- | --: | --: |"
    assert all(line.count("|") == 4 for line in lines)
    best = results["systems"]["cectd-ds"]["overall"]["vs_best"]["SH"]["best"]
    row = next(line for line in lines if f"{best}" in line)
    assert row.count("**") == 4  # the best system's dataset and mean cells


def test_page_block_links_the_results_and_plots(raw: dict[str, Any]) -> None:
    block = report.page_block(_results(raw), "../benchmarks/results", "images")
    assert "with `python -m benchmarks`" in block
    assert "2-core machine" in block and "2026-11-23" in block
    assert "![SH-F1 against median ms per page](images/scatter.png)" in block
    assert "(images/datasets.png)" in block
    assert "[Benchmark results](benchmark-results.md)" in block
    assert "{download}`results.json <../benchmarks/results/results.json>`" in block
    assert "| system | tiny | mean SH-F1 | mean BOW-F1 |" in block
    assert "pages/s" in block and "Against `../shared/datasets/peers.md`" in block
    assert "| system | BOW-F1 [95%] | SH-F1 [95%] |" in block


def test_reference_summary_counts_flags() -> None:
    rows: list[dict[str, object]] = [
        {
            "system": system,
            "metric": metric,
            "column": column,
            "reference": 0.5,
            "measured": measured,
            "diff": measured - 0.5,
            "flagged": flagged,
        }
        for system, metric, column, measured, flagged in (
            ("a", "BOW", "x", 0.5, False),
            ("b", "SH", "y", 0.53, True),
        )
    ]
    text = report.reference_summary({"tolerance": 0.01, "differences": rows, "failures": {}})
    assert "1 of 2 peer F1 values agree within 0.01" in text
    assert "largest difference +0.030: b, SH, y" in text
    assert "**1 differ by more than 0.01**" in text
    empty = {"tolerance": 0.01, "differences": [], "failures": {}}
    assert "nothing was compared" in report.reference_summary(empty)


def test_plots_are_written(raw: dict[str, Any], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from benchmarks import plots

    results = _results(raw)
    scatter = plots.scatter(results, tmp_path / "s.png")
    bars = plots.datasets(results, tmp_path / "d.png")
    assert scatter.read_bytes().startswith(b"\x89PNG")
    assert bars.read_bytes().startswith(b"\x89PNG")


def test_labels_are_moved_apart() -> None:
    pytest.importorskip("matplotlib")
    from benchmarks.plots import label_offsets

    points = [(0.0, 0.0), (1.0, 1.0), (300.0, 0.0), (0.5, 0.5), (1.5, 0.2)]
    labels = ["alpha", "beta", "gamma", "delta", "epsilon"]
    offsets = label_offsets(points, labels)
    assert offsets[1] == offsets[2] == (6.0, 3.0)  # the highest, or alone: in the first spot
    assert len(set(offsets[:2] + offsets[3:])) == 4  # the crowded ones all moved
    boxes = [
        (x + dx, y + dy, x + dx + 4.8 * len(label), y + dy + 10.0)
        for (x, y), (dx, dy), label in zip(points, offsets, labels, strict=True)
    ]
    assert not any(
        a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
    )


def test_render_rewrites_the_outputs_from_results_json(raw: dict[str, Any], tmp_path: Path) -> None:
    results = {**_results(raw), "full_run": False}
    (tmp_path / "results.json").write_text(json.dumps(results), encoding="utf-8")
    page = bench.PAGE.read_text(encoding="utf-8")
    assert bench.main(["--render", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "results.md").read_text(encoding="utf-8") == report.markdown(results)
    assert bench.PAGE.read_text(encoding="utf-8") == page  # not a full run


def test_a_full_run_regenerates_the_docs_page(
    raw: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "docs" / "benchmarks.md"
    page.parent.mkdir()
    page.write_text(PAGE, encoding="utf-8")
    monkeypatch.setattr(bench, "PAGE", page)
    monkeypatch.setattr(bench, "IMAGES", page.parent / "images")
    out = tmp_path / "results"
    results = {**_results(raw), "full_run": True}
    assert page not in bench.publish(results, tmp_path / "results-without-docs", docs=False)
    assert page.read_text(encoding="utf-8") == PAGE
    assert page in bench.publish(results, out, docs=True)
    text = page.read_text(encoding="utf-8")
    assert "old table" not in text and "not this one" in text and "Intro kept." in text
    assert "{download}`results.json <../results/results.json>`" in text
    assert "![SH-F1 against median ms per page](images/scatter.png)" in text
    assert (out / "results.md").is_file()
    if importlib.util.find_spec("matplotlib") is not None:
        assert (page.parent / "images" / "scatter.png").is_file()
        assert (page.parent / "images" / "datasets.png").is_file()
        assert not (out / "scatter.png").exists()


# --- systems, datasets and the crawl site -----------------------------------------------------


def test_systems_come_from_the_registry_at_run_time(monkeypatch: pytest.MonkeyPatch) -> None:
    extended = {**scrapy_cetd.ALGORITHMS, "cetd-plus": scrapy_cetd.ALGORITHMS["cectd-ds"]}
    monkeypatch.setattr(scrapy_cetd, "ALGORITHMS", extended)
    systems = bench.choose_systems(None)
    assert systems[: len(extended)] == list(extended)
    assert systems[len(extended) :] == list(PEERS)
    assert accuracy.is_ours("cetd-plus")
    assert bench.choose_systems("cetd-plus,peers,trafilatura") == ["cetd-plus", *PEERS]
    assert bench.choose_systems("ours") == list(extended)
    with pytest.raises(ValueError, match="unknown system 'nope'"):
        bench.choose_systems("nope")


def test_select_ids_spreads_a_fixed_subset() -> None:
    ids = [f"p{n}" for n in range(10)]
    assert accuracy.select_ids(ids, 5) == ["p0", "p2", "p4", "p6", "p8"]
    assert accuracy.select_ids(ids, None) == ids
    assert accuracy.select_ids(ids, 50) == ids
    assert accuracy.select_ids(ids, 0) == []


def test_benchmark_datasets_leave_out_record_pages(tmp_path: Path) -> None:
    for name in ("record_pages_wri", "tiny"):
        _dataset(tmp_path / name)
    assert [d.name for d in accuracy.benchmark_datasets(tmp_path)] == ["tiny"]
    named = accuracy.benchmark_datasets(tmp_path, ["record_pages_wri"])
    assert [d.name for d in named] == ["record_pages_wri"]
    with pytest.raises(ValueError, match="no dataset nope"):
        accuracy.benchmark_datasets(tmp_path, ["nope"])


def test_output_hashes_fingerprint_every_page_and_algorithm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _dataset(tmp_path / "tiny")
    assert output_hashes.main(["--datasets-root", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split(" ") for line in lines[:-1]]
    expected = [(page, name) for page in PAGES for name in scrapy_cetd.ALGORITHMS]
    assert [(row[1], row[2]) for row in rows] == expected
    assert lines[-1] == f"# {len(PAGES)} pages, {len(expected)} results, 0 exceptions"
    by_page = {(row[1], row[2]): row[3] for row in rows}
    assert by_page["a1", "cetd-plus"] != by_page["a2", "cetd-plus"]


def test_result_hash_covers_text_html_title_and_reason() -> None:
    base = scrapy_cetd.ExtractionResult(text="t", html="<p>t</p>", algorithm="a")
    variants = [
        base,
        dataclasses.replace(base, text="u"),
        dataclasses.replace(base, html="<p>u</p>"),
        dataclasses.replace(base, title="T"),
        dataclasses.replace(base, reason="r"),
    ]
    assert len({output_hashes.result_hash(result) for result in variants}) == len(variants)


def test_crawl_site_is_what_the_example_spider_reads(tmp_path: Path) -> None:
    _dataset(tmp_path / "tiny")
    pages = crawl.shared_pages(tmp_path, 2)
    assert [page.name for page in pages] == ["tiny-a1.html", "tiny-a2.html"]
    assert pages[0].charset == "utf-8" and pages[0].source == "tiny"
    index = parsel.Selector(crawl.index_html(pages).decode())
    stories = index.css("li.story")
    assert [s.css("a.story-link::attr(href)").get() for s in stories] == [
        "articles/tiny-a1.html",
        "articles/tiny-a2.html",
    ]
    assert stories[0].css(".source::text").get() == "tiny"
    example = crawl.example_pages(20)
    assert len(example) == 20 and len({page.name for page in example}) == 20


# --- peers ------------------------------------------------------------------------------------


def test_fragment_text_puts_blocks_on_their_own_lines() -> None:
    html = "<div><h1>Title</h1><p>One <b>bold</b> word.</p><ul><li>a</li><li>b</li></ul></div>"
    assert fragment_text(html) == "Title\nOne bold word.\na\nb"
    assert fragment_text("  ") == ""


@pytest.mark.parametrize("name", list(PEERS))
def test_each_installed_peer_returns_text(name: str) -> None:
    peer = PEERS[name]
    pytest.importorskip(peer.module)
    paragraph = "<p>" + "The council approved the new budget for schools and roads. " * 8 + "</p>"
    html = f"<html><body><nav><a href='/'>Home</a></nav><article>{paragraph * 3}</article>"
    text = peer.make()(html)
    assert isinstance(text, str)
    assert peer.version()


def test_the_corpus_benchmark_times_the_datatrove_steps_after_either_reader(
    tmp_path: Path,
) -> None:
    """``benchmarks.corpus`` reads the documents with ``CetdWarcReader`` (a document per page
    of the bundled WARC) or datatrove's ``WarcReader`` (which drops one, that libmagic calls an
    INI file), times the reading apart, and runs the step on them."""
    pytest.importorskip("datatrove")
    from benchmarks import corpus as corpus_benchmark

    folder = tmp_path / "warcs"
    folder.mkdir()
    bundled = Path(__file__).parent / "data" / "example-site.warc.gz"
    (folder / bundled.name).write_bytes(bundled.read_bytes())
    # In a process of its own, as the benchmark runs it: datatrove forks its sandbox from the
    # step's process, and a fork of this one (threads of earlier tests) can hang the child.
    ours = corpus_benchmark.run_datatrove(folder, "cetd", "cetd")
    theirs = corpus_benchmark.run_datatrove(folder, "cetd", "datatrove")
    assert (ours["reader"], ours["documents"], ours["kept"]) == ("cetd", 15, 15)
    assert (theirs["reader"], theirs["documents"], theirs["kept"]) == ("datatrove", 14, 14)
    assert ours["read_documents_per_cpu_second"] > 0 and ours["documents_per_cpu_second"] > 0
    assert corpus_benchmark.checked_readers("datatrove, cetd") == ("datatrove", "cetd")
    with pytest.raises(argparse.ArgumentTypeError, match="not a list of readers"):
        corpus_benchmark.checked_readers("warcio")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")
def test_a_parse_measures_alike_after_the_parent_freed_memory() -> None:
    # the hostile benchmark forks a child for each measure: memory its parent freed (the trees
    # of the rows before) must not be reused unseen, making the parse look smaller
    hostile = importlib.import_module("benchmarks.hostile")
    html = "<ul>" + "<li><a href='/p'>storm</a> rain and wind</li>" * 20_000 + "</ul>"

    def parse_kib() -> int:
        answer = hostile.in_child(functools.partial(hostile._parse_answer, html, "extract"), 60)
        return int(answer["kib"])

    alone = parse_kib()
    trees = [parsel.Selector(text=html).root for _ in range(3)]
    del trees
    assert parse_kib() > 0.8 * alone

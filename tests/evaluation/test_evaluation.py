"""Tests of scrapy_cetd.evaluation.scoring with fake systems, and agreement with score.py."""

from __future__ import annotations

import gzip
import importlib.util
import json
import random
import shutil
import statistics
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from scrapy_cetd.evaluation import scoring
from scrapy_cetd.evaluation.datasets import Dataset, Page, default_datasets_root, load_dataset
from scrapy_cetd.evaluation.metrics import METRICS, PRF, score_text
from scrapy_cetd.evaluation.scoring import (
    MetricScore,
    Predict,
    by_page_type,
    evaluate,
    format_table,
    mean_over_datasets,
)

GOLD = {
    "art-1": ("The quick brown fox jumps over the lazy dog.", "article"),
    "art-2": ("Prices rose by 3% in March, the office said on Tuesday.", "article"),
    "forum-1": ("I have the same problem with my printer since the update.", "forum"),
    "forum-2": ("", "forum"),
}
"""ID -> (gold text, page type); forum-2 has an empty gold text."""


def write_dataset(folder: Path, pages: Mapping[str, tuple[str, str]] = GOLD) -> Dataset:
    """A dataset folder of trivial pages with the given gold texts and page types."""
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    meta: dict[str, dict[str, Any]] = {}
    for page_id, (gold, page_type) in pages.items():
        html = f"<html><body><nav>Home</nav><p>{gold}</p></body></html>".encode()
        (folder / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(html))
        (folder / "gold" / f"{page_id}.txt").write_text(gold, encoding="utf-8")
        meta[page_id] = {"lang": "en", "page_type": page_type, "encoding": "utf-8"}
    manifest = {"name": folder.name, "pages": meta}
    (folder / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")
    return load_dataset(folder)


@pytest.fixture
def tiny(tmp_path: Path) -> Dataset:
    return write_dataset(tmp_path / "tiny")


def oracle(page: Page) -> str:
    return page.gold


def broken(page: Page) -> str:
    raise RuntimeError(f"cannot parse {page.id}")


def silent(page: Page) -> str:
    return ""


def test_oracle_scores_one_everywhere(tiny: Dataset) -> None:
    score = evaluate(tiny, oracle, system="oracle")
    assert (score.dataset, score.system, score.pages, score.failures) == ("tiny", "oracle", 4, 0)
    assert set(score.metrics) == set(METRICS)
    for metric in score.metrics.values():
        assert metric == MetricScore(1.0, 1.0, 1.0, (1.0, 1.0))
    assert [page.id for page in score.per_page] == list(GOLD)
    assert all(not page.failed and page.error is None for page in score.per_page)
    assert score.snippet_accuracy is None


def test_exceptions_are_failures_with_empty_output(tiny: Dataset) -> None:
    score = evaluate(tiny, broken, system="broken")
    assert score.failures == 4
    first = score.per_page[0]
    assert first.failed
    assert first.error == "RuntimeError: cannot parse art-1"
    assert first.scores["LCS"] == PRF(0.0, 0.0, 0.0)
    # an empty output on the page whose gold is empty is right: three pages score 0, one 1
    assert score.per_page[3].scores["BOW"] == PRF(1.0, 1.0, 1.0)
    assert score.metrics["BOW"].f1 == 0.25


def test_empty_output_is_not_a_failure(tiny: Dataset) -> None:
    score = evaluate(tiny, silent, system="silent")
    assert score.failures == 0
    assert score.metrics["LCS"].f1 == 0.25


def test_non_string_output_is_a_failure(tiny: Dataset) -> None:
    def returns_none(page: Page) -> str:
        return None  # type: ignore[return-value]

    score = evaluate(tiny, returns_none, system="none")
    assert score.failures == 4
    assert score.per_page[0].error == "TypeError: prediction is NoneType, not str"


def test_interrupts_propagate(tiny: Dataset) -> None:
    def interrupted(page: Page) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate(tiny, interrupted, system="interrupted")


def mixed(page: Page) -> str:
    """Right on one page, half right on one, failing on one, empty on one."""
    if page.id == "art-1":
        return page.gold
    if page.id == "art-2":
        return "Menu Login Prices rose by 3% in March. Cookie settings"
    if page.id == "forum-1":
        raise ValueError("boom")
    return ""


def test_scores_are_macro_averages(tiny: Dataset) -> None:
    score = evaluate(tiny, mixed, system="mixed")
    assert score.failures == 1
    assert [page.failed for page in score.per_page] == [False, False, True, False]
    outputs = {
        "art-1": GOLD["art-1"][0],
        "art-2": mixed(tiny.page("art-2")),
        "forum-1": "",
        "forum-2": "",
    }
    expected = [score_text(outputs[page_id], gold) for page_id, (gold, _) in GOLD.items()]
    for name in METRICS:
        metric = score.metrics[name]
        assert metric.precision == sum(page[name].precision for page in expected) / 4
        assert metric.recall == sum(page[name].recall for page in expected) / 4
        assert metric.f1 == sum(page[name].f1 for page in expected) / 4
        assert metric.f1_ci95[0] <= metric.f1 <= metric.f1_ci95[1]
        assert [page.scores[name] for page in score.per_page] == [page[name] for page in expected]
    assert 0.0 < score.metrics["LCS"].f1 < 1.0


def test_by_page_type_means_f1_per_type(tiny: Dataset) -> None:
    score = evaluate(tiny, mixed, system="mixed")
    art_2 = score_text(mixed(tiny.page("art-2")), GOLD["art-2"][0])
    table = by_page_type(score)
    assert list(table) == ["article", "forum"]
    assert table["article"] == {name: (1.0 + art_2[name].f1) / 2 for name in METRICS}
    assert table["forum"] == {name: 0.5 for name in METRICS}


def test_ids_select_pages(tiny: Dataset) -> None:
    score = evaluate(tiny, broken, system="broken", ids=["forum-2", "art-1"])
    assert [page.id for page in score.per_page] == ["forum-2", "art-1"]
    assert (score.pages, score.failures) == (2, 2)
    with pytest.raises(ValueError, match="'missing'"):
        evaluate(tiny, oracle, system="oracle", ids=["missing"])


def test_no_pages_gives_zeros(tiny: Dataset) -> None:
    score = evaluate(tiny, oracle, system="oracle", ids=[])
    assert score.pages == 0
    assert score.metrics["BOW"] == MetricScore(0.0, 0.0, 0.0, (0.0, 0.0))
    assert (score.ms_median, score.ms_p95) == (0.0, 0.0)


def fake_clock(durations_ms: Sequence[float]) -> Iterator[float]:
    """perf_counter readings (seconds): a start and an end for each prediction in turn."""
    now = 100.0
    for duration in durations_ms:
        yield now
        now += duration / 1000
        yield now
        now += 1.0


def test_time_median_and_nearest_rank_p95(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = {f"p{i:02d}": (f"page {i}", "article") for i in range(20)}
    dataset = write_dataset(tmp_path / "twenty", pages)
    durations = [float(ms) for ms in range(20, 0, -1)]  # 20 ms, 19 ms, ... 1 ms
    clock = fake_clock(durations)
    monkeypatch.setattr(scoring, "perf_counter", lambda: next(clock))
    score = evaluate(dataset, oracle, system="oracle")
    assert [page.ms for page in score.per_page] == pytest.approx(durations)
    assert score.ms_median == pytest.approx(10.5)
    assert score.ms_p95 == pytest.approx(19.0)  # rank ceil(0.95 * 20) = 19, no interpolation


def test_failed_calls_are_timed_too(tiny: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = fake_clock([5.0, 6.0, 7.0, 8.0])
    monkeypatch.setattr(scoring, "perf_counter", lambda: next(clock))
    score = evaluate(tiny, broken, system="broken")
    assert [page.ms for page in score.per_page] == pytest.approx([5.0, 6.0, 7.0, 8.0])


def test_snippet_accuracy_over_pages_with_snippets(tmp_path: Path) -> None:
    folder = tmp_path / "snippets"
    write_dataset(folder)
    manifest = json.loads((folder / "MANIFEST.json").read_text(encoding="utf-8"))
    manifest["pages"]["art-1"].update({"with": ["quick brown  FOX"], "without": ["Home"]})
    manifest["pages"]["art-2"].update({"with": ["prices rose", "on Tuesday"], "without": []})
    (folder / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")
    score = evaluate(load_dataset(folder), mixed, system="mixed")
    assert [page.snippet_accuracy for page in score.per_page] == [1.0, 0.5, None, None]
    assert score.snippet_accuracy == 0.75


def test_to_dict_is_json_ready(tiny: Dataset) -> None:
    score = evaluate(tiny, mixed, system="mixed")
    data = json.loads(json.dumps(score.to_dict()))
    assert data["system"] == "mixed"
    assert data["failures"] == 1
    assert data["metrics"]["SH"]["f1"] == score.metrics["SH"].f1
    assert data["metrics"]["SH"]["f1_ci95"] == list(score.metrics["SH"].f1_ci95)
    assert len(data["per_page"]) == 4
    assert data["per_page"][2]["error"] == "ValueError: boom"
    assert data["per_page"][0]["scores"]["BOW"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_format_table(tiny: Dataset) -> None:
    scores = [
        evaluate(tiny, oracle, system="oracle"),
        evaluate(tiny, broken, system="a|b"),
    ]
    lines = format_table(scores).splitlines()
    assert lines[0] == (
        "| dataset | system | pages | failures | LCS-F1 | BOW-F1 | SH-F1 | BOW-P | BOW-R "
        "| ms median | ms p95 |"
    )
    assert lines[1].count("|") == 12
    assert len(lines) == 4
    cells = [cell.strip() for cell in lines[2].strip("|").split(" | ")]
    assert cells[:9] == ["tiny", "oracle", "4", "0", "1.000", "1.000", "1.000", "1.000", "1.000"]
    assert lines[3].startswith("| tiny | a\\|b | 4 | 4 | 0.250 | 0.250 | 0.250 | 0.250 | 0.250 |")


def test_format_table_metric_order(tiny: Dataset) -> None:
    header = format_table([evaluate(tiny, oracle, system="o")], metric_order=("SH", "LCS"))
    assert header.startswith("| dataset | system | pages | failures | SH-F1 | LCS-F1 | BOW-P |")


def test_means_over_datasets_weigh_each_dataset_the_same(tmp_path: Path) -> None:
    """The mean of the datasets' means, as the README's means over datasets: a dataset of one
    page weighs as much as one of four; a system scored on one dataset has no mean."""
    big = write_dataset(tmp_path / "big")
    small = write_dataset(tmp_path / "small", {"art-9": ("One page, which is missed.", "article")})
    scores = [
        evaluate(big, oracle, system="mixed"),
        evaluate(small, silent, system="mixed"),
        evaluate(big, oracle, system="once"),
    ]
    (mean,) = mean_over_datasets(scores)
    assert (mean.system, mean.datasets, mean.pages, mean.failures) == (
        "mixed",
        ("big", "small"),
        5,
        0,
    )
    for name in METRICS:
        for key in ("precision", "recall", "f1"):
            values = [getattr(score.metrics[name], key) for score in scores[:2]]
            assert getattr(mean.metrics[name], key) == (values[0] + values[1]) / 2
    assert mean.metrics["BOW"].f1 == 0.5  # 1.0 and 0.0; pooled over the pages it would be 0.8
    times = [page.ms for score in scores[:2] for page in score.per_page]
    assert mean.ms_median == statistics.median(times)
    lines = format_table(scores, means=True).splitlines()
    assert len(lines) == 2 + len(scores) + 1
    assert lines[-1].startswith(
        "| mean of 2 datasets | mixed | 5 | 0 | 0.500 | 0.500 | 0.500 | 0.500 | 0.500 |"
    )
    assert format_table(scores) == "\n".join(lines[:-1]) + "\n"
    assert mean_over_datasets(scores[:1]) == []


# --- agreement with the reference scorer score.py -------------------------------------------


@pytest.fixture(scope="module")
def reference() -> ModuleType:
    """``../shared/datasets/score.py`` imported by path (skips when it is absent)."""
    root = default_datasets_root()
    if root is None or not (root / "score.py").is_file():
        pytest.skip(f"no score.py in the datasets folder ({root}; $CETD_DATASETS or ../shared)")
    spec = importlib.util.spec_from_file_location("cetd_reference_score", root / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def subset(source: Path, target: Path, count: int, seed: int) -> Dataset:
    """A copy of ``count`` random pages of a shared dataset (score.py scores whole folders)."""
    manifest = json.loads((source / "MANIFEST.json").read_text(encoding="utf-8"))
    ids = random.Random(seed).sample(sorted(manifest["pages"]), count)
    manifest["pages"] = {page_id: manifest["pages"][page_id] for page_id in ids}
    for folder, suffix in (("html", ".html.gz"), ("gold", ".txt")):
        (target / folder).mkdir(parents=True)
        for page_id in ids:
            shutil.copyfile(
                source / folder / f"{page_id}{suffix}", target / folder / f"{page_id}{suffix}"
            )
    (target / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")
    return load_dataset(target)


def imperfect(page: Page) -> str:
    """A deterministic imperfect extraction: lines dropped and reordered, boilerplate added."""
    rng = random.Random(page.id)
    lines = [line for line in page.gold.splitlines() if rng.random() > 0.2]
    head = lines[: len(lines) // 3]
    rng.shuffle(head)
    lines[: len(head)] = head
    lines.insert(rng.randrange(len(lines) + 1), "Home | About | Contact | Privacy Policy")
    return "\n".join(lines)


def failing_on(failing: frozenset[str]) -> Predict:
    """``imperfect``, except that it raises on the pages of ``failing``."""

    def predict(page: Page) -> str:
        if page.id in failing:
            raise RuntimeError("simulated failure")
        return imperfect(page)

    return predict


@pytest.mark.datasets
@pytest.mark.parametrize("name", ["wcxb", "cleaneval"])
def test_evaluate_agrees_with_reference(reference: ModuleType, tmp_path: Path, name: str) -> None:
    root = default_datasets_root()
    assert root is not None
    if not (root / name).is_dir():
        pytest.skip(f"dataset {name} not found under {root}")
    dataset = subset(root / name, tmp_path / name, 20, seed=4)
    failing = frozenset(dataset.page_ids[:3])
    ours = evaluate(dataset, failing_on(failing), system="imperfect")
    predictions = {
        page.id: None if page.id in failing else imperfect(page) for page in dataset.pages()
    }
    expected = reference.score_dataset(dataset.path, predictions)
    assert ours.failures == expected["failures"] == 3
    assert ours.pages == expected["pages"] == 20
    for metric in METRICS:
        assert ours.metrics[metric] == MetricScore(
            expected[metric]["precision"],
            expected[metric]["recall"],
            expected[metric]["f1"],
            expected[metric]["f1_ci95"],
        )
    assert ours.snippet_accuracy == expected.get("snippet_accuracy")

"""``scrapy-cetd evaluate``: the table and the JSON of the text scores, ``--metadata``, the
datasets checked before any page is read."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import STORM_PAGE
from lxml import etree

from scrapy_cetd import CetdPlusExtractor
from scrapy_cetd.cli import main


def make_dataset(root: Path) -> Path:
    folder = root / "tiny"
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    pages = {"p1": {"url": None, "encoding": "utf-8", "page_type": "article"}}
    (folder / "MANIFEST.json").write_text(json.dumps({"name": "tiny", "pages": pages}))
    (folder / "html" / "p1.html.gz").write_bytes(gzip.compress(STORM_PAGE.encode()))
    gold = "Storm hits the coast\nHeavy rain and strong winds battered the coastal towns"
    (folder / "gold" / "p1.txt").write_text(gold)
    return folder


def test_evaluate_prints_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_dataset(tmp_path)
    assert main(["evaluate", str(folder), "-a", "cetd-ds,cectd-ds"]) == 0
    out = capsys.readouterr().out
    assert "| tiny | cetd-ds | 1 | 0 |" in out
    assert "| tiny | cectd-ds | 1 | 0 |" in out


def test_evaluate_prints_each_algorithm_s_mean_over_the_datasets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With more than one dataset, a row per algorithm: the mean of the datasets' rows, each
    dataset weighing the same; the JSON records stay one per dataset and algorithm."""
    make_dataset(tmp_path / "a")
    other = make_dataset(tmp_path / "b")
    manifest = json.loads((other / "MANIFEST.json").read_text())
    (other / "MANIFEST.json").write_text(json.dumps({**manifest, "name": "other"}))
    (other / "gold" / "p1.txt").write_text("Storm hits the coast")
    argv = ["evaluate", str(tmp_path / "a" / "tiny"), str(other), "-a", "cetd-ds,cectd-ds"]
    assert main([*argv, "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["dataset"], r["system"]) for r in records] == [
        ("tiny", "cetd-ds"),
        ("tiny", "cectd-ds"),
        ("other", "cetd-ds"),
        ("other", "cectd-ds"),
    ]
    assert main(argv) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "mean of" in line]
    assert len(rows) == 2
    for row, system in zip(rows, ["cetd-ds", "cectd-ds"], strict=True):
        own = [r for r in records if r["system"] == system]
        f1s = [sum(r["metrics"][name]["f1"] for r in own) / 2 for name in ("LCS", "BOW", "SH")]
        bow = [sum(r["metrics"]["BOW"][key] for r in own) / 2 for key in ("precision", "recall")]
        numbers = " | ".join(f"{value:.3f}" for value in [*f1s, *bow])
        assert row.startswith(f"| mean of 2 datasets | {system} | 2 | 0 | {numbers} |")
    assert records[0]["metrics"]["BOW"] != records[2]["metrics"]["BOW"]  # a mean of two values
    assert main(["evaluate", str(other), "-a", "cetd-ds,cectd-ds"]) == 0
    assert "mean of" not in capsys.readouterr().out  # one dataset: nothing to average


def test_evaluate_refuses_a_dataset_without_pages_or_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing page file or an empty MANIFEST is one line on stderr before any page is
    read, not a traceback midway or a table of zeros."""
    folder = make_dataset(tmp_path)
    (folder / "gold" / "p1.txt").unlink()
    assert main(["evaluate", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"no file {folder / 'gold' / 'p1.txt'}" in err
    assert main(["evaluate", str(folder), "--metadata"]) == 1  # it has no metadata gold
    assert "no dataset with metadata gold" in capsys.readouterr().err
    (folder / "MANIFEST.json").write_text(json.dumps({"pages": {}}))
    assert main(["evaluate", str(folder)]) == 1
    assert "lists no page" in capsys.readouterr().err


def test_evaluate_checks_only_the_pages_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_dataset(tmp_path)
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    manifest["pages"]["p2"] = {}  # listed, without its files
    (folder / "MANIFEST.json").write_text(json.dumps(manifest))
    assert main(["evaluate", str(folder), "--limit", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["pages"] == 1
    assert main(["evaluate", str(folder)]) == 1
    assert "p2.html.gz and 1 more" in capsys.readouterr().err


def test_evaluate_json_and_folder_of_datasets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_dataset(tmp_path)
    assert main(["evaluate", str(tmp_path), "--json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["dataset"] == "tiny"
    assert record["pages"] == 1
    assert 0 < record["metrics"]["BOW"]["precision"] < 1
    assert record["metrics"]["BOW"]["recall"] == 1


def test_evaluate_extracts_with_the_page_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As a crawl does: the page-type classifier reads the URL's path."""
    folder = make_dataset(tmp_path)
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    manifest["pages"]["p1"]["url"] = "https://news.example.com/2024/storm-hits-the-coast"
    (folder / "MANIFEST.json").write_text(json.dumps(manifest))
    seen: list[str | None] = []
    extract = CetdPlusExtractor.extract

    def spy(self: CetdPlusExtractor, tree: etree._Element, *, url: str | None = None) -> Any:
        seen.append(url)
        return extract(self, tree, url=url)

    monkeypatch.setattr(CetdPlusExtractor, "extract", spy)
    assert main(["evaluate", str(folder)]) == 0
    assert "| tiny | cetd-plus | 1 | 0 |" in capsys.readouterr().out
    assert seen == ["https://news.example.com/2024/storm-hits-the-coast"]


def test_evaluate_metadata_scores_the_datasets_with_metadata_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_dataset(tmp_path)  # text gold only: left out
    folder = tmp_path / "news"
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    page = (
        "<html lang='en'><head><title>Storm hits the coast | The Tribune</title>"
        "<meta property='og:site_name' content='The Tribune'>"
        "<meta property='article:published_time' content='2024-02-03T10:00:00Z'></head>"
        "<body><h1>Storm hits the coast</h1><p class='byline'>By Ann Lee</p>"
        "<p>Heavy rain and strong winds battered the coastal towns overnight.</p></body></html>"
    )
    gold = {"title": "Storm hits the coast", "author": "Ann Lee", "publish_date": "2024-02-03"}
    other = {"title": "Calm day", "author": None, "publish_date": None}
    pages = {"p1": gold, "p2": other}
    (folder / "MANIFEST.json").write_text(json.dumps({"name": "news", "pages": pages}))
    for page_id in pages:
        (folder / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(page.encode()))
        (folder / "gold" / f"{page_id}.txt").write_text("x")
    assert main(["evaluate", "--metadata", str(tmp_path), "--json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert (record["dataset"], record["pages"]) == ("news", 2)
    assert (record["date_accuracy"], record["date_false_positives"]) == (1.0, 1.0)
    assert (record["author_match"], record["author_exact"], record["author_pages"]) == (1.0, 1.0, 1)
    assert record["title_exact"] == 0.5
    assert main(["evaluate", "--metadata", str(tmp_path / "tiny")]) == 1
    assert "no dataset with metadata gold" in capsys.readouterr().err
    shutil.copytree(folder, tmp_path / "copy" / "news")
    assert main(["evaluate", "--metadata", str(folder), str(tmp_path / "copy" / "news")]) == 0
    out = capsys.readouterr().out
    assert "| mean of 2 datasets | cetd-plus | 4 | 1.000 / 2 | 1.000 / 2 | 0.500 |" in out
    assert main(["evaluate", "--metadata", str(folder), str(tmp_path / "copy"), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) == 2
    assert set(records[0]) == set(record)  # no mean, no pages' times

"""The by-type benchmark's report: tables from per-page scores, and the docs section it writes."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import page_type_accuracy as bench
from benchmarks.page_type_accuracy import ABLATIONS, Outcome, report, site_half
from benchmarks.peers import PEERS
from scrapy_cetd.page.page_types import PageType


def _outcome(page_type: str, half: str, today: float, gold: float) -> Outcome:
    scores = {"today": today, "gold": gold, "classifier": gold, "trafilatura": 0.5}
    scores.update({f"gold -{name}": today for name in ABLATIONS})
    scores.update({f"classifier -{name}": gold for name in ABLATIONS})
    return Outcome(
        id=f"x/{page_type}-{half}",
        page_type=page_type,
        domain=f"{page_type}.example",
        half=half,
        predicted=page_type,
        confidence=0.9,
        scores={name: {"BOW": value, "SH": value, "WCXB": value} for name, value in scores.items()},
    )


def test_site_halves_are_stable_and_both_used() -> None:
    halves = {site_half(f"site{n}.example") for n in range(20)}
    assert halves == {"A", "B"}
    assert site_half("example.org") == site_half("example.org")


def test_report_gives_per_type_means_and_the_ablation() -> None:
    outcomes = [_outcome("listing", "A", 0.5, 0.8), _outcome("listing", "B", 0.7, 0.8)]
    text = report(outcomes, {"cetd-plus, type forced": 5.0, "trafilatura": 20.0})
    listing = next(line for line in text.splitlines() if line.startswith("| listing | 2 |"))
    assert "| 0.600 | 0.600 | 0.800 | 0.800 | 0.800 | 0.800 | 0.500 | 0.500 | 1.00 |" in listing
    record = next(line for line in text.splitlines() if line.startswith("| `record_share`"))
    assert "| -0.2000 | listing | 2 | -0.2000 | -0.3000 | -0.1000 |" in record
    assert "| cetd-plus, type forced | 5.0 | 0.25 |" in text
    assert "| cetd-plus, gold type | 0.800 | this run |" in text
    assert "| rs-trafilatura | 0.859 | published (dev split, 1,497 pages) |" in text


def test_wcxb_metric_counts_words_as_wcxb_does() -> None:
    # \w+ on lower-cased text: "_" is part of a word, punctuation is not, CJK runs stay whole.
    assert bench.wcxb_f1("Snake_case, words!", "snake_case words") == 1.0
    assert bench.wcxb_f1("a b", "a c") == pytest.approx(0.5)
    assert bench.wcxb_f1("a a b", "a") == pytest.approx(2 * (1 / 3) / (1 + 1 / 3))
    assert bench.wcxb_f1("東京都", "東京") == 0.0
    assert bench.wcxb_f1("", "") == 1.0
    assert bench.wcxb_f1("...", "a") == 0.0


def test_write_docs_replaces_only_the_marked_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "page-types.md"
    page.write_text(f"head\n{bench.BEGIN}\nold\n{bench.END}\ntail\n", encoding="utf-8")
    monkeypatch.setattr(bench, "DOCS", page)
    bench.write_docs("new")
    assert page.read_text(encoding="utf-8") == f"head\n{bench.BEGIN}\n\nnew\n\n{bench.END}\ntail\n"
    page.write_text("no markers\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="lacks the markers"):
        bench.write_docs("new")


def test_the_peers_table_names_the_best_peer_per_type() -> None:
    outcomes = [_outcome("listing", "A", 0.5, 0.8), _outcome("forum", "B", 0.5, 0.6)]
    for outcome, score in zip(outcomes, (0.7, 0.9), strict=True):
        outcome.scores["goose3"] = {"BOW": score, "SH": score, "WCXB": score}
    text = report(outcomes, {})
    assert "| listing | 1 | 0.800 | 0.800 | 0.500 | 0.700 | goose3 | yes |" in text
    assert "| forum | 1 | 0.600 | 0.600 | 0.500 | 0.900 | goose3 | no |" in text
    assert "Not installed, so not scored: trafilatura-recall" in text
    assert "beside every peer" not in report([_outcome("listing", "A", 0.5, 0.8)], {})


def test_peer_outputs_are_cached_by_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def make() -> Callable[[str], str]:
        def run(html: str) -> str:
            calls.append(html)
            if "fail" in html:
                raise RuntimeError(html)
            return html.upper()

        return run

    class Page:
        def __init__(self, text: str) -> None:
            self.text = text

    class Dataset:
        def page(self, page_id: str) -> Page:
            return Page(page_id)

    peer = PEERS["goose3"]
    fake = type(peer)(peer.name, peer.module, peer.distribution, make, peer.call)
    monkeypatch.setitem(PEERS, "goose3", fake)
    monkeypatch.setattr(bench, "CACHE", tmp_path / "trafilatura-wcxb.json")
    monkeypatch.setattr(bench, "decoded_text", lambda page: page.text)
    pages = [("d/ok", Dataset(), "ok"), ("d/fail", Dataset(), "fail")]
    found = bench.peer_outputs("goose3", pages, refresh=False)  # type: ignore[arg-type]
    assert found == {"d/ok": "OK", "d/fail": ""}
    assert bench.peer_outputs("goose3", pages, refresh=False) == found  # type: ignore[arg-type]
    assert calls == ["ok", "fail"]
    assert (tmp_path / "goose3-wcxb.json").is_file()
    bench.peer_outputs("goose3", pages, refresh=True)  # type: ignore[arg-type]
    assert len(calls) == 4


def test_out_of_fold_types_are_reused_only_for_the_classifier_that_made_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "PREDICTIONS", tmp_path / "page-types-out-of-fold.json")
    assert bench.stored_types(bench.classifier_digest()) is None
    stored = {"digest": bench.classifier_digest(), "types": {"wcxb/1": ["forum", 0.75]}}
    bench.PREDICTIONS.write_text(json.dumps(stored), encoding="utf-8")
    assert bench.stored_types(bench.classifier_digest()) == {"wcxb/1": PageType("forum", 0.75)}
    assert bench.stored_types("another classifier") is None

"""The TPS benchmark's figures and the blocks it writes into the docs and the README."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import tps
from scrapy_cetd.tps import TpsOptions


def result(config: str, page_type: str, **figures: int) -> tps.PageResult:
    values = {"nodes": 100, "kept": 50, "held_before": 10, "held_after": 10, **figures}
    return tps.PageResult(
        config=config,
        dataset="wcxb",
        id="p",
        page_type=page_type,
        nodes=values["nodes"],
        kept=values["kept"],
        with_before=values.get("with_before", 0),
        with_after=values.get("with_after", 0),
        without_before=values.get("without_before", 0),
        without_after=values.get("without_after", 0),
        held_before=values["held_before"],
        held_after=values["held_after"],
        half=values.get("half", 0),
    )


def test_snippet_shares_are_pooled_over_the_snippets() -> None:
    summary = tps.summarize(
        [
            result("c", "listing", with_before=3, with_after=3, without_before=1, without_after=1),
            result("c", "listing", with_before=1, with_after=0, without_before=3, without_after=0),
        ]
    )
    assert summary.with_kept == 3 / 4
    assert summary.without_removed == 3 / 4
    assert summary.accuracy == 6 / 8
    assert summary.nodes_removed == 0.5
    assert summary.content_present == 1.0
    assert tps.summarize([]).pages == 0


def test_the_best_configuration_has_the_highest_snippet_accuracy_then_removes_more() -> None:
    low = tps.summarize([result("a", "listing", with_before=2, with_after=1)])
    high = tps.summarize([result("b", "listing", with_before=2, with_after=2, kept=90)])
    tie = tps.summarize([result("c", "listing", with_before=2, with_after=2, kept=10)])
    assert tps.best({"a": low, "b": high}) == "b"
    assert tps.best({"b": high, "c": tie}) == "c"


def test_the_candidates_hold_the_paper_and_the_defaults() -> None:
    assert tps.CANDIDATES[tps.PAPER] == TpsOptions.paper()
    assert tps.CANDIDATES[tps.defaults_name(tps.CANDIDATES)] == TpsOptions()
    with pytest.raises(ValueError, match="no configuration is the defaults"):
        tps.defaults_name({tps.PAPER: TpsOptions.paper()})


def test_the_blocks_replace_only_what_lies_between_their_markers() -> None:
    start, end = tps.README_MARKERS
    page = f"before\n{start}\nold\n{end}\nafter\n"
    assert tps.replace_between(page, tps.README_MARKERS, "new") == (
        f"before\n{start}\nnew\n{end}\nafter\n"
    )
    with pytest.raises(ValueError, match="no <!-- tps-table:start -->"):
        tps.replace_between("no markers", tps.README_MARKERS, "new")


def test_the_docs_page_and_the_readme_have_the_markers() -> None:
    for path, markers in ((tps.DOCS_PAGE, tps.DOCS_MARKERS), (tps.README, tps.README_MARKERS)):
        text = path.read_text(encoding="utf-8")
        assert text.index(markers[0]) < text.index(markers[1]), path


def test_the_readme_table_sets_the_paper_beside_the_defaults(tmp_path: Path) -> None:
    defaults = tps.defaults_name(tps.CANDIDATES)
    results = [
        result(tps.PAPER, "listing", with_before=4, with_after=1, kept=20),
        result(defaults, "listing", with_before=4, with_after=4, kept=60),
    ]
    block = tps.readme_block(results)
    assert (
        "| listing (1) | 25.0% / 100.0% | 0.0% / 0.0% | 25.0% / 100.0% | 80.0% / 40.0% |" in block
    )
    assert "| all (1) | 25.0% / 100.0% |" in block
    assert "| sites A (1) | 25.0% / 100.0% |" in block and "| sites B (0) |" in block
    readme = tmp_path / "README.md"
    docs = tmp_path / "tps.md"
    readme.write_text("\n".join(tps.README_MARKERS))
    docs.write_text("\n".join(tps.DOCS_MARKERS))
    assert tps.write_docs(results, docs, readme) == [docs, readme]
    assert block in readme.read_text()
    assert "| paper | 25.0% |" in docs.read_text()


def test_a_site_falls_in_one_half_whatever_its_page() -> None:
    half = tps.site_half("https://shop.example/jackets")
    assert half in (0, 1)
    assert tps.site_half("http://www.shop.example/coats?page=2") == half
    halves = {tps.site_half(f"https://site{n}.example/") for n in range(20)}
    assert halves == {0, 1}


def test_the_time_ratio_is_the_median_of_the_pages_ratios() -> None:
    results = [
        tps.PageResult(config, "wcxb", page, "listing", 1, 1, 0, 0, 0, 0, 0, 0, seconds=seconds)
        for config, page, seconds in (
            (tps.PAPER, "a", 1.0),
            (tps.PAPER, "b", 2.0),
            (tps.PAPER, "c", 1.0),
            ("x", "a", 2.0),
            ("x", "b", 2.0),
            ("x", "c", 3.0),
        )
    ]
    assert tps.time_ratio(results, "x") == 2.0


def test_a_configuration_replaces_the_defaults_only_when_ahead_on_both_halves() -> None:
    def pages(config: str, kept_a: int, kept_b: int) -> list[tps.PageResult]:
        return [
            result(config, "listing", with_before=10, with_after=kept_a, half=0),
            result(config, "listing", with_before=10, with_after=kept_b, half=1),
        ]

    results = pages("d", 5, 5) + pages("both", 6, 6) + pages("one", 9, 4) + pages("tie", 5, 6)
    assert tps.ahead_on_both_halves(results, "d") == ["both"]

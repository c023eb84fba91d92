"""The matches of the metadata evaluation: normalised titles, author name sets."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from scrapy_cetd.evaluation import metadata
from scrapy_cetd.evaluation.datasets import load_dataset
from scrapy_cetd.evaluation.metadata import (
    MetadataGuess,
    author_names,
    evaluate_metadata,
    format_metadata_table,
    mean_metadata_scores,
    metadata_predictor,
    normalize,
)


def test_normalize_ignores_case_punctuation_and_spaces() -> None:
    assert normalize("  The  Deck of Cards: A History! ") == "the deck of cards a history"
    assert normalize("\uff23af\u00e9") == "café"
    assert normalize(None) == ""


def test_author_names_split_and_drop_degrees() -> None:
    assert author_names("Dylan Bailey, MS, RD, FAND") == {"dylan bailey"}
    assert author_names("Moses Kim and Kate Shokurova") == {"moses kim", "kate shokurova"}
    assert author_names(("Rui Ma", "Heba Ledwon & Suparn Patra")) == {
        "rui ma",
        "heba ledwon",
        "suparn patra",
    }
    assert author_names("WRAL") == {"wral"}
    assert author_names(None) == frozenset()


def _write(folder: Path, name: str, pages: dict[str, dict[str, str]]) -> Path:
    """A dataset ``name`` in ``folder`` of the pages' metadata gold (their HTML a stub)."""
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    (folder / "MANIFEST.json").write_text(json.dumps({"name": name, "pages": pages}))
    for page_id in pages:
        (folder / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(b"<p>x</p>"))
        (folder / "gold" / f"{page_id}.txt").write_text("x")
    return folder


def test_author_exact_counts_a_name_too_many_as_a_miss(tmp_path: Path) -> None:
    """``author_match`` asks that every gold name be predicted, ``author_exact`` also that no
    other name be: a job title taken for a second author passes the first, not the second."""
    pages = {"p1": {"author": "Jane Doe"}, "p2": {"author": "Ann Lee, John Roe"}}
    _write(tmp_path, "news", pages)
    guesses = {
        "p1": MetadataGuess(authors=("Jane Doe", "Staff Writer")),
        "p2": MetadataGuess(authors=("John Roe", "Ann Lee")),
    }
    score = evaluate_metadata(load_dataset(tmp_path), lambda page: guesses[page.id], system="fixed")
    assert (score.author_match, score.author_exact, score.author_pages) == (1.0, 0.5, 2)


def test_means_over_datasets_weigh_each_dataset_the_same(tmp_path: Path) -> None:
    """A system's mean row: each rate the mean of the datasets' rates (over those that have
    it), so a dataset of one page weighs as much as one of three; the pages summed; a system
    scored on one dataset has none; the JSON record has no pages' times."""
    big = _write(
        tmp_path / "big",
        "big",
        {
            f"p{n}": {"title": "Storm", "author": "Ann Lee", "site_name": "Tribune"}
            for n in range(3)
        },
    )
    small = _write(tmp_path / "small", "small", {"p1": {"title": "Calm", "author": "Jo Roe"}})
    guess = MetadataGuess(title="Storm", authors=("Ann Lee",), site_name="Tribune")
    scores = [
        evaluate_metadata(load_dataset(big), lambda page: guess, system="fixed"),
        evaluate_metadata(load_dataset(small), lambda page: guess, system="fixed"),
        evaluate_metadata(load_dataset(big), lambda page: guess, system="once"),
    ]
    (mean,) = mean_metadata_scores(scores)
    assert (mean.dataset, mean.system, mean.pages, mean.author_pages) == (
        "mean of 2 datasets",
        "fixed",
        4,
        4,
    )
    assert (mean.title_exact, mean.author_match) == (0.5, 0.5)  # pooled: 0.75
    assert (mean.site_name_exact, mean.site_pages) == (1.0, 3)  # the one dataset with it
    assert mean.date_accuracy is None
    assert len(mean.page_ms) == 4
    lines = format_metadata_table(scores, means=True).splitlines()
    assert lines[-1].startswith("| mean of 2 datasets | fixed | 4 | - / 0 | 0.000 / 4 | 0.500 |")
    assert format_metadata_table(scores) == "\n".join(lines[:-1]) + "\n"
    assert "page_ms" not in scores[0].to_dict()
    assert mean_metadata_scores(scores[2:]) == []


def test_the_predictor_loads_the_libraries_before_any_page_is_timed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads: list[str] = []
    monkeypatch.setattr(metadata, "load_metadata_libraries", lambda: loads.append("loaded"))
    metadata_predictor()
    assert loads == ["loaded"]

"""The matches of the metadata evaluation: normalised titles, author name sets."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from scrapy_cetd.evaluation.datasets import load_dataset
from scrapy_cetd.evaluation.metadata import (
    MetadataGuess,
    author_names,
    evaluate_metadata,
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


def test_author_exact_counts_a_name_too_many_as_a_miss(tmp_path: Path) -> None:
    """``author_match`` asks that every gold name be predicted, ``author_exact`` also that no
    other name be: a job title taken for a second author passes the first, not the second."""
    pages = {"p1": {"author": "Jane Doe"}, "p2": {"author": "Ann Lee, John Roe"}}
    (tmp_path / "html").mkdir()
    (tmp_path / "gold").mkdir()
    (tmp_path / "MANIFEST.json").write_text(json.dumps({"name": "news", "pages": pages}))
    for page_id in pages:
        (tmp_path / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(b"<p>x</p>"))
        (tmp_path / "gold" / f"{page_id}.txt").write_text("x")
    guesses = {
        "p1": MetadataGuess(authors=("Jane Doe", "Staff Writer")),
        "p2": MetadataGuess(authors=("John Roe", "Ann Lee")),
    }
    score = evaluate_metadata(load_dataset(tmp_path), lambda page: guesses[page.id], system="fixed")
    assert (score.author_match, score.author_exact, score.author_pages) == (1.0, 0.5, 2)

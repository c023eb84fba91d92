"""The matches of the metadata evaluation: normalised titles, author name sets."""

from __future__ import annotations

from scrapy_cetd.evaluation.metadata import author_names, normalize


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

"""What a run extracts and which rows it keeps: :mod:`scrapy_cetd.corpus.settings`."""

from __future__ import annotations

import re
from typing import Any

import pytest

import scrapy_cetd
from scrapy_cetd.corpus import CorpusSettings, Row
from scrapy_cetd.corpus.settings import FILTER_REASONS


def typed_row(page_type: str | None, confidence: float | None) -> Row:
    """A row of a long English text, with a page type and its confidence."""
    text = "The harbour wall held through the night while the wind turned. " * 8
    return {
        "text": text,
        "language": "en",
        "language_score": 0.99,
        "page_type": page_type,
        "page_type_confidence": confidence,
    }


def test_page_type_filters_keep_the_types_asked_for_typed_with_confidence() -> None:
    settings = CorpusSettings(
        page_types=("article", " Documentation"), min_page_type_confidence=0.6
    )
    assert settings.page_types == ("article", "documentation")
    assert settings.rejects(typed_row("article", 0.9)) is None
    assert settings.rejects(typed_row("documentation", 0.6)) is None
    assert settings.rejects(typed_row("forum", 0.9)) == "page_type"
    assert settings.rejects(typed_row("article", 0.59)) == "page_type_confidence"
    # An empty result, or an algorithm without a classifier: no type, dropped by either filter.
    assert settings.rejects(typed_row(None, None)) == "page_type"
    assert CorpusSettings(min_page_type_confidence=0.5).rejects(typed_row(None, None)) == (
        "page_type_confidence"
    )
    assert CorpusSettings().rejects(typed_row(None, None)) is None
    # A row left empty (no visible text) keeps its page's type, and either filter drops it.
    empty: Row = {**typed_row("article", 0.9), "text": "", "language": None}
    assert CorpusSettings(page_types=("article",)).rejects(empty) == "page_type"
    assert CorpusSettings(min_page_type_confidence=0.6).rejects(empty) == "page_type_confidence"
    assert CorpusSettings().rejects(empty) is None
    assert settings.filters == {
        "page_types": ["article", "documentation"],
        "min_page_type_confidence": 0.6,
    }
    assert set(FILTER_REASONS) >= {"page_type", "page_type_confidence"}
    # The filters change the output: a rerun with other values does not resume the parts.
    digests = {
        CorpusSettings().digest(),
        settings.digest(),
        CorpusSettings(page_types=("article",)).digest(),
        CorpusSettings(min_page_type_confidence=0.7).digest(),
    }
    assert len(digests) == 4


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"page_types": ("article", "blog")}, "page_types: 'blog' is not a page type"),
        ({"page_types": ("news", "blog")}, "page_types: 'news', 'blog' are not page types"),
        ({"page_types": "article"}, "page_types must be a sequence of types, not a string"),
        ({"min_page_type_confidence": 1.5}, "min_page_type_confidence must be between 0 and 1"),
        ({"min_page_type_confidence": -0.1}, "min_page_type_confidence must be between 0 and 1"),
    ],
)
def test_page_type_filters_are_checked(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        CorpusSettings(**settings)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"algorithm": "cetd-ds", "page_types": ("article",)},
            "page_types: 'article' would keep no row: algorithm 'cetd-ds' does not classify "
            "pages (cetd-plus does)",
        ),
        (
            {"algorithm": "cset", "min_page_type_confidence": 0.6},
            "min_page_type_confidence: 0.6 would keep no row: algorithm 'cset' does not classify",
        ),
        (
            {"options": {"detect_page_type": "false"}, "page_types": ("article", "forum")},
            "page_types: 'article', 'forum' would keep no row: algorithm 'cetd-plus' classifies "
            "no page with detect_page_type=False and no page_type",
        ),
        (
            {"options": {"detect_page_type": False}, "min_page_type_confidence": 0.0},
            "min_page_type_confidence: 0.0 would keep no row: algorithm 'cetd-plus' classifies",
        ),
        (
            {"options": {"page_type": "listing"}, "page_types": ("article",)},
            "page_types: 'article' would keep no row: algorithm 'cetd-plus' gives every page the "
            "type listing (its page_type option)",
        ),
    ],
)
def test_a_page_type_filter_that_would_keep_no_row_is_refused(
    settings: dict[str, Any], message: str
) -> None:
    """An algorithm that gives no page type, or one forced type the filter leaves out, would
    end a run in an empty corpus: refused before it starts, naming the filter."""
    with pytest.raises(ValueError, match=re.escape(message)):
        CorpusSettings(**settings)


def test_a_page_type_filter_the_extractor_can_meet_is_accepted() -> None:
    """A forced type the filters keep (its confidence is 1.0), cetd-plus classifying, and a
    class of one's own, whose types are not known before it runs."""
    forced = {"page_type": "listing", "detect_page_type": False}
    CorpusSettings(options=forced, page_types=("article", "listing"))
    CorpusSettings(options=forced, min_page_type_confidence=1.0)
    CorpusSettings(page_types=("forum",), min_page_type_confidence=0.9)
    CorpusSettings(algorithm="cetd-ds")  # no filter, nothing to check
    own = CorpusSettings(algorithm=f"{__name__}.OwnExtractor", page_types=("article",))
    assert own.rejects(typed_row("article", None)) is None


class OwnExtractor:
    """An extractor class of one's own, which may type its pages."""

    def extract(self, tree: Any, *, url: str | None = None) -> scrapy_cetd.ExtractionResult:
        return scrapy_cetd.ExtractionResult(text="x", html="", algorithm="own", page_type="article")

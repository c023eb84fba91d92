"""The per-record function and the row schema: :mod:`scrapy_cetd.corpus.records`."""

from __future__ import annotations

import dataclasses
import gzip
import pickle
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from corpuskit import (
    ARTICLE,
    FIELDS,
    PAGES,
    WARC,
    chunked,
    site_file,
    story_page,
)

import scrapy_cetd
from scrapy_cetd.corpus import (
    CorpusSettings,
    Row,
    Skipped,
    WarcPage,
    extract_file,
    extract_page,
    iter_pages,
)
from scrapy_cetd.corpus.records import (
    FILTER_REASONS,
    PageHtml,
    _unchunked,
    content_hash,
    identify_language,
    page_html,
)


def test_the_per_record_function_pickles_and_matches_extract() -> None:
    pages = [item for item in iter_pages(WARC) if isinstance(item, WarcPage)]
    assert len(pages) == PAGES
    settings = CorpusSettings(html=True)
    function, page, settings = pickle.loads(pickle.dumps((extract_page, pages[1], settings)))
    row = function(page, settings)
    assert not isinstance(row, Skipped)
    expected = scrapy_cetd.extract(site_file(page.url).read_bytes(), url=page.url)
    assert (row["text"], row["html"]) == (expected.text, expected.html)


def test_a_page_s_html_as_text_extracts_to_its_row_s_text_or_is_skipped_as_it_is() -> None:
    """:func:`page_html` decodes a body as :func:`extract_page` has ``extract()`` decode it:
    ``extract()`` of the text gives the row's text (a gzipped page in windows-1252, which only
    the HTTP header declares); a body that holds no document, whose coding does not decode or
    that is too large once decoded is the same skip as the row's."""
    line = "<h1>Story 1</h1><p>Café prices rose to £29 — a naïve guess.</p>".encode("cp1252")
    body = story_page(1).replace(b"<h1>Story 1</h1>", line)
    page = WarcPage(
        url="https://news.test/1",
        record_id="<urn:uuid:1>",
        date=None,
        charset="windows-1252",
        encodings=("gzip",),
        body=gzip.compress(body),
    )
    settings = CorpusSettings(metadata=False)
    html = page_html(page, settings.max_bytes)
    row = extract_page(page, settings)
    assert isinstance(html, PageHtml) and not isinstance(row, Skipped)
    assert "Café prices rose to £29" in row["text"]
    assert scrapy_cetd.extract(html.text, url=page.url, html=False).text == row["text"]
    assert (html.size, html.notes) == (len(body), ())
    for broken, reason in (
        (dataclasses.replace(page, encodings=(), body=b"%PDF-1.7 \x00\x01"), "undecodable"),
        (dataclasses.replace(page, encodings=(), body=b" \r\n "), "undecodable"),
        (dataclasses.replace(page, encodings=("br",)), "undecodable"),
        (dataclasses.replace(page, body=gzip.compress(body * 40)), "too_large"),
    ):
        limited = dataclasses.replace(settings, max_bytes=len(body) * 20)
        skipped = page_html(broken, limited.max_bytes)
        assert isinstance(skipped, Skipped) and skipped.reason == reason
        assert skipped == extract_page(broken, limited)


def test_every_row_has_the_schema_and_points_at_its_record(
    tmp_path: Path,
) -> None:
    """The columns in order; ``warc_offset`` is where the record starts, gzipped (its gzip
    member) or not; ``id`` and ``date`` are the record's."""
    plain = tmp_path / "site.warc"
    plain.write_bytes(gzip.decompress(WARC.read_bytes()))
    settings = CorpusSettings()
    for path in (WARC, plain):
        data = path.read_bytes()
        rows = [row for row in extract_file(path, settings) if not isinstance(row, Skipped)]
        assert len(rows) == PAGES
        for row in rows:
            assert list(row) == FIELDS
            assert row["file_path"] == str(path)
            start = data[row["warc_offset"] :]
            record = zlib.decompressobj(wbits=31).decompress(start) if path == WARC else start
            head = record[: record.index(b"\r\n\r\n")].decode()
            assert head.startswith("WARC/1.")
            assert f"WARC-Record-ID: {row['id']}" in head
            assert f"WARC-Date: {row['date']}" in head
            assert row["extractor"] == scrapy_cetd.DEFAULT_ALGORITHM
            assert row["extractor_version"] == scrapy_cetd.__version__
            assert (row["language"], row["language_score"] > 0.9) == ("en", True)
            assert row["content_hash"] == content_hash(row["text"])


def test_the_content_hash_ignores_case_unicode_form_and_spacing() -> None:
    assert content_hash("Caf\u00e9  au\nLAIT") == content_hash("café au lait")
    assert content_hash("café au lait") != content_hash("café au thé")
    assert len(content_hash("")) == 32


def test_the_page_metadata_fills_title_authors_and_published() -> None:
    head = (
        "<title>Harbour news | The Gazette</title><meta name='author' content='Ann Writer'>"
        "<meta property='article:published_time' content='2024-03-05T10:00:00Z'>"
    )
    body = story_page(7, head)
    page = WarcPage("http://a.test/7", "<urn:uuid:7>", None, None, (), body, "x.warc", 0)
    row = extract_page(page, CorpusSettings())
    assert not isinstance(row, Skipped)
    expected = scrapy_cetd.extract(body, url=page.url, metadata=True)
    assert expected.metadata is not None
    assert row["authors"] == ["Ann Writer"] == list(expected.metadata.authors)
    assert row["published"] == expected.metadata.published
    assert row["published"] is not None and row["published"].startswith("2024-03-05")
    assert row["title"] == expected.title or expected.metadata.title
    assert row["page_type"] == expected.page_type
    assert row["page_type_confidence"] == expected.page_type_confidence


def test_identify_language_gives_none_for_a_text_without_letters() -> None:
    assert identify_language("") == (None, None)
    assert identify_language("12 345 — 678") == (None, None)
    language, score = identify_language("Die Hafenmauer hielt die ganze Nacht. " * 4)
    assert language == "de" and score is not None and 0.5 < score <= 1


def chunked_page(body: bytes) -> WarcPage:
    return WarcPage(
        url="http://a.test/",
        record_id="<urn:uuid:1>",
        date=None,
        charset="utf-8",
        encodings=("chunked",),
        body=body,
        file_path="a.warc",
        offset=0,
    )


@pytest.mark.parametrize(
    "body",
    [
        chunked(ARTICLE, size=100),
        chunked(ARTICLE, size=100).replace(b"\r\n", b"\n"),  # bare line feeds
        chunked(ARTICLE, size=100).replace(b"\r\n", b";name=value\r\n", 1),  # an extension
        chunked(ARTICLE, size=100)[: -len(b"0\r\n\r\n")],  # cut before the last chunk
        b"%018x\r\n%s\r\n0\r\n\r\n" % (len(ARTICLE), ARTICLE),  # a size with leading zeros
        ARTICLE,  # stored decoded, its Transfer-Encoding header kept
    ],
    ids=["crlf", "lf", "extension", "no-last-chunk", "zeros", "stored-decoded"],
)
def test_a_chunked_body_is_read_as_browsers_read_it(body: bytes) -> None:
    row = extract_page(chunked_page(body), CorpusSettings())
    assert not isinstance(row, Skipped)
    assert row["text"] == scrapy_cetd.extract(ARTICLE, url="http://a.test/").text


def test_a_chunked_body_keeps_what_comes_after_damage_and_stays_within_the_limit() -> None:
    damaged = b"5\r\nhello" + b"XX3\r\nabc"  # no line end after the data: the rest as is
    assert _unchunked(damaged, 100) == b"helloXX3\r\nabc"
    skipped = extract_page(
        chunked_page(chunked(ARTICLE, size=100)), CorpusSettings(max_bytes=len(ARTICLE) - 1)
    )
    assert isinstance(skipped, Skipped)
    assert skipped.reason == "too_large"


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

"""The per-record function: :mod:`scrapy_cetd.corpus.records`."""

from __future__ import annotations

import dataclasses
import gzip
import pickle
import zlib
from pathlib import Path

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
    Skipped,
    WarcPage,
    extract_file,
    extract_page,
    iter_pages,
)
from scrapy_cetd.corpus.codings import unchunked
from scrapy_cetd.corpus.records import PageHtml, identify_language, page_html
from scrapy_cetd.corpus.schema import content_hash
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES


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
    assert unchunked(damaged, 100) == b"helloXX3\r\nabc"
    skipped = extract_page(
        chunked_page(chunked(ARTICLE, size=100)), CorpusSettings(max_bytes=len(ARTICLE) - 1)
    )
    assert isinstance(skipped, Skipped)
    assert skipped.reason == "too_large"


def test_a_body_stored_decoded_with_its_gzip_header_is_read_as_it_stands() -> None:
    """A crawler that stored the body decoded but kept ``Content-Encoding: gzip``: a body
    that begins as markup (never gzip data, which begins with its magic number) is read as
    it stands, with a ``coding-already-undone`` note in its row and in the HTML a datatrove
    step is handed; a body that is neither gzip data nor markup is still ``undecodable``."""

    def gzip_page(body: bytes, encodings: tuple[str, ...] = ("gzip",)) -> WarcPage:
        return dataclasses.replace(chunked_page(body), encodings=encodings)

    expected = scrapy_cetd.extract(ARTICLE, url="http://a.test/").text
    for body in (ARTICLE, b"\xef\xbb\xbf\n  " + ARTICLE):
        row = extract_page(gzip_page(body), CorpusSettings())
        assert not isinstance(row, Skipped)
        assert row["text"] == expected
        assert row["notes"] == ["coding-already-undone: gzip"]
        html = page_html(gzip_page(body))
        assert isinstance(html, PageHtml) and html.notes == ("coding-already-undone: gzip",)
    chunked_too = extract_page(gzip_page(chunked(ARTICLE), ("gzip", "chunked")), CorpusSettings())
    assert not isinstance(chunked_too, Skipped) and chunked_too["text"] == expected
    row = extract_page(gzip_page(gzip.compress(ARTICLE)), CorpusSettings())
    assert not isinstance(row, Skipped) and row["notes"] == []
    skipped = extract_page(gzip_page(b"\x00\x01binary" + ARTICLE), CorpusSettings())
    assert isinstance(skipped, Skipped) and skipped.reason == "undecodable"


@pytest.mark.parametrize("attributes", [10, 1_001])
def test_the_title_of_a_page_refused_for_its_markup_is_not_parsed(attributes: int) -> None:
    """A row without a headline takes the page's ``<title>``, its beginning parsed: a page
    that ``extract()`` refused before parsing it, for a tag of more attributes than
    ``max_attributes``, was parsed there all the same, in a time quadratic in them (a 0.9 MB
    page of one ``<meta>`` of 100,000 attributes took 27 s, where its extraction took
    milliseconds). Its row has no title; a page without such a tag keeps its ``<title>``."""
    meta = "<meta " + " ".join(f"a{k}=1" for k in range(attributes)) + ">"
    body = f"<html><head>{meta}<title>Harbour news</title></head><body></body></html>"
    page = WarcPage(
        url="https://news.test/1",
        record_id="<urn:uuid:1>",
        date=None,
        charset=None,
        encodings=(),
        body=body.encode(),
    )
    row = extract_page(page, CorpusSettings(metadata=False))
    assert not isinstance(row, Skipped)
    refused = attributes > DEFAULT_MAX_ATTRIBUTES
    assert (row["reason_code"] == "max_attributes") is refused
    assert row["title"] == (None if refused else "Harbour news")

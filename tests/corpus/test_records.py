"""The per-record function and the row schema: :mod:`scrapy_cetd.corpus.records`."""

from __future__ import annotations

import pickle

from corpuskit import (
    PAGES,
    WARC,
    site_file,
)

import scrapy_cetd
from scrapy_cetd.corpus import (
    CorpusSettings,
    Skipped,
    WarcPage,
    extract_page,
    iter_pages,
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

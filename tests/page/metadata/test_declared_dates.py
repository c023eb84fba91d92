"""The dates a page declares: real days and times in ISO 8601, and the earlier of the declared
and the found date as the publication."""

from __future__ import annotations

import pytest
from metadatakit import json_ld, page

from scrapy_cetd.page.metadata import page_metadata


@pytest.mark.parametrize(
    ("declared", "published"),
    [
        ("2021-02-31", None),
        ("2021-04-31T10:00", None),
        ("2020-02-29T10:15", "2020-02-29T10:15:00"),
        ("2021-03-01T10:60:00Z", "2021-03-01"),
        ("2021-02-28T24:60:60.9999999999Z", "2021-02-28"),
        ("Tue, 12 Mar 2024 08:30:00 GMT", "2024-03-12T08:30:00+00:00"),  # RFC 5322
        ("12 Mar 2024 08:30 +0100", "2024-03-12T08:30:00+01:00"),
        ("Sat, 31 Feb 2024 08:30:00 GMT", None),
        ("Tue, 12 Mar 2024 08:30:00 +0100 (CET)", "2024-03-12T08:30:00+01:00"),
        ("Tue, 12 Mar 2024 08:30:00 +01", None),  # no zone of the RFC's: the time is unsure
        ("Tue, 12 Mar 2024 08:30:00 CET", None),
    ],
)
def test_a_declared_date_is_a_real_day_and_time(declared: str, published: str | None) -> None:
    head = json_ld({"@type": "Article", "headline": "A", "datePublished": declared})
    assert page_metadata(page(head, "<h1>A</h1><p>No date in the text.</p>")).published == published


def test_the_earlier_of_declared_and_found_dates_is_the_publication() -> None:
    head = "<meta property='article:published_time' content='2019-05-02T10:00:00Z'>"
    found = page_metadata(page(head), url="https://news.example/2019/04/30/story")
    assert found.published == "2019-04-30"

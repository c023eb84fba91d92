"""What the pipeline writes into an item, through the pipeline called directly: the fields
an item can hold, the values written and kept, the metadata fields, the source field."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import pytest
import scrapy
from conftest import EMPTY_FIELDS as EMPTY
from conftest import META_PAGE, STORM_PAGE
from conftest import STORM_URL as URL
from conftest import PipelineHarness as Harness
from conftest import storm_response as page
from crawlkit import BareItem, NewsItem
from itemadapter import ItemAdapter
from scrapy.http import HtmlResponse

import scrapy_cetd

EXPECTED = scrapy_cetd.extract(STORM_PAGE.encode(), url=URL)


def test_field_names_are_configurable_and_none_disables_one() -> None:
    harness = Harness(
        CETD_TEXT_FIELD="body",
        CETD_HTML_FIELD=None,
        CETD_TITLE_FIELD=None,
        CETD_PAGE_TYPE_FIELD=None,
    )
    item = harness.run({}, page())
    assert item == {"body": EXPECTED.text}


def test_declared_item_without_the_fields(caplog: pytest.LogCaptureFixture) -> None:
    harness = Harness()
    with caplog.at_level(logging.WARNING):
        items = [harness.run(BareItem(url=URL), page()) for _ in range(2)]
    assert all(dict(item) == {"url": URL} for item in items)
    assert harness.stat("cetd/item_skipped_count/missing_fields") == 2
    assert len(caplog.records) == 1  # once per item class
    assert "BareItem" in caplog.records[0].getMessage()
    assert len(harness.links) == 0


def test_overwrite_false_keeps_what_the_spider_set() -> None:
    harness = Harness(CETD_OVERWRITE=False)
    mine = {"main_content_text": "mine", "main_content_html": "<p>mine</p>"}
    set_all = {**mine, "main_content_title": "My title", "main_content_page_type": "forum"}
    every = harness.run(dict(set_all), page())
    assert every == set_all
    assert harness.stat("cetd/item_skipped_count/already_set") == 1
    both = harness.run(dict(mine), page())  # the title is not set yet: extracted, then kept
    assert both == {
        **mine,
        "main_content_title": EXPECTED.title or "",
        "main_content_page_type": EXPECTED.page_type or "",
    }
    one = harness.run({"main_content_text": "mine"}, page())
    assert one == {
        "main_content_text": "mine",
        "main_content_html": EXPECTED.html,
        "main_content_title": EXPECTED.title or "",
        "main_content_page_type": EXPECTED.page_type or "",
    }
    failed = harness.run({"main_content_text": "mine"}, page(""))
    assert failed == {**EMPTY, "main_content_text": "mine"}
    overwritten = Harness().run({"main_content_text": "mine"}, page())
    assert overwritten["main_content_text"] == EXPECTED.text


def test_frozen_item_is_an_error_not_a_crash() -> None:
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        main_content_html: str = ""
        main_content_text: str = ""

    harness = Harness()
    item = Frozen()
    assert harness.run(item, page()) is item
    assert harness.stat("cetd/item_error_count") == 1


def test_title_goes_to_the_title_field_when_the_item_can_hold_it() -> None:
    class Titled(scrapy.Item):
        main_content_html = scrapy.Field()
        main_content_text = scrapy.Field()
        main_content_title = scrapy.Field()

    harness = Harness(CETD_ALGORITHM="crawlkit.TitledExtractor")
    item = harness.run({}, page())
    assert item["main_content_title"] == "Storm hits the coast"  # control character removed
    assert dict(harness.run(Titled(), page()))["main_content_title"] == "Storm hits the coast"
    news = harness.run(NewsItem(url=URL), page())  # declares no title field: no title, no error
    assert "main_content_title" not in news and news["main_content_text"] == EXPECTED.text
    assert harness.stat("cetd/item_extracted_count") == 3

    renamed = Harness(CETD_ALGORITHM="crawlkit.TitledExtractor", CETD_TITLE_FIELD="headline")
    assert renamed.run({}, page())["headline"] == "Storm hits the coast"
    disabled = Harness(CETD_ALGORITHM="crawlkit.TitledExtractor", CETD_TITLE_FIELD=None)
    assert "main_content_title" not in disabled.run({}, page())
    kept = Harness(CETD_ALGORITHM="crawlkit.TitledExtractor", CETD_OVERWRITE=False)
    assert kept.run({"main_content_title": "Mine"}, page())["main_content_title"] == "Mine"


def test_an_item_class_gets_the_fields_it_declares(caplog: pytest.LogCaptureFixture) -> None:
    class OnlyTitle(scrapy.Item):
        main_content_title = scrapy.Field()

    harness = Harness()
    with caplog.at_level(logging.INFO, logger="scrapy_cetd"):
        for _ in range(2):
            assert dict(harness.run(OnlyTitle(), page())) == {
                "main_content_title": EXPECTED.title or ""
            }
    assert harness.stat("cetd/item_extracted_count") == 2
    assert harness.stat("cetd/item_skipped_count/missing_fields") is None
    assert [r.getMessage() for r in caplog.records] == [  # once per class, not a warning
        "scrapy-cetd: OnlyTitle declares no field main_content_html, main_content_text: it gets"
        " only the fields it declares (CETD_HTML_FIELD and CETD_TEXT_FIELD = None, if that is"
        " meant, says so)"
    ]
    caplog.clear()
    only = Harness(CETD_HTML_FIELD=None, CETD_TEXT_FIELD=None)  # said so: nothing to tell
    with caplog.at_level(logging.INFO, logger="scrapy_cetd"):
        assert dict(only.run(OnlyTitle(), page())) == {"main_content_title": EXPECTED.title or ""}
    assert not caplog.records


@dataclasses.dataclass
class MarkdownStory:
    """An item for the Markdown and the headline alone."""

    body_md: str = ""
    headline: str = ""


def test_an_item_class_of_markdown_and_metadata_alone_gets_them() -> None:
    class MarkdownItem(scrapy.Item):
        body_md = scrapy.Field()
        headline = scrapy.Field()

    harness = Harness(CETD_MARKDOWN_FIELD="body_md", CETD_METADATA_FIELDS={"title": "headline"})
    markdown = scrapy_cetd.extract(META_PAGE.encode(), url=URL, markdown=True).markdown
    assert markdown
    for item in (MarkdownItem(), MarkdownStory()):
        adapter = ItemAdapter(harness.run(item, page(META_PAGE)))
        assert adapter.asdict() == {"body_md": markdown, "headline": "Storm hits the coast"}
    assert harness.stat("cetd/item_extracted_count") == 2
    assert harness.stat("cetd/item_skipped_count/missing_fields") is None
    assert harness.stat("cetd/metadata_count/title") == 2
    empty = ItemAdapter(harness.run(MarkdownStory(headline="kept?"), page("")))
    assert empty.asdict() == {"body_md": "", "headline": "kept?"}  # no metadata on a failure
    assert harness.stat("cetd/item_empty_count") == 1


def test_metadata_goes_to_the_fields_the_user_names() -> None:
    harness = Harness(CETD_METADATA_FIELDS={"published": "date", "authors": "author"})
    item = harness.run({"url": URL}, page(META_PAGE))
    assert item["date"] == "2011-03-14T08:00:00Z"
    assert item["author"] == ["Jane Doe"]
    assert item["main_content_text"] == EXPECTED.text
    assert harness.stat("cetd/metadata_count/published") == 1
    assert harness.stat("cetd/metadata_count/authors") == 1


def test_metadata_true_writes_every_value_the_page_gives_and_counts_the_missing() -> None:
    harness = Harness(CETD_METADATA_FIELDS=True)
    item = harness.run({"url": URL, "categories": ["kept"]}, page(META_PAGE))
    assert item["title"] == "Storm hits the coast"
    assert item["site_name"] == "Example News"
    assert item["language"] == "en"
    assert item["categories"] == ["kept"]  # the page gives none: the spider's value stays
    assert "modified" not in item
    assert harness.stat("cetd/metadata_missing_count/modified") == 1
    assert harness.stat("cetd/metadata_missing_count/categories") == 1


def test_metadata_follows_declared_items_and_overwrite() -> None:
    class Dated(scrapy.Item):
        main_content_html = scrapy.Field()
        main_content_text = scrapy.Field()
        date = scrapy.Field()

    harness = Harness(
        CETD_METADATA_FIELDS={"published": "date", "authors": "author"}, CETD_OVERWRITE=False
    )
    item = harness.run(Dated(date="2020-01-01"), page(META_PAGE))
    assert dict(item) == {
        "main_content_html": EXPECTED.html,
        "main_content_text": EXPECTED.text,
        "date": "2020-01-01",
    }
    assert harness.stat("cetd/metadata_count/published") is None  # kept, not written
    assert harness.stat("cetd/metadata_kept_count/published") == 1
    every_set = {
        "main_content_html": "<p>mine</p>",
        "main_content_text": "mine",
        "main_content_title": "mine",
        "main_content_page_type": "mine",
        "date": "2020-01-01",
    }
    assert harness.run(dict(every_set), page(META_PAGE))["author"] == ["Jane Doe"]
    assert harness.run({**every_set, "author": ["Me"]}, page(META_PAGE))["author"] == ["Me"]
    assert harness.stat("cetd/item_skipped_count/already_set") == 1
    fresh = Harness(CETD_METADATA_FIELDS={"published": "date"})
    assert fresh.run(Dated(date="2020-01-01"), page(META_PAGE))["date"] == "2011-03-14T08:00:00Z"


@dataclasses.dataclass
class Story:
    """A news item as a dataclass, its list and number fields defaulted the usual way."""

    url: str = ""
    main_content_text: str = ""
    authors: list[str] = dataclasses.field(default_factory=list)
    tags: tuple[str, ...] = ()
    confidence: float = 0.0


def test_an_empty_collection_is_no_value_of_the_spider() -> None:
    """Without ``CETD_OVERWRITE``, an empty list, tuple or dict is filled like ``None``; a
    number, ``0.0`` included, is the spider's value and is kept; every value kept is counted
    under a stat of its own."""
    harness = Harness(
        CETD_OVERWRITE=False,
        CETD_HTML_FIELD=None,
        CETD_PAGE_TYPE_CONFIDENCE_FIELD="confidence",
        CETD_METADATA_FIELDS={"authors": "authors", "tags": "tags", "published": "published"},
    )
    story = harness.run(Story(url=URL), page(META_PAGE))
    assert story.authors == ["Jane Doe"]
    assert story.main_content_text == EXPECTED.text
    assert story.tags == ()  # the page gives none: counted missing, left as it is
    assert story.confidence == 0.0
    assert harness.stat("cetd/metadata_count/authors") == 1
    assert harness.stat("cetd/metadata_missing_count/tags") == 1
    assert harness.stat("cetd/field_kept_count/confidence") == 1
    assert harness.stat("cetd/metadata_undeclared_count/published") == 1
    empties: tuple[object, ...] = ([], (), {}, set(), "")
    for empty in empties:
        assert harness.run({"authors": empty}, page(META_PAGE))["authors"] == ["Jane Doe"]
    mine = harness.run(Story(url=URL, main_content_text="mine", authors=["Me"]), page(META_PAGE))
    assert (mine.main_content_text, mine.authors) == ("mine", ["Me"])
    assert harness.stat("cetd/metadata_kept_count/authors") == 1
    assert harness.stat("cetd/field_kept_count/main_content_text") == 1
    assert harness.stat("cetd/metadata_count/authors") == 6
    failed = harness.run(Story(main_content_text="mine"), page(""))  # spared on a failure too
    assert failed.main_content_text == "mine"
    assert harness.stat("cetd/field_kept_count/main_content_text") == 2


def test_an_item_class_may_declare_metadata_fields_alone(caplog: pytest.LogCaptureFixture) -> None:
    class Dated(scrapy.Item):
        url = scrapy.Field()
        date = scrapy.Field()

    content_off = {"CETD_HTML_FIELD": None, "CETD_TEXT_FIELD": None}
    harness = Harness(**content_off, CETD_METADATA_FIELDS={"published": "date"})
    item = harness.run(Dated(url=URL), page(META_PAGE))
    assert dict(item) == {"url": URL, "date": "2011-03-14T08:00:00Z"}
    assert harness.stat("cetd/item_extracted_count") == 1
    every_off = {**content_off, "CETD_TITLE_FIELD": None, "CETD_PAGE_TYPE_FIELD": None}
    alone = Harness(**every_off, CETD_METADATA_FIELDS={"published": "date"})
    assert dict(alone.run(Dated(url=URL), page(META_PAGE)))["date"] == "2011-03-14T08:00:00Z"
    with caplog.at_level(logging.WARNING):  # a class that can hold nothing the pipeline writes
        assert dict(harness.run(BareItem(url=URL), page(META_PAGE))) == {"url": URL}
    assert harness.stat("cetd/item_skipped_count/missing_fields") == 1
    message = caplog.records[0].getMessage()
    assert "BareItem declares none of the fields" in message and "date" in message


def test_a_metadata_field_the_item_class_lacks_is_counted_and_told_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Dated(scrapy.Item):
        main_content_html = scrapy.Field()
        main_content_text = scrapy.Field()
        date = scrapy.Field()

    harness = Harness(CETD_METADATA_FIELDS={"published": "dat"})  # misspelt
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            assert "dat" not in harness.run(Dated(), page(META_PAGE))
    assert harness.stat("cetd/metadata_undeclared_count/published") == 3
    assert harness.stat("cetd/metadata_count/published") is None
    told = [r.getMessage() for r in caplog.records if "declares no field dat" in r.getMessage()]
    assert told == [
        "scrapy-cetd: Dated declares no field dat for the metadata's published: not written"
        " (declare it, or send published to another field in CETD_METADATA_FIELDS)"
    ]


def test_a_chosen_field_the_item_class_lacks_is_counted_and_told_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """CETD_MARKDOWN_FIELD and CETD_PAGE_TYPE_CONFIDENCE_FIELD are set only by a user who wants
    them: a declared class without the field (a misspelt name) is told of, as a metadata field
    is, and counted; the title and page-type fields, on by default, stay optional."""

    @dataclasses.dataclass
    class Page:
        url: str | None = None
        markdown: str | None = None
        main_content_html: str | None = None
        main_content_text: str | None = None

    harness = Harness(CETD_MARKDOWN_FIELD="md", CETD_PAGE_TYPE_CONFIDENCE_FIELD="confidence")
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            item = harness.run(Page(url=URL), page(META_PAGE))
            assert item.markdown is None
    assert harness.stat("cetd/field_undeclared_count/md") == 3
    assert harness.stat("cetd/field_undeclared_count/confidence") == 3
    assert harness.stat("cetd/field_undeclared_count/main_content_title") is None
    assert [r.getMessage() for r in caplog.records] == [
        "scrapy-cetd: Page declares no field md for CETD_MARKDOWN_FIELD: not written (declare"
        " it, or set CETD_MARKDOWN_FIELD to a field it declares)",
        "scrapy-cetd: Page declares no field confidence for CETD_PAGE_TYPE_CONFIDENCE_FIELD: not"
        " written (declare it, or set CETD_PAGE_TYPE_CONFIDENCE_FIELD to a field it declares)",
    ]
    caplog.clear()
    with caplog.at_level(logging.WARNING):  # a dict holds every field: nothing to tell
        assert Harness(CETD_MARKDOWN_FIELD="md").run({}, page(META_PAGE))["md"]
    assert not caplog.records


class SourceItem(scrapy.Item):
    url = scrapy.Field()
    raw = scrapy.Field()
    main_content_html = scrapy.Field()
    main_content_text = scrapy.Field()


@dataclasses.dataclass
class SourceDataclass:
    url: str
    raw: bytes | str | None = None
    main_content_html: str | None = None
    main_content_text: str | None = None


@pytest.mark.parametrize("kind", [dict, SourceItem, SourceDataclass])
def test_drop_source_removes_the_source_field_once_used(kind: Any) -> None:
    harness = Harness(CETD_SOURCE_FIELD="raw", CETD_DROP_SOURCE=True)
    item = harness.run(kind(url=URL, raw=STORM_PAGE.encode("cp1252")))
    adapter = ItemAdapter(item)
    assert adapter["main_content_text"] == EXPECTED.text
    if kind is SourceDataclass:
        assert item.raw is None  # a dataclass field cannot be deleted
    else:
        assert "raw" not in adapter


def test_the_source_field_keeps_its_text_and_loses_its_bytes() -> None:
    harness = Harness(CETD_SOURCE_FIELD="raw")
    body = '<html><head><meta charset="windows-1252"></head><body><p>caf\xe9</p></body></html>'
    item = harness.run({"url": URL, "raw": body.encode("cp1252")})
    assert item["raw"] == body
    # Not needed (the response is linked), still made text; a str is left as it is.
    item = harness.run({"url": URL, "raw": STORM_PAGE.encode()}, page())
    assert item["raw"] == STORM_PAGE
    assert item["main_content_text"] == EXPECTED.text
    assert harness.run({"url": URL, "raw": "<p>x</p>"}, page())["raw"] == "<p>x</p>"
    # dont_cetd leaves the item alone, bytes included.
    assert harness.run({"raw": b"<p>x</p>"}, page(dont_cetd=True)) == {"raw": b"<p>x</p>"}


def test_the_source_field_holding_the_response_body_gets_the_response_text() -> None:
    body = ("<html><body>" + "<p>Caf\xe9 cr\xe8me, na\xefve d\xe9j\xe0 vu.</p>" * 50).encode(
        "cp1252"
    )
    response = HtmlResponse(
        URL, body=body, headers={"Content-Type": "text/html; charset=windows-1252"}
    )
    item = Harness(CETD_SOURCE_FIELD="raw").run({"url": URL, "raw": body}, response)
    assert item["raw"] == response.text
    assert "Caf\xe9 cr\xe8me" in item["raw"]

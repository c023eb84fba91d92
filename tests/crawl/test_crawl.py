"""Integration: real crawls (``Crawler.crawl_async()``) of a site served on 127.0.0.1."""

from __future__ import annotations

import gc
import importlib
import json
import logging
import re
import weakref
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import parsel.selector
import pytest
import scrapy
from crawlkit import NewsItem, article, crawl, make_crawler, make_items, serve
from itemadapter import ItemAdapter
from scrapy.http import Response, TextResponse

import scrapy_cetd
import scrapy_cetd.crawl
from scrapy_cetd.crawl.linking import ItemResponseLinks

ARTICLES = [f"a{n}.html" for n in range(1, 6)]
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A small news site: an index, five articles and pages that go wrong in every way."""
    root = tmp_path_factory.mktemp("site")
    links = "".join(f'<li><a href="{name}">{name}</a></li>' for name in ARTICLES)
    (root / "index.html").write_text(f"<html><body><ul>{links}</ul></body></html>")
    for n, name in enumerate(ARTICLES, 1):
        (root / name).write_text(article(f"Story number {n}"))
    (root / "data.json").write_text('{"title": "not a page"}')
    (root / "pic.png").write_bytes(PNG)
    (root / "empty.html").write_bytes(b"")
    (root / "boom.html").write_text(article("Boom"))
    (root / "hollow.html").write_text(article("Hollow"))
    (root / "big.html").write_text(article("Big " * 2000))
    (root / "dont.html").write_text(article("Leave me alone"))
    (root / "hexmeta.html").write_text(
        article("Hex label").replace("<head>", '<head><meta charset="hex">')
    )
    with serve(root) as base:
        yield root, base


class NewsSpider(scrapy.Spider):
    """Index → articles, as a news crawl does; reads every page with ``response.css()``."""

    name = "news"

    def __init__(self, base: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = base
        self.responses: list[weakref.ref[Response]] = []

    async def start(self) -> AsyncIterator[Any]:
        yield scrapy.Request(self.base + "index.html")

    def parse(self, response: Response) -> Iterator[Any]:
        self.responses.append(weakref.ref(response))
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.parse_article)

    def parse_article(self, response: Response) -> Iterator[Any]:
        self.responses.append(weakref.ref(response))
        assert response.css("title::text").get()
        yield from make_items(response.url)


def test_addon_fills_every_kind_of_item_and_leaks_nothing(site: tuple[Path, str]) -> None:
    root, base = site
    crawler = make_crawler(NewsSpider, {"ADDONS": {"scrapy_cetd.Addon": 100}})
    result = crawl(crawler, base=base)

    assert len(result.items) == 4 * len(ARTICLES)
    kinds = {type(item).__name__ for item in result.items}
    assert kinds == {"dict", "NewsItem", "NewsDataclass", "NewsAttrs"}
    for item in result.items:
        adapter = ItemAdapter(item)
        url = adapter["url"]
        expected = scrapy_cetd.extract((root / url.rsplit("/", 1)[1]).read_bytes(), url=url)
        assert expected.text and "heavy rain" in expected.text
        assert adapter["main_content_text"] == expected.text
        assert adapter["main_content_html"] == expected.html

    stats = result.stats
    assert stats["cetd/response_count"] == 1 + len(ARTICLES)
    assert stats["cetd/item_extracted_count"] == len(result.items)
    assert stats["cetd/extract_seconds"] > 0
    assert not any(key.startswith("cetd/item_skipped_count") for key in stats)
    # No leak: every link was taken, none was left at spider close, and nothing kept the
    # responses (or their DOMs) alive once the crawl was over.
    assert len(ItemResponseLinks.for_crawler(crawler)) == 0
    assert "cetd/link_leftover_count" not in stats
    assert "cetd/link_evicted_count" not in stats
    spider = crawler.spider
    assert isinstance(spider, NewsSpider)
    assert len(spider.responses) == 1 + len(ARTICLES)
    gc.collect()
    assert all(ref() is None for ref in spider.responses)


@pytest.mark.parametrize("eager", [False, True])
def test_spider_and_pipeline_share_one_parse_per_page(
    site: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, eager: bool
) -> None:
    _, base = site
    parsed: list[str | None] = []
    create_root_node = parsel.selector.create_root_node

    def counting(*args: Any, **kwargs: Any) -> Any:
        parsed.append(kwargs.get("base_url"))
        return create_root_node(*args, **kwargs)

    monkeypatch.setattr(parsel.selector, "create_root_node", counting)
    settings = {"ADDONS": {"scrapy_cetd.Addon": 100}, "CETD_EAGER_PARSE": eager}
    result = crawl(make_crawler(NewsSpider, settings), base=base)

    pages = 1 + len(ARTICLES)
    assert result.stats["cetd/item_extracted_count"] == 4 * len(ARTICLES)
    # The spider's response.css() and four extractions per article page: one parse per page.
    assert len(parsed) == pages
    assert len(set(parsed)) == pages


class MixedSpider(scrapy.Spider):
    """One dict item per page, whatever the page is; two items from ``start()``."""

    name = "mixed"

    def __init__(self, base: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = base

    async def start(self) -> AsyncIterator[Any]:
        for name in ("a1.html", "data.json", "pic.png", "empty.html", "boom.html"):
            yield scrapy.Request(self.base + name)
        for name in ("hollow.html", "big.html"):
            yield scrapy.Request(self.base + name)
        yield scrapy.Request(self.base + "dont.html", meta={"dont_cetd": True})
        yield {"url": self.base + "raw", "html": article("From the item")}
        yield {"url": self.base + "nothing"}

    def parse(self, response: Response) -> Iterator[Any]:
        if isinstance(response, TextResponse) and response.url.endswith(".html"):
            response.css("title")
        yield {"url": response.url}


def test_bad_pages_pass_through_with_stats_and_one_warning_each(
    site: tuple[Path, str], caplog: pytest.LogCaptureFixture
) -> None:
    _, base = site
    settings = {  # the components enabled by hand, a user extractor, a raw-HTML fallback
        "DOWNLOADER_MIDDLEWARES": {"scrapy_cetd.CETDDownloaderMiddleware": 540},
        "SPIDER_MIDDLEWARES": {"scrapy_cetd.CETDSpiderMiddleware": 10},
        "ITEM_PIPELINES": {"scrapy_cetd.CETDPipeline": 300},
        "CETD_ALGORITHM": "crawlkit.BoomExtractor",
        "CETD_OPTIONS": {"inner": "cetd-ds"},
        "CETD_MAX_BODY_SIZE": 5000,
        "CETD_SOURCE_FIELD": "html",
    }
    crawler = make_crawler(MixedSpider, settings)
    with caplog.at_level(logging.WARNING, logger="scrapy_cetd"):
        result = crawl(crawler, base=base)

    by_name = {ItemAdapter(item)["url"].rsplit("/", 1)[1]: item for item in result.items}
    assert set(by_name) == {
        "a1.html", "data.json", "pic.png", "empty.html", "boom.html", "hollow.html",
        "big.html", "dont.html", "raw", "nothing",
    }  # fmt: skip
    assert not result.dropped
    assert "heavy rain" in by_name["a1.html"]["main_content_text"]
    assert "From the item" in by_name["raw"]["main_content_text"]
    for name in ("data.json", "pic.png", "empty.html", "boom.html", "hollow.html", "big.html"):
        assert by_name[name]["main_content_text"] == "", name
        assert by_name[name]["main_content_html"] == "", name
    assert "main_content_text" not in by_name["dont.html"]

    stats = result.stats
    assert stats["cetd/response_count"] == 4  # a1, empty, boom, hollow
    assert stats["cetd/response_skipped_count/not_html"] == 2
    assert stats["cetd/response_skipped_count/too_large"] == 1
    assert stats["cetd/response_skipped_count/dont_cetd"] == 1
    assert stats["cetd/item_extracted_count"] == 2  # a1 and the raw-HTML item
    assert stats["cetd/item_empty_count"] == 2  # empty and hollow
    assert stats["cetd/item_error_count"] == 1  # boom
    assert stats["cetd/item_skipped_count/not_html"] == 2
    assert stats["cetd/item_skipped_count/too_large"] == 1
    assert stats["cetd/item_skipped_count/dont_cetd"] == 1
    assert stats["cetd/item_skipped_count/no_source"] == 1
    assert stats["item_scraped_count"] == 10

    warnings = [r.getMessage() for r in caplog.records if r.name == "scrapy_cetd.crawl.pipeline"]
    assert len(warnings) == 7  # one per failing item, none for dont_cetd
    for name in ("data.json", "pic.png", "empty.html", "boom.html", "hollow.html", "big.html"):
        assert sum(base + name in message for message in warnings) == 1, name
    assert any("boom" in message and "extractor failed" in message for message in warnings)
    assert len(ItemResponseLinks.for_crawler(crawler)) == 0


class LoggedSpider(MixedSpider):
    """An article and an empty page, each giving a declared item that lacks ``date``."""

    async def start(self) -> AsyncIterator[Any]:
        for name in ("a1.html", "empty.html"):
            yield scrapy.Request(self.base + name)

    def parse(self, response: Response) -> Iterator[Any]:
        yield NewsItem(url=response.url)


def test_the_parent_logger_filters_every_message_whichever_module_logs_it(
    site: tuple[Path, str], caplog: pytest.LogCaptureFixture
) -> None:
    """What docs/scrapy.md tells users to filter on: the messages of the pipeline and of the
    item fields come from loggers of their own, both under ``scrapy_cetd``."""
    _, base = site
    settings = {
        "ADDONS": {"scrapy_cetd.Addon": 100},
        "CETD_METADATA_FIELDS": {"published": "date"},  # NewsItem declares no date
    }
    with caplog.at_level(logging.WARNING):
        crawl(make_crawler(LoggedSpider, settings), base=base)
    ours = [(r.name, r.getMessage()) for r in caplog.records if r.name.startswith("scrapy_cetd")]
    assert {name for name, _ in ours} == {"scrapy_cetd.crawl.pipeline", "scrapy_cetd.crawl.fields"}
    assert [message for name, message in ours if name.endswith(".fields")] == [
        "scrapy-cetd: NewsItem declares no field date for the metadata's published: not written"
        " (declare it, or send published to another field in CETD_METADATA_FIELDS)"
    ]
    assert any("empty.html: no main content" in message for _, message in ours)
    caplog.clear()
    parent = logging.getLogger("scrapy_cetd")
    level = parent.level
    parent.setLevel(logging.ERROR)
    try:
        with caplog.at_level(logging.WARNING):
            crawl(make_crawler(LoggedSpider, settings), base=base)
    finally:
        parent.setLevel(level)
    assert not [r for r in caplog.records if r.name.startswith("scrapy_cetd")]


def test_the_docs_name_the_logger_of_every_crawl_module_that_logs() -> None:
    """Each crawl module logs under its own name, and docs/scrapy.md lists every such logger
    (and no other) in the table of what each one logs."""
    folder = Path(scrapy_cetd.crawl.__file__).parent
    loggers = {}
    for path in sorted(folder.glob("*.py")):
        module = importlib.import_module(f"scrapy_cetd.crawl.{path.stem}")
        if isinstance(getattr(module, "logger", None), logging.Logger):
            loggers[module.__name__] = module.logger.name
    assert loggers and all(name == logger for name, logger in loggers.items())
    page = (folder.parents[1] / "docs" / "scrapy.md").read_text(encoding="utf-8")
    section = page.split("### Filtering scrapy-cetd's messages", 1)[1].split("\n## ", 1)[0]
    table = re.findall(r"^\| `(scrapy_cetd\.[\w.]+)` \|", section, re.MULTILINE)
    assert sorted(table) == sorted(loggers)
    assert 'logging.getLogger("scrapy_cetd")' in section


def test_drop_empty_drops_items_without_main_content(site: tuple[Path, str]) -> None:
    _, base = site

    class Spider(MixedSpider):
        async def start(self) -> AsyncIterator[Any]:
            for name in ("a1.html", "empty.html", "data.json"):
                yield scrapy.Request(self.base + name)
            yield scrapy.Request(self.base + "dont.html", meta={"dont_cetd": True})

    settings = {"ADDONS": {"scrapy_cetd.Addon": 100}, "CETD_DROP_EMPTY": True}
    result = crawl(make_crawler(Spider, settings), base=base)

    kept = sorted(ItemAdapter(item)["url"].rsplit("/", 1)[1] for item in result.items)
    assert kept == ["a1.html", "dont.html"]
    reasons = {ItemAdapter(item)["url"].rsplit("/", 1)[1]: why for item, why in result.dropped}
    assert set(reasons) == {"empty.html", "data.json"}
    assert "no main content" in reasons["empty.html"]
    assert "not HTML" in reasons["data.json"]
    assert result.stats["item_dropped_count"] == 2


def test_a_page_whose_meta_charset_names_no_text_encoding_gives_its_item(
    site: tuple[Path, str],
) -> None:
    _, base = site

    class Spider(MixedSpider):
        async def start(self) -> AsyncIterator[Any]:
            yield scrapy.Request(self.base + "hexmeta.html")

        def parse(self, response: Response) -> Iterator[Any]:
            yield {"url": response.url, "title": response.css("title::text").get()}

    result = crawl(make_crawler(Spider, {"ADDONS": {"scrapy_cetd.Addon": 100}}), base=base)
    [item] = result.items
    assert item["title"] == "Hex label"
    assert "heavy rain" in item["main_content_text"]
    assert result.stats["cetd/response_charset_ignored_count"] == 1


class OnePageSpider(scrapy.Spider):
    """Fetches ``page`` and yields one dict item for it."""

    name = "one_page"

    def __init__(self, base: str, page: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = base
        self.page = page

    async def start(self) -> AsyncIterator[Any]:
        yield scrapy.Request(self.base + self.page)

    def parse(self, response: Response) -> Iterator[Any]:
        yield {"url": response.url}


@pytest.mark.parametrize("isolation", ["threads", "process"])
def test_a_crawl_writes_metadata_markdown_and_absolute_links(
    tmp_path: Path, isolation: str
) -> None:
    head = (
        '<head><title>Story | Example News</title><base href="/news/">'
        '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Story",'
        ' "datePublished": "2024-05-06", "author": {"@type": "Person", "name": "Ann Lee"}}'
        "</script>"
    )
    (tmp_path / "story.html").write_text(article("Story").replace("<head>", head, 1))
    with serve(tmp_path) as base:
        crawler = make_crawler(
            OnePageSpider,
            {
                "ADDONS": {"scrapy_cetd.Addon": 100},
                "CETD_ISOLATION": isolation,
                "CETD_WORKERS": 1,
                "CETD_METADATA_FIELDS": {"published": "date", "authors": "author"},
                "CETD_MARKDOWN_FIELD": "markdown",
            },
        )
        result = crawl(crawler, base=base, page="story.html")
    (item,) = result.items
    assert item["date"] == "2024-05-06"
    assert item["author"] == ["Ann Lee"]
    assert item["markdown"].startswith("# Story\n\nStory: heavy rain")
    assert f"[local reports]({base}x)" in item["markdown"]
    assert f'<a href="{base}x">local reports</a>' in item["main_content_html"]
    assert "heavy rain" in item["main_content_text"]
    assert result.stats["cetd/metadata_count/published"] == 1


class MirrorSpider(OnePageSpider):
    """Fetches ``page`` from a mirror, giving its own address in the ``cetd_url`` meta key."""

    async def start(self) -> AsyncIterator[Any]:
        own = "https://news.example.com/2024/03/12/budget.html"
        yield scrapy.Request(self.base + self.page, meta={"cetd_url": own})


@pytest.mark.parametrize("isolation", ["threads", "process"])
def test_the_cetd_url_meta_key_gives_the_page_its_own_url(tmp_path: Path, isolation: str) -> None:
    head = '<head><title>Budget</title><link rel="canonical" href="/2024/03/12/budget.html">'
    (tmp_path / "budget.html").write_text(article("Budget").replace("<head>", head, 1))
    with serve(tmp_path) as base:
        crawler = make_crawler(
            MirrorSpider,
            {
                "ADDONS": {"scrapy_cetd.Addon": 100},
                "CETD_ISOLATION": isolation,
                "CETD_WORKERS": 1,
                # the worker processes' loading of the metadata's libraries, slow on a loaded
                # machine, is left to the test of the metadata: the links show the URL too
                "CETD_METADATA_FIELDS": ["canonical_url"] if isolation == "threads" else None,
            },
        )
        result = crawl(crawler, base=base, page="budget.html")
    (item,) = result.items
    assert item["url"] == base + "budget.html"  # the spider's and Scrapy's URL is the fetched one
    assert '<a href="https://news.example.com/x">' in item["main_content_html"]
    if isolation == "threads":
        assert item["canonical_url"] == "https://news.example.com/2024/03/12/budget.html"


class SourceSpider(scrapy.Spider):
    """Items with the page's raw bytes in ``html``: three from ``start()`` (no response), and
    one per article whose response is linked (the field is then not needed)."""

    name = "source"

    def __init__(self, base: str, pages: dict[str, bytes], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = base
        self.pages = pages

    async def start(self) -> AsyncIterator[Any]:
        for name, body in self.pages.items():
            yield {"url": self.base + name, "html": body, "from": "start"}
        yield scrapy.Request(self.base + ARTICLES[0], callback=self.parse_article)

    def parse_article(self, response: Response) -> Iterator[dict[str, Any]]:
        yield {"url": response.url, "html": response.body, "from": "response"}


@pytest.mark.parametrize("drop_source", [False, True])
def test_bytes_in_the_source_field_reach_a_json_feed(
    site: tuple[Path, str], tmp_path: Path, drop_source: bool
) -> None:
    root, base = site
    pages = {name: (root / name).read_bytes() for name in ARTICLES[1:4]}
    feed = tmp_path / "items.json"
    settings = {
        "ADDONS": {"scrapy_cetd.Addon": 100},
        "CETD_SOURCE_FIELD": "html",
        "CETD_DROP_SOURCE": drop_source,
        "FEEDS": {str(feed): {"format": "json"}},
    }
    result = crawl(make_crawler(SourceSpider, settings), base=base, pages=pages)
    assert len(result.items) == 4
    exported = json.loads(feed.read_text(encoding="utf-8"))
    assert len(exported) == 4
    for item in exported:
        page = root / item["url"].rsplit("/", 1)[1]
        assert item["main_content_text"] == scrapy_cetd.extract(page.read_bytes()).text
        if drop_source:
            assert "html" not in item
        else:
            assert item["html"] == page.read_text(encoding="utf-8")
    assert sorted(item["from"] for item in exported) == ["response", "start", "start", "start"]
    assert result.stats["cetd/item_extracted_count"] == 4


class ListingSpider(scrapy.Spider):
    """The index as a listing page: one record item per link, yielded by a callback marked
    with :func:`scrapy_cetd.dont_cetd` (``parse``) or by an unmarked one (``parse_plain``);
    and each article's item, whose page is its main content."""

    name = "listing"

    def __init__(self, base: str, callback: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = base
        self.callback = callback

    async def start(self) -> AsyncIterator[Any]:
        callback = None if self.callback == "parse" else getattr(self, self.callback)
        yield scrapy.Request(self.base + "index.html", callback=callback)

    @scrapy_cetd.dont_cetd
    def parse(self, response: Response) -> Iterator[Any]:
        yield from self.parse_plain(response)

    def parse_plain(self, response: Response) -> Iterator[Any]:
        for record in response.css("li"):
            yield {"record": record.css("a::text").get(), "url": response.url}
        yield response.follow(ARTICLES[0], self.parse_article)

    def parse_article(self, response: Response) -> Iterator[dict[str, Any]]:
        yield {"url": response.url}


def test_a_callback_marked_dont_cetd_yields_records_without_the_pages_content(
    site: tuple[Path, str], caplog: pytest.LogCaptureFixture
) -> None:
    _, base = site
    settings = {"ADDONS": {"scrapy_cetd.Addon": 100}}
    with caplog.at_level(logging.WARNING):
        marked = crawl(make_crawler(ListingSpider, settings), base=base, callback="parse")
    records = [item for item in marked.items if "record" in item]
    assert len(records) == len(ARTICLES)
    assert not [item for item in records if "main_content_text" in item]
    (story,) = [item for item in marked.items if "record" not in item]
    assert "Story number 1" in story["main_content_text"]
    assert marked.stats["cetd/item_skipped_count/dont_cetd"] == len(ARTICLES)
    assert marked.stats["cetd/response_skipped_count/dont_cetd"] == 1
    assert not [r for r in caplog.records if r.name.startswith("scrapy_cetd")]

    # Unmarked, every record gets the main content of the whole listing page.
    plain = crawl(make_crawler(ListingSpider, settings), base=base, callback="parse_plain")
    records = [item for item in plain.items if "record" in item]
    assert len(records) == len(ARTICLES)
    assert all(item["main_content_text"] == records[0]["main_content_text"] for item in records)
    assert "a1.html" in records[0]["main_content_text"]


class RulesSpider(scrapy.spiders.CrawlSpider):
    """A CrawlSpider whose one rule sends each article to ``parse_records``, a callback
    marked with :func:`scrapy_cetd.dont_cetd` that yields two record items per page."""

    name = "rules"
    rules = (
        scrapy.spiders.Rule(
            scrapy.linkextractors.LinkExtractor(allow=r"/a\d\.html$"), callback="parse_records"
        ),
    )

    def __init__(self, base: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = base

    async def start(self) -> AsyncIterator[Any]:
        yield scrapy.Request(self.base + "index.html")

    @scrapy_cetd.dont_cetd
    def parse_records(self, response: Response) -> Iterator[dict[str, Any]]:
        for part in ("first", "second"):
            yield {"record": part, "url": response.url}


def test_the_mark_reaches_the_callback_of_a_crawlspider_rule(site: tuple[Path, str]) -> None:
    _, base = site
    result = crawl(make_crawler(RulesSpider, {"ADDONS": {"scrapy_cetd.Addon": 100}}), base=base)
    assert len(result.items) == 2 * len(ARTICLES)
    assert not [item for item in result.items if "main_content_text" in item]
    assert result.stats["cetd/item_skipped_count/dont_cetd"] == 2 * len(ARTICLES)
    assert result.stats["cetd/response_skipped_count/dont_cetd"] == len(ARTICLES)

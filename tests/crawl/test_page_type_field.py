"""Integration: the page type in real crawls (``main_content_page_type`` and its stats) of a
site served on 127.0.0.1, classified or forced through ``CETD_OPTIONS``."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import scrapy
from crawlkit import article, crawl, make_crawler, serve, unit_crawler
from pagetypekit import HAND_MADE
from scrapy.http import Response
from scrapy.utils.misc import build_from_crawler

import scrapy_cetd
from scrapy_cetd import PAGE_TYPES, CETDPipeline

PAGES = {
    "story.html": article("Storm hits the coast"),
    "shop.html": (
        "<html><head><title>Trail runner 3</title></head><body><main class='product'>"
        "<h1 class='product-title'>Trail runner 3</h1><p class='price'>$129.00</p>"
        "<form class='product-form' action='/cart/add'><select name='size'><option>42"
        "</option></select><input type='number' name='quantity' value='1'>"
        "<button class='add-to-cart'>Add to cart</button></form><p>A light shoe for rocky "
        "trails with a grippy sole and a breathable upper, made to last.</p></main>"
        "</body></html>"
    ),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    root = tmp_path_factory.mktemp("typed-site")
    for name, html in PAGES.items():
        (root / name).write_text(html)
    with serve(root) as base:
        yield root, base


class PagesSpider(scrapy.Spider):
    """One dict item per page of :data:`PAGES`."""

    name = "pages"

    def __init__(self, base: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = base

    async def start(self) -> AsyncIterator[Any]:
        for name in PAGES:
            yield scrapy.Request(self.base + name)

    def parse(self, response: Response) -> Iterator[dict[str, Any]]:
        yield {"url": response.url}


def test_every_item_gets_the_type_cetd_plus_gives_and_a_stat_per_type(
    site: tuple[Path, str],
) -> None:
    root, base = site
    settings = {"ADDONS": {"scrapy_cetd.Addon": 100}, "CETD_OPTIONS": {"detect_page_type": True}}
    result = crawl(make_crawler(PagesSpider, settings), base=base)

    assert len(result.items) == len(PAGES)
    expected: dict[str, int] = {}
    for item in result.items:
        url = item["url"]
        source = (root / url.rsplit("/", 1)[1]).read_bytes()
        page_type = scrapy_cetd.extract(source, url=url, detect_page_type=True)
        assert page_type.page_type in PAGE_TYPES
        assert item["main_content_page_type"] == page_type.page_type
        expected[page_type.page_type] = expected.get(page_type.page_type, 0) + 1
    found = {
        key.removeprefix("cetd/page_type/"): value
        for key, value in result.stats.items()
        if key.startswith("cetd/page_type/")
    }
    assert found == expected


def test_the_confidence_goes_to_its_field_when_asked_for(site: tuple[Path, str]) -> None:
    root, base = site
    settings = {
        "ADDONS": {"scrapy_cetd.Addon": 100},
        "CETD_PAGE_TYPE_CONFIDENCE_FIELD": "page_type_confidence",
    }
    result = crawl(make_crawler(PagesSpider, settings), base=base)
    assert len(result.items) == len(PAGES)
    for item in result.items:
        url = item["url"]
        expected = scrapy_cetd.extract((root / url.rsplit("/", 1)[1]).read_bytes(), url=url)
        assert item["page_type_confidence"] == expected.page_type_confidence
        assert isinstance(item["page_type_confidence"], float)
    default = crawl(make_crawler(PagesSpider, {"ADDONS": {"scrapy_cetd.Addon": 100}}), base=base)
    assert all("page_type_confidence" not in item for item in default.items)  # off by default


def docs_block(defining: str) -> str:
    """The Python block of docs/page-types.md that holds ``defining``."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "page-types.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    return next(str(block) for block in blocks if defining in block)


class TypedPagesSpider(PagesSpider):
    """One dict item per page of :data:`TYPED`."""

    async def start(self) -> AsyncIterator[Any]:
        for name in TYPED:
            yield scrapy.Request(self.base + name)


TYPED = {
    "story.html": PAGES["story.html"],
    "thread.html": HAND_MADE["forum"][0],
    "reference.html": HAND_MADE["documentation"][0],
}


def test_the_docs_recipe_keeps_only_articles(tmp_path: Path) -> None:
    """The pipeline of docs/page-types.md, with the settings it shows, in a real crawl: the
    article goes on, the thread and the documentation page are dropped."""
    for name, html in TYPED.items():
        (tmp_path / name).write_text(html)
    recipe: dict[str, Any] = {}
    exec(docs_block("class KeepArticles"), recipe)
    settings: dict[str, Any] = {}
    exec(docs_block("ITEM_PIPELINES"), settings)
    keep = recipe["KeepArticles"]
    chosen = {
        "ADDONS": settings["ADDONS"],
        "CETD_PAGE_TYPE_CONFIDENCE_FIELD": settings["CETD_PAGE_TYPE_CONFIDENCE_FIELD"],
        "ITEM_PIPELINES": {keep: 400},
    }
    with serve(tmp_path) as base:
        result = crawl(make_crawler(TypedPagesSpider, chosen), base=base)
    assert [item["url"].rsplit("/", 1)[1] for item in result.items] == ["story.html"]
    assert result.items[0]["main_content_page_type"] == "article"
    assert result.stats["item_dropped_count"] == 2
    assert result.stats["cetd/page_type/forum"] == result.stats["cetd/page_type/documentation"] == 1


def test_the_type_forced_in_cetd_options_goes_to_every_item(site: tuple[Path, str]) -> None:
    _, base = site
    settings = {
        "ADDONS": {"scrapy_cetd.Addon": 100},
        "CETD_OPTIONS": {"page_type": "collection"},
        "CETD_PAGE_TYPE_FIELD": "kind_of_page",
    }
    result = crawl(make_crawler(PagesSpider, settings), base=base)

    assert [item["kind_of_page"] for item in result.items] == ["collection"] * len(PAGES)
    assert all("main_content_page_type" not in item for item in result.items)
    assert result.stats["cetd/page_type/collection"] == len(PAGES)


def test_the_type_by_default_none_writes_no_field_and_other_algorithms_an_empty_one(
    site: tuple[Path, str],
) -> None:
    root, base = site
    default = crawl(make_crawler(PagesSpider, {"ADDONS": {"scrapy_cetd.Addon": 100}}), base=base)
    for item in default.items:
        url = item["url"]
        source = (root / url.rsplit("/", 1)[1]).read_bytes()
        assert item["main_content_page_type"] == scrapy_cetd.extract(source, url=url).page_type
        assert item["main_content_page_type"] in PAGE_TYPES
    classifier_off = {
        "ADDONS": {"scrapy_cetd.Addon": 100},
        "CETD_OPTIONS": {"detect_page_type": False},
    }
    result = crawl(make_crawler(PagesSpider, classifier_off), base=base)
    assert [item["main_content_page_type"] for item in result.items] == [""] * len(PAGES)
    off = {"ADDONS": {"scrapy_cetd.Addon": 100}, "CETD_PAGE_TYPE_FIELD": None}
    result = crawl(make_crawler(PagesSpider, off), base=base)
    assert all("main_content_page_type" not in item for item in result.items)
    assert all(item["main_content_text"] for item in result.items)

    other = {"ADDONS": {"scrapy_cetd.Addon": 100}, "CETD_ALGORITHM": "cetd-ds"}
    result = crawl(make_crawler(PagesSpider, other), base=base)
    assert [item["main_content_page_type"] for item in result.items] == [""] * len(PAGES)
    assert not any(key.startswith("cetd/page_type/") for key in result.stats)


def test_a_wrong_forced_type_stops_the_crawl_at_start_up() -> None:
    crawler = unit_crawler({"CETD_OPTIONS": {"page_type": "blog"}})
    with pytest.raises(ValueError, match="page_type must be one of"):
        build_from_crawler(CETDPipeline, crawler)

"""The example project's listing spider, crawled with and without TPS pruning."""

from __future__ import annotations

import sys
from pathlib import Path

from crawlkit import crawl, make_crawler, serve

SITE = Path(__file__).resolve().parent.parent / "example_project" / "site"
sys.path.insert(0, str(SITE.parent.parent))

from example_project.news.spiders.listing import ListingSpider  # noqa: E402

ADDON = {"ADDONS": {"scrapy_cetd.Addon": 100}}
"""The project's settings.py enables the add-on: the records must not get the page's content."""


def test_listing_spider_with_and_without_pruning() -> None:
    with serve(SITE) as base:
        pruned = crawl(make_crawler(ListingSpider, ADDON), base_url=base, prune="1").items
        raw = crawl(make_crawler(ListingSpider, ADDON), base_url=base, prune="0").items
    assert not [item for item in pruned + raw if "main_content_text" in item]

    assert len(pruned) == 10
    assert all(item["pruned"] for item in pruned)
    assert all(item["date"] and item["title"] and item["url"] for item in pruned)
    assert all("/news/" in item["url"] for item in pruned)
    assert pruned[0]["title"].startswith("Philadelphia")

    # Without pruning the same selector also finds the menus' list items.
    assert len(raw) > 5 * len(pruned)
    assert sum(1 for item in raw if item["date"]) == 10
    titles = {item["title"] for item in pruned}
    assert titles <= {item["title"] for item in raw}

"""The add-on: one ADDONS line wires the components in; user settings win."""

from __future__ import annotations

import pytest
from crawlkit import unit_crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import build_from_crawler

from scrapy_cetd import Addon, CETDDownloaderMiddleware, CETDPipeline, CETDSpiderMiddleware
from scrapy_cetd.crawl.middleware import CETDDecodingMiddleware

ADDONS = {"ADDONS": {"scrapy_cetd.Addon": 100}}


def test_addon_enables_the_components() -> None:
    settings = unit_crawler(ADDONS).settings
    assert settings.getdict("DOWNLOADER_MIDDLEWARES") == {
        CETDDecodingMiddleware: 585,
        CETDDownloaderMiddleware: 540,
    }
    assert settings.getdict("SPIDER_MIDDLEWARES") == {CETDSpiderMiddleware: 10}
    assert settings.getdict("ITEM_PIPELINES") == {CETDPipeline: 300}


def test_downloader_middleware_sees_the_final_response() -> None:
    """Below RetryMiddleware (550) and HttpCompressionMiddleware (590)."""
    settings = unit_crawler(ADDONS).settings
    order = build_component_list(settings.getwithbase("DOWNLOADER_MIDDLEWARES"))
    mine = order.index(CETDDownloaderMiddleware)
    assert mine < order.index("scrapy.downloadermiddlewares.retry.RetryMiddleware")
    compression = order.index(
        "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware"
    )
    assert mine < compression
    # The decoding middleware sees the decompressed body before MetaRefreshMiddleware reads
    # its text (process_response runs from the highest priority to the lowest).
    decoding = order.index(CETDDecodingMiddleware)
    refresh = order.index("scrapy.downloadermiddlewares.redirect.MetaRefreshMiddleware")
    assert refresh < decoding < compression


def test_user_priorities_and_disabling_win() -> None:
    settings = unit_crawler(
        {
            **ADDONS,
            "DOWNLOADER_MIDDLEWARES": {"scrapy_cetd.CETDDownloaderMiddleware": 530},
            "ITEM_PIPELINES": {"scrapy_cetd.crawl.pipeline.CETDPipeline": None},
        }
    ).settings
    assert settings.getdict("DOWNLOADER_MIDDLEWARES") == {
        "scrapy_cetd.CETDDownloaderMiddleware": 530,
        CETDDecodingMiddleware: 585,
    }
    assert settings.getdict("ITEM_PIPELINES") == {"scrapy_cetd.crawl.pipeline.CETDPipeline": None}
    assert settings.getdict("SPIDER_MIDDLEWARES") == {CETDSpiderMiddleware: 10}


def test_update_settings_keeps_other_components() -> None:
    settings = Settings({"ITEM_PIPELINES": {"scrapy.pipelines.files.FilesPipeline": 800}})
    Addon().update_settings(settings)
    assert settings.getdict("ITEM_PIPELINES") == {
        "scrapy.pipelines.files.FilesPipeline": 800,
        CETDPipeline: 300,
    }


@pytest.mark.parametrize(
    "component",
    [CETDDecodingMiddleware, CETDDownloaderMiddleware, CETDSpiderMiddleware, CETDPipeline],
)
def test_cetd_enabled_false_disables_every_component(component: type) -> None:
    crawler = unit_crawler({"CETD_ENABLED": False})
    with pytest.raises(NotConfigured):
        build_from_crawler(component, crawler)


def test_bad_settings_stop_the_crawl_at_start_up() -> None:
    for bad in (
        {"CETD_ALGORITHM": "no-such-algorithm"},
        {"CETD_ALGORITHM": "no_such_module.Extractor"},
        {"CETD_OPTIONS": {"no_such_option": 1}},
        {"CETD_MAX_BODY_SIZE": 0},
        {"CETD_TEXT_FIELD": 3},
    ):
        with pytest.raises(ValueError):
            build_from_crawler(CETDPipeline, unit_crawler(bad))

"""The Scrapy add-on: ``ADDONS = {"scrapy_cetd.Addon": 100}`` enables everything.

The add-on wires the components in and, unless the user has chosen one, the log formatter
that shortens long fields in the item log lines; every ``CETD_*`` setting has its default in
:mod:`scrapy_cetd.crawl.settings`, read by the components themselves, so the add-on and a by-hand
setup behave the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_cetd.crawl.logformatter import CETDLogFormatter
from scrapy_cetd.crawl.middleware import (
    CETDDecodingMiddleware,
    CETDDownloaderMiddleware,
    CETDSpiderMiddleware,
)
from scrapy_cetd.crawl.pipeline import CETDPipeline
from scrapy_cetd.crawl.settings import (
    DECODING_MIDDLEWARE_PRIORITY,
    DOWNLOADER_MIDDLEWARE_PRIORITY,
    PIPELINE_PRIORITY,
    SPIDER_MIDDLEWARE_PRIORITY,
    setting_bool,
)

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


class Addon:
    """Enables :class:`~scrapy_cetd.crawl.middleware.CETDDecodingMiddleware` (585),
    :class:`~scrapy_cetd.CETDDownloaderMiddleware` (540),
    :class:`~scrapy_cetd.CETDSpiderMiddleware` (10) and :class:`~scrapy_cetd.CETDPipeline`
    (300), and sets ``LOG_FORMATTER`` to
    :class:`~scrapy_cetd.crawl.logformatter.CETDLogFormatter` (with ``CETD_ENABLED`` true).

    A component the user already lists (as a class or an import path, with any priority,
    including ``None`` to disable it) is left as the user set it, and ``LOG_FORMATTER`` is set
    at the ``"addon"`` priority, below the project's, the spider's and the command line's: user
    settings win.
    """

    def update_settings(self, settings: BaseSettings) -> None:
        """Add the components to the component priority dicts, unless already there."""
        for setting, component, priority in (
            ("DOWNLOADER_MIDDLEWARES", CETDDecodingMiddleware, DECODING_MIDDLEWARE_PRIORITY),
            ("DOWNLOADER_MIDDLEWARES", CETDDownloaderMiddleware, DOWNLOADER_MIDDLEWARE_PRIORITY),
            ("SPIDER_MIDDLEWARES", CETDSpiderMiddleware, SPIDER_MIDDLEWARE_PRIORITY),
            ("ITEM_PIPELINES", CETDPipeline, PIPELINE_PRIORITY),
        ):
            settings.setdefault_in_component_priority_dict(setting, component, priority)
        if setting_bool(settings, "CETD_ENABLED"):
            settings.set("LOG_FORMATTER", CETDLogFormatter, priority="addon")

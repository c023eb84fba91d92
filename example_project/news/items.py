"""The item of the example crawl: a news article and its main content."""

import scrapy


class Article(scrapy.Item):
    """One article page. The spider fills ``url``, ``title`` and ``source``; the scrapy-cetd
    pipeline fills ``main_content_html``, ``main_content_text`` and ``main_content_title``."""

    url = scrapy.Field()
    title = scrapy.Field()
    source = scrapy.Field()
    main_content_html = scrapy.Field()
    main_content_text = scrapy.Field()
    main_content_title = scrapy.Field()

"""The example Scrapy project: an offline news site crawled with the scrapy-cetd add-on."""

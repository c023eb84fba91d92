"""Settings of the example news crawl: the scrapy-cetd add-on and polite local crawling."""

BOT_NAME = "news"

SPIDER_MODULES = ["news.spiders"]
NEWSPIDER_MODULE = "news.spiders"

# The one line scrapy-cetd needs: the downloader middleware, the spider middleware (item ↔
# response links) and the pipeline that writes main_content_html / main_content_text.
ADDONS = {"scrapy_cetd.Addon": 100}

# scrapy-cetd's settings (all optional; these are the defaults, see the README).
CETD_ALGORITHM = "cetd-plus"
CETD_HTML_FIELD = "main_content_html"
CETD_TEXT_FIELD = "main_content_text"
CETD_TITLE_FIELD = "main_content_title"

# Writes the crawl's stats as JSON when STATS_JSON_PATH is set (the demo reads them).
EXTENSIONS = {"news.extensions.StatsToJson": 500}

ROBOTSTXT_OBEY = True
USER_AGENT = "news-example (+https://github.com/scrapy-cetd)"
CONCURRENT_REQUESTS_PER_DOMAIN = 8
TELNETCONSOLE_ENABLED = False
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"

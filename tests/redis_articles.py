"""The example project's article spider on a shared scrapy-redis frontier.

Run by ``tests/test_redis_crawl.py`` as ``scrapy runspider`` from ``example_project/``, so the
project's own settings apply (the scrapy-cetd add-on among them) and only the scrapy-redis
settings are added on the command line. The spider is ``ArticlesSpider`` unchanged; the
``RedisSpider`` base adds what several processes on one frontier need: while its process is
idle it keeps polling the shared queue, and it closes only once nothing came for
``MAX_IDLE_TIME_BEFORE_CLOSE`` seconds. A plain spider would close as soon as the shared queue
looked empty, possibly before another process had fed it.
"""

from news.spiders.articles import ArticlesSpider
from scrapy_redis.spiders import RedisSpider


class RedisArticlesSpider(RedisSpider, ArticlesSpider):
    """``ArticlesSpider`` (index → articles) as one of several processes of a crawl."""

    name = "articles_redis"

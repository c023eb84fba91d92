"""The main-content extractors: their shared base, one module per algorithm (cetd-plus a
subpackage of its steps, by role), and the page furniture that cetd-plus and TPS remove.

Each extractor takes a parsed page (an lxml tree) and returns an
:class:`~scrapy_cetd.result.ExtractionResult`; none of them knows about Scrapy's crawl
components.
"""

DEFAULT_ALGORITHM = "cetd-plus"
"""The algorithm of :func:`scrapy_cetd.extract`, of ``CETD_ALGORITHM`` and of the commands.

Defined here rather than in :mod:`scrapy_cetd.extractors.registry` so that a default can be
read (by the Scrapy settings) without importing every extractor."""

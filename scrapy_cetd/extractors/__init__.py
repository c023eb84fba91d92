"""The main-content extractors: their shared base, one module per algorithm, and cetd-plus's
page furniture.

Each extractor takes a parsed page (an lxml tree) and returns an
:class:`~scrapy_cetd.result.ExtractionResult`; none of them knows about Scrapy's crawl
components.
"""

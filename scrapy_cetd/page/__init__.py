"""The page every extractor reads: parsing as Scrapy parses, the visible view of the body, its
text densities, markup and words, and the rendering of what an extractor keeps.

The per-page passes run in the optional compiled module ``_speedups`` when it is built for the
installed lxml; :mod:`scrapy_cetd.page.accel` is the one module that loads it, and pairs each
compiled function with its pure-Python reference.
"""

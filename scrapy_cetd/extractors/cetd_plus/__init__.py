"""cetd-plus: CECTD-DS with what the page itself says about its structure.

The paper's CECTD-DS (:mod:`scrapy_cetd.extractors.cetd`) scores every element by composite
text density and keeps, across the whole body, each region whose density clears a threshold. On
modern news pages that also keeps navigation, related-article lists, comment threads and
footers, whose density is as high as the article's. cetd-plus keeps the CETD statistics and
DensitySum, and adds a few named heuristics, each an option that can be turned off. The gain of
each, measured by turning it off alone (BOW-F1 on ``shared/datasets``), is in
``docs/benchmarks.md``.

The modules, in layers import-linter checks: :mod:`.extractor` (the class: its options and
the order of its steps) > the steps every page goes through, each in the module of its role
(:mod:`.fallback`, :mod:`.content_forms`, :mod:`.narrowing`, :mod:`.headline`,
:mod:`.shell_prose`, :mod:`.link_blocks`, :mod:`.media`, :mod:`.permalinks`), the profiles of
the page types (:mod:`.profiles`) and the steps of each type (:mod:`.forum`, :mod:`.listing`,
:mod:`.product`, :mod:`.service`), with the regions that bound a page's content
(:mod:`.regions`) > what several of them share: the runs of records (:mod:`.record_runs`), the
repeated blocks (:mod:`.repeats`), the sections named by their attributes
(:mod:`.named_sections`) and the text a selection keeps (:mod:`.kept_text`). The page's
furniture (step 2) is :mod:`scrapy_cetd.extractors.furniture`, which TPS reads too.
"""

from scrapy_cetd.extractors.cetd_plus.extractor import CetdPlusExtractor

__all__ = ["CetdPlusExtractor"]

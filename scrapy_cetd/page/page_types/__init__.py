"""The page-type classifier: what kind of page a document is, from cheap signals of its tree
and its URL.

The seven types are WCXB's (:data:`PAGE_TYPES`). A page is described by a few dozen numbers
read in one pass over its visible elements (:mod:`.body`, :mod:`.links`): the shares of its
text in paragraphs, links, code blocks and tables, its headings, forms and prices, the records
its repeated siblings form (and whether each record holds a link, an image, a ``<time>``, a
heading), its links; and by the tokens it declares or is found under (:mod:`.tokens`), from a
vocabulary learned from training pages: schema.org / Open Graph types, ``itemprop`` and
``<meta property>`` names, class names' words, the folders of its URL path and its host's
subdomains (:mod:`.features` reads them all). A logistic regression and small boosted trees
(:mod:`.model`, trained by ``python -m benchmarks.page_types train``) turn them into a
probability per type (:mod:`.classify`).

The modules, in layers import-linter checks: :mod:`.classify` > :mod:`.features`,
:mod:`.model` > :mod:`.body`, :mod:`.links`, :mod:`.tokens` > :mod:`.labels`,
:mod:`.measures`, :mod:`.tags`.
"""

from scrapy_cetd.page.page_types.classify import classify_tree, classify_view
from scrapy_cetd.page.page_types.labels import PAGE_TYPES, PageType, check_page_type

__all__ = ["PAGE_TYPES", "PageType", "check_page_type", "classify_tree", "classify_view"]

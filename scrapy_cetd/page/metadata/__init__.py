"""What a page says about itself besides its text: headline, authors, dates, site, language.

:func:`page_metadata` reads the sources a news crawl relies on, in order of trust: JSON-LD
(``@graph`` included), microdata, the Open Graph / Twitter / ``article:*`` / ``citation_*`` and
Dublin Core ``<meta>`` tags, a byline next to the headline, and the publication date found by
htmldate; the language is the page's declared one checked against the text by py3langid.

Every step is linear in the page: the scripts and tags are found by one walk over the
attributes, each JSON-LD script is parsed once and walked iteratively, and at most a bounded
number of element texts is read. Nothing raises on any input: a value that cannot be read is
left out.

The modules, by role: :mod:`.reader` reads a page's sources and chooses among them; each
field has its own module (:mod:`.titles`, :mod:`.authors`, :mod:`.declared_dates` for the
dates a page declares, :mod:`.date_search` for htmldate's search, :mod:`.language`),
:mod:`.jsonld` reads JSON-LD, and :mod:`.values` holds the bounds and the cleaning every
value goes through.
"""

from scrapy_cetd.page.metadata.language import language_identifier
from scrapy_cetd.page.metadata.reader import load_metadata_libraries, page_metadata, read_metadata
from scrapy_cetd.result import Metadata

__all__ = [
    "Metadata",
    "language_identifier",
    "load_metadata_libraries",
    "page_metadata",
    "read_metadata",
]

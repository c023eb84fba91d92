"""scrapy-cetd: the main content of every page a Scrapy crawler fetches."""

from scrapy_cetd.api import ALGORITHMS, DEFAULT_ALGORITHM, extract, get_extractor
from scrapy_cetd.cetd import (
    CompositeTextDensityExtractor,
    SmoothedCompositeTextDensityExtractor,
    TextDensityExtractor,
)
from scrapy_cetd.extractor import Extractor
from scrapy_cetd.result import ExtractionResult

__all__ = [
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "CompositeTextDensityExtractor",
    "ExtractionResult",
    "Extractor",
    "SmoothedCompositeTextDensityExtractor",
    "TextDensityExtractor",
    "extract",
    "get_extractor",
]

"""scrapy-cetd: the main content of every page a Scrapy crawler fetches."""

from scrapy_cetd.addon import Addon
from scrapy_cetd.api import ALGORITHMS, DEFAULT_ALGORITHM, extract, get_extractor
from scrapy_cetd.cetd import (
    CompositeTextDensityExtractor,
    SmoothedCompositeTextDensityExtractor,
    TextDensityExtractor,
)
from scrapy_cetd.cetd_plus import CetdPlusExtractor
from scrapy_cetd.cetr import CetrExtractor, CetrThresholdExtractor
from scrapy_cetd.coreex import CoreExExtractor
from scrapy_cetd.cset import CSetExtractor
from scrapy_cetd.extractor import Extractor
from scrapy_cetd.middleware import CETDDownloaderMiddleware, CETDSpiderMiddleware, get_dom
from scrapy_cetd.page_types import PAGE_TYPES, PageType, classify_page_type
from scrapy_cetd.pipeline import CETDPipeline
from scrapy_cetd.result import ExtractionResult
from scrapy_cetd.tps import (
    TagPathRegion,
    TagPathSplit,
    prune_tag_paths,
    search_tag_path_region,
    tps_selector,
)

__all__ = [
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "PAGE_TYPES",
    "Addon",
    "CETDDownloaderMiddleware",
    "CETDPipeline",
    "CETDSpiderMiddleware",
    "CSetExtractor",
    "CetdPlusExtractor",
    "CetrExtractor",
    "CetrThresholdExtractor",
    "CompositeTextDensityExtractor",
    "CoreExExtractor",
    "ExtractionResult",
    "Extractor",
    "PageType",
    "SmoothedCompositeTextDensityExtractor",
    "TagPathRegion",
    "TagPathSplit",
    "TextDensityExtractor",
    "classify_page_type",
    "extract",
    "get_dom",
    "get_extractor",
    "prune_tag_paths",
    "search_tag_path_region",
    "tps_selector",
]

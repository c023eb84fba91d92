"""scrapy-cetd: the main content of every page a Scrapy crawler fetches."""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version

from scrapy_cetd.api import classify_page_type, extract
from scrapy_cetd.crawl.addon import Addon
from scrapy_cetd.crawl.eligibility import dont_cetd
from scrapy_cetd.crawl.middleware import CETDDownloaderMiddleware, CETDSpiderMiddleware
from scrapy_cetd.crawl.pipeline import CETDPipeline
from scrapy_cetd.crawl.spider import get_dom, tps_selector, tps_selector_region
from scrapy_cetd.extractors.base import Extractor
from scrapy_cetd.extractors.cetd import (
    CompositeTextDensityExtractor,
    SmoothedCompositeTextDensityExtractor,
    TextDensityExtractor,
)
from scrapy_cetd.extractors.cetd_plus import CetdPlusExtractor
from scrapy_cetd.extractors.cetr import CetrExtractor, CetrThresholdExtractor
from scrapy_cetd.extractors.coreex import CoreExExtractor
from scrapy_cetd.extractors.cset import CSetExtractor
from scrapy_cetd.extractors.registry import ALGORITHMS, DEFAULT_ALGORITHM, get_extractor
from scrapy_cetd.limits import check_deadline, time_left
from scrapy_cetd.page.metadata import load_metadata_libraries
from scrapy_cetd.page.page_types import PAGE_TYPES, PageType
from scrapy_cetd.page.parse import NotADocumentError
from scrapy_cetd.result import EmptyReason, ExtractionResult, Metadata, NoteKind, Reason
from scrapy_cetd.tps import (
    TagPathRegion,
    TagPathSplit,
    TpsOptions,
    prune_tag_paths,
    search_tag_path_region,
)

try:
    __version__ = _distribution_version("scrapy-cetd")
except PackageNotFoundError:  # imported from a checkout that was never installed
    __version__ = "0+unknown"

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
    "EmptyReason",
    "ExtractionResult",
    "Extractor",
    "Metadata",
    "NotADocumentError",
    "NoteKind",
    "PageType",
    "Reason",
    "SmoothedCompositeTextDensityExtractor",
    "TagPathRegion",
    "TagPathSplit",
    "TextDensityExtractor",
    "TpsOptions",
    "__version__",
    "check_deadline",
    "classify_page_type",
    "dont_cetd",
    "extract",
    "get_dom",
    "get_extractor",
    "load_metadata_libraries",
    "prune_tag_paths",
    "search_tag_path_region",
    "time_left",
    "tps_selector",
    "tps_selector_region",
]

"""TPS: main-region pruning of record (list) pages by tag path sequences.

Velloso & Dorneles, Journal of Information and Data Management 4(3), 2013
(``docs/algorithms.md`` §5; ``[P §x]`` below cites a section of the paper).

Every element of ``<body>`` (after the pre-processing of §0.2) gets the code of its tag path:
the tags from ``<body>`` down to it, each with its style signature [P Def. 3.2-3.3]. The
sequence of codes in document order is the TPS. searchRegion [P Alg. 3] looks for the first
point where the sequence splits into two parts with disjoint alphabets, ignoring the symbols
rarer than a frequency threshold [P §4, Alg. 4], keeps the larger part when it is larger by
more than the minimum size gap [P §5.3] and repeats on it. What remains is the main region;
:func:`prune_tag_paths` returns a copy of the page holding only that region and its ancestors
[P Alg. 5], so a record extractor (or a spider's CSS selectors) no longer sees menus, footers
and sidebars with repeating structures of their own.

Everything here is iterative (no recursion over the DOM; searchRegion's recursion is a loop),
deterministic, and keeps no state between calls; the input tree is never modified.

The modules, in layers import-linter checks: :mod:`.prune` (the functions on a page, within
its limits) > :mod:`.trim` (the pruned copy) > :mod:`.modes` (what pruning does to each
element, the options beyond the paper), :mod:`.search` (searchRegion), :mod:`.sequence` (the
tag path sequence) > :mod:`.options` (:class:`TpsOptions`), :mod:`.region` (what a search
finds).
"""

from scrapy_cetd.tps.options import (
    DEFAULT_MIN_SIZE_GAP,
    MAIN_LANDMARK_SHARE,
    MIN_SIZE_GAP,
    TpsOptions,
    tps_options,
)
from scrapy_cetd.tps.prune import (
    prune_tag_paths,
    prune_tag_paths_region,
    search_tag_path_region,
    unsearched_region,
)
from scrapy_cetd.tps.region import TagPathRegion, TagPathSplit
from scrapy_cetd.tps.search import search_region
from scrapy_cetd.tps.sequence import style_signature

__all__ = [
    "DEFAULT_MIN_SIZE_GAP",
    "MAIN_LANDMARK_SHARE",
    "MIN_SIZE_GAP",
    "TagPathRegion",
    "TagPathSplit",
    "TpsOptions",
    "prune_tag_paths",
    "prune_tag_paths_region",
    "search_region",
    "search_tag_path_region",
    "style_signature",
    "tps_options",
    "unsearched_region",
]

"""The entry points: the registry of algorithms, :func:`get_extractor` and :func:`extract`."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from scrapy_cetd.cetd import (
    CompositeTextDensityExtractor,
    SmoothedCompositeTextDensityExtractor,
    TextDensityExtractor,
)
from scrapy_cetd.cetr import CetrExtractor, CetrThresholdExtractor
from scrapy_cetd.coreex import CoreExExtractor
from scrapy_cetd.cset import CSetExtractor
from scrapy_cetd.extractor import Extractor
from scrapy_cetd.parse import Source, to_tree
from scrapy_cetd.result import ExtractionResult

DEFAULT_ALGORITHM = "cectd-ds"

ALGORITHMS: Mapping[str, type[Extractor]] = MappingProxyType(
    {
        cls.name: cls
        for cls in (
            TextDensityExtractor,
            CompositeTextDensityExtractor,
            SmoothedCompositeTextDensityExtractor,
            CetrExtractor,
            CetrThresholdExtractor,
            CoreExExtractor,
            CSetExtractor,
        )
    }
)
"""Registered algorithm names and their extractor classes (read-only)."""


def get_extractor(name: str = DEFAULT_ALGORITHM, **options: Any) -> Extractor:
    """A configured extractor for the algorithm ``name``.

    Raises :class:`ValueError` naming the valid choices for an unknown algorithm or option, or
    for an option value the extractor rejects.
    """
    try:
        cls = ALGORITHMS[name]
    except KeyError:
        valid = ", ".join(sorted(ALGORITHMS))
        raise ValueError(f"unknown algorithm {name!r}; valid algorithms: {valid}") from None
    parameters = inspect.signature(cls).parameters
    unknown = sorted(set(options) - set(parameters))
    if unknown:
        valid = ", ".join(parameters) or "none"
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} for algorithm {name!r}; valid options: {valid}"
        )
    return cls(**options)


def extract(
    source: Source,
    *,
    algorithm: str = DEFAULT_ALGORITHM,
    url: str | None = None,
    encoding: str | None = None,
    **options: Any,
) -> ExtractionResult:
    """The main content of one page.

    ``source`` is the page as ``str``, as ``bytes`` (decoded as Scrapy decodes a response;
    ``encoding`` stands for the HTTP header's charset) or as a parsed lxml tree, which is used
    as it is and never modified. ``options`` go to the algorithm's extractor (see
    :data:`ALGORITHMS`). An empty result carries its ``reason``; input that is not a document
    at all (empty, whitespace only) raises :class:`ValueError`.
    """
    extractor = get_extractor(algorithm, **options)
    return extractor.extract(to_tree(source, url=url, encoding=encoding), url=url)

"""The registry of algorithms: their names and classes, and :func:`get_extractor`."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from scrapy_cetd.extractors import DEFAULT_ALGORITHM
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

__all__ = ["ALGORITHMS", "DEFAULT_ALGORITHM", "get_extractor"]

ALGORITHMS: Mapping[str, type[Extractor]] = MappingProxyType(
    {
        cls.name: cls
        for cls in (
            CetdPlusExtractor,
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

"""The registry of algorithms: their names and classes, :func:`get_extractor`, and
:func:`build_extractor`, which every part of the package (the Scrapy pipeline, the commands, the
corpus) and the benchmarks build their extractor with."""

from __future__ import annotations

import inspect
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, cast

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
from scrapy_cetd.limits import TreeExtractor

__all__ = ["ALGORITHMS", "DEFAULT_ALGORITHM", "build_extractor", "get_extractor"]

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


def build_extractor(algorithm: str, options: Mapping[str, Any] | None = None) -> TreeExtractor:
    """The extractor ``algorithm`` names, configured with ``options``.

    ``algorithm`` is a registered name (:data:`ALGORITHMS`, built by :func:`get_extractor`) or
    the import path of a class whose instances have the same
    ``extract(tree, *, url=None) -> ExtractionResult`` method (``"myproject.MyExtractor"``);
    the class is called with ``options`` as keyword arguments. Raises :class:`ValueError` that
    says what is wrong otherwise.
    """
    options = dict(options or {})
    if algorithm in ALGORITHMS:
        return get_extractor(algorithm, **options)
    if "." not in algorithm:
        valid = ", ".join(sorted(ALGORITHMS))
        raise ValueError(
            f"unknown algorithm {algorithm!r}; valid algorithms: {valid}, or the import path of "
            "an extractor class"
        )
    try:
        cls = pkgutil.resolve_name(algorithm)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ValueError(f"algorithm {algorithm!r} cannot be imported: {exc}") from exc
    if not isinstance(cls, type):
        raise ValueError(f"algorithm {algorithm!r} is not a class")
    try:
        extractor = cls(**options)
    except TypeError as exc:
        raise ValueError(f"the options do not fit {algorithm}: {exc}") from exc
    if not callable(getattr(extractor, "extract", None)):
        raise ValueError(f"algorithm {algorithm!r} has no extract(tree, *, url) method")
    return cast("TreeExtractor", extractor)

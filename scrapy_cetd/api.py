"""The entry points: the registry of algorithms, :func:`get_extractor` and :func:`extract`."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from lxml import etree

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
from scrapy_cetd.limits import DEFAULT_MAX_BODY_SIZE, DEFAULT_MAX_NODES, Limits
from scrapy_cetd.page.parse import Source, html_response, response_tree
from scrapy_cetd.result import ExtractionResult

DEFAULT_ALGORITHM = "cetd-plus"

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


def extract(
    source: Source,
    *,
    algorithm: str = DEFAULT_ALGORITHM,
    url: str | None = None,
    encoding: str | None = None,
    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    time_budget: float | None = None,
    **options: Any,
) -> ExtractionResult:
    """The main content of one page.

    ``source`` is the page as ``str``, as ``bytes`` (decoded as Scrapy decodes a response;
    ``encoding`` stands for the HTTP header's charset) or as a parsed lxml tree, which is used
    as it is and never modified. ``options`` go to the algorithm's extractor (see
    :data:`ALGORITHMS`).

    The limits (:mod:`scrapy_cetd.limits`; ``None`` switches one off): ``max_body_size``
    bytes of ``str`` or ``bytes`` input, ``max_nodes`` elements in the parsed tree and
    ``time_budget`` seconds of extraction, checked between the extractor's steps in whatever
    thread calls this. Damage that leaves an HTML document (broken encodings, NUL and control
    characters, lone surrogates, no ``<body>``) is repaired and the content extracted. An
    empty result carries its ``reason``: a limit that was hit (named), nothing visible, a
    frameset page. Input that is not a document at all (empty, whitespace only, JSON, a PDF,
    an image, binary data) raises :class:`ValueError`.
    """
    extractor = get_extractor(algorithm, **options)
    limits = Limits(max_body_size=max_body_size, max_nodes=max_nodes, time_budget=time_budget)
    if isinstance(source, etree._Element):
        tree = source
    else:
        response = html_response(source, url=url, encoding=encoding)
        too_large = limits.size_reason(len(response.body))
        if too_large is not None:
            return ExtractionResult.empty(extractor.name, too_large)
        tree = response_tree(response)
    return limits.extract(extractor, tree, url=url)

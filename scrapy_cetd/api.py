"""The entry points :func:`extract` (one page in, its main content out, within the limits) and
:func:`classify_page_type`.

The algorithms and :func:`~scrapy_cetd.extractors.registry.get_extractor` are in
:mod:`scrapy_cetd.extractors.registry`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from lxml import etree

from scrapy_cetd.extractors.registry import DEFAULT_ALGORITHM, build_extractor
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES
from scrapy_cetd.limits import (
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_MAX_NODES,
    LIMITS,
    LimitExceededError,
    Limits,
    deadline,
)
from scrapy_cetd.page.metadata import page_metadata
from scrapy_cetd.page.page_types import PageType, classify_tree
from scrapy_cetd.page.parse import Source, decoding_notes, html_response, response_tree
from scrapy_cetd.result import ExtractionResult


def extract(
    source: Source,
    *,
    algorithm: str = DEFAULT_ALGORITHM,
    url: str | None = None,
    encoding: str | None = None,
    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    time_budget: float | None = None,
    max_attributes: int | None = DEFAULT_MAX_ATTRIBUTES,
    metadata: bool = False,
    **options: Any,
) -> ExtractionResult:
    """The main content of one page.

    ``source`` is the page as ``str``, as ``bytes`` (decoded as Scrapy decodes a response;
    ``encoding`` stands for the HTTP header's charset) or as a parsed lxml tree, which is used
    as it is and never modified. ``algorithm`` is a registered name (:data:`ALGORITHMS`) or the
    import path of an extractor class; ``options`` go to its constructor.

    The limits (:mod:`scrapy_cetd.limits`; ``None`` switches one off): ``max_body_size``
    bytes of ``str`` or ``bytes`` input, ``max_attributes`` attributes on one tag (checked in
    the text before it is parsed, see :mod:`scrapy_cetd.guard`), ``max_nodes`` elements in the
    parsed tree and ``time_budget`` seconds from this call (decoding and parsing included),
    checked between and inside the extractor's steps in whatever thread calls this. Damage
    that leaves an HTML document (broken encodings, NUL and control characters, lone
    surrogates, no ``<body>``) is repaired and the content extracted. An empty result carries
    its ``reason``: a limit that was hit (named), nothing visible, a frameset page. A charset
    label that names no text encoding is ignored, as a browser ignores it, and noted in the
    result's ``notes``. Input that is not a document at all (empty, whitespace only, JSON, a
    PDF, an image, binary data) raises :class:`ValueError`.

    With ``metadata=True`` the result's ``metadata`` holds the page's headline, authors, dates,
    language and site (:func:`~scrapy_cetd.page.metadata.page_metadata`, its language
    identified from the extracted text), read within what is left of ``time_budget``; it stays
    ``None`` when a limit refused the page or the budget ran out. Without it nothing is read.
    """
    start = time.monotonic()
    extractor = build_extractor(algorithm, options)
    name = str(getattr(extractor, "name", algorithm))
    limits = Limits(
        max_body_size=max_body_size,
        max_nodes=max_nodes,
        time_budget=time_budget,
        max_attributes=max_attributes,
    )
    if isinstance(source, etree._Element):
        tree = source
    else:
        response = html_response(source, url=url, encoding=encoding)
        too_large = limits.size_reason(len(response.body))
        if too_large is not None:
            return too_large.result(name)
        refused = limits.markup_reason(response.text)
        if refused is not None:
            return refused.result(name)
        tree = response_tree(response)
        del response  # its body and decoded text: the tree holds the page from here on
    result = limits.extract(extractor, tree, url=url, start=start)
    if metadata and (result.reason_code is None or result.reason_code.value not in LIMITS):
        try:
            with deadline(time_budget, start=start):
                found = page_metadata(tree, url=url, text=result.text)
        except LimitExceededError:
            found = None
        result = replace(result, metadata=found)
    notes = decoding_notes(source, encoding)
    return replace(result, notes=result.notes + notes) if notes else result


def classify_page_type(
    source: Source, url: str | None = None, *, encoding: str | None = None
) -> PageType:
    """The type of a page given as ``str``, ``bytes`` (decoded as Scrapy decodes a response;
    ``encoding`` stands for the HTTP header's charset) or a parsed lxml tree.

    ``url`` adds the signals of its path and host. Input that is not a document raises
    :class:`ValueError`, as :func:`scrapy_cetd.extract` does.
    """
    if isinstance(source, etree._Element):
        tree = source
    else:
        tree = response_tree(html_response(source, url=url, encoding=encoding))
    return classify_tree(tree, url)

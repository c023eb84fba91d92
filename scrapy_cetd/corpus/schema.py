"""The rows of a corpus: their columns (:data:`SCHEMA`, FineWeb's names where FineWeb has the
field) and the digest of a text that exact deduplication compares."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    VERSION = version("scrapy-cetd")
    """The ``extractor_version`` of every row: the installed scrapy-cetd's."""
except PackageNotFoundError:  # imported from a checkout that was never installed
    VERSION = "0+unknown"

SCHEMA: Mapping[str, tuple[str, str]] = {
    "text": ("string", "the main content as plain text, one block per line"),
    "id": ("string", "the ``WARC-Record-ID`` of the response record"),
    "url": ("string", "the ``WARC-Target-URI``"),
    "date": ("string", "the ``WARC-Date`` (when the page was crawled), ISO 8601"),
    "file_path": (
        "string",
        "the WARC file the record was read from, as given (the command makes a local path "
        "absolute)",
    ),
    "warc_offset": (
        "int64",
        "where the record starts in that file: the offset of its gzip member (of the record "
        "itself in a file gzipped per record, as WARC files are), or of the record in an "
        "uncompressed file",
    ),
    "language": ("string", "the language of ``text`` (ISO 639-1, py3langid), or null"),
    "language_score": ("float64", "py3langid's probability for ``language``, or null"),
    "title": ("string", "the headline, or the page's ``<title>``"),
    "authors": ("list<string>", "the authors the page names"),
    "published": ("string", "when the page says it was published, ISO 8601, or null"),
    "page_type": ("string", "the kind of page (``article``, ``forum``...), when classified"),
    "page_type_confidence": ("float64", "the classifier's probability for ``page_type``, or null"),
    "content_hash": ("string", "a digest of the normalised ``text`` (see :func:`content_hash`)"),
    "extractor": ("string", "the algorithm that produced the row"),
    "extractor_version": ("string", "the version of scrapy-cetd"),
    "reason": ("string", "null, or why ``text`` is empty"),
    "reason_code": ("string", "null, or the same as a :class:`~scrapy_cetd.result.Reason`"),
    "notes": (
        "list<string>",
        "what was repaired or bounded on the way, each ``<kind>: <detail>`` "
        "(:attr:`~scrapy_cetd.result.ExtractionResult.notes`: bytes the encoding does not "
        "read, a charset label ignored...); empty when there was nothing to say",
    ),
    "html": ("string", "only when asked for: the main content as an HTML fragment"),
    "markdown": ("string", "only when asked for: the main content as Markdown"),
}
"""The columns of the output, in order: name to (Parquet type, meaning). FineWeb's names where
FineWeb has the field (``text``, ``id``, ``url``, ``date``, ``file_path``, ``language``,
``language_score``); ``html`` and ``markdown`` only when asked for."""

FIELDS: tuple[str, ...] = tuple(SCHEMA)
"""The column names, in order."""


Row = dict[str, Any]
"""One output row: :data:`SCHEMA`'s names to values of its types (``None`` where null)."""


def normalised(text: str) -> str:
    """``text`` as compared for duplicates: NFKC, case-folded, whitespace runs as one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def content_hash(text: str) -> str:
    """The ``content_hash`` of ``text``: BLAKE2b (128 bits, hex) of :func:`normalised` text, so
    texts that differ only in case, Unicode form or whitespace get the same hash."""
    return hashlib.blake2b(normalised(text).encode(), digest_size=16).hexdigest()

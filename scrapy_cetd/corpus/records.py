"""The per-record function: a :class:`~scrapy_cetd.corpus.warc.WarcPage` in, a row out.

:func:`extract_page` is a module-level, stateless function of a
:class:`~scrapy_cetd.corpus.warc.WarcPage` and the :class:`CorpusSettings` (both pickle), which
undoes the HTTP content and transfer codings and hands the body to :func:`scrapy_cetd.extract`,
with the same limits (``max_bytes``, ``max_nodes``, ``time_budget``), so a row is exactly what
``extract()`` gives for the body. The command's workers and the Dask tasks call it alike.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

import lxml.html
from fastwarc import GzipReader, ZstdReader
from fastwarc.stream_io import BrotliReader, ChunkedReader
from lxml import etree

from scrapy_cetd.api import extract
from scrapy_cetd.corpus.warc import DEFAULT_MAX_BYTES, Skipped, WarcPage, iter_pages
from scrapy_cetd.extractors.registry import DEFAULT_ALGORITHM, build_extractor
from scrapy_cetd.limits import DEFAULT_MAX_NODES, DEFAULT_TIME_BUDGET, Limits
from scrapy_cetd.page.parse import NotADocumentError, html_response

FIELDS: tuple[str, ...] = (
    "url",
    "warc_record_id",
    "date",
    "title",
    "main_content_text",
    "main_content_html",
    "algorithm",
    "reason",
    "reason_code",
)
"""The columns of the output, in order; ``main_content_html`` only when asked for."""


Row = dict[str, str | None]
"""One output row: :data:`FIELDS` to strings (``title``, ``reason`` and ``reason_code``, the
value of a :class:`~scrapy_cetd.result.Reason`, may be ``None``).

A row may also hold the result's notes under :data:`NOTES`, one per line, for the counts of
:class:`FileSummary`; they are not written."""

NOTES = "notes"


@dataclasses.dataclass(frozen=True)
class CorpusSettings:
    """What to extract and how: the same for every record of a run."""

    algorithm: str = DEFAULT_ALGORITHM
    """A registered algorithm name (:data:`scrapy_cetd.ALGORITHMS`) or the import path of an
    extractor class (:func:`~scrapy_cetd.extractors.registry.build_extractor`)."""
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """Keyword options for the extractor (JSON-serialisable values)."""
    html: bool = False
    """Also write ``main_content_html``."""
    max_bytes: int = DEFAULT_MAX_BYTES
    """Largest body extracted, in bytes, as stored and once decoded."""
    max_nodes: int | None = DEFAULT_MAX_NODES
    """``extract()``'s ``max_nodes`` for every page (``None``: no limit)."""
    time_budget: float | None = DEFAULT_TIME_BUDGET
    """``extract()``'s ``time_budget`` for every page, in seconds (``None``: no limit)."""

    def __post_init__(self) -> None:
        build_extractor(self.algorithm, self.options)  # raises ValueError early, not per record
        if isinstance(self.max_bytes, bool) or not self.max_bytes > 0:
            raise ValueError(f"max_bytes must be a positive number of bytes: {self.max_bytes}")
        Limits(self.max_bytes, self.max_nodes, self.time_budget)  # the same check as extract()

    @property
    def fields(self) -> tuple[str, ...]:
        """The output columns for these settings."""
        return tuple(name for name in FIELDS if self.html or name != "main_content_html")

    def digest(self) -> str:
        """A stable digest of everything that changes the output."""
        spec = [
            self.algorithm,
            dict(self.options),
            self.html,
            self.max_bytes,
            self.max_nodes,
            self.time_budget,
        ]
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


Outcome = Row | Skipped


class _Decoder(Protocol):
    def read(self, size: int = ...) -> bytes: ...


def _read_up_to(decoder: _Decoder, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``decoder``, whose reads may return less than asked."""
    chunks: list[bytes] = []
    size = 0
    while size < limit and (chunk := decoder.read(limit - size)):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _decoded(body: bytes, encodings: Sequence[str], max_bytes: int) -> bytes:
    """``body`` with its transfer and content codings undone, last applied first.

    Raises :class:`ValueError` for a coding that is unknown or does not decode, and
    :class:`OverflowError` when the decoded body exceeds ``max_bytes``.
    """
    for coding in reversed(encodings):
        source = io.BytesIO(body)
        decoder: _Decoder
        if coding == "chunked":
            decoder = ChunkedReader(source)
        elif coding in ("gzip", "x-gzip"):
            decoder = GzipReader(source)
        elif coding == "deflate":
            decoder = GzipReader(source, zlib=True)
        elif coding == "br":
            decoder = BrotliReader(source)
        elif coding == "zstd":
            decoder = ZstdReader(source)
        else:
            raise ValueError(f"unsupported coding {coding!r}")
        try:
            body = _read_up_to(decoder, max_bytes + 1)
        except OSError as error:
            raise ValueError(f"{coding}: {error}") from None
        if len(body) > max_bytes:
            raise OverflowError(f"over {max_bytes} bytes once {coding} decoded")
    return body


_TITLE_SCAN = 1 << 20
"""Characters of a decoded page searched for its ``<title>`` (it belongs in the head)."""


def _page_title(body: bytes, page: WarcPage) -> str | None:
    """The text of the page's first ``<title>``, whitespace collapsed: the body decoded as
    :func:`scrapy_cetd.extract` decodes it, and its beginning up to ``</title>`` parsed."""
    text = html_response(body, url=page.url, encoding=page.charset).text[:_TITLE_SCAN]
    end = text.lower().find("</title")
    if end < 0:
        return None
    try:
        head = lxml.html.document_fromstring(text[:end] + "</title>")
    except (ValueError, etree.LxmlError):
        return None
    for element in head.iter("title"):
        return " ".join("".join(str(part) for part in element.itertext()).split()) or None
    return None


def extract_page(page: WarcPage, settings: CorpusSettings) -> Outcome:
    """The row for one page, or why there is none: **the per-record function**.

    Module-level and stateless, so it pickles by reference and gives the same result in any
    process (the local pool, a Dask worker). Once its content and transfer codings are undone,
    the body goes to :func:`scrapy_cetd.extract` with the HTTP charset and the settings'
    limits, so a row holds exactly what ``extract()`` gives for those bytes (decoding, limits,
    control-character cleaning and all). The row's ``title`` is the algorithm's headline, or
    the page's ``<title>``. A body that holds no document is skipped as ``undecodable``.
    """
    try:
        body = _decoded(page.body, page.encodings, settings.max_bytes)
    except OverflowError as error:
        return Skipped("too_large", page.url, page.record_id, str(error))
    except ValueError as error:
        return Skipped("undecodable", page.url, page.record_id, str(error))
    try:
        result = extract(
            body,
            algorithm=settings.algorithm,
            url=page.url,
            encoding=page.charset,
            max_body_size=settings.max_bytes,
            max_nodes=settings.max_nodes,
            time_budget=settings.time_budget,
            **settings.options,
        )
    except NotADocumentError as error:
        return Skipped("undecodable", page.url, page.record_id, str(error))
    except Exception as error:  # one bad page must not stop a corpus run
        detail = f"{type(error).__name__}: {error}"
        return Skipped("extract_error", page.url, page.record_id, detail)
    row: Row = {
        "url": page.url,
        "warc_record_id": page.record_id,
        "date": page.date,
        "title": result.title or _page_title(body, page),
        "main_content_text": result.text,
        "main_content_html": result.html,
        "algorithm": result.algorithm,
        "reason": result.reason,
        "reason_code": None if result.reason_code is None else result.reason_code.value,
    }
    if not settings.html:
        del row["main_content_html"]
    if result.notes:
        row[NOTES] = "\n".join(result.notes)
    return row


def extract_batch(items: Sequence[WarcPage | Skipped], settings: CorpusSettings) -> list[Outcome]:
    """:func:`extract_page` over a batch, skips passed through: one task of the process pool."""
    return [item if isinstance(item, Skipped) else extract_page(item, settings) for item in items]


def extract_file(path: str | os.PathLike[str], settings: CorpusSettings) -> Iterator[Outcome]:
    """Every outcome of one WARC file, extracted in this process, in file order."""
    for item in iter_pages(path, max_bytes=settings.max_bytes):
        yield item if isinstance(item, Skipped) else extract_page(item, settings)

"""Main content of every HTML page in WARC archives: ``scrapy-cetd corpus`` and its Dask twin.

Web-as-corpus work starts from crawl archives (WARC files, as Common Crawl publishes them), not
from a live crawl. This module reads them, keeps the HTML responses, runs a registered extractor
on each and writes one row per page: ``url``, ``warc_record_id``, ``date``, ``title``,
``main_content_text``, optionally ``main_content_html``, ``algorithm`` and ``reason``.

The work is split in two so that the same code runs on one machine and on a cluster:

* :func:`iter_pages` reads one WARC file, gzipped or not, and yields a :class:`WarcPage` for
  every HTML response, or a :class:`Skipped` that says why a record was left out. It only does
  I/O and cheap header checks.
* :func:`extract_page` is *the per-record function*: a module-level, stateless function of a
  :class:`WarcPage` and the :class:`CorpusSettings` (both pickle), which undoes the HTTP
  content and transfer codings and hands the body to :func:`scrapy_cetd.extract`, with the
  same limits (``max_bytes``, ``max_nodes``, ``time_budget``), so a row is exactly what
  ``extract()`` gives for the body. :func:`to_dask_bag` calls it inside Dask tasks, one task
  per file.

:func:`run_corpus` (the command) uses a process pool in one of two ways. With at least as many
files to do as workers, each worker reads, extracts and writes whole files, so this process
only waits; that is the scalable case, as reading costs about a fifth of extracting. With fewer
files, this process reads and ships batches of pages to the workers, which call
:func:`extract_page`, and writes the rows in file order. Either way the output is the same.

Bad records never stop a run, and damage loses only the damaged part: each record without a
row is counted under a reason (:data:`SKIP_REASONS`), and the summary reports the counts.

**Why FastWARC** (``fastwarc``, from the Resiliparse project) rather than warcio: it is typed
(``py.typed``, so ``mypy --strict`` checks our use of it), it is the faster parser (a compiled
extension: reading a page costs a fraction of extracting it), and it writes WARC too, which
``benchmarks/make_warc.py`` uses. Two of its choices are worked around here, both in the name
of "never fatal": its own decoders for ``Content-Encoding``/``Transfer-Encoding`` end the whole
iteration at the first bad record, so records are read raw and decoded per record in
:func:`extract_page` (with FastWARC's stream readers); and its iteration ends for good at a
damaged gzip member or an invalid record header, so gzipped files are decompressed member by
member through :class:`_GzipMembers`, and the iteration is restarted after each damage, at the
next gzip member or the next line that starts a WARC record (:func:`iter_pages`).

**Resuming.** :func:`run_corpus` writes one part per input file into ``OUT.parts/`` (the part
is renamed into place when complete, then a small ``.json`` marker with its counts is written),
and assembles ``OUT`` from the parts at the end. A part's name holds a digest of the input's
absolute path, size and modification time and of the settings, so a rerun skips the input files
already done with the same settings and redoes those that changed; an interrupted run loses at
most the files it was in the middle of. Parts that belong to no input of the current run are
deleted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import sys
import time
import zlib
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

try:
    from fastwarc import ArchiveIterator, GzipReader, WarcRecord, WarcRecordType, ZstdReader
    from fastwarc.stream_io import BrotliReader, ChunkedReader
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "scrapy_cetd.corpus needs the corpus extra: pip install 'scrapy-cetd[corpus]'"
    ) from error
import lxml.html
from lxml import etree
from scrapy.http import Headers, HtmlResponse
from scrapy.responsetypes import responsetypes

from scrapy_cetd.api import extract
from scrapy_cetd.extractors.registry import DEFAULT_ALGORITHM, build_extractor
from scrapy_cetd.limits import (
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_MAX_NODES,
    DEFAULT_TIME_BUDGET,
    LIMITS,
    Limits,
    limit_of,
)
from scrapy_cetd.page.parse import NotADocumentError, html_response

if TYPE_CHECKING:
    import dask.bag

DEFAULT_MAX_BYTES: int = DEFAULT_MAX_BODY_SIZE
"""Pages with a larger body (before or after decoding) are skipped as ``too_large``; the same
limit as the Scrapy add-on's ``CETD_MAX_BODY_SIZE``."""


SKIP_REASONS: Mapping[str, str] = {
    "not_response": "a WARC record other than an HTTP response (warcinfo, request, metadata, …)",
    "http_status": "an HTTP response whose status is not 2xx",
    "not_html": "a response Scrapy would not treat as HTML (by Content-Type, URL, then body)",
    "too_large": "a body over the size limit, as stored or once decoded",
    "truncated": "a record or gzip member that ends early (a cut-off file, a wrong length)",
    "corrupt": "a stretch of data that cannot be read as WARC (a damaged gzip member, an "
    "invalid record header); reading goes on at the next record",
    "undecodable": "no HTTP head, a Content- or Transfer-Encoding that does not decode, "
    "or a body that holds no document",
    "extract_error": "the extractor raised an exception",
}
"""Why a record gives no row, by the name the summary counts it under."""

FIELDS: tuple[str, ...] = (
    "url",
    "warc_record_id",
    "date",
    "title",
    "main_content_text",
    "main_content_html",
    "algorithm",
    "reason",
)
"""The columns of the output, in order; ``main_content_html`` only when asked for."""

FORMATS: Mapping[str, str] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}
"""Output formats by the extension of ``OUT``."""

Row = dict[str, str | None]
"""One output row: :data:`FIELDS` to strings (``title`` and ``reason`` may be ``None``).

A row may also hold the result's notes under :data:`_NOTES`, one per line, for the counts of
:class:`FileSummary`; they are not written."""

_NOTES = "notes"

_BATCH_PAGES = 8
"""Pages sent to a worker per task: enough to amortise the inter-process round trip."""

_BATCHES_PER_JOB = 4
"""Tasks in flight per worker process: keeps every worker busy while bounding memory."""

_PARQUET_ROWS = 1000
"""Rows per Parquet row group (and so the most rows held in memory by the writer)."""


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


@dataclasses.dataclass(frozen=True)
class WarcPage:
    """An HTML response read from a WARC file, as it is sent to a worker."""

    url: str
    record_id: str
    date: str | None
    """The record's ``WARC-Date``, as written in the file (ISO 8601)."""
    charset: str | None
    """The charset of the HTTP ``Content-Type`` header, if any."""
    encodings: tuple[str, ...]
    """``Content-Encoding`` then ``Transfer-Encoding`` codings: the order they were applied in."""
    body: bytes
    """The HTTP payload as stored, still encoded."""


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A record that gives no row, and why (a key of :data:`SKIP_REASONS`)."""

    reason: str
    url: str | None = None
    record_id: str | None = None
    detail: str = ""


Outcome = Row | Skipped


# Reading ----------------------------------------------------------------------------------------


_CHUNK = 1 << 16
"""Bytes read (and at most decompressed) at a time."""

_GZIP_MAGIC = b"\x1f\x8b\x08"
"""The first bytes of a gzip member (with deflate compression)."""

_RECORD_LINE = b"\nWARC/1."
"""The start of a line that begins a WARC record (its version line)."""


@dataclasses.dataclass(frozen=True)
class _Damage:
    """Why a stream stopped before the end of its file."""

    reason: str
    """``truncated`` or ``corrupt`` (:data:`SKIP_REASONS`)."""
    detail: str
    start: int
    """Where the damaged data begins, as a position of the stream."""


class _PlainStream:
    """An uncompressed WARC file, read forward; :meth:`resync` restarts it at the next record."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._position = 0
        self.damage: _Damage | None = None

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size if size >= 0 else _CHUNK)
        self._position += len(data)
        return data

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return _seek_nowhere(self._position, offset, whence)

    def close(self) -> None:
        """Nothing to do: :func:`iter_pages` closes the file, after the last segment."""

    def forget(self, before: int) -> None:
        """Nothing to forget: positions are offsets in the file."""

    def resync(self, after: int) -> bool:
        """Go on at the first line ``WARC/1.…`` that starts after position ``after``;
        ``False`` (at the end of the file) when there is none."""
        found = _find(self._raw, after, _RECORD_LINE)
        if found is None:
            return False
        self._position = found + 1
        self._raw.seek(self._position)
        return True


def _seek_nowhere(position: int, offset: int, whence: int) -> int:
    """A stream's ``seek()`` that reads forward only: it may only stay at ``position``."""
    target = offset if whence == io.SEEK_SET else position + offset
    if whence not in (io.SEEK_SET, io.SEEK_CUR) or target != position:
        raise io.UnsupportedOperation("the stream is read forward only")
    return position


def _find(raw: IO[bytes], start: int, pattern: bytes) -> int | None:
    """The offset of the first ``pattern`` at or after ``start`` in ``raw``, read a chunk at a
    time; ``None`` when there is none."""
    raw.seek(start)
    carry = b""
    base = start
    while chunk := raw.read(_CHUNK):
        window = carry + chunk
        found = window.find(pattern)
        if found >= 0:
            return base + found
        keep = min(len(window), len(pattern) - 1)
        carry = window[len(window) - keep :]
        base += len(window) - keep
    return None


class _GzipMembers:
    """The decompressed data of a gzip file, member after member, that stops where the data
    goes bad and can go on at the next member.

    A WARC file is gzipped one member per record, so a damaged member holds one record. Each
    read decompresses at most :data:`_CHUNK` bytes at a time (a decompression bomb costs no
    memory). Data decompressed before the damage is delivered; then reads return ``b""`` and
    :attr:`damage` says why, until :meth:`resync` goes on at the next member: the next one
    already seen (after a bad WARC record in a good member), or the next gzip header found in
    the file after the damaged member. FastWARC reads it through ``read()`` and ``tell()``
    (positions in the decompressed data).
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._inflater: Any = None
        """The running member's decompressor; ``None`` between members."""
        self._pending = b""
        """Compressed bytes read, not yet decompressed; they start at ``_raw_position``."""
        self._raw_position = 0
        self._out = bytearray()
        self._position = 0
        """Decompressed bytes delivered."""
        self._full = False
        """The last decompression filled its output: more may come without more input."""
        self._starts: deque[tuple[int, int]] = deque()
        """``(position, file offset)`` of the members begun and not forgotten: those of the
        data read ahead, at most one per byte of it."""
        self._at_end = False
        self._resume = 0
        """Where to look for the next gzip header after :attr:`damage`."""
        self.damage: _Damage | None = None

    def read(self, size: int = -1) -> bytes:
        size = size if size >= 0 else _CHUNK
        while len(self._out) < size and not self._at_end and self.damage is None:
            self._pull()
        data = bytes(self._out[:size])
        del self._out[:size]
        self._position += len(data)
        return data

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return _seek_nowhere(self._position, offset, whence)

    def close(self) -> None:
        """Nothing to do: :func:`iter_pages` closes the file, after the last segment."""

    def _stop(self, reason: str, detail: str) -> None:
        if self._inflater is not None:
            start, offset = self._starts[-1]
        else:
            start, offset = self._position + len(self._out), self._raw_position
        self._resume = offset + 1
        self.damage = _Damage(reason, f"{detail} (gzip member at byte {offset:,})", start)

    def _pull(self) -> None:
        """Decompress a little more into ``_out``, or end: at the end of the file, or with
        :attr:`damage` set."""
        if self._inflater is None:
            if len(self._pending) < len(_GZIP_MAGIC):
                self._pending += self._raw.read(_CHUNK)
            if not self._pending:
                self._at_end = True
                return
            if not self._pending.startswith(_GZIP_MAGIC):
                self._stop("corrupt", "no gzip member where one should begin")
                return
            self._inflater = zlib.decompressobj(wbits=31)
            start = (self._position + len(self._out), self._raw_position)
            if self._starts and self._starts[-1][0] == start[0]:
                self._starts[-1] = start  # the member before was empty: this one stands for it
            else:
                self._starts.append(start)
        if not self._pending and not self._full:
            self._pending = self._raw.read(_CHUNK)
            if not self._pending:
                self._stop("truncated", "the file ends inside a gzip member")
                return
        try:
            data = self._inflater.decompress(self._pending, _CHUNK)
        except zlib.error as error:
            self._stop("corrupt", f"bad gzip data: {error}")
            return
        self._out += data
        self._full = len(data) == _CHUNK
        if self._inflater.eof:
            rest = self._inflater.unused_data
            self._inflater = None
            self._full = False
        else:
            rest = self._inflater.unconsumed_tail
        self._raw_position += len(self._pending) - len(rest)
        self._pending = rest

    def forget(self, before: int) -> None:
        """Forget the members that begin at or before position ``before`` (a record read)."""
        while len(self._starts) > 1 and self._starts[1][0] <= before:
            self._starts.popleft()

    def resync(self, after: int) -> bool:
        """Go on at the first member that begins after position ``after``: one already seen,
        or the next gzip header in the file after the member holding ``after``. ``False`` at
        the end of the file."""
        later = [start for start in self._starts if start[0] > after]
        if later and self.damage is None:
            position, offset = later[0]
        else:
            if self.damage is None:
                earlier = [start[1] for start in self._starts if start[0] <= after]
                self._resume = (earlier[-1] if earlier else self._raw_position) + 1
            found = _find(self._raw, self._resume, _GZIP_MAGIC)
            if found is None:
                return False
            position, offset = self._position + len(self._out), found
        self._raw.seek(offset)
        self._raw_position = offset
        self._position = position
        self._pending = b""
        self._out.clear()
        self._inflater = None
        self._full = False
        self._starts.clear()
        self._at_end = False
        self.damage = None
        return True


_Stream = _PlainStream | _GzipMembers


def _open(path: str) -> IO[bytes]:
    """Open a local path, or a URL (``s3://…``, ``https://…``) through fsspec on a cluster."""
    if "://" in path:
        import fsspec  # noqa: PLC0415 - only for remote files; fsspec comes with dask

        opened: IO[bytes] = fsspec.open(path, "rb").open()
        return opened
    return open(path, "rb")


def iter_pages(
    path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES
) -> Iterator[WarcPage | Skipped]:
    """Every record of the WARC file at ``path``: a :class:`WarcPage` for each HTML response
    whose body can be extracted, a :class:`Skipped` for every other record.

    The file may be gzipped (one member per record, as WARC files are, or one for the whole
    file) or not; the magic bytes decide. Damage loses only the damaged part, never raises,
    and is counted: a damaged gzip member or an invalid record header is one ``corrupt``
    :class:`Skipped` (a stretch of unreadable data between two readable records counts once),
    a cut-off end one ``truncated``; reading goes on at the next gzip member or, in an
    uncompressed file, at the next line that starts a WARC record. Memory stays bounded: the
    file is read a chunk at a time.
    """
    name = os.fspath(path)
    with _open(name) as raw:
        magic = raw.read(2)
        raw.seek(0)
        stream: _Stream = _GzipMembers(raw) if magic == b"\x1f\x8b" else _PlainStream(raw)
        yield from _records(stream, name, max_bytes)


def _is_loss(item: WarcPage | Skipped) -> bool:
    """Whether ``item`` stands for damaged data (a record, or a stretch between records)."""
    return isinstance(item, Skipped) and item.reason in ("truncated", "corrupt")


def _not_cut_off(item: WarcPage | Skipped) -> WarcPage | Skipped:
    """``item`` when more data follows it: a record that ends early is damaged, not cut off."""
    if isinstance(item, Skipped) and item.reason == "truncated":
        return dataclasses.replace(item, reason="corrupt")
    return item


def _records(stream: _Stream, name: str, max_bytes: int) -> Iterator[WarcPage | Skipped]:
    """The items of :func:`iter_pages`, stream segment after segment: each segment is read
    by FastWARC until it ends or fails, then the stream goes on after the damage. Losses in a
    row (nothing readable between them) are one stretch of damage and give one item."""
    lost = False  # the last item was a loss
    while True:
        after = stream.tell()
        last: tuple[int, int, WarcPage | Skipped] | None = None  # held back: may be recast
        loss: Skipped | None = None
        try:
            for record in ArchiveIterator(stream, parse_http=True, auto_decode="none"):
                if last is not None:
                    item = _not_cut_off(last[2])
                    if not (lost and _is_loss(item)):
                        yield item
                    lost = _is_loss(item)
                stream.forget(record.stream_pos)
                last = (record.stream_pos, record.content_length, _page_or_skip(record, max_bytes))
        except OSError as invalid:  # not WARC data here
            where = after if last is None else last[0]
            loss = Skipped("corrupt", detail=f"{name}: {invalid} after byte {where:,}")
        damage = stream.damage
        if damage is not None:
            detail = f"{name}: {damage.detail}"
            if last is not None and last[0] >= damage.start:  # the damaged member's record
                item = last[2]
                last = (last[0], last[1], Skipped(damage.reason, item.url, item.record_id, detail))
            else:
                loss = Skipped(damage.reason, detail=detail)
        elif loss is None and last is not None:
            position, length, item = last
            if position + length <= stream.tell():  # the file ends after a whole record
                if not (lost and _is_loss(item)):
                    yield item
                return
            if not _is_loss(item):  # a cut-off record, or a wrong length: look further
                detail = f"{length:,} bytes declared at byte {position:,}, the data ends first"
                last = (position, length, Skipped("truncated", item.url, item.record_id, detail))
        elif loss is None:
            return
        pending: list[WarcPage | Skipped] = []
        if last is not None:
            pending.append(last[2] if loss is None else _not_cut_off(last[2]))
            after = last[0]
        if loss is not None:
            pending.append(loss)
        for item in pending:
            if not (lost and _is_loss(item)):
                yield item
            lost = _is_loss(item)
        if damage is not None:
            after = damage.start
        if not stream.resync(after):
            return


def _page_or_skip(record: WarcRecord, max_bytes: int) -> WarcPage | Skipped:
    """One record: a page to extract, or why not (headers first, then at most ``max_bytes``)."""
    headers = record.headers
    url = headers.get("WARC-Target-URI")
    record_id = record.record_id
    if record_id is None or headers.get("WARC-Type") is None:
        detail = f"incomplete WARC header block at byte {record.stream_pos:,}"
        return Skipped("truncated", url, record_id, detail)
    if record.record_type != WarcRecordType.response:
        return Skipped("not_response", url, record_id, str(record.record_type))
    declared = record.content_length
    if declared > max_bytes:
        return Skipped("too_large", url, record_id, f"{declared} bytes")
    body = record.reader.read(declared)
    if len(body) < declared:
        detail = f"{len(body):,} of {declared:,} bytes, record at byte {record.stream_pos:,}"
        return Skipped("truncated", url, record_id, detail)
    http = record.http_headers
    status = http.status_code if http is not None else None
    if url is None or http is None or status is None:
        return Skipped("undecodable", url, record_id, "no target URI or no HTTP status line")
    if not 200 <= status < 300:
        return Skipped("http_status", url, record_id, str(status))
    content_type = http.get("Content-Type")
    scrapy_headers = Headers({"Content-Type": content_type} if content_type else {})
    if not issubclass(
        responsetypes.from_args(headers=scrapy_headers, url=url, body=body[:4096]), HtmlResponse
    ):
        return Skipped("not_html", url, record_id, content_type or "no Content-Type")
    encodings = tuple(
        token.strip().lower()
        for name in ("Content-Encoding", "Transfer-Encoding")
        for value in http.get_multiple(name)
        for token in value.split(",")
        if token.strip() and token.strip().lower() != "identity"
    )
    return WarcPage(
        url=url,
        record_id=record_id,
        date=headers.get("WARC-Date"),
        charset=record.http_charset,
        encodings=encodings,
        body=body,
    )


# The per-record function ------------------------------------------------------------------------


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
    }
    if not settings.html:
        del row["main_content_html"]
    if result.notes:
        row[_NOTES] = "\n".join(result.notes)
    return row


def _extract_batch(items: Sequence[WarcPage | Skipped], settings: CorpusSettings) -> list[Outcome]:
    """:func:`extract_page` over a batch, skips passed through: one task of the process pool."""
    return [item if isinstance(item, Skipped) else extract_page(item, settings) for item in items]


def extract_file(path: str | os.PathLike[str], settings: CorpusSettings) -> Iterator[Outcome]:
    """Every outcome of one WARC file, extracted in this process, in file order."""
    for item in iter_pages(path, max_bytes=settings.max_bytes):
        yield item if isinstance(item, Skipped) else extract_page(item, settings)


# Files ------------------------------------------------------------------------------------------

WARC_SUFFIXES = (".warc", ".warc.gz")
"""The names a directory argument is searched for (files named on the command line are read
whatever their name)."""


def find_warc_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The WARC files named by ``paths``: files as given, directories searched recursively for
    ``*.warc`` and ``*.warc.gz`` (sorted); each file once, in order.

    Raises :class:`FileNotFoundError` for a path that does not exist.
    """
    found: dict[Path, None] = {}
    for entry in map(Path, paths):
        if entry.is_dir():
            for candidate in sorted(entry.rglob("*")):
                if candidate.is_file() and candidate.name.endswith(WARC_SUFFIXES):
                    found.setdefault(candidate.resolve(), None)
        elif entry.is_file():
            found.setdefault(entry.resolve(), None)
        else:
            raise FileNotFoundError(f"no such file or directory: {entry}")
    return list(found)


# Dask -------------------------------------------------------------------------------------------


def _extract_partition(
    paths: Iterable[str], settings: CorpusSettings, include_skipped: bool
) -> list[dict[str, Any]]:
    """All rows of the WARC files of one Dask partition (one file per partition)."""
    rows: list[dict[str, Any]] = []
    for path in paths:
        for outcome in extract_file(path, settings):
            if not isinstance(outcome, Skipped):
                rows.append({name: outcome.get(name) for name in settings.fields})
            elif include_skipped:
                rows.append(
                    {
                        "url": outcome.url,
                        "warc_record_id": outcome.record_id,
                        "skipped": outcome.reason,
                        "detail": outcome.detail,
                    }
                )
    return rows


def to_dask_bag(
    paths: Iterable[str | os.PathLike[str]],
    *,
    algorithm: str = DEFAULT_ALGORITHM,
    options: Mapping[str, Any] | None = None,
    html: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    include_skipped: bool = False,
) -> dask.bag.Bag:
    """A Dask bag of the rows of the WARC files ``paths``, one partition per file.

    Each task reads its file where it runs and calls :func:`extract_page` on every page, so
    the rows (dicts of :data:`FIELDS`) and their order are those of ``scrapy-cetd corpus``.
    Local paths and directories are expanded here (as the command does) and must be readable
    by every worker; URLs (``s3://bucket/…warc.gz``) are passed on and opened by the workers
    with fsspec. ``max_bytes``, ``max_nodes`` and ``time_budget`` are the limits of
    :class:`CorpusSettings` (those of ``extract()``). With ``include_skipped``, skipped records
    appear too, as dicts with ``url``, ``warc_record_id``, ``skipped`` (the reason) and
    ``detail``.
    """
    import dask.bag  # noqa: PLC0415 - the dask extra is optional

    settings = CorpusSettings(
        algorithm, dict(options or {}), html, max_bytes, max_nodes, time_budget
    )
    files: list[str] = []
    local: list[str] = []
    for path in [os.fspath(entry) for entry in paths]:
        if "://" in path:
            files.append(path)
        else:
            local.append(path)
            files.extend(str(found) for found in find_warc_files([path]))
    if not files:
        raise ValueError(f"no WARC files in {', '.join(local) or 'the given paths'}")
    bag = dask.bag.from_sequence(files, npartitions=len(files))  # type: ignore[no-untyped-call]
    rows: dask.bag.Bag = bag.map_partitions(_extract_partition, settings, include_skipped)
    return rows


# The command ------------------------------------------------------------------------------------


_DAMAGE_SHOWN = 100
"""Losses to damage listed per file in the stats (all are counted)."""


@dataclasses.dataclass
class FileSummary:
    """The counts of one input file (also the content of its part's ``.json`` marker)."""

    path: str
    records: int = 0
    """WARC records read; a cut-off or corrupt end of the file counts as one."""
    pages: int = 0
    """Rows written."""
    empty: int = 0
    """Rows without main content (their ``reason`` says why)."""
    skipped: dict[str, int] = dataclasses.field(default_factory=dict)
    """Records without a row, by reason (:data:`SKIP_REASONS`)."""
    limits: dict[str, int] = dataclasses.field(default_factory=dict)
    """Empty rows because a limit was hit, by limit (``max_nodes``, ``time_budget``, …)."""
    notes: dict[str, int] = dataclasses.field(default_factory=dict)
    """Rows whose page needed a repair, by kind of note (a charset label ignored, …)."""
    damage: list[str] = dataclasses.field(default_factory=list)
    """Where the file is damaged: the first :data:`_DAMAGE_SHOWN` ``truncated`` and
    ``corrupt`` losses, as ``"<reason>: <detail>"`` (offsets in the data read)."""
    seconds: float = 0.0
    resumed: bool = False
    """Done by an earlier run: the part was kept, these counts are that run's."""

    def count(self, outcome: Outcome) -> None:
        self.records += 1
        if isinstance(outcome, Skipped):
            self.skipped[outcome.reason] = self.skipped.get(outcome.reason, 0) + 1
            damaged = outcome.reason in ("truncated", "corrupt")
            if damaged and len(self.damage) < _DAMAGE_SHOWN:
                where = f"{outcome.url}: " if outcome.url else ""
                self.damage.append(f"{outcome.reason}: {where}{outcome.detail}")
            return
        self.pages += 1
        self.empty += outcome["reason"] is not None
        limit = limit_of(outcome["reason"])
        if limit is not None:
            self.limits[limit] = self.limits.get(limit, 0) + 1
        for note in (outcome.get(_NOTES) or "").splitlines():
            kind = note.partition(":")[0]
            self.notes[kind] = self.notes.get(kind, 0) + 1


@dataclasses.dataclass
class CorpusSummary:
    """What a :func:`run_corpus` run did."""

    out: str
    jobs: int
    files: list[FileSummary]
    seconds: float

    @property
    def records(self) -> int:
        return sum(item.records for item in self.files)

    @property
    def pages(self) -> int:
        return sum(item.pages for item in self.files)

    @property
    def skipped(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for item in self.files:
            total.update(item.skipped)
        return {reason: total[reason] for reason in SKIP_REASONS if total[reason]}

    @property
    def limits(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for item in self.files:
            total.update(item.limits)
        return {limit: total[limit] for limit in LIMITS if total[limit]}

    @property
    def notes(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for item in self.files:
            total.update(item.notes)
        return dict(sorted(total.items()))

    @property
    def pages_per_second(self) -> float:
        """Pages extracted per second of this run (files resumed from earlier runs excluded)."""
        pages = sum(item.pages for item in self.files if not item.resumed)
        return pages / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": self.out,
            "jobs": self.jobs,
            "records": self.records,
            "pages": self.pages,
            "empty": sum(item.empty for item in self.files),
            "skipped": self.skipped,
            "limits": self.limits,
            "notes": self.notes,
            "seconds": round(self.seconds, 3),
            "pages_per_second": round(self.pages_per_second, 2),
            "files": [dataclasses.asdict(item) for item in self.files],
        }

    def format(self) -> str:
        """The summary the command prints."""
        resumed = sum(item.resumed for item in self.files)
        empty = sum(item.empty for item in self.files)
        lines = [
            f"{len(self.files)} WARC file(s)"
            + (f" ({resumed} already done, skipped)" if resumed else "")
            + f", {self.records:,} records, {self.pages:,} pages extracted"
            + f" ({empty:,} without main content) -> {self.out}",
            f"  {self.seconds:.1f} s, {self.pages_per_second:.1f} pages/s with {self.jobs} job(s)",
        ]
        for reason, count in self.skipped.items():
            lines.append(f"  skipped {reason:<14} {count:>8,}  {SKIP_REASONS[reason]}")
        for limit, count in self.limits.items():
            lines.append(f"  limit   {limit:<14} {count:>8,}  empty rows: the page hit {limit}")
        for kind, count in self.notes.items():
            lines.append(f"  note    {kind:<20} {count:>8,}  rows (see the docs on encodings)")
        return "\n".join(lines)


class _Writer(Protocol):
    def write(self, row: Row) -> None: ...

    def close(self) -> None: ...


class _JsonLinesWriter:
    """Rows as JSON Lines (UTF-8, one object per line, keys in :data:`FIELDS` order)."""

    def __init__(self, path: Path, fields: Sequence[str]) -> None:
        self._file = path.open("w", encoding="utf-8")
        self._fields = fields

    def write(self, row: Row) -> None:
        record = {name: row.get(name) for name in self._fields}
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")

    def close(self) -> None:
        self._file.close()


class _ParquetWriter:
    """Rows as Parquet, all columns strings, in row groups of :data:`_PARQUET_ROWS`."""

    def __init__(self, path: Path, fields: Sequence[str]) -> None:
        import pyarrow as pa  # noqa: PLC0415 - only for Parquet output
        import pyarrow.parquet as pq  # noqa: PLC0415

        self._pa = pa
        self._schema = pa.schema([(name, pa.string()) for name in fields])
        self._writer = pq.ParquetWriter(str(path), self._schema)
        self._rows: list[Row] = []

    def write(self, row: Row) -> None:
        self._rows.append(row)
        if len(self._rows) >= _PARQUET_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._rows:
            table = self._pa.Table.from_pylist(self._rows, schema=self._schema)
            self._writer.write_table(table)
            self._rows = []

    def close(self) -> None:
        self._flush()
        self._writer.close()


def _writer(path: Path, fmt: str, fields: Sequence[str]) -> _Writer:
    """A writer of ``fmt`` rows with the columns ``fields`` into ``path``."""
    return _ParquetWriter(path, fields) if fmt == "parquet" else _JsonLinesWriter(path, fields)


def output_format(out: str | os.PathLike[str]) -> str:
    """``"jsonl"`` or ``"parquet"``, by the extension of ``out``; :class:`ValueError` if neither."""
    suffix = Path(out).suffix.lower()
    if suffix not in FORMATS:
        valid = ", ".join(FORMATS)
        raise ValueError(f"cannot tell the output format of {out}: use one of {valid}")
    return FORMATS[suffix]


def default_jobs() -> int:
    """The cores this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class _Progress(Protocol):
    def update(self, n: float | None = 1) -> bool | None: ...

    def set_description_str(self, desc: str | None = None, refresh: bool | None = True) -> None: ...

    def close(self) -> None: ...


class _NoProgress:
    def update(self, n: float | None = 1) -> bool | None:
        return None

    def set_description_str(self, desc: str | None = None, refresh: bool | None = True) -> None:
        return None

    def close(self) -> None:
        return None


def _progress(enabled: bool | None) -> _Progress:
    """A tqdm bar in pages and pages/s on stderr; by default only when stderr is a terminal."""
    if enabled is False or (enabled is None and not sys.stderr.isatty()):
        return _NoProgress()
    from tqdm import tqdm  # noqa: PLC0415 - only on a terminal

    return tqdm(unit=" pages", file=sys.stderr, dynamic_ncols=True, smoothing=0.1)


_PAGES_DONE: Any = None
"""In a worker process of :func:`run_corpus`: the run's shared count of pages written."""


def _init_worker(counter: Any) -> None:
    global _PAGES_DONE  # noqa: PLW0603 - set once per worker process, read by _count_page
    _PAGES_DONE = counter


def _count_page() -> None:
    with _PAGES_DONE.get_lock():
        _PAGES_DONE.value += 1


def _pool(jobs: int) -> tuple[ProcessPoolExecutor, Any]:
    """A pool of ``jobs`` worker processes and the page counter they share with this one.

    The workers are started from a fork server that has already imported this module (cheap,
    and safe with the threads of this process), or spawned where there is no fork server.
    """
    import multiprocessing  # noqa: PLC0415 - only with more than one job

    if "forkserver" in multiprocessing.get_all_start_methods():
        context: Any = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
    else:
        context = multiprocessing.get_context("spawn")
    counter = context.Value("q", 0)
    pool = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_init_worker, initargs=(counter,)
    )
    return pool, counter


def _batches(items: Iterator[WarcPage | Skipped]) -> Iterator[list[WarcPage | Skipped]]:
    """Consecutive items in batches of :data:`_BATCH_PAGES` pages; skips ride along, so the
    outcomes come back in file order."""
    batch: list[WarcPage | Skipped] = []
    pages = 0
    for item in items:
        batch.append(item)
        pages += not isinstance(item, Skipped)
        if pages >= _BATCH_PAGES:
            yield batch
            batch, pages = [], 0
    if batch:
        yield batch


def _outcomes(
    path: Path, settings: CorpusSettings, pool: ProcessPoolExecutor, jobs: int
) -> Iterator[Outcome]:
    """The outcomes of one file in file order: read here, extracted by ``pool``.

    Only ``jobs * _BATCHES_PER_JOB`` batches are in flight at a time, so memory stays flat
    however large the file: the reader waits for the workers, not the other way round.
    """
    pending: deque[Future[list[Outcome]]] = deque()
    for batch in _batches(iter_pages(path, max_bytes=settings.max_bytes)):
        pending.append(pool.submit(_extract_batch, batch, settings))
        while len(pending) >= jobs * _BATCHES_PER_JOB:
            yield from pending.popleft().result()
    while pending:
        yield from pending.popleft().result()


def _part_name(path: Path, settings: CorpusSettings, suffix: str) -> str:
    stat = path.stat()
    spec = [str(path), stat.st_size, stat.st_mtime_ns, settings.digest()]
    digest = hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:16]
    stem = path.name.split(".")[0] or "warc"
    return f"{stem}-{digest}{suffix}"


def _assemble(parts: Sequence[Path], out: Path, fmt: str, fields: Sequence[str]) -> None:
    """Write ``out`` from the parts, in order, streaming (a row group at a time for Parquet)."""
    temporary = out.with_name(out.name + ".tmp")
    if fmt == "parquet":
        import pyarrow as pa  # noqa: PLC0415 - only for Parquet output
        import pyarrow.parquet as pq  # noqa: PLC0415

        schema = pa.schema([(name, pa.string()) for name in fields])
        with pq.ParquetWriter(str(temporary), schema) as writer:
            for part in parts:
                for batch in pq.ParquetFile(part).iter_batches(batch_size=_PARQUET_ROWS):
                    writer.write_batch(batch)
    else:
        with temporary.open("wb") as target:
            for part in parts:
                with part.open("rb") as source:
                    while chunk := source.read(1 << 20):
                        target.write(chunk)
    os.replace(temporary, out)


def _marker(part: Path) -> Path:
    """The file whose presence says ``part`` is complete; it holds the part's counts."""
    return part.with_name(part.name + ".json")


def _write_part(
    path: Path,
    part: Path,
    fmt: str,
    settings: CorpusSettings,
    *,
    on_page: Callable[[], object] = _count_page,
    pool: tuple[ProcessPoolExecutor, int] | None = None,
) -> FileSummary:
    """Extract one input file into its part, then write the part's marker; its counts.

    The part is written under a temporary name and renamed when complete, and the marker only
    after that, so a part with a marker is always whole. ``pool`` (an executor and its size)
    extracts the pages while this process reads the file; without it, this process does both.
    """
    summary = FileSummary(str(path))
    started = time.perf_counter()
    temporary = part.with_name(part.name + ".tmp")
    writer = _writer(temporary, fmt, settings.fields)
    try:
        outcomes = _outcomes(path, settings, *pool) if pool else extract_file(path, settings)
        for outcome in outcomes:
            summary.count(outcome)
            if not isinstance(outcome, Skipped):
                writer.write(outcome)
                on_page()
    finally:
        writer.close()
    summary.seconds = round(time.perf_counter() - started, 3)
    os.replace(temporary, part)
    marker = _marker(part)
    marker_temporary = marker.with_name(marker.name + ".tmp")
    marker_temporary.write_text(json.dumps(dataclasses.asdict(summary)), encoding="utf-8")
    os.replace(marker_temporary, marker)
    return summary


def _parts_in_workers(
    pool: ProcessPoolExecutor,
    counter: Any,
    todo: Sequence[tuple[Path, Path]],
    *,
    fmt: str,
    settings: CorpusSettings,
    bar: _Progress,
) -> dict[Path, FileSummary]:
    """Each input file read, extracted and written by one worker, as many files at a time as
    there are workers; the bar follows the page counter the workers share."""
    futures = {pool.submit(_write_part, path, part, fmt, settings): path for path, part in todo}
    summaries: dict[Path, FileSummary] = {}
    pending: set[Future[FileSummary]] = set(futures)
    shown = 0
    bar.set_description_str(f"{len(todo)} files")
    while pending:
        finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
        for future in finished:
            summaries[futures[future]] = future.result()
        pages = counter.value
        bar.update(pages - shown)
        shown = pages
    return summaries


def run_corpus(
    inputs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    settings: CorpusSettings | None = None,
    *,
    jobs: int | None = None,
    progress: bool | None = None,
    echo: bool = False,
) -> CorpusSummary:
    """Extract every HTML page of the WARC files ``inputs`` into ``out`` (what the command does).

    ``jobs`` worker processes extract (default: every core; 1 extracts in this process).
    ``progress``: a progress bar on stderr; ``None`` shows it only on a terminal. With
    ``echo``, a line per input file already done is printed. See the module docstring for how
    parts make reruns skip finished files.
    """
    settings = settings or CorpusSettings()
    out_path = Path(out)
    fmt = output_format(out_path)
    files = find_warc_files(inputs)
    if not files:
        names = ", ".join(os.fspath(entry) for entry in inputs)
        raise ValueError(f"no WARC files in {names}")
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1: {jobs}")
    parts_dir = out_path.with_name(out_path.name + ".parts")
    parts_dir.mkdir(parents=True, exist_ok=True)
    suffix = out_path.suffix.lower()
    plan = [(path, parts_dir / _part_name(path, settings, suffix)) for path in files]
    keep = {part.name for _, part in plan} | {part.name + ".json" for _, part in plan}
    for stale in parts_dir.iterdir():
        if stale.name not in keep:
            stale.unlink()

    started = time.perf_counter()
    summaries: dict[Path, FileSummary] = {}
    todo: list[tuple[Path, Path]] = []
    for path, part in plan:
        marker = _marker(part)
        if part.exists() and marker.exists():
            done = FileSummary(**json.loads(marker.read_text(encoding="utf-8")))
            done.resumed = True
            summaries[path] = done
            if echo:
                print(f"{path}: already done ({done.pages:,} pages), skipped", file=sys.stderr)
        else:
            todo.append((path, part))
    bar = _progress(progress)
    with contextlib.ExitStack() as stack:
        stack.callback(bar.close)
        if jobs == 1 or not todo:
            for number, (path, part) in enumerate(todo, 1):
                bar.set_description_str(f"[{number}/{len(todo)}] {path.name}")
                summaries[path] = _write_part(path, part, fmt, settings, on_page=bar.update)
        else:
            pool, counter = _pool(jobs)
            stack.enter_context(pool)
            if len(todo) >= jobs:
                summaries.update(
                    _parts_in_workers(pool, counter, todo, fmt=fmt, settings=settings, bar=bar)
                )
            else:
                for number, (path, part) in enumerate(todo, 1):
                    bar.set_description_str(f"[{number}/{len(todo)}] {path.name}")
                    summaries[path] = _write_part(
                        path, part, fmt, settings, on_page=bar.update, pool=(pool, jobs)
                    )
    _assemble([part for _, part in plan], out_path, fmt, settings.fields)
    ordered = [summaries[path] for path, _ in plan]
    return CorpusSummary(str(out_path), jobs, ordered, time.perf_counter() - started)

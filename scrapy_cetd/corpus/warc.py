"""Reading WARC files: every record becomes a :class:`WarcPage` to extract or a :class:`Skipped`.

:func:`iter_pages` reads one WARC file, gzipped, Zstandard-compressed or not, and yields a
:class:`WarcPage` for every HTML response, or a :class:`Skipped` that says why a record was left
out. It only does I/O and cheap header checks; extraction is
:func:`scrapy_cetd.corpus.records.extract_page`.

**Why FastWARC** (``fastwarc``, from the Resiliparse project) rather than warcio: it is typed
(``py.typed``, so ``mypy --strict`` checks our use of it), it is the faster parser (a compiled
extension: reading a page costs a fraction of extracting it), and it writes WARC too, which
``benchmarks/make_warc.py`` uses. Two of its choices are worked around here, both in the name
of "never fatal": its own decoders for ``Content-Encoding``/``Transfer-Encoding`` end the whole
iteration at the first bad record, so records are read raw and decoded per record in
:func:`~scrapy_cetd.corpus.records.extract_page` (with FastWARC's stream readers); and its
iteration ends for good at a damaged gzip member or an invalid record header, so compressed
files are decompressed part by part (:mod:`scrapy_cetd.corpus.streams`: gzip members,
Zstandard frames), and the iteration is restarted after each damage, at the next part or the
next ``WARC/1.`` that starts a record (:func:`iter_pages`).
"""

from __future__ import annotations

import dataclasses
import os
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from fastwarc import ArchiveIterator, WarcRecord, WarcRecordType
from scrapy.http import Headers, HtmlResponse
from scrapy.responsetypes import responsetypes

from scrapy_cetd.corpus.streams import (
    RECORD_LINE,
    GzipMembers,
    PlainStream,
    Stream,
    ZstdFrames,
    is_zstd,
)
from scrapy_cetd.limits import DEFAULT_MAX_BODY_SIZE
from scrapy_cetd.result import NoteKind

DEFAULT_MAX_BYTES: int = DEFAULT_MAX_BODY_SIZE
"""Pages with a larger body (before or after decoding) are skipped as ``too_large``; the same
limit as the Scrapy add-on's ``CETD_MAX_BODY_SIZE``."""


SKIP_REASONS: Mapping[str, str] = {
    "not_response": "a WARC record other than an HTTP response (warcinfo, request, metadata, …)",
    "http_status": "an HTTP response whose status is not 2xx",
    "not_html": "a response that is not HTML (by Content-Type, else URL, payload type, body)",
    "too_large": "a body over the size limit, as stored or once decoded",
    "truncated": "a record or gzip member that ends early (a cut-off file, a wrong length)",
    "corrupt": "a stretch of data that cannot be read as WARC (a damaged gzip member, an "
    "invalid record header); reading goes on at the next record",
    "undecodable": "no HTTP head, a Content- or Transfer-Encoding that does not decode, "
    "or a body that holds no document",
    "extract_error": "the extractor raised an exception",
}
"""Why a record gives no row, by the name the summary counts it under."""


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
    file_path: str = ""
    """The WARC file the record was read from, as :func:`iter_pages` was given it."""
    offset: int = 0
    """Where the record starts in that file (the ``offset_of`` of the streams of
    :mod:`scrapy_cetd.corpus.streams`)."""
    truncated: str | None = None
    """The record's ``WARC-Truncated`` header, why the crawler stored only part of the payload
    (``length``, ``time``, ``disconnect``, ``unspecified``), or ``None``."""

    def notes(self) -> tuple[str, ...]:
        """What the record says of its payload, for the row's ``notes``: a
        :attr:`~scrapy_cetd.result.NoteKind.PAYLOAD_TRUNCATED` note when the crawler cut it
        short (Common Crawl keeps the first MiB of a payload)."""
        if self.truncated is None:
            return ()
        return (NoteKind.PAYLOAD_TRUNCATED.note(self.truncated.strip() or "unspecified"),)


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A record that gives no row, and why (a key of :data:`SKIP_REASONS`)."""

    reason: str
    url: str | None = None
    record_id: str | None = None
    detail: str = ""


class NotAWarcError(ValueError):
    """An input that is not a WARC file (an HTML page, a ZIP archive...)."""


_WARC_HEAD = 1 << 16
"""Bytes at the start of a file (decompressed, if gzipped) searched for a WARC record."""


def _check_warc(raw: IO[bytes], name: str) -> None:
    """Raise :class:`NotAWarcError` unless a WARC record begins in the first
    :data:`_WARC_HEAD` bytes of ``raw`` (once decompressed, when gzipped or
    Zstandard-compressed); rewinds ``raw``. A Zstandard file that cannot be read here raises
    :class:`~scrapy_cetd.corpus.streams.UnreadableWarcError`.

    A damaged first record is not refused here (iteration goes on past damage): only a file
    whose readable start holds no ``WARC/1.`` line at all, as an HTML page or an archive of
    another kind.
    """
    head = raw.read(_WARC_HEAD)
    raw.seek(0)
    if is_zstd(head):
        frames = ZstdFrames(raw, name)
        head = frames.read(_WARC_HEAD)
        raw.seek(0)
        if frames.damage is not None and frames.damage.reason == "corrupt":
            return  # a damaged first frame: counted as corrupt, the rest is read
    elif head.startswith(b"\x1f\x8b"):
        inflater = zlib.decompressobj(wbits=31)
        try:
            head = inflater.decompress(head, _WARC_HEAD)
        except zlib.error:
            return  # a damaged first member: counted as corrupt, the rest is read
    if not head.startswith(b"WARC/1.") and RECORD_LINE not in head:
        start = head[:40].decode("utf-8", "replace").split("\n")[0]
        raise NotAWarcError(f"{name} is not a WARC file: it starts with {start!r}")


def check_warc(path: str) -> None:
    """Raise :class:`NotAWarcError` if ``path`` (a file or URL) is not a WARC file (gzipped,
    Zstandard-compressed or not), and :class:`OSError` if it cannot be read
    (:class:`~scrapy_cetd.corpus.streams.UnreadableWarcError` for a Zstandard file without a
    Zstandard decoder)."""
    with _open(path) as raw:
        _check_warc(raw, path)


def _open(path: str) -> IO[bytes]:
    """Open a local path, or a URL (``s3://…``, ``https://…``) through fsspec."""
    if "://" in path:
        import fsspec  # noqa: PLC0415 - only for remote files; fsspec comes with dask

        try:
            opened: IO[bytes] = fsspec.open(path, "rb").open()
        except OSError as error:
            raise _remote_error(path, error) from error
        return opened
    return open(path, "rb")


def _remote_error(path: str, error: OSError) -> OSError:
    """``error``, raised by fsspec on the URL ``path``, with its cause in the message:
    fsspec's own message is the URL alone, whether the server said 404 or its name did not
    resolve. A :class:`FileNotFoundError` stays one."""
    cause = error.__cause__ or error.__context__
    status = getattr(cause, "status", None)
    if isinstance(status, int):
        message = getattr(cause, "message", None)
        detail = f"HTTP status {status}" + (f" ({message})" if message else "")
    elif cause is not None:
        detail = str(cause) or type(cause).__name__
    else:
        detail = str(error) if str(error) not in {"", path} else type(error).__name__
    kind = FileNotFoundError if isinstance(error, FileNotFoundError) else OSError
    return kind(f"cannot read {path}: {detail}")


def iter_pages(
    path: str | os.PathLike[str] | IO[bytes],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str | None = None,
) -> Iterator[WarcPage | Skipped]:
    """Every record of the WARC file at ``path``: a :class:`WarcPage` for each HTML response
    whose body can be extracted, a :class:`Skipped` for every other record.

    The file may be gzipped (one member per record, as WARC files are, or one for the whole
    file), Zstandard-compressed (``.warc.zst``: one frame or more per record, maybe a
    dictionary first, as the Zstandard WARC specification has it; this needs Python 3.14 or
    the ``zstd`` extra) or not; the magic bytes decide. Damage loses only the damaged part,
    never raises, and is counted: a damaged gzip member or Zstandard frame, or an invalid
    record header, is one ``corrupt`` :class:`Skipped` (a stretch of unreadable data between
    two readable records counts once), a cut-off end one ``truncated``; reading goes on at the
    next gzip member or Zstandard frame or, in an uncompressed file, at the next ``WARC/1.``
    (at a line's start or not: damage may have taken the line end before it). Memory stays
    bounded: the file is read a chunk at a time. ``path`` may be a URL (``https://``,
    ``s3://``...), read through fsspec. It may also be a seekable binary file, open for
    reading (as a caller opens it through a filesystem of its own, datatrove's reader
    through its ``DataFolder``): it is read from its start, and left open. ``name`` is what
    the pages' ``file_path`` and the details of the skips call the file: by default ``path``
    as given, or the open file's ``name``.

    Raises :class:`NotAWarcError` for a file that holds no WARC record where one should begin
    (:func:`check_warc`), and :class:`OSError` for a file that cannot be opened or read
    (:class:`~scrapy_cetd.corpus.streams.UnreadableWarcError` for a Zstandard file without a
    Zstandard decoder, or whose dictionary does not load).
    """
    if isinstance(path, str | os.PathLike):
        location = os.fspath(path)
        with _open(location) as raw:
            yield from _read(raw, location if name is None else name, max_bytes)
    else:
        yield from _read(path, str(getattr(path, "name", "")) if name is None else name, max_bytes)


def _read(raw: IO[bytes], name: str, max_bytes: int) -> Iterator[WarcPage | Skipped]:
    """:func:`iter_pages` on the open file ``raw``, called ``name``."""
    raw.seek(0)
    _check_warc(raw, name)
    magic = raw.read(4)
    raw.seek(0)
    stream: Stream
    if is_zstd(magic):
        stream = ZstdFrames(raw, name)
    elif magic.startswith(b"\x1f\x8b"):
        stream = GzipMembers(raw)
    else:
        stream = PlainStream(raw)
    yield from _records(stream, name, max_bytes)


def _is_loss(item: WarcPage | Skipped) -> bool:
    """Whether ``item`` stands for damaged data (a record, or a stretch between records)."""
    return isinstance(item, Skipped) and item.reason in ("truncated", "corrupt")


def _not_cut_off(item: WarcPage | Skipped) -> WarcPage | Skipped:
    """``item`` when more data follows it: a record that ends early is damaged, not cut off."""
    if isinstance(item, Skipped) and item.reason == "truncated":
        return dataclasses.replace(item, reason="corrupt")
    return item


def _records(stream: Stream, name: str, max_bytes: int) -> Iterator[WarcPage | Skipped]:
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
                offset = stream.offset_of(record.stream_pos)
                page = _page_or_skip(record, max_bytes, name, offset)
                last = (record.stream_pos, record.content_length, page)
        except OSError as invalid:  # not WARC data here
            where = (
                f"at byte {after:,}" if last is None else f"after the record at byte {last[0]:,}"
            )
            loss = Skipped("corrupt", detail=f"{name}: {invalid} {where}")
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


_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
"""The payload types of ``WARC-Identified-Payload-Type`` that are HTML."""

_HTML_START = re.compile(
    r"\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head)[\s>/]", re.I | re.S
)
"""The start of an HTML document, an XML declaration, comments and whitespace aside:
``<!DOCTYPE html``, or an ``<html>`` or ``<head>`` tag, attributes and all (Scrapy's sniff
of a body knows only ``<html>`` and ``<!doctype html>`` to the letter, so ``<html
lang="en">`` is no HTML to it)."""

_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def _starts_as_html(body: bytes) -> bool:
    """Whether ``body`` (not content-encoded) begins as an HTML document: after a byte order
    mark, whitespace and comments, a doctype of HTML or an ``<html>`` or ``<head>`` tag."""
    start = body[:2048]
    for bom, codec in _BOMS:
        if start.startswith(bom):
            return _HTML_START.match(start[len(bom) :].decode(codec, "ignore")) is not None
    return _HTML_START.match(start.decode("latin-1")) is not None


def _is_html(content_type: str | None, identified: str | None, url: str, body: bytes) -> bool:
    """Whether a response is HTML: as Scrapy's ``responsetypes`` says from its
    ``Content-Type``, its URL, then its body; without a ``Content-Type``, also when the WARC's
    ``WARC-Identified-Payload-Type`` (a crawler's sniff, such as Common Crawl's) names HTML or
    the body begins as HTML (:func:`_starts_as_html`). A body that is no document after all
    (a PDF, an image, JSON) is skipped as ``undecodable`` when it is extracted."""
    headers = Headers({"Content-Type": content_type} if content_type else {})
    kind = responsetypes.from_args(headers=headers, url=url, body=body[:4096])
    if issubclass(kind, HtmlResponse):
        return True
    if content_type:
        return False
    payload_type = (identified or "").split(";")[0].strip().lower()
    return payload_type in _HTML_TYPES or _starts_as_html(body)


def _page_or_skip(record: WarcRecord, max_bytes: int, name: str, offset: int) -> WarcPage | Skipped:
    """One record: a page to extract, or why not (headers first, then at most ``max_bytes``)."""
    headers = record.headers
    url = headers.get("WARC-Target-URI")
    record_id = record.record_id
    if record_id is None or headers.get("WARC-Type") is None:
        detail = f"incomplete WARC header block at byte {record.stream_pos:,}"
        return Skipped("truncated", url, record_id, detail)
    if record.record_type != WarcRecordType.response:
        return Skipped("not_response", url, record_id, str(record.record_type))
    http = record.http_headers
    status = http.status_code if http is not None else None
    if status is not None and not 200 <= status < 300:  # whatever its size
        return Skipped("http_status", url, record_id, str(status))
    declared = record.content_length
    if declared > max_bytes:
        return Skipped("too_large", url, record_id, f"{declared} bytes")
    body = record.reader.read(declared)
    if len(body) < declared:
        detail = f"{len(body):,} of {declared:,} bytes, record at byte {record.stream_pos:,}"
        return Skipped("truncated", url, record_id, detail)
    if url is None or http is None or status is None:
        return Skipped("undecodable", url, record_id, "no target URI or no HTTP status line")
    content_type = http.get("Content-Type")
    if not _is_html(content_type, headers.get("WARC-Identified-Payload-Type"), url, body):
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
        file_path=name,
        offset=offset,
        truncated=headers.get("WARC-Truncated"),
    )


WARC_SUFFIXES = (".warc", ".warc.gz", ".warc.zst")
"""The names a directory argument is searched for (files named on the command line are read
whatever their name)."""


def find_warc_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The WARC files named by ``paths``: files as given, directories searched recursively for
    ``*.warc``, ``*.warc.gz`` and ``*.warc.zst`` (sorted); each file once, in order.

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


def is_url(path: str) -> bool:
    """Whether ``path`` is a URL (``https://…``, ``s3://…``), read through fsspec."""
    return "://" in path


def find_inputs(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """The WARC files named by ``paths``: URLs as given, local paths as
    :func:`find_warc_files` finds them (absolute); each once, in order.

    Raises :class:`FileNotFoundError` for a local path that does not exist.
    """
    found: dict[str, None] = {}
    for entry in [os.fspath(path) for path in paths]:
        if is_url(entry):
            found.setdefault(entry, None)
        else:
            found.update((str(path), None) for path in find_warc_files([entry]))
    return list(found)


def identity(path: str) -> list[Any]:
    """What tells one version of the input ``path`` from another: its size and modification
    time, or for a URL what fsspec's ``info()`` reports of them (size, ETag, last modified)."""
    if not is_url(path):
        stat = os.stat(path)
        return [path, stat.st_size, stat.st_mtime_ns]
    import fsspec  # noqa: PLC0415 - only for remote files

    filesystem, inner = fsspec.core.url_to_fs(path)
    try:
        info = filesystem.info(inner)
    except OSError as error:
        raise _remote_error(path, error) from error
    keys = ("size", "ETag", "etag", "LastModified", "last_modified", "mtime", "updated")
    return [path, *(str(info[key]) for key in keys if info.get(key) is not None)]

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
iteration ends for good at a damaged gzip member or an invalid record header, so gzipped files
are decompressed member by member through :class:`_GzipMembers`, and the iteration is restarted
after each damage, at the next gzip member or the next line that starts a WARC record
(:func:`iter_pages`).

Zstandard-compressed files (``.warc.zst``) are decompressed frame by frame the same way, by
:class:`_ZstdFrames`, with the ``zstd`` module of Python 3.14 or its backport
(``backports.zstd``, the ``zstd`` extra): its decompressor takes a bound on its output, as
zlib's does, which the ``zstandard`` package's does not (one call may give a whole frame, of
any size). FastWARC's own ``ZstdReader`` ends its iteration at damage, as its gzip reader does.
"""

from __future__ import annotations

import dataclasses
import io
import os
import sys
import zlib
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

try:
    from fastwarc import ArchiveIterator, WarcRecord, WarcRecordType
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "scrapy_cetd.corpus needs the corpus extra: pip install 'scrapy-cetd[corpus]'"
    ) from error
from scrapy.http import Headers, HtmlResponse
from scrapy.responsetypes import responsetypes

from scrapy_cetd.limits import DEFAULT_MAX_BODY_SIZE

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
    """Where the record starts in that file (:meth:`_PlainStream.offset_of`,
    :meth:`_GzipMembers.offset_of`)."""


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A record that gives no row, and why (a key of :data:`SKIP_REASONS`)."""

    reason: str
    url: str | None = None
    record_id: str | None = None
    detail: str = ""


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

    def offset_of(self, position: int) -> int:
        """The file offset of the stream position ``position``: the same number."""
        return position

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


class _Members:
    """The decompressed data of a file compressed in independent parts (gzip members,
    Zstandard frames), part after part, that stops where the data goes bad and can go on at
    the next part: :class:`_GzipMembers` and :class:`_ZstdFrames` say how a part is
    recognised and decompressed.

    A WARC file is compressed one part per record (or a few, for a Zstandard record split in
    frames), so a damaged part holds one record. Each read decompresses at most
    :data:`_CHUNK` bytes at a time (a decompression bomb costs no memory). Data decompressed
    before the damage is delivered; then reads return ``b""`` and :attr:`damage` says why,
    until :meth:`resync` goes on at the next part: the next one already seen (after a bad WARC
    record in a good part), or the next part's magic bytes found in the file after the
    damaged part. FastWARC reads it through ``read()`` and ``tell()`` (positions in the
    decompressed data).
    """

    _MAGIC: bytes
    """The first bytes of a part, searched for by :meth:`resync`."""
    _PART: str
    """What a part is called in the details of a loss."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._inflater: Any = None
        """The running part's decompressor; ``None`` between parts."""
        self._pending = b""
        """Compressed bytes read, not yet decompressed; they start at ``_raw_position``."""
        self._raw_position = 0
        self._out = bytearray()
        self._position = 0
        """Decompressed bytes delivered."""
        self._full = False
        """The last decompression filled its output: more may come without more input."""
        self._starts: deque[tuple[int, int]] = deque()
        """``(position, file offset)`` of the parts begun and not forgotten: those of the
        data read ahead, at most one per byte of it."""
        self._at_end = False
        self._resume = 0
        """Where to look for the next part after :attr:`damage`."""
        self._first = 0
        """Where the first part begins in the file (after a Zstandard dictionary)."""
        self.damage: _Damage | None = None

    def _begins(self) -> bool:
        """Whether ``_pending`` starts a part (it holds at least :data:`_MAGIC`'s length,
        unless the file ends first)."""
        return self._pending.startswith(self._MAGIC)

    def _decompressor(self) -> Any:
        """A decompressor for the part that begins here."""
        raise NotImplementedError

    def _inflate(self, data: bytes) -> tuple[bytes, bytes, bool]:
        """Decompress at most :data:`_CHUNK` bytes of the running part from ``data`` (and
        what the decompressor holds); the output, the compressed bytes it did not take, and
        whether the part ended there. Sets :attr:`_full`. Raises :class:`_BadDataError`."""
        raise NotImplementedError

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
        self.damage = _Damage(reason, f"{detail} ({self._PART} at byte {offset:,})", start)

    def _pull(self) -> None:
        """Decompress a little more into ``_out``, or end: at the end of the file, or with
        :attr:`damage` set."""
        if self._inflater is None:
            if len(self._pending) < len(self._MAGIC):
                self._pending += self._raw.read(_CHUNK)
            if not self._pending:
                self._at_end = True
                return
            if not self._begins():
                self._stop("corrupt", f"no {self._PART} where one should begin")
                return
            self._inflater = self._decompressor()
            start = (self._position + len(self._out), self._raw_position)
            if self._starts and self._starts[-1][0] == start[0]:
                self._starts[-1] = start  # the part before was empty: this one stands for it
            else:
                self._starts.append(start)
        if not self._pending and not self._full:
            self._pending = self._raw.read(_CHUNK)
            if not self._pending:
                self._stop("truncated", f"the file ends inside a {self._PART}")
                return
        try:
            data, rest, ended = self._inflate(self._pending)
        except _BadDataError as error:
            self._stop("corrupt", str(error))
            return
        self._out += data
        if ended:
            self._inflater = None
            self._full = False
        self._raw_position += len(self._pending) - len(rest)
        self._pending = rest

    def forget(self, before: int) -> None:
        """Forget the parts that begin at or before position ``before`` (a record read)."""
        while len(self._starts) > 1 and self._starts[1][0] <= before:
            self._starts.popleft()

    def offset_of(self, position: int) -> int:
        """The file offset of the part that holds the stream position ``position``, once
        :meth:`forget` was told of it: in a file compressed one part per record, the record's
        own offset (what a reader seeks to); in a file compressed as one part, 0 (or where
        the part begins, after a Zstandard dictionary)."""
        if self._starts and self._starts[0][0] <= position:
            return self._starts[0][1]
        return self._first

    def resync(self, after: int) -> bool:
        """Go on at the first part that begins after position ``after``: one already seen,
        or the next magic bytes in the file after the part holding ``after``. ``False`` at
        the end of the file."""
        later = [start for start in self._starts if start[0] > after]
        if later and self.damage is None:
            position, offset = later[0]
        else:
            if self.damage is None:
                earlier = [start[1] for start in self._starts if start[0] <= after]
                self._resume = (earlier[-1] if earlier else self._raw_position) + 1
            found = _find(self._raw, self._resume, self._MAGIC)
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


class _BadDataError(Exception):
    """Compressed data that does not decompress; ``str()`` says why."""


class _GzipMembers(_Members):
    """A gzip file, member after member (:class:`_Members`)."""

    _MAGIC = _GZIP_MAGIC
    _PART = "gzip member"

    def _decompressor(self) -> Any:
        return zlib.decompressobj(wbits=31)

    def _inflate(self, data: bytes) -> tuple[bytes, bytes, bool]:
        try:
            out = self._inflater.decompress(data, _CHUNK)
        except zlib.error as error:
            raise _BadDataError(f"bad gzip data: {error}") from None
        self._full = len(out) == _CHUNK
        if self._inflater.eof:
            return out, self._inflater.unused_data, True
        return out, self._inflater.unconsumed_tail, False


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""The first bytes of a Zstandard frame (RFC 8878)."""

_ZSTD_SKIPPABLE = b"\x2a\x4d\x18"
"""The last three bytes of a skippable frame's magic number (its first is 0x50 to 0x5f)."""

_ZSTD_DICTIONARY = b"\x5d\x2a\x4d\x18"
"""The magic number of the skippable frame that holds a Zstandard WARC file's dictionary, at
its start (the Zstandard WARC specification)."""

_ZSTD_DICTIONARY_LIMIT = 1 << 23
"""The largest dictionary read, compressed or not: 8 MiB, what the Zstandard WARC
specification requires decoders to support (larger ones may be refused)."""


class UnreadableWarcError(OSError):
    """A WARC file this installation cannot read: Zstandard-compressed without a Zstandard
    decoder, or with a dictionary that does not load."""


def _zstd(name: str) -> Any:
    """The Zstandard module (Python 3.14's ``compression.zstd``, else ``backports.zstd``), or
    :class:`UnreadableWarcError` naming the extra that installs it."""
    try:
        if sys.version_info >= (3, 14):
            from compression import zstd  # noqa: PLC0415 - only for Zstandard files
        else:
            from backports import zstd  # noqa: PLC0415 - only for Zstandard files
    except ImportError:
        raise UnreadableWarcError(
            f"{name} is a Zstandard-compressed WARC file, which needs Python 3.14 or "
            "backports.zstd: pip install 'scrapy-cetd[zstd]'"
        ) from None
    return zstd


class _ZstdFrames(_Members):
    """A Zstandard-compressed WARC file (``.warc.zst``), frame after frame
    (:class:`_Members`), as the Zstandard WARC specification writes it: each record in one
    frame or more, skippable frames between them ignored, and maybe a dictionary first (in a
    skippable frame of its own magic number, compressed or not), which every frame is
    decompressed with. Raises :class:`UnreadableWarcError` without a Zstandard decoder, or
    for a dictionary that does not load or is over :data:`_ZSTD_DICTIONARY_LIMIT`.
    """

    _MAGIC = _ZSTD_MAGIC
    _PART = "Zstandard frame"

    def __init__(self, raw: IO[bytes], name: str) -> None:
        super().__init__(raw)
        self._module = _zstd(name)
        self._dictionary = self._read_dictionary(name)
        self._first = self._raw_position

    def _read_dictionary(self, name: str) -> Any:
        """The dictionary at the start of the file, read past, or ``None`` when there is none."""
        head = self._raw.read(8)
        if not head.startswith(_ZSTD_DICTIONARY) or len(head) < 8:
            self._raw.seek(0)
            return None
        size = int.from_bytes(head[4:], "little")
        refused = f"{name}: its Zstandard dictionary"
        if size > _ZSTD_DICTIONARY_LIMIT:
            raise UnreadableWarcError(f"{refused} is {size:,} bytes, over 8 MiB")
        data = self._raw.read(size)
        if len(data) < size:
            raise UnreadableWarcError(f"{refused} is cut off: the file ends inside it")
        self._raw_position = 8 + size
        zstd = self._module
        try:
            if data.startswith(_ZSTD_MAGIC):
                inflater = zstd.ZstdDecompressor()
                data = inflater.decompress(data, _ZSTD_DICTIONARY_LIMIT + 1)
                if not inflater.eof or len(data) > _ZSTD_DICTIONARY_LIMIT:
                    raise UnreadableWarcError(f"{refused} is not one frame of at most 8 MiB")
            return zstd.ZstdDict(data)
        except zstd.ZstdError as error:
            raise UnreadableWarcError(f"{refused} does not load: {error}") from None

    def _begins(self) -> bool:
        pending = self._pending
        skippable = pending[1:4] == _ZSTD_SKIPPABLE and 0x50 <= pending[0] <= 0x5F
        return pending.startswith(_ZSTD_MAGIC) or skippable

    def _decompressor(self) -> Any:
        return self._module.ZstdDecompressor(zstd_dict=self._dictionary)

    def _inflate(self, data: bytes) -> tuple[bytes, bytes, bool]:
        try:
            out = self._inflater.decompress(data, _CHUNK)
        except self._module.ZstdError as error:
            raise _BadDataError(f"bad Zstandard data: {error}") from None
        if self._inflater.eof:  # a skippable frame ends too, having given nothing
            self._full = False
            return out, self._inflater.unused_data, True
        self._full = not self._inflater.needs_input
        return out, b"", False


_Stream = _PlainStream | _GzipMembers | _ZstdFrames


class NotAWarcError(ValueError):
    """An input that is not a WARC file (an HTML page, a ZIP archive...)."""


_WARC_HEAD = 1 << 16
"""Bytes at the start of a file (decompressed, if gzipped) searched for a WARC record."""


def _is_zstd(head: bytes) -> bool:
    """Whether a file that starts with ``head`` is Zstandard-compressed, as a Zstandard WARC
    file starts: with a frame or a dictionary."""
    return head.startswith((_ZSTD_MAGIC, _ZSTD_DICTIONARY))


def _check_warc(raw: IO[bytes], name: str) -> None:
    """Raise :class:`NotAWarcError` unless a WARC record begins in the first
    :data:`_WARC_HEAD` bytes of ``raw`` (once decompressed, when gzipped or
    Zstandard-compressed); rewinds ``raw``. A Zstandard file that cannot be read here raises
    :class:`UnreadableWarcError`.

    A damaged first record is not refused here (iteration goes on past damage): only a file
    whose readable start holds no ``WARC/1.`` line at all, as an HTML page or an archive of
    another kind.
    """
    head = raw.read(_WARC_HEAD)
    raw.seek(0)
    if _is_zstd(head):
        frames = _ZstdFrames(raw, name)
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
    if not head.startswith(b"WARC/1.") and _RECORD_LINE not in head:
        start = head[:40].decode("utf-8", "replace").split("\n")[0]
        raise NotAWarcError(f"{name} is not a WARC file: it starts with {start!r}")


def check_warc(path: str) -> None:
    """Raise :class:`NotAWarcError` if ``path`` (a file or URL) is not a WARC file (gzipped,
    Zstandard-compressed or not), and :class:`OSError` if it cannot be read
    (:class:`UnreadableWarcError` for a Zstandard file without a Zstandard decoder)."""
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
    next gzip member or Zstandard frame or, in an uncompressed file, at the next line that
    starts a WARC record. Memory stays bounded: the
    file is read a chunk at a time. ``path`` may be a URL (``https://``, ``s3://``...), read
    through fsspec. It may also be a seekable binary file, open for reading (as a caller
    opens it through a filesystem of its own, datatrove's reader through its ``DataFolder``):
    it is read from its start, and left open. ``name`` is what the pages' ``file_path`` and the
    details of the skips call the file: by default ``path`` as given, or the open file's
    ``name``.

    Raises :class:`NotAWarcError` for a file that holds no WARC record where one should begin
    (:func:`check_warc`), and :class:`OSError` for a file that cannot be opened or read
    (:class:`UnreadableWarcError` for a Zstandard file without a Zstandard decoder, or whose
    dictionary does not load).
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
    stream: _Stream
    if _is_zstd(magic):
        stream = _ZstdFrames(raw, name)
    elif magic.startswith(b"\x1f\x8b"):
        stream = _GzipMembers(raw)
    else:
        stream = _PlainStream(raw)
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
        file_path=name,
        offset=offset,
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

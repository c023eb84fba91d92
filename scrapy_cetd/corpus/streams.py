"""A WARC file read part by part, so that one damaged part costs one record.

A WARC file is compressed one part per record (gzip members; Zstandard frames, one or a few
per record), or not at all. :class:`GzipMembers` and :class:`ZstdFrames` decompress it part
after part and stop where the data goes bad; :class:`PlainStream` reads an uncompressed file.
Each can then go on at the next part (or the next ``WARC/1.`` that begins a record):
:func:`scrapy_cetd.corpus.warc.iter_pages` restarts FastWARC's iteration there, since
FastWARC's own readers end the whole iteration at the first damaged member.

Zstandard-compressed files (``.warc.zst``) are decompressed with the ``zstd`` module of Python
3.14 or its backport (``backports.zstd``, the ``zstd`` extra): its decompressor takes a bound
on its output, as zlib's does, which the ``zstandard`` package's does not (one call may give a
whole frame, of any size). FastWARC's own ``ZstdReader`` ends its iteration at damage, as its
gzip reader does.
"""

from __future__ import annotations

import dataclasses
import io
import sys
import zlib
from collections import deque
from typing import IO, Any

CHUNK = 1 << 16
"""Bytes read (and at most decompressed) at a time."""

GZIP_MAGIC = b"\x1f\x8b\x08"
"""The first bytes of a gzip member (with deflate compression)."""

RECORD_LINE = b"\nWARC/1."
"""The start of a line that begins a WARC record (its version line)."""
RECORD_START = RECORD_LINE[1:]
"""The start of a WARC record's version line."""


@dataclasses.dataclass(frozen=True)
class Damage:
    """Why a stream stopped before the end of its file."""

    reason: str
    """``truncated`` or ``corrupt`` (:data:`~scrapy_cetd.corpus.warc.SKIP_REASONS`)."""
    detail: str
    start: int
    """Where the damaged data begins, as a position of the stream."""


class _Forward:
    """What FastWARC reads a stream through: ``read()`` and ``tell()`` (positions in the data
    it reads), a ``seek()`` that may only stay where it is, and a ``close()`` that leaves the
    file open (:func:`~scrapy_cetd.corpus.warc.iter_pages` closes it, after the last
    segment)."""

    _position: int

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = offset if whence == io.SEEK_SET else self._position + offset
        if whence not in (io.SEEK_SET, io.SEEK_CUR) or target != self._position:
            raise io.UnsupportedOperation("the stream is read forward only")
        return self._position

    def close(self) -> None:
        """Nothing to do: the caller closes the file."""


class PlainStream(_Forward):
    """An uncompressed WARC file, read forward; :meth:`resync` restarts it at the next record."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._position = 0
        self.damage: Damage | None = None

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size if size >= 0 else CHUNK)
        self._position += len(data)
        return data

    def forget(self, before: int) -> None:
        """Nothing to forget: positions are offsets in the file."""

    def offset_of(self, position: int) -> int:
        """The file offset of the stream position ``position``: the same number."""
        return position

    def resync(self, after: int) -> bool:
        """Go on at the first ``WARC/1.…`` after position ``after``, at a line's start or not:
        damage to the end of a record (the blank lines that close it) leaves the next one
        right after the damaged bytes; ``False`` (at the end of the file) when there is none.
        What is no record's start fails to read as one and is passed over with the damage."""
        found = _find(self._raw, after + 1, RECORD_START)
        if found is None:
            return False
        self._position = found
        self._raw.seek(self._position)
        return True


def _find(raw: IO[bytes], start: int, pattern: bytes) -> int | None:
    """The offset of the first ``pattern`` at or after ``start`` in ``raw``, read a chunk at a
    time; ``None`` when there is none."""
    raw.seek(start)
    carry = b""
    base = start
    while chunk := raw.read(CHUNK):
        window = carry + chunk
        found = window.find(pattern)
        if found >= 0:
            return base + found
        keep = min(len(window), len(pattern) - 1)
        carry = window[len(window) - keep :]
        base += len(window) - keep
    return None


class Members(_Forward):
    """The decompressed data of a file compressed in independent parts (gzip members,
    Zstandard frames), part after part, that stops where the data goes bad and can go on at
    the next part: :class:`GzipMembers` and :class:`ZstdFrames` say how a part is
    recognised and decompressed.

    A WARC file is compressed one part per record (or a few, for a Zstandard record split in
    frames), so a damaged part holds one record. Each read decompresses at most
    :data:`CHUNK` bytes at a time (a decompression bomb costs no memory). Data decompressed
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
        self.damage: Damage | None = None

    def _begins(self) -> bool:
        """Whether ``_pending`` starts a part (it holds at least :data:`_MAGIC`'s length,
        unless the file ends first)."""
        return self._pending.startswith(self._MAGIC)

    def _decompressor(self) -> Any:
        """A decompressor for the part that begins here."""
        raise NotImplementedError

    def _inflate(self, data: bytes) -> tuple[bytes, bytes, bool]:
        """Decompress at most :data:`CHUNK` bytes of the running part from ``data`` (and
        what the decompressor holds); the output, the compressed bytes it did not take, and
        whether the part ended there. Sets :attr:`_full`. Raises :class:`_BadDataError`."""
        raise NotImplementedError

    def read(self, size: int = -1) -> bytes:
        size = size if size >= 0 else CHUNK
        while len(self._out) < size and not self._at_end and self.damage is None:
            self._pull()
        data = bytes(self._out[:size])
        del self._out[:size]
        self._position += len(data)
        return data

    def _stop(self, reason: str, detail: str) -> None:
        if self._inflater is not None:
            start, offset = self._starts[-1]
        else:
            start, offset = self._position + len(self._out), self._raw_position
        self._resume = offset + 1
        self.damage = Damage(reason, f"{detail} ({self._PART} at byte {offset:,})", start)

    def _pull(self) -> None:
        """Decompress a little more into ``_out``, or end: at the end of the file, or with
        :attr:`damage` set."""
        if self._inflater is None:
            if len(self._pending) < len(self._MAGIC):
                self._pending += self._raw.read(CHUNK)
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
            self._pending = self._raw.read(CHUNK)
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


class GzipMembers(Members):
    """A gzip file, member after member (:class:`Members`)."""

    _MAGIC = GZIP_MAGIC
    _PART = "gzip member"

    def _decompressor(self) -> Any:
        return zlib.decompressobj(wbits=31)

    def _inflate(self, data: bytes) -> tuple[bytes, bytes, bool]:
        try:
            out = self._inflater.decompress(data, CHUNK)
        except zlib.error as error:
            raise _BadDataError(f"bad gzip data: {error}") from None
        self._full = len(out) == CHUNK
        if self._inflater.eof:
            return out, self._inflater.unused_data, True
        return out, self._inflater.unconsumed_tail, False


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""The first bytes of a Zstandard frame (RFC 8878)."""

_ZSTD_SKIPPABLE = b"\x2a\x4d\x18"
"""The last three bytes of a skippable frame's magic number (its first is 0x50 to 0x5f)."""

ZSTD_DICTIONARY = b"\x5d\x2a\x4d\x18"
"""The magic number of the skippable frame that holds a Zstandard WARC file's dictionary, at
its start (the Zstandard WARC specification)."""

ZSTD_DICTIONARY_LIMIT = 1 << 23
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
            "backports.zstd: pip install -e '.[zstd]' in scrapy-cetd's checkout"
        ) from None
    return zstd


class ZstdFrames(Members):
    """A Zstandard-compressed WARC file (``.warc.zst``), frame after frame
    (:class:`Members`), as the Zstandard WARC specification writes it: each record in one
    frame or more, skippable frames between them ignored, and maybe a dictionary first (in a
    skippable frame of its own magic number, compressed or not), which every frame is
    decompressed with. Raises :class:`UnreadableWarcError` without a Zstandard decoder, or
    for a dictionary that does not load or is over :data:`ZSTD_DICTIONARY_LIMIT`.
    """

    _MAGIC = ZSTD_MAGIC
    _PART = "Zstandard frame"

    def __init__(self, raw: IO[bytes], name: str) -> None:
        super().__init__(raw)
        self._module = _zstd(name)
        self._dictionary = self._read_dictionary(name)
        self._first = self._raw_position

    def _read_dictionary(self, name: str) -> Any:
        """The dictionary at the start of the file, read past, or ``None`` when there is none."""
        head = self._raw.read(8)
        if not head.startswith(ZSTD_DICTIONARY) or len(head) < 8:
            self._raw.seek(0)
            return None
        size = int.from_bytes(head[4:], "little")
        refused = f"{name}: its Zstandard dictionary"
        if size > ZSTD_DICTIONARY_LIMIT:
            raise UnreadableWarcError(f"{refused} is {size:,} bytes, over 8 MiB")
        data = self._raw.read(size)
        if len(data) < size:
            raise UnreadableWarcError(f"{refused} is cut off: the file ends inside it")
        self._raw_position = 8 + size
        zstd = self._module
        try:
            if data.startswith(ZSTD_MAGIC):
                inflater = zstd.ZstdDecompressor()
                data = inflater.decompress(data, ZSTD_DICTIONARY_LIMIT + 1)
                if not inflater.eof or len(data) > ZSTD_DICTIONARY_LIMIT:
                    raise UnreadableWarcError(f"{refused} is not one frame of at most 8 MiB")
            return zstd.ZstdDict(data)
        except zstd.ZstdError as error:
            raise UnreadableWarcError(f"{refused} does not load: {error}") from None

    def _begins(self) -> bool:
        pending = self._pending
        skippable = pending[1:4] == _ZSTD_SKIPPABLE and 0x50 <= pending[0] <= 0x5F
        return pending.startswith(ZSTD_MAGIC) or skippable

    def _decompressor(self) -> Any:
        return self._module.ZstdDecompressor(zstd_dict=self._dictionary)

    def _inflate(self, data: bytes) -> tuple[bytes, bytes, bool]:
        try:
            out = self._inflater.decompress(data, CHUNK)
        except self._module.ZstdError as error:
            raise _BadDataError(f"bad Zstandard data: {error}") from None
        if self._inflater.eof:  # a skippable frame ends too, having given nothing
            self._full = False
            return out, self._inflater.unused_data, True
        self._full = not self._inflater.needs_input
        return out, b"", False


Stream = PlainStream | GzipMembers | ZstdFrames


def is_zstd(head: bytes) -> bool:
    """Whether a file that starts with ``head`` is Zstandard-compressed, as a Zstandard WARC
    file starts: with a frame or a dictionary."""
    return head.startswith((ZSTD_MAGIC, ZSTD_DICTIONARY))

"""Undoing an HTTP response's content and transfer codings (``gzip``, ``deflate``, ``br``,
``zstd``, ``chunked``) as a WARC file stores them, within a bound on the decoded size: a
decompression bomb costs no more than ``max_bytes``."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Protocol

from fastwarc import GzipReader, ZstdReader
from fastwarc.stream_io import BrotliReader

from scrapy_cetd.result import NoteKind


class _Decoder(Protocol):
    def read(self, size: int = ...) -> bytes: ...


def read_up_to(decoder: _Decoder, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``decoder``, whose reads may return less than asked."""
    chunks: list[bytes] = []
    size = 0
    while size < limit and (chunk := decoder.read(limit - size)):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


_CHUNK_SIZE = re.compile(rb"[ \t]*0*([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\n]*)?\r?\n")
"""A chunk's size line: the size in hex (leading zeros allowed), maybe extensions
(``;name=value``), CRLF or LF."""


def unchunked(body: bytes, limit: int) -> bytes:
    """``body`` without its chunked transfer coding (RFC 9112 §7.1), up to about ``limit``
    bytes, read as browsers and warcio read it: chunk extensions ignored, a bare LF taken for
    CRLF, a body that ends before its last chunk (a connection cut after the page) kept as
    far as it goes. Where a size line is due and none is, the rest is taken as it stands: a
    crawler that stored the body already decoded but kept its ``Transfer-Encoding`` header
    loses nothing (from the start), and damage late in a body loses none of what came before."""
    chunks: list[bytes] = []
    size = position = 0
    while position < len(body) and size < limit:
        line = _CHUNK_SIZE.match(body, position)
        if line is None:
            chunks.append(body[position:])
            break
        length = int(line[1], 16)
        if length == 0:
            break  # the last chunk: trailers follow
        start = line.end()
        chunks.append(body[start : start + length])
        size += len(chunks[-1])
        position = start + length
        if body.startswith(b"\r\n", position):
            position += 2
        elif body.startswith(b"\n", position):
            position += 1
    return b"".join(chunks)


_GZIP_MAGIC = b"\x1f\x8b"

_MARKUP_START = re.compile(rb"(?:\xef\xbb\xbf)?\s*<")
"""The start of a body that is markup (a UTF-8 byte order mark, whitespace, then ``<``):
never the start of gzip data."""


def decoded(body: bytes, encodings: Sequence[str], max_bytes: int) -> tuple[bytes, tuple[str, ...]]:
    """``body`` with its transfer and content codings undone, last applied first, and the
    notes of what was not undone: a ``gzip`` coding whose body was stored decoded (markup,
    not gzip data) is taken as it stands, as a ``chunked`` body stored decoded is, with a
    :attr:`~scrapy_cetd.result.NoteKind.CODING_ALREADY_UNDONE` note.

    Raises :class:`ValueError` for a coding that is unknown or does not decode, and
    :class:`OverflowError` when the decoded body exceeds ``max_bytes``.
    """
    notes: list[str] = []
    for coding in reversed(encodings):
        if coding == "chunked":
            body = unchunked(body, max_bytes + 1)
            if len(body) > max_bytes:
                raise OverflowError(f"over {max_bytes} bytes once {coding} decoded")
            continue
        gzip = coding in ("gzip", "x-gzip")
        if gzip and not body.startswith(_GZIP_MAGIC) and _MARKUP_START.match(body):
            notes.append(NoteKind.CODING_ALREADY_UNDONE.note(coding))
            continue
        source = io.BytesIO(body)
        decoder: _Decoder
        if gzip:
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
            body = read_up_to(decoder, max_bytes + 1)
        except OSError as error:
            raise ValueError(f"{coding}: {error}") from None
        if len(body) > max_bytes:
            raise OverflowError(f"over {max_bytes} bytes once {coding} decoded")
    return body, tuple(notes)

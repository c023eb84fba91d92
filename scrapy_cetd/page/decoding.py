"""From bytes to the text Scrapy would read: a body decoded as a crawl decodes it, except where
a browser would not follow a charset label.

The order is Scrapy's and the browsers': the BOM, the HTTP charset, the ``<meta>`` charset,
then detection; undecodable bytes become U+FFFD. A charset label is honoured only when it
names a text encoding of the WHATWG Encoding Standard, the list browsers use
(:func:`choose_decoding`): a label such as ``hex``, ``base64`` or ``unicode_escape`` names a
Python codec no browser knows, and is ignored with a note (a
:class:`~scrapy_cetd.result.NoteKind`), as a browser
ignores a label it does not know. What the text is parsed into is :mod:`scrapy_cetd.page.parse`.
"""

from __future__ import annotations

import codecs
import contextlib
import re
from dataclasses import dataclass

import webencodings
from charset_normalizer import from_bytes
from scrapy.http import HtmlResponse, TextResponse
from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
)
from webencodings.labels import LABELS as WHATWG_LABELS

from scrapy_cetd.limits import MAX_URL
from scrapy_cetd.result import NoteKind

BLANK_URL = "about:blank"
"""The URL of a page given without one, as Scrapy's responses need a URL."""

_UNDECODED = frozenset({"replacement", "x-user-defined"})
"""WHATWG encodings that are no text encoding to decode a page with: ``replacement`` (the
labels ``iso-2022-kr``, ``hz-gb-2312``, …, which browsers refuse to decode, showing one U+FFFD)
and ``x-user-defined`` (bytes mapped to private-use characters)."""

_TEXT_CODECS: frozenset[str] = frozenset(
    codec
    for label, name in WHATWG_LABELS.items()
    if name not in _UNDECODED and (codec := resolve_encoding(label)) is not None
)
"""The Python codecs Scrapy (w3lib) decodes the labels of the WHATWG Encoding Standard with.
A declared charset is honoured when Scrapy resolves it to one of them; anything else (``hex``,
``base64``, ``zlib``, ``rot13``, ``unicode_escape``, ``utf-32``, ``idna``, …) is ignored."""

_UTF16 = frozenset({"utf-16", "utf-16-le", "utf-16-be"})

_UTF16_SNIFF = 1024
"""A body labelled UTF-16 without a BOM is UTF-16 only when a NUL byte occurs in this many
leading bytes: HTML markup is ASCII, which UTF-16 writes with a NUL byte per character."""

_HEADER_CHARSET = re.compile(r"""(?:^|;)[ \t]*charset=(?:"([\w-]+)"|([\w-]+))""", re.IGNORECASE)
"""The charset label of a ``Content-Type`` value, as w3lib reads it (a short header value)."""


@dataclass(frozen=True)
class Decoding:
    """How a body is decoded: what Scrapy is told (see :func:`choose_decoding`)."""

    keep_charset: bool
    """Whether the HTTP charset stands (Scrapy reads it); otherwise it is dropped."""
    encoding: str | None = None
    """An encoding that overrides Scrapy's choice (no BOM then exists), or ``None``."""
    detect: bool = False
    """Set ``encoding`` by detection, as Scrapy detects a page without a label."""
    notes: tuple[str, ...] = ()
    """Why a declared charset was not honoured (``"<kind>: <detail>"``, the kind a
    :class:`~scrapy_cetd.result.NoteKind`)."""
    guessed: bool = False
    """Nothing declares the encoding (no BOM, no label honoured) and the body is not UTF-8:
    its encoding is guessed from its bytes (see :func:`guessed_note`)."""


def choose_decoding(body: bytes, content_type: str | None) -> Decoding:
    """How to decode ``body`` sent with the HTTP ``content_type``: Scrapy's choice, except
    where a browser would not follow a declared label.

    The order is the browsers' and Scrapy's: a BOM decides alone; then the HTTP charset; then
    the ``<meta>`` (or XML declaration) charset; then detection. A label counts only when it
    names a text encoding of the WHATWG Encoding Standard (as Scrapy resolves its labels, see
    :data:`_TEXT_CODECS`, or by WHATWG's own codec for a WHATWG label Scrapy does not know).
    Any other HTTP charset is ignored, so the ``<meta>`` charset and detection decide; any
    other ``<meta>`` charset is ignored, so detection decides. A ``<meta>`` charset naming
    UTF-16 means UTF-8, as the HTML standard says (markup read from the bytes is not UTF-16);
    an HTTP charset naming UTF-16 on bytes that hold no NUL in their first 1,024 (ASCII
    markup, no BOM: they are not UTF-16) is ignored, and the label ``utf-16`` means
    little-endian, as in WHATWG's list. Each label ignored leaves a note.
    """
    if read_bom(body)[0] is not None:
        return Decoding(keep_charset=True)
    notes: list[str] = []
    resolved = http_content_type_encoding(content_type)
    match = _HEADER_CHARSET.search(content_type or "")
    label = resolved if match is None else match.group(1) or match.group(2)
    if label is not None:
        whatwg = webencodings.lookup(label)
        if resolved in _UTF16 and b"\x00" not in body[:_UTF16_SNIFF]:
            problem = "names UTF-16, but the body has no BOM and no NUL byte: it is not UTF-16"
        elif resolved == "utf-16":  # Scrapy reads UTF-16 without a BOM as big-endian
            return Decoding(keep_charset=False, encoding="utf-16-le")
        elif resolved in _TEXT_CODECS:
            return Decoding(keep_charset=True)
        elif whatwg is not None and whatwg.name not in _UNDECODED:
            return Decoding(keep_charset=False, encoding=whatwg.codec_info.name)
        elif whatwg is not None:
            problem = f"names the WHATWG {whatwg.name} encoding, which decodes no text"
        else:
            problem = "is not a text encoding of the WHATWG Encoding Standard"
        notes.append(
            NoteKind.HTTP_CHARSET_IGNORED.note(f"the HTTP charset {label!r:.60} {problem}")
        )
    declared = html_body_declared_encoding(body)
    if declared is None:
        return Decoding(keep_charset=False, notes=tuple(notes), guessed=not _is_utf8(body))
    if declared in _TEXT_CODECS - _UTF16:
        return Decoding(keep_charset=False, notes=tuple(notes))
    if declared in _UTF16:
        notes.append(
            NoteKind.META_CHARSET_UTF16.note(
                f"the <meta> charset names {declared}, read as UTF-8 as the HTML standard says"
            )
        )
        return Decoding(keep_charset=False, encoding="utf-8", notes=tuple(notes))
    notes.append(
        NoteKind.META_CHARSET_IGNORED.note(
            f"the <meta> charset {declared!r:.60} is not a text encoding of the WHATWG "
            "Encoding Standard"
        )
    )
    return Decoding(keep_charset=False, detect=True, notes=tuple(notes), guessed=not _is_utf8(body))


def _is_utf8(body: bytes) -> bool:
    """Whether ``body`` reads as UTF-8 (ASCII included)."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def guessed_note(plan: Decoding, encoding: str) -> tuple[str, ...]:
    """The note of a body whose encoding ``plan`` guesses (:attr:`Decoding.guessed`), read as
    ``encoding``: a guess, as Scrapy and browsers guess, can be wrong where the letters of two
    encodings share their bytes (windows-1252's ``£`` read as windows-1250's ``Ł``), and a
    corpus may want to know which texts rest on one."""
    if not plan.guessed:
        return ()
    return (
        NoteKind.CHARSET_GUESSED.note(
            f"no charset is declared and the body is not UTF-8: read as {encoding}, guessed "
            "from its bytes"
        ),
    )


_DETECTED_BYTES = 1 << 20
"""The bytes charset-normalizer reads of a body that is neither ASCII nor UTF-8, from a little
before its first byte that is not ASCII (:data:`_DETECTED_BEFORE`): it takes about two seconds
per 30 MB, in the reactor's thread when the decoding middleware calls it, and a megabyte of
the text that is not ASCII tells its encoding as well as the rest. The first megabyte alone
would not: a page may open with a megabyte of ASCII script, on which any encoding fits."""
_DETECTED_BEFORE = 4096
"""ASCII bytes read before the first byte that is not, for context."""
_NOT_ASCII = re.compile(rb"[\x80-\xff]")


def detect_encoding(body: bytes) -> str:
    """The encoding Scrapy detects for a body without a usable label: ASCII (as windows-1252),
    UTF-8, or what charset-normalizer finds in :data:`_DETECTED_BYTES` of it; UTF-8 when it
    finds nothing or an encoding that no WHATWG label names."""
    for candidate in ("ascii", "utf-8"):
        try:
            body.decode(candidate)
        except UnicodeError:
            continue
        return resolve_encoding(candidate) or candidate
    first = _NOT_ASCII.search(body)  # found: the body is not ASCII
    start = max(0, first.start() - _DETECTED_BEFORE) if first is not None else 0
    match = from_bytes(body[start : start + _DETECTED_BYTES]).best()
    found = resolve_encoding(match.encoding) if match is not None else None
    return found if found in _TEXT_CODECS else "utf-8"


def _content_type(charset: str | None) -> str | None:
    """The ``Content-Type`` header of an HTML body whose charset is ``charset``."""
    return f"text/html; charset={charset}" if charset else None


def decoding_notes(body: bytes, encoding: str | None, *, read_as: str) -> tuple[str, ...]:
    """The notes of :func:`choose_decoding` for a ``body`` given to :func:`html_response` with
    ``encoding``, and :func:`guessed_note` when it was read as ``read_as`` by a guess."""
    plan = choose_decoding(body, _content_type(encoding))
    return plan.notes + guessed_note(plan, read_as)


def undecodable_note(response: TextResponse) -> str | None:
    """A note when decoding ``response``'s body replaced byte sequences that its encoding does
    not read with U+FFFD (a page sent as UTF-8 but written in windows-1252): its text is then
    damaged where it held them, as a browser shows it, and a corpus may want to know. The
    U+FFFD the body itself holds are not counted. ``None`` when nothing was replaced."""
    replaced = response.text.count("\ufffd")  # the decoded text Scrapy keeps: no decoding again
    if not replaced:
        return None
    with contextlib.suppress(LookupError, UnicodeError):
        replaced -= _held(response.body, "\ufffd", response.encoding)
    if replaced <= 0:
        return None
    return NoteKind.UNDECODABLE_BYTES.note(
        f"{replaced} byte sequence(s) of the body are not {response.encoding} and read as U+FFFD"
    )


def _held(body: bytes, char: str, encoding: str) -> int:
    """How many times ``body`` holds ``char`` written in ``encoding``, counted only where a
    code unit of the encoding starts (every second byte in UTF-16, every fourth in UTF-32):
    two characters side by side may spell it across their boundary (U+FD41 then U+00FF in
    UTF-16-LE), and a codec that starts with a byte order mark (``utf-16``) writes one only
    before the text."""
    start = "a".encode(encoding)
    pattern = ("a" + char).encode(encoding)[len(start) :]
    unit = len("aa".encode(encoding)) - len(start)
    held, at = 0, body.find(pattern)
    while at >= 0:
        held += at % unit == 0
        at = body.find(pattern, at + 1)
    return held


def readable_response(response: TextResponse) -> TextResponse:
    """``response``, or a copy of it decoded by the rules of :func:`choose_decoding` when
    Scrapy would follow a charset label no browser follows (where ``response.text`` may
    raise :class:`LookupError` or give mojibake). The copy keeps the request and the meta."""
    return readable_response_notes(response)[0]


def readable_response_notes(response: TextResponse) -> tuple[TextResponse, tuple[str, ...]]:
    """:func:`readable_response` and the notes of the labels it ignored and of an encoding
    it guessed, as :func:`decoding_notes` gives them for the same bytes and charset."""
    content_type = response.headers.get(b"Content-Type")
    header = content_type.decode("latin-1") if content_type else None
    plan = choose_decoding(response.body, header)
    if not plan.notes and plan.encoding is None:
        if not plan.guessed:
            return response, ()
        return response, guessed_note(plan, response.encoding)  # Scrapy's own guess
    encoding = plan.encoding
    if encoding is None:
        declared = None if plan.detect else html_body_declared_encoding(response.body)
        encoding = declared or detect_encoding(response.body)
    # Not response.replace(encoding=...): it reads response.encoding first, and Scrapy then
    # infers the encoding from the whole body, a second detection that is thrown away.
    kept = {name: getattr(response, name) for name in response.attributes if name != "encoding"}
    return type(response)(**kept, encoding=encoding), plan.notes + guessed_note(plan, encoding)


def encode_text(text: str) -> bytes:
    """``text`` in UTF-8; lone surrogates (from a careless decode or a JSON ``\\ud800``) become
    U+FFFD, while a valid surrogate pair becomes the character it encodes."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        repaired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        return repaired.encode("utf-8")


def html_response(
    source: str | bytes, *, url: str | None = None, encoding: str | None = None
) -> HtmlResponse:
    """``source`` as the :class:`~scrapy.http.HtmlResponse` a crawl would have received.

    ``bytes`` keep their encoding, to be decoded as Scrapy decodes a body (``encoding`` plays
    the part of the ``Content-Type`` header's charset), except that a charset label that
    names no text encoding of the WHATWG Encoding Standard is ignored (see
    :func:`choose_decoding`); a ``str`` is sent as UTF-8. Nothing is parsed yet.
    """
    if isinstance(source, str):
        return HtmlResponse(response_url(url), body=encode_text(source), encoding="utf-8")
    if isinstance(source, bytes | bytearray):
        body = bytes(source)
        content_type = _content_type(encoding)
        plan = choose_decoding(body, content_type)
        headers = {"Content-Type": content_type} if plan.keep_charset and content_type else None
        chosen = detect_encoding(body) if plan.detect else plan.encoding
        return HtmlResponse(response_url(url), body=body, headers=headers, encoding=chosen)
    raise TypeError(f"source must be str, bytes or an lxml element, not {type(source).__name__}")


def response_url(url: str | None) -> str:
    """The URL a page given with ``url`` is parsed under: ``url``, or :data:`BLANK_URL` when
    there is none or it is longer than :data:`~scrapy_cetd.limits.MAX_URL`. Such a URL is no
    base for the page's links (:func:`~scrapy_cetd.page.finish.document_base`), and the base
    URL Scrapy's selector finds for the page is escaped by w3lib one character at a time, in
    many times the URL's size of memory (measured in docs/robustness.md)."""
    return url if url and len(url) <= MAX_URL else BLANK_URL


def utf8_page(source: str) -> tuple[bytes, str]:
    """The ``body`` and ``text`` of ``html_response(source)``, without the response: ``source``
    in UTF-8 (:func:`encode_text`) and the text Scrapy decodes from it, which is ``source``
    itself less a leading BOM (or, when lone surrogates were repaired, the repaired text). It
    saves decoding again what was just encoded; :func:`~scrapy_cetd.page.parse.page_tree` parses
    them."""
    try:
        body = source.encode("utf-8")
    except UnicodeEncodeError:
        body = encode_text(source)
        text = body.decode("utf-8")
    else:
        text = source
    return body, text[1:] if body.startswith(codecs.BOM_UTF8) else text

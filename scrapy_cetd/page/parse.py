"""From what a user hands us (text, bytes or a tree) to the lxml tree Scrapy would have built.

Damage that still leaves an HTML document is repaired on the way, as a browser would: invalid
bytes and wrong or conflicting charset declarations are decoded as Scrapy decodes them (the
HTTP charset, then the BOM, the ``<meta>`` charset and detection; undecodable bytes become
U+FFFD), NUL bytes are dropped by parsel, and lone surrogates in a ``str`` become U+FFFD. Input
that is not an HTML document at all (empty, JSON, a PDF, an image, other binary data) raises
:class:`NotADocumentError`, a :class:`ValueError`, since no extraction from it means anything.
"""

from __future__ import annotations

import json
import re

import parsel
from lxml import etree
from scrapy.http import HtmlResponse, TextResponse

Source = str | bytes | etree._Element
"""An HTML document as text, as undecoded bytes, or as an already parsed lxml tree."""

_BLANK_URL = "about:blank"

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\x00\x00\x01\x00", "an icon image"),
    (b"wOFF", "a web font"),
    (b"wOF2", "a web font"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x1f\x8b\x08", "gzip-compressed data"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"OggS", "an Ogg media file"),
    (b"\x1a\x45\xdf\xa3", "a Matroska/WebM media file"),
    (b"\x00asm", "a WebAssembly module"),
    (b"\x7fELF", "an executable"),
)
"""Leading bytes ("magic numbers") of the binary formats a server may label ``text/html``."""

_RIFF_KINDS = {b"WEBP": "a WebP image", b"WAVE": "a WAV audio file", b"AVI ": "an AVI video"}
"""RIFF containers: ``RIFF``, a 4-byte size, then the kind."""

_CONTROL = re.compile("[\x01-\x08\x0b\x0e-\x1f\x7f]")
"""Control characters no text document holds (NUL is left out: parsel drops it, and a UTF-16
page decoded as ASCII is all NULs between readable characters)."""

_SNIFF_CHARS = 8192
"""How much of the decoded text the binary test reads."""

_MAX_CONTROL_SHARE = 0.05
"""Above this share of control characters the text is binary data. Random bytes decode to
about 11%; a damaged page with a few stray control characters is far below 1%."""

_MIN_CONTROLS = 16
"""Fewer control characters than this never make a body binary, so a short damaged page
stays a document."""

_BLANK = re.compile(r"[\s\x00]*\Z")

_JSON_START = re.compile(r"[\s\ufeff]*[{\[]")


class NotADocumentError(ValueError):
    """The input holds no HTML document (empty, JSON, a PDF, an image, binary data)."""


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
    the part of the ``Content-Type`` header's charset); a ``str`` is sent as UTF-8. Nothing is
    decoded or parsed yet.
    """
    if isinstance(source, str):
        return HtmlResponse(url or _BLANK_URL, body=encode_text(source), encoding="utf-8")
    if isinstance(source, bytes | bytearray):
        headers = {"Content-Type": f"text/html; charset={encoding}"} if encoding else None
        return HtmlResponse(url or _BLANK_URL, body=bytes(source), headers=headers)
    raise TypeError(f"source must be str, bytes or an lxml element, not {type(source).__name__}")


def document_problem(body: bytes, text: str) -> str | None:
    """Why a body is not an HTML document, or ``None`` when it is (or may be) one.

    ``body`` is the undecoded body, read for the leading bytes of binary formats; ``text`` the
    decoded body, read for emptiness, JSON and a share of control characters that only binary
    data has. Anything else is an HTML document, however damaged: it is parsed and repaired.
    """
    head = body[:16]
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return f"the body is {kind}"
    if head.startswith(b"RIFF") and head[8:12] in _RIFF_KINDS:
        return f"the body is {_RIFF_KINDS[head[8:12]]}"
    if head[4:8] == b"ftyp":
        return "the body is an MP4/HEIF media file"
    if _BLANK.match(text):
        return "the body is empty or whitespace only"
    if _JSON_START.match(text):
        try:
            json.loads(text.lstrip("\ufeff"))
        except (ValueError, RecursionError):  # nested deeper than Python's limit: not read
            pass
        else:
            return "the body is JSON"
    sample = text[:_SNIFF_CHARS]
    controls = len(_CONTROL.findall(sample))
    if controls >= _MIN_CONTROLS and controls > _MAX_CONTROL_SHARE * len(sample):
        return "the body is binary data"
    return None


def response_tree(response: TextResponse) -> etree._Element:
    """The tree behind ``response.css()``, after checking that the body is a document.

    Raises :class:`NotADocumentError` (see :func:`document_problem`).
    """
    problem = document_problem(response.body, response.text)
    if problem is not None:
        raise NotADocumentError(f"not an HTML document: {problem}")
    return selector_root(response)


def selector_root(response: TextResponse) -> etree._Element:
    """The root of ``response.selector``: the tree behind ``response.css()``, parsed once and
    cached by Scrapy. When Scrapy cannot build that selector because it cannot resolve the
    page's ``<base href>`` (w3lib rejects a port that is not a number), the same text parsed
    the same way by parsel, without the base URL, and not cached."""
    try:
        root: etree._Element = response.selector.root
    except ValueError:
        root = parsel.Selector(text=response.text, type="html").root
    return root


def to_tree(
    source: Source, *, url: str | None = None, encoding: str | None = None
) -> etree._Element:
    """The parsed document for ``source``, built exactly as a Scrapy crawl builds it.

    Bytes are decoded as Scrapy's ``TextResponse`` decodes them (``encoding`` plays the part of
    the Content-Type header's charset; then the BOM, the ``<meta>`` charset, and detection),
    and parsed by parsel, so ``extract(response.body)`` and the pipeline see the same tree. A
    tree is returned as it is. Raises :class:`NotADocumentError` (a :class:`ValueError`) for
    input that holds no document, and :class:`TypeError` for other types.
    """
    if isinstance(source, etree._Element):
        return source
    return response_tree(html_response(source, url=url, encoding=encoding))

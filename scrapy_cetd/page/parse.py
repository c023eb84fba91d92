"""From what a user hands us (text, bytes or a tree) to the lxml tree Scrapy would have built.

Damage that still leaves an HTML document is repaired on the way, as a browser would: bytes
are decoded as Scrapy decodes them, less the charset labels no browser follows
(:mod:`scrapy_cetd.page.decoding`), NUL bytes are dropped by parsel, and lone surrogates in a
``str`` become U+FFFD. Input that is not an HTML document at all (empty, JSON, a PDF, an
image, other binary data) raises :class:`NotADocumentError`, a :class:`ValueError`, since no
extraction from it means anything.
"""

from __future__ import annotations

import codecs
import json
import re

import lxml.html
import parsel
from lxml import etree
from scrapy.http import TextResponse
from scrapy.selector import Selector
from w3lib.html import get_base_url

from scrapy_cetd.guard import markup_problem
from scrapy_cetd.page import accel
from scrapy_cetd.page.decoding import html_response, response_url
from scrapy_cetd.result import EmptyReason, Reason

Source = str | bytes | etree._Element
"""An HTML document as text, as undecoded bytes, or as an already parsed lxml tree."""

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
    (b"WARC/1.", "a WARC archive"),
)
"""Leading bytes ("magic numbers") of the binary formats a server may label ``text/html``, and
of a WARC archive (many pages and their headers: given where one page is expected, its first
page would be read with the archive's headers as text)."""

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


def markup_reason(text: str, max_attributes: int | None) -> EmptyReason | None:
    """:meth:`Limits(max_attributes=max_attributes).markup_reason(text)
    <scrapy_cetd.limits.Limits.markup_reason>`: the reason the guard refuses the page ``text``
    before it is parsed, or ``None``, found by the compiled pass when it is built
    (:func:`markup_scan`)."""
    if max_attributes is None:
        return None
    problem = markup_scan(text, max_attributes)
    return EmptyReason(problem, Reason.MAX_ATTRIBUTES) if problem else None


@accel.twin(accel.compiled.markup_scan)
def markup_scan(text: str, max_attributes: int) -> str:
    """The reason :func:`scrapy_cetd.guard.markup_problem` gives to refuse ``text``, or ``""``
    when it lets the page be parsed, in pure Python: the reference the compiled pass
    reproduces. The guard's searches in C cost about a tenth of a page's extraction, mostly
    in reading every quoted attribute value twice; the compiled pass reads each tag's
    attributes from every ``<`` in one loop and runs the guard's scan only when one may have
    too many."""
    return markup_problem(text, max_attributes=max_attributes) or ""


def page_tree(body: bytes, text: str, url: str | None = None) -> etree._Element:
    """The tree of ``response_tree(html_response(source, url=url))`` for the ``body`` and
    ``text`` that :func:`utf8_page` gives for ``source``, parsed as Scrapy's selector parses
    that response (parsel's parser, the base URL Scrapy finds in the first 4,096 characters),
    from ``body`` itself rather than from a third copy of the page, which parsel would encode
    from the text: the page's UTF-8 is already there, less the white space at its ends that
    parsel strips (when that is ASCII), unless it holds a NUL, which parsel removes. Raises
    :class:`NotADocumentError`."""
    problem = document_problem(body, text)
    if problem is not None:
        raise NotADocumentError(f"not an HTML document: {problem}")
    encoded = body[len(codecs.BOM_UTF8) :] if body.startswith(codecs.BOM_UTF8) else body
    content = text.strip()
    if b"\x00" in encoded:
        data = content.replace("\x00", "").encode("utf-8")
    elif content is text:
        data = encoded
    else:  # white space at the ends: cut from the bytes when it is ASCII
        head = len(text) - len(text.lstrip())
        tail = len(text) - head - len(content)
        ends = text[:head] + text[len(text) - tail :]
        data = encoded[head : len(encoded) - tail] if ends.isascii() else content.encode("utf-8")
    try:
        base_url = get_base_url(text[:4096], response_url(url), "utf-8")
        return _parsed(data, base_url)
    except ValueError:  # as selector_root: no base URL Scrapy can resolve
        return _parsed(data, None)


def _parsed(data: bytes, base_url: str | None) -> etree._Element:
    """The root parsel's selector builds for a text whose UTF-8, stripped of white space at its
    ends and of NULs, is ``data``: the same parser and options, and ``<html/>`` for a page
    that leaves no tree (parsel's ``create_root_node``, which would encode the text again)."""
    parser = lxml.html.HTMLParser(recover=True, encoding="utf-8", huge_tree=True)
    url = {} if base_url is None else {"base_url": base_url}
    root: etree._Element | None = etree.fromstring(data or b"<html/>", parser=parser, **url)
    if root is None:
        root = etree.fromstring(b"<html/>", parser=parser, **url)
    return root


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

    The tree is built as ``response.selector`` builds it, by a selector that is not cached on
    ``response``: a cached one refers back to the response, and that cycle would keep the body
    and its decoded text (each the size of the page) alive until the garbage collector runs.
    Here they go as soon as the caller drops the response. Raises :class:`NotADocumentError`
    (see :func:`document_problem`).
    """
    problem = document_problem(response.body, response.text)
    if problem is not None:
        raise NotADocumentError(f"not an HTML document: {problem}")
    return selector_root(response, cached=False)


def selector_root(response: TextResponse, *, cached: bool = True) -> etree._Element:
    """The root of ``response.selector``: the tree behind ``response.css()``, parsed once and
    cached by Scrapy (``cached=False`` parses it the same way without caching it). When
    Scrapy cannot build that selector because it cannot resolve the page's ``<base href>``
    (w3lib rejects a port that is not a number), the same text parsed the same way by parsel,
    without the base URL, and not cached."""
    try:
        root: etree._Element = (response.selector if cached else Selector(response)).root
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

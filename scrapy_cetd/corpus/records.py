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
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol

import lxml.html
from fastwarc import GzipReader, ZstdReader
from fastwarc.stream_io import BrotliReader
from lxml import etree

from scrapy_cetd.api import extract
from scrapy_cetd.corpus.warc import DEFAULT_MAX_BYTES, Skipped, WarcPage, iter_pages
from scrapy_cetd.extractors.registry import DEFAULT_ALGORITHM, build_extractor, page_types_given
from scrapy_cetd.limits import DEFAULT_MAX_NODES, DEFAULT_TIME_BUDGET, Limits, TreeExtractor
from scrapy_cetd.page.metadata import language_identifier
from scrapy_cetd.page.page_types import PAGE_TYPES
from scrapy_cetd.page.parse import (
    NotADocumentError,
    decoding_notes,
    document_problem,
    html_response,
    undecodable_note,
)
from scrapy_cetd.result import Metadata

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
    "file_path": ("string", "the WARC file the record was read from, as given"),
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


_LANGUAGE_SAMPLE = 4000
"""Characters of ``text`` read to identify its language: a bound on the time it takes (about
2 ms). The row's ``language`` is the text's, read further than the page metadata reads it
(whose language is the page's declared one, checked against the text's first characters)."""


def identify_language(text: str) -> tuple[str | None, float | None]:
    """``text``'s language (ISO 639-1) and py3langid's probability for it, from its first
    :data:`_LANGUAGE_SAMPLE` characters, newlines read as spaces; ``(None, None)`` for a text
    without letters."""
    sample = " ".join(text[:_LANGUAGE_SAMPLE].split())
    if not any(character.isalpha() for character in sample):
        return None, None
    # The metadata reader's identifier: one py3langid model in memory (about 115 MB), not two.
    language, probability = language_identifier().classify(sample)
    return str(language), round(float(probability), 4)


def check_languages(languages: Iterable[str]) -> None:
    """Raise ``ValueError`` naming the codes of ``languages`` that :func:`identify_language`
    never gives (py3langid's languages): a filter on them would keep nothing, and is a typo
    (``eng``, ``jp``)."""
    known = frozenset(str(code) for code in language_identifier().nb_classes)
    unknown = [code for code in languages if code not in known]
    if unknown:
        named = "is not a language" if len(unknown) == 1 else "are not languages"
        raise ValueError(
            f"languages: {', '.join(map(repr, unknown))} {named} py3langid identifies (ISO "
            "639-1 codes where there is one: en, de, ja, zh)"
        )


def checked_page_types(page_types: Iterable[str]) -> tuple[str, ...]:
    """``page_types`` as a filter keeps them: stripped and lower-cased. Raises ``ValueError``
    naming those that are not in :data:`PAGE_TYPES` (a filter on them would keep nothing), and
    for a single string, whose letters would be taken for types."""
    if isinstance(page_types, str):
        raise ValueError(f"page_types must be a sequence of types, not a string: {page_types!r}")
    kinds = tuple(kind.strip().lower() for kind in page_types)
    unknown = [kind for kind in kinds if kind not in PAGE_TYPES]
    if unknown:
        named = "is not a page type" if len(unknown) == 1 else "are not page types"
        raise ValueError(
            f"page_types: {', '.join(map(repr, unknown))} {named} (the types are "
            f"{', '.join(PAGE_TYPES)})"
        )
    return kinds


@dataclasses.dataclass(frozen=True)
class CorpusSettings:
    """What to extract and how: the same for every record of a run."""

    algorithm: str = DEFAULT_ALGORITHM
    """A registered algorithm name (:data:`scrapy_cetd.ALGORITHMS`) or the import path of an
    extractor class (:func:`~scrapy_cetd.extractors.registry.build_extractor`)."""
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """Keyword options for the extractor (JSON-serialisable values)."""
    html: bool = False
    """Also write the ``html`` column."""
    markdown: bool = False
    """Also write the ``markdown`` column (``ExtractionResult.markdown``)."""
    metadata: bool = True
    """Read the page metadata for ``authors``, ``published`` and the headline in ``title``
    (about 4 ms a page); without it those columns stay empty."""
    max_bytes: int = DEFAULT_MAX_BYTES
    """Largest body extracted, in bytes, as stored and once decoded."""
    max_nodes: int | None = DEFAULT_MAX_NODES
    """``extract()``'s ``max_nodes`` for every page (``None``: no limit)."""
    time_budget: float | None = DEFAULT_TIME_BUDGET
    """``extract()``'s ``time_budget`` for every page, in seconds (``None``: no limit)."""
    languages: tuple[str, ...] = ()
    """Keep only rows whose ``language`` is one of these (ISO 639-1 codes); empty: any."""
    min_language_score: float | None = None
    """Keep only rows whose ``language_score`` is at least this (0 to 1)."""
    min_words: int | None = None
    """Keep only rows whose ``text`` has at least this many words (whitespace-separated)."""
    page_types: tuple[str, ...] = ()
    """Keep only rows whose ``page_type`` is one of these (:data:`PAGE_TYPES`); empty: any. A
    row without a type is dropped when this is set. A filter the extractor cannot meet (an
    algorithm that does not classify pages, cetd-plus with ``detect_page_type=False`` and no
    ``page_type``, or a forced ``page_type`` left out) is a ``ValueError``."""
    min_page_type_confidence: float | None = None
    """Keep only rows whose ``page_type_confidence`` is at least this (0 to 1): the classifier's
    probability, so that a corpus keeps the pages typed with confidence. A ``ValueError`` with
    an extractor that gives no page type, as for ``page_types``."""

    def __post_init__(self) -> None:
        extractor = build_extractor(self.algorithm, self.options)  # ValueError early, not per row
        if isinstance(self.max_bytes, bool) or not self.max_bytes > 0:
            raise ValueError(f"max_bytes must be a positive number of bytes: {self.max_bytes}")
        Limits(self.max_bytes, self.max_nodes, self.time_budget)  # the same check as extract()
        languages = tuple(code.strip().lower() for code in self.languages)
        for code in languages:
            if not (code.isascii() and code.isalpha() and 2 <= len(code) <= 3):
                raise ValueError(f"languages: not an ISO 639 code: {code!r}")
        check_languages(languages)
        object.__setattr__(self, "languages", languages)
        score = self.min_language_score
        if score is not None and not 0 <= score <= 1:
            raise ValueError(f"min_language_score must be between 0 and 1: {score}")
        words = self.min_words
        if words is not None and (isinstance(words, bool) or words < 0):
            raise ValueError(f"min_words must be a number of words, 0 or more: {words}")
        object.__setattr__(self, "page_types", checked_page_types(self.page_types))
        confidence = self.min_page_type_confidence
        if confidence is not None and not 0 <= confidence <= 1:
            raise ValueError(f"min_page_type_confidence must be between 0 and 1: {confidence}")
        self._check_page_types_given(extractor)

    def _check_page_types_given(self, extractor: TreeExtractor) -> None:
        """Raise ``ValueError`` naming the page-type filter that would keep no row, as
        ``extractor`` gives no page type the filter keeps
        (:func:`~scrapy_cetd.extractors.registry.page_types_given`; a class of one's own is
        not checked): an algorithm that does not classify pages, cetd-plus with
        ``detect_page_type=False`` and no ``page_type``, or a ``page_type`` forced on every
        page that ``page_types`` leaves out. Hours of work would end in an empty corpus. A
        forced type that the filters keep is accepted: its confidence is 1.0."""
        given = page_types_given(extractor)
        if self.page_types:
            name, value = "page_types", ", ".join(map(repr, self.page_types))
            keeps = given is None or bool(given & set(self.page_types))
        elif self.min_page_type_confidence is not None:
            name, value = "min_page_type_confidence", repr(self.min_page_type_confidence)
            keeps = given is None or bool(given)
        else:
            return
        if keeps:
            return
        if given:
            why = f"gives every page the type {', '.join(sorted(given))} (its page_type option)"
        elif getattr(extractor, "detect_page_type", True) is False:
            why = "classifies no page with detect_page_type=False and no page_type"
        else:
            why = "does not classify pages (cetd-plus does)"
        raise ValueError(f"{name}: {value} would keep no row: algorithm {self.algorithm!r} {why}")

    @property
    def fields(self) -> tuple[str, ...]:
        """The output columns for these settings."""
        asked = {"html": self.html, "markdown": self.markdown}
        return tuple(name for name in FIELDS if asked.get(name, True))

    @property
    def filters(self) -> dict[str, Any]:
        """The row filters that are on, by option name (for the summary)."""
        active = {
            "languages": list(self.languages),
            "min_language_score": self.min_language_score,
            "min_words": self.min_words,
            "page_types": list(self.page_types),
            "min_page_type_confidence": self.min_page_type_confidence,
        }
        return {name: value for name, value in active.items() if value not in (None, [])}

    def rejects(self, row: Row) -> str | None:
        """Why ``row`` is filtered out (a key of :data:`FILTER_REASONS`), or ``None`` to keep it."""
        if self.languages and row["language"] not in self.languages:
            return "language"
        score = self.min_language_score
        if score is not None and (row["language_score"] is None or row["language_score"] < score):
            return "language_score"
        if self.min_words is not None and len(row["text"].split()) < self.min_words:
            return "min_words"
        if self.page_types and row["page_type"] not in self.page_types:
            return "page_type"
        confidence = self.min_page_type_confidence
        if confidence is not None and (
            row["page_type_confidence"] is None or row["page_type_confidence"] < confidence
        ):
            return "page_type_confidence"
        return None

    def digest(self) -> str:
        """A stable digest of everything that changes the output (the schema included)."""
        spec = [
            FIELDS,
            self.algorithm,
            dict(self.options),
            self.html,
            self.markdown,
            self.metadata,
            self.max_bytes,
            self.max_nodes,
            self.time_budget,
            self.languages,
            self.min_language_score,
            self.min_words,
            self.page_types,
            self.min_page_type_confidence,
        ]
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


FILTER_REASONS: Mapping[str, str] = {
    "language": "rows whose language is not one of --languages (or is unknown)",
    "language_score": "rows whose language_score is under --min-language-score",
    "min_words": "rows with fewer words than --min-words",
    "page_type": "rows whose page_type is not one of --page-types (or is unknown)",
    "page_type_confidence": "rows whose page_type_confidence is under --min-page-type-confidence",
}
"""Why a row is filtered out, by the name the summary counts it under."""


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


_CHUNK_SIZE = re.compile(rb"[ \t]*0*([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\n]*)?\r?\n")
"""A chunk's size line: the size in hex (leading zeros allowed), maybe extensions
(``;name=value``), CRLF or LF."""


def _unchunked(body: bytes, limit: int) -> bytes:
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


def _decoded(body: bytes, encodings: Sequence[str], max_bytes: int) -> bytes:
    """``body`` with its transfer and content codings undone, last applied first.

    Raises :class:`ValueError` for a coding that is unknown or does not decode, and
    :class:`OverflowError` when the decoded body exceeds ``max_bytes``.
    """
    for coding in reversed(encodings):
        if coding == "chunked":
            body = _unchunked(body, max_bytes + 1)
            if len(body) > max_bytes:
                raise OverflowError(f"over {max_bytes} bytes once {coding} decoded")
            continue
        source = io.BytesIO(body)
        decoder: _Decoder
        if coding in ("gzip", "x-gzip"):
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


def _page_body(page: WarcPage, max_bytes: int) -> bytes | Skipped:
    """The body of ``page`` with its content and transfer codings undone (:func:`_decoded`),
    or why it cannot be: ``too_large``, ``undecodable``."""
    try:
        return _decoded(page.body, page.encodings, max_bytes)
    except OverflowError as error:
        return Skipped("too_large", page.url, page.record_id, str(error))
    except ValueError as error:
        return Skipped("undecodable", page.url, page.record_id, str(error))


@dataclasses.dataclass(frozen=True)
class PageHtml:
    """A page's HTML as text, as :func:`page_html` gives it to a step that is handed pages as
    text, with what the text alone no longer tells of the page's bytes."""

    text: str
    """The HTML, decoded as :func:`extract_page` has ``extract()`` decode it."""
    size: int
    """The bytes it was decoded from (the body, its content and transfer codings undone): what
    ``extract()`` checks ``max_body_size`` against in :func:`extract_page`. The text's UTF-8
    size differs from it for every page not written in UTF-8 (twice as large for Cyrillic in
    windows-1251, half as large for UTF-16)."""
    notes: tuple[str, ...]
    """What decoding repaired or guessed (:data:`~scrapy_cetd.page.parse.NOTE_KINDS`): the
    notes that ``extract()`` of those bytes adds to the row's ``notes``, after the
    extractor's own."""


def page_html(page: WarcPage, max_bytes: int = DEFAULT_MAX_BYTES) -> PageHtml | Skipped:
    """The HTML of ``page`` as text, for a step that is handed pages as text (datatrove's
    extractors), or the :class:`Skipped` that :func:`extract_page` gives instead of a row.

    The body, its content and transfer codings undone, is decoded as :func:`extract_page`'s
    call of :func:`scrapy_cetd.extract` decodes it (:func:`~scrapy_cetd.page.parse.html_response`
    with the HTTP charset: the BOM, then the HTTP charset, the ``<meta>`` charset, detection),
    so that ``extract()`` of this text, with the same limits, gives the row's ``text``: it
    parses a ``str`` into the tree it parses the bytes into. The size of those bytes and the
    decoding notes come with it, since ``extract()`` of a ``str`` knows neither: its
    ``max_body_size`` would count the text's UTF-8 bytes, and it has no decoding to note. A
    body over ``max_bytes`` is ``too_large``; one whose codings do not decode, or that holds
    no document, ``undecodable``.
    """
    body = _page_body(page, max_bytes)
    if isinstance(body, Skipped):
        return body
    response = html_response(body, url=page.url, encoding=page.charset)
    problem = document_problem(response.body, response.text)
    if problem is not None:
        detail = f"not an HTML document: {problem}"
        return Skipped("undecodable", page.url, page.record_id, detail)
    notes = decoding_notes(body, page.charset, read_as=response.encoding)
    undecodable = undecodable_note(response)
    if undecodable is not None:
        notes += (undecodable,)
    return PageHtml(response.text, len(body), notes)


def extract_page(page: WarcPage, settings: CorpusSettings) -> Outcome:
    """The row for one page, or why there is none: **the per-record function**.

    Module-level and stateless, so it pickles by reference and gives the same result in any
    process (the local pool, a Dask worker). Once its content and transfer codings are undone,
    the body goes to :func:`scrapy_cetd.extract` with the HTTP charset and the settings'
    limits, so a row holds exactly what ``extract()`` gives for those bytes (decoding, limits,
    control-character cleaning and all), with the page's metadata. The row's ``title`` is the
    algorithm's headline, or the metadata's, or the page's ``<title>``. A body that holds no
    document is skipped as ``undecodable``. The row is made whatever the filters of
    ``settings`` say: :meth:`CorpusSettings.rejects` is asked separately.
    """
    body = _page_body(page, settings.max_bytes)
    if isinstance(body, Skipped):
        return body
    try:
        result = extract(
            body,
            algorithm=settings.algorithm,
            url=page.url,
            encoding=page.charset,
            max_body_size=settings.max_bytes,
            max_nodes=settings.max_nodes,
            time_budget=settings.time_budget,
            html=settings.html,
            metadata=settings.metadata,
            markdown=settings.markdown,
            **settings.options,
        )
    except NotADocumentError as error:
        return Skipped("undecodable", page.url, page.record_id, str(error))
    except Exception as error:  # one bad page must not stop a corpus run
        detail = f"{type(error).__name__}: {error}"
        return Skipped("extract_error", page.url, page.record_id, detail)
    text = result.text
    language, score = identify_language(text)
    metadata = result.metadata or Metadata()
    row: Row = {
        "text": text,
        "id": page.record_id,
        "url": page.url,
        "date": page.date,
        "file_path": page.file_path,
        "warc_offset": page.offset,
        "language": language,
        "language_score": score,
        "title": result.title or metadata.title or _page_title(body, page),
        "authors": list(metadata.authors),
        "published": metadata.published,
        "page_type": result.page_type,
        "page_type_confidence": result.page_type_confidence,
        "content_hash": content_hash(text),
        "extractor": result.algorithm,
        "extractor_version": VERSION,
        "reason": result.reason,
        "reason_code": None if result.reason_code is None else result.reason_code.value,
        "notes": list(result.notes),
    }
    if settings.html:
        row["html"] = result.html
    if settings.markdown:
        row["markdown"] = result.markdown or ""
    return row


def extract_batch(items: Sequence[WarcPage | Skipped], settings: CorpusSettings) -> list[Outcome]:
    """:func:`extract_page` over a batch, skips passed through: one task of the process pool."""
    return [item if isinstance(item, Skipped) else extract_page(item, settings) for item in items]


def extract_file(path: str | os.PathLike[str], settings: CorpusSettings) -> Iterator[Outcome]:
    """Every outcome of one WARC file, extracted in this process, in file order."""
    for item in iter_pages(path, max_bytes=settings.max_bytes):
        yield item if isinstance(item, Skipped) else extract_page(item, settings)

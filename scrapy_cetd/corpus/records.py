"""The per-record function: a :class:`~scrapy_cetd.corpus.warc.WarcPage` in, a row out.

:func:`extract_page` is a module-level, stateless function of a
:class:`~scrapy_cetd.corpus.warc.WarcPage` and the :class:`CorpusSettings` (both pickle), which
undoes the HTTP content and transfer codings and hands the body to :func:`scrapy_cetd.extract`,
with the same limits (``max_bytes``, ``max_nodes``, ``time_budget``), so a row is exactly what
``extract()`` gives for the body. The command's workers and the Dask tasks call it alike.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Sequence

import lxml.html
from lxml import etree

from scrapy_cetd.api import extract
from scrapy_cetd.corpus.codings import decoded
from scrapy_cetd.corpus.schema import VERSION, Row, content_hash
from scrapy_cetd.corpus.settings import CorpusSettings
from scrapy_cetd.corpus.warc import DEFAULT_MAX_BYTES, Skipped, WarcPage, iter_pages
from scrapy_cetd.guard import markup_problem
from scrapy_cetd.page.decoding import decoding_notes, html_response, undecodable_note
from scrapy_cetd.page.metadata import language_identifier
from scrapy_cetd.page.parse import NotADocumentError, document_problem
from scrapy_cetd.result import Metadata

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


Outcome = Row | Skipped


_TITLE_SCAN = 1 << 20
"""Characters of a decoded page searched for its ``<title>`` (it belongs in the head)."""


def _page_title(body: bytes, page: WarcPage) -> str | None:
    """The text of the page's first ``<title>``, whitespace collapsed: the body decoded as
    :func:`scrapy_cetd.extract` decodes it, and its beginning up to ``</title>`` parsed;
    ``None`` when that beginning holds a tag of more attributes than ``extract()`` lets a
    page have (:func:`~scrapy_cetd.guard.markup_problem`), which libxml2 would read in
    quadratic time (the page was refused for it, unparsed)."""
    text = html_response(body, url=page.url, encoding=page.charset).text[:_TITLE_SCAN]
    end = text.lower().find("</title")
    if end < 0 or markup_problem(text[:end]) is not None:
        return None
    try:
        head = lxml.html.document_fromstring(text[:end] + "</title>")
    except (ValueError, etree.LxmlError):
        return None
    for element in head.iter("title"):
        return " ".join("".join(str(part) for part in element.itertext()).split()) or None
    return None


def _page_body(page: WarcPage, max_bytes: int) -> tuple[bytes, tuple[str, ...]] | Skipped:
    """The body of ``page`` with its content and transfer codings undone
    (:func:`~scrapy_cetd.corpus.codings.decoded`) and the notes of the record and its codings
    for the row (a coding found already undone, then :meth:`WarcPage.notes`), or why it
    cannot be: ``too_large``, ``undecodable``."""
    try:
        body, notes = decoded(page.body, page.encodings, max_bytes)
        return body, notes + page.notes()
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
    """What decoding repaired or guessed (its :class:`~scrapy_cetd.result.NoteKind` notes): the
    notes that ``extract()`` of those bytes adds to the row's ``notes``, after the
    extractor's own; then those of the record and its codings (a coding found already undone,
    :meth:`~scrapy_cetd.corpus.warc.WarcPage.notes`), as the row has them last."""


def page_html(page: WarcPage, max_bytes: int = DEFAULT_MAX_BYTES) -> PageHtml | Skipped:
    """The HTML of ``page`` as text, for a step that is handed pages as text (datatrove's
    extractors), or the :class:`Skipped` that :func:`extract_page` gives instead of a row.

    The body, its content and transfer codings undone, is decoded as :func:`extract_page`'s
    call of :func:`scrapy_cetd.extract` decodes it (:func:`~scrapy_cetd.page.decoding.html_response`
    with the HTTP charset: the BOM, then the HTTP charset, the ``<meta>`` charset, detection),
    so that ``extract()`` of this text, with the same limits, gives the row's ``text``: it
    parses a ``str`` into the tree it parses the bytes into. The size of those bytes and the
    decoding notes come with it, since ``extract()`` of a ``str`` knows neither: its
    ``max_body_size`` would count the text's UTF-8 bytes, and it has no decoding to note. A
    body over ``max_bytes`` is ``too_large``; one whose codings do not decode, or that holds
    no document, ``undecodable``.
    """
    found = _page_body(page, max_bytes)
    if isinstance(found, Skipped):
        return found
    body, record_notes = found
    response = html_response(body, url=page.url, encoding=page.charset)
    problem = document_problem(response.body, response.text)
    if problem is not None:
        detail = f"not an HTML document: {problem}"
        return Skipped("undecodable", page.url, page.record_id, detail)
    notes = decoding_notes(body, page.charset, read_as=response.encoding)
    undecodable = undecodable_note(response)
    if undecodable is not None:
        notes += (undecodable,)
    return PageHtml(response.text, len(body), notes + record_notes)


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
    found = _page_body(page, settings.max_bytes)
    if isinstance(found, Skipped):
        return found
    body, record_notes = found
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
        "notes": [*result.notes, *record_notes],
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

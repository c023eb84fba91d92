"""scrapy-cetd as a `datatrove <https://github.com/huggingface/datatrove>`_ pipeline step.

Corpus builders (FineWeb and its followers) run their extraction inside datatrove, whose
``Trafilatura`` step turns each document's HTML into text. :class:`CetdExtractor` is a drop-in
for it: a subclass of the same base (``datatrove.pipeline.extractors.base.BaseExtractor``), with
the same document contract (``doc.text`` holds the HTML before and the main content after; a
document without main content is dropped; ``doc.metadata`` is kept, and with
``metadata=True`` the page's title, authors and publication date are added) and the same
``timeout`` per document, enforced the same way: the extraction runs in datatrove's sandbox
process, which is killed and restarted when a document takes longer. ``extract()`` is also
given the timeout as its ``time_budget``, so a slow page usually stops by itself (an empty
result, counted as a timeout) before the sandbox has to kill anything.

:class:`CetdWarcReader` reads WARC files by the command's rules
(:func:`~scrapy_cetd.corpus.warc.iter_pages`), in place of datatrove's ``WarcReader``: the
pages ``scrapy-cetd corpus`` extracts reach the extractor, decoded as it decodes them, so each
document's text after :class:`CetdExtractor` is the text of the command's row for that record.

:class:`LanguageFilter` is a language filter that needs no model download (py3langid, whose
model ships inside its package); it sets ``language`` and ``language_score`` in the metadata
under the names datatrove's own ``LanguageFilter`` (fastText, whose model is fetched on first
use) gives them, so either can follow the extractor. Install with
``pip install -e '.[datatrove]'`` in scrapy-cetd's checkout (it is not on PyPI yet).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

try:
    from datatrove.pipeline.extractors.base import (  # type: ignore[import-untyped]
        BaseExtractor,
        ExtractorSandbox,
    )
    from datatrove.pipeline.filters.base_filter import BaseFilter  # type: ignore[import-untyped]
    from datatrove.pipeline.readers.base import BaseDiskReader  # type: ignore[import-untyped]
    from datatrove.utils.logging import logger  # type: ignore[import-untyped]
    from datatrove.utils.typeshelper import StatHints  # type: ignore[import-untyped]
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "scrapy_cetd.corpus.datatrove_step needs the datatrove extra: "
        "pip install -e '.[datatrove]' in scrapy-cetd's checkout"
    ) from error

from scrapy_cetd.api import CompletingExtractor, Outputs, extract_with
from scrapy_cetd.corpus.records import identify_language, page_html
from scrapy_cetd.corpus.settings import check_languages
from scrapy_cetd.corpus.warc import DEFAULT_MAX_BYTES, NotAWarcError, Skipped, WarcPage, iter_pages
from scrapy_cetd.extractors.registry import DEFAULT_ALGORITHM, build_extractor
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES
from scrapy_cetd.limits import DEFAULT_MAX_BODY_SIZE, DEFAULT_MAX_NODES, Limits
from scrapy_cetd.page.parse import NotADocumentError
from scrapy_cetd.result import ExtractionResult, Reason

_WARMUP_PAGE = (
    "<html lang='en'><head><title>Warm-up</title><meta name='author' content='A. Writer'>"
    "<meta property='article:published_time' content='2024-01-02'></head><body><article>"
    "<h1>Warm-up</h1><p>A page extracted once before the first document, so that what the "
    "extractor loads on first use is loaded before the sandbox process starts.</p>"
    "</article></body></html>"
)
"""Extracted once in the step's process before the sandbox forks: the modules and models
that load on first use (the metadata readers, the language model) are then loaded in the
sandbox too, and the first documents are not charged for them against the timeout."""

_NOT_A_DOCUMENT = Reason.NOT_A_DOCUMENT.value
"""The reason code of a document whose text holds no HTML document."""

_TIMEOUT_CODES = (Reason.TIME_BUDGET.value,)
"""The reason codes of an empty result that count as a timeout."""


class CetdWarcReader(BaseDiskReader):  # type: ignore[misc]  # datatrove is untyped
    """WARC files read as ``scrapy-cetd corpus`` reads them: a document per HTML page the
    command extracts, in place of datatrove's ``WarcReader``.

    Each file is read by :func:`~scrapy_cetd.corpus.warc.iter_pages`, opened through the
    reader's ``DataFolder`` (so ``s3://`` and the other fsspec filesystems work as in
    datatrove; the file is read raw, gzipped member by member, Zstandard-compressed frame by
    frame or not, whatever its name). A
    document's ``text`` is the page's HTML decoded as the command decodes it
    (:func:`~scrapy_cetd.corpus.records.page_html`: codings undone, then the BOM, the HTTP
    charset, the ``<meta>`` charset, detection), its ``id`` the ``WARC-Record-ID``, and its
    metadata the command's columns ``url``, ``date``, ``file_path`` (the file's full path or
    URL) and ``warc_offset``; with ``body_size``, the bytes the text was decoded from (the
    body, its HTTP codings undone), which :class:`CetdExtractor` checks its ``max_bytes``
    against as the command's ``extract()`` does, and ``notes``, what decoding repaired or
    guessed, in the words of the command's ``notes`` column (``charset-guessed``,
    ``undecodable-bytes``, a charset label ignored), to which the extractor adds its own.
    Every other record is counted in the stats under ``skipped`` and
    ``skipped_<reason>`` (:data:`~scrapy_cetd.corpus.warc.SKIP_REASONS`: ``not_response``,
    ``http_status``, ``not_html``, ``too_large``, ``truncated``, ``corrupt``,
    ``undecodable``), so the reader's ``documents`` and ``skipped`` add up to the records
    read. Damage never fails the run: a damaged or cut-off part of a file is counted (and
    logged) and reading goes on after it; a file that holds no WARC data is counted under
    ``not_warc_files`` and logged. A file that cannot be opened or read raises, as in
    datatrove's readers (the task fails, and a rerun of the executor redoes it).

    The arguments are those of datatrove's ``WarcReader`` (``compression`` aside: gzip and
    Zstandard are found by their magic bytes; all but the first two by keyword), and
    ``max_bytes``, the command's ``--max-bytes``: a larger body, as stored or once decoded, is
    ``too_large``.
    """

    name = "🕷 Warc (scrapy-cetd)"

    def __init__(
        self,
        data_folder: Any,
        paths_file: Any = None,
        *,
        limit: int = -1,
        skip: int = 0,
        file_progress: bool = False,
        doc_progress: bool = False,
        adapter: Callable[..., dict[str, Any]] | None = None,
        text_key: str = "text",
        id_key: str = "id",
        default_metadata: dict[str, Any] | None = None,
        recursive: bool = True,
        glob_pattern: str | None = None,
        shuffle_files: bool = False,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        if isinstance(max_bytes, bool) or not max_bytes > 0:
            raise ValueError(f"max_bytes must be a positive number of bytes: {max_bytes}")
        super().__init__(
            data_folder,
            paths_file,
            limit=limit,
            skip=skip,
            file_progress=file_progress,
            doc_progress=doc_progress,
            adapter=adapter,
            text_key=text_key,
            id_key=id_key,
            default_metadata=default_metadata,
            recursive=recursive,
            glob_pattern=glob_pattern,
            shuffle_files=shuffle_files,
        )
        self.max_bytes = max_bytes

    def read_file(self, filepath: str) -> Iterator[Any]:
        """The documents of the WARC file ``filepath`` (relative to the data folder), in file
        order (datatrove's reader contract); the other records counted."""
        name = self.data_folder.resolve_paths(filepath)
        with self.data_folder.open(filepath, "rb") as raw:
            items = iter_pages(raw, max_bytes=self.max_bytes, name=name)
            for position in itertools.count():
                with self.track_time():
                    try:
                        item = next(items, None)
                    except NotAWarcError as error:
                        self.stat_update("not_warc_files", unit="input_file")
                        logger.warning(f"Not read: {error}")
                        return
                    if item is None:
                        return
                    document = self._document(item, filepath, position)
                if document is not None:
                    yield document

    def _document(self, item: WarcPage | Skipped, filepath: str, position: int) -> Any:
        """The document of ``item``, or ``None`` (the skip counted)."""
        if isinstance(item, Skipped):
            self._count(item)
            return None
        html = page_html(item, self.max_bytes)
        if isinstance(html, Skipped):
            self._count(html)
            return None
        data = {
            self.text_key: html.text,
            self.id_key: item.record_id,
            "url": item.url,
            "date": item.date,
            "file_path": item.file_path,
            "warc_offset": item.offset,
            "body_size": html.size,
            "notes": list(html.notes),
        }
        return self.get_document_from_dict(data, filepath, position)

    def _count(self, skipped: Skipped) -> None:
        """Count ``skipped`` under its reason; log a loss to damage."""
        self.stat_update("skipped", f"skipped_{skipped.reason}")
        if skipped.reason in ("truncated", "corrupt"):
            where = f"{skipped.url}: " if skipped.url else ""
            logger.warning(f"WARC record lost, {skipped.reason}: {where}{skipped.detail}")


class CetdExtractor(BaseExtractor):  # type: ignore[misc]  # datatrove is untyped
    """The main content of each document's HTML, by a scrapy-cetd algorithm (``cetd-plus``
    by default): a drop-in for datatrove's ``Trafilatura`` step.

    ``algorithm`` and ``options`` are those of :func:`scrapy_cetd.extract`; ``timeout`` is
    the seconds a document may take (datatrove's default, 1 s); ``max_bytes``, ``max_nodes``
    and ``max_attributes`` are ``extract()``'s limits, with its defaults
    (``max_attributes=None`` skips its scan of the page before the parse: the sandbox's
    timeout then bounds a parse slowed by a tag of thousands of attributes, which ``extract()``
    refuses). The text is ``extract()``'s, asked for alone (``html=False``), with the
    extractor and limits built once, here (:func:`scrapy_cetd.api.extract_with`).

    ``max_bytes`` is checked against the bytes the page was decoded from, where the document
    says how many: the ``body_size`` in its metadata (:class:`CetdWarcReader` gives it), as
    ``scrapy-cetd corpus`` has ``extract()`` check it on the body; the same page is then kept
    or dropped by both, whatever its encoding (a page in windows-1251 is twice as large in
    UTF-8, one in UTF-16 half as large). A document without it (from datatrove's
    ``WarcReader``, or any reader of text) has only its text, and the limit counts the text's
    UTF-8 bytes, as ``extract()`` does with a ``str``. Each document the step hands on has
    ``notes`` in its metadata, the command's ``notes`` column: the extractor's notes, then
    those the reader put there (:class:`CetdWarcReader`'s decoding notes), an empty list when
    there are none.

    With ``metadata``, the page's ``title``,
    ``authors`` and ``published`` are added to ``doc.metadata``, on every document (``None``
    or ``[]`` when the page gives none, so that every document has the same keys; reading them
    costs about 60% more time per page, so it is off by default, as the ``Trafilatura`` step
    adds none); ``page_type`` and ``page_type_confidence`` are added when the algorithm
    classifies pages. For datatrove's
    ``ParquetWriter``, give it :func:`parquet_schema`. Stats, as datatrove's extractors count
    them: ``total``, ``extracted``, ``forwarded``, ``dropped``, ``timeout``,
    ``broken_process``, ``clean_error``; and ``empty_<code>`` per
    :class:`~scrapy_cetd.result.Reason` of the documents dropped without main content.
    """

    name = "⛏ scrapy-cetd"

    def __init__(
        self,
        algorithm: str = DEFAULT_ALGORITHM,
        timeout: float = 1,
        *,
        metadata: bool = False,
        max_bytes: int = DEFAULT_MAX_BODY_SIZE,
        max_nodes: int | None = DEFAULT_MAX_NODES,
        max_attributes: int | None = DEFAULT_MAX_ATTRIBUTES,
        **options: Any,
    ) -> None:
        super().__init__(timeout)
        extractor = build_extractor(algorithm, options)  # an unknown algorithm or option fails here
        self.limits = Limits(max_bytes, max_nodes, timeout, max_attributes)  # and a bad limit
        self._unsized = dataclasses.replace(self.limits, max_body_size=None)
        """The limits for a page whose size was checked already (``body_size``)."""
        self.extractor = CompletingExtractor(extractor, Outputs(html=False, metadata=metadata))
        self.algorithm = algorithm
        self.metadata = metadata
        self.max_bytes = max_bytes
        self.max_nodes = max_nodes
        self.max_attributes = max_attributes
        self.options = options

    def extract(self, text: str) -> str:
        """The main content of the HTML ``text`` (datatrove's extractor contract)."""
        return str(self.extract_document(text, None)["text"])

    def extract_document(
        self, html: str, url: str | None, size: int | None = None
    ) -> dict[str, Any]:
        """The main content of ``html`` and what to add to the document's metadata: a dict
        with ``text``, ``code`` (the :class:`~scrapy_cetd.result.Reason` of an empty result,
        or ``None``), ``metadata`` and ``notes`` (the result's). ``size`` is the bytes
        ``html`` was decoded from, checked against ``max_bytes`` in place of the text's UTF-8
        size, or ``None``. Runs in the sandbox process."""
        try:
            result = self._extract(html, url, size)
        except NotADocumentError:
            return {"text": "", "code": _NOT_A_DOCUMENT, "metadata": {}, "notes": []}
        found = result.metadata  # None when the budget ran out while it was read
        added: dict[str, Any] = {}
        if self.metadata:
            added = {
                "title": result.title or (found.title if found else None) or None,
                "authors": list(found.authors) if found else [],
                "published": found.published if found else None,
            }
        if result.page_type is not None:
            added["page_type"] = result.page_type
            added["page_type_confidence"] = result.page_type_confidence
        code = None if result.reason_code is None else result.reason_code.value
        return {"text": result.text, "code": code, "metadata": added, "notes": list(result.notes)}

    def _extract(self, html: str, url: str | None, size: int | None) -> ExtractionResult:
        """``extract()``'s result for ``html``, its size limit checked on ``size`` when given."""
        if size is None:
            return extract_with(self.extractor, self.limits, html, url=url)
        refused = self.limits.size_reason(size)
        if refused is not None:
            return refused.result(self.extractor.name)
        return extract_with(self.extractor, self._unsized, html, url=url)

    def run(self, data: Iterator[Any], rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        """Each document with its HTML replaced by the main content, in datatrove's sandbox
        (the base class's loop, with the metadata and reason codes kept)."""
        warmup = (_WARMUP_PAGE, "https://warm-up.invalid/")
        self.extract_document(*warmup)
        with ExtractorSandbox(timeout=self.timeout, warmup_text=warmup) as sandbox:
            for doc in data:
                self.stat_update(StatHints.total)
                with self.track_time():
                    try:
                        page = (doc.text, doc.metadata.get("url"), _body_size(doc))
                        found = sandbox.process_document(page, self.extract_document)
                    except TimeoutError:
                        self.stat_update("timeout")
                        continue
                    except EOFError:  # the sandbox died (out of memory): a new one follows
                        self.stat_update("broken_process")
                        continue
                    except Exception:  # one bad document must not stop the pipeline
                        self.stat_update("clean_error")
                        continue
                self.stat_update("extracted")
                doc.text = found["text"]
                doc.metadata.update(found["metadata"])
                doc.metadata["notes"] = [*found["notes"], *(doc.metadata.get("notes") or ())]
                if doc.text:
                    self.stat_update(StatHints.forwarded)
                    self.update_doc_stats(doc)
                    yield doc
                elif found["code"] in _TIMEOUT_CODES:
                    self.stat_update("timeout")
                else:
                    self.stat_update(StatHints.dropped, f"empty_{found['code']}")


def _body_size(doc: Any) -> int | None:
    """The ``body_size`` of ``doc``'s metadata (:class:`CetdWarcReader`'s), or ``None``."""
    size = doc.metadata.get("body_size")
    return size if isinstance(size, int) and not isinstance(size, bool) else None


def parquet_schema(*, expand_metadata: bool = False, **metadata: Any) -> Any:
    """The ``pyarrow.Schema`` of the documents a pipeline of :class:`CetdWarcReader` (or
    datatrove's ``WarcReader``), :class:`CetdExtractor` and :class:`LanguageFilter` hands to
    datatrove's ``ParquetWriter(..., schema=parquet_schema())``: ``text``, ``id`` and the
    metadata (the reader's ``url``, ``date``, ``file_path``, ``warc_offset`` and
    ``body_size``, the last two null after datatrove's reader; ``title``, ``authors``,
    ``published``, ``page_type``, ``page_type_confidence``, ``notes``; ``language`` and
    ``language_score``), plus the
    ``metadata`` fields given here by name with their pyarrow type (a reader's
    ``default_metadata``). With
    ``expand_metadata``, as the writer's option of that name, the metadata fields are columns
    beside ``text`` and ``id``.

    Without a schema, the writer takes its file's from the first document: a page without
    authors or date (a shop's) gives those fields no type, and the first batch that has them
    fails with "Table schema does not match schema used to create file". A metadata field the
    schema does not name is left out of the file."""
    import pyarrow as pa  # noqa: PLC0415 - datatrove's Parquet writer needs it, the step not

    fields = {
        "url": pa.string(),
        "date": pa.string(),
        "file_path": pa.string(),
        "warc_offset": pa.int64(),
        "body_size": pa.int64(),
        "title": pa.string(),
        "authors": pa.list_(pa.string()),
        "published": pa.string(),
        "page_type": pa.string(),
        "page_type_confidence": pa.float64(),
        "notes": pa.list_(pa.string()),
        "language": pa.string(),
        "language_score": pa.float64(),
        **metadata,
    }
    if expand_metadata:
        return pa.schema({"text": pa.string(), "id": pa.string(), **fields})
    return pa.schema({"text": pa.string(), "id": pa.string(), "metadata": pa.struct(fields)})


class LanguageFilter(BaseFilter):  # type: ignore[misc]  # datatrove is untyped
    """Keep the documents in ``languages`` (ISO 639-1 codes; ``None``: any) whose language
    score is above ``language_threshold``; sets ``language`` and ``language_score`` in the
    metadata, as datatrove's ``LanguageFilter`` does, with py3langid (no model download)."""

    name = "🌍 Language ID (py3langid)"

    def __init__(
        self,
        languages: Sequence[str] | str | None = None,
        language_threshold: float = 0.65,
        exclusion_writer: Any = None,
    ) -> None:
        super().__init__(exclusion_writer)
        self.languages = [languages] if isinstance(languages, str) else languages
        check_languages(self.languages or ())
        self.language_threshold = language_threshold

    def filter(self, doc: Any) -> bool:
        """Whether to keep ``doc`` (datatrove's filter contract)."""
        language, score = identify_language(doc.text)
        doc.metadata["language"] = language
        doc.metadata["language_score"] = score
        if language is None or score is None or score <= self.language_threshold:
            return False
        return self.languages is None or language in self.languages

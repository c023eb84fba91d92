"""What a corpus run extracts and which rows it keeps: :class:`CorpusSettings`, the same for
every record of a run, checked when made (a filter that would keep nothing is refused then,
not found out after hours of work)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from scrapy_cetd.corpus.schema import FIELDS, Row
from scrapy_cetd.corpus.warc import DEFAULT_MAX_BYTES
from scrapy_cetd.extractors.registry import DEFAULT_ALGORITHM, build_extractor, page_types_given
from scrapy_cetd.limits import DEFAULT_MAX_NODES, DEFAULT_TIME_BUDGET, Limits, TreeExtractor
from scrapy_cetd.page.metadata import language_identifier
from scrapy_cetd.page.page_types import PAGE_TYPES


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
    row without a type, or without text (which keeps its page's type), is dropped when this is
    set. A filter the extractor cannot meet (an
    algorithm that does not classify pages, cetd-plus with ``detect_page_type=False`` and no
    ``page_type``, or a forced ``page_type`` left out) is a ``ValueError``."""
    min_page_type_confidence: float | None = None
    """Keep only rows whose ``page_type_confidence`` is at least this (0 to 1): the classifier's
    probability, so that a corpus keeps the pages typed with confidence; a row without text is
    dropped, as by ``page_types``. A ``ValueError`` with
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
        # A row without text keeps its page's type (the page was typed before it was found
        # empty), but a filter of pages by type keeps pages with content of that type.
        empty = not row["text"]
        if self.page_types and (empty or row["page_type"] not in self.page_types):
            return "page_type"
        confidence = self.min_page_type_confidence
        if confidence is not None and (
            empty or row["page_type_confidence"] is None or row["page_type_confidence"] < confidence
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

"""The counts of a corpus run: per input file (:class:`FileSummary`) and in all."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from typing import Any

from scrapy_cetd.corpus.records import Outcome
from scrapy_cetd.corpus.settings import FILTER_REASONS
from scrapy_cetd.corpus.warc import SKIP_REASONS, Skipped
from scrapy_cetd.limits import LIMITS
from scrapy_cetd.result import NoteKind

_ENCODINGS = "(docs: Corpus runs and encodings)"

NOTE_MEANINGS: Mapping[str, str] = {
    NoteKind.HTTP_CHARSET_IGNORED: f"rows whose HTTP charset names no text encoding {_ENCODINGS}",
    NoteKind.META_CHARSET_IGNORED: (
        f"rows whose <meta> charset names no text encoding {_ENCODINGS}"
    ),
    NoteKind.META_CHARSET_UTF16: (
        f"rows whose <meta> charset says UTF-16, read as UTF-8 {_ENCODINGS}"
    ),
    NoteKind.UNDECODABLE_BYTES: (
        f"rows with bytes their encoding does not read, U+FFFD {_ENCODINGS}"
    ),
    NoteKind.CHARSET_GUESSED: (
        f"rows whose encoding nothing declares, read by a guess {_ENCODINGS}"
    ),
    NoteKind.LINKS_LEFT_RELATIVE: (
        "rows whose links were left relative, past the growth bound "
        "(docs: Markdown, absolute links and the clean HTML)"
    ),
    NoteKind.URL_NOT_ABSOLUTE: (
        "rows whose URL is no absolute URL, their links left as written (docs: Markdown, "
        "absolute links and the clean HTML)"
    ),
    NoteKind.OUTPUTS_GIVEN_UP: (
        "rows whose metadata, Markdown or absolute links were given up for the time budget "
        "(docs: Robustness and limits)"
    ),
    NoteKind.DATE_SEARCH_CUT_SHORT: (
        "rows without a published date whose date search the time budget cut short "
        "(docs: Page metadata)"
    ),
    NoteKind.PAYLOAD_TRUNCATED: (
        "rows whose WARC record holds only part of the payload (WARC-Truncated; "
        "docs: Corpus extraction)"
    ),
    NoteKind.CODING_ALREADY_UNDONE: (
        "rows whose body was stored decoded, its Content-Encoding kept (docs: Corpus extraction)"
    ),
}
"""What the rows with each kind of note (each :class:`~scrapy_cetd.result.NoteKind`) had, for
the summary's ``note`` lines, and the page of the documentation that says more: the notes come
from decoding, from finishing the HTML, from the time budget and from the WARC record, so a
pointer to the encodings fits only some. Keyed by the members, which equal the kinds the rows'
notes are counted under."""

_OTHER_NOTE = "rows with a note of this kind (see their notes column)"
"""The summary's words for a kind of note :data:`NOTE_MEANINGS` does not know (an extractor
class of one's own may add notes)."""

_DAMAGE_SHOWN = 100
"""Losses to damage listed per file in the stats (all are counted)."""


@dataclasses.dataclass
class FileSummary:
    """The counts of one input file (also the content of its part's ``.json`` marker)."""

    path: str
    records: int = 0
    """WARC records read; a cut-off or corrupt end of the file counts as one."""
    pages: int = 0
    """Pages extracted (each gives a row, unless a filter drops it)."""
    empty: int = 0
    """Rows without main content (their ``reason`` says why)."""
    skipped: dict[str, int] = dataclasses.field(default_factory=dict)
    """Records without a row, by reason (:data:`SKIP_REASONS`)."""
    limits: dict[str, int] = dataclasses.field(default_factory=dict)
    """Empty rows because a limit was hit, by limit (``max_nodes``, ``time_budget``, …)."""
    notes: dict[str, int] = dataclasses.field(default_factory=dict)
    """Rows whose page needed a repair, by kind of note (a charset label ignored, …)."""
    damage: list[str] = dataclasses.field(default_factory=list)
    """Where the file is damaged: the first :data:`_DAMAGE_SHOWN` ``truncated`` and
    ``corrupt`` losses, as ``"<reason>: <detail>"`` (offsets in the data read)."""
    filtered: dict[str, int] = dataclasses.field(default_factory=dict)
    """Rows dropped by a filter, by filter (:data:`~scrapy_cetd.corpus.settings.FILTER_REASONS`)."""
    seconds: float = 0.0
    resumed: bool = False
    """Done by an earlier run: the part was kept, these counts are that run's."""
    error: str | None = None
    """Why the file could not be read to its end (its part is not kept: a rerun retries it)."""

    @property
    def rows(self) -> int:
        """Rows written to the file's part."""
        return self.pages - sum(self.filtered.values())

    def count(self, outcome: Outcome, rejected: str | None = None) -> None:
        """Count one outcome; ``rejected`` names the filter that dropped its row, if any."""
        self.records += 1
        if isinstance(outcome, Skipped):
            self.skipped[outcome.reason] = self.skipped.get(outcome.reason, 0) + 1
            damaged = outcome.reason in ("truncated", "corrupt")
            if damaged and len(self.damage) < _DAMAGE_SHOWN:
                where = f"{outcome.url}: " if outcome.url else ""
                self.damage.append(f"{outcome.reason}: {where}{outcome.detail}")
            return
        self.pages += 1
        self.empty += outcome["reason"] is not None
        code = outcome["reason_code"]
        if code in LIMITS:
            self.limits[code] = self.limits.get(code, 0) + 1
        for note in outcome["notes"]:
            kind = note.partition(":")[0]
            self.notes[kind] = self.notes.get(kind, 0) + 1
        if rejected is not None:
            self.filtered[rejected] = self.filtered.get(rejected, 0) + 1


@dataclasses.dataclass
class CorpusSummary:
    """What a :func:`~scrapy_cetd.corpus.run.run_corpus` run did."""

    out: str
    jobs: int
    files: list[FileSummary]
    seconds: float
    algorithm: str = ""
    """The algorithm that made the rows (each row's ``extractor`` names it too)."""
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    """The algorithm's options (``-O``), as the extractor got them: the rows do not record
    them, so the summary (and the ``--stats`` file) is where a run says how it extracted."""
    filters: dict[str, Any] = dataclasses.field(default_factory=dict)
    """The row filters that were on (``languages``, ``min_language_score``, ``min_words``,
    ``page_types``, ``min_page_type_confidence``, ``dedup``), by option name."""
    duplicates: int = 0
    """Rows dropped by ``dedup`` (the output was assembled only if the run completed)."""
    distinct_texts: int = 0
    """Distinct texts ``dedup`` kept in memory."""
    interrupted: bool = False
    """The run was stopped (Ctrl-C) before every input was done: ``out`` was not written."""
    parts: str = ""
    """The folder of finished parts; removed once ``out`` is written."""
    inputs: int = 0
    """The input files of the run (:attr:`files` holds those done, or failed)."""

    @property
    def complete(self) -> bool:
        """Whether every input was done, so ``out`` was written."""
        return not self.interrupted and not self.failed

    @property
    def failed(self) -> list[FileSummary]:
        """The inputs that could not be read to their end."""
        return [item for item in self.files if item.error is not None]

    @property
    def records(self) -> int:
        return sum(item.records for item in self.files)

    @property
    def pages(self) -> int:
        return sum(item.pages for item in self.files)

    @property
    def rows(self) -> int:
        """Rows in the output: pages extracted less those filtered out and the duplicates."""
        return sum(item.rows for item in self.files) - self.duplicates

    @property
    def skipped(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for item in self.files:
            total.update(item.skipped)
        return {reason: total[reason] for reason in SKIP_REASONS if total[reason]}

    @property
    def filtered(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for item in self.files:
            total.update(item.filtered)
        counts = {reason: total[reason] for reason in FILTER_REASONS if total[reason]}
        if "dedup" in self.filters:
            counts["duplicate"] = self.duplicates
        return counts

    @property
    def limits(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for item in self.files:
            total.update(item.limits)
        return {limit: total[limit] for limit in LIMITS if total[limit]}

    @property
    def notes(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for item in self.files:
            total.update(item.notes)
        return dict(sorted(total.items()))

    @property
    def pages_per_second(self) -> float:
        """Pages extracted per second of this run (files resumed from earlier runs excluded)."""
        pages = sum(item.pages for item in self.files if not item.resumed)
        return pages / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": self.out,
            "complete": self.complete,
            "interrupted": self.interrupted,
            "jobs": self.jobs,
            "algorithm": self.algorithm,
            "options": self.options,
            "records": self.records,
            "pages": self.pages,
            "rows": self.rows,
            "empty": sum(item.empty for item in self.files),
            "skipped": self.skipped,
            "filters": self.filters,
            "filtered": self.filtered,
            "distinct_texts": self.distinct_texts,
            "limits": self.limits,
            "notes": self.notes,
            "failed": {item.path: item.error for item in self.failed},
            "seconds": round(self.seconds, 3),
            "pages_per_second": round(self.pages_per_second, 2),
            "files": [dataclasses.asdict(item) for item in self.files],
        }

    def format(self) -> str:
        """The summary the command prints."""
        resumed = sum(item.resumed for item in self.files)
        empty = sum(item.empty for item in self.files)
        target = self.out if self.complete else f"{self.parts} (not assembled)"
        lines = [
            f"{len(self.files)} WARC file(s)"
            + (f" ({resumed} already done, skipped)" if resumed else "")
            + f", {self.records:,} records, {self.pages:,} pages extracted"
            + f" ({empty:,} without main content), {self.rows:,} rows -> {target}",
            f"  {self.seconds:.1f} s, {self.pages_per_second:.1f} pages/s with {self.jobs} job(s)",
        ]
        if self.options:
            given = " ".join(f"-O {name}={value}" for name, value in self.options.items())
            lines.append(f"  extractor {self.algorithm} {given}")
        for reason, count in self.skipped.items():
            lines.append(f"  skipped {reason:<14} {count:>8,}  {SKIP_REASONS[reason]}")
        if self.filters:
            shown = ", ".join(f"{name}={value}" for name, value in self.filters.items())
            lines.append(f"  filters {shown}")
        for reason, count in self.filtered.items():
            meaning = FILTER_REASONS.get(reason, "rows whose text an earlier row already had")
            lines.append(f"  filtered {reason:<14} {count:>8,}  {meaning}")
        for limit, count in self.limits.items():
            lines.append(f"  limit   {limit:<14} {count:>8,}  empty rows: the page hit {limit}")
        for kind, count in self.notes.items():
            meaning = NOTE_MEANINGS.get(kind, _OTHER_NOTE)
            lines.append(f"  note    {kind:<20} {count:>8,}  {meaning}")
        for item in self.failed:
            lines.append(f"  failed  {item.path}: {item.error}")
        return "\n".join(lines)

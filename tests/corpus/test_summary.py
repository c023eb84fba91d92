"""The counts of a corpus run and the summary the command prints:
:mod:`scrapy_cetd.corpus.summary`."""

from __future__ import annotations

from scrapy_cetd.corpus.summary import NOTE_MEANINGS, CorpusSummary, FileSummary
from scrapy_cetd.result import NoteKind

DECODING = (
    NoteKind.HTTP_CHARSET_IGNORED,
    NoteKind.META_CHARSET_IGNORED,
    NoteKind.META_CHARSET_UTF16,
    NoteKind.UNDECODABLE_BYTES,
    NoteKind.CHARSET_GUESSED,
)
"""The kinds of note that decoding a page's bytes gives."""


def note_lines(notes: dict[str, int]) -> dict[str, str]:
    """The summary's ``note`` lines for a run whose rows had ``notes``, by kind."""
    summary = CorpusSummary("rows.jsonl", 1, [FileSummary("a.warc.gz", notes=notes)], 1.0)
    lines = [line.split() for line in summary.format().splitlines()]
    return {words[1]: " ".join(words[3:]) for words in lines if words[0] == "note"}


def test_each_kind_of_note_is_described_in_its_own_words() -> None:
    """Every kind has its meaning; only the decoding notes point at the docs on encodings, the
    time budget's and the links' notes point at their own pages."""
    assert set(NOTE_MEANINGS) == set(NoteKind)
    kinds = [kind.value for kind in NoteKind]
    shown = note_lines(dict.fromkeys(kinds, 2))
    assert sorted(shown) == sorted(kinds)
    assert len(set(shown.values())) == len(kinds)
    for kind in DECODING:
        assert shown[kind].endswith("(docs: Corpus runs and encodings)")
    assert "time budget" in shown[NoteKind.OUTPUTS_GIVEN_UP]
    assert "encodings" not in shown[NoteKind.OUTPUTS_GIVEN_UP]
    assert "encodings" not in shown[NoteKind.LINKS_LEFT_RELATIVE]
    assert "time budget" in shown[NoteKind.DATE_SEARCH_CUT_SHORT]


def test_a_kind_of_note_of_one_s_own_extractor_points_at_the_notes_column() -> None:
    shown = note_lines({"my-extractor-note": 1})
    assert shown == {"my-extractor-note": "rows with a note of this kind (see their notes column)"}

"""The counts of a corpus run and the summary the command prints:
:mod:`scrapy_cetd.corpus.summary`."""

from __future__ import annotations

from scrapy_cetd.api import OUTPUTS_GIVEN_UP
from scrapy_cetd.corpus.codings import CODING_ALREADY_UNDONE
from scrapy_cetd.corpus.summary import NOTE_MEANINGS, CorpusSummary, FileSummary
from scrapy_cetd.corpus.warc import PAYLOAD_TRUNCATED
from scrapy_cetd.page.decoding import NOTE_KINDS
from scrapy_cetd.page.finish import LINKS_LEFT_RELATIVE
from scrapy_cetd.page.metadata import DATE_SEARCH_CUT_SHORT


def note_lines(notes: dict[str, int]) -> dict[str, str]:
    """The summary's ``note`` lines for a run whose rows had ``notes``, by kind."""
    summary = CorpusSummary("rows.jsonl", 1, [FileSummary("a.warc.gz", notes=notes)], 1.0)
    lines = [line.split() for line in summary.format().splitlines()]
    return {words[1]: " ".join(words[3:]) for words in lines if words[0] == "note"}


def test_each_kind_of_note_is_described_in_its_own_words() -> None:
    """Only the decoding notes point at the docs on encodings; the time budget's and the
    links' notes point at their own pages."""
    kinds = [
        *NOTE_KINDS,
        LINKS_LEFT_RELATIVE,
        OUTPUTS_GIVEN_UP,
        DATE_SEARCH_CUT_SHORT,
        PAYLOAD_TRUNCATED,
        CODING_ALREADY_UNDONE,
    ]
    assert set(NOTE_MEANINGS) == set(kinds)
    shown = note_lines(dict.fromkeys(kinds, 2))
    assert sorted(shown) == sorted(kinds)
    assert len(set(shown.values())) == len(kinds)
    for kind in NOTE_KINDS:
        assert shown[kind].endswith("(docs: Corpus runs and encodings)")
    assert "time budget" in shown[OUTPUTS_GIVEN_UP]
    assert "encodings" not in shown[OUTPUTS_GIVEN_UP]
    assert "encodings" not in shown[LINKS_LEFT_RELATIVE]
    assert "time budget" in shown[DATE_SEARCH_CUT_SHORT]


def test_a_kind_of_note_of_one_s_own_extractor_points_at_the_notes_column() -> None:
    shown = note_lines({"my-extractor-note": 1})
    assert shown == {"my-extractor-note": "rows with a note of this kind (see their notes column)"}

"""Kinds of note: each :class:`~scrapy_cetd.NoteKind` keeps the value that written corpora and
users' code hold, and a note is written as it always was, a plain string
``"<kind>: <detail>"``, in the result, the corpus row, the summary and its JSON; an extractor
of one's own adds notes of its own kinds beside them."""

from __future__ import annotations

import json
import pickle
from typing import Any

import scrapy_cetd
from scrapy_cetd import NoteKind
from scrapy_cetd.corpus import CorpusSummary, FileSummary
from scrapy_cetd.corpus.records import extract_page
from scrapy_cetd.corpus.settings import CorpusSettings
from scrapy_cetd.corpus.warc import WarcPage

WRITTEN = {
    "HTTP_CHARSET_IGNORED": "http-charset-ignored",
    "META_CHARSET_IGNORED": "meta-charset-ignored",
    "META_CHARSET_UTF16": "meta-charset-utf-16",
    "UNDECODABLE_BYTES": "undecodable-bytes",
    "CHARSET_GUESSED": "charset-guessed",
    "LINKS_LEFT_RELATIVE": "links-left-relative",
    "URL_NOT_ABSOLUTE": "url-not-absolute",
    "OUTPUTS_GIVEN_UP": "outputs-given-up",
    "DATE_SEARCH_CUT_SHORT": "date-search-cut-short",
    "PAYLOAD_TRUNCATED": "payload-truncated",
    "CODING_ALREADY_UNDONE": "coding-already-undone",
}
"""Every kind, as the corpora written before the enum hold it."""

STORY = (
    "<html><body><article><h1>Storm warning</h1>"
    + "<p>The coast expects strong winds and heavy rain through the night.</p>" * 5
    + "</article></body></html>"
)

HEX_NOTE = (
    "http-charset-ignored: the HTTP charset 'hex' is not a text encoding of the WHATWG "
    "Encoding Standard"
)


class NotingExtractor:
    """An extractor class of one's own that adds a note of a kind of its own."""

    def extract(self, tree: Any, *, url: str | None = None) -> scrapy_cetd.ExtractionResult:
        return scrapy_cetd.ExtractionResult(
            text="Storm warning", html="", algorithm="noting", notes=("my-kind: checked",)
        )


def test_the_kinds_keep_their_values() -> None:
    assert {kind.name: kind.value for kind in NoteKind} == WRITTEN


def test_a_kind_is_written_as_its_value_on_every_python() -> None:
    """``str()``, f-strings, padding and JSON give the value (a ``str`` enum's ``str()`` and
    ``format()`` differ between Python versions unless the class says), and a note is a
    plain ``str``."""
    for kind in NoteKind:
        note = kind.note("a detail")
        assert type(note) is str and note == f"{kind.value}: a detail"
        assert str(kind) == f"{kind}" == format(kind) == kind.value
        assert f"{kind:<24}|" == f"{kind.value:<24}|"
        assert json.dumps({kind: [kind]}) == json.dumps({kind.value: [kind.value]})
        assert kind == kind.value and hash(kind) == hash(kind.value)
        assert NoteKind(kind.value) is kind


def test_the_notes_of_a_result_are_plain_strings() -> None:
    result = scrapy_cetd.extract(STORY.encode(), encoding="hex")
    assert result.notes == (HEX_NOTE,)
    assert [type(note) for note in result.notes] == [str]
    assert pickle.loads(pickle.dumps(result)).notes == (HEX_NOTE,)
    assert result.notes[0].partition(":")[0] == NoteKind.HTTP_CHARSET_IGNORED


def test_a_corpus_row_and_its_summary_write_the_notes_as_before() -> None:
    """A record whose charset is ignored, whose gzip coding was already undone and whose
    payload was cut short, extracted by a class that adds its own note: the row holds the
    extractor's note, then the decoding's, then the record's, and the summary counts each
    under its kind, in its JSON and its lines."""
    page = WarcPage(
        url="https://news.test/storm",
        record_id="<urn:uuid:1>",
        date=None,
        charset="hex",
        encodings=("gzip",),
        body=STORY.encode(),
        truncated="length",
    )
    row = extract_page(page, CorpusSettings(algorithm=f"{__name__}.NotingExtractor"))
    assert isinstance(row, dict)
    assert json.dumps(row["notes"]) == json.dumps(
        ["my-kind: checked", HEX_NOTE, "coding-already-undone: gzip", "payload-truncated: length"]
    )
    assert {type(note) for note in row["notes"]} == {str}
    counted = FileSummary("a.warc.gz")
    counted.count(row)
    assert json.dumps(counted.notes) == (
        '{"my-kind": 1, "http-charset-ignored": 1, "coding-already-undone": 1, '
        '"payload-truncated": 1}'
    )
    summary = CorpusSummary("rows.jsonl", 1, [counted], 1.0)
    assert json.dumps(summary.to_dict()["notes"]) == (
        '{"coding-already-undone": 1, "http-charset-ignored": 1, "my-kind": 1, '
        '"payload-truncated": 1}'
    )
    assert [line for line in summary.format().splitlines() if line.startswith("  note")] == [
        "  note    coding-already-undone        1  rows whose body was stored decoded, its "
        "Content-Encoding kept (docs: Corpus extraction)",
        "  note    http-charset-ignored        1  rows whose HTTP charset names no text "
        "encoding (docs: Corpus runs and encodings)",
        "  note    my-kind                     1  rows with a note of this kind (see their "
        "notes column)",
        "  note    payload-truncated           1  rows whose WARC record holds only part of "
        "the payload (WARC-Truncated; docs: Corpus extraction)",
    ]

"""The datatrove step: :mod:`scrapy_cetd.corpus.datatrove_step` and the example pipeline."""

from __future__ import annotations

import gzip
import importlib.util
import io
import json
import random
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from conftest import STORM_PAGE
from corpuskit import (
    PAGES,
    ROOT,
    WARC,
    member_offsets,
    read_jsonl,
    response,
    site_file,
    story_page,
    write_warc,
)

import scrapy_cetd
from scrapy_cetd.corpus import CorpusSettings, CorpusSummary, run_corpus
from scrapy_cetd.extractors.cetd_plus import CetdPlusExtractor
from scrapy_cetd.limits import DEFAULT_TIME_BUDGET as COMMAND_BUDGET  # the step's timeout

datatrove = pytest.importorskip("datatrove")
from datatrove.data import Document  # type: ignore[import-untyped]  # noqa: E402
from datatrove.pipeline.extractors import Trafilatura  # type: ignore[import-untyped]  # noqa: E402
from datatrove.pipeline.readers import WarcReader  # type: ignore[import-untyped]  # noqa: E402

from scrapy_cetd.corpus.datatrove_step import (  # noqa: E402
    CetdExtractor,
    CetdWarcReader,
    LanguageFilter,
    parquet_schema,
)


def example_pipeline() -> Any:
    """``example_project/datatrove_pipeline.py``, loaded as a module."""
    path = ROOT / "example_project" / "datatrove_pipeline.py"
    spec = importlib.util.spec_from_file_location("datatrove_pipeline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_documents(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(folder.glob("*.jsonl.gz"))
        for line in gzip.decompress(path.read_bytes()).decode().splitlines()
    ]


def warc_documents(folder: Path) -> list[Document]:
    """The documents our WARC reader makes of the WARC files in ``folder``."""
    return list(CetdWarcReader(str(folder)).run())


@pytest.fixture(scope="module")
def warcs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("warcs")
    (folder / WARC.name).write_bytes(WARC.read_bytes())
    return folder


def test_the_example_pipeline_runs_on_the_bundled_warc(warcs: Path, tmp_path: Path) -> None:
    """Our WARC reader -> our step -> language filter -> JSON Lines, on the local executor:
    one document per HTML page (datatrove's reader drops one, which libmagic calls an INI
    file), its text what ``extract()`` gives for the page, the reader's metadata kept and the
    page's added."""
    out = tmp_path / "out"
    status = example_pipeline().main([str(warcs), str(out), "--logs", str(tmp_path / "logs")])
    assert status == 0
    documents = read_documents(out)
    read = warc_documents(warcs)
    assert len(read) == PAGES
    assert [doc["id"] for doc in documents] == [doc.id for doc in read]
    for document in documents:
        metadata = document["metadata"]
        page = site_file(metadata["url"]).read_bytes()
        assert document["text"] == scrapy_cetd.extract(page, url=metadata["url"]).text
        assert metadata["date"].startswith("20") and metadata["file_path"].endswith(WARC.name)
        assert metadata["warc_offset"] > 0
        assert metadata["title"]
        assert (metadata["language"], metadata["language_score"] > 0.65) == ("en", True)
    assert any(document["metadata"].get("authors") for document in documents)
    assert any(document["metadata"].get("published") for document in documents)


def test_it_keeps_the_document_contract_of_the_trafilatura_step(warcs: Path) -> None:
    """The same documents go in; each step keeps the reader's metadata and id and replaces
    the HTML by text; ours adds the page's metadata beside it."""
    ours = list(CetdExtractor().run(iter(warc_documents(warcs))))
    theirs = list(Trafilatura().run(iter(warc_documents(warcs))))
    read = {doc.id: doc for doc in warc_documents(warcs)}
    for step in (ours, theirs):
        assert step
        for doc in step:
            original = read[doc.id]
            assert doc.metadata.items() >= original.metadata.items()
            assert doc.text and "<" not in doc.text[:1] and doc.text != original.text
    assert {doc.id for doc in theirs} <= set(read) and len(ours) == len(read)


def test_each_document_s_text_is_that_of_extract(warcs: Path) -> None:
    """The step builds its extractor once and reads the document's ``str`` without a Scrapy
    response: each text and page type is still what ``extract()`` gives for that ``str``."""
    step = CetdExtractor()
    for doc in warc_documents(warcs):
        url = doc.metadata["url"]
        expected = scrapy_cetd.extract(doc.text, url=url, html=False, time_budget=step.timeout)
        found = step.extract_document(doc.text, url)
        assert found["text"] == expected.text
        assert found["metadata"] == {
            "page_type": expected.page_type,
            "page_type_confidence": expected.page_type_confidence,
        }
    with_metadata = CetdExtractor(metadata=True).extract_document("<p>Too short.</p>", None)
    assert with_metadata["metadata"]["authors"] == []
    assert with_metadata["metadata"] == {
        "title": None,
        "authors": [],
        "published": None,
        "page_type": "article",
        "page_type_confidence": with_metadata["metadata"]["page_type_confidence"],
    }
    assert 0 < with_metadata["metadata"]["page_type_confidence"] <= 1


class SlowExtractor(CetdPlusExtractor):
    """cetd-plus, asleep for a second on pages whose URL says ``slow`` (a hung extraction)."""

    def extract(self, *args: Any, **kwargs: Any) -> Any:
        if "slow" in str(kwargs.get("url") or ""):
            time.sleep(3)
        return super().extract(*args, **kwargs)


def test_the_timeout_is_honoured_and_the_next_document_goes_on(warcs: Path) -> None:
    documents = warc_documents(warcs)[:3]
    documents[1].metadata["url"] = "http://slow.test/"
    step = CetdExtractor(f"{__name__}.SlowExtractor", timeout=0.5)
    started = time.monotonic()
    kept = list(step.run(iter(documents)))
    assert time.monotonic() - started < 3  # the hung document was cut off at its timeout
    assert [doc.id for doc in kept] == [documents[0].id, documents[2].id]
    assert step.stats["timeout"].total == 1
    assert step.stats["forwarded"].total == 2


def test_an_empty_result_drops_the_document_and_counts_why(warcs: Path) -> None:
    documents = [Document(text="<html><body><script>x()</script></body></html>", id="empty")]
    documents.append(warc_documents(warcs)[0])
    step = CetdExtractor()
    assert [doc.id for doc in step.run(iter(documents))] == [documents[1].id]
    assert step.stats["empty_no_visible_text"].total == 1
    assert step.stats["dropped"].total == 1


def test_the_language_filter_keeps_what_it_is_asked_to(warcs: Path) -> None:
    english = Document(text="The harbour wall held through the night. " * 5, id="en")
    german = Document(text="Die Hafenmauer hielt die ganze Nacht über stand. " * 5, id="de")
    kept = list(LanguageFilter(languages=["de"]).run(iter([english, german])))
    with pytest.raises(ValueError, match="'eng' is not a language py3langid identifies"):
        LanguageFilter(languages=["eng"])
    assert [doc.id for doc in kept] == ["de"]
    assert (english.metadata["language"], german.metadata["language"]) == ("en", "de")


def test_an_unknown_algorithm_fails_when_the_step_is_made() -> None:
    with pytest.raises(ValueError, match="unknown algorithm 'nope'"):
        CetdExtractor("nope")


def test_the_attribute_limit_is_that_of_extract_unless_switched_off() -> None:
    """A tag of 1,500 attributes: refused before the parse by default, as ``extract()`` refuses
    it (dropped, counted); extracted with ``max_attributes=None``."""
    attributes = " ".join(f"a{i}=1" for i in range(1_500))
    text = "A paragraph of text. " * 20
    page = f"<html><body><div {attributes}><p>{text}</p></div></body></html>"
    assert scrapy_cetd.extract(page).reason_code == scrapy_cetd.Reason.MAX_ATTRIBUTES
    step = CetdExtractor()
    assert list(step.run(iter([Document(text=page, id="wide")]))) == []
    assert step.stats["empty_max_attributes"].total == 1
    kept = list(CetdExtractor(max_attributes=None).run(iter([Document(text=page, id="wide")])))
    assert [doc.text for doc in kept] == [scrapy_cetd.extract(page, max_attributes=None).text]


def test_a_limit_that_is_no_limit_fails_when_the_step_is_made() -> None:
    with pytest.raises(ValueError, match="max_attributes must be a positive whole number"):
        CetdExtractor(max_attributes=0)


def test_metadata_given_up_at_the_budget_leaves_the_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Metadata read past the time budget is given up, the text kept: the document still has
    every metadata key, so that it fits the schema of the others."""
    from scrapy_cetd import api
    from scrapy_cetd.limits import LimitExceededError
    from scrapy_cetd.result import Reason

    def late(*args: Any, **kwargs: Any) -> Any:
        raise LimitExceededError(Reason.TIME_BUDGET, "reading the metadata")

    monkeypatch.setattr(api, "read_metadata", late)
    found = CetdExtractor(metadata=True).extract_document(STORM_PAGE, None)
    assert found["text"]
    assert set(found["metadata"]) == {
        *("title", "authors", "published", "page_type", "page_type_confidence"),
    }
    assert (found["metadata"]["authors"], found["metadata"]["published"]) == ([], None)


def test_parquet_takes_every_document_with_the_schema_given(tmp_path: Path) -> None:
    """A first page without authors or date, then one with them: every document has the same
    metadata keys, and datatrove's Parquet writer, given :func:`parquet_schema`, writes both
    (it takes the schema of its first document otherwise, and the second batch fails)."""
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    from datatrove.executor import LocalPipelineExecutor  # type: ignore[import-untyped]
    from datatrove.pipeline.writers import ParquetWriter  # type: ignore[import-untyped]

    head = (
        "<meta name='author' content='Ann Lee'>"
        "<meta property='article:published_time' content='2024-02-03T10:00:00Z'>"
    )
    warcs = tmp_path / "warcs"
    warcs.mkdir()
    write_warc(
        warcs / "two.warc.gz",
        [
            response(f"https://news.test/{n}", "HTTP/1.1 200 OK\nContent-Type: text/html\n", page)
            for n, page in ((1, story_page(1)), (2, story_page(2, head)))
        ],
    )
    extractor, language = CetdExtractor(metadata=True), LanguageFilter(languages="en")
    found = [doc.metadata for doc in language.run(extractor.run(iter(warc_documents(warcs))))]
    assert [sorted(keys) for keys in found] == [sorted(found[1])] * 2
    LocalPipelineExecutor(
        pipeline=[
            CetdWarcReader(str(warcs)),
            extractor,
            language,
            ParquetWriter(str(tmp_path / "out"), schema=parquet_schema(), batch_size=1),
        ],
        tasks=1,
        logging_dir=str(tmp_path / "logs"),
    ).run()
    (written,) = (tmp_path / "out").glob("*.parquet")
    rows = pq.read_table(written).to_pylist()
    assert [(row["metadata"]["authors"], row["metadata"]["published"]) for row in rows] == [
        ([], None),
        (["Ann Lee"], "2024-02-03T10:00:00Z"),
    ]
    assert [row["metadata"]["url"] for row in rows] == [
        "https://news.test/1",
        "https://news.test/2",
    ]
    assert rows[0]["metadata"]["warc_offset"] == 0 < rows[1]["metadata"]["warc_offset"]


@pytest.mark.parametrize(("damage", "error"), [("cut", EOFError), ("zeroed", zlib.error)])
def test_datatrove_s_reader_raises_on_a_cut_off_or_damaged_gzip_warc(
    tmp_path: Path, damage: str, error: type[Exception]
) -> None:
    """What docs/corpus.md says of datatrove's ``WarcReader``: a gzipped WARC cut off in the
    middle (``EOFError``) or with a damaged gzip member (``zlib.error``) raises out of the
    reader, so the task fails (and ``LocalPipelineExecutor.run()`` with it), where
    ``scrapy-cetd corpus`` counts the loss and reads on."""
    words = story_page(0).decode().split()  # in random order: text that compresses little
    chosen = random.Random(7)
    ok = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n"
    records = []
    for number in range(30):  # large records: the damage falls inside one, not between two
        text = " ".join(chosen.choice(words) for _ in range(800))
        page = f"<html><body><article><p>{text}</p></article></body></html>".encode()
        records.append(response(f"http://a.test/{number}", ok, page))
    path = tmp_path / "site.warc.gz"
    write_warc(path, records)
    data = bytearray(path.read_bytes())
    if damage == "cut":
        del data[len(data) * 2 // 3 :]
    else:
        start = member_offsets(bytes(data))[20] + 40
        data[start : start + 100] = bytes(100)
    path.write_bytes(bytes(data))
    read: list[Document] = []
    with pytest.raises(error):
        read.extend(WarcReader(str(tmp_path)).run())
    assert 0 < len(read) < len(records)  # the documents before the damage went through


SCRIPT_FIRST = (
    b"\r\n<script>(function(w,d){w.ready=1;})(window,document);</script>\r\n" + story_page(2)
)
"""A page that libmagic calls JavaScript: a blank line, then a script before ``<html>``."""

CP1252_LINE = "Café prices rose to £29 — a naïve guess."
"""A paragraph of the windows-1252 page, whose charset only the HTTP header declares."""


def write_mixed_warc(path: Path, *, damaged: bool = True) -> None:
    """A WARC written by warcio (one gzip member per record) of a warcinfo record and seven
    responses: a page, the page libmagic misreads, a 404, the windows-1252 page, a page whose
    gzip member is then ``damaged``, a page, and a page then cut off by the end of the file."""
    from warcio.statusandheaders import StatusAndHeaders  # type: ignore[import-untyped]
    from warcio.warcwriter import WARCWriter  # type: ignore[import-untyped]

    line = f"<h1>Story 4</h1><p>{CP1252_LINE}</p>".encode("cp1252")
    cp1252 = story_page(4).replace(b"<h1>Story 4</h1>", line)
    pages = [
        ("https://news.test/1", "200 OK", "text/html; charset=utf-8", story_page(1)),
        ("https://news.test/script-first", "200 OK", "text/html", SCRIPT_FIRST),
        ("https://news.test/missing", "404 Not Found", "text/html", story_page(3)),
        ("https://news.test/cp1252", "200 OK", "text/html; charset=windows-1252", cp1252),
        ("https://news.test/damaged", "200 OK", "text/html", story_page(5)),
        ("https://news.test/6", "200 OK", "text/html", story_page(6)),
        ("https://news.test/cut", "200 OK", "text/html", story_page(7)),
    ]
    starts: list[int] = []
    with path.open("wb") as file:
        writer = WARCWriter(file, gzip=True)
        starts.append(file.tell())
        writer.write_record(writer.create_warcinfo_record(path.name, {"software": "tests"}))
        for url, status, content_type, body in pages:
            head = StatusAndHeaders(status, [("Content-Type", content_type)], protocol="HTTP/1.1")
            record = writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), http_headers=head
            )
            starts.append(file.tell())
            writer.write_record(record)
    if damaged:
        data = bytearray(path.read_bytes())
        data[starts[5] + 40 : starts[5] + 60] = bytes(20)  # the damaged page's deflate data
        path.write_bytes(bytes(data[: (starts[7] + len(data)) // 2]))  # the last page cut off


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CorpusSummary, list[Any]]:
    """The folder of the mixed WARC, and the summary and rows of ``scrapy-cetd corpus`` on it."""
    folder = tmp_path_factory.mktemp("mixed")
    write_mixed_warc(folder / "mixed.warc.gz")
    out = tmp_path_factory.mktemp("rows") / "rows.jsonl"
    summary = run_corpus([folder], out, jobs=1, progress=False)
    assert summary.complete
    return folder, summary, read_jsonl(out)


def test_the_reader_hands_on_the_pages_the_command_extracts(
    mixed: tuple[Path, CorpusSummary, list[Any]],
) -> None:
    """Each page's text after our reader and step is the text of the command's row for the
    record, with the row's metadata; every other record is counted under the command's reason:
    the page libmagic calls JavaScript is kept, the 404 is not, the windows-1252 page is read
    by its HTTP charset, and the damaged and cut-off gzip members are counted, not raised."""
    folder, summary, rows = mixed
    reader = CetdWarcReader(str(folder))
    documents = list(reader.run())
    extracted = list(CetdExtractor(timeout=COMMAND_BUDGET).run(iter(documents)))
    by_url = {doc.metadata["url"]: doc for doc in extracted}
    assert sorted(by_url) == [
        "https://news.test/1",
        "https://news.test/6",
        "https://news.test/cp1252",
        "https://news.test/script-first",
    ]
    assert [(doc.id, doc.text) for doc in extracted] == [(row["id"], row["text"]) for row in rows]
    columns = ("url", "date", "file_path", "warc_offset")
    for doc, row in zip(extracted, rows, strict=True):
        assert {name: doc.metadata[name] for name in columns} == {
            name: row[name] for name in columns
        }
    assert CP1252_LINE in by_url["https://news.test/cp1252"].text
    assert "Story number 2 goes on" in by_url["https://news.test/script-first"].text
    (counts,) = summary.files
    skipped = {
        name.removeprefix("skipped_"): stat.total
        for name, stat in reader.stats.stats.items()
        if name.startswith("skipped_")
    }
    assert (
        skipped
        == counts.skipped
        == {
            "not_response": 1,
            "http_status": 1,
            "corrupt": 1,
            "truncated": 1,
        }
    )
    assert reader.stats["documents"].total + reader.stats["skipped"].total == counts.records == 8


def test_a_damaged_file_does_not_stop_the_pipeline(
    mixed: tuple[Path, CorpusSummary, list[Any]], tmp_path: Path
) -> None:
    """On datatrove's executor, the pipeline goes through the damaged file and writes the
    command's texts."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.writers import JsonlWriter

    folder, _, rows = mixed
    LocalPipelineExecutor(
        pipeline=[
            CetdWarcReader(str(folder)),
            CetdExtractor(timeout=COMMAND_BUDGET),
            JsonlWriter(str(tmp_path)),
        ],
        tasks=1,
        logging_dir=str(tmp_path / "logs"),
    ).run()
    written = read_documents(tmp_path)
    assert [(doc["id"], doc["text"]) for doc in written] == [
        (row["id"], row["text"]) for row in rows
    ]


def test_the_reader_reads_through_its_data_folder(
    mixed: tuple[Path, CorpusSummary, list[Any]],
) -> None:
    """Files are opened through the reader's fsspec filesystem (here in memory), named by
    their URL; a file that is not a WARC is counted and the others are read."""
    fsspec = pytest.importorskip("fsspec")
    folder, _, rows = mixed
    memory = fsspec.filesystem("memory")
    memory.pipe("/warcs/mixed.warc.gz", (folder / "mixed.warc.gz").read_bytes())
    memory.pipe("/warcs/notes.txt", b"Not a WARC file.\n")
    try:
        reader = CetdWarcReader("memory://warcs")
        documents = list(reader.run())
    finally:
        memory.rm("/warcs", recursive=True)
    assert [doc.id for doc in documents] == [row["id"] for row in rows]
    assert {doc.metadata["file_path"] for doc in documents} == {"memory:///warcs/mixed.warc.gz"}
    assert reader.stats["not_warc_files"].total == 1
    assert reader.stats["skipped"].total == 4


def test_datatrove_s_reader_does_what_the_docs_say_it_does_differently(
    mixed: tuple[Path, CorpusSummary, list[Any]], tmp_path: Path
) -> None:
    """docs/corpus.md's caveats of datatrove's ``WarcReader``, on the same records: it stops
    at the damaged member; without the damage, it drops the page libmagic calls JavaScript,
    hands on the 404 and reads the windows-1252 page by another encoding."""
    folder, _, _ = mixed
    with pytest.raises((EOFError, zlib.error)):
        list(WarcReader(str(folder)).run())
    write_mixed_warc(tmp_path / "whole.warc.gz", damaged=False)
    theirs = {doc.metadata["url"]: doc.text for doc in WarcReader(str(tmp_path)).run()}
    assert "https://news.test/script-first" not in theirs
    assert "https://news.test/missing" in theirs
    assert CP1252_LINE not in theirs["https://news.test/cp1252"]
    ours = {doc.metadata["url"]: doc.text for doc in CetdWarcReader(str(tmp_path)).run()}
    assert "https://news.test/script-first" in ours and "https://news.test/missing" not in ours
    assert CP1252_LINE in ours["https://news.test/cp1252"]


def cyrillic_page(number: int) -> bytes:
    """A story page in Russian, in windows-1251 (one byte a letter, two in UTF-8)."""
    words = "Стена гавани выстояла всю ночь, пока ветер менялся и лодки оставались в порту. "
    return story_page(number).replace(b"<h1>", f"<p>{words * 40}</p><h1>".encode("cp1251"), 1)


def run_both(
    tmp_path: Path, records: list[tuple[str, bytes]], *, max_bytes: int, reader_max_bytes: int
) -> tuple[list[Any], CetdExtractor, list[dict[str, Any]]]:
    """The documents of our reader (``reader_max_bytes``) and step (``max_bytes``) on a WARC of
    ``records``, the step, and the rows of ``scrapy-cetd corpus --max-bytes max_bytes``."""
    warcs = tmp_path / "warcs"
    warcs.mkdir()
    write_warc(warcs / "pages.warc.gz", records)
    step = CetdExtractor(timeout=COMMAND_BUDGET, max_bytes=max_bytes)
    documents = list(step.run(iter(CetdWarcReader(str(warcs), max_bytes=reader_max_bytes).run())))
    out = tmp_path / "rows.jsonl"
    settings = CorpusSettings(metadata=False, max_bytes=max_bytes)
    summary = run_corpus([warcs], out, settings, jobs=1, progress=False)
    assert summary.complete
    return documents, step, read_jsonl(out) if out.exists() else []


def test_the_size_limit_counts_the_page_s_bytes_as_the_command_does(tmp_path: Path) -> None:
    """``max_bytes`` counts the bytes the command's ``extract()`` counts (the body), which
    :class:`CetdWarcReader` hands on as ``body_size``: a page in windows-1251 under the limit
    is kept by both though its UTF-8 text is over it, and a page in UTF-16 over the limit is
    dropped by both though its UTF-8 text is under it. A document of text alone is counted
    in UTF-8, as ``extract()`` counts a ``str``."""
    russian = cyrillic_page(1)
    padding = "<p>The harbour wall held through the night while the wind turned.</p>" * 25
    english = story_page(2).decode().replace("<h1>", padding + "<h1>", 1).encode("utf-16")
    limit = len(russian) + 100
    assert len(russian.decode("cp1251").encode()) > limit > len(english) // 2 + 100
    assert len(english) > limit
    head = "HTTP/1.1 200 OK\nContent-Type: text/html; charset={}\n"
    documents, step, rows = run_both(
        tmp_path,
        [
            response("https://news.test/ru", head.format("windows-1251"), russian),
            response("https://news.test/en", head.format("utf-16"), english),
        ],
        max_bytes=limit,
        reader_max_bytes=10 * limit,
    )
    assert [(doc.id, doc.text) for doc in documents] == [(row["id"], row["text"]) for row in rows]
    assert [doc.metadata["url"] for doc in documents] == ["https://news.test/ru"]
    assert documents[0].metadata["body_size"] == len(russian)
    assert step.stats["empty_max_body_size"].total == 1
    text = russian.decode("cp1251")
    assert CetdExtractor(max_bytes=limit).extract_document(text, None)["code"] == "max_body_size"


def test_the_decoding_notes_reach_the_documents_as_the_command_s_rows_have_them(
    tmp_path: Path,
) -> None:
    """Each document's ``notes`` are the ``notes`` of the command's row for the record, in
    the same words and order: a charset label ignored, a guessed encoding, bytes that the
    declared encoding does not read, none for a page in UTF-8; the reader's decoding notes
    first go into the metadata, and the step puts its own before them."""
    line = "<h1>Story 1</h1><p>Café prices rose to £29 — a naïve guess.</p>".encode("cp1252")
    cp1252 = story_page(1).replace(b"<h1>Story 1</h1>", line)
    pages = [
        ("https://news.test/hex", "text/html; charset=hex", story_page(2)),
        ("https://news.test/guessed", "text/html", cp1252),
        ("https://news.test/undecodable", "text/html; charset=utf-8", cp1252),
        ("https://news.test/plain", "text/html; charset=utf-8", story_page(3)),
    ]
    records = [
        response(url, f"HTTP/1.1 200 OK\nContent-Type: {content_type}\n", body)
        for url, content_type, body in pages
    ]
    documents, _, rows = run_both(tmp_path, records, max_bytes=1 << 20, reader_max_bytes=1 << 20)
    assert [(doc.id, doc.text) for doc in documents] == [(row["id"], row["text"]) for row in rows]
    found = {doc.metadata["url"]: doc.metadata["notes"] for doc in documents}
    assert found == {row["url"]: row["notes"] for row in rows}
    kinds = {url: [note.split(":")[0] for note in notes] for url, notes in found.items()}
    assert kinds == {
        "https://news.test/hex": ["http-charset-ignored"],
        "https://news.test/guessed": ["charset-guessed"],
        "https://news.test/undecodable": ["undecodable-bytes"],
        "https://news.test/plain": [],
    }


def test_a_document_of_another_reader_gets_the_step_s_notes_alone() -> None:
    """A document that has no ``notes`` of its reader, or a null in their place (a Parquet
    file's empty cell), gets the step's notes: an empty list for a page with nothing to say."""
    documents = [
        Document(text=story_page(1).decode(), id="1", metadata={}),
        Document(text=story_page(2).decode(), id="2", metadata={"notes": None}),
    ]
    found = list(CetdExtractor(timeout=COMMAND_BUDGET).run(iter(documents)))
    assert [(doc.id, doc.metadata["notes"]) for doc in found] == [("1", []), ("2", [])]

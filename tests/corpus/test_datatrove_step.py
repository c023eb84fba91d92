"""The datatrove step: :mod:`scrapy_cetd.corpus.datatrove_step` and the example pipeline."""

from __future__ import annotations

import gzip
import importlib.util
import json
import random
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from conftest import STORM_PAGE
from corpuskit import ROOT, WARC, member_offsets, response, site_file, story_page, write_warc

import scrapy_cetd
from scrapy_cetd.extractors.cetd_plus import CetdPlusExtractor

datatrove = pytest.importorskip("datatrove")
from datatrove.data import Document  # type: ignore[import-untyped]  # noqa: E402
from datatrove.pipeline.extractors import Trafilatura  # type: ignore[import-untyped]  # noqa: E402
from datatrove.pipeline.readers import WarcReader  # type: ignore[import-untyped]  # noqa: E402

from scrapy_cetd.corpus.datatrove_step import (  # noqa: E402
    CetdExtractor,
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
    """The documents datatrove's WARC reader makes of the bundled WARC."""
    return list(WarcReader(str(folder)).run())


@pytest.fixture(scope="module")
def warcs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("warcs")
    (folder / WARC.name).write_bytes(WARC.read_bytes())
    return folder


def test_the_example_pipeline_runs_on_the_bundled_warc(warcs: Path, tmp_path: Path) -> None:
    """WARC reader -> our step -> language filter -> JSON Lines, on the local executor: one
    document per HTML page the reader finds, its text what ``extract()`` gives for the page,
    the reader's metadata kept and the page's added."""
    out = tmp_path / "out"
    status = example_pipeline().main([str(warcs), str(out), "--logs", str(tmp_path / "logs")])
    assert status == 0
    documents = read_documents(out)
    read = warc_documents(warcs)
    assert len(read) >= 14
    assert [doc["id"] for doc in documents] == [doc.id for doc in read]
    for document in documents:
        metadata = document["metadata"]
        page = site_file(metadata["url"]).read_bytes()
        assert document["text"] == scrapy_cetd.extract(page, url=metadata["url"]).text
        assert metadata["date"].startswith("20") and metadata["file_path"].endswith(WARC.name)
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

    monkeypatch.setattr(api, "page_metadata", late)
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
    found = [doc.metadata for doc in language.run(extractor.run(WarcReader(str(warcs)).run()))]
    assert [sorted(keys) for keys in found] == [sorted(found[1])] * 2
    LocalPipelineExecutor(
        pipeline=[
            WarcReader(str(warcs)),
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

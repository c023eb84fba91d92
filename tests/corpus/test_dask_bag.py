"""The corpus on Dask: :mod:`scrapy_cetd.corpus.dask_bag`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from corpuskit import (
    PAGES,
    WARC,
    decompressed_warc,
    read_jsonl,
)
from distributed import Client, LocalCluster

from scrapy_cetd.corpus import (
    CorpusSettings,
    run_corpus,
    to_dask_bag,
)
from scrapy_cetd.corpus.settings import FILTER_REASONS


@pytest.fixture(scope="module")
def plain_warc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled WARC, decompressed."""
    return decompressed_warc(tmp_path_factory)


def test_a_dask_cluster_of_two_worker_processes_gives_the_local_rows(
    tmp_path: Path, plain_warc: Path
) -> None:
    run_corpus([WARC, plain_warc], tmp_path / "local.jsonl", jobs=1)
    local = read_jsonl(tmp_path / "local.jsonl")
    inputs: list[str | Path] = [WARC.as_uri(), plain_warc]  # a URL (read with fsspec), a path
    with (
        LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster),  # type: ignore[no-untyped-call]
    ):
        bag = to_dask_bag(inputs)
        assert bag.npartitions == 2
        rows = bag.compute()  # type: ignore[no-untyped-call]
        everything = to_dask_bag([WARC], include_skipped=True)
        skipped = everything.pluck("skipped", None).frequencies()  # type: ignore[no-untyped-call]
        counts = dict(skipped.compute())
    assert rows[PAGES:] == local[PAGES:]
    # The URL is the row's file_path: otherwise the rows are those of the local path.
    assert {row["file_path"] for row in rows[:PAGES]} == {WARC.as_uri()}
    assert [{**row, "file_path": None} for row in rows[:PAGES]] == [
        {**row, "file_path": None} for row in local[:PAGES]
    ]
    assert counts == {None: PAGES, "not_response": 17, "not_html": 1}


def test_the_page_type_filters_are_those_of_the_command(tmp_path: Path) -> None:
    """In this process (Dask's synchronous scheduler): the filters keep the rows the command
    keeps with the same settings."""
    filters: dict[str, Any] = {"page_types": ("article",), "min_page_type_confidence": 0.9}
    run_corpus([WARC], tmp_path / "kept.jsonl", CorpusSettings(**filters), jobs=1)
    kept = read_jsonl(tmp_path / "kept.jsonl")
    assert 0 < len(kept) < PAGES - 1
    rows = to_dask_bag([WARC], **filters).compute(scheduler="synchronous")  # type: ignore[no-untyped-call]
    assert rows == kept


def test_a_page_type_filter_that_would_keep_no_row_is_refused() -> None:
    """As the command refuses it: an algorithm that gives no page type would make an empty
    bag."""
    with pytest.raises(ValueError, match="page_types: 'article' would keep no row: algorithm"):
        to_dask_bag([WARC], algorithm="cetd-ds", page_types=["article"])
    with pytest.raises(ValueError, match=r"min_page_type_confidence: 0\.5 would keep no row"):
        to_dask_bag([WARC], options={"detect_page_type": False}, min_page_type_confidence=0.5)


def test_with_the_skipped_records_every_record_is_an_item(tmp_path: Path) -> None:
    """A row a filter drops is an item too, under the filter the command counts it under, so
    the items account for every record (Dask's synchronous scheduler, in this process)."""
    settings: dict[str, Any] = {
        "languages": ("en",),
        "min_words": 400,
        "page_types": ("article",),
        "min_page_type_confidence": 0.9,
    }
    summary = run_corpus([WARC], tmp_path / "kept.jsonl", CorpusSettings(**settings), jobs=1)
    assert len(summary.filtered) >= 2  # more than one filter drops rows
    bag = to_dask_bag([WARC], **settings, include_skipped=True)
    items = bag.compute(scheduler="synchronous")  # type: ignore[no-untyped-call]
    assert len(items) == summary.records
    counts = Counter(item.get("skipped") or "row" for item in items)
    assert counts == {"row": summary.rows, **summary.skipped, **summary.filtered}
    filtered = [item for item in items if item.get("skipped") in FILTER_REASONS]
    assert all(item["url"] and item["id"] for item in filtered)
    assert {item["detail"] for item in filtered} == {
        FILTER_REASONS[key] for key in summary.filtered
    }

"""The corpus on a Dask cluster: :func:`to_dask_bag`, one task per WARC file."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from scrapy_cetd.corpus.records import extract_file
from scrapy_cetd.corpus.settings import FILTER_REASONS, CorpusSettings
from scrapy_cetd.corpus.warc import DEFAULT_MAX_BYTES, Skipped, find_inputs
from scrapy_cetd.extractors.registry import DEFAULT_ALGORITHM
from scrapy_cetd.limits import DEFAULT_MAX_NODES, DEFAULT_TIME_BUDGET

if TYPE_CHECKING:
    import dask.bag


def _extract_partition(
    paths: Iterable[str], settings: CorpusSettings, include_skipped: bool
) -> list[dict[str, Any]]:
    """All rows of the WARC files of one Dask partition (one file per partition); with
    ``include_skipped``, a record without a row or whose row a filter drops is an item too, so
    that the items account for every record, as the command's counts do."""
    rows: list[dict[str, Any]] = []
    for path in paths:
        for outcome in extract_file(path, settings):
            if isinstance(outcome, Skipped):
                if include_skipped:
                    rows.append(
                        _skip(outcome.url, outcome.record_id, outcome.reason, outcome.detail)
                    )
                continue
            rejected = settings.rejects(outcome)
            if rejected is None:
                rows.append({name: outcome.get(name) for name in settings.fields})
            elif include_skipped:
                meaning = FILTER_REASONS[rejected]
                rows.append(_skip(outcome["url"], outcome["id"], rejected, meaning))
    return rows


def _skip(url: str | None, record_id: str | None, reason: str, detail: str) -> dict[str, Any]:
    """The item of a record without a row (``include_skipped``)."""
    return {"url": url, "id": record_id, "skipped": reason, "detail": detail}


def to_dask_bag(
    paths: Iterable[str | os.PathLike[str]],
    *,
    algorithm: str = DEFAULT_ALGORITHM,
    options: Mapping[str, Any] | None = None,
    html: bool = False,
    markdown: bool = False,
    metadata: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    languages: Sequence[str] = (),
    min_language_score: float | None = None,
    min_words: int | None = None,
    page_types: Sequence[str] = (),
    min_page_type_confidence: float | None = None,
    include_skipped: bool = False,
) -> dask.bag.Bag:
    """A Dask bag of the rows of the WARC files ``paths``, one partition per file.

    Each task reads its file where it runs and calls :func:`extract_page` on every page, so
    the rows (dicts of :data:`~scrapy_cetd.corpus.schema.FIELDS`) and their order are those
    of ``scrapy-cetd corpus``, its filters included (``languages``, ``min_language_score``,
    ``min_words``, ``page_types``, ``min_page_type_confidence``:
    :class:`~scrapy_cetd.corpus.settings.CorpusSettings`); exact deduplication
    across files is left to the caller (``bag.distinct(key=lambda row: row["content_hash"])``).
    Local paths and directories are expanded here (as the command does) and must be readable
    by every worker; URLs (``s3://bucket/…warc.gz``) are passed on and opened by the workers
    with fsspec. ``max_bytes``, ``max_nodes`` and ``time_budget`` are the limits of
    :class:`CorpusSettings` (those of ``extract()``). With ``include_skipped``, every record
    without a row appears too, as a dict with ``url``, ``id``, ``skipped`` (the reason) and
    ``detail``: a record the command counts as skipped, under its reason
    (:data:`~scrapy_cetd.corpus.warc.SKIP_REASONS`), and a row a filter drops, under the
    filter's (:data:`~scrapy_cetd.corpus.settings.FILTER_REASONS`, with its meaning as the
    detail), so the bag holds an item for every record read.
    """
    import dask.bag  # noqa: PLC0415 - the dask extra is optional

    settings = CorpusSettings(
        algorithm,
        dict(options or {}),
        html=html,
        markdown=markdown,
        metadata=metadata,
        max_bytes=max_bytes,
        max_nodes=max_nodes,
        time_budget=time_budget,
        languages=tuple(languages),
        min_language_score=min_language_score,
        min_words=min_words,
        page_types=tuple(page_types),
        min_page_type_confidence=min_page_type_confidence,
    )
    names = [os.fspath(entry) for entry in paths]
    files = find_inputs(names)
    if not files:
        raise ValueError(f"no WARC files in {', '.join(names) or 'the given paths'}")
    bag = dask.bag.from_sequence(files, npartitions=len(files))  # type: ignore[no-untyped-call]
    rows: dask.bag.Bag = bag.map_partitions(_extract_partition, settings, include_skipped)
    return rows

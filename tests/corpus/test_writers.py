"""Writing rows and exact deduplication: :mod:`scrapy_cetd.corpus.writers`."""

from __future__ import annotations

import hashlib
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from scrapy_cetd.corpus.schema import FIELDS, SCHEMA
from scrapy_cetd.corpus.writers import ExactDedup, arrow_schema, assemble, open_writer


def test_exact_dedup_keeps_the_first_of_each_text_and_every_empty_row() -> None:
    dedup = ExactDedup()
    first, second = "a" * 32, "b" * 32
    kept = [
        dedup.keep(first, False),
        dedup.keep(second, False),
        dedup.keep(first, False),
        dedup.keep(first, True),  # an empty row: never a duplicate
        dedup.keep(first, True),
    ]
    assert kept == [True, True, False, True, True]
    assert (dedup.duplicates, len(dedup)) == (1, 2)


def test_exact_dedup_costs_under_100_bytes_per_distinct_text() -> None:
    """The figure the docs state (about 70 bytes per distinct text) with room for the
    set's growth steps: memory grows with distinct texts only, never with their length."""
    hashes = [hashlib.blake2b(b"%d" % n, digest_size=16).hexdigest() for n in range(200_000)]
    dedup = ExactDedup()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for text_hash in hashes:
        dedup.keep(text_hash, False)
    for text_hash in hashes:  # the same texts again: no more memory
        dedup.keep(text_hash, False)
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert dedup.duplicates == len(hashes)
    assert 40 < used / len(hashes) < 100


def row(number: int, text: str) -> dict[str, object]:
    values: dict[str, object] = {name: None for name in FIELDS if name != "html"}
    values.update(
        text=text,
        id=f"<urn:uuid:{number}>",
        warc_offset=number * 1000,
        language_score=0.5,
        authors=["A. Writer"],
        notes=[],
        content_hash=hashlib.blake2b(text.encode(), digest_size=16).hexdigest(),
    )
    return values


def test_parquet_has_the_fixed_column_types_and_assembly_drops_duplicates(
    tmp_path: Path,
) -> None:
    fields = [name for name in FIELDS if name != "html"]
    parts = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    for number, part in enumerate(parts):
        writer = open_writer(part, "parquet", fields)
        writer.write(row(number, "shared text"))
        writer.write(row(number + 10, f"only in part {number}"))
        writer.close()
    out = tmp_path / "out.parquet"
    dedup = ExactDedup()
    assemble(parts, out, "parquet", fields, dedup)
    table = pq.read_table(out)
    assert table.schema == arrow_schema(fields)
    assert table.schema.field("warc_offset").type == pa.int64()
    assert table.schema.field("language_score").type == pa.float64()
    assert table.schema.field("authors").type == pa.list_(pa.string())
    assert table.schema.field("notes").type == pa.list_(pa.string())
    assert table.column("notes").to_pylist() == [[], [], []]
    assert table.column("text").to_pylist() == ["shared text", "only in part 0", "only in part 1"]
    assert dedup.duplicates == 1
    assert set(SCHEMA) == set(FIELDS)

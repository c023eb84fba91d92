"""Writing rows: JSON Lines or Parquet, by the extension of the output."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from scrapy_cetd.corpus.schema import SCHEMA, Row

FORMATS: Mapping[str, str] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}
"""Output formats by the extension of ``OUT``."""

PARQUET_ROWS = 1000
"""Rows per Parquet row group (and so the most rows held in memory by the writer)."""


def arrow_schema(fields: Sequence[str]) -> Any:
    """The Parquet schema of the columns ``fields``, with :data:`SCHEMA`'s fixed types."""
    import pyarrow as pa  # noqa: PLC0415 - only for Parquet output

    types = {
        "string": pa.string(),
        "int64": pa.int64(),
        "float64": pa.float64(),
        "list<string>": pa.list_(pa.string()),
    }
    return pa.schema([(name, types[SCHEMA[name][0]]) for name in fields])


class ExactDedup:
    """Which texts a run has already written: ``dedup exact``.

    Keeps the first 64 bits of each distinct ``content_hash`` in a set, in the process that
    assembles the output: 70 to 80 bytes per distinct text on 64-bit CPython (measured with
    tracemalloc; ``tests/corpus/test_writers.py`` checks the bound), so 10 million distinct
    texts take about 0.7 GB. Two different texts share 64 bits with a probability of about
    n²/2⁶⁵ for n distinct texts (below 0.3% for 100 million). Rows without text (an empty
    result, whose ``reason`` says why) are never duplicates: they are all kept.
    """

    def __init__(self) -> None:
        self._seen: set[int] = set()
        self.duplicates = 0

    def __len__(self) -> int:
        return len(self._seen)

    def keep(self, text_hash: str, empty: bool) -> bool:
        """Whether the row with ``text_hash`` is new (and remember it); ``empty`` rows are kept."""
        if empty:
            return True
        key = int(text_hash[:16], 16)
        if key in self._seen:
            self.duplicates += 1
            return False
        self._seen.add(key)
        return True


class Writer(Protocol):
    def write(self, row: Row) -> None: ...

    def close(self) -> None: ...


class _JsonLinesWriter:
    """Rows as JSON Lines (UTF-8, one object per line, keys in :data:`FIELDS` order)."""

    def __init__(self, path: Path, fields: Sequence[str]) -> None:
        self._file = path.open("w", encoding="utf-8")
        self._fields = fields

    def write(self, row: Row) -> None:
        record = {name: row.get(name) for name in self._fields}
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")

    def close(self) -> None:
        self._file.close()


class _ParquetWriter:
    """Rows as Parquet, with the column types of :data:`SCHEMA`, in row groups of
    :data:`PARQUET_ROWS`."""

    def __init__(self, path: Path, fields: Sequence[str]) -> None:
        import pyarrow as pa  # noqa: PLC0415 - only for Parquet output
        import pyarrow.parquet as pq  # noqa: PLC0415

        self._pa = pa
        self._schema = arrow_schema(fields)
        self._writer = pq.ParquetWriter(str(path), self._schema)
        self._rows: list[Row] = []

    def write(self, row: Row) -> None:
        self._rows.append(row)
        if len(self._rows) >= PARQUET_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._rows:
            table = self._pa.Table.from_pylist(self._rows, schema=self._schema)
            self._writer.write_table(table)
            self._rows = []

    def close(self) -> None:
        self._flush()
        self._writer.close()


def open_writer(path: Path, fmt: str, fields: Sequence[str]) -> Writer:
    """A writer of ``fmt`` rows with the columns ``fields`` into ``path``."""
    return _ParquetWriter(path, fields) if fmt == "parquet" else _JsonLinesWriter(path, fields)


def output_format(out: str | os.PathLike[str]) -> str:
    """``"jsonl"`` or ``"parquet"``, by the extension of ``out``; :class:`ValueError` if neither."""
    suffix = Path(out).suffix.lower()
    if suffix not in FORMATS:
        valid = ", ".join(FORMATS)
        raise ValueError(f"cannot tell the output format of {out}: use one of {valid}")
    return FORMATS[suffix]


def assemble(
    parts: Sequence[Path],
    out: Path,
    fmt: str,
    fields: Sequence[str],
    dedup: ExactDedup | None = None,
) -> None:
    """Write ``out`` from the parts, in order, streaming (a row group at a time for Parquet),
    without the rows ``dedup`` finds already written; ``out`` appears only once complete."""
    temporary = out.with_name(out.name + ".tmp")
    if fmt == "parquet":
        import pyarrow as pa  # noqa: PLC0415 - only for Parquet output
        import pyarrow.parquet as pq  # noqa: PLC0415

        with pq.ParquetWriter(str(temporary), arrow_schema(fields)) as writer:
            for part in parts:
                for batch in pq.ParquetFile(part).iter_batches(batch_size=PARQUET_ROWS):
                    if dedup is not None:
                        hashes = batch.column("content_hash").to_pylist()
                        reasons = batch.column("reason").to_pylist()
                        keep = [
                            dedup.keep(text_hash, reason is not None)
                            for text_hash, reason in zip(hashes, reasons, strict=True)
                        ]
                        batch = batch.filter(pa.array(keep))  # noqa: PLW2901
                    writer.write_batch(batch)
    else:
        with temporary.open("wb") as target:
            for part in parts:
                with part.open("rb") as source:
                    if dedup is None:
                        while chunk := source.read(1 << 20):
                            target.write(chunk)
                        continue
                    for line in source:
                        row = json.loads(line)
                        if dedup.keep(row["content_hash"], row["reason"] is not None):
                            target.write(line)
    os.replace(temporary, out)

"""Writing rows: JSON Lines or Parquet, by the extension of the output."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from scrapy_cetd.corpus.records import Row

FORMATS: Mapping[str, str] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}
"""Output formats by the extension of ``OUT``."""

PARQUET_ROWS = 1000
"""Rows per Parquet row group (and so the most rows held in memory by the writer)."""


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
    """Rows as Parquet, all columns strings, in row groups of :data:`PARQUET_ROWS`."""

    def __init__(self, path: Path, fields: Sequence[str]) -> None:
        import pyarrow as pa  # noqa: PLC0415 - only for Parquet output
        import pyarrow.parquet as pq  # noqa: PLC0415

        self._pa = pa
        self._schema = pa.schema([(name, pa.string()) for name in fields])
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


def assemble(parts: Sequence[Path], out: Path, fmt: str, fields: Sequence[str]) -> None:
    """Write ``out`` from the parts, in order, streaming (a row group at a time for Parquet)."""
    temporary = out.with_name(out.name + ".tmp")
    if fmt == "parquet":
        import pyarrow as pa  # noqa: PLC0415 - only for Parquet output
        import pyarrow.parquet as pq  # noqa: PLC0415

        schema = pa.schema([(name, pa.string()) for name in fields])
        with pq.ParquetWriter(str(temporary), schema) as writer:
            for part in parts:
                for batch in pq.ParquetFile(part).iter_batches(batch_size=PARQUET_ROWS):
                    writer.write_batch(batch)
    else:
        with temporary.open("wb") as target:
            for part in parts:
                with part.open("rb") as source:
                    while chunk := source.read(1 << 20):
                        target.write(chunk)
    os.replace(temporary, out)

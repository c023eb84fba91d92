"""What the corpus tests share: the bundled WARC, WARCs written on the fly, the command.

The bundled WARC (``tests/data/example-site.warc.gz``, made by ``benchmarks/make_warc.py``)
is a crawl of the example site: robots.txt, the index and 14 articles, each a request and a
response record, after a warcinfo record.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyarrow.parquet as pq
import pytest
from fastwarc import GzipWriter, WarcRecord, WarcRecordType

from scrapy_cetd import cli

ROOT = Path(__file__).resolve().parent.parent
WARC = ROOT / "tests" / "data" / "example-site.warc.gz"
SITE = ROOT / "example_project" / "site"
PAGES = 15  # the index and 14 articles
FIELDS = [
    "text",
    "id",
    "url",
    "date",
    "file_path",
    "warc_offset",
    "language",
    "language_score",
    "title",
    "authors",
    "published",
    "page_type",
    "page_type_confidence",
    "content_hash",
    "extractor",
    "extractor_version",
    "reason",
    "reason_code",
    "notes",
]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def read_parquet(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


def site_file(url: str) -> Path:
    return SITE / urlsplit(url).path.lstrip("/")


def corpus(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``scrapy-cetd corpus ARGS``; returns the status, stdout and stderr."""
    status = cli.main(["corpus", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def response(url: str, head: str, body: bytes) -> tuple[str, bytes]:
    """A WARC target URI and an HTTP response message (``head`` with ``\\n`` line ends)."""
    return url, head.replace("\n", "\r\n").encode() + b"\r\n" + body


def write_warc(
    path: Path,
    records: Sequence[tuple[str, bytes] | tuple[str, bytes, Mapping[str, str]]],
    *,
    gzipped: bool = True,
) -> None:
    """A WARC of ``response`` records (url, HTTP message, and WARC headers to add, if any),
    one gzip member each."""
    with path.open("wb") as file:
        writer = GzipWriter(file) if gzipped else None
        for url, block, *more in records:
            record = WarcRecord()
            record.init_headers(WarcRecordType.response, content_length=len(block))
            record.headers.append("WARC-Target-URI", url)
            record.headers.append("Content-Type", "application/http; msgtype=response")
            for extra in more:
                for name, value in extra.items():
                    record.headers.append(name, value)
            record.set_bytes_content(block)
            if writer is None:
                record.write(file)
            else:
                record.write(writer)
                writer.finish()
        if writer is not None:
            writer.close()


ARTICLE = (SITE / "articles" / "dev-0019.html").read_bytes()


def chunked(body: bytes, size: int = 999) -> bytes:
    """``body`` in the HTTP/1.1 chunked transfer coding."""
    chunks = [body[start : start + size] for start in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n\r\n"


def story_page(number: int, head: str = "") -> bytes:
    """A small article page whose text names its number."""
    paragraphs = "".join(
        f"<p>Story number {number} goes on, paragraph {part}: the harbour wall held through "
        f"the night while the wind turned and the boats stayed in.</p>"
        for part in range(4)
    )
    return (
        f"<html><head>{head}<title>Story {number}</title></head><body><nav><a href='/'>Home</a>"
        f"</nav><article><h1>Story {number}</h1>{paragraphs}</article></body></html>"
    ).encode()


def member_offsets(data: bytes) -> list[int]:
    """Where the gzip members of a file gzipped by :func:`write_warc` begin."""
    offsets: list[int] = []
    found = data.find(b"\x1f\x8b\x08")
    while found >= 0:
        offsets.append(found)
        found = data.find(b"\x1f\x8b\x08", found + 1)
    return offsets


def decompressed_warc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled WARC, decompressed (for a module-scoped fixture)."""
    path = tmp_path_factory.mktemp("plain") / "example-site.warc"
    path.write_bytes(gzip.decompress(WARC.read_bytes()))
    return path

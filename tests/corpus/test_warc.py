"""Reading WARC files: :mod:`scrapy_cetd.corpus.warc`."""

from __future__ import annotations

import dataclasses
import gzip
import io
import itertools
import json
import struct
import sys
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest
from corpuskit import (
    corpus,
    member_offsets,
    read_jsonl,
    response,
    story_page,
    write_warc,
)

from scrapy_cetd.corpus import (
    Skipped,
    WarcPage,
    iter_pages,
)
from scrapy_cetd.corpus.streams import UnreadableWarcError
from scrapy_cetd.corpus.warc import NotAWarcError, check_warc, find_warc_files


def test_an_open_file_is_read_as_its_path_is(tmp_path: Path) -> None:
    """A file its caller opened (through a filesystem of its own) gives the items its path
    gives, under the name it is given, and is left open; a damaged one as well."""
    path = tmp_path / "two.warc.gz"
    pages = [story_page(1), story_page(2)]
    write_warc(
        path, [response(f"https://a.test/{n}", "HTTP/1.1 200 OK\n", p) for n, p in enumerate(pages)]
    )
    path.write_bytes(path.read_bytes()[:-20])
    expected = list(iter_pages(path))
    assert [type(item) for item in expected] == [WarcPage, Skipped]
    with path.open("rb") as file:
        assert list(iter_pages(file, name=str(path))) == expected
        assert not file.closed
    with path.open("rb") as file:
        named = list(iter_pages(file))
    assert named[0] == expected[0]  # named by the file's name, which is its path


def test_damaged_warcs_keep_every_good_record_and_count_every_loss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Damaged gzip members, invalid record headers, a wrong length, a cut-off end and bad
    charset labels: every good record gives its row, each loss is counted with its reason."""
    ok = "HTTP/1.1 200 OK\nContent-Type: text/html\n"
    heads = {3: ("charset=hex", ""), 4: ("", '<meta charset="base64">'), 8: ("charset=utf-16", "")}
    records = []
    for number in range(30):
        charset, meta = heads.get(number, ("", ""))
        head = ok if not charset else ok.replace("text/html", f"text/html; {charset}")
        records.append(response(f"http://a.test/{number}", head, story_page(number, meta)))
    good: set[tuple[str, int]] = set()

    # Gzipped, one member per record: bad deflate data in member 5, the header of member 12
    # overwritten, a wrong CRC in member 20.
    packed = tmp_path / "members.warc.gz"
    write_warc(packed, records)
    data = bytearray(packed.read_bytes())
    starts = [*member_offsets(bytes(data)), len(data)]
    assert len(starts) == 31
    middle = (starts[5] + starts[6]) // 2
    data[middle : middle + 16] = b"\xff" * 16
    data[starts[12] : starts[12] + 4] = b"\x00\x00\x00\x00"
    data[starts[21] - 8] ^= 0xFF  # the CRC-32 of member 20
    packed.write_bytes(bytes(data))
    good |= {("members", n) for n in range(30)} - {("members", 5), ("members", 12), ("members", 20)}

    # Uncompressed: record 7's version line damaged, record 15 declares a length far beyond
    # the file, record 22's header block overwritten with zeros.
    plain = tmp_path / "plain.warc"
    write_warc(plain, records, gzipped=False)
    text = plain.read_bytes()
    heads_at = [text.index(b"WARC/1.1\r\n", 0)]
    while (found := text.find(b"\r\nWARC/1.1\r\n", heads_at[-1] + 1)) >= 0:
        heads_at.append(found + 2)
    assert len(heads_at) == 30
    damaged = bytearray(text)
    damaged[heads_at[7] : heads_at[7] + 4] = b"WXRC"
    length = text.index(b"Content-Length: ", heads_at[15]) + len(b"Content-Length: ")
    digits = text.index(b"\r\n", length) - length
    damaged[length : length + digits] = b"999999999"
    damaged[heads_at[22] + 20 : heads_at[22] + 200] = bytes(180)
    plain.write_bytes(bytes(damaged))
    good |= {("plain", n) for n in range(30)} - {("plain", 7), ("plain", 15), ("plain", 22)}

    # Gzipped and cut off in the middle of its last member.
    cut = tmp_path / "cut.warc.gz"
    write_warc(cut, records)
    whole = cut.read_bytes()
    cut.write_bytes(whole[: (member_offsets(whole)[29] + len(whole)) // 2])
    good |= {("cut", n) for n in range(29)}

    out, stats = tmp_path / "rows.jsonl", tmp_path / "stats.json"
    status, stdout, _ = corpus(
        capsys,
        str(packed),
        str(plain),
        str(cut),
        "--out",
        str(out),
        "-j",
        "1",
        "--stats",
        str(stats),
    )

    assert status == 0
    summary = json.loads(stats.read_text())
    by_file = {Path(item["path"]).name: item for item in summary["files"]}
    assert by_file["members.warc.gz"]["skipped"] == {"corrupt": 3}
    assert by_file["plain.warc"]["skipped"] == {"corrupt": 2, "truncated": 1}
    assert by_file["cut.warc.gz"]["skipped"] == {"truncated": 1}
    assert [line.split(":")[0] for line in by_file["members.warc.gz"]["damage"]] == ["corrupt"] * 3
    assert "gzip member at byte" in by_file["members.warc.gz"]["damage"][0]
    assert summary["notes"] == {"http-charset-ignored": 6, "meta-charset-ignored": 3}
    assert "skipped corrupt" in stdout and "skipped truncated" in stdout
    rows = iter(read_jsonl(out))  # the files' rows, file after file
    kept: set[tuple[str, int]] = set()
    for name in ("members", "plain", "cut"):
        for row in itertools.islice(
            rows, by_file[f"{name}.warc{'' if name == 'plain' else '.gz'}"]["pages"]
        ):
            number = int(row["url"].rsplit("/", 1)[1])
            assert f"Story number {number} goes on" in row["text"]
            assert row["reason"] is None
            kept.add((name, number))
    assert next(rows, None) is None
    assert kept == good
    assert summary["pages"] == len(good) == 3 * 30 - 7


def test_the_reader_keeps_the_small_records_read_ahead_of_a_damage(tmp_path: Path) -> None:
    """Hundreds of small records fit in one read-ahead of the reader: none of them may be lost
    with the damaged member, the cut-off end or junk after the last member."""
    ok = "HTTP/1.1 200 OK\nContent-Type: text/html\n"
    records = [response(f"http://a.test/{n}", ok, b"<p>page %d</p>" % n) for n in range(300)]
    whole_path = tmp_path / "whole.warc.gz"
    write_warc(whole_path, records)
    whole = whole_path.read_bytes()
    starts = [*member_offsets(whole), len(whole)]
    middle = (starts[150] + starts[151]) // 2
    variants = {
        "damaged": (whole[:middle] + b"\xff" * 8 + whole[middle + 8 :], {150}, "corrupt"),
        "cut": (whole[: (starts[200] + starts[201]) // 2], set(range(200, 300)), "truncated"),
        "junk": (whole + b"not gzip", set(), "corrupt"),
    }
    for name, (data, lost, reason) in variants.items():
        path = tmp_path / f"{name}.warc.gz"
        path.write_bytes(data)
        items = list(iter_pages(path))
        pages = [int(item.url.rsplit("/", 1)[1]) for item in items if isinstance(item, WarcPage)]
        assert pages == sorted(set(range(300)) - lost), name
        assert [item.reason for item in items if isinstance(item, Skipped)] == [reason], name


def test_the_reader_streams_a_huge_record(tmp_path: Path) -> None:
    """A 64 MB record (a gzip member of 64 KB) is read through a chunk at a time: the memory
    the reader holds stays a small fraction of it, and the next record is read."""
    size = 64 << 20
    head = (
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-"
        "000000000001>\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://a.test/big"
        f"\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {size}\r\n\r\n"
    ).encode()
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = [packer.compress(head + http)]
    zeros = bytes(1 << 20)
    for _ in range((size - len(http)) >> 20):
        member.append(packer.compress(zeros))
    member.append(packer.compress(bytes((size - len(http)) % (1 << 20)) + b"\r\n\r\n"))
    member.append(packer.flush())
    small = tmp_path / "small.warc.gz"
    write_warc(
        small,
        [
            response(
                "http://a.test/small", "HTTP/1.1 200 OK\nContent-Type: text/html\n", b"<p>small</p>"
            )
        ],
    )
    path = tmp_path / "huge.warc.gz"
    path.write_bytes(b"".join(member) + small.read_bytes())
    assert path.stat().st_size < size // 100

    tracemalloc.start()
    try:
        items = list(iter_pages(path, max_bytes=1 << 20))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [item.reason if isinstance(item, Skipped) else item.url for item in items] == [
        "too_large",
        "http://a.test/small",
    ]
    assert peak < size // 16


def test_a_response_that_is_no_success_is_one_whatever_its_size(tmp_path: Path) -> None:
    path = tmp_path / "statuses.warc.gz"
    page = story_page(1)
    write_warc(
        path,
        [
            response(
                "http://a.test/gone", "HTTP/1.1 404 Not Found\nContent-Type: text/html\n", page
            ),
            response("http://a.test/big", "HTTP/1.1 200 OK\nContent-Type: text/html\n", page),
        ],
    )
    items = list(iter_pages(path, max_bytes=10))
    assert [item.reason for item in items if isinstance(item, Skipped)] == [
        "http_status",
        "too_large",
    ]


def test_a_bad_header_in_an_uncompressed_warc_is_placed_after_the_last_good_record(
    tmp_path: Path,
) -> None:
    plain = tmp_path / "plain.warc"
    ok = "HTTP/1.1 200 OK\nContent-Type: text/html\n"
    pages = [response(f"http://a.test/{n}", ok, story_page(n)) for n in range(4)]
    write_warc(plain, pages, gzipped=False)
    data = plain.read_bytes()
    starts = [start for start in range(len(data)) if data.startswith(b"WARC/1.", start)]
    plain.write_bytes(data[: starts[3]] + b"XXXXXXXX" + data[starts[3] + 8 :])
    damage = [item for item in iter_pages(plain) if isinstance(item, Skipped)]
    assert [item.reason for item in damage] == ["corrupt"]
    assert damage[0].detail is not None
    assert damage[0].detail.endswith(f"after the record at byte {starts[2]:,}")


def warcio_records(pages: list[tuple[str, bytes]]) -> list[bytes]:
    """Each of ``pages`` (a URL and an HTML body) as one uncompressed WARC response record,
    written by warcio, after a warcinfo record."""
    from warcio.statusandheaders import StatusAndHeaders  # type: ignore[import-untyped]
    from warcio.warcwriter import WARCWriter  # type: ignore[import-untyped]

    records: list[bytes] = []
    sink = io.BytesIO()
    writer = WARCWriter(sink, gzip=False)
    writer.write_record(writer.create_warcinfo_record("pages.warc.zst", {"software": "tests"}))
    records.append(sink.getvalue())
    for url, body in pages:
        head = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        sink = io.BytesIO()
        writer = WARCWriter(sink, gzip=False)
        writer.write_record(
            writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=head)
        )
        records.append(sink.getvalue())
    return records


def skippable(magic: int, data: bytes) -> bytes:
    """A Zstandard skippable frame of ``magic`` (0x184D2A50 to 0x184D2A5F) holding ``data``."""
    return struct.pack("<II", magic, len(data)) + data


STORIES = [(f"https://a.test/{n}", story_page(n)) for n in range(40)]


def zstd_warc(
    records: list[bytes], *, dictionary: Any = None, compressed_dictionary: bool = False
) -> tuple[bytes, list[int]]:
    """``records`` as a Zstandard WARC file (each record its own frame, with its size and
    checksum, written by the zstandard package), and where each record's frame begins; with
    ``dictionary`` (a ``zstandard.ZstdCompressionDict``), its frame first."""
    zstandard = pytest.importorskip("zstandard")
    compressor = zstandard.ZstdCompressor(
        level=3, dict_data=dictionary, write_checksum=True, write_content_size=True
    )
    data = b""
    if dictionary is not None:
        content = dictionary.as_bytes()
        if compressed_dictionary:
            content = zstandard.ZstdCompressor(write_content_size=True).compress(content)
        data = skippable(0x184D2A5D, content)
    starts: list[int] = []
    for record in records:
        starts.append(len(data))
        data += compressor.compress(record)
    return data, starts


def unplaced(item: WarcPage | Skipped) -> WarcPage | Skipped:
    """``item`` without the file and the offset it was read at."""
    return dataclasses.replace(item, file_path="", offset=0) if isinstance(item, WarcPage) else item


def items_of(data: bytes, path: Path) -> list[WarcPage | Skipped]:
    path.write_bytes(data)
    return list(iter_pages(path))


def test_a_zstandard_warc_gives_the_items_of_its_gzipped_twin(tmp_path: Path) -> None:
    """A ``.warc.zst`` of warcio's records, a frame per record (with a dictionary in its
    frame first, compressed or not, or none), gives the items of the same records gzipped,
    each page's ``offset`` the start of its record's frame; skippable frames between records
    and a record in two frames change nothing."""
    zstandard = pytest.importorskip("zstandard")
    records = warcio_records(STORIES)
    gzipped = b"".join(gzip.compress(record) for record in records)
    expected = items_of(gzipped, tmp_path / "pages.warc.gz")
    assert len([item for item in expected if isinstance(item, WarcPage)]) == len(STORIES)

    def same(found: list[WarcPage | Skipped], starts: list[int], name: str) -> None:
        assert list(map(unplaced, found)) == list(map(unplaced, expected)), name
        if starts:  # after the warcinfo record's frame
            offsets = [item.offset for item in found if isinstance(item, WarcPage)]
            assert offsets == starts[1:], name

    trained = zstandard.train_dictionary(4096, records * 4)
    variants = {
        "plain": zstd_warc(records),
        "dictionary": zstd_warc(records, dictionary=trained),
        "compressed dictionary": zstd_warc(records, dictionary=trained, compressed_dictionary=True),
    }
    for name, (data, starts) in variants.items():
        path = tmp_path / f"{name.replace(' ', '-')}.warc.zst"
        same(items_of(data, path), starts, name)
        assert find_warc_files([tmp_path]).count(path.resolve()) == 1
    data, starts = variants["dictionary"]
    assert len(data) < len(variants["plain"][0])  # the dictionary is used

    split = zstandard.ZstdCompressor(write_checksum=True, write_content_size=True)
    extended = b"".join(
        split.compress(record[:100])
        + skippable(0x184D2A50, b"extension")
        + split.compress(record[100:])
        for record in records
    )
    same(items_of(extended, tmp_path / "extended.warc.zst"), [], "split and extended")


def test_a_zstandard_warc_loses_only_its_damaged_frames(tmp_path: Path) -> None:
    """A frame whose data is damaged, or whose checksum does not match, is one ``corrupt``;
    a file cut off inside its last frame ends with one ``truncated``; every other page is
    read."""
    records = warcio_records(STORIES)
    data, starts = zstd_warc(records)
    damaged = bytearray(data)
    damaged[(starts[5] + starts[6]) // 2 : (starts[5] + starts[6]) // 2 + 8] = b"\xff" * 8
    damaged[starts[21] - 1] ^= 0xFF  # the checksum of record 20
    cut = bytes(damaged[: (starts[-1] + len(data)) // 2])
    items = items_of(cut, tmp_path / "damaged.warc.zst")
    pages = [int(item.url.rsplit("/", 1)[1]) for item in items if isinstance(item, WarcPage)]
    assert pages == sorted(set(range(40)) - {4, 19, 39})  # records 5, 20 and 40: pages 4, 19, 39
    losses = [item for item in items if isinstance(item, Skipped) and item.reason != "not_response"]
    assert [item.reason for item in losses] == ["corrupt", "corrupt", "truncated"]
    assert all("Zstandard frame at byte" in item.detail for item in losses)
    first = bytearray(data)
    first[starts[1] // 2 : starts[1] // 2 + 8] = b"\xff" * 8  # the warcinfo record's frame
    items = items_of(bytes(first), tmp_path / "first.warc.zst")
    assert [item.reason for item in items if isinstance(item, Skipped)] == ["corrupt"]
    assert len([item for item in items if isinstance(item, WarcPage)]) == 40


def test_a_zstandard_warc_that_cannot_be_read_is_refused_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a Zstandard decoder, a ``.warc.zst`` is an error naming the extra to install,
    before any work; so is a dictionary over the 8 MiB the specification asks decoders to read,
    or one that does not load. A Zstandard file that holds no WARC is not a WARC file."""
    records = warcio_records(STORIES[:2])
    data, _ = zstd_warc(records)
    path = tmp_path / "pages.warc.zst"
    path.write_bytes(data)
    with monkeypatch.context() as patched:
        for package in ("backports", "compression"):  # the module and its package's name
            patched.setitem(sys.modules, f"{package}.zstd", None)
            if package in sys.modules:
                patched.delattr(sys.modules[package], "zstd", raising=False)
        hint = r"pip install -e '\.\[zstd\]' in scrapy-cetd's checkout"
        with pytest.raises(UnreadableWarcError, match=hint):
            check_warc(str(path))
        with pytest.raises(UnreadableWarcError, match="Zstandard-compressed"):
            list(iter_pages(path))
        status, _, err = corpus(capsys, str(path), "--out", str(tmp_path / "rows.jsonl"))
        assert status == 1 and "pip install -e '.[zstd]'" in err
    huge = tmp_path / "huge.warc.zst"
    huge.write_bytes(struct.pack("<II", 0x184D2A5D, (8 << 20) + 1) + data)
    with pytest.raises(UnreadableWarcError, match="dictionary is 8,388,609 bytes, over 8 MiB"):
        list(iter_pages(huge))
    bad = tmp_path / "bad.warc.zst"
    bad.write_bytes(skippable(0x184D2A5D, b"\x28\xb5\x2f\xfd" + bytes(40)) + data)
    with pytest.raises(UnreadableWarcError, match="dictionary"):
        check_warc(str(bad))
    page = tmp_path / "page.warc.zst"
    page.write_bytes(zstd_warc([story_page(1)])[0])
    with pytest.raises(NotAWarcError, match="is not a WARC file"):
        check_warc(str(page))


def test_a_zstandard_frame_is_decompressed_a_chunk_at_a_time(tmp_path: Path) -> None:
    """A 64 MB record in one Zstandard frame of a few KB is read through a chunk at a time,
    as a gzip member is: the memory the reader holds stays a small fraction of it."""
    zstandard = pytest.importorskip("zstandard")
    size = 64 << 20
    body = b"<p>big</p>" + bytes(size)
    (big,) = warcio_records([("https://a.test/big", body)])[1:]
    data, _ = zstd_warc(warcio_records(STORIES[:1]))
    path = tmp_path / "huge.warc.zst"
    path.write_bytes(zstandard.ZstdCompressor(write_checksum=True).compress(big) + data)
    assert path.stat().st_size < size // 100
    del body, big
    tracemalloc.start()
    try:
        items = list(iter_pages(path, max_bytes=1 << 20))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [item.reason if isinstance(item, Skipped) else item.url for item in items] == [
        "too_large",
        "not_response",
        "https://a.test/0",
    ]
    assert peak < size // 16


def test_html_without_a_content_type_is_known_by_the_payload_type_or_its_first_tag(
    tmp_path: Path,
) -> None:
    """Without a ``Content-Type``, a response is a page when the WARC's identified payload
    type names HTML, or when its body begins as HTML (a byte order mark, whitespace, a
    comment or an XML declaration before an ``<html>`` tag with attributes, ``<head>`` or a
    doctype, in any case), which Scrapy's sniff of a body misses. A declared type other
    than HTML is followed, and a PDF, an image or JSON without one stay out."""
    page = b"<p>Text of the page.</p></body></html>"
    head = "HTTP/1.1 200 OK\n"

    def identified(url: str, body: bytes, payload_type: str) -> tuple[str, bytes, dict[str, str]]:
        return (*response(url, head, body), {"WARC-Identified-Payload-Type": payload_type})

    xmlns = b'<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><body>'
    records: list[tuple[str, bytes] | tuple[str, bytes, dict[str, str]]] = [
        response("https://t.test/class", head, b'<html class="no-js"><body>' + page),
        response("https://t.test/xmlns", head, xmlns + page),
        response("https://t.test/bom", head, b"\xef\xbb\xbf\n <!-- x -->\n<!DOCTYPE HTML>" + page),
        response("https://t.test/xml", head, b'<?xml version="1.0"?>\n<html lang="en">' + page),
        response("https://t.test/head", head, b"<HEAD><title>T</title></HEAD>" + page),
        identified("https://t.test/identified", b"<div>" + page, "text/html"),
        identified("https://t.test/xhtml", b"<div>" + page, "application/xhtml+xml"),
        response("https://t.test/plain", f"{head}Content-Type: text/plain\n", xmlns + page),
        response("https://t.test/pdf", head, b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"),
        response("https://t.test/png", head, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
        response("https://t.test/json", head, b'{"html": "<html lang=en>"}'),
        identified("https://t.test/json-identified", b'{"a": 1}', "application/json"),
        response("https://t.test/div", head, b"<div>" + page),
    ]
    path = tmp_path / "no-type.warc.gz"
    write_warc(path, records)
    items = list(iter_pages(path))
    pages = [item.url for item in items if isinstance(item, WarcPage)]
    assert pages == [
        "https://t.test/class",
        "https://t.test/xmlns",
        "https://t.test/bom",
        "https://t.test/xml",
        "https://t.test/head",
        "https://t.test/identified",
        "https://t.test/xhtml",
    ]
    skipped = {item.url: item.reason for item in items if isinstance(item, Skipped)}
    assert set(skipped.values()) == {"not_html"}
    assert len(skipped) == 6

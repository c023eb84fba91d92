"""Reading WARC files: :mod:`scrapy_cetd.corpus.warc`."""

from __future__ import annotations

import itertools
import json
import tracemalloc
import zlib
from pathlib import Path

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
        capsys, str(packed), str(plain), str(cut), "--out", str(out), "-j", "1",
        "--stats", str(stats),
    )  # fmt: skip

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
    records = [
        response(f"http://a.test/{n}", ok, b"<p>page %d</p>" % n) for n in range(300)
    ]  # fmt: skip
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

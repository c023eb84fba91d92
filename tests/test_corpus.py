"""``scrapy-cetd corpus`` and :mod:`scrapy_cetd.corpus`: WARC in, one row per HTML page out.

The bundled WARC (``tests/data/example-site.warc.gz``, made by ``benchmarks/make_warc.py``)
is a crawl of the example site: robots.txt, the index and 14 articles, each a request and a
response record, after a warcinfo record.
"""

from __future__ import annotations

import gzip
import itertools
import json
import pickle
import subprocess
import sys
import tracemalloc
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import brotli  # FastWARC's dependency
import pyarrow.parquet as pq
import pytest
from distributed import Client, LocalCluster
from fastwarc import GzipWriter, WarcRecord, WarcRecordType

import scrapy_cetd
from scrapy_cetd import cli
from scrapy_cetd.corpus import (
    CorpusSettings,
    Skipped,
    WarcPage,
    extract_page,
    iter_pages,
    run_corpus,
    to_dask_bag,
)

if sys.version_info >= (3, 14):
    from compression import zstd
else:  # backports.zstd, which Scrapy requires there
    from backports import zstd

ROOT = Path(__file__).resolve().parent.parent
WARC = ROOT / "tests" / "data" / "example-site.warc.gz"
SITE = ROOT / "example_project" / "site"
PAGES = 15  # the index and 14 articles
FIELDS = [
    "url",
    "warc_record_id",
    "date",
    "title",
    "main_content_text",
    "algorithm",
    "reason",
    "reason_code",
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


@pytest.fixture(scope="module")
def plain_warc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled WARC, decompressed."""
    path = tmp_path_factory.mktemp("plain") / "example-site.warc"
    path.write_bytes(gzip.decompress(WARC.read_bytes()))
    return path


def test_every_html_response_becomes_the_row_extract_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pages.jsonl"
    stats = tmp_path / "stats.json"
    status, stdout, _ = corpus(
        capsys, str(WARC), "--out", str(out), "--jobs", "1", "--stats", str(stats)
    )

    assert status == 0
    rows = read_jsonl(out)
    assert len(rows) == PAGES
    assert {urlsplit(row["url"]).path for row in rows} == {"/index.html"} | {
        f"/articles/{path.name}" for path in (SITE / "articles").glob("*.html")
    }
    assert len({row["warc_record_id"] for row in rows}) == PAGES
    for row in rows:
        assert list(row) == FIELDS
        expected = scrapy_cetd.extract(site_file(row["url"]).read_bytes(), url=row["url"])
        assert row["main_content_text"] == expected.text
        assert row["main_content_text"]
        assert row["algorithm"] == scrapy_cetd.DEFAULT_ALGORITHM
        assert row["reason"] is None
        assert row["title"]
        assert row["date"].startswith("20")
        assert row["warc_record_id"].startswith("<urn:uuid:")
    summary = json.loads(stats.read_text())
    assert summary["pages"] == PAGES
    # warcinfo + 16 requests are not responses; robots.txt is text/plain.
    assert summary["skipped"] == {"not_response": 17, "not_html": 1}
    assert "15 pages extracted" in stdout
    assert "not_html" in stdout


def test_gzipped_or_not_one_job_or_two_jsonl_or_parquet_give_the_same_rows(
    tmp_path: Path, plain_warc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = [str(WARC), str(plain_warc)]
    common = ["--html", "-a", "cetd-ds", "-O", "threshold_coefficient=0.9", "--progress"]
    local, by_file, by_page = (tmp_path / name for name in ("1.jsonl", "2.parquet", "3.jsonl"))
    # One job: this process reads and extracts.
    assert corpus(capsys, *inputs, "--out", str(local), "--jobs", "1", *common)[0] == 0
    # Two jobs, two files: each worker reads, extracts and writes a whole file.
    status, _, err = corpus(capsys, *inputs, "--out", str(by_file), "--jobs", "2", *common)
    assert status == 0
    assert " pages/s" in err
    # Two jobs, one file: this process reads, the workers extract batches of pages.
    status, _, err = corpus(capsys, str(WARC), "--out", str(by_page), "--jobs", "2", *common)
    assert status == 0
    assert " pages/s" in err

    rows = read_jsonl(local)
    assert len(rows) == 2 * PAGES
    assert rows[:PAGES] == rows[PAGES:]  # the same records, gzipped and not
    assert read_parquet(by_file) == rows
    assert read_jsonl(by_page) == rows[:PAGES]
    for row in rows[:PAGES]:
        expected = scrapy_cetd.extract(
            site_file(row["url"]).read_bytes(), algorithm="cetd-ds", threshold_coefficient=0.9
        )
        assert row["algorithm"] == "cetd-ds"
        assert (row["main_content_text"], row["main_content_html"]) == (
            expected.text,
            expected.html,
        )


def response(url: str, head: str, body: bytes) -> tuple[str, bytes]:
    """A WARC target URI and an HTTP response message (``head`` with ``\\n`` line ends)."""
    return url, head.replace("\n", "\r\n").encode() + b"\r\n" + body


def write_warc(path: Path, records: list[tuple[str, bytes]], *, gzipped: bool = True) -> None:
    """A WARC of ``response`` records (url, HTTP message), one gzip member each."""
    with path.open("wb") as file:
        writer = GzipWriter(file) if gzipped else None
        for url, block in records:
            record = WarcRecord()
            record.init_headers(WarcRecordType.response, content_length=len(block))
            record.headers.append("WARC-Target-URI", url)
            record.headers.append("Content-Type", "application/http; msgtype=response")
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


def test_bad_records_are_counted_and_never_stop_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok = "HTTP/1.1 200 OK\n"
    html = ok + "Content-Type: text/html; charset=utf-8\n"
    bomb = gzip.compress(b" " * 10**7)
    records = [
        response("http://a.test/plain", html, ARTICLE),
        response("http://a.test/gzip", html + "Content-Encoding: gzip\n", gzip.compress(ARTICLE)),
        response(
            "http://a.test/chunked-deflate",
            html + "Transfer-Encoding: chunked\nContent-Encoding: deflate\n",
            chunked(zlib.compress(ARTICLE)),
        ),
        response("http://a.test/br", html + "Content-Encoding: br\n", brotli.compress(ARTICLE)),
        response("http://a.test/zstd", html + "Content-Encoding: zstd\n", zstd.compress(ARTICLE)),
        response("http://a.test/bad-gzip", html + "Content-Encoding: gzip\n", b"not gzip"),
        response("http://a.test/bad-chunks", html + "Transfer-Encoding: chunked\n", b"zz\r\nx"),
        response("http://a.test/odd-coding", html + "Content-Encoding: lzma\n", ARTICLE),
        response("http://a.test/blank", html, b"  \n "),
        response("http://a.test/image.png", ok + "Content-Type: image/png\n", b"\x89PNG"),
        response("http://a.test/404", "HTTP/1.1 404 Not Found\nContent-Type: text/html\n", b"-"),
        response("http://a.test/huge", html, ARTICLE * 20),
        response("http://a.test/bomb", html + "Content-Encoding: gzip\n", bomb),
        ("http://a.test/not-http", b"no status line here"),
    ]  # fmt: skip
    mixed = tmp_path / "mixed.warc.gz"
    write_warc(mixed, records)
    # A download cut off in the middle of a gzip member, and one cut inside a WARC header.
    whole = WARC.read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    plain = gzip.decompress(whole)
    cut_header = tmp_path / "cut-header.warc"
    cut_header.write_bytes(plain[: plain.rindex(b"WARC-Target-URI") + 10])
    # Corrupt compressed data in the middle of the file, and a file that is no WARC at all.
    corrupt = tmp_path / "corrupt.warc.gz"
    corrupt.write_bytes(whole[:60_000] + bytes(2000) + whole[62_000:])
    garbage = tmp_path / "notes.warc"
    garbage.write_text("these are my notes, not a WARC file\n" * 10)

    out = tmp_path / "rows.jsonl"
    stats = tmp_path / "stats.json"
    inputs = [mixed, cut, cut_header, corrupt, garbage]
    status, stdout, _ = corpus(
        capsys, *map(str, inputs), "--out", str(out), "--max-bytes", "500000", "--stats", str(stats)
    )

    assert status == 0
    summary = json.loads(stats.read_text())
    by_file = {Path(item["path"]).name: item for item in summary["files"]}
    assert by_file["mixed.warc.gz"]["pages"] == 5
    assert by_file["mixed.warc.gz"]["skipped"] == {
        "undecodable": 5,  # bad gzip, bad chunks, unknown coding, blank body, no status line
        "not_html": 1,
        "http_status": 1,
        "too_large": 2,  # stored over the limit; over it once decoded
    }
    assert by_file["cut.warc.gz"]["skipped"]["truncated"] == 1
    assert by_file["cut.warc.gz"]["pages"] >= 1
    assert by_file["cut-header.warc"]["skipped"]["truncated"] == 1
    assert by_file["cut-header.warc"]["pages"] == PAGES - 1
    assert by_file["corrupt.warc.gz"]["skipped"]["corrupt"] == 1
    assert by_file["corrupt.warc.gz"]["pages"] >= 1
    assert by_file["notes.warc"]["skipped"] == {"corrupt": 1}
    for reason in ("truncated", "corrupt", "undecodable", "too_large", "not_html"):
        assert f"skipped {reason}" in stdout

    rows = read_jsonl(out)
    assert len(rows) == summary["pages"]
    expected = scrapy_cetd.extract(ARTICLE).text
    decoded = [row["main_content_text"] for row in rows if row["url"].startswith("http://a.")]
    assert decoded == [expected] * 5  # plain, gzip, chunked deflate, br, zstd


def test_a_rerun_skips_finished_files_and_redoes_changed_ones(
    tmp_path: Path, plain_warc: Path
) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    first, second = inputs / "a.warc.gz", inputs / "b.warc"
    first.write_bytes(WARC.read_bytes())
    second.write_bytes(plain_warc.read_bytes())
    (inputs / "readme.txt").write_text("not searched: a directory yields *.warc and *.warc.gz")
    out = tmp_path / "rows.jsonl"

    done = run_corpus([inputs], out, jobs=1)
    assert [Path(item.path).name for item in done.files] == ["a.warc.gz", "b.warc"]
    assert [item.resumed for item in done.files] == [False, False]
    rows = out.read_bytes()

    again = run_corpus([inputs], out, jobs=1)
    assert [item.resumed for item in again.files] == [True, True]
    assert again.pages == done.pages == 2 * PAGES
    assert out.read_bytes() == rows

    second.write_bytes(plain_warc.read_bytes()[: len(plain_warc.read_bytes()) // 2])
    changed = run_corpus([inputs], out, jobs=1)
    assert [item.resumed for item in changed.files] == [True, False]
    assert changed.pages < done.pages

    with_html = run_corpus([first], out, CorpusSettings(html=True), jobs=1)
    assert [item.resumed for item in with_html.files] == [False]
    assert "main_content_html" in read_jsonl(out)[0]
    parts = sorted(path.name for path in (tmp_path / "rows.jsonl.parts").iterdir())
    assert len(parts) == 2  # one part and its marker: the other runs' parts were removed
    assert parts[0].startswith("a-") and parts[1] == parts[0] + ".json"


def test_the_progress_bar_counts_pages_per_second(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_corpus([WARC], tmp_path / "rows.jsonl", jobs=1, progress=True)
    assert " pages/s" in capsys.readouterr().err
    run_corpus([WARC], tmp_path / "again.jsonl", jobs=1, progress=None)  # not a terminal
    assert capsys.readouterr().err == ""


def test_usage_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = corpus(capsys, str(WARC), "--out", str(tmp_path / "rows.csv"))
    assert status == 1
    assert "use one of .jsonl, .ndjson, .parquet" in err
    status, _, err = corpus(capsys, str(tmp_path / "missing.warc"), "--out", "x.jsonl")
    assert (status, err.count("\n")) == (1, 1)
    assert "missing.warc" in err
    status, _, err = corpus(capsys, str(WARC), "--out", "x.jsonl", "-a", "nope")
    assert status == 2  # a command line that cannot run, as for every command
    assert "unknown algorithm 'nope'" in err
    status, _, err = corpus(capsys, str(WARC), "--out", "x.jsonl", "--jobs", "0")
    assert (status, "jobs must be at least 1" in err) == (1, True)
    status, _, err = corpus(capsys, str(WARC), "--out", "x.jsonl", "--max-bytes", "0")
    assert (status, "max_bytes must be a positive number" in err) == (1, True)


def test_the_per_record_function_pickles_and_matches_extract() -> None:
    pages = [item for item in iter_pages(WARC) if isinstance(item, WarcPage)]
    assert len(pages) == PAGES
    settings = CorpusSettings(html=True)
    function, page, settings = pickle.loads(pickle.dumps((extract_page, pages[1], settings)))
    row = function(page, settings)
    assert not isinstance(row, Skipped)
    expected = scrapy_cetd.extract(site_file(page.url).read_bytes(), url=page.url)
    assert (row["main_content_text"], row["main_content_html"]) == (expected.text, expected.html)


def test_a_dask_cluster_of_two_worker_processes_gives_the_local_rows(
    tmp_path: Path, plain_warc: Path
) -> None:
    run_corpus([WARC, plain_warc], tmp_path / "local.jsonl", jobs=1)
    local = read_jsonl(tmp_path / "local.jsonl")
    inputs: list[str | Path] = [WARC.as_uri(), plain_warc]  # a URL (opened with fsspec), a path
    with (
        LocalCluster(  # type: ignore[no-untyped-call]  # distributed is not typed
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster),  # type: ignore[no-untyped-call]
    ):
        bag = to_dask_bag(inputs)
        assert bag.npartitions == 2
        rows = bag.compute()  # type: ignore[no-untyped-call]  # nor is dask.bag
        bag = to_dask_bag([WARC], include_skipped=True)
        skipped = bag.pluck("skipped", None)  # type: ignore[no-untyped-call]
        counts = dict(skipped.frequencies().compute())
    assert rows == local
    assert counts == {None: PAGES, "not_response": 17, "not_html": 1}


def test_make_warc_reproduces_the_bundled_warc(tmp_path: Path) -> None:
    """The committed WARC is the script's crawl of today's site (when the site changes,
    regenerate it: ``python -m benchmarks.make_warc``)."""
    out = tmp_path / "site.warc.gz"
    command = [sys.executable, "-m", "benchmarks.make_warc", "--out", str(out)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=120)

    def responses(path: Path) -> list[tuple[str, bytes]]:
        return [
            (urlsplit(page.url).path, page.body)
            for page in iter_pages(path)
            if isinstance(page, WarcPage)
        ]

    assert responses(out) == responses(WARC)
    assert len(responses(out)) == PAGES


def test_corpus_rows_get_exactly_what_extract_applies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n"
    controls = ARTICLE.replace(b"<p>", b"<p>\x01\x07bell\x08 ", 3)
    many = b"<html><body>" + b"<div><p>cell</p></div>" * 800 + b"</body></html>"
    hex_meta = ARTICLE.replace(b"<head>", b'<head><meta charset="hex">', 1)
    records = [
        response("http://a.test/controls", ok, controls),
        response("http://a.test/many", ok, many),
        response("http://a.test/hex-header", "HTTP/1.1 200 OK\nContent-Type: text/html; "
                 "charset=hex\n", ARTICLE),
        response("http://a.test/hex-meta", "HTTP/1.1 200 OK\nContent-Type: text/html\n",
                 hex_meta),
        response("http://a.test/utf16-header", "HTTP/1.1 200 OK\nContent-Type: text/html; "
                 "charset=utf-16\n", ARTICLE),
    ]  # fmt: skip
    warc = tmp_path / "limits.warc.gz"
    write_warc(warc, records)
    out, stats = tmp_path / "rows.jsonl", tmp_path / "stats.json"
    status, stdout, _ = corpus(
        capsys, str(warc), "--out", str(out), "--max-nodes", "1000", "--stats", str(stats)
    )
    assert status == 0
    rows = {row["url"].rsplit("/", 1)[1]: row for row in read_jsonl(out)}
    assert sorted(rows) == ["controls", "hex-header", "hex-meta", "many", "utf16-header"]
    for name, charset, body in [
        ("controls", "utf-8", controls),
        ("many", "utf-8", many),
        ("hex-header", "hex", ARTICLE),
        ("hex-meta", None, hex_meta),
        ("utf16-header", "utf-16", ARTICLE),
    ]:
        expected = scrapy_cetd.extract(body, encoding=charset, max_nodes=1000, time_budget=10)
        assert (rows[name]["main_content_text"], rows[name]["reason"]) == (
            expected.text,
            expected.reason,
        )
    assert "bell" in rows["controls"]["main_content_text"]
    assert "\x07" not in rows["controls"]["main_content_text"]
    assert rows["many"]["reason"].startswith("max_nodes exceeded: ")
    assert rows["many"]["reason_code"] == "max_nodes"
    assert rows["controls"]["reason_code"] is None
    assert rows["hex-header"]["main_content_text"] == scrapy_cetd.extract(ARTICLE).text
    assert rows["utf16-header"]["main_content_text"] == scrapy_cetd.extract(ARTICLE).text
    summary = json.loads(stats.read_text())
    assert summary["limits"] == {"max_nodes": 1}
    assert summary["notes"] == {"http-charset-ignored": 2, "meta-charset-ignored": 1}
    assert "limit   max_nodes" in stdout and "note    http-charset-ignored" in stdout

    # A budget no page meets: every row is empty, and says why.
    out = tmp_path / "budget.jsonl"
    status, stdout, _ = corpus(
        capsys, str(warc), "--out", str(out), "--time-budget", "1e-9", "--max-nodes", "none"
    )
    assert status == 0
    reasons = [row["reason"] for row in read_jsonl(out)]
    assert len(reasons) == 5
    assert all(reason.startswith("time_budget exceeded: ") for reason in reasons)
    assert "limit   time_budget           5" in stdout


def test_limit_options_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "x.jsonl")
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--max-nodes", "0")
    assert (status, "max_nodes must be a positive number or None, not 0" in err) == (1, True)
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--time-budget", "-1")
    assert (status, "time_budget must be a positive number" in err) == (1, True)
    with pytest.raises(SystemExit):
        cli.main(["corpus", str(WARC), "--out", out, "--max-nodes", "many"])
    assert "invalid int value: 'many'" in capsys.readouterr().err


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
    kept = set()
    for name in ("members", "plain", "cut"):
        for row in itertools.islice(
            rows, by_file[f"{name}.warc{'' if name == 'plain' else '.gz'}"]["pages"]
        ):
            number = int(row["url"].rsplit("/", 1)[1])
            assert f"Story number {number} goes on" in row["main_content_text"]
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

"""``scrapy-cetd corpus`` and :func:`scrapy_cetd.corpus.run_corpus`."""

from __future__ import annotations

import functools
import gzip
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import brotli  # type: ignore[import-untyped]  # FastWARC's dependency
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from corpuskit import (
    ARTICLE,
    FIELDS,
    PAGES,
    ROOT,
    SITE,
    WARC,
    chunked,
    corpus,
    decompressed_warc,
    read_jsonl,
    read_parquet,
    response,
    site_file,
    write_warc,
)

import scrapy_cetd
from scrapy_cetd import cli
from scrapy_cetd.corpus import (
    CorpusSettings,
    WarcPage,
    iter_pages,
    records,
    run_corpus,
    workers,
)

try:
    from compression import zstd  # type: ignore[import-not-found]
except ImportError:  # Python < 3.14: backports.zstd, which Scrapy requires there
    from backports import zstd


@pytest.fixture(scope="module")
def plain_warc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled WARC, decompressed."""
    return decompressed_warc(tmp_path_factory)


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
    assert len({row["id"] for row in rows}) == PAGES
    for row in rows:
        assert list(row) == FIELDS
        expected = scrapy_cetd.extract(site_file(row["url"]).read_bytes(), url=row["url"])
        assert row["text"] == expected.text
        assert row["text"]
        assert row["extractor"] == scrapy_cetd.DEFAULT_ALGORITHM
        assert row["reason"] is None
        assert row["title"]
        assert row["date"].startswith("20")
        assert row["id"].startswith("<urn:uuid:")
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
    common = ["--html", "--markdown", "-a", "cetd-ds", "-O", "threshold_coefficient=0.9"]
    common.append("--progress")
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
    # The same records, gzipped and not: only where they were read from differs.
    assert [where_from(row) for row in rows[:PAGES]] == [where_from(row) for row in rows[PAGES:]]
    assert read_parquet(by_file) == rows
    assert read_jsonl(by_page) == rows[:PAGES]
    assert {row["file_path"] for row in rows} == {str(WARC), str(plain_warc)}
    for row in rows[:PAGES]:
        expected = scrapy_cetd.extract(
            site_file(row["url"]).read_bytes(),
            url=row["url"],  # the corpus gives the record's URL: links made absolute
            algorithm="cetd-ds",
            threshold_coefficient=0.9,
            markdown=True,
        )
        assert row["extractor"] == "cetd-ds"
        assert list(row) == [*FIELDS, "html", "markdown"]
        assert expected.markdown
        assert (row["text"], row["html"], row["markdown"]) == (
            expected.text,
            expected.html,
            expected.markdown,
        )


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
        response("http://a.test/de-chunked", html + "Transfer-Encoding: chunked\n", ARTICLE),
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
    # Corrupt compressed data in the middle of the file.
    corrupt = tmp_path / "corrupt.warc.gz"
    corrupt.write_bytes(whole[:60_000] + bytes(2000) + whole[62_000:])

    out = tmp_path / "rows.jsonl"
    stats = tmp_path / "stats.json"
    inputs = [mixed, cut, cut_header, corrupt]
    status, stdout, _ = corpus(
        capsys, *map(str, inputs), "--out", str(out), "--max-bytes", "500000", "--stats", str(stats)
    )

    assert status == 0
    summary = json.loads(stats.read_text())
    by_file = {Path(item["path"]).name: item for item in summary["files"]}
    assert by_file["mixed.warc.gz"]["pages"] == 6
    assert by_file["mixed.warc.gz"]["skipped"] == {
        "undecodable": 4,  # bad gzip, unknown coding, blank body, no status line
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
    for reason in ("truncated", "corrupt", "undecodable", "too_large", "not_html"):
        assert f"skipped {reason}" in stdout

    rows = read_jsonl(out)
    assert len(rows) == summary["pages"]
    expected = scrapy_cetd.extract(ARTICLE).text
    decoded = [row["text"] for row in rows if row["url"].startswith("http://a.")]
    assert decoded == [expected] * 6  # plain, gzip, chunked deflate, stored decoded, br, zstd


def test_a_complete_run_leaves_one_copy_of_the_output(tmp_path: Path, plain_warc: Path) -> None:
    """The parts are removed once the output is assembled: no second copy of the rows stays
    behind, and a rerun writes the same output again."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    first, second = inputs / "a.warc.gz", inputs / "b.warc"
    first.write_bytes(WARC.read_bytes())
    second.write_bytes(plain_warc.read_bytes())
    (inputs / "readme.txt").write_text("not searched: a directory yields *.warc and *.warc.gz")
    out = tmp_path / "rows.jsonl"

    done = run_corpus([inputs], out, jobs=1)
    assert [Path(item.path).name for item in done.files] == ["a.warc.gz", "b.warc"]
    assert done.complete
    assert not (tmp_path / "rows.jsonl.parts").exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in", "rows.jsonl"]
    rows = out.read_bytes()

    again = run_corpus([inputs], out, jobs=1)
    assert [item.resumed for item in again.files] == [False, False]
    assert out.read_bytes() == rows

    with_html = run_corpus([first], out, CorpusSettings(html=True), jobs=1)
    assert "html" in read_jsonl(out)[0]
    assert with_html.pages == PAGES


def test_the_progress_bar_counts_pages_per_second(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_corpus([WARC], tmp_path / "rows.jsonl", jobs=1, progress=True)
    assert " pages/s" in capsys.readouterr().err
    run_corpus([WARC], tmp_path / "again.jsonl", jobs=1, progress=None)  # not a terminal
    assert capsys.readouterr().err == ""


def test_usage_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = corpus(capsys, str(WARC), "--out", str(tmp_path / "rows.csv"))
    assert status == 2  # the command line cannot run
    assert "--out " in err and "use one of .jsonl, .ndjson, .parquet" in err
    status, _, err = corpus(capsys, str(tmp_path / "missing.warc"), "--out", "x.jsonl")
    assert (status, err.count("\n")) == (1, 1)
    assert "missing.warc" in err
    status, _, err = corpus(capsys, str(WARC), "--out", "x.jsonl", "-a", "nope")
    assert status == 2  # a command line that cannot run, as for every command
    assert "unknown algorithm 'nope'" in err
    status, _, err = corpus(capsys, str(WARC), "--out", "x.jsonl", "--jobs", "0")
    assert (status, "--jobs must be at least 1" in err) == (2, True)
    status, _, err = corpus(capsys, str(WARC), "--out", "x.jsonl", "--max-bytes", "0")
    assert (status, "--max-bytes must be a positive number" in err) == (2, True)


def where_from(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` without the columns that say which file it was read from, and where."""
    return {name: value for name, value in row.items() if name not in ("file_path", "warc_offset")}


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
        assert (rows[name]["text"], rows[name]["reason"]) == (
            expected.text,
            expected.reason,
        )
    assert "bell" in rows["controls"]["text"]
    assert "\x07" not in rows["controls"]["text"]
    assert rows["many"]["reason"].startswith("max_nodes exceeded: ")
    assert rows["many"]["reason_code"] == "max_nodes"
    assert rows["controls"]["reason_code"] is None
    assert rows["hex-header"]["text"] == scrapy_cetd.extract(ARTICLE).text
    assert rows["utf16-header"]["text"] == scrapy_cetd.extract(ARTICLE).text
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


def test_the_notes_are_a_column_of_every_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page in windows-1252 sent as UTF-8 says in its row that bytes were read as U+FFFD,
    in JSON Lines and Parquet alike; a row with nothing to say has an empty list."""
    latin = ARTICLE.replace(b"</p>", " grand-m\u00e8re</p>".encode("cp1252"), 1)
    ok = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n"
    warc = tmp_path / "notes.warc.gz"
    write_warc(
        warc,
        [response("http://a.test/latin", ok, latin), response("http://a.test/ok", ok, ARTICLE)],
    )
    expected = scrapy_cetd.extract(latin, encoding="utf-8").notes
    assert [note.partition(":")[0] for note in expected] == ["undecodable-bytes"]
    stats = tmp_path / "stats.json"
    for out in (tmp_path / "rows.jsonl", tmp_path / "rows.parquet"):
        command = [str(warc), "--out", str(out), "--jobs", "1", "--stats", str(stats)]
        assert corpus(capsys, *command)[0] == 0
        rows = read_jsonl(out) if out.suffix == ".jsonl" else read_parquet(out)
        assert [row["notes"] for row in rows] == [list(expected), []]
        assert json.loads(stats.read_text())["notes"] == {"undecodable-bytes": 1}
    schema = pq.read_schema(tmp_path / "rows.parquet")
    assert schema.field("notes").type == pa.list_(pa.string())


def test_a_record_the_crawler_truncated_says_so_in_its_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record whose ``WARC-Truncated`` header says the crawler stored part of the payload
    (Common Crawl cuts bodies past 1 MiB: ``length``) gives the row of what was stored, with a
    ``payload-truncated`` note, last, counted in the stats; the other records have none."""
    ok = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n"
    cut = ARTICLE[: len(ARTICLE) // 2]
    warc = tmp_path / "truncated.warc.gz"
    write_warc(
        warc,
        [
            (*response("http://a.test/cut", ok, cut), {"WARC-Truncated": "length"}),
            (*response("http://a.test/slow", ok, ARTICLE), {"WARC-Truncated": "time"}),
            response("http://a.test/ok", ok, ARTICLE),
        ],
    )
    out, stats = tmp_path / "rows.jsonl", tmp_path / "stats.json"
    assert (
        corpus(capsys, str(warc), "--out", str(out), "--jobs", "1", "--stats", str(stats))[0] == 0
    )
    rows = read_jsonl(out)
    assert [row["notes"] for row in rows] == [
        ["payload-truncated: length"],
        ["payload-truncated: time"],
        [],
    ]
    assert rows[0]["text"] == scrapy_cetd.extract(cut, encoding="utf-8").text
    assert json.loads(stats.read_text())["notes"] == {"payload-truncated": 2}
    pages = [item for item in iter_pages(warc) if isinstance(item, WarcPage)]
    assert [page.truncated for page in pages] == ["length", "time", None]
    html = [records.page_html(page) for page in pages]
    assert [page.notes for page in html if isinstance(page, records.PageHtml)] == [
        ("payload-truncated: length",),
        ("payload-truncated: time",),
        (),
    ]


def test_the_summary_says_which_options_the_extractor_had(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rows name the algorithm, not its ``-O`` options: the summary and ``--stats`` do,
    with the values the extractor got."""
    out, stats = tmp_path / "rows.jsonl", tmp_path / "stats.json"
    options = ["-a", "cetd-ds", "-O", "threshold_coefficient=0.90", "-O", "remove_hidden=no"]
    command = [str(WARC), "--out", str(out), "--stats", str(stats), "--jobs", "1", *options]
    status, stdout, _ = corpus(capsys, *command)
    assert status == 0
    summary = json.loads(stats.read_text())
    assert summary["algorithm"] == "cetd-ds"
    assert summary["options"] == {"threshold_coefficient": 0.9, "remove_hidden": False}
    assert "  extractor cetd-ds -O threshold_coefficient=0.9 -O remove_hidden=False" in stdout
    assert {row["extractor"] for row in read_jsonl(out)} == {"cetd-ds"}
    assert corpus(capsys, str(WARC), "--out", str(out), "--stats", str(stats), "-j", "1")[0] == 0
    assert json.loads(stats.read_text())["options"] == {}


def test_limit_options_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "x.jsonl")
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--max-nodes", "0")
    assert (status, "--max-nodes must be a positive whole number or none, not 0" in err) == (
        2,
        True,
    )
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--time-budget", "-1")
    assert (status, "--time-budget must be a positive number" in err) == (2, True)
    with pytest.raises(SystemExit):
        cli.main(["corpus", str(WARC), "--out", out, "--max-nodes", "many"])
    assert "invalid int value: 'many'" in capsys.readouterr().err


def copies_of_the_warc(folder: Path, count: int) -> list[Path]:
    """``count`` copies of the bundled WARC in ``folder``, each a separate input."""
    folder.mkdir()
    paths = [folder / f"site-{number:02d}.warc.gz" for number in range(count)]
    for path in paths:
        path.write_bytes(WARC.read_bytes())
    return paths


def test_ctrl_c_stops_within_seconds_and_the_rerun_resumes_without_duplicates(
    tmp_path: Path,
) -> None:
    """Ctrl-C in the middle of a run: the command exits promptly with 130, no traceback, and
    says how to resume; the finished files' parts are kept, the rerun does only the rest, and
    the output holds every row once."""
    inputs = copies_of_the_warc(tmp_path / "in", 40)
    out = tmp_path / "rows.jsonl"
    parts = tmp_path / "rows.jsonl.parts"
    command = [
        sys.executable, "-m", "scrapy_cetd.cli", "corpus", str(tmp_path / "in"),
        "--out", str(out), "--jobs", "2", "--no-progress",
    ]  # fmt: skip
    # In a session of its own, so that the signal can go to the whole process group, as a
    # terminal's Ctrl-C does: the command, its fork server and its workers.
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while not (parts.is_dir() and any(parts.glob("*.json"))) and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    interrupted = time.monotonic()
    stdout, stderr = process.communicate(timeout=30)
    waited = time.monotonic() - interrupted

    assert waited < 5, waited
    assert process.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert "run the same command again to resume" in stdout
    assert not out.exists()
    kept = len(list(parts.glob("*.json")))
    assert 1 <= kept < len(inputs)
    assert not list(parts.glob("*.tmp"))  # the files in progress were dropped

    status = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert status.returncode == 0, status.stderr
    assert status.stderr.count("already done") == kept
    rows = read_jsonl(out)
    assert len(rows) == len(inputs) * PAGES
    assert len({(row["file_path"], row["id"]) for row in rows}) == len(rows)
    assert [row["file_path"] for row in rows[::PAGES]] == [str(path) for path in inputs]
    assert not parts.exists()


@pytest.mark.parametrize(
    ("files", "after"),
    [(2, 0.0), (2, 1.0), (1, 1.0)],
    ids=["files-in-workers-at-once", "files-in-workers-later", "pages-in-workers-later"],
)
def test_ctrl_c_while_the_workers_start_stops_as_cleanly(
    tmp_path: Path, files: int, after: float
) -> None:
    """Ctrl-C to the whole process group while the pool starts (its fork server importing
    the package, its workers being born, then loading the metadata's libraries before their
    first page): the command exits 130 within seconds, says it was interrupted, prints no
    traceback, and leaves no process and no unfinished part behind. A worker takes a whole
    file when there are as many files as workers, and batches of pages of one file when
    there are fewer."""
    copies_of_the_warc(tmp_path / "in", files)
    parts = tmp_path / "rows.jsonl.parts"
    command = [
        sys.executable, "-m", "scrapy_cetd.cli", "corpus", str(tmp_path / "in"),
        "--out", str(tmp_path / "rows.jsonl"), "--jobs", "2", "--no-progress",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while not parts.is_dir() and time.monotonic() < deadline:  # the pool starts next
        assert process.poll() is None, process.communicate()
        time.sleep(0.01)
    time.sleep(after)
    os.killpg(process.pid, signal.SIGINT)
    interrupted = time.monotonic()
    stdout, stderr = process.communicate(timeout=60)
    waited = time.monotonic() - interrupted

    assert process.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr and "Error" not in stderr, stderr
    assert "run the same command again to resume" in stdout
    assert waited < 5, waited
    assert not list(parts.glob("*.tmp"))
    while time.monotonic() < interrupted + 10:  # the fork server and the workers end too
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("processes of the command outlive it")


def test_an_input_that_is_no_warc_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    page.write_bytes(ARTICLE)
    notes = tmp_path / "notes.warc.gz"
    notes.write_bytes(gzip.compress(b"these are my notes, not a WARC file\n" * 10))
    for bad in (page, notes):
        out = tmp_path / "rows.jsonl"
        status, _, err = corpus(capsys, str(WARC), str(bad), "--out", str(out))
        assert status == 1
        assert err.count("\n") == 1
        assert f"{bad} is not a WARC file" in err
        assert not out.exists() and not (tmp_path / "rows.jsonl.parts").exists()


def test_a_run_that_extracts_nothing_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every record is skipped (no HTML response, or damage): the command says so, exit 1."""
    images = tmp_path / "images.warc.gz"
    ok = "HTTP/1.1 200 OK\nContent-Type: image/png\n"
    write_warc(images, [response(f"http://a.test/{n}.png", ok, b"\x89PNG") for n in range(3)])
    whole = WARC.read_bytes()
    damaged = tmp_path / "damaged.warc.gz"
    damaged.write_bytes(whole[:2000] + bytes(len(whole) - 2000))
    out = tmp_path / "rows.jsonl"
    status, stdout, err = corpus(capsys, str(images), str(damaged), "--out", str(out))
    assert status == 1
    assert "nothing extracted: no HTML page in 2 input(s)" in err
    assert re.search(r"skipped not_html +4 ", stdout)  # 3 images and robots.txt


class _WarcHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder (its ``directory`` argument) without logging each request."""

    def log_message(self, format: str, *args: Any) -> None:
        return None


def test_remote_inputs_are_read_through_fsspec(tmp_path: Path, plain_warc: Path) -> None:
    """An ``http://`` input on a server on 127.0.0.1 gives the rows of the same file read
    locally; a URL that is no WARC is refused like a local file."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "site.warc").write_bytes(plain_warc.read_bytes())
    (served / "page.html").write_bytes(ARTICLE)
    handler = functools.partial(_WarcHandler, directory=str(served))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            remote = run_corpus([f"{base}/site.warc"], tmp_path / "remote.jsonl", jobs=1)
            with pytest.raises(ValueError, match=r"page\.html is not a WARC file"):
                run_corpus([f"{base}/page.html"], tmp_path / "page.jsonl", jobs=1)
            missing = f"{base}/missing.warc"
            with pytest.raises(FileNotFoundError, match=f"^cannot read {missing}: HTTP status 404"):
                run_corpus([missing], tmp_path / "missing.jsonl", jobs=1)
        finally:
            server.shutdown()
    run_corpus([plain_warc], tmp_path / "local.jsonl", jobs=1)
    assert remote.complete and remote.pages == PAGES
    remote_rows = read_jsonl(tmp_path / "remote.jsonl")
    assert {row["file_path"] for row in remote_rows} == {f"{base}/site.warc"}
    assert [where_from(row) for row in remote_rows] == [
        where_from(row) for row in read_jsonl(tmp_path / "local.jsonl")
    ]


def paragraphs(sentence: str, count: int) -> str:
    return "".join(f"<p>{sentence} ({part})</p>" for part in range(count))


ENGLISH = (
    "The harbour wall held through the night while the wind turned and the boats stayed in, "
    "and by morning the fishermen were mending their nets on the quay"
)
GERMAN = (
    "Die Hafenmauer hielt die ganze Nacht, während der Wind drehte und die Boote im Hafen "
    "blieben, und am Morgen flickten die Fischer ihre Netze auf dem Kai"
)


def filter_warc(path: Path) -> None:
    """Pages for the filters: English, the same English text with other case and spacing
    (a duplicate once normalised), German, and a short English page."""
    ok = "HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\n"

    def page(body: str) -> bytes:
        return f"<html><body><article>{body}</article></body></html>".encode()

    shouted = paragraphs(ENGLISH.upper().replace(" ", "  "), 6)
    write_warc(
        path,
        [
            response("http://a.test/en", ok, page(paragraphs(ENGLISH, 6))),
            response("http://a.test/en-again", ok, page(shouted)),
            response("http://a.test/de", ok, page(paragraphs(GERMAN, 6))),
            response("http://a.test/short", ok, page("<p>Too short to keep.</p>")),
        ],
    )


def test_filters_and_exact_dedup_are_applied_and_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a.warc.gz", tmp_path / "b.warc.gz"
    filter_warc(first)
    filter_warc(second)  # every text again, in another file: duplicates across the run
    everything = tmp_path / "all.jsonl"
    assert corpus(capsys, str(first), "--out", str(everything), "--jobs", "1")[0] == 0
    rows = {row["url"].rsplit("/", 1)[1]: row for row in read_jsonl(everything)}
    assert (rows["en"]["language"], rows["de"]["language"]) == ("en", "de")
    assert rows["en"]["content_hash"] == rows["en-again"]["content_hash"]
    assert rows["en"]["text"] != rows["en-again"]["text"]

    out, stats = tmp_path / "kept.jsonl", tmp_path / "stats.json"
    options = ["--dedup", "exact", "--languages", "en", "--min-words", "20"]
    options += ["--min-language-score", "0.5", "--stats", str(stats), "--jobs", "2"]
    status, stdout, _ = corpus(capsys, str(first), str(second), "--out", str(out), *options)
    assert status == 0
    kept = read_jsonl(out)
    assert [row["url"] for row in kept] == ["http://a.test/en"]
    assert kept[0]["file_path"] == str(first)
    summary = json.loads(stats.read_text())
    assert summary["filters"] == {
        "languages": ["en"],
        "min_language_score": 0.5,
        "min_words": 20,
        "dedup": "exact",
    }
    # Per file: the German page fails --languages, the short one --min-words; then the second
    # English text of the first file and both English texts of the second are duplicates.
    assert summary["filtered"] == {"language": 2, "min_words": 2, "duplicate": 3}
    assert (summary["pages"], summary["rows"], summary["distinct_texts"]) == (8, 1, 1)
    assert "filtered duplicate" in stdout and "filtered min_words" in stdout
    assert "filters languages=['en'], min_language_score=0.5, min_words=20, dedup=exact" in stdout


def test_page_type_filters_keep_the_types_asked_for_and_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bundled WARC: the index is typed ``listing``, the 14 articles ``article``, with a
    confidence from about 0.6 to 1."""
    everything = tmp_path / "all.jsonl"
    assert corpus(capsys, str(WARC), "--out", str(everything), "--jobs", "1")[0] == 0
    rows = read_jsonl(everything)
    articles = [row for row in rows if row["page_type"] == "article"]
    assert len(articles) == PAGES - 1
    sure = [row["url"] for row in articles if row["page_type_confidence"] >= 0.9]
    assert 0 < len(sure) < len(articles)

    out, stats = tmp_path / "kept.jsonl", tmp_path / "stats.json"
    options = ["--page-types", "article, documentation", "--min-page-type-confidence", "0.9"]
    status, stdout, _ = corpus(
        capsys, str(WARC), "--out", str(out), "--stats", str(stats), "--jobs", "1", *options
    )
    assert status == 0
    assert [row["url"] for row in read_jsonl(out)] == sure
    summary = json.loads(stats.read_text())
    assert summary["filters"] == {
        "page_types": ["article", "documentation"],
        "min_page_type_confidence": 0.9,
    }
    assert summary["filtered"] == {
        "page_type": 1,
        "page_type_confidence": len(articles) - len(sure),
    }
    assert summary["rows"] == len(sure)
    assert "filtered page_type             1  rows whose page_type is not one of" in stdout
    assert "filtered page_type_confidence" in stdout


def test_filter_options_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A value that does not fit is a usage error: exit status 2, as argparse gives."""
    out = str(tmp_path / "x.jsonl")
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--min-language-score", "2")
    assert (status, "--min-language-score must be between 0 and 1: 2.0" in err) == (2, True)
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--languages", "en,english")
    assert (status, "--languages: not an ISO 639 code: 'english'" in err) == (2, True)
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--languages", "en,eng,jp")
    assert (status, "--languages: 'eng', 'jp' are not languages py3langid" in err) == (2, True)
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--languages", " , ")
    assert (status, "--languages names no language: ' , '" in err) == (2, True)
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--min-words", "-1")
    assert (status, "--min-words must be a number of words, 0 or more: -1" in err) == (2, True)
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--page-types", "article,blog")
    assert (status, err.count("\n")) == (2, 1)
    assert "--page-types: 'blog' is not a page type (the types are article, forum," in err
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--page-types", ",")
    assert (status, "--page-types names no page type: ','" in err) == (2, True)
    status, _, err = corpus(capsys, str(WARC), "--out", out, "--min-page-type-confidence", "2")
    assert (status, "--min-page-type-confidence must be between 0 and 1: 2.0" in err) == (2, True)
    with pytest.raises(SystemExit):
        cli.main(["corpus", str(WARC), "--out", out, "--dedup", "fuzzy"])
    assert "invalid choice: 'fuzzy'" in capsys.readouterr().err


def test_a_stats_file_that_cannot_be_written_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.jsonl"
    (tmp_path / "file").write_text("")
    for stats, says in [
        (tmp_path / "file" / "s.json", f"{tmp_path / 'file'} is not a folder"),
        (tmp_path, "is a folder"),
    ]:
        status, _, err = corpus(capsys, str(WARC), "--out", str(out), "--stats", str(stats))
        assert (status, f"--stats {stats}: {says}" in err) == (2, True)
    assert not out.exists() and not out.with_name("x.jsonl.parts").exists()


def test_the_missing_folders_of_the_stats_file_are_made_as_those_of_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "gone.json").symlink_to(tmp_path / "missing" / "s.json")
    for number, stats in enumerate([tmp_path / "new" / "deep" / "s.json", tmp_path / "gone.json"]):
        out = tmp_path / f"out-{number}" / "x.jsonl"
        command = [str(WARC), "--out", str(out), "--stats", str(stats), "--jobs", "1"]
        assert corpus(capsys, *command)[0] == 0
        assert json.loads(stats.read_text())["rows"] == PAGES == len(read_jsonl(out))
    assert (tmp_path / "missing" / "s.json").is_file()  # where the link leads


def test_an_out_file_that_cannot_be_written_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    (tmp_path / "rows.jsonl").mkdir()
    for out, says in [
        (tmp_path / "file" / "x.jsonl", f"{tmp_path / 'file'} is not a folder"),
        (tmp_path / "rows.jsonl", "is a folder"),
    ]:
        status, _, err = corpus(capsys, str(WARC), "--out", str(out))
        assert (status, f"--out {out}: {says}" in err) == (2, True)
    # As a user who may not write the folder (root may write anything).
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    out = tmp_path / "new" / "x.jsonl"
    status, _, err = corpus(capsys, str(WARC), "--out", str(out))
    assert (status, f"--out {out}: cannot be written" in err) == (2, True)
    assert not (tmp_path / "new").exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc file system")
def test_an_out_file_in_a_folder_that_takes_no_new_file_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``/proc`` refuses new files whatever its permissions say (and root may write anything):
    a usage error before any work, not an error naming ``OUT.parts`` once the run starts."""
    status, _, err = corpus(capsys, str(WARC), "--out", "/proc/x.jsonl")
    assert (status, err.count("\n")) == (2, 1)
    assert "--out /proc/x.jsonl: cannot be written (/proc: " in err
    assert ".parts" not in err


def test_an_input_that_fails_while_read_keeps_the_others_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A read error in the middle of one input (a dropped connection, a bad disk): the other
    inputs' parts are kept, the output is not assembled, the command says so and exits 1;
    once the input reads again, a rerun does only that one."""
    good, flaky = copies_of_the_warc(tmp_path / "in", 2)
    real_extract_file = records.extract_file

    def failing(path: str, settings: CorpusSettings) -> Iterator[Any]:
        for number, outcome in enumerate(real_extract_file(path, settings)):
            if path == str(flaky) and number == 5:
                raise ConnectionResetError("the connection dropped")
            yield outcome

    monkeypatch.setattr(workers, "extract_file", failing)
    out = tmp_path / "rows.jsonl"
    status, stdout, err = corpus(capsys, str(good), str(flaky), "--out", str(out), "-j", "1")
    assert status == 1
    assert "1 input(s) failed (1 done, kept in" in err
    assert f"failed  {flaky}: ConnectionResetError: the connection dropped" in stdout
    assert not out.exists()
    assert len(list((tmp_path / "rows.jsonl.parts").glob("*.json"))) == 1

    monkeypatch.setattr(workers, "extract_file", real_extract_file)
    status, _, err = corpus(capsys, str(good), str(flaky), "--out", str(out), "-j", "1")
    assert status == 0
    assert err.count("already done") == 1
    assert len(read_jsonl(out)) == 2 * PAGES

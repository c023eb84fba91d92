"""``scrapy-cetd extract``: each file's main content in each format, its errors, its notes."""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest
from conftest import META_PAGE, STORM_PAGE

import scrapy_cetd.cli.extract
from scrapy_cetd import PAGE_TYPES, ExtractionResult, extract
from scrapy_cetd.cli import main


@pytest.fixture
def page_file(tmp_path: Path) -> Path:
    path = tmp_path / "storm.html"
    path.write_text(STORM_PAGE, encoding="utf-8")
    return path


def test_extract_prints_text(page_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", str(page_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Storm hits the coast"
    assert "Home" not in lines


def test_extract_html_and_algorithm_and_option(
    page_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "extract",
        str(page_file),
        "--format",
        "html",
        "-a",
        "cetd-ds",
        "-O",
        "threshold_coefficient=0",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("<body>")
    assert 'id="nav"' in out


def test_extract_markdown_with_links_absolute_against_the_url(
    page_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["extract", str(page_file), "--format", "markdown", "--url", "https://news.example/a/"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Storm hits the coast\n\nHeavy rain")
    assert "[local reports](https://news.example/x)" in out


def test_extract_json_from_gzip_and_several_files(
    page_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packed = tmp_path / "storm.html.gz"
    packed.write_bytes(gzip.compress(STORM_PAGE.encode()))
    assert main(["extract", str(page_file), str(packed), "--format", "json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["file"] for r in records] == [str(page_file), str(packed)]
    assert records[0]["text"] == records[1]["text"]
    assert records[0]["reason"] is None


def test_extract_json_gives_the_page_type_and_its_confidence(
    page_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["extract", str(page_file), "--format", "json", "-O", "detect_page_type=true"]
    assert main(argv) == 0
    record = json.loads(capsys.readouterr().out)
    expected = extract(STORM_PAGE, detect_page_type=True)
    assert record["page_type"] == expected.page_type
    assert record["page_type"] in PAGE_TYPES
    assert record["page_type_confidence"] == expected.page_type_confidence
    argv = ["extract", str(page_file), "--format", "json", "-O", "page_type=forum"]
    assert main(argv) == 0
    forced = json.loads(capsys.readouterr().out)
    assert (forced["page_type"], forced["page_type_confidence"]) == ("forum", 1.0)
    assert main(["extract", str(page_file), "--format", "json", "-a", "cetd-ds"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert (other["page_type"], other["page_type_confidence"]) == (None, None)


def test_extract_json_gives_the_metadata_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "news.html"
    page.write_text(META_PAGE)
    assert main(["extract", str(page), "--format", "json", "--metadata"]) == 0
    record = json.loads(capsys.readouterr().out)
    expected = extract(page.read_bytes(), metadata=True)
    assert expected.metadata is not None
    assert record["metadata"] == json.loads(json.dumps(asdict(expected.metadata)))
    assert record["metadata"]["authors"] == ["Jane Doe"]
    assert record["metadata"]["published"] == "2011-03-14T08:00:00Z"
    assert record["title"] == expected.metadata.title
    assert main(["extract", str(page), "--format", "json"]) == 0
    assert "metadata" not in json.loads(capsys.readouterr().out)
    assert main(["extract", str(page), "--metadata"]) == 2
    assert "--metadata is printed in --format json only" in capsys.readouterr().err


def test_extract_json_gives_the_markdown_on_request(
    page_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One call for JSON records with the Markdown (for RAG), its links absolute against
    ``--url`` as ``--format markdown`` prints them; refused with another format."""
    url = "https://news.example/a/"
    argv = ["extract", str(page_file), "--url", url]
    assert main([*argv, "--format", "json", "--markdown"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert main([*argv, "--format", "markdown"]) == 0
    assert record["markdown"] + "\n" == capsys.readouterr().out
    assert record["markdown"] == extract(STORM_PAGE, url=url, markdown=True).markdown
    assert "[local reports](https://news.example/x)" in record["markdown"]
    assert record["text"] == extract(STORM_PAGE, url=url).text
    assert main([*argv, "--format", "json"]) == 0
    assert "markdown" not in json.loads(capsys.readouterr().out)
    for fmt in ("text", "html", "markdown"):
        assert main([*argv, "--format", fmt, "--markdown"]) == 2
        err = capsys.readouterr().err
        assert f"--markdown is printed in --format json only, not {fmt}" in err


def test_extract_json_writes_null_for_what_the_budget_gave_up(
    page_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The metadata and the Markdown a record was asked for are there, ``null``, when the time
    budget gave them up: a reader of the records finds the same keys in every one."""

    def given_up(*args: Any, **kwargs: Any) -> ExtractionResult:
        return replace(extract(*args, **kwargs), metadata=None, markdown=None)

    monkeypatch.setattr(scrapy_cetd.cli.extract, "extract", given_up)
    argv = ["extract", str(page_file), "--format", "json", "--metadata", "--markdown"]
    assert main(argv) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["metadata"] is None
    assert record["markdown"] is None
    assert record["text"] == extract(STORM_PAGE).text


def test_extract_reads_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(STORM_PAGE.encode()))
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["extract", "-"]) == 0
    assert capsys.readouterr().out.startswith("Storm hits the coast")


def test_extract_with_an_extractor_class_by_import_path(
    page_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extract", str(page_file), "-a", "scrapy_cetd.CSetExtractor"]) == 0
    by_path = capsys.readouterr().out
    assert main(["extract", str(page_file), "-a", "cset"]) == 0
    assert by_path == capsys.readouterr().out
    assert main(["extract", str(page_file), "-a", "no_such_module.Extractor"]) == 2
    assert "cannot be imported" in capsys.readouterr().err


def test_empty_result_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.html"
    path.write_text("<html><body><img src='a.png'></body></html>")
    assert main(["extract", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "nothing extracted: no visible text" in captured.err


def test_extract_reports_a_bad_file_and_goes_on_with_the_rest(
    page_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.html"
    blank = tmp_path / "blank.html"
    blank.write_text(" ")
    assert main(["extract", str(missing), str(page_file), str(blank), str(page_file)]) == 1
    captured = capsys.readouterr()
    assert captured.out.count("Storm hits the coast") == 2
    assert captured.out.startswith(f"==> {page_file} <==\n")
    errors = captured.err.splitlines()
    assert len(errors) == 2
    assert f"cannot read {missing}: No such file or directory" in errors[0]
    assert f"{blank}: " in errors[1]
    assert "not an HTML document" in errors[1]


def test_extract_refuses_a_warc_archive_and_names_the_command_that_reads_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    warc = Path(__file__).parent.parent / "data" / "example-site.warc.gz"
    assert main(["extract", str(warc)]) == 1
    err = capsys.readouterr().err
    assert "not an HTML document: the body is a WARC archive" in err
    assert "scrapy-cetd corpus reads WARC archives" in err


def test_a_url_argument_says_that_urls_are_not_fetched(
    page_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extract", "https://example.com/news/storm.html", str(page_file)]) == 1
    captured = capsys.readouterr()
    assert "Storm hits the coast" in captured.out
    assert "No such file" not in captured.err
    assert "https://example.com/news/storm.html: URLs are not fetched" in captured.err
    assert "--url" in captured.err


def test_url_help_says_what_the_url_is_for(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["extract", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--url URL the URL the files came from (nothing is fetched)" in help_text
    assert "handed to the extractor" in help_text


def test_empty_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "blank.html"
    path.write_text("  \n")
    assert main(["extract", str(path)]) == 1
    assert "not an HTML document" in capsys.readouterr().err


@pytest.mark.parametrize("label", ["hex", "base64", "unicode_escape", "utf-16"])
def test_extract_ignores_a_charset_label_naming_no_text_encoding(
    label: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain.html"
    plain.write_text(STORM_PAGE, encoding="utf-8")
    assert main(["extract", str(plain)]) == 0
    expected = capsys.readouterr().out
    assert expected.startswith("Storm hits the coast")
    declared = tmp_path / "declared.html"
    declared.write_text(
        STORM_PAGE.replace("<head>", f'<head><meta charset="{label}">', 1), encoding="utf-8"
    )
    assert main(["extract", str(declared)]) == 0
    captured = capsys.readouterr()
    assert captured.out == expected
    assert "meta-charset-" in captured.err
    assert main(["extract", "--encoding", label, "--format", "json", str(plain)]) == 0
    captured = capsys.readouterr()
    record = json.loads(captured.out)
    assert record["text"] + "\n" == expected
    assert record["notes"][0].startswith("http-charset-ignored: ")
    assert f"{plain}: http-charset-ignored: " in captured.err

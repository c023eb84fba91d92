"""The scrapy-cetd command line."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from conftest import META_PAGE, STORM_PAGE
from lxml import etree

import scrapy_cetd
from scrapy_cetd import PAGE_TYPES, CetdPlusExtractor, extract
from scrapy_cetd.cli import main


@pytest.fixture
def page_file(tmp_path: Path) -> Path:
    path = tmp_path / "storm.html"
    path.write_text(STORM_PAGE, encoding="utf-8")
    return path


def test_version_is_the_installed_distribution_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from importlib.metadata import version

    import scrapy_cetd

    assert scrapy_cetd.__version__ == version("scrapy-cetd")
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"scrapy-cetd {version('scrapy-cetd')}\n"


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


@pytest.mark.parametrize(
    ("argv", "message", "status"),
    [
        (["extract", "missing.html"], "cannot read missing.html", 1),
        (["evaluate", "/no/such/dataset"], "is not a dataset folder", 1),
        (["extract", "-a", "nope", "x.html"], "unknown algorithm 'nope'", 2),
        (["extract", "-O", "nonsense", "x.html"], "is not NAME=VALUE", 2),
        (["extract", "-O", "bogus=1", "x.html"], "unknown option(s) bogus", 2),
        (
            ["extract", "-O", "threshold_coefficient=abc", "x.html"],
            "option threshold_coefficient='abc' is not a finite number (float)",
            2,
        ),
        (
            ["evaluate", "-O", "threshold_coefficient=abc", "/no/such/dataset"],
            "option threshold_coefficient='abc' is not a finite number (float)",
            2,
        ),
        (
            ["corpus", "-O", "include_comments=maybe", "x.warc", "--out", "x.jsonl"],
            "option include_comments='maybe' is not a bool",
            2,
        ),
    ],
)
def test_errors_are_one_line_and_exit_1_or_2_for_usage(
    argv: list[str], message: str, status: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == status
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


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
    warc = Path(__file__).parent / "data" / "example-site.warc.gz"
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


COMMENT_PAGE = (
    "<html><body><nav><a href='/'>Home</a> <a href='/world'>World</a></nav><div id='main'>"
    "<article><h1>Storm hits the coast</h1>"
    + "".join(
        f"<p>Paragraph {i}: heavy rain and strong winds battered the coastal towns on Monday, "
        "forcing hundreds of residents to leave their homes before the river burst.</p>"
        for i in range(3)
    )
    + "</article><div id='comments'>"
    + "".join(
        f"<div class='comment'>Reader {i} wrote a long comment about the storm and the "
        "response of the council, which they found slow and badly organised this time.</div>"
        for i in range(2)
    )
    + "</div></div></body></html>"
)


@pytest.mark.parametrize(
    ("value", "comments"),
    [
        ("False", False),
        ("false", False),
        ("no", False),
        ("0", False),
        ("True", True),
        ("true", True),
        ("yes", True),
        ("1", True),
    ],
)
def test_a_bool_option_reads_false_as_false(
    value: str, comments: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "comments.html"
    path.write_text(COMMENT_PAGE)
    assert main(["extract", str(path), "-O", f"include_comments={value}"]) == 0
    out = capsys.readouterr().out
    assert "Paragraph 2" in out
    assert ("Reader 1 wrote" in out) is comments


def test_url_help_says_what_the_url_is_for(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["extract", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--url URL the URL the files came from (nothing is fetched)" in help_text
    assert "handed to the extractor" in help_text


def test_the_help_is_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ([], ["extract"], ["evaluate"], ["prune"], ["corpus"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        assert "``" not in capsys.readouterr().out  # no reStructuredText from a docstring


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


def make_dataset(root: Path) -> Path:
    folder = root / "tiny"
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    pages = {"p1": {"url": None, "encoding": "utf-8", "page_type": "article"}}
    (folder / "MANIFEST.json").write_text(json.dumps({"name": "tiny", "pages": pages}))
    (folder / "html" / "p1.html.gz").write_bytes(gzip.compress(STORM_PAGE.encode()))
    gold = "Storm hits the coast\nHeavy rain and strong winds battered the coastal towns"
    (folder / "gold" / "p1.txt").write_text(gold)
    return folder


def test_evaluate_prints_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_dataset(tmp_path)
    assert main(["evaluate", str(folder), "-a", "cetd-ds,cectd-ds"]) == 0
    out = capsys.readouterr().out
    assert "| tiny | cetd-ds | 1 | 0 |" in out
    assert "| tiny | cectd-ds | 1 | 0 |" in out


def test_evaluate_refuses_a_dataset_without_pages_or_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing page file or an empty MANIFEST is one line on stderr before any page is
    read, not a traceback midway or a table of zeros."""
    folder = make_dataset(tmp_path)
    (folder / "gold" / "p1.txt").unlink()
    assert main(["evaluate", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"no file {folder / 'gold' / 'p1.txt'}" in err
    assert main(["evaluate", str(folder), "--metadata"]) == 1  # it has no metadata gold
    assert "no dataset with metadata gold" in capsys.readouterr().err
    (folder / "MANIFEST.json").write_text(json.dumps({"pages": {}}))
    assert main(["evaluate", str(folder)]) == 1
    assert "lists no page" in capsys.readouterr().err


def test_evaluate_checks_only_the_pages_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_dataset(tmp_path)
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    manifest["pages"]["p2"] = {}  # listed, without its files
    (folder / "MANIFEST.json").write_text(json.dumps(manifest))
    assert main(["evaluate", str(folder), "--limit", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["pages"] == 1
    assert main(["evaluate", str(folder)]) == 1
    assert "p2.html.gz and 1 more" in capsys.readouterr().err


def test_evaluate_json_and_folder_of_datasets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_dataset(tmp_path)
    assert main(["evaluate", str(tmp_path), "--json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["dataset"] == "tiny"
    assert record["pages"] == 1
    assert 0 < record["metrics"]["BOW"]["precision"] < 1
    assert record["metrics"]["BOW"]["recall"] == 1


def test_evaluate_extracts_with_the_page_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As a crawl does: the page-type classifier reads the URL's path."""
    folder = make_dataset(tmp_path)
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    manifest["pages"]["p1"]["url"] = "https://news.example.com/2024/storm-hits-the-coast"
    (folder / "MANIFEST.json").write_text(json.dumps(manifest))
    seen: list[str | None] = []
    extract = CetdPlusExtractor.extract

    def spy(self: CetdPlusExtractor, tree: etree._Element, *, url: str | None = None) -> Any:
        seen.append(url)
        return extract(self, tree, url=url)

    monkeypatch.setattr(CetdPlusExtractor, "extract", spy)
    assert main(["evaluate", str(folder)]) == 0
    assert "| tiny | cetd-plus | 1 | 0 |" in capsys.readouterr().out
    assert seen == ["https://news.example.com/2024/storm-hits-the-coast"]


def _list_page() -> str:
    items = "".join(
        f'<li class="product"><a href="/p/{n}">Jacket {n}</a> <span>{n}0 EUR</span></li>'
        for n in range(8)
    )
    return (
        '<html><head><meta charset="iso-8859-1"><title>Shop</title></head><body>'
        '<div class="nav"><a href="/">Home</a> <a href="/about">About</a></div>'
        f'<ul class="products">{items}</ul><div class="footer"><p>Copyright</p></div>'
        "</body></html>"
    )


def test_prune_writes_html_and_prints_node_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "list.html"
    page.write_text(_list_page(), encoding="iso-8859-1")
    out = tmp_path / "pruned.html"
    assert main(["prune", str(page), "-o", str(out), "--paper"]) == 0
    summary = capsys.readouterr().out
    assert summary.startswith(
        f"{page}: 31 of the body's elements before, 26 after (16.1% removed); region "
    )
    html = out.read_text(encoding="utf-8")
    assert html.count('class="product"') == 8
    assert "Copyright" not in html
    assert 'charset="utf-8"' in html


def test_prune_keeps_the_main_content_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    intro = (
        "<p class='intro'>Our winter jackets are made from recycled wool and lined with organic "
        "cotton; every one of them is tested in the mountains before it reaches the shop.</p>"
    )
    page = tmp_path / "list.html"
    page.write_text(_list_page().replace('<ul class="products">', intro + '<ul class="products">'))
    out = tmp_path / "pruned.html"
    assert main(["prune", str(page), "-o", str(out), "--paper"]) == 0
    assert "Our winter jackets" not in out.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["prune", str(page), "-o", str(out), "--paper", "--keep-main-content"]) == 0
    assert "Our winter jackets" in out.read_text(encoding="utf-8")
    kept = int(capsys.readouterr().out.split(" after ")[0].rsplit(" ", 1)[1])
    assert main(["prune", str(page), "-o", str(out)]) == 0  # the defaults: both on
    assert "Our winter jackets" in out.read_text(encoding="utf-8")
    assert int(capsys.readouterr().out.split(" after ")[0].rsplit(" ", 1)[1]) <= kept


def test_prune_makes_the_links_absolute_against_the_url(tmp_path: Path) -> None:
    page = tmp_path / "list.html"
    page.write_text(_list_page(), encoding="iso-8859-1")
    out = tmp_path / "pruned.html"
    assert main(["prune", str(page), "-o", str(out)]) == 0
    assert 'href="/p/3"' in out.read_text(encoding="utf-8")
    assert main(["prune", str(page), "-o", str(out), "--url", "https://shop.example/c/"]) == 0
    pruned = out.read_text(encoding="utf-8")
    assert 'href="https://shop.example/p/3"' in pruned
    assert 'href="/p/' not in pruned


def test_prune_keeps_links_relative_past_the_growth_bound_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "list.html"
    page.write_text(_list_page(), encoding="iso-8859-1")
    out = tmp_path / "pruned.html"
    long_url = "https://shop" + "c" * 600_000 + ".example/c/"  # each link grows by it
    assert main(["prune", str(page), "-o", str(out), "--url", long_url]) == 0
    assert len(out.read_text(encoding="utf-8")) < 2_000_000
    assert "links kept relative" in capsys.readouterr().err


def test_prune_removes_widgets_on_request(tmp_path: Path) -> None:
    page = tmp_path / "list.html"
    icon = '<svg class="cart"><path d="M0 0"/></svg></li>'
    page.write_text(_list_page().replace("</li>", icon), encoding="iso-8859-1")
    out = tmp_path / "pruned.html"
    assert main(["prune", str(page), "-o", str(out), "--no-remove-widgets"]) == 0
    assert out.read_text(encoding="utf-8").count("<svg") == 8
    assert main(["prune", str(page), "-o", str(out)]) == 0
    pruned = out.read_text(encoding="utf-8")
    assert "<svg" not in pruned
    assert pruned.count('class="product"') == 8


def test_prune_to_stdout_with_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "list.html.gz"
    page.write_bytes(gzip.compress(_list_page().encode("iso-8859-1")))
    assert main(["prune", str(page), "--paper", "--invert", "--min-size-gap", "0.3"]) == 0
    captured = capsys.readouterr()
    assert "Copyright" in captured.out
    assert 'class="product"' not in captured.out
    assert "inverted" in captured.err


def test_prune_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prune", str(tmp_path / "missing.html")]) == 1
    assert capsys.readouterr().err.startswith("scrapy-cetd: error: cannot read")
    empty = tmp_path / "empty.html"
    empty.write_text("  ")
    assert main(["prune", str(empty)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"scrapy-cetd: error: {empty}: not an HTML document")
    assert err.count("\n") == 1
    page = tmp_path / "list.html"
    page.write_text(_list_page())
    assert main(["prune", str(page), "--min-size-gap", "2"]) == 2  # a usage error
    assert "option min_size_gap=2.0 is not in [0, 1)" in capsys.readouterr().err
    assert main(["prune", str(page), "-o", str(tmp_path / "no" / "such" / "dir.html")]) == 1
    assert capsys.readouterr().err.startswith("scrapy-cetd: error: cannot write")


def test_prune_refuses_a_tag_with_too_many_attributes_before_parsing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """libxml2 parses the attributes of one tag in quadratic time and cannot be stopped: the
    command checks the text first, as extract() does, and names the limit."""
    attributes = " ".join(f"a{n}=1" for n in range(5_000))
    page = tmp_path / "attributes.html"
    page.write_text(f"<html><body><div {attributes}>x</div>{_list_page()}</body></html>")
    assert main(["prune", str(page)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"scrapy-cetd: error: {page}: not pruned: max_attributes exceeded")


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path: Path) -> None:
    paragraphs = "".join(
        f"<p>Paragraph {i} of a very long article, told in full.</p>" for i in range(20_000)
    )
    path = tmp_path / "long.html"
    path.write_text(f"<html><body><article>{paragraphs}</article></body></html>", encoding="utf-8")
    command = [sys.executable, "-c", "from scrapy_cetd.cli import main; raise SystemExit(main())"]
    with subprocess.Popen(
        [*command, "extract", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith(b"Paragraph 0")
        process.stdout.close()
        err = process.stderr.read().decode()
        assert process.wait(timeout=60) == 1
    assert err == ""


def test_evaluate_metadata_scores_the_datasets_with_metadata_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_dataset(tmp_path)  # text gold only: left out
    folder = tmp_path / "news"
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    page = (
        "<html lang='en'><head><title>Storm hits the coast | The Tribune</title>"
        "<meta property='og:site_name' content='The Tribune'>"
        "<meta property='article:published_time' content='2024-02-03T10:00:00Z'></head>"
        "<body><h1>Storm hits the coast</h1><p class='byline'>By Ann Lee</p>"
        "<p>Heavy rain and strong winds battered the coastal towns overnight.</p></body></html>"
    )
    gold = {"title": "Storm hits the coast", "author": "Ann Lee", "publish_date": "2024-02-03"}
    other = {"title": "Calm day", "author": None, "publish_date": None}
    pages = {"p1": gold, "p2": other}
    (folder / "MANIFEST.json").write_text(json.dumps({"name": "news", "pages": pages}))
    for page_id in pages:
        (folder / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(page.encode()))
        (folder / "gold" / f"{page_id}.txt").write_text("x")
    assert main(["evaluate", "--metadata", str(tmp_path), "--json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert (record["dataset"], record["pages"]) == ("news", 2)
    assert (record["date_accuracy"], record["date_false_positives"]) == (1.0, 1.0)
    assert (record["author_match"], record["author_exact"], record["author_pages"]) == (1.0, 1.0, 1)
    assert record["title_exact"] == 0.5
    assert main(["evaluate", "--metadata", str(tmp_path / "tiny")]) == 1
    assert "no dataset with metadata gold" in capsys.readouterr().err


def test_corpus_gets_the_options_converted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The corpus records its options in the digest that decides whether a run resumes: it
    gets the values the extractor gets, so ``0.90`` and ``0.9`` are the same run."""
    from scrapy_cetd import corpus

    seen: list[corpus.CorpusSettings] = []

    def run_corpus(inputs: Any, out: Any, settings: corpus.CorpusSettings, **kwargs: Any) -> Any:
        seen.append(settings)
        raise OSError("stop here")

    monkeypatch.setattr(corpus, "run_corpus", run_corpus)
    argv = ["corpus", "x.warc", "--out", str(tmp_path / "x.jsonl"), "-O", "include_comments=no"]
    assert main([*argv, "-O", "threshold_coefficient=0.90"]) == 1
    assert main([*argv, "-O", "threshold_coefficient=0.9"]) == 1
    assert "stop here" in capsys.readouterr().err
    assert seen[0].options == {"include_comments": False, "threshold_coefficient": 0.9}
    assert seen[0].digest() == seen[1].digest()


def test_corpus_without_its_extra_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delattr(scrapy_cetd, "corpus", raising=False)
    for name in [name for name in sys.modules if name.startswith("scrapy_cetd.corpus")]:
        monkeypatch.delitem(sys.modules, name)  # imported again, and fails
    monkeypatch.setitem(sys.modules, "fastwarc", None)  # as if it were not installed
    assert main(["corpus", "in.warc.gz", "--out", "rows.jsonl"]) == 1
    assert "pip install 'scrapy-cetd[corpus]'" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "scrapy_cetd.corpus", None)  # a fault of its own
    with pytest.raises(ImportError):
        main(["corpus", "in.warc.gz", "--out", "rows.jsonl"])

"""The public API: extract(), ALGORITHMS, get_extractor(), ExtractionResult."""

from __future__ import annotations

import dataclasses
import pickle
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import STORM_PAGE, parse
from lxml import etree
from scrapy import Selector
from scrapy.http import Headers, HtmlResponse, Request

import scrapy_cetd
from scrapy_cetd import ALGORITHMS, ExtractionResult, NotADocumentError, extract, get_extractor
from scrapy_cetd.api import CompletingExtractor, Outputs, extract_with, response_content_language
from scrapy_cetd.evaluation.datasets import default_datasets_root, find_datasets
from scrapy_cetd.limits import Limits
from scrapy_cetd.page.decoding import encode_text
from scrapy_cetd.result import Reason


def test_registry_names() -> None:
    assert {"cetd-ds", "cectd-ds", "cectd-s"} <= set(ALGORITHMS)
    for name, cls in ALGORITHMS.items():
        assert cls.name == name


def test_registry_is_read_only() -> None:
    with pytest.raises(TypeError):
        ALGORITHMS["mine"] = ALGORITHMS["cectd-ds"]  # type: ignore[index]


def test_str_bytes_and_tree_give_the_same_result() -> None:
    from_text = extract(STORM_PAGE)
    from_bytes = extract(STORM_PAGE.encode("utf-8"))
    from_tree = extract(parse(STORM_PAGE))
    assert from_text == from_bytes == from_tree
    assert from_text.algorithm == scrapy_cetd.DEFAULT_ALGORITHM


def test_a_page_as_a_crawl_or_lxml_hands_it_over_gives_the_same_result() -> None:
    """A Scrapy response (its own parse shared, its URL the page's), a selector, an lxml
    tree, a bytearray or a memoryview is the same page."""
    url = "https://news.example/storm"
    response = HtmlResponse(url, body=STORM_PAGE.encode(), encoding="utf-8")
    expected = extract(STORM_PAGE, url=url)
    assert extract(response) == expected
    assert extract(response.selector, url=url) == expected
    assert extract(etree.ElementTree(parse(STORM_PAGE)), url=url) == expected
    assert extract(bytearray(STORM_PAGE.encode()), url=url) == expected
    assert extract(memoryview(STORM_PAGE.encode()), url=url) == expected
    tree = response.selector.root
    before = etree.tostring(tree)
    assert extract(response, metadata=True, markdown=True).text == expected.text
    assert response.selector.root is tree and etree.tostring(tree) == before  # shared, unchanged
    labelled = HtmlResponse(
        url, body=STORM_PAGE.encode(), headers={"Content-Type": "text/html; charset=hex"}
    )
    assert extract(labelled).notes == extract(STORM_PAGE.encode(), encoding="hex").notes != ()
    with pytest.raises(ValueError, match="not an HTML document"):
        extract(HtmlResponse(url, body=b"  ", encoding="utf-8"))
    with pytest.raises(ValueError, match="not of an element"):
        extract(Selector(text='{"a": 1}', type="json"))
    with pytest.raises(ValueError, match="empty ElementTree"):
        extract(etree.ElementTree())
    with pytest.raises(TypeError, match="a Scrapy TextResponse, not int"):
        extract(3)  # type: ignore[arg-type]


def test_a_response_is_read_as_the_page_of_its_requests_cetd_url() -> None:
    """The request's ``cetd_url`` meta key names the page's own URL, as in a crawl; ``url``
    still comes first, and a response without a request is read as its own URL."""
    mirror, own = "http://127.0.0.1:8000/storm", "https://news.example/2011/storm"

    def response(**meta: Any) -> HtmlResponse:
        request = Request(mirror, meta=meta)
        return HtmlResponse(mirror, body=STORM_PAGE.encode(), encoding="utf-8", request=request)

    assert extract(response(cetd_url=own)) == extract(STORM_PAGE, url=own)
    assert '<a href="https://news.example/x">' in extract(response(cetd_url=own)).html
    assert extract(response(cetd_url=own), url=mirror) == extract(STORM_PAGE, url=mirror)
    assert extract(response(cetd_url="")) == extract(STORM_PAGE, url=mirror)
    assert extract(response()) == extract(STORM_PAGE, url=mirror)
    unrequested = HtmlResponse(mirror, body=STORM_PAGE.encode(), encoding="utf-8")
    assert extract(unrequested) == extract(STORM_PAGE, url=mirror)
    assert scrapy_cetd.classify_page_type(response(cetd_url=own + ".html")) == (
        scrapy_cetd.classify_page_type(STORM_PAGE, own + ".html")
    )
    with pytest.raises(ValueError, match=r"response.meta\['cetd_url'\] must be a string.*not int"):
        extract(response(cetd_url=3))
    assert extract(response(cetd_url=3), url=own) == extract(STORM_PAGE, url=own)


def test_a_responses_content_language_header_declares_the_language_the_page_does_not() -> None:
    """The header is read when the page has no ``<html lang>``; the page's own wins."""
    url = "https://news.example/storm"

    def language(page: str, **headers: str) -> str | None:
        response = HtmlResponse(url, body=page.encode(), encoding="utf-8", headers=headers)
        found = extract(response, metadata=True).metadata
        assert found is not None
        return found.language

    headers = {"Content-Language": "en-GB"}
    assert language(STORM_PAGE) == "en"  # identified from the text
    assert language(STORM_PAGE, **headers) == "en-GB"
    assert language(STORM_PAGE.replace("<html>", "<html lang='en-US'>"), **headers) == "en-US"
    unlabelled = HtmlResponse(url, body=STORM_PAGE.encode(), encoding="utf-8")
    assert extract(unlabelled, metadata=True) == extract(STORM_PAGE, url=url, metadata=True)
    lines = Headers()
    lines.setlist("Content-Language", ["en-GB", "en-US"])  # one list, "en-GB, en-US": its first
    two = HtmlResponse(url, body=STORM_PAGE.encode(), encoding="utf-8", headers=lines)
    assert response_content_language(two) == "en-GB, en-US"
    found = extract(two, metadata=True).metadata
    assert found is not None and found.language == "en-GB"


def test_a_completing_extractor_is_served_in_the_pages_language_or_none() -> None:
    """A page served without the header gets no language from the page before it."""
    completing = CompletingExtractor(get_extractor("cetd-plus"), Outputs(metadata=True))
    german = pickle.loads(pickle.dumps(completing.served_in("de")))
    assert german.content_language == "de" and completing.content_language is None
    assert german.served_in(None).content_language is None
    assert german.served_in("de") is german and completing.served_in(None) is completing


def test_bytes_are_decoded_by_declared_charset_and_meta() -> None:
    page = "<html><body><p>Grüße aus Köln, eine längere Nachricht für den Test.</p></body></html>"
    latin = page.encode("latin-1")
    assert "Grüße" in extract(latin, encoding="iso-8859-1").text
    with_meta = page.replace("<html>", "<html><head><meta charset='iso-8859-1'></head>")
    assert "Grüße" in extract(with_meta.encode("latin-1")).text


def test_unknown_algorithm_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown algorithm 'nope'.*cectd-ds"):
        get_extractor("nope")


def test_unknown_option_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown option.*lambda_.*threshold_coefficient"):
        extract(STORM_PAGE, lambda_=2)


def test_options_reach_the_extractor() -> None:
    extractor = get_extractor("cetd-ds", threshold_coefficient=0.5, remove_hidden=False)
    assert extractor.options() == {"threshold_coefficient": 0.5, "remove_hidden": False}
    assert "threshold_coefficient=0.5" in repr(extractor)


def test_result_is_frozen_and_picklable() -> None:
    result = extract(STORM_PAGE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.text = "x"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(result)) == result


def test_extractors_pickle() -> None:
    extractor = get_extractor("cectd-ds", threshold_coefficient=0.9)
    clone = pickle.loads(pickle.dumps(extractor))
    assert clone.options() == extractor.options()
    assert clone.extract(parse(STORM_PAGE)) == extractor.extract(parse(STORM_PAGE))


def test_empty_result_has_reason() -> None:
    result = ExtractionResult.empty("cectd-ds", "no visible text")
    assert (result.text, result.html, result.reason) == ("", "", "no visible text")
    assert not result


@pytest.mark.parametrize("source", ["", "   \n", b"", b" \t\n"])
def test_empty_input_is_a_value_error(source: str | bytes) -> None:
    with pytest.raises(ValueError, match="not an HTML document"):
        extract(source)


def test_wrong_source_type_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="source must be"):
        extract(42)  # type: ignore[arg-type]


def test_public_names() -> None:
    for name in scrapy_cetd.__all__:
        assert hasattr(scrapy_cetd, name)


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        (b'{"a": [1, 2]}', "JSON"),
        ("\ufeff [1, 2, 3]", "JSON"),
        (b"%PDF-1.5\n...", "a PDF document"),
        (b"\x89PNG\r\n\x1a\n" + bytes(32), "a PNG image"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "a WebP image"),
        (b"\x1f\x8b\x08\x00" + bytes(32), "gzip-compressed data"),
        (b"WARC/1.0\r\nWARC-Type: warcinfo\r\n", "a WARC archive"),
        (bytes(range(1, 32)) * 64, "binary data"),
    ],
)
def test_input_that_is_no_document_is_a_value_error(source: str | bytes, kind: str) -> None:
    with pytest.raises(NotADocumentError, match=f"not an HTML document: the body is {kind}"):
        extract(source)
    assert issubclass(NotADocumentError, ValueError)


def test_damage_that_leaves_a_document_is_repaired() -> None:
    page = "<p>[1, 2] is not JSON here; ok\x01 \x02 \x03 \ud800 done</p>"
    assert extract(page).text == "[1, 2] is not JSON here; ok \ufffd done"
    assert encode_text("a\ud83d\ude00b\udc00") == "a😀b\ufffd".encode()


def test_a_base_href_that_scrapy_cannot_resolve_is_parsed_the_same_way() -> None:
    # Scrapy's response.selector raises ValueError on this <base href> (w3lib reads a port that
    # is not a number); found by fuzz/extract.py.
    base = "<base href='https://www.example: https://ogp.me/ns# article: x'>"
    page = STORM_PAGE.replace("</title>", "</title>" + base)
    assert base in page
    assert extract(page) == extract(STORM_PAGE)
    assert extract(page.encode()) == extract(STORM_PAGE.encode())


def test_limits_are_options_of_extract() -> None:
    assert extract(STORM_PAGE, max_body_size=None, max_nodes=None, time_budget=None)
    assert "max_nodes" in (extract(STORM_PAGE, max_nodes=3).reason or "")
    with pytest.raises(ValueError, match="max_nodes"):
        extract(STORM_PAGE, max_nodes=0)


CYCLE_CHECK = """
import gc, sys
from scrapy_cetd import classify_page_type, extract

page = "<html><head><title>T</title></head><body><article><p>" + "Words of a paragraph. " * 40
source = page + "</p></article></body></html>"
if sys.argv[1] == "bytes":
    source = source.encode()
extract(source, url="https://example.com/a")  # imports and caches made once, outside
classify_page_type(source, url="https://example.com/a")
gc.collect()
gc.set_debug(gc.DEBUG_SAVEALL)
extract(source, url="https://example.com/a")
classify_page_type(source, url="https://example.com/a")
gc.collect()
print(" ".join(sorted({type(thing).__name__ for thing in gc.garbage})))
"""
"""Run in a fresh interpreter: inside the test run, the threads that earlier tests leave
behind (servers, reactors) make garbage of their own while the check runs."""


@pytest.mark.parametrize("kind", ["str", "bytes"])
def test_extract_leaves_no_tree_for_the_cycle_collector(kind: str) -> None:
    """The page's tree is freed when extract() returns, not at Python's next full collection:
    a loop of extractions makes too few Python objects to run it often, and the trees of
    hundreds of pages would pile up (peak RSS 1.2 GB over the 2,133 shared pages)."""
    found = subprocess.run(
        [sys.executable, "-c", CYCLE_CHECK, kind],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(scrapy_cetd.__file__).parents[1],
    )
    left = set(found.stdout.split())
    assert not left & {"_Document", "HtmlElement", "HtmlResponse", "Selector"}


FIRST_PAGE_CHECK = """
import sys
from scrapy_cetd import extract
page = sys.stdin.read()
result = extract(page, metadata=True, markdown=True, time_budget=0.5)
print(result.metadata is not None, result.markdown is not None, *result.notes, sep="|")
"""
"""The first page of a fresh process asking for metadata, with a budget shorter than the
loading of htmldate, dateparser and py3langid's model takes."""


def test_the_first_page_of_a_process_does_not_spend_its_budget_loading_libraries() -> None:
    """A worker process (the corpus command's, a Dask worker, datatrove's sandbox) loads the
    metadata's libraries once, before its first page's budget starts: that page keeps its
    metadata and Markdown rather than giving them up."""
    found = subprocess.run(
        [sys.executable, "-c", FIRST_PAGE_CHECK],
        input=STORM_PAGE,
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(scrapy_cetd.__file__).parents[1],
    )
    assert found.stdout.strip() == "True|True"


def test_completing_extractor_pickles_and_gives_up_its_outputs_past_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scrapy_cetd import api
    from scrapy_cetd.limits import LimitExceededError
    from scrapy_cetd.result import Reason

    url = "https://news.example/a/storm.html"
    outputs = api.Outputs(metadata=True, markdown=True)
    completing = pickle.loads(pickle.dumps(api.build_completing("cetd-plus", {}, outputs=outputs)))
    full = completing.extract(parse(STORM_PAGE), url=url)
    assert full.metadata is not None and full.markdown and "https://news.example/x" in full.html

    def out_of_time(*args: object, **kwargs: object) -> None:
        raise LimitExceededError(Reason.TIME_BUDGET, "no time left")

    monkeypatch.setattr(api, "read_metadata", out_of_time)
    late = completing.extract(parse(STORM_PAGE), url=url)
    assert late.text == full.text
    assert late.metadata is None and late.markdown is None
    assert 'href="/x"' in late.html  # the extractor's own HTML
    assert late.notes == (  # what was asked for and given up, and why
        "outputs-given-up: metadata, markdown and absolute links: time_budget exceeded: no "
        "time left",
    )
    assert full.notes == ()

    def finished_late(*args: object, **kwargs: object) -> None:
        raise LimitExceededError(Reason.TIME_BUDGET, "no time left")

    monkeypatch.setattr(api, "finish_html", finished_late)
    clean = extract(STORM_PAGE, url=url, clean_html=True)
    assert 'href="/x"' in clean.html  # neither cleaned nor made absolute: and the note says so
    assert clean.notes == (
        "outputs-given-up: clean html and absolute links: time_budget exceeded: no time left",
    )
    assert extract(STORM_PAGE, html=False).notes == ()  # nothing asked for, nothing given up


def test_metadata_read_past_the_budget_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """htmldate's search cannot be stopped once started: metadata it finishes after the
    deadline is not returned, as the budget says (the text is)."""
    from scrapy_cetd import api
    from scrapy_cetd.page.metadata import read_metadata
    from scrapy_cetd.result import Metadata

    finished = []

    def slow(tree: etree._Element, **kwargs: Any) -> tuple[Metadata, tuple[str, ...]]:
        found = read_metadata(tree, **kwargs)
        while extract_seconds_left() > 0:
            time.sleep(0.01)  # a search that runs past the deadline without checking it
        finished.append(found)
        return found

    monkeypatch.setattr(api, "read_metadata", slow)
    late = extract(STORM_PAGE, metadata=True, time_budget=0.5)
    assert finished and finished[0] is not None
    assert late.text and late.metadata is None


def extract_seconds_left() -> float:
    from scrapy_cetd.limits import time_left

    left = time_left()
    assert left is not None
    return left


def text_only_pages() -> Iterator[tuple[str, bytes, str | None, str | None]]:
    """``(name, body, url, charset)`` of the example site's pages and, when the shared datasets
    are there, of a dozen pages of each (every n-th in the manifest's order)."""
    site = Path(__file__).resolve().parent.parent / "example_project" / "site"
    for path in sorted(site.rglob("*.html")):
        url = "https://example-site.invalid/" + path.relative_to(site).as_posix()
        yield path.name, path.read_bytes(), url, None
    root = default_datasets_root()
    if root is None or not Path(root).is_dir():
        return
    for dataset in find_datasets(root):
        pages = list(dataset.pages())
        for page in pages[:: max(1, len(pages) // 12)]:
            yield f"{dataset.name}/{page.id}", page.html, page.meta.get("url"), page.encoding


def test_html_false_gives_the_same_result_without_the_html() -> None:
    """``html=False`` changes nothing but ``html``, which is left empty: same text, title,
    page type, reason and notes, on every page; with ``markdown=True`` the Markdown too."""
    pages = list(text_only_pages())
    assert len(pages) >= 16
    with_text = 0
    for name, body, url, charset in pages:
        full = extract(body, url=url, encoding=charset)
        text_only = extract(body, url=url, encoding=charset, html=False)
        assert text_only == dataclasses.replace(full, html=""), name
        with_text += bool(full.text and full.html)
    assert with_text >= 16
    full = extract(STORM_PAGE, url="https://news.example/a", markdown=True, metadata=True)
    text_only = extract(
        STORM_PAGE, url="https://news.example/a", markdown=True, metadata=True, html=False
    )
    assert full.markdown and "https://news.example/x" in full.markdown
    assert text_only == dataclasses.replace(full, html="")


def test_with_the_metadata_the_title_is_the_headline_without_the_site_name() -> None:
    page = (
        "<html><head><title>Council approves the budget | The Daily Example</title>"
        "<meta property='og:site_name' content='The Daily Example'></head><body><article>"
        f"<p>{'The council approved the budget after a long debate. ' * 8}</p>"
        "</article></body></html>"
    )
    assert extract(page).title == "Council approves the budget | The Daily Example"
    with_metadata = extract(page, metadata=True)
    assert with_metadata.metadata is not None
    assert with_metadata.title == with_metadata.metadata.title == "Council approves the budget"


@pytest.mark.parametrize(
    "node",
    [etree.Comment("c"), etree.ProcessingInstruction("php", "x"), etree.Entity("amp")],
    ids=["comment", "processing instruction", "entity"],
)
def test_a_node_that_is_no_element_is_a_value_error_naming_the_tree(node: etree._Element) -> None:
    with pytest.raises(ValueError, match=r"^tree must be an lxml element"):
        extract(node)
    for name in scrapy_cetd.ALGORITHMS:
        with pytest.raises(ValueError, match=r"^tree must be an lxml element"):
            scrapy_cetd.get_extractor(name).extract(node)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"time_budget": "x"}, "time_budget must be a positive number or None, not 'x'"),
        ({"max_nodes": "10"}, "max_nodes must be a positive whole number or None, not '10'"),
        ({"max_nodes": 1.5}, "max_nodes must be a positive whole number or None, not 1.5"),
        ({"url": 123}, "url must be a string or None, not 123"),
        ({"url": b"https://a.example/"}, "url must be a string or None, not b'https"),
        ({"encoding": 8}, "encoding must be a string or None, not 8"),
        ({"algorithm": None}, "algorithm must be a name or an import path, not None"),
        ({"metadata": "yes"}, "metadata must be True or False, not 'yes'"),
        ({"markdown": 1}, "markdown must be True or False, not 1"),
    ],
)
def test_arguments_of_the_wrong_type_are_value_errors_naming_them(
    arguments: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        extract(STORM_PAGE, **arguments)  # type: ignore[arg-type]


def test_the_html_option_is_checked() -> None:
    with pytest.raises(ValueError, match=r"html must be True or False, not 'no'"):
        extract(STORM_PAGE, html="no")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"clean_html=True .* html=False"):
        extract(STORM_PAGE, html=False, clean_html=True)


def test_extract_with_a_prebuilt_extractor_gives_extract_s_result() -> None:
    """:func:`extract_with` is :func:`extract` with its extractor and limits built once: the
    same result for a ``str`` page (read without a Scrapy response), bytes and a tree, and
    the same refusals."""
    extractor = CompletingExtractor(get_extractor("cetd-plus"), Outputs(html=False))
    limits = Limits(max_attributes=5)
    wide = "<p " + " ".join(f"a{i}=1" for i in range(9)) + ">x</p>"
    for source in (
        STORM_PAGE,
        "\ufeff \n" + STORM_PAGE,
        STORM_PAGE.encode(),
        parse(STORM_PAGE),
        wide,
    ):
        expected = extract(source, html=False, max_attributes=5, url="https://example.com/")
        assert extract_with(extractor, limits, source, url="https://example.com/") == expected
    assert extract_with(extractor, limits, wide).reason_code == Reason.MAX_ATTRIBUTES
    assert extract_with(extractor, Limits(max_body_size=10), STORM_PAGE).reason_code == (
        Reason.MAX_BODY_SIZE
    )


def test_links_left_relative_past_the_growth_bound_are_noted() -> None:
    """A long ``<base href>`` over thousands of links: the HTML and the Markdown stay within a
    few times the page (they reached 100 MB each from a 140 kB page, with a base of 100,000
    characters, which is now no base at all), and a note says so."""
    text = "<p>Some words about the subject and more words here to read.</p>" * 30
    links = "".join(f"<p>Text {i} <a href='p{i}'>link</a></p>" for i in range(6000))
    base = "https://example.com/" + "a" * 8_000 + "/"
    head = f"<html><head><base href='{base}'></head>"
    page = f"{head}<body><article>{text}{links}</article></body></html>"
    result = extract(page, markdown=True)
    assert result.markdown is not None
    assert len(result.html) < 10 * len(page) and len(result.markdown) < 10 * len(page)
    assert [note.split(":")[0] for note in result.notes] == ["links-left-relative"]


def test_a_date_search_cut_short_by_the_budget_is_in_the_notes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the metadata, a result whose date search the time budget cut short says so in its
    notes (``date-search-cut-short``), after the extractor's and before the HTML's."""
    from scrapy_cetd.page.metadata import date_search

    body = "<article><h1>Council approves</h1><p>Posted July 13, 2002</p>" + (
        "<p>The council approved the budget after a long debate.</p>" * 5
    )
    page = f"<html><body>{body}</article></body></html>"
    found = extract(page, metadata=True, page_type="article", time_budget=5)
    assert found.metadata is not None and found.metadata.published == "2002-07-13"
    assert not found.notes
    monkeypatch.setattr(date_search, "_SECONDS_PER_CANDIDATE", 100.0)
    cut = extract(page, metadata=True, page_type="article", time_budget=5)
    assert cut.metadata is not None and cut.metadata.published is None
    assert [note.split(":")[0] for note in cut.notes] == ["date-search-cut-short"]
    assert cut.text == found.text


def test_a_code_block_keeps_its_lines_in_the_text_of_every_output_choice() -> None:
    """A documentation page's code block was one line of the text (``import os from gazette
    import Client client = Client()``), with or without the HTML written: each of its lines
    is now a line of the text, for every algorithm that writes the text from the elements."""
    words = "The client reads the gazette and writes each issue to disk for you. " * 5
    page = (
        f"<html><body><article><h1>Gazette client</h1><p>{words}</p><pre><code>import os\n"
        f"from gazette import Client\nclient = Client()</code></pre><p>{words}</p>"
        "</article></body></html>"
    )
    code = ["import os", "from gazette import Client", "client = Client()"]
    for algorithm in ("cetd-plus", "coreex", "cset"):
        for html in (True, False):
            lines = extract(page, algorithm=algorithm, html=html).text.splitlines()
            start = lines.index(code[0])
            assert lines[start : start + 3] == code, (algorithm, html)

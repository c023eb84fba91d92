"""Reason codes: each kind of empty result carries its :class:`~scrapy_cetd.Reason`, made by
the situation it names, and the stats count that code, never the reason's sentence."""

from __future__ import annotations

import asyncio
import json
import pickle
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from conftest import PipelineHarness
from crawlkit import article
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree
from scrapy import Request
from scrapy.http import HtmlResponse

import scrapy_cetd
from scrapy_cetd import ALGORITHMS, EmptyReason, ExtractionResult, Reason
from scrapy_cetd.cli import main
from scrapy_cetd.corpus import FileSummary
from scrapy_cetd.limits import LimitExceededError
from scrapy_cetd.result import _CONTROL, _has_control, sanitize

STORY = article("Storm warning")
FRAMESET = (
    "<html><head><title>Frames</title></head><frameset cols='30%,70%'>"
    "<frame src='menu.html'><frame src='story.html'></frameset></html>"
)
ONLY_SCRIPTS = (
    "<html><body><script>document.write('hello world')</script><style>p {}</style>"
    "<noscript>enable javascript</noscript></body></html>"
)
MANY_ATTRIBUTES = (
    "<html><body><p " + " ".join(f"a{i}=1" for i in range(1_001)) + ">text</p></body></html>"
)
TOO_DEEP = "<html><body>" + "<div>" * 3_000 + "deep text" + "</div>" * 3_000 + "</body></html>"
NOT_RATED = "<html><body>Only text <span>in spans</span></body></html>"
"""Visible text that cset rates nowhere (every element a leaf): nothing is selected."""

SITUATIONS: dict[Reason, tuple[str, dict[str, Any]]] = {
    Reason.MAX_BODY_SIZE: (STORY, {"max_body_size": 100}),
    Reason.MAX_ATTRIBUTES: (MANY_ATTRIBUTES, {}),
    Reason.MAX_NODES: (STORY, {"max_nodes": 5}),
    Reason.TIME_BUDGET: (STORY, {"time_budget": 1e-9}),
    Reason.FRAMESET: (FRAMESET, {}),
    Reason.NO_VISIBLE_TEXT: (ONLY_SCRIPTS, {}),
    Reason.TOO_DEEP: (TOO_DEEP, {}),
}
"""A page and the options of :func:`scrapy_cetd.extract` that make every algorithm return an
empty result with the code."""

NO_CONTENT = [
    ("cset", NOT_RATED, {}),
    ("coreex", "<html><body><div>" + '<a href="/a">a link</a> ' * 20 + "</div></body></html>", {}),
    ("cetr-tm", STORY, {"threshold_coefficient": 1000}),
]
"""Pages with visible text of which an algorithm selects nothing."""


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
@pytest.mark.parametrize("code", list(SITUATIONS), ids=[code.value for code in SITUATIONS])
def test_each_situation_gives_its_code(code: Reason, algorithm: str) -> None:
    page, options = SITUATIONS[code]
    result = scrapy_cetd.extract(page, algorithm=algorithm, **options)
    assert (result.text, result.html) == ("", "")
    assert result.reason is not None
    assert result.reason_code is code


@pytest.mark.parametrize(("algorithm", "page", "options"), NO_CONTENT, ids=lambda x: str(x)[:8])
def test_nothing_selected_gives_no_content(
    algorithm: str, page: str, options: dict[str, Any]
) -> None:
    result = scrapy_cetd.extract(page, algorithm=algorithm, **options)
    assert not result and result.reason is not None
    assert result.reason_code is Reason.NO_CONTENT


def test_text_made_only_of_control_characters_is_no_visible_text() -> None:
    result = sanitize(
        ExtractionResult(text="\x01\x02", html="<body>\x01\x02</body>", algorithm="a")
    )
    assert (result.text, result.reason, result.reason_code) == (
        "",
        "no visible text",
        Reason.NO_VISIBLE_TEXT,
    )


@given(
    text=st.text()
    | st.text(st.sampled_from("a\t\n\r\x00\x1f\x7f\x80\u00e9\ufffd\ufffe\uffff\U0001f600\ud800"))
)
def test_control_characters_are_found_as_the_expression_finds_them(text: str) -> None:
    """The byte scan of :func:`sanitize` finds a control character where the regular
    expression does, whatever the text's characters (surrogates, noncharacters, emoji)."""
    assert _has_control(text) == (_CONTROL.search(text) is not None)


def test_a_long_text_is_checked_without_a_copy_of_it() -> None:
    """A megabyte of text is checked a piece at a time: its UTF-8 copy and the bytes left of
    it took twice its size; a control character is found wherever it is, at the end of one
    piece or the start of the next."""
    text = "caf\u00e9 au lait, " * 60_000
    tracemalloc.start()
    assert not _has_control(text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < len(text) / 2
    for at in (0, 65_535, 65_536, len(text) - 1):
        assert _has_control(text[:at] + "\x01" + text[at:])


def test_a_result_with_content_has_no_code() -> None:
    result = scrapy_cetd.extract(STORY)
    assert result and (result.reason, result.reason_code) == (None, None)


def test_a_reason_without_a_code_is_no_content() -> None:
    built = ExtractionResult(text="", html="", algorithm="mine", reason="nothing here")
    assert built.reason_code is Reason.NO_CONTENT
    assert ExtractionResult.empty("mine", "nothing here").reason_code is Reason.NO_CONTENT
    given = ExtractionResult.empty("mine", "nothing here", Reason.FRAMESET)
    assert given.reason_code is Reason.FRAMESET


@pytest.mark.parametrize("code", list(SITUATIONS), ids=[code.value for code in SITUATIONS])
def test_the_code_survives_pickling(code: Reason) -> None:
    page, options = SITUATIONS[code]
    result = scrapy_cetd.extract(page, **options)
    copy = pickle.loads(pickle.dumps(result))
    assert copy == result and copy.reason_code is code


def test_codes_read_as_their_values() -> None:
    assert Reason("max_nodes") is Reason.MAX_NODES
    assert isinstance(Reason.MAX_NODES, str)
    as_text: str = Reason.MAX_NODES
    assert as_text == "max_nodes"
    assert f"{Reason.TOO_DEEP}" == str(Reason.TOO_DEEP) == "too_deep"


def test_a_limit_error_carries_a_limit_code() -> None:
    error = LimitExceededError(Reason.MAX_NODES, "7 elements, more than 5")
    assert error.reason() == EmptyReason("max_nodes exceeded: 7 elements, more than 5", error.code)
    with pytest.raises(ValueError, match="code must name a limit"):
        LimitExceededError(Reason.FRAMESET, "not a limit")


# The stats count the code --------------------------------------------------------------------

MISLEADING = (
    "max_nodes exceeded: 1 elements, more than 0: frameset page: no visible text: the page "
    "nests more than 2,048 elements deep, where the HTML parser stops reading it"
)
"""A sentence that names every kind of empty result but says nothing for a program."""

URL = "http://example.com/"


class SaysOtherwise:
    """A user's extractor whose sentence is :data:`MISLEADING` and whose code is the last part
    of the URL; a URL ending in ``none`` gives a result with a reason and no code."""

    name = "says-otherwise"

    def extract(self, tree: etree._Element, *, url: str | None = None) -> ExtractionResult:
        assert url is not None
        last = url.rsplit("/", 1)[-1]
        if last == "none":
            return ExtractionResult(text="", html="", algorithm=self.name, reason=MISLEADING)
        return ExtractionResult.empty(self.name, MISLEADING, Reason(last))


def response(body: str = STORY, url: str = URL) -> HtmlResponse:
    return HtmlResponse(url, body=body.encode(), encoding="utf-8", request=Request(url))


def empty_reason_stats(harness: PipelineHarness) -> dict[str, int]:
    stats = harness.crawler.stats.get_stats()
    prefix = "cetd/item_empty_reason_count/"
    return {key[len(prefix) :]: value for key, value in stats.items() if key.startswith(prefix)}


@pytest.mark.parametrize("code", list(Reason), ids=[code.value for code in Reason])
def test_the_pipeline_counts_the_code_not_the_sentence(code: Reason) -> None:
    harness = PipelineHarness(CETD_ALGORITHM=f"{__name__}.SaysOtherwise")
    item = harness.run({}, response(url=URL + code.value))
    assert item["main_content_text"] == ""
    assert empty_reason_stats(harness) == {code.value: 1}


def test_the_pipeline_counts_a_reason_without_code_as_no_content() -> None:
    harness = PipelineHarness(CETD_ALGORITHM=f"{__name__}.SaysOtherwise")
    harness.run({}, response(url=URL + "none"))
    assert empty_reason_stats(harness) == {"no_content": 1}


PIPELINE_SITUATIONS: list[tuple[str, str, dict[str, object]]] = [
    ("not_a_document", '{"title": "JSON, not HTML"}', {}),
    ("max_attributes", MANY_ATTRIBUTES, {}),
    ("max_nodes", STORY, {"CETD_MAX_NODES": 5}),
    ("time_budget", STORY, {"CETD_TIME_BUDGET": 1e-9}),
    ("frameset", FRAMESET, {}),
    ("no_visible_text", ONLY_SCRIPTS, {}),
    ("too_deep", TOO_DEEP, {}),
    ("no_content", NOT_RATED, {"CETD_ALGORITHM": "cset"}),
]
"""A page and the settings that give each code in a crawl (``max_body_size`` is a skip
there: ``cetd/item_skipped_count/too_large``)."""


@pytest.mark.parametrize(
    ("code", "body", "settings"), PIPELINE_SITUATIONS, ids=[s[0] for s in PIPELINE_SITUATIONS]
)
def test_each_situation_counts_its_code_in_a_crawl(
    code: str, body: str, settings: dict[str, Any]
) -> None:
    harness = PipelineHarness(**settings)
    assert harness.run({}, response(body))["main_content_text"] == ""
    assert empty_reason_stats(harness) == {code: 1}


@pytest.mark.parametrize("code", ["max_attributes", "time_budget", "frameset", "too_deep"])
def test_worker_processes_give_the_same_codes(code: str) -> None:
    [(body, settings)] = [(b, s) for c, b, s in PIPELINE_SITUATIONS if c == code]
    harness = PipelineHarness(CETD_ISOLATION="process", CETD_WORKERS=1, **settings)
    page = response(body)  # the item's link to its response is weak: keep the response

    async def run() -> Any:
        await harness.pipeline.open_spider()
        item: dict[str, Any] = {}
        harness.links.link(item, page)
        try:
            return await harness.pipeline.process_item(item)
        finally:
            await harness.pipeline.close_spider()

    assert asyncio.run(asyncio.wait_for(run(), 60))["main_content_text"] == ""
    assert empty_reason_stats(harness) == {code: 1}


def test_the_corpus_counts_limits_by_code() -> None:
    summary = FileSummary("file.warc.gz")
    rows: list[dict[str, str | None]] = [
        {"reason": MISLEADING, "reason_code": "no_content"},
        {"reason": "out of time", "reason_code": "time_budget"},
        {"reason": "too many", "reason_code": "max_nodes"},
        {"reason": None, "reason_code": None},
    ]
    for row in rows:
        summary.count({**row, "notes": []})
    assert (summary.pages, summary.empty) == (4, 3)
    assert summary.limits == {"time_budget": 1, "max_nodes": 1}


def test_every_code_is_documented_with_the_stats() -> None:
    text = (Path(__file__).parent.parent / "docs" / "scrapy.md").read_text(encoding="utf-8")
    table = text.partition("### Reason codes")[2]
    for code in Reason:
        assert f"\n| `{code.value}` |" in table, code


def test_the_command_prints_the_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frameset, story = tmp_path / "frameset.html", tmp_path / "story.html"
    frameset.write_text(FRAMESET, encoding="utf-8")
    story.write_text(STORY, encoding="utf-8")
    assert main(["extract", str(frameset), str(story), "--format", "json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["reason"], r["reason_code"]) for r in records] == [
        ("frameset page", "frameset"),
        (None, None),
    ]

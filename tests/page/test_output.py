"""Rendering kept elements as HTML and as text (docs/algorithms.md §0.6)."""

from __future__ import annotations

import lxml.html
import pytest
from conftest import parse
from lxml import etree

from scrapy_cetd import extract
from scrapy_cetd.page import dom
from scrapy_cetd.page.dom import build_view
from scrapy_cetd.page.output import Keep, content_modes, element_text, render


def body_view(html: str):  # type: ignore[no-untyped-def]
    body = parse(html).find("body")
    assert body is not None
    return build_view(body)


def test_text_has_one_block_per_line_and_keeps_inline_spaces() -> None:
    root = parse(
        "<body><h1>Title</h1><p>The announcement came as <a>Bill</a> said.<br>Next</p>"
        "<ul><li>one</li><li>two</li></ul></body>"
    )
    assert element_text(root).splitlines() == [
        "Title",
        "The announcement came as Bill said.",
        "Next",
        "one",
        "two",
    ]


def test_shells_keep_text_only_when_asked() -> None:
    view = body_view("<body><div>shell text<p>kept paragraph</p></div><p>dropped</p></body>")
    p = view.tags.index("p")
    content = [i == p for i in range(len(view))]
    shells = [view.tags[i] in ("body", "div") for i in range(len(view))]
    html, text = render(view, content_modes(view, content, shells, shell_text=True))
    assert text.splitlines() == ["shell text", "kept paragraph"]
    assert html == "<body><div>shell text<p>kept paragraph</p></div></body>"
    html, text = render(view, content_modes(view, content, shells, shell_text=False))
    assert text == "kept paragraph"
    assert html == "<body><div><p>kept paragraph</p></div></body>"


def test_invisible_nodes_never_reach_the_output() -> None:
    view = body_view(
        "<body><div>a<!-- note --> b<script>var s;</script><style>p{}</style>"
        "<span hidden>secret</span> c</div></body>"
    )
    html, text = render(view, [Keep.TEXT] * len(view))
    assert text == "a b c"
    assert "script" not in html and "note" not in html and "secret" not in html


def test_tail_of_dropped_child_stays_with_a_text_keeping_parent() -> None:
    view = body_view("<body><p>according to <a>local reports</a>.</p></body>")
    modes = [Keep.DROP if tag == "a" else Keep.TEXT for tag in view.tags]
    html, text = render(view, modes)
    assert text == "according to ."
    assert html == "<body><p>according to .</p></body>"


def test_attributes_images_and_tables_survive() -> None:
    view = body_view(
        "<body><article class='x'><img src='a.png' alt='A'><table><tr><td>1</td></tr></table>"
        "</article></body>"
    )
    html, _ = render(view, [Keep.TEXT] * len(view))
    assert '<article class="x"><img src="a.png" alt="A"><table><tr><td>1</td></tr>' in html


def test_nothing_kept_is_empty() -> None:
    view = body_view("<body><p>x</p></body>")
    assert render(view, [Keep.DROP] * len(view)) == ("", "")


def test_render_does_not_touch_the_input() -> None:
    root = parse("<body><div>a<!-- c --><p>b</p>tail</div></body>")
    before = etree.tostring(root)
    body = root.find("body")
    assert body is not None
    view = build_view(body)
    render(view, [Keep.DROP if tag == "p" else Keep.SHELL for tag in view.tags])
    assert etree.tostring(root) == before


@pytest.mark.parametrize("algorithm", ["cectd-ds", "cetd-plus", "coreex"])
def test_a_title_left_in_the_body_is_not_content(algorithm: str) -> None:
    page = (
        "<html><head><title>Head</title></head><body><p>Article text, long enough to count.</p>"
        "<div><title>Stray <b>bold</b> title</title></div></body></html>"
    )
    result = extract(page, algorithm=algorithm)
    assert "Article text" in result.text
    assert "Stray" not in result.text
    assert "<title" not in result.html


@pytest.mark.parametrize(
    "page",
    [
        '<body><div type="a><p style=" x"="" id="keep"><p>Article text.</p></div></body>',
        # a control character in the name too: lxml refuses to delete such an attribute by name
        '<body><div type="a><p style="\x01x"="" id="keep"><p>Article text.</p></div></body>',
        # a name that lxml reads as "{namespace}local" cannot be deleted by name (KeyError;
        # found by fuzz/extract.py)
        '<body><div type="a><p style=" {1}x"="" id="keep"><p>Article text.</p></div></body>',
    ],
)
def test_attributes_whose_names_cannot_be_written_back_are_left_out(page: str) -> None:
    view = build_view(parse(page).find("body"))
    assert any('"' in name for name in view.elements[1].attrib)
    implementations = [dom.speedups, None] if dom.speedups is not None else [None]
    for speedups in implementations:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(dom, "speedups", speedups)
            html, text = render(view, [Keep.TEXT] * len(view))
        reparsed = lxml.html.fragment_fromstring(html)
        assert [dict(element.attrib) for element in reparsed.iter("div")] == [
            {"type": "a><p style=", "id": "keep"}
        ]
        assert text == "Article text."
    assert any('"' in name for name in view.elements[1].attrib)  # the input keeps it

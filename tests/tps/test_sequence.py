"""The tag path sequence (scrapy_cetd.tps.sequence): codes, paths and style signatures."""

from __future__ import annotations

import lxml.html
from conftest import parse
from tpskit import PAPER, THREE_REGIONS

from scrapy_cetd.tps import search_tag_path_region, style_signature


def test_three_regions_sequence() -> None:
    region = search_tag_path_region(parse(THREE_REGIONS), PAPER)
    assert region.sequence == (1, 2, 3, *[4] * 4, 3, *[5] * 12, 3, *[6] * 4, 2)
    assert region.node_count == 26
    assert region.paths[4] == "body/div/span.region2"


def test_style_signature() -> None:
    a = lxml.html.fragment_fromstring(
        '<div id="x1" class="b  a" style="Color: red; MARGIN:0 ;"></div>'
    )
    b = lxml.html.fragment_fromstring('<div id="x2" class="a b" style="color:red;margin:0"></div>')
    assert style_signature(a) == (("a", "b"), "color:red;margin:0")
    assert style_signature(a) == style_signature(b)  # ids are not part of the path (S-2)
    assert style_signature(lxml.html.fragment_fromstring("<p></p>")) == ((), "")


def test_style_distinguishes_tag_paths() -> None:
    region = search_tag_path_region(
        parse('<body><p style="color:red"></p><p style="COLOR: red;"></p><p></p></body>'), PAPER
    )
    assert region.sequence == (1, 2, 2, 3)
    assert region.paths[1] == "body/p[style=color:red]"

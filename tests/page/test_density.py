"""C, T, LC, LT, TD, CTD and DensitySum against the paper and docs/algorithms.md §1.9."""

from __future__ import annotations

import math

import pytest
from conftest import parse
from lxml import etree

from scrapy_cetd.page.density import (
    composite_text_density,
    count_nodes,
    densities,
    density_sums,
    text_density,
)
from scrapy_cetd.page.dom import DomView, build_view


def view_of(root: etree._Element) -> DomView:
    body = root.find("body")
    assert body is not None
    return build_view(body)


def by_class(view: DomView) -> dict[str, int]:
    """Index of each element by its class, id, or tag."""
    out: dict[str, int] = {}
    for i, element in enumerate(view.elements):
        key = element.get("class") or element.get("id") or view.tags[i]
        out.setdefault(key, i)
    return out


def test_paper_example_2_counts_and_text_density(example_1: etree._Element) -> None:
    view = view_of(example_1)
    counts = count_nodes(view)
    td = densities(counts, composite=False)
    node = by_class(view)
    expected = {  # C, T, TD of the paper's Example 2 (and body, derived)
        "body": (85, 5, 17.0),
        "main": (85, 4, 21.25),
        "article": (85, 3, 85 / 3),
        "articleHeadline": (46, 0, 46.0),
        "articleBody": (39, 1, 39.0),
        "a": (15, 0, 15.0),
    }
    for key, (chars, tags, density) in expected.items():
        i = node[key]
        assert (counts.chars[i], counts.tags[i]) == (chars, tags), key
        assert td[i] == pytest.approx(density), key
    assert counts.link_chars[node["articleBody"]] == 15
    assert counts.link_tags[node["articleBody"]] == 1
    assert counts.link_ratio == pytest.approx(15 / 85)


def test_example_2_composite_density_and_density_sums(example_1: etree._Element) -> None:
    view = view_of(example_1)
    counts = count_nodes(view)
    node = by_class(view)
    ctd = densities(counts, composite=True)
    ds_ctd = density_sums(view, counts, ctd, composite=True)
    td = densities(counts, composite=False)
    ds_td = density_sums(view, counts, td, composite=False)
    expected = {  # CTD (clamped), DS(CTD), DS(TD) from docs/algorithms.md §1.9.1
        "body": (44.5585, 51.9814, 21.25),
        "main": (51.9814, 62.9197, 85 / 3),
        "article": (62.9197, 224.2478, 85.0),
        "articleHeadline": (194.6739, 194.6739, 46.0),
        "articleBody": (29.5739, 104.5847, 39.0),
        "a": (0.0, 0.0, 15.0),
    }
    for key, (c, dc, dt) in expected.items():
        i = node[key]
        assert ctd[i] == pytest.approx(c, abs=1e-4), key
        assert ds_ctd[i] == pytest.approx(dc, abs=1e-4), key
        assert ds_td[i] == pytest.approx(dt, abs=1e-4), key


def test_derived_page_counts(storm_page: etree._Element) -> None:
    view = view_of(storm_page)
    counts = count_nodes(view)
    ctd = densities(counts, composite=True)
    ds = density_sums(view, counts, ctd, composite=True)
    node = by_class(view)
    rows = {  # C, T, LC, LT, CTD, DS(CTD) from §1.9.2
        "body": (265, 14, 28, 9, 35.9076, 404.5366),
        "nav": (15, 7, 15, 7, 0.0, 0.0),
        "ul": (15, 6, 15, 6, 0.0, 0.0),
        "content": (201, 4, 13, 1, 160.6361, 737.5822),
        "h1": (20, 0, 0, 0, 105.6376, 105.6376),
        "footer": (49, 0, 0, 0, 243.9006, 243.9006),
    }
    for key, (c, t, lc, lt, density, dsum) in rows.items():
        i = node[key]
        assert (counts.chars[i], counts.tags[i]) == (c, t), key
        assert (counts.link_chars[i], counts.link_tags[i]) == (lc, lt), key
        assert ctd[i] == pytest.approx(density, abs=1e-4), key
        assert ds[i] == pytest.approx(dsum, abs=1e-4), key


def test_text_density_clamps_zero_tags() -> None:
    assert text_density(10, 0) == 10
    assert text_density(10, 4) == 2.5
    assert text_density(0, 0) == 0


def test_composite_density_without_text_is_zero() -> None:
    assert composite_text_density(0, 5, 0, 0, 0.3) == 0.0


def test_composite_density_all_links_is_zero() -> None:
    # C = LC and T = LT: the log argument is 1.
    assert composite_text_density(30, 3, 30, 3, 0.5) == 0.0


def test_composite_density_without_links_is_finite_on_a_link_free_page() -> None:
    # Paper-literal: log base ln(e) = 1, infinite density; clamped (S-6, S-9): finite.
    value = composite_text_density(100, 0, 0, 0, 0.0)
    expected = 100 * math.log(100) / math.log(math.log(1 + math.e))
    assert value == pytest.approx(expected)
    assert math.isfinite(value)


def test_composite_density_zero_denominators_are_clamped() -> None:
    # ¬LC = 0 (all text is link text) but fewer link tags than tags: still finite, positive.
    value = composite_text_density(40, 4, 40, 2, 1.0)
    assert math.isfinite(value)
    assert value > 0


def test_all_link_wrapper_counts_as_link_tag() -> None:
    view = view_of(parse("<body><ul><li><a>x</a></li><li>plain</li></ul></body>"))
    counts = count_nodes(view)
    ul = view.tags.index("ul")
    # li(a) is an all-link wrapper (q = 1) plus its a (q = 1); the plain li has q = 0.
    assert counts.tags[ul] == 3
    assert counts.link_tags[ul] == 2


def test_text_inside_link_descendants_is_link_text() -> None:
    view = view_of(parse("<body><a><span>deep</span> tail</a><p>free</p></body>"))
    counts = count_nodes(view)
    assert counts.link_chars[0] == len("deep") + len("tail")
    assert counts.chars[0] == len("deep") + len("tail") + len("free")
    span = view.tags.index("span")
    assert counts.link_chars[span] == counts.chars[span] == 4


def test_buttons_and_selects_are_links() -> None:
    view = view_of(parse("<body><button>Go</button><select><option>One</option></select></body>"))
    counts = count_nodes(view)
    assert counts.link_chars[0] == counts.chars[0] == len("Go") + len("One")


def test_density_sum_scores_text_runs_as_pseudo_nodes() -> None:
    view = view_of(parse("<body><td>bare text here<b>bold</b>more</td></body>"))
    counts = count_nodes(view)
    td = densities(counts, composite=False)
    sums = density_sums(view, counts, td, composite=False)
    cell = view.tags.index("td")
    # runs "bare text here" (14) and "more" (4) plus b's TD (4).
    assert sums[cell] == 14 + 4 + 4


def test_text_runs_are_joined_across_removed_nodes() -> None:
    view = view_of(parse("<body><p>foo<!-- c --> bar<script>x</script>!</p></body>"))
    paragraph = view.tags.index("p")
    assert view.runs[paragraph] == ["foo bar!"]
    assert count_nodes(view).chars[paragraph] == len("foo bar!")

"""TpsOptions (validation, pickling, presets), the defaults on list pages with menus, and the
checks tps_selector makes before TPS reads a page."""

from __future__ import annotations

import dataclasses
import logging
import pickle
import re
from typing import Any

import lxml.html
import pytest
from lxml import etree
from scrapy.http import HtmlResponse, Request

import scrapy_cetd
from scrapy_cetd.crawl.spider import tps_selector, tps_selector_region
from scrapy_cetd.tps import (
    DEFAULT_MIN_SIZE_GAP,
    MAIN_LANDMARK_SHARE,
    MIN_SIZE_GAP,
    TpsOptions,
    prune_tag_paths,
    prune_tag_paths_region,
    search_tag_path_region,
)


def forum_index() -> str:
    """A forum's index: a site menu of 8 sections with 6 topics each, in a ``<nav>``, then 12
    threads under a heading."""
    menu = "".join(
        f"<li class='menu-item'><a href='/section/{s}'>Section {s}</a><ul class='sub-menu'>"
        + "".join(
            f"<li class='menu-item'><a href='/section/{s}/{t}'>Topic {s}.{t}</a></li>"
            for t in range(6)
        )
        + "</ul></li>"
        for s in range(8)
    )
    threads = "".join(
        f"<li class='thread'><h3><a href='/t/{n}'>Thread {n}: how do I fix the leaking tap in "
        "my kitchen</a></h3><p class='excerpt'>I have tried replacing the washer twice and the "
        "tap still drips every few seconds, any idea what else could be worn out? "
        f"Post {n}.</p><span class='meta'>by user{n}, {n + 3} replies</span></li>"
        for n in range(12)
    )
    return (
        "<html><head><title>Plumbing forum</title></head><body>"
        f"<header><nav class='main-nav'><ul class='menu'>{menu}</ul></nav></header>"
        f"<main><h1>Plumbing questions</h1><ul class='threads'>{threads}</ul></main>"
        "<footer><p>Forum rules</p><p>Contact</p></footer></body></html>"
    )


def shop_category() -> str:
    """A shop's category page: a mega-menu of 10 departments with 10 categories each, then a
    heading, an introduction and 12 product cards."""
    columns = "".join(
        f"<div class='mega-column'><h4>Department {d}</h4><ul>"
        + "".join(f"<li><a href='/c/{d}/{c}'>Category {d}.{c}</a></li>" for c in range(10))
        + "</ul></div>"
        for d in range(10)
    )
    products = "".join(
        f"<div class='product-card'><a href='/p/{n}'><img src='/img/{n}.jpg' alt='Jacket {n}'>"
        f"</a><h2 class='product-name'><a href='/p/{n}'>Wool jacket model {n}</a></h2>"
        "<p class='product-description'>A warm jacket of recycled wool with a cotton lining, "
        f"tested in the mountains, model {n}.</p><span class='price'>{100 + n} EUR</span></div>"
        for n in range(12)
    )
    return (
        "<html><head><title>Jackets</title></head><body>"
        f"<nav class='mega-menu'>{columns}</nav>"
        "<div class='page'><h1>Jackets</h1><p class='category-intro'>Our jackets are made from "
        "recycled wool and lined with organic cotton.</p>"
        f"<div class='product-grid'>{products}</div></div>"
        "<footer><ul><li><a href='/imprint'>Imprint</a></li><li><a href='/terms'>Terms</a></li>"
        "</ul></footer></body></html>"
    )


def tree_of(html: str) -> etree._Element:
    return lxml.html.document_fromstring(html)


def count(tree: etree._Element, xpath: str) -> int:
    found = tree.xpath(xpath)
    assert isinstance(found, list)
    return len(found)


def response_of(html: str, **meta: Any) -> HtmlResponse:
    url = "https://shop.example/jackets"
    return HtmlResponse(
        url, body=html.encode(), encoding="utf-8", request=Request(url, meta=dict(meta))
    )


# --- the options object --------------------------------------------------------------------------


def test_the_defaults_are_the_papers_search_with_the_additions_around_it() -> None:
    options = TpsOptions()
    assert options.min_size_gap == DEFAULT_MIN_SIZE_GAP == MIN_SIZE_GAP
    assert options.size == "nodes"
    assert options.keep_main_content and options.remove_furniture and options.remove_widgets
    assert options.remove_buttons and options.main_landmark_share == MAIN_LANDMARK_SHARE == 0.5
    assert not (options.guard_main_content or options.invert or options.keep_positions)


def test_the_paper_preset_is_the_literal_algorithm() -> None:
    paper = TpsOptions.paper()
    assert paper.min_size_gap == MIN_SIZE_GAP == 0.20
    assert paper.size == "nodes"
    assert not (paper.keep_main_content or paper.remove_furniture or paper.remove_widgets)
    assert not (paper.guard_main_content or paper.remove_buttons)
    assert paper.main_landmark_share is None
    assert TpsOptions.paper(invert=True, max_nodes=None) == dataclasses.replace(
        paper, invert=True, max_nodes=None
    )


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("min_size_gap", 1.0, "option min_size_gap=1.0 is not in [0, 1)"),
        ("min_size_gap", -0.1, "option min_size_gap=-0.1 is not in [0, 1)"),
        ("min_size_gap", "wide", "option min_size_gap='wide' is not a finite number"),
        ("min_size_gap", float("nan"), "option min_size_gap=nan is not a finite number"),
        ("size", "words", "option size='words' is not one of 'nodes', 'text'"),
        ("invert", "maybe", "option invert='maybe' is not a bool"),
        ("keep_main_content", 2, "option keep_main_content=2 is not a bool"),
        ("remove_buttons", "often", "option remove_buttons='often' is not a bool"),
        ("main_landmark_share", 1.5, "option main_landmark_share=1.5 is not in [0, 1] or None"),
        ("main_landmark_share", -0.5, "option main_landmark_share=-0.5 is not in [0, 1] or None"),
        ("max_nodes", 0, "option max_nodes=0 is not a positive number or None"),
        ("max_nodes", 1.5, "option max_nodes=1.5 is not a whole number"),
        ("max_nodes", True, "option max_nodes=True is not a whole number"),
        ("time_budget", -1, "option time_budget=-1.0 is not a positive number or None"),
        ("max_attributes", 0, "option max_attributes=0 is not a positive number or None"),
    ],
)
def test_a_bad_value_is_refused_naming_the_option_and_the_value(
    option: str, value: object, message: str
) -> None:
    given: dict[str, Any] = {option: value}
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        TpsOptions(**given)
    with pytest.raises(ValueError, match=option):
        TpsOptions().replace(**given)
    with pytest.raises(ValueError, match=option):
        prune_tag_paths(tree_of(forum_index()), **given)


def test_values_are_converted_to_the_declared_types() -> None:
    options = TpsOptions(
        min_size_gap="0.3",  # type: ignore[arg-type]
        keep_main_content="no",  # type: ignore[arg-type]
        invert="False",  # type: ignore[arg-type]
        max_nodes="none",  # type: ignore[arg-type]
        time_budget="2",  # type: ignore[arg-type]
        max_attributes=500.0,  # type: ignore[arg-type]
        main_landmark_share="none",  # type: ignore[arg-type]
    )
    assert options.min_size_gap == 0.3
    assert options.keep_main_content is False
    assert options.invert is False
    assert options.max_nodes is None and options.main_landmark_share is None
    assert options.time_budget == 2.0
    assert options.max_attributes == 500 and isinstance(options.max_attributes, int)


def test_an_unknown_option_is_named() -> None:
    with pytest.raises(
        ValueError, match=re.escape("unknown TPS option(s) min_gap; valid options: ")
    ):
        TpsOptions().replace(min_gap=0.3)
    with pytest.raises(ValueError, match="min_gap"):
        search_tag_path_region(tree_of(forum_index()), min_gap=0.3)
    with pytest.raises(TypeError, match="options must be a TpsOptions, not dict"):
        prune_tag_paths(tree_of(forum_index()), {"invert": True})  # type: ignore[arg-type]


def test_options_are_frozen_hashable_and_pickle() -> None:
    options = TpsOptions(min_size_gap=0.3, size="text", max_nodes=None, time_budget=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.invert = True  # type: ignore[misc]
    copy = pickle.loads(pickle.dumps(options))
    assert copy == options and hash(copy) == hash(options)
    assert pickle.loads(pickle.dumps(TpsOptions.paper())) == TpsOptions.paper()


def test_keyword_overrides_are_the_options_replaced() -> None:
    tree = tree_of(shop_category())
    options = TpsOptions(keep_positions=True)
    by_keywords = prune_tag_paths_region(tree, options, min_size_gap=0.3, size="text")
    by_object = prune_tag_paths_region(tree, options.replace(min_size_gap=0.3, size="text"))
    assert etree.tostring(by_keywords[0]) == etree.tostring(by_object[0])
    assert by_keywords[1] == by_object[1]
    assert search_tag_path_region(tree) == search_tag_path_region(tree, TpsOptions())


def test_exported() -> None:
    assert scrapy_cetd.TpsOptions is TpsOptions
    assert scrapy_cetd.tps_selector_region is tps_selector_region
    assert {"TpsOptions", "tps_selector_region"} <= set(scrapy_cetd.__all__)


# --- the defaults on list pages with menus -------------------------------------------------------


def test_on_a_forum_index_the_paper_keeps_the_menu_and_the_defaults_the_threads() -> None:
    tree = tree_of(forum_index())
    paper = prune_tag_paths(tree, TpsOptions.paper())
    assert count(paper, "//li[@class='thread']") == 0
    assert count(paper, "//li[@class='menu-item']") == 56
    pruned = prune_tag_paths(tree)
    assert count(pruned, "//li[@class='thread']") == 12
    assert count(pruned, "//li[@class='menu-item']") == 0
    assert count(pruned, "//footer") == 0
    assert pruned.xpath("//h1/text()") == ["Plumbing questions"]


def test_on_a_shop_page_the_paper_keeps_the_mega_menu_and_the_defaults_the_products() -> None:
    tree = tree_of(shop_category())
    paper = prune_tag_paths(tree, TpsOptions.paper())
    assert count(paper, "//div[@class='product-card']") == 0
    assert count(paper, "//nav//a") == 100
    pruned = prune_tag_paths(tree)
    assert count(pruned, "//div[@class='product-card']") == 12
    assert count(pruned, "//div[@class='product-card']/h2/a") == 12
    assert count(pruned, "//nav | //footer") == 0
    assert pruned.xpath("//h1/text()") == ["Jackets"]
    # The introduction is not in cetd-plus's main block; the guarded search keeps it.
    assert count(pruned, "//p[@class='category-intro']") == 0
    guarded = prune_tag_paths(tree, guard_main_content=True)
    assert count(guarded, "//p[@class='category-intro']") == 1
    assert count(guarded, "//div[@class='product-card']/h2/a") == 12


def test_tps_selector_uses_the_defaults_and_takes_the_paper_preset() -> None:
    response = response_of(forum_index())
    assert len(tps_selector(response).css("li.thread")) == 12
    assert len(tps_selector(response, TpsOptions.paper()).css("li.thread")) == 0
    # Keywords change the defaults for one call: weighed by their text, the threads outweigh
    # the menu even without keep_main_content.
    unguarded = tps_selector(response, keep_main_content=False)
    assert unguarded.get() == tps_selector(response, TpsOptions(keep_main_content=False)).get()
    assert len(unguarded.css("li.thread")) == 12
    assert not unguarded.css("li.menu-item")


# --- the checks tps_selector makes --------------------------------------------------------------

CROWDED = " ".join(f"data-a{n}='1'" for n in range(1_500))
"""1,500 attributes for one tag: over the default ``max_attributes`` (1,000)."""


def test_tps_selector_refuses_a_tag_with_too_many_attributes_before_pruning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    page = shop_category().replace("<div class='page'>", f"<div class='page' {CROWDED}>")
    response = response_of(page)
    with caplog.at_level(logging.WARNING, logger="scrapy_cetd.crawl.spider"):
        selector, region = tps_selector_region(response)
    assert region.reason is not None
    assert region.reason.startswith("max_attributes exceeded: a <div> tag with more than 1,000")
    assert region.sequence == () and region.splits == ()
    # Unpruned: every record, and the menu, as response.css() sees them.
    assert len(selector.css("div.product-card")) == 12
    assert len(selector.css("nav a")) == 100
    assert len(tps_selector(response).css("nav a")) == 100
    # The paper's algorithm would keep only the menu (test above): the page is not pruned.
    assert len(tps_selector(response, TpsOptions.paper()).css("div.product-card")) == 12
    assert any(
        "TPS left https://shop.example/jackets unpruned: max_attributes exceeded" in message
        for message in caplog.messages
    )
    # The limit is an option: raised, or switched off, the page is pruned.
    for options in (TpsOptions(max_attributes=2_000), TpsOptions(max_attributes=None)):
        pruned, region = tps_selector_region(response, options)
        assert region.reason is None
        assert len(pruned.css("div.product-card")) == 12
        assert not pruned.css("nav a")


def test_tps_selector_over_max_nodes_gives_the_whole_page_and_the_reason() -> None:
    response = response_of(forum_index())
    selector, region = tps_selector_region(response, max_nodes=50)
    assert region.reason is not None and region.reason.startswith("max_nodes exceeded")
    assert len(selector.css("li.thread")) == 12
    assert len(selector.css("li.menu-item")) == 56


def test_tps_selector_over_the_time_budget_gives_the_whole_page_and_the_reason() -> None:
    response = response_of(shop_category())
    selector, region = tps_selector_region(response, TpsOptions(time_budget=1e-9))
    assert region.reason is not None and region.reason.startswith("time_budget exceeded")
    assert len(selector.css("div.product-card")) == 12
    assert len(selector.css("nav a")) == 100


def test_tps_selector_region_of_a_pruned_page_has_no_reason() -> None:
    response = response_of(forum_index(), dont_cetd=True)  # the pipeline's switch, not TPS's
    selector, region = tps_selector_region(response)
    assert region.reason is None
    assert region.kept_count < region.node_count
    assert len(selector.css("li.thread")) == 12

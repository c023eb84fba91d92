"""TpsOptions (scrapy_cetd.tps.options): validation, pickling, presets, limits, and the defaults on
list pages with menus."""

from __future__ import annotations

import dataclasses
import pickle
import re
from typing import Any

import lxml.html
import pytest
from conftest import parse
from lxml import etree
from tpskit import LIST_PAGE, PAPER, count, forum_index, shop_category

import scrapy_cetd
from scrapy_cetd.crawl.spider import tps_selector_region
from scrapy_cetd.tps import (
    DEFAULT_MIN_SIZE_GAP,
    MAIN_LANDMARK_SHARE,
    MIN_SIZE_GAP,
    TpsOptions,
    prune_tag_paths,
    prune_tag_paths_region,
    search_tag_path_region,
)


def tree_of(html: str) -> etree._Element:
    return lxml.html.document_fromstring(html)


@pytest.mark.parametrize(
    ("option", "value"), [("max_nodes", 0), ("max_nodes", -3), ("time_budget", 0.0)]
)
def test_limits_must_be_positive(option: str, value: float) -> None:
    with pytest.raises(ValueError, match=f"option {option}=.* is not a positive number or None"):
        prune_tag_paths(parse(LIST_PAGE), PAPER, **{option: value})


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

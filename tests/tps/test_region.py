"""What a search finds (scrapy_cetd.tps.region): paths kept as parent and step, results
that pickle."""

from __future__ import annotations

import pickle

import pytest
from conftest import parse
from tpskit import LIST_PAGE, PAPER, THREE_REGIONS

from scrapy_cetd.tps import search_tag_path_region


def test_result_pickles_and_is_deterministic() -> None:
    region = search_tag_path_region(parse(LIST_PAGE), PAPER)
    assert pickle.loads(pickle.dumps(region)) == region
    assert search_tag_path_region(parse(LIST_PAGE), PAPER) == region


def test_paths_are_kept_as_parent_and_step() -> None:
    region = search_tag_path_region(parse(THREE_REGIONS), PAPER)
    assert region.steps[:5] == ("body", "br", "div", "span.region1", "span.region2")
    assert region.step_parents[:5] == (0, 1, 1, 3, 3)
    assert region.path(5) == "body/div/span.region2" == region.paths[4]
    with pytest.raises(ValueError, match=r"code must be in 1\.\.6"):
        region.path(7)

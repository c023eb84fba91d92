"""TPS on a page (scrapy_cetd.tps.prune): the paper's examples pruned, pages without a split, list
pages, the input left alone, the limits, the ``prune`` command."""

from __future__ import annotations

import threading
from pathlib import Path

import lxml.html
import pytest
from conftest import deep_chain, elements_at, parse
from lxml import etree
from tpskit import FIGURE_2, LIST_PAGE, PAPER, THREE_REGIONS, body_html

import scrapy_cetd
from scrapy_cetd.cli import main
from scrapy_cetd.tps import prune_tag_paths, prune_tag_paths_region, search_tag_path_region


def test_figure_2_sequence_and_region() -> None:
    region = search_tag_path_region(parse(FIGURE_2), PAPER)
    assert region.sequence == (1, 2, 3, 4, 4, 3, 4, 4)
    assert region.paths == ("body", "body/table", "body/table/tr", "body/table/tr/td")
    assert (region.start, region.end) == (3, 8)
    assert region.region() == (3, 4, 4, 3, 4, 4)
    assert [(s.start, s.end, s.threshold, s.at) for s in region.splits] == [
        (1, 8, 1, 1),
        (2, 8, 1, 1),
    ]
    assert [(s.kept_start, s.kept_end) for s in region.splits] == [(2, 8), (3, 8)]
    assert region.node_count == 8
    assert region.kept_count == 8  # body and table stay as shells
    assert region.removed_share == 0.0


def test_figure_2_pruned_keeps_both_rows() -> None:
    pruned = prune_tag_paths(parse(FIGURE_2), PAPER)
    assert body_html(pruned) == (
        "<body><table><tr><td></td><td></td></tr><tr><td></td><td></td></tr></table></body>"
    )


def test_three_regions_pruned_to_region_2() -> None:
    pruned = prune_tag_paths(parse(THREE_REGIONS), PAPER)
    spans = '<span class="region2"></span>' * 12
    assert body_html(pruned) == f"<body><div>{spans}</div><div></div></body>"


def test_page_without_split_is_not_pruned() -> None:
    html = (
        "<html><body><ul>"
        + "".join(f"<li><a href='/{n}'>Item {n}</a> <b>{n} EUR</b></li>" for n in range(6))
        + "</ul></body></html>"
    )
    tree = parse(html)
    pruned, region = prune_tag_paths_region(tree, PAPER)
    assert region.kept_count == region.node_count
    assert region.removed_share == 0.0
    assert pruned.xpath("//li/a/text()") == tree.xpath("//li/a/text()")
    assert pruned.xpath("string(//ul)") == tree.xpath("string(//ul)")


def test_single_element_body_has_no_split() -> None:
    region = search_tag_path_region(parse("<body>only text</body>"), PAPER)
    assert region.sequence == (1,)
    assert region.splits == ()
    assert (region.start, region.end) == (1, 1)
    assert (
        body_html(prune_tag_paths(parse("<body>only text</body>"), PAPER))
        == "<body>only text</body>"
    )


def test_frameset_page_is_not_pruned() -> None:
    tree = lxml.html.document_fromstring("<html><frameset><frame src='a.html'></frameset></html>")
    region = search_tag_path_region(tree, PAPER)
    assert region.sequence == ()
    assert region.node_count == region.kept_count == 0
    assert region.removed_share == 0.0
    assert region.region() == ()
    assert etree.tostring(prune_tag_paths(tree, PAPER)) == etree.tostring(tree)


def test_list_page_keeps_the_records_only() -> None:
    tree = parse(LIST_PAGE)
    pruned, region = prune_tag_paths_region(tree, PAPER)
    assert len(elements_at(pruned, "//li[@class='product']")) == 8
    assert pruned.xpath("//li[@class='product'][3]/a/text()") == ["Jacket 2"]
    assert not pruned.xpath("//div[@class='nav']")
    assert not pruned.xpath("//div[@class='footer']")
    assert not pruned.xpath("//h1")
    assert pruned.findtext("head/title") == "Shop"  # the head is copied as it is
    # Comments and scripts inside the region stay with it (they belong to the records).
    assert len(elements_at(pruned, "//li/script")) == 8
    assert 0.0 < region.removed_share < 1.0
    assert region.kept_count == 2 + 8 * 3  # body and ul shells, 8 records of 3 elements


def test_a_list_after_a_stray_body_end_tag_is_pruned_as_the_extractors_read_it() -> None:
    # libxml2 puts what follows "</body>" beside the body; browsers, and viewed_body, in it.
    tree = parse(LIST_PAGE.replace("<h1>Jackets</h1>", "</body><h1>Jackets</h1>"))
    assert tree.find("body/ul") is None
    before = etree.tostring(tree)
    pruned, region = prune_tag_paths_region(tree, PAPER)
    assert etree.tostring(tree) == before
    assert len(elements_at(pruned, "/html/body/ul/li[@class='product']")) == 8
    assert not pruned.xpath("//div[@class='nav'] | //h1 | //div[@class='footer']")
    assert region.kept_count == 2 + 8 * 3
    guarded = prune_tag_paths(tree, PAPER, keep_main_content=True, remove_furniture=True)
    assert len(elements_at(guarded, "/html/body/ul/li[@class='product']")) == 8


def test_a_document_without_body_is_pruned_in_a_copy_with_one() -> None:
    body = LIST_PAGE[LIST_PAGE.index("<body>") + 6 : LIST_PAGE.index("</body>")]
    tree = etree.fromstring(f"<html><head><title>Shop</title></head>{body}</html>")
    pruned = prune_tag_paths(tree, PAPER)
    assert pruned.findtext("head/title") == "Shop"
    assert len(elements_at(pruned, "/html/body/ul/li[@class='product']")) == 8
    assert not pruned.xpath("//h1")


def test_deep_nesting_completes() -> None:
    root, chain = deep_chain(10_000)
    for element in chain[1:]:
        element.tail = "\n"
    chain[-1].text = "deep content at the bottom"
    before = etree.tostring(root)
    pruned, region = prune_tag_paths_region(root, PAPER)
    assert region.node_count == 10_001
    assert (region.start, region.end) == (10_000, 10_001)  # peeled one wrapper at a time
    assert len(region.splits) == 9_999
    assert region.kept_count == 10_001  # the wrappers stay as shells
    assert "deep content at the bottom" in etree.tostring(pruned, encoding="unicode")
    assert etree.tostring(root) == before


def test_many_threads_share_one_tree() -> None:
    tree = parse(LIST_PAGE)
    expected = etree.tostring(prune_tag_paths(tree, PAPER))
    results: list[bytes] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(10):
            out = etree.tostring(prune_tag_paths(tree, PAPER))
            with lock:
                results.append(out)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 60


def test_reexported() -> None:
    for name in (
        "prune_tag_paths",
        "tps_selector",
        "TagPathRegion",
        "TagPathSplit",
        "search_tag_path_region",
    ):
        assert name in scrapy_cetd.__all__
        assert getattr(scrapy_cetd, name)


def test_a_page_over_max_nodes_is_left_unpruned_with_the_reason() -> None:
    tree = parse(LIST_PAGE)
    elements = len(elements_at(tree, "//*"))
    region = search_tag_path_region(tree, PAPER, max_nodes=elements - 1)
    assert region.reason == f"max_nodes exceeded: {elements} elements, more than {elements - 1}"
    assert (region.sequence, region.splits, region.start, region.kept_count) == ((), (), 0, 0)
    pruned, region = prune_tag_paths_region(tree, PAPER, max_nodes=elements - 1)
    assert region.reason is not None
    assert etree.tostring(pruned) == etree.tostring(tree)
    assert pruned is not tree
    assert search_tag_path_region(tree, PAPER, max_nodes=elements).reason is None
    assert search_tag_path_region(tree, PAPER, max_nodes=None).reason is None


def test_a_page_over_the_time_budget_is_left_unpruned_with_the_reason() -> None:
    tree = parse(LIST_PAGE)
    pruned, region = prune_tag_paths_region(tree, PAPER, time_budget=1e-9)
    assert region.reason is not None
    assert region.reason.startswith("time_budget exceeded: more than 1e-09 s, stopped ")
    assert etree.tostring(pruned) == etree.tostring(tree)
    assert search_tag_path_region(tree, PAPER, time_budget=1e-9).reason == region.reason
    unlimited = search_tag_path_region(tree, PAPER, time_budget=60)
    assert unlimited.reason is None
    assert unlimited == search_tag_path_region(tree, PAPER)


def test_prune_command_exits_non_zero_naming_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "list.html"
    page.write_text(LIST_PAGE)
    out = tmp_path / "out.html"
    assert main(["prune", str(page), "-o", str(out), "--max-nodes", "5"]) == 1
    assert "not pruned: max_nodes exceeded" in capsys.readouterr().err
    assert main(["prune", str(page), "-o", str(out), "--time-budget", "1e-9"]) == 1
    assert "not pruned: time_budget exceeded" in capsys.readouterr().err
    assert not out.exists()
    assert main(["prune", str(page), "-o", str(out), "--max-nodes", "none"]) == 0
    assert out.exists()

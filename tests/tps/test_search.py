"""searchRegion (scrapy_cetd.tps.search): the paper's traces, the size gap, the text size, protected
elements, and the search against its definition on random sequences."""

from __future__ import annotations

import random

import pytest
from conftest import elements_at, parse, string_at
from tpskit import FIGURE_2, INTRO, LIST_PAGE, PAPER, THREE_REGIONS

from scrapy_cetd.tps import prune_tag_paths, search_region, search_tag_path_region


def _reference_search_region(
    sequence: list[int], min_size_gap: float, weights: list[int], protected: list[bool]
) -> tuple[int, int, list[tuple[int, int, int, int, int, int]]]:
    """searchRegion as docs/algorithms.md §5.2 states it, one full scan per threshold."""
    lo, hi = 0, len(sequence) - 1
    splits: list[tuple[int, int, int, int, int, int]] = []
    while True:
        part = sequence[lo : hi + 1]
        counts = {s: part.count(s) for s in set(part)}
        found = None
        for threshold in sorted(set(counts.values())):
            alphabet = {s for s, c in counts.items() if c >= threshold}
            if len(alphabet) < 2:
                break
            seen: set[int] = set()
            done: set[int] = set()
            for p in range(lo, hi + 1):
                symbol = sequence[p]
                if symbol not in alphabet:
                    continue
                seen.add(symbol)
                if sequence[lo : p + 1].count(symbol) == counts[symbol]:
                    done.add(symbol)
                if seen == done:
                    i = p - lo + 1
                    first = sum(weights[lo : lo + i])
                    second = sum(weights[lo + i : hi + 1])
                    gap = abs(second - first) / (first + second) if first + second else 0.0
                    removed = (
                        protected[lo : lo + i] if first < second else protected[lo + i : hi + 1]
                    )
                    if len(done) < len(alphabet) and gap > min_size_gap + 1e-9 and not any(removed):
                        found = threshold, i, first < second
                    break
            if found:
                break
        if found is None:
            return lo + 1, hi + 1, splits
        threshold, i, keep_suffix = found
        new_lo, new_hi = (lo + i, hi) if keep_suffix else (lo, lo + i - 1)
        splits.append((lo + 1, hi + 1, threshold, i, new_lo + 1, new_hi + 1))
        lo, hi = new_lo, new_hi


def test_three_regions_needs_frequency_filtering() -> None:
    region = search_tag_path_region(parse(THREE_REGIONS), PAPER)
    trace = [(s.start, s.end, s.threshold, s.at, s.kept_start, s.kept_end) for s in region.splits]
    assert trace == [
        (1, 26, 1, 1, 2, 26),
        (2, 26, 3, 20, 2, 21),  # br (2) and div (3) filtered out: the closing br is cut
        (2, 21, 1, 1, 3, 21),
        (3, 21, 4, 5, 8, 21),  # only codes 4, 5, 6 are read at threshold 4 [P §4]
    ]
    assert (region.start, region.end) == (8, 21)
    # Without filtering (threshold 1 only) the div code spans the whole range: no split there.
    assert all(s.threshold > 1 for s in region.splits if s.at > 1)


def test_as_printed_rule_is_not_used() -> None:
    """The symmetric 20% rule cuts the trailing br (S-6); as printed it never could."""
    region = search_tag_path_region(parse(THREE_REGIONS), PAPER)
    assert region.end == 21 < region.node_count


def test_guard_main_content_stops_searchregion_cutting_the_intro_off() -> None:
    tree = parse(LIST_PAGE.replace("<h1>Jackets</h1>", f"<h1>Jackets</h1>{INTRO}"))
    intro = 6  # body, div.nav, a, a, h1, p.intro: its preorder position
    plain = search_tag_path_region(tree, PAPER)
    kept = search_tag_path_region(tree, PAPER, keep_main_content=True)
    guarded = search_tag_path_region(tree, PAPER, guard_main_content=True)
    assert not plain.start <= intro <= plain.end
    assert (kept.start, kept.end) == (plain.start, plain.end)  # keeping it does not guard it
    assert guarded.start <= intro <= guarded.end
    pruned = prune_tag_paths(tree, PAPER, guard_main_content=True)
    assert guarded.kept_count == len(elements_at(pruned, "/html/body//*[not(self::script)]")) + 1


def test_min_size_gap() -> None:
    # Gap 0.8 needs |n - 2i| / n > 0.8: cutting the body off 8 positions (0.75) is refused.
    region = search_tag_path_region(parse(FIGURE_2), PAPER, min_size_gap=0.8)
    assert (region.start, region.end) == (1, 8)
    assert region.splits == ()
    with pytest.raises(ValueError, match="min_size_gap"):
        search_tag_path_region(parse(FIGURE_2), PAPER, min_size_gap=1.0)
    with pytest.raises(ValueError, match="min_size_gap"):
        prune_tag_paths(parse(FIGURE_2), PAPER, min_size_gap=-0.1)


def test_size_text_keeps_the_side_with_the_text() -> None:
    description = "A warm waterproof jacket for long walks in the rain. " * 6
    html = (
        f"<body><div class='desc'><p>{description}</p><p>{description}</p></div>"
        "<ul class='related'>"
        + "".join(f"<li class='r'><a>x{n}</a><span>1</span></li>" for n in range(10))
        + "</ul></body>"
    )
    by_nodes = prune_tag_paths(parse(html), PAPER)
    by_text = prune_tag_paths(parse(html), PAPER, size="text")
    assert "waterproof" not in string_at(by_nodes, "string(//body)")
    assert "waterproof" in string_at(by_text, "string(//body)")
    assert not by_text.xpath("//ul")
    with pytest.raises(ValueError, match="size"):
        search_tag_path_region(parse(html), PAPER, size="words")


def test_search_region_on_a_bare_sequence() -> None:
    assert search_region([1, 2, 3, 4, 4, 3, 4, 4])[:2] == (3, 8)
    assert search_region([]) == (0, 0, [])
    assert search_region([1, 2, 2, 2, 2], weights=[0, 0, 0, 0, 0])[:2] == (1, 5)
    with pytest.raises(ValueError, match="weights"):
        search_region([1, 2], weights=[1])


def test_protected_elements_are_never_split_off() -> None:
    # Figure 2 peels off the body, then the table; a protected table stops the second split.
    protected = [False, True, False, False, False, False, False, False]
    start, end, splits = search_region([1, 2, 3, 4, 4, 3, 4, 4], protected=protected)
    assert (start, end) == (2, 8)
    assert [(s.kept_start, s.kept_end) for s in splits] == [(2, 8)]
    with pytest.raises(ValueError, match="protected"):
        search_region([1, 2], protected=[True])


def test_search_region_matches_the_definition_on_random_sequences() -> None:
    rng = random.Random(24)
    for _ in range(400):
        size = rng.randint(1, 60)
        alphabet = rng.randint(1, 12)
        sequence = [rng.randint(1, alphabet) for _ in range(size)]
        if rng.random() < 0.3:  # symbols opening early and closing late, at many frequencies
            sequence = sequence + sorted(set(sequence))
        weights = [rng.choice((0, 1, 1, 5)) for _ in sequence]
        protected = [rng.random() < 0.05 for _ in sequence]
        gap = rng.choice((0.0, 0.2, 0.5))
        start, end, splits = search_region(
            sequence, min_size_gap=gap, weights=weights, protected=protected
        )
        trace = [(s.start, s.end, s.threshold, s.at, s.kept_start, s.kept_end) for s in splits]
        assert (start, end, trace) == _reference_search_region(sequence, gap, weights, protected)

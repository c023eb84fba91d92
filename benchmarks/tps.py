"""TPS pruning of record pages: is the main content still there, and how much DOM is gone?

Pages: the WCXB pages of type ``listing``, ``collection`` and ``product`` in
``../shared/datasets/wcxb`` (150) and the 25 pages of ``record_pages_wri``. Each page is
decoded and parsed as a Scrapy crawl does (:func:`scrapy_cetd.page.parse.to_tree`) and pruned by
:func:`scrapy_cetd.prune_tag_paths` with its defaults. Two numbers, as in the paper's
Table I (``docs/algorithms.md`` §5.7: 86.96% and 46.22%):

* **content present**: the share of pages whose pruned DOM still holds at least 95% of the
  gold main-content tokens. Tokens are those of the dataset metrics (lower-cased runs of
  letters and digits, CJK characters one by one); "holds" is the multiset overlap of the gold
  tokens with the tokens of the visible text of the ``<body>`` (§0.2 pre-processing). The
  headline counts against the tokens the *unpruned* page holds (some gold text lives only in
  scripts or in the head, where no DOM pruning can reach or lose it); the absolute variant
  (against all gold tokens) is printed beside it.
* **nodes removed**: the mean over pages of the share of the body's elements (after §0.2
  pre-processing, the elements of the tag path sequence) that pruning removes, counted on the
  pruned copy itself.

``--keep-main-content``, ``--remove-furniture``, ``--remove-widgets`` and ``--keep-positions``
prune with those options of :func:`scrapy_cetd.prune_tag_paths` (beyond the paper: searchRegion
may not cut off what ``cetd-plus`` selects as main content, which is kept; page furniture is
removed; SVG graphics and form controls without text are removed; removed elements before a
kept sibling of their tag are emptied, not removed, and count as kept).

For ``record_pages_wri`` it also checks the MANIFEST's ``record_xpath``: on the pruned copy it
must still match ``record_count`` elements, the records must keep their whole text, and the
number of elements outside the records must drop.

Usage: ``python -m benchmarks.tps [--datasets-root DIR] [--min-size-gap 0.2]
[--size nodes|text] [--keep-main-content] [--remove-furniture] [--remove-widgets]
[--keep-positions] [--pages] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lxml import etree

from benchmarks import datasets_root
from scrapy_cetd.evaluation.datasets import Dataset, Page, load_dataset
from scrapy_cetd.page.dom import build_view, find_body
from scrapy_cetd.page.output import Keep, render
from scrapy_cetd.page.parse import to_tree
from scrapy_cetd.page.words import tokens
from scrapy_cetd.tps import MIN_SIZE_GAP, prune_tag_paths_region

RECORD_TYPES = ("listing", "collection", "product")
"""The WCXB page types that hold records."""

PRESENT = 0.95
"""Share of the gold tokens the pruned page must still hold for "content present"."""


@dataclass
class PageResult:
    dataset: str
    id: str
    page_type: str
    nodes: int
    kept: int
    gold_tokens: int
    held_before: int
    held_after: int
    splits: int
    records: dict[str, object] = field(default_factory=dict)

    @property
    def removed(self) -> float:
        return 1.0 - self.kept / self.nodes if self.nodes else 0.0

    @property
    def present(self) -> bool:
        """At least 95% of the gold tokens the unpruned page holds are still held."""
        return self.held_after >= PRESENT * self.held_before

    @property
    def present_absolute(self) -> bool:
        """At least 95% of all gold tokens are held after pruning."""
        return self.held_after >= PRESENT * self.gold_tokens


def body_text(tree: etree._Element) -> str:
    """The visible text of ``tree``'s body, as the extractors read it (§0.2, §0.6)."""
    body = find_body(tree)
    if body is None:
        return ""
    view = build_view(body)
    return render(view, [Keep.TEXT] * len(view))[1]


def held(gold: Counter[str], text: str) -> int:
    """How many of the gold tokens (as a multiset) ``text`` holds."""
    return sum((gold & Counter(tokens(text))).values())


def record_check(page: Page, tree: etree._Element, pruned: etree._Element) -> dict[str, object]:
    """The MANIFEST record XPath on the original and the pruned page."""
    xpath = str(page.meta["record_xpath"])
    expected = int(page.meta["record_count"])
    before = tree.xpath(xpath)
    after = pruned.xpath(xpath)
    assert isinstance(before, list)
    assert isinstance(after, list)
    texts_before = [body_text_of(r) for r in before if isinstance(r, etree._Element)]
    texts_after = [body_text_of(r) for r in after if isinstance(r, etree._Element)]
    pruned_text = " ".join(body_text(pruned).split())
    kept = sum(" ".join(text.split()) in pruned_text for text in texts_before)
    return {
        "expected": expected,
        "records_kept_text": kept,
        "matched_before": len(before),
        "matched_after": len(after),
        "records_intact": texts_before == texts_after,
        "other_before": _non_record_elements(tree, before),
        "other_after": _non_record_elements(pruned, after),
    }


def body_text_of(element: etree._Element) -> str:
    view = build_view(element)
    return render(view, [Keep.TEXT] * len(view))[1]


def _non_record_elements(tree: etree._Element, records: Sequence[object]) -> int:
    """Elements of the body's sequence that are neither a record nor inside one."""
    body = find_body(tree)
    if body is None:
        return 0
    view = build_view(body)
    inside = {r for r in records if isinstance(r, etree._Element)}
    count = 0
    flags = [False] * len(view)
    for i, element in enumerate(view.elements):
        p = view.parent[i]
        flags[i] = element in inside or (p >= 0 and flags[p])
        count += not flags[i]
    return count


def _elements(tree: etree._Element) -> int:
    """The elements of ``tree``'s body after §0.2 pre-processing (0 without a body)."""
    body = find_body(tree)
    return 0 if body is None else len(build_view(body))


def run_page(dataset: Dataset, page: Page, args: argparse.Namespace) -> PageResult:
    tree = to_tree(page.html, url=page.meta.get("url"), encoding=page.encoding)
    pruned, region = prune_tag_paths_region(
        tree,
        min_size_gap=args.min_size_gap,
        size=args.size,
        keep_main_content=args.keep_main_content,
        remove_furniture=args.remove_furniture,
        remove_widgets=args.remove_widgets,
        keep_positions=args.keep_positions,
    )
    gold = Counter(tokens(page.gold))
    result = PageResult(
        dataset=dataset.name,
        id=page.id,
        page_type=page.page_type,
        nodes=region.node_count,
        kept=_elements(pruned),
        gold_tokens=sum(gold.values()),
        held_before=held(gold, body_text(tree)),
        held_after=held(gold, body_text(pruned)),
        splits=len(region.splits),
    )
    if "record_xpath" in page.meta:
        result.records = record_check(page, tree, pruned)
    return result


def _line(name: str, results: Sequence[PageResult]) -> str:
    if not results:
        return f"{name:<22} {0:>5}"
    present = 100 * sum(r.present for r in results) / len(results)
    absolute = 100 * sum(r.present_absolute for r in results) / len(results)
    removed = 100 * statistics.fmean(r.removed for r in results)
    return f"{name:<22} {len(results):>5} {present:>8.2f}% {absolute:>8.2f}% {removed:>8.2f}%"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tps", description=__doc__)
    parser.add_argument("--datasets-root", type=Path, default=datasets_root())
    parser.add_argument("--min-size-gap", type=float, default=MIN_SIZE_GAP)
    parser.add_argument("--size", choices=("nodes", "text"), default="nodes")
    parser.add_argument("--keep-main-content", action="store_true")
    parser.add_argument("--remove-furniture", action="store_true")
    parser.add_argument("--remove-widgets", action="store_true")
    parser.add_argument("--keep-positions", action="store_true")
    parser.add_argument("--pages", action="store_true", help="print one line per page")
    parser.add_argument("--json", type=Path, help="write per-page results as JSON")
    args = parser.parse_args(argv)
    if args.datasets_root is None:
        print("no datasets: set CETD_DATASETS or pass --datasets-root", file=sys.stderr)
        return 1
    wcxb = load_dataset(args.datasets_root / "wcxb")
    records = load_dataset(args.datasets_root / "record_pages_wri")
    wcxb_ids = [
        page_id
        for page_id in wcxb.page_ids
        if wcxb.manifest["pages"][page_id].get("page_type") in RECORD_TYPES
    ]
    results: list[PageResult] = []
    for dataset, ids in ((wcxb, wcxb_ids), (records, list(records.page_ids))):
        for page in dataset.pages(ids):
            results.append(run_page(dataset, page, args))

    if args.pages:
        for r in results:
            print(
                f"{r.dataset:<17} {r.id:<26} {r.page_type:<10} {r.nodes:>6} -> {r.kept:>6} "
                f"({100 * r.removed:5.1f}% removed, {r.splits} splits) gold held "
                f"{r.held_after}/{r.held_before}/{r.gold_tokens}{'' if r.present else '  LOST'}"
            )
        print()
    print(
        f"TPS pruning, min_size_gap={args.min_size_gap}, size={args.size}, "
        f"keep_main_content={args.keep_main_content}, remove_furniture={args.remove_furniture}, "
        f"remove_widgets={args.remove_widgets}, keep_positions={args.keep_positions}"
    )
    print(f"{'pages':<22} {'n':>5} {'present':>9} {'absolute':>9} {'removed':>9}")
    print(_line("all", results))
    for name in ("wcxb", "record_pages_wri"):
        part = [r for r in results if r.dataset == name]
        print(_line(name, part))
        if name == "wcxb":
            for kind in RECORD_TYPES:
                print(_line(f"  wcxb {kind}", [r for r in part if r.page_type == kind]))
    print(f"{'paper (Table I)':<22} {23:>5} {86.96:>8.2f}% {'':>9} {46.22:>8.2f}%")

    checked = [r for r in results if r.records]
    ok = [
        r
        for r in checked
        if r.records["matched_after"] == r.records["expected"] and r.records["records_intact"]
    ]
    kept_text = [r for r in checked if r.records["records_kept_text"] == r.records["expected"]]
    fewer = [
        r
        for r in checked
        if int(str(r.records["other_after"])) < int(str(r.records["other_before"]))
    ]
    print()
    print(
        f"record_pages_wri record_xpath after pruning: all records matched and intact on "
        f"{len(ok)}/{len(checked)} pages; fewer non-record elements on {len(fewer)}/{len(checked)}"
    )
    print(
        f"  every record's text still in the pruned page (XPath aside): "
        f"{len(kept_text)}/{len(checked)} pages"
    )
    before = sum(int(str(r.records["other_before"])) for r in checked)
    after = sum(int(str(r.records["other_after"])) for r in checked)
    share = 100 * (1 - after / max(before, 1))
    print(f"  non-record elements: {before} -> {after} ({share:.1f}% removed)")
    for r in checked:
        if r not in ok or r not in fewer:
            print(f"  {r.id}: {r.records}")
    if args.json:
        args.json.write_text(
            json.dumps([asdict(r) for r in results], indent=1, ensure_ascii=False) + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

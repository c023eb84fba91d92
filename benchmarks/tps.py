"""TPS pruning of record pages: which options keep the main content and remove the boilerplate?

Pages: the WCXB pages of type ``listing``, ``collection`` and ``product`` of
``../shared/datasets/wcxb`` and ``wcxb_dev`` (237), and the 25 pages of ``record_pages_wri``.
Each page is decoded and parsed as a Scrapy crawl does (:func:`scrapy_cetd.page.parse.to_tree`)
and pruned by :func:`scrapy_cetd.tps.prune_tag_paths_region` with each configuration of
:data:`CANDIDATES`: the paper's algorithm, the additions one at a time, then two gaps and text
sizes. A few configurations, not a search fitted to the pages.

On the WCXB pages, with the gold snippets of their manifests (WCXB's ``with``: text a correct
extraction contains; ``without``: boilerplate it leaves out), compared as WCXB compares them
(whitespace collapsed, lower-cased) with the visible text of the ``<body>`` (§0.2):

* **with kept**: of the ``with`` snippets the unpruned page shows, the share the pruned page
  still shows;
* **without removed**: of the ``without`` snippets the unpruned page shows, the share the
  pruned page no longer shows;
* **snippet accuracy**: both together, over all those snippets (WCXB's snippet accuracy, pooled
  over the pages): the figure the default is chosen by (:func:`best`);
* **nodes removed**: the mean over pages of the share of the body's elements (after §0.2
  pre-processing) that pruning removes, counted on the pruned copy;
* **content present**: the share of pages whose pruned body still holds at least 95% of the
  gold main-content tokens the unpruned body holds (the measure of the paper's Table I,
  ``docs/algorithms.md`` §5.7; tokens of the dataset metrics, as a multiset).

Snippets the unpruned body does not show (in the ``<head>``, in scripts, or written
differently) cannot be kept or removed by pruning and are left out; the table gives how many
were counted. On ``record_pages_wri`` it also checks the MANIFEST's ``record_xpath``: on the
pruned copy it must still match all ``record_count`` records with their text intact.

The tables go between the ``tps-benchmark`` markers of ``docs/tps.md`` and the ``tps-table``
markers of ``README.md`` (``--no-docs`` leaves both alone). ``make bench`` runs it after the
accuracy benchmark (:mod:`benchmarks.__main__`).

Usage: ``python -m benchmarks.tps [--datasets-root DIR] [--limit N] [--pages] [--json OUT]
[--no-docs]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

from lxml import etree

from benchmarks import datasets_root
from scrapy_cetd.evaluation.datasets import Page, load_dataset
from scrapy_cetd.page.dom import build_view, find_body
from scrapy_cetd.page.output import Keep, render
from scrapy_cetd.page.parse import to_tree
from scrapy_cetd.page.words import tokens
from scrapy_cetd.tps import MAIN_LANDMARK_SHARE, TpsOptions, prune_tag_paths_region

ROOT = Path(__file__).resolve().parent.parent
DOCS_PAGE = ROOT / "docs" / "tps.md"
README = ROOT / "README.md"
DOCS_MARKERS = ("<!-- tps-benchmark:start -->", "<!-- tps-benchmark:end -->")
README_MARKERS = ("<!-- tps-table:start -->", "<!-- tps-table:end -->")

RECORD_TYPES = ("listing", "collection", "product")
"""The WCXB page types that hold records."""

WCXB = ("wcxb", "wcxb_dev")
"""The datasets whose record pages carry the gold snippets."""

PRESENT = 0.95
"""Share of the gold tokens the pruned page must still hold for "content present"."""

PAPER = "paper"

ADDITIONS = TpsOptions.paper(
    keep_main_content=True,
    complete_records=True,
    keep_heading=True,
    main_landmark_share=MAIN_LANDMARK_SHARE,
    remove_furniture=True,
    remove_widgets=True,
    remove_buttons=True,
)
"""The paper's search with every addition that decides what is kept around its region."""

PREVIOUS = "previous defaults: main + guard + furniture + widgets, gap 0.25, size=text"
"""The defaults of the previous release, which the by-type table shows beside the paper and
the defaults."""

CANDIDATES: Mapping[str, TpsOptions] = {
    PAPER: TpsOptions.paper(),
    "paper + main": TpsOptions.paper(keep_main_content=True),
    "paper + main + landmark": TpsOptions.paper(
        keep_main_content=True, main_landmark_share=MAIN_LANDMARK_SHARE
    ),
    "paper + main + landmark + furniture + widgets": TpsOptions.paper(
        keep_main_content=True,
        main_landmark_share=MAIN_LANDMARK_SHARE,
        remove_furniture=True,
        remove_widgets=True,
    ),
    "all seven additions": ADDITIONS,
    "all - main": ADDITIONS.replace(keep_main_content=False),
    "all - records": ADDITIONS.replace(complete_records=False),
    "all - heading": ADDITIONS.replace(keep_heading=False),
    "all - landmark": ADDITIONS.replace(main_landmark_share=None),
    "all - furniture": ADDITIONS.replace(remove_furniture=False),
    "all - buttons": ADDITIONS.replace(remove_buttons=False),
    "all + guard": ADDITIONS.replace(guard_main_content=True),
    "all, size=text": ADDITIONS.replace(size="text"),
    "all, gap 0.25": ADDITIONS.replace(min_size_gap=0.25),
    PREVIOUS: TpsOptions.paper(
        keep_main_content=True,
        guard_main_content=True,
        remove_furniture=True,
        remove_widgets=True,
        min_size_gap=0.25,
        size="text",
    ),
}
"""The configurations measured, by name, each spelt out from the paper's (so that a change of
the defaults does not change what a row measures). ``paper`` is the paper's literal algorithm
(:meth:`TpsOptions.paper`); ``main``, ``records``, ``heading``, ``landmark``, ``furniture``,
``widgets``, ``buttons`` and ``guard`` are ``keep_main_content``, ``complete_records``,
``keep_heading``, ``main_landmark_share`` (0.5), ``remove_furniture``, ``remove_widgets``,
``remove_buttons`` and ``guard_main_content``; ``gap`` is ``min_size_gap``. "all" is the
paper's search with the seven additions (:data:`ADDITIONS`), with one of them taken out
(``-``) or one thing changed. The last row is the defaults of the previous release. The
tables mark the one that equals :class:`TpsOptions` ``()``, the defaults."""


def site_half(url: str | None) -> int:
    """The half of the sites (0 or 1) a page's site falls in: the low bit of the first byte of
    the SHA-256 of its host name (without ``www.``), so that every page of a site falls in the
    same half and the split does not depend on the pages' order or figures."""
    host = (urlsplit(url or "").hostname or "").removeprefix("www.")
    return hashlib.sha256(host.encode()).digest()[0] & 1


def defaults_name(configs: Mapping[str, TpsOptions]) -> str:
    """The name of the configuration that is the defaults; raises :class:`ValueError` when
    none is."""
    for name, options in configs.items():
        if options == TpsOptions():
            return name
    raise ValueError("no configuration is the defaults, TpsOptions()")


@dataclass
class PageResult:
    """One page pruned with one configuration."""

    config: str
    dataset: str
    id: str
    page_type: str
    nodes: int
    kept: int
    with_before: int
    with_after: int
    without_before: int
    without_after: int
    held_before: int
    held_after: int
    half: int = 0
    """:func:`site_half` of the page's URL."""
    seconds: float = 0.0
    """The time :func:`~scrapy_cetd.tps.prune_tag_paths_region` took."""
    records: dict[str, object] = field(default_factory=dict)

    @property
    def removed(self) -> float:
        return 1.0 - self.kept / self.nodes if self.nodes else 0.0

    @property
    def present(self) -> bool:
        """At least 95% of the gold tokens the unpruned page holds are still held."""
        return self.held_after >= PRESENT * self.held_before


@dataclass(frozen=True)
class Summary:
    """A configuration's figures over a group of pages."""

    pages: int
    with_snippets: int
    without_snippets: int
    with_kept: float
    without_removed: float
    accuracy: float
    nodes_removed: float
    content_present: float


def summarize(results: Sequence[PageResult]) -> Summary:
    """The figures of ``results`` (snippet shares pooled over the snippets, the rest means
    over the pages); zeros for no pages."""
    with_before = sum(r.with_before for r in results)
    with_after = sum(r.with_after for r in results)
    without_before = sum(r.without_before for r in results)
    without_gone = without_before - sum(r.without_after for r in results)
    snippets = with_before + without_before
    return Summary(
        pages=len(results),
        with_snippets=with_before,
        without_snippets=without_before,
        with_kept=with_after / with_before if with_before else 0.0,
        without_removed=without_gone / without_before if without_before else 0.0,
        accuracy=(with_after + without_gone) / snippets if snippets else 0.0,
        nodes_removed=statistics.fmean(r.removed for r in results) if results else 0.0,
        content_present=sum(r.present for r in results) / len(results) if results else 0.0,
    )


def best(summaries: Mapping[str, Summary]) -> str:
    """The configuration with the highest snippet accuracy; on a tie, the one that removes
    more nodes."""
    return max(
        summaries, key=lambda name: (summaries[name].accuracy, summaries[name].nodes_removed)
    )


def ahead_on_both_halves(results: Sequence[PageResult], name: str) -> list[str]:
    """The configurations whose snippet accuracy is higher than that of ``name`` on each half
    of the sites (:func:`site_half`): the only ones that would replace it as the default, so
    that no choice rests on one half of the sites alone."""
    accuracy = {
        (r, h): summarize([x for x in results if x.config == r and x.half == h]).accuracy
        for r in dict.fromkeys(x.config for x in results)
        for h in (0, 1)
    }
    return [
        other
        for other in dict.fromkeys(x.config for x in results)
        if all(accuracy[other, h] > accuracy[name, h] for h in (0, 1))
    ]


def normalise(text: str) -> str:
    """Whitespace collapsed to single spaces, lower-cased: how WCXB compares snippets."""
    return " ".join(text.split()).lower()


def body_text(tree: etree._Element) -> str:
    """The visible text of ``tree``'s body, as the extractors read it (§0.2, §0.6)."""
    body = find_body(tree)
    if body is None:
        return ""
    return text_of(body)


def text_of(element: etree._Element) -> str:
    view = build_view(element)
    return render(view, [Keep.TEXT] * len(view))[1]


def held(gold: Counter[str], text: str) -> int:
    """How many of the gold tokens (as a multiset) ``text`` holds."""
    return sum((gold & Counter(tokens(text))).values())


def _elements(tree: etree._Element) -> int:
    """The elements of ``tree``'s body after §0.2 pre-processing (0 without a body)."""
    body = find_body(tree)
    return 0 if body is None else len(build_view(body))


def record_check(page: Page, tree: etree._Element, pruned: etree._Element) -> dict[str, object]:
    """The MANIFEST record XPath on the original and the pruned page."""
    xpath = str(page.meta["record_xpath"])
    before = tree.xpath(xpath)
    after = pruned.xpath(xpath)
    assert isinstance(before, list)
    assert isinstance(after, list)
    texts_before = [text_of(r) for r in before if isinstance(r, etree._Element)]
    texts_after = [text_of(r) for r in after if isinstance(r, etree._Element)]
    return {
        "expected": int(page.meta["record_count"]),
        "matched_after": len(after),
        "records_intact": texts_before == texts_after,
    }


def run_page(dataset: str, page: Page, configs: Mapping[str, TpsOptions]) -> list[PageResult]:
    """``page`` pruned with each of ``configs``."""
    tree = to_tree(page.html, url=page.meta.get("url"), encoding=page.encoding)
    before = normalise(body_text(tree))
    with_shown = [s for s in map(normalise, page.snippets_with) if s and s in before]
    without_shown = [s for s in map(normalise, page.snippets_without) if s and s in before]
    gold = Counter(tokens(page.gold))
    held_before = held(gold, body_text(tree))
    results = []
    half = site_half(page.meta.get("url"))
    for name, options in configs.items():
        start = time.perf_counter()
        pruned, region = prune_tag_paths_region(tree, options)
        seconds = time.perf_counter() - start
        raw_after = body_text(pruned)
        after = normalise(raw_after)
        result = PageResult(
            config=name,
            dataset=dataset,
            id=page.id,
            page_type=page.page_type,
            nodes=region.node_count,
            kept=_elements(pruned),
            with_before=len(with_shown),
            with_after=sum(s in after for s in with_shown),
            without_before=len(without_shown),
            without_after=sum(s in after for s in without_shown),
            held_before=held_before,
            held_after=held(gold, raw_after),
            half=half,
            seconds=seconds,
        )
        if "record_xpath" in page.meta:
            result.records = record_check(page, tree, pruned)
        results.append(result)
    return results


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def time_ratio(results: Sequence[PageResult], name: str, reference: str = PAPER) -> float:
    """The median over pages of the time configuration ``name`` took over the time
    ``reference`` took on the same page (pages with a time of 0 for ``reference`` left out)."""
    reference_seconds = {(r.dataset, r.id): r.seconds for r in results if r.config == reference}
    ratios = [
        r.seconds / reference_seconds[r.dataset, r.id]
        for r in results
        if r.config == name and reference_seconds.get((r.dataset, r.id))
    ]
    return statistics.median(ratios) if ratios else 0.0


def _figures(s: Summary) -> str:
    return f"{_pct(s.with_kept)} | {_pct(s.without_removed)} | {_pct(s.accuracy)}"


def docs_block(results: Sequence[PageResult], configs: Mapping[str, TpsOptions]) -> str:
    """The Markdown of ``docs/tps.md``'s measured block."""
    wcxb = [r for r in results if r.dataset in WCXB]
    overall = {name: summarize([r for r in wcxb if r.config == name]) for name in configs}
    chosen = best(overall)
    default_name = defaults_name(configs)
    first = overall[next(iter(configs))]
    lines = [
        f"WCXB listing, collection and product pages of `wcxb` and `wcxb_dev` ({first.pages} "
        f"pages; {first.with_snippets} `with` and {first.without_snippets} `without` snippets "
        "shown by the unpruned pages):",
        "",
        "| configuration | with kept | without removed | snippet accuracy | nodes removed "
        "| content present |",
        "|:--|--:|--:|--:|--:|--:|",
    ]
    for name in configs:
        s = overall[name]
        label = f"{name} (the defaults)" if name == default_name else name
        label = f"**{label}**" if name == chosen else label
        lines.append(
            f"| {label} | {_figures(s)} | {_pct(s.nodes_removed)} | {_pct(s.content_present)} |"
        )
    verdict = "the defaults" if chosen == default_name else f"not the defaults ({default_name})"
    ahead = ahead_on_both_halves(wcxb, default_name)
    halves = [summarize([r for r in wcxb if r.config == PAPER and r.half == h]) for h in (0, 1)]
    lines += [
        "",
        f"Best snippet accuracy (in bold): `{chosen}`, {verdict}. Ahead of the defaults on "
        "both halves of the sites (below): "
        + (", ".join(f"`{name}`" for name in ahead) if ahead else "none")
        + ".",
        "",
        f"By half of the sites (split by a hash of the host name, no site in both; "
        f"{halves[0].pages} and {halves[1].pages} pages): with kept | without removed | "
        "snippet accuracy:",
        "",
        "| configuration | sites A: with | without | accuracy | sites B: with | without "
        "| accuracy |",
        "|:--|--:|--:|--:|--:|--:|--:|",
    ]
    for name in configs:
        cells = " | ".join(
            _figures(summarize([r for r in wcxb if r.config == name and r.half == h]))
            for h in (0, 1)
        )
        lines.append(f"| {name} | {cells} |")
    lines += [
        "",
        "By page type:",
        "",
        "| page type | configuration | pages | with kept | without removed | snippet accuracy "
        "| nodes removed |",
        "|:--|:--|--:|--:|--:|--:|--:|",
    ]
    for kind in RECORD_TYPES:
        for name in dict.fromkeys((PAPER, default_name, PREVIOUS)):
            if name not in configs:
                continue
            s = summarize([r for r in wcxb if r.config == name and r.page_type == kind])
            lines.append(
                f"| {kind} | {name} | {s.pages} | {_figures(s)} | {_pct(s.nodes_removed)} |"
            )
    lines += [
        "",
        f"Time: the defaults take {time_ratio(wcxb, default_name):.1f} times as long as the "
        "paper's settings (the median over the pages of the ratio of their times, one run).",
    ]
    checked = [r for r in results if r.records]
    if checked:
        lines += [
            "",
            "`record_pages_wri` (generated list pages): the pages whose `record_xpath` still "
            "matches every record, each with its whole text, after pruning; content present; "
            "nodes removed:",
            "",
            "| configuration | records intact | content present | nodes removed |",
            "|:--|--:|--:|--:|",
        ]
        for name in configs:
            part = [r for r in checked if r.config == name]
            intact = sum(
                r.records["matched_after"] == r.records["expected"]
                and bool(r.records["records_intact"])
                for r in part
            )
            s = summarize(part)
            lines.append(
                f"| {name} | {intact}/{len(part)} | {_pct(s.content_present)} "
                f"| {_pct(s.nodes_removed)} |"
            )
    return "\n".join(lines)


def _of_type(kind: str, result: PageResult) -> bool:
    return result.page_type == kind


def _of_half(half: int, result: PageResult) -> bool:
    return result.half == half


def readme_block(results: Sequence[PageResult]) -> str:
    """The README's small table: the paper's settings against the defaults, by page type, then
    over all the pages and over each half of the sites."""
    lines = [
        "| WCXB pages (paper / defaults) | `with` snippets kept | `without` snippets removed "
        "| snippet accuracy | nodes removed |",
        "|:--|--:|--:|--:|--:|",
    ]
    groups: list[tuple[str, Callable[[PageResult], bool]]] = [
        (kind, partial(_of_type, kind)) for kind in RECORD_TYPES
    ]
    groups += [
        ("all", lambda _: True),
        ("sites A", partial(_of_half, 0)),
        ("sites B", partial(_of_half, 1)),
    ]
    for label, member in groups:
        paper, default = (
            summarize([r for r in results if r.config == name and member(r)])
            for name in (PAPER, defaults_name(CANDIDATES))
        )
        cells = [
            f"{_pct(getattr(paper, column))} / {_pct(getattr(default, column))}"
            for column in ("with_kept", "without_removed", "accuracy", "nodes_removed")
        ]
        lines.append(f"| {label} ({paper.pages}) | {' | '.join(cells)} |")
    return "\n".join(lines)


def replace_between(text: str, markers: tuple[str, str], block: str) -> str:
    """``text`` with what lies between ``markers`` replaced by ``block``; raises
    :class:`ValueError` when the markers are missing or out of order."""
    start, end = text.find(markers[0]), text.find(markers[1])
    if start < 0 or end < start:
        raise ValueError(f"no {markers[0]} ... {markers[1]} in the page")
    return text[: start + len(markers[0])] + "\n" + block.strip("\n") + "\n" + text[end:]


def write_docs(results: Sequence[PageResult], docs_page: Path, readme: Path) -> list[Path]:
    """Put the tables into ``docs_page`` and ``readme``; the paths written."""
    wcxb = [r for r in results if r.dataset in WCXB]
    docs_page.write_text(
        replace_between(
            docs_page.read_text(encoding="utf-8"), DOCS_MARKERS, docs_block(results, CANDIDATES)
        ),
        encoding="utf-8",
    )
    readme.write_text(
        replace_between(readme.read_text(encoding="utf-8"), README_MARKERS, readme_block(wcxb)),
        encoding="utf-8",
    )
    return [docs_page, readme]


def run(root: Path, limit: int | None = None) -> list[PageResult]:
    """Every page of the benchmark pruned with every configuration (``limit`` pages per
    dataset at most)."""
    results: list[PageResult] = []
    for name in (*WCXB, "record_pages_wri"):
        dataset = load_dataset(root / name)
        ids = [
            page_id
            for page_id in dataset.page_ids
            if name == "record_pages_wri"
            or dataset.manifest["pages"][page_id].get("page_type") in RECORD_TYPES
        ][:limit]
        for page in dataset.pages(ids):
            results += run_page(name, page, CANDIDATES)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tps", description=__doc__)
    parser.add_argument("--datasets-root", type=Path, default=datasets_root())
    parser.add_argument("--limit", type=int, help="at most N pages per dataset (no docs then)")
    parser.add_argument("--pages", action="store_true", help="print one line per page")
    parser.add_argument("--json", type=Path, help="write per-page results as JSON")
    parser.add_argument("--no-docs", action="store_true", help="leave docs/tps.md and README alone")
    args = parser.parse_args(argv)
    if args.datasets_root is None:
        print("no datasets: set CETD_DATASETS or pass --datasets-root", file=sys.stderr)
        return 1
    results = run(args.datasets_root, args.limit)
    if args.pages:
        for r in results:
            print(
                f"{r.config:<36} {r.dataset:<17} {r.id:<12} {r.page_type:<10} "
                f"{r.nodes:>6} -> {r.kept:>6} ({100 * r.removed:5.1f}% removed) with "
                f"{r.with_after}/{r.with_before} without {r.without_after}/{r.without_before}"
            )
        print()
    print(docs_block(results, CANDIDATES))
    print()
    print(readme_block([r for r in results if r.dataset in WCXB]))
    if args.json:
        args.json.write_text(
            json.dumps([asdict(r) for r in results], indent=1, ensure_ascii=False) + "\n"
        )
    if not args.no_docs and args.limit is None:
        written = write_docs(results, DOCS_PAGE, README)
        print("\nwrote " + ", ".join(str(path) for path in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())

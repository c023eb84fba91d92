"""Page metadata side by side: scrapy-cetd, trafilatura, htmldate alone and newspaper4k.

Scores each system's headline, authors, publication date and site name against the gold of
the datasets that give them (``wcxb``, ``wcxb_dev``, ``readability``), with the matches of
:mod:`scrapy_cetd.evaluation.metadata`, and prints a Markdown table; then the time metadata
and Markdown add to scrapy-cetd's extraction of the median page, and the whole call with both
against trafilatura's ``bare_extraction`` with its metadata on the same pages. Run from the
repository's root::

    python -m benchmarks.metadata [DATASET ...] [--speed-dataset wcxb] [--repeat 3]

Every peer is called on the page as Scrapy decodes it, with its page URL, and with its
documented metadata options: trafilatura's ``bare_extraction(with_metadata=True)``,
htmldate's ``find_date`` in fast mode (``extensive_search=False, original_date=True``, as
scrapy-cetd calls it) and newspaper4k's ``Article.download(input_html=...)`` then ``parse()``
(no network). A peer that is not installed is reported as missing, never silently dropped.
"""

# The peers are optional: each is imported only when its adapter is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import argparse
import functools
import logging
import statistics
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from benchmarks import datasets_root
from benchmarks.speed import decoded_text, page_url
from scrapy_cetd.api import extract
from scrapy_cetd.evaluation.datasets import Page, load_dataset
from scrapy_cetd.evaluation.metadata import (
    MetadataGuess,
    MetadataScore,
    PredictMetadata,
    evaluate_metadata,
    format_metadata_table,
    metadata_predictor,
)
from scrapy_cetd.extractors.registry import get_extractor
from scrapy_cetd.page.finish import finish_html
from scrapy_cetd.page.parse import to_tree

DATASETS = ("wcxb", "wcxb_dev", "readability")
"""The shared datasets whose MANIFEST gives metadata gold."""


def _trafilatura() -> PredictMetadata:
    import trafilatura

    def run(page: Page) -> MetadataGuess:
        document = trafilatura.bare_extraction(
            decoded_text(page), url=page_url(page), with_metadata=True
        )
        if document is None or isinstance(document, dict):
            return MetadataGuess()
        author = document.author
        return MetadataGuess(
            document.title,
            tuple(author.split("; ")) if author else (),
            document.date,
            document.sitename,
        )

    return run


def _htmldate() -> PredictMetadata:
    from htmldate import find_date

    def run(page: Page) -> MetadataGuess:
        found = find_date(
            decoded_text(page), extensive_search=False, original_date=True, url=page_url(page)
        )
        return MetadataGuess(published=found)

    return run


def _newspaper() -> PredictMetadata:
    from newspaper import Article

    def run(page: Page) -> MetadataGuess:
        article = Article(page_url(page) or "https://example.invalid/", fetch_images=False)
        article.download(input_html=decoded_text(page))
        article.parse()
        date = article.publish_date
        site: Any = article.meta_site_name
        return MetadataGuess(
            article.title or None,
            tuple(article.authors),
            date.isoformat() if date is not None else None,
            site if isinstance(site, str) and site else None,
        )

    return run


PEERS: dict[str, Callable[[], PredictMetadata]] = {
    "trafilatura": _trafilatura,
    "htmldate (fast)": _htmldate,
    "newspaper4k": _newspaper,
}


def compare(names: Sequence[str]) -> tuple[list[MetadataScore], list[str]]:
    """The scores of scrapy-cetd and every installed peer on each named dataset, and a line
    per peer that could not be loaded."""
    systems: list[tuple[str, PredictMetadata]] = [("scrapy-cetd", metadata_predictor())]
    missing: list[str] = []
    for name, make in PEERS.items():
        try:
            systems.append((name, make()))
        except ImportError as error:
            missing.append(f"{name}: not installed ({error})")
    root = datasets_root()
    if root is None:
        raise SystemExit("no datasets: set CETD_DATASETS or put them in ../shared/datasets")
    scores = []
    for dataset_name in names:
        dataset = load_dataset(root / dataset_name)
        for system, predict in systems:
            scores.append(evaluate_metadata(dataset, predict, system=system))
    return scores, missing


VARIANTS: dict[str, dict[str, bool]] = {
    "text": {},
    "metadata": {"metadata": True},
    "markdown": {"markdown": True},
    "both": {"metadata": True, "markdown": True},
}
"""The calls of ``extract()`` timed on each page: the text alone, with metadata, with Markdown,
with both."""


@dataclass(frozen=True)
class Speed:
    """Milliseconds per page of each variant of ``extract()`` and of trafilatura's
    ``bare_extraction(with_metadata=True)`` (``None`` when trafilatura is not installed)."""

    dataset: str
    pages: int
    ms: dict[str, list[float]]

    def median(self, name: str) -> float:
        return statistics.median(self.ms[name])

    def added(self, name: str) -> float:
        """The median over pages of what ``name`` adds to the text alone."""
        pairs = zip(self.ms[name], self.ms["text"], strict=True)
        return statistics.median(b - a for b, a in pairs)

    def ratio(self, name: str = "both") -> float | None:
        """The median over pages of the call ``name`` (by default the whole call with metadata
        and Markdown) over trafilatura's with its metadata."""
        if "trafilatura" not in self.ms:
            return None
        pairs = zip(self.ms[name], self.ms["trafilatura"], strict=True)
        return statistics.median(ours / theirs for ours, theirs in pairs)


def speed(dataset_name: str, repeat: int, every: int = 1) -> Speed:
    """Time every ``every``-th page of the dataset with each variant (best of ``repeat``);
    each page is timed with every variant one after the other, so that a change of the
    machine's load weighs on all of them alike. The first page is read once before the
    clock starts (the libraries metadata needs are loaded then)."""
    root = datasets_root()
    assert root is not None
    pages = list(load_dataset(root / dataset_name).pages())[::every]
    calls: dict[str, Callable[[Page], object]] = {
        name: functools.partial(_ours, options=options) for name, options in VARIANTS.items()
    }
    try:
        import trafilatura

        def theirs(page: Page) -> object:
            return trafilatura.bare_extraction(
                decoded_text(page), url=page_url(page), with_metadata=True
            )

        calls["trafilatura"] = theirs
    except ImportError:
        pass
    calls["absolute links"] = _absolute_links
    for call in calls.values():
        call(pages[0])
    ms: dict[str, list[float]] = {name: [] for name in calls}
    for page in pages:
        for name, call in calls.items():
            best = float("inf")
            for _ in range(repeat):
                start = perf_counter()
                seconds = call(page)
                elapsed = perf_counter() - start
                best = min(best, seconds if isinstance(seconds, float) else elapsed)
            ms[name].append(best * 1000)
    return Speed(dataset_name, len(pages), ms)


def _absolute_links(page: Page) -> object:
    """What making the links absolute costs alone: :func:`finish_html` on the HTML the
    extractor gives (relative links), which ``extract()`` runs whenever it has a URL."""
    html = _RELATIVE.get(page.id)
    url = page_url(page)
    if html is None:
        tree = to_tree(page.html, url=url, encoding=page.encoding)
        html = _RELATIVE[page.id] = get_extractor("cetd-plus").extract(tree, url=url).html
    start = perf_counter()
    finish_html(html, base_url=url)
    return perf_counter() - start


_RELATIVE: dict[str, str] = {}


def _ours(page: Page, options: dict[str, bool]) -> object:
    return extract(
        page.html,
        url=page_url(page),
        encoding=page.encoding,
        metadata=options.get("metadata", False),
        markdown=options.get("markdown", False),
    )


def format_speed(result: Speed, repeat: int) -> str:
    lines = [
        f"extract() on {result.pages} {result.dataset} pages (best of {repeat}), median page:",
        f"- text alone {result.median('text'):.1f} ms; metadata adds "
        f"{result.added('metadata'):.1f} ms, Markdown {result.added('markdown'):.1f} ms, "
        f"both {result.added('both'):.1f} ms (median of the per-page differences); making "
        f"the links absolute (in every call with a URL) {result.median('absolute links'):.1f} ms",
    ]
    ratio = result.ratio()
    if ratio is None:
        lines.append("- trafilatura: not installed")
    else:
        lines.append(
            f"- with both: {result.median('both'):.1f} ms; trafilatura's bare_extraction with "
            f"metadata: {result.median('trafilatura'):.1f} ms; median per-page ratio "
            f"{ratio:.2f}x (goal: at most 0.3x); the text alone: {result.ratio('text'):.2f}x"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.metadata", description=__doc__)
    parser.add_argument("datasets", nargs="*", default=list(DATASETS))
    parser.add_argument(
        "--speed-dataset",
        action="append",
        help="dataset timed (repeatable; default: wcxb and readability)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="timings per page (best kept)")
    parser.add_argument("--every", type=int, default=1, help="time every N-th page (default 1)")
    parser.add_argument("--no-speed", action="store_true", help="skip the timing")
    parser.add_argument("--no-scores", action="store_true", help="skip the scores")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # the peers log every page they cannot date
    warnings.simplefilter("ignore")
    if not args.no_scores:
        scores, missing = compare(args.datasets)
        print(format_metadata_table(scores))
        for line in missing:
            print(f"- {line}")
    if not args.no_speed:
        for name in args.speed_dataset or ["wcxb", "readability"]:
            print("\n" + format_speed(speed(name, args.repeat, args.every), args.repeat))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Page metadata side by side: scrapy-cetd, trafilatura, htmldate alone and newspaper4k.

Scores each system's headline, authors, publication date and site name against the gold of
the datasets that give them (``wcxb``, ``wcxb_dev``, ``readability``), with the matches of
:mod:`scrapy_cetd.evaluation.metadata`, and prints a Markdown table; then the time metadata
adds to scrapy-cetd's extraction of the median page. Run from the repository's root::

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
import logging
import statistics
import sys
import warnings
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import Any

from benchmarks import datasets_root
from benchmarks.speed import decoded_text
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

DATASETS = ("wcxb", "wcxb_dev", "readability")
"""The shared datasets whose MANIFEST gives metadata gold."""


def _url(page: Page) -> str | None:
    url = page.meta.get("url")
    return url if isinstance(url, str) and url else None


def _trafilatura() -> PredictMetadata:
    import trafilatura

    def run(page: Page) -> MetadataGuess:
        document = trafilatura.bare_extraction(
            decoded_text(page), url=_url(page), with_metadata=True
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
            decoded_text(page), extensive_search=False, original_date=True, url=_url(page)
        )
        return MetadataGuess(published=found)

    return run


def _newspaper() -> PredictMetadata:
    from newspaper import Article

    def run(page: Page) -> MetadataGuess:
        article = Article(_url(page) or "https://example.invalid/", fetch_images=False)
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


def added_ms(dataset_name: str, repeat: int) -> tuple[float, float, float]:
    """Median milliseconds of cetd-plus's extraction per page without metadata, with it, and
    the median of the per-page difference; each page timed ``repeat`` times, best kept."""
    root = datasets_root()
    assert root is not None
    without: list[float] = []
    with_metadata: list[float] = []
    for page in load_dataset(root / dataset_name).pages():
        times = {}
        for flag in (False, True):
            best = float("inf")
            for _ in range(repeat):
                start = perf_counter()
                extract(page.html, url=_url(page), encoding=page.encoding, metadata=flag)
                best = min(best, perf_counter() - start)
            times[flag] = best * 1000
        without.append(times[False])
        with_metadata.append(times[True])
    differences = [b - a for a, b in zip(without, with_metadata, strict=True)]
    return (
        statistics.median(without),
        statistics.median(with_metadata),
        statistics.median(differences),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.metadata", description=__doc__)
    parser.add_argument("datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--speed-dataset", default="wcxb", help="dataset timed (default wcxb)")
    parser.add_argument("--repeat", type=int, default=3, help="timings per page (best kept)")
    parser.add_argument("--no-speed", action="store_true", help="skip the timing")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # the peers log every page they cannot date
    warnings.simplefilter("ignore")
    scores, missing = compare(args.datasets)
    print(format_metadata_table(scores))
    for line in missing:
        print(f"- {line}")
    if not args.no_speed:
        without, with_metadata, added = added_ms(args.speed_dataset, args.repeat)
        print(
            f"\ncetd-plus on {args.speed_dataset}, median page: {without:.1f} ms without "
            f"metadata, {with_metadata:.1f} ms with; median per-page cost of metadata "
            f"{added:.1f} ms (best of {args.repeat})"
        )
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``scrapy-cetd evaluate``: algorithms scored on datasets with gold text, or on their gold
metadata (``--metadata``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scrapy_cetd.cli.errors import CommandError
from scrapy_cetd.cli.options import add_algorithm_options, checked_extractor, parse_options
from scrapy_cetd.evaluation.datasets import Dataset, Page, find_datasets, load_dataset
from scrapy_cetd.evaluation.metadata import (
    evaluate_metadata,
    format_metadata_table,
    has_metadata_gold,
    metadata_predictor,
)
from scrapy_cetd.evaluation.scoring import DatasetScore, Predict, evaluate, format_table
from scrapy_cetd.limits import TreeExtractor
from scrapy_cetd.page.parse import to_tree


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the command and its arguments to ``commands`` (the top parser's subparsers)."""
    score = commands.add_parser("evaluate", help="score algorithms on datasets with gold text")
    score.add_argument(
        "datasets",
        nargs="+",
        metavar="DATASET_DIR",
        help="a dataset folder (with MANIFEST.json), or a folder of them",
    )
    add_algorithm_options(score, many=True)
    score.add_argument("--limit", type=int, help="score only the first N pages of each dataset")
    score.add_argument("--json", action="store_true", help="print JSON instead of a table")
    score.add_argument(
        "--metadata",
        action="store_true",
        help="score the page metadata (title, authors, date, site name) of the first algorithm"
        " on the datasets whose gold gives it, instead of the text",
    )
    score.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Score each named algorithm on each dataset and print the table, or the JSON records."""
    options = parse_options(args.option)
    names = [name.strip() for name in args.algorithm.split(",") if name.strip()]
    if args.metadata:
        return _evaluate_metadata(args, names, options)
    extractors = [(name, checked_extractor(name, options)) for name in names]
    scores: list[DatasetScore] = []
    datasets = _datasets(args.datasets)
    for dataset, ids in zip(datasets, _pages_read(datasets, args.limit), strict=True):
        for name, extractor in extractors:
            scores.append(evaluate(dataset, _predictor(extractor), system=name, ids=ids))
    if args.json:
        print(json.dumps([score.to_dict() for score in scores], indent=2, ensure_ascii=False))
    else:
        print(format_table(scores, means=True))
    return 0


def _evaluate_metadata(
    args: argparse.Namespace, names: Sequence[str], options: dict[str, Any]
) -> int:
    """``evaluate --metadata``: metadata scores of each named algorithm's extraction (the text
    it extracts is what the language is identified from) on the datasets with metadata gold."""
    for name in names:
        checked_extractor(name, options)  # an unknown algorithm or option fails before any page
    datasets = [dataset for dataset in _datasets(args.datasets) if has_metadata_gold(dataset)]
    if not datasets:
        raise CommandError("no dataset with metadata gold (author, publish_date, byline...)")
    scores = []
    for dataset, ids in zip(datasets, _pages_read(datasets, args.limit), strict=True):
        for name in names:
            predict = metadata_predictor(name, **options)
            scores.append(evaluate_metadata(dataset, predict, system=name, ids=ids))
    if args.json:
        print(json.dumps([score.to_dict() for score in scores], indent=2, ensure_ascii=False))
    else:
        print(format_metadata_table(scores, means=True))
    return 0


def _datasets(folders: Sequence[str]) -> list[Dataset]:
    """Each folder is a dataset, or holds datasets (``../shared/datasets``)."""
    found: list[Dataset] = []
    for folder in folders:
        if Path(folder).is_dir() and not (Path(folder) / "MANIFEST.json").exists():
            inside = find_datasets(folder)
            if inside:
                found.extend(inside)
                continue
        try:
            found.append(load_dataset(folder))
        except ValueError as error:
            raise CommandError(str(error)) from None
    for dataset in found:
        if not len(dataset):
            raise CommandError(f"{dataset.path}: its MANIFEST.json lists no page")
    return found


def _pages_read(datasets: Sequence[Dataset], limit: int | None) -> list[tuple[str, ...] | None]:
    """The IDs of the pages ``evaluate`` reads in each dataset (``None``: all), after checking
    that each has its files: a missing one is an error before any page is read, not midway."""
    chosen: list[tuple[str, ...] | None] = []
    for dataset in datasets:
        ids = dataset.page_ids[:limit] if limit else None
        missing = dataset.missing_files(ids)
        if missing:
            more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
            raise CommandError(f"{dataset.path}: no file {missing[0]}{more}")
        chosen.append(ids)
    return chosen


def _predictor(extractor: TreeExtractor) -> Predict:
    """Decode and parse as a crawl would, then extract with the page's URL, as a crawl does
    (the page-type classifier reads its path): the time measured covers all three."""

    def predict(page: Page) -> str:
        url = page.meta.get("url")
        url = url if isinstance(url, str) and url else None
        tree = to_tree(page.html, url=url, encoding=page.encoding)
        return extractor.extract(tree, url=url).text

    return predict

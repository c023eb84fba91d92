"""A fingerprint of every algorithm's output on every page of the shared datasets.

A change that must not change behaviour (a refactoring, a move of modules, a compiled twin of a
Python pass) is checked by running this before and after it and comparing the two files::

    python -m benchmarks.output_hashes > before.txt
    # ... the change ...
    python -m benchmarks.output_hashes > after.txt
    diff before.txt after.txt

Each page is parsed once, as a Scrapy crawl parses it (:func:`scrapy_cetd.page.parse.to_tree`), and
every registered algorithm (:data:`scrapy_cetd.ALGORITHMS`) extracts from that tree. One line
per page and algorithm: ``dataset page algorithm hash``, where the hash is the SHA-256 (first
16 hex digits) of the result's text, HTML, title and reason; an exception is written as its
type and message instead of a hash. The last line counts pages, results and exceptions.

Usage: ``python -m benchmarks.output_hashes [--datasets-root DIR] [--algorithms a,b]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import scrapy_cetd
from benchmarks import datasets_root
from scrapy_cetd.evaluation.datasets import find_datasets
from scrapy_cetd.extractors.registry import build_extractor
from scrapy_cetd.page.parse import to_tree
from scrapy_cetd.result import ExtractionResult


def result_hash(result: ExtractionResult) -> str:
    """The first 16 hex digits of the SHA-256 of the result's text, HTML, title and reason."""
    fields = [result.text, result.html, result.title, result.reason]
    digest = hashlib.sha256(json.dumps(fields, ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()[:16]


def main(argv: Sequence[str] | None = None) -> int:
    """Write the fingerprint lines to standard output; 2 when there are no datasets."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.output_hashes")
    parser.add_argument("--datasets-root", type=Path, default=datasets_root())
    parser.add_argument(
        "--algorithms",
        default=",".join(scrapy_cetd.ALGORITHMS),
        help="comma-separated algorithm names (default: every registered algorithm)",
    )
    args = parser.parse_args(argv)
    if args.datasets_root is None:
        parser.error("no datasets found: pass --datasets-root")
    extractors = {name: build_extractor(name) for name in args.algorithms.split(",") if name}
    pages = results = errors = 0
    for dataset in find_datasets(args.datasets_root):
        for page in dataset.pages():
            pages += 1
            try:
                tree = to_tree(page.html, url=page.meta.get("url"), encoding=page.encoding)
            except ValueError as error:
                print(dataset.name, page.id, "-", f"{type(error).__name__}: {error}")
                errors += 1
                continue
            for name, extractor in extractors.items():
                try:
                    line = result_hash(extractor.extract(tree, url=page.meta.get("url")))
                    results += 1
                except Exception as error:  # the fingerprint records failures too
                    line = f"{type(error).__name__}: {error}"
                    errors += 1
                print(dataset.name, page.id, name, line, flush=False)
    print(f"# {pages} pages, {results} results, {errors} exceptions")
    return 0


if __name__ == "__main__":
    sys.exit(main())

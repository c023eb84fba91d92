"""A datatrove pipeline with scrapy-cetd as its extractor: WARC files in, JSON Lines out.

:class:`~scrapy_cetd.corpus.datatrove_step.CetdWarcReader` (the pages ``scrapy-cetd corpus``
extracts, where datatrove's examples put its ``WarcReader``) ->
:class:`~scrapy_cetd.corpus.datatrove_step.CetdExtractor` (where they put its ``Trafilatura``
step) -> a language filter -> JSON Lines writer, on datatrove's local executor. Needs
``pip install -e '.[datatrove]'`` in scrapy-cetd's checkout.

Usage: ``python example_project/datatrove_pipeline.py WARC_FOLDER OUT_FOLDER [--languages en]
[--tasks 1] [--workers 1]``; the bundled crawl of the example site is in ``tests/data``.
Near-duplicates are datatrove's business: its MinHash steps
(``datatrove.pipeline.dedup.minhash``) take this pipeline's output as their input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from datatrove.executor import LocalPipelineExecutor  # type: ignore[import-untyped]
from datatrove.pipeline.writers import JsonlWriter  # type: ignore[import-untyped]

from scrapy_cetd.corpus.datatrove_step import CetdExtractor, CetdWarcReader, LanguageFilter


def pipeline(warcs: str, out: str, languages: Sequence[str] | None = ("en",)) -> list[Any]:
    """The steps: read ``*.warc.gz`` / ``*.warc`` under ``warcs``, extract, keep
    ``languages`` (``None``: any), write ``out/NNNNN.jsonl.gz``."""
    return [
        # In place of datatrove's WarcReader: the HTML responses by their HTTP Content-Type and
        # status, decoded by their HTTP and <meta> charsets, damaged records counted.
        CetdWarcReader(warcs, glob_pattern="*.warc*"),
        # In place of datatrove's Trafilatura(favour_precision=True); metadata=True adds the
        # page's title, authors and publication date to each document's metadata.
        CetdExtractor(metadata=True),
        LanguageFilter(languages=None if languages is None else list(languages)),
        JsonlWriter(out),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warcs", help="a folder of WARC files (or an fsspec URL)")
    parser.add_argument("out", help="the output folder (or an fsspec URL)")
    parser.add_argument("--languages", default="en", help="comma-separated; 'any' for all")
    parser.add_argument("--tasks", type=int, default=1, help="datatrove tasks (file shards)")
    parser.add_argument("--workers", type=int, default=1, help="tasks run at the same time")
    parser.add_argument("--logs", default=None, help="datatrove's logging folder")
    args = parser.parse_args(argv)
    languages = None if args.languages == "any" else args.languages.split(",")
    executor = LocalPipelineExecutor(
        pipeline=pipeline(args.warcs, args.out, languages),
        tasks=args.tasks,
        workers=args.workers,
        logging_dir=args.logs or str(Path(args.out) / "logs"),
    )
    executor.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())

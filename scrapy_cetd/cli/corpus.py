"""``scrapy-cetd corpus``: the main content of every HTML page in WARC files, as JSON Lines or
Parquet (:mod:`scrapy_cetd.corpus`, imported only when the command runs: it needs the
``corpus`` extra)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from scrapy_cetd.cli.errors import CommandError, UsageError
from scrapy_cetd.cli.files import check_new_entry, check_writable
from scrapy_cetd.cli.options import (
    add_algorithm_options,
    checked_options,
    limit,
    optional,
    parse_options,
)
from scrapy_cetd.limits import DEFAULT_MAX_NODES, DEFAULT_TIME_BUDGET
from scrapy_cetd.page.page_types import PAGE_TYPES

_CORPUS_EXTRA = "pip install -e '.[corpus]' in scrapy-cetd's checkout"
"""How to install the corpus extra (the package is not on PyPI yet)."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the command and its arguments to ``commands`` (the top parser's subparsers)."""
    corpus = commands.add_parser(
        "corpus",
        help="extract the main content of every HTML page in WARC files (JSON Lines or Parquet)",
    )
    corpus.add_argument(
        "inputs",
        nargs="+",
        metavar="WARC_OR_DIR",
        help="a WARC file (.warc, .warc.gz or .warc.zst), a folder searched for them, or a URL "
        "(https://, s3://... read through fsspec)",
    )
    corpus.add_argument(
        "--out",
        required=True,
        metavar="OUT",
        help="output file: .jsonl or .ndjson (JSON Lines) or .parquet; finished files are kept in "
        "OUT.parts/ until the run completes",
    )
    add_algorithm_options(corpus, many=False)
    corpus.add_argument("--html", action="store_true", help="also write the html column")
    corpus.add_argument("--markdown", action="store_true", help="also write the markdown column")
    corpus.add_argument(
        "--no-metadata",
        dest="metadata",
        action="store_false",
        help="leave authors and published empty (skips reading the page metadata, ~9 ms of CPU "
        "a page, about half a row's time)",
    )
    corpus.add_argument(
        "--dedup",
        choices=["exact"],
        help="drop rows whose normalised text an earlier row of the run has (content_hash)",
    )
    corpus.add_argument(
        "--languages",
        metavar="CODES",
        help="keep only rows in these languages, comma-separated ISO 639-1 codes (en,de)",
    )
    corpus.add_argument(
        "--min-language-score",
        type=float,
        metavar="P",
        help="keep only rows whose language_score is at least P (0 to 1)",
    )
    corpus.add_argument(
        "--min-words",
        type=int,
        metavar="N",
        help="keep only rows with at least N words (whitespace-separated)",
    )
    corpus.add_argument(
        "--page-types",
        metavar="TYPES",
        help="keep only rows of these page types, comma-separated "
        f"({', '.join(PAGE_TYPES)}); a row without a type is dropped (cetd-plus types pages)",
    )
    corpus.add_argument(
        "--min-page-type-confidence",
        type=float,
        metavar="P",
        help="keep only rows whose page_type_confidence is at least P (0 to 1)",
    )
    corpus.add_argument(
        "-j", "--jobs", type=int, help="worker processes (default: every core; 1 = no pool)"
    )
    corpus.add_argument(
        "--max-bytes",
        type=int,
        metavar="N",
        help="skip bodies over N bytes, as stored or decoded (default 10 MiB)",
    )
    corpus.add_argument(
        "--max-nodes",
        type=optional(int),
        metavar="N",
        help="empty row for pages of more than N elements, as extract() gives "
        "(default CETD_MAX_NODES's 200000; none = no limit)",
    )
    corpus.add_argument(
        "--time-budget",
        type=optional(float),
        metavar="SECONDS",
        help="empty row for pages whose extraction takes longer, as extract() gives "
        "(default CETD_TIME_BUDGET's 10; none = no limit)",
    )
    corpus.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar with pages/s on stderr (default: when stderr is a terminal)",
    )
    corpus.add_argument("--stats", metavar="FILE", help="also write the summary here as JSON")
    corpus.set_defaults(run=run)


_CORPUS_OPTIONS = (
    *("max_bytes", "max_nodes", "time_budget", "languages", "min_language_score", "min_words"),
    *("page_types", "min_page_type_confidence", "jobs"),
)
"""The corpus settings whose messages name them as the command's options."""


def _named_as_option(message: str) -> str:
    """A corpus setting's message with the setting named as the option that gives it, and
    its ``None`` as the option's ``none`` (``max_nodes must be … or None`` as ``--max-nodes
    must be … or none``)."""
    for name in _CORPUS_OPTIONS:
        if message.startswith(name):
            rest = message[len(name) :].replace(" or None,", " or none,")
            return "--" + name.replace("_", "-") + rest
    return message


def _check_out(name: str) -> None:
    """Raise :class:`UsageError` unless ``--out`` can be written: not a folder, and below a
    folder in which a folder can be made (the missing folders on the way are made, with
    ``OUT.parts/`` beside the file)."""
    path = Path(os.path.realpath(name))
    if path.is_dir():
        raise UsageError(f"--out {name}: is a folder")
    check_new_entry(name, "--out", path)


def _write_stats(name: str, summary: Any) -> None:
    """Write the run's ``summary`` as JSON at ``name``, making the missing folders on its way
    (as ``--out`` has them made; where a symbolic link leads, if ``name`` is one)."""
    try:
        if not os.path.exists(name):
            Path(os.path.realpath(name)).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(json.dumps(summary.to_dict(), indent=1) + "\n")
    except OSError as error:
        raise CommandError(f"cannot write {name}: {error.strerror or error}") from None


def run(args: argparse.Namespace) -> int:
    """Check the command line and the paths, run the corpus, then print its summary. A
    Ctrl-C that stops the run before its summary (one that comes before the run has begun,
    or a second one) prints how to resume and gives status 130, as an interrupted run does."""
    try:
        return _run(args)
    except KeyboardInterrupt:
        print(f"interrupted; run the same command again to resume from {args.out}.parts/")
        return 130


def _run(args: argparse.Namespace) -> int:
    """What :func:`run` does, Ctrl-C aside."""
    try:
        from scrapy_cetd import corpus  # noqa: PLC0415 - needs the optional corpus extra
    except ImportError as error:
        if (error.name or "").startswith("scrapy_cetd"):
            raise  # a fault of scrapy-cetd's own, not a missing extra
        hint = "" if "pip install" in str(error) else f": {_CORPUS_EXTRA}"
        raise CommandError(f"{error}{hint}") from None
    options = checked_options(args.algorithm, parse_options(args.option))
    languages = tuple(code for code in (args.languages or "").split(",") if code.strip())
    if args.languages is not None and not languages:
        raise UsageError(f"--languages names no language: {args.languages!r}")
    page_types = tuple(kind for kind in (args.page_types or "").split(",") if kind.strip())
    if args.page_types is not None and not page_types:
        raise UsageError(f"--page-types names no page type: {args.page_types!r}")
    if args.stats:
        check_writable(args.stats, "--stats")
    try:
        corpus.output_format(args.out)
    except ValueError as error:
        raise UsageError(f"--out {error}") from None
    _check_out(args.out)
    try:  # a value that does not fit is the command line's mistake, as for argparse
        settings = corpus.CorpusSettings(
            algorithm=args.algorithm,
            options=options,
            html=args.html,
            markdown=args.markdown,
            metadata=args.metadata,
            max_bytes=corpus.DEFAULT_MAX_BYTES if args.max_bytes is None else args.max_bytes,
            max_nodes=limit(args.max_nodes, DEFAULT_MAX_NODES),
            time_budget=limit(args.time_budget, DEFAULT_TIME_BUDGET),
            languages=languages,
            min_language_score=args.min_language_score,
            min_words=args.min_words,
            page_types=page_types,
            min_page_type_confidence=args.min_page_type_confidence,
        )
        corpus.checked_jobs(args.jobs)
    except ValueError as error:
        raise UsageError(_named_as_option(str(error))) from None
    try:
        summary = corpus.run_corpus(
            args.inputs,
            args.out,
            settings,
            dedup=args.dedup,
            jobs=args.jobs,
            progress=args.progress,
            echo=True,
        )
    except (ValueError, OSError) as error:
        raise CommandError(str(error)) from None
    print(summary.format())
    if args.stats:
        _write_stats(args.stats, summary)
    if summary.interrupted:
        print(
            f"interrupted: {len(summary.files)} of {summary.inputs} input(s) done are kept in "
            f"{summary.parts}/; run the same command again to resume"
        )
        return 130
    if summary.failed:
        done = len(summary.files) - len(summary.failed)
        raise CommandError(
            f"{len(summary.failed)} input(s) failed ({done} done, kept in {summary.parts}/): "
            "run the same command again to retry them, or leave them out to finish without them"
        )
    if summary.pages == 0:
        raise CommandError(f"nothing extracted: no HTML page in {len(summary.files)} input(s)")
    return 0

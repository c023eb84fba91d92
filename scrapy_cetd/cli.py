"""The ``scrapy-cetd`` command: extract main content from files, score algorithms on datasets,
prune record pages (TPS), extract a corpus from WARC archives."""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import lxml.html

from scrapy_cetd import __version__
from scrapy_cetd.api import extract
from scrapy_cetd.evaluation.datasets import Dataset, Page, find_datasets, load_dataset
from scrapy_cetd.evaluation.metadata import (
    evaluate_metadata,
    format_metadata_table,
    has_metadata_gold,
    metadata_predictor,
)
from scrapy_cetd.evaluation.scoring import DatasetScore, Predict, evaluate, format_table
from scrapy_cetd.extractors.registry import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    build_extractor,
    coerce_options,
)
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES, markup_problem
from scrapy_cetd.limits import DEFAULT_MAX_NODES, DEFAULT_TIME_BUDGET, TreeExtractor
from scrapy_cetd.page.output import URL_GROWTH, URL_GROWTH_FLOOR, absolute_links, document_base
from scrapy_cetd.page.page_types import PAGE_TYPES
from scrapy_cetd.page.parse import html_response, to_tree
from scrapy_cetd.result import ExtractionResult
from scrapy_cetd.tps import (
    DEFAULT_MIN_SIZE_GAP,
    MAIN_LANDMARK_SHARE,
    MIN_SIZE_GAP,
    TpsOptions,
    prune_tag_paths_region,
)

PROG = "scrapy-cetd"


class CommandError(Exception):
    """A failure to report as one line on stderr, with exit status 1."""


class UsageError(CommandError):
    """A command line that cannot run (an unknown algorithm, an option of the wrong type):
    reported as one line on stderr, with exit status 2 as argparse gives."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except CommandError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2 if isinstance(error, UsageError) else 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``scrapy-cetd extract page.html | head``): nothing more can be
        # written, and Python's flush of stdout at exit must not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=(__doc__ or "").replace("``", ""))
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    pages = commands.add_parser("extract", help="print the main content of HTML files")
    pages.add_argument("files", nargs="+", metavar="FILE", help="HTML file (.gz too); - = stdin")
    _add_algorithm_options(pages, many=False)
    pages.add_argument(
        "--format",
        choices=("text", "html", "markdown", "json"),
        default="text",
        help="output (text); markdown: CommonMark with GitHub tables, links made absolute "
        "against --url",
    )
    pages.add_argument(
        "--metadata",
        action="store_true",
        help="with --format json: also the page's metadata (headline, authors, dates, "
        "language, site...), and the title is its headline",
    )
    pages.add_argument("--encoding", help="charset to assume, as an HTTP header would declare")
    pages.add_argument(
        "--url",
        help="the URL the files came from (nothing is fetched): the page is parsed as the "
        "response of that URL and the URL is handed to the extractor, as in a crawl",
    )
    pages.set_defaults(run=_run_extract)

    score = commands.add_parser("evaluate", help="score algorithms on datasets with gold text")
    score.add_argument(
        "datasets",
        nargs="+",
        metavar="DATASET_DIR",
        help="a dataset folder (with MANIFEST.json), or a folder of them",
    )
    _add_algorithm_options(score, many=True)
    score.add_argument("--limit", type=int, help="score only the first N pages of each dataset")
    score.add_argument("--json", action="store_true", help="print JSON instead of a table")
    score.add_argument(
        "--metadata",
        action="store_true",
        help="score the page metadata (title, authors, date, site name) of the first algorithm"
        " on the datasets whose gold gives it, instead of the text",
    )
    score.set_defaults(run=_run_evaluate)

    prune = commands.add_parser(
        "prune", help="prune a record (list) page to its main region by tag path sequences (TPS)"
    )
    prune.add_argument("file", metavar="FILE", help="HTML file (.gz too); - = stdin")
    prune.add_argument(
        "-o", "--output", metavar="OUT", help="write the pruned HTML here (default: stdout)"
    )
    prune.add_argument(
        "--paper",
        action="store_true",
        help="start from the paper's literal algorithm (TpsOptions.paper()) instead of the "
        "defaults measured on real list pages; the options below change either",
    )
    prune.add_argument(
        "--min-size-gap",
        type=float,
        help=f"minimum size gap of a split (default {DEFAULT_MIN_SIZE_GAP}, paper {MIN_SIZE_GAP})",
    )
    prune.add_argument(
        "--invert",
        action=argparse.BooleanOptionalAction,
        help="keep everything but the region (Algorithm 6)",
    )
    prune.add_argument(
        "--size", choices=("nodes", "text"), help="how parts are weighed (default nodes)"
    )
    prune.add_argument(
        "--keep-main-content",
        action=argparse.BooleanOptionalAction,
        help="keep what cetd-plus selects as the main content beside the region (beyond the "
        "paper; on by default)",
    )
    prune.add_argument(
        "--guard-main-content",
        action=argparse.BooleanOptionalAction,
        help="refuse a split that cuts off cetd-plus's main content (beyond the paper; off by "
        "default)",
    )
    prune.add_argument(
        "--complete-records",
        action=argparse.BooleanOptionalAction,
        help="keep whole the records that hold main content (beyond the paper; on by default)",
    )
    prune.add_argument(
        "--keep-heading",
        action=argparse.BooleanOptionalAction,
        help="keep the page's first <h1> (beyond the paper; on by default)",
    )
    prune.add_argument(
        "--main-landmark-share",
        type=_optional(float),
        metavar="SHARE",
        help=f"keep only the page's <main> when it holds this share of the text (beyond the "
        f"paper; default {MAIN_LANDMARK_SHARE}; none = off)",
    )
    prune.add_argument(
        "--remove-furniture",
        action=argparse.BooleanOptionalAction,
        help="also remove nav, aside, footer... from what is kept (beyond the paper; on by "
        "default)",
    )
    prune.add_argument(
        "--remove-widgets",
        action=argparse.BooleanOptionalAction,
        help="also remove SVG graphics and form controls that hold no text (beyond the paper; "
        "on by default)",
    )
    prune.add_argument(
        "--remove-buttons",
        action=argparse.BooleanOptionalAction,
        help="also remove buttons with their text, but accordion headers (beyond the paper; on "
        "by default)",
    )
    prune.add_argument(
        "--keep-positions",
        action=argparse.BooleanOptionalAction,
        help="empty, not remove, elements before a kept sibling of their tag (positional XPaths)",
    )
    prune.add_argument(
        "--max-nodes",
        type=_optional(int),
        metavar="N",
        help=f"leave a page of more than N elements unpruned and exit 1 "
        f"(default {DEFAULT_MAX_NODES}; none = no limit)",
    )
    prune.add_argument(
        "--time-budget",
        type=_optional(float),
        metavar="SECONDS",
        help="leave a page that takes longer unpruned and exit 1 (default: none = no limit)",
    )
    prune.add_argument(
        "--max-attributes",
        type=_optional(int),
        metavar="N",
        help=f"refuse a page with a tag of more than N attributes before parsing it, exit 1 "
        f"(default {DEFAULT_MAX_ATTRIBUTES}; none = no limit)",
    )
    prune.add_argument("--encoding", help="charset to assume, as an HTTP header would declare")
    prune.add_argument(
        "--url",
        help="the URL the file came from (nothing is fetched): the page is parsed as the "
        "response of that URL, as in a crawl",
    )
    prune.set_defaults(run=_run_prune)

    corpus = commands.add_parser(
        "corpus",
        help="extract the main content of every HTML page in WARC files (JSON Lines or Parquet)",
    )
    corpus.add_argument(
        "inputs",
        nargs="+",
        metavar="WARC_OR_DIR",
        help="a WARC file (.warc or .warc.gz), a folder searched for them, or a URL "
        "(https://, s3://... read through fsspec)",
    )
    corpus.add_argument(
        "--out",
        required=True,
        metavar="OUT",
        help="output file: .jsonl or .ndjson (JSON Lines) or .parquet; finished files are kept in "
        "OUT.parts/ until the run completes",
    )
    _add_algorithm_options(corpus, many=False)
    corpus.add_argument("--html", action="store_true", help="also write the html column")
    corpus.add_argument("--markdown", action="store_true", help="also write the markdown column")
    corpus.add_argument(
        "--no-metadata",
        dest="metadata",
        action="store_false",
        help="leave authors and published empty (skips reading the page metadata, ~4 ms a page)",
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
        f"({', '.join(PAGE_TYPES)}); a row without a type is dropped",
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
        type=_optional(int),
        metavar="N",
        help="empty row for pages of more than N elements, as extract() gives "
        "(default CETD_MAX_NODES's 200000; none = no limit)",
    )
    corpus.add_argument(
        "--time-budget",
        type=_optional(float),
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
    corpus.set_defaults(run=_run_corpus)
    return parser


_NO_LIMIT = object()
"""What ``--max-nodes none`` and ``--time-budget none`` parse to."""


def _optional(kind: type[int] | type[float]) -> Any:
    """An argparse type: a number of ``kind``, or ``none`` for no limit."""

    def parse(value: str) -> object:
        if value.strip().lower() == "none":
            return _NO_LIMIT
        return kind(value)

    parse.__name__ = kind.__name__  # argparse names the type in its error message
    return parse


def _limit(value: Any, default: Any) -> Any:
    """An option's value for a limit: ``default`` when not given, ``None`` for ``none``."""
    if value is None:
        return default
    return None if value is _NO_LIMIT else value


def _add_algorithm_options(parser: argparse.ArgumentParser, *, many: bool) -> None:
    names = ", ".join(sorted(ALGORITHMS))
    parser.add_argument(
        "-a",
        "--algorithm",
        default=DEFAULT_ALGORITHM,
        help=f"{'comma-separated algorithms' if many else 'algorithm'}: {names}, or the import "
        f"path of an extractor class (default {DEFAULT_ALGORITHM})",
    )
    parser.add_argument(
        "-O",
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extractor option, converted to the type the option declares (a bool: "
        "true/false, yes/no, on/off, 1/0; a number; none); a JSON list or object is parsed",
    )


def _options(pairs: Sequence[str]) -> dict[str, Any]:
    """``-O NAME=VALUE`` pairs as options: a value stays text, which the registry converts to
    the option's declared type (``False`` and ``no`` are false), unless it is a JSON list or
    object."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"option {pair!r} is not NAME=VALUE")
        options[name] = raw
        if raw.lstrip()[:1] in ("[", "{"):
            with contextlib.suppress(json.JSONDecodeError):
                options[name] = json.loads(raw)
    return options


def _extractor(name: str, options: dict[str, Any]) -> TreeExtractor:
    try:
        return build_extractor(name, options)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _checked_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` converted to the types algorithm ``name`` declares (``"0.90"`` is ``0.9``),
    so what is passed on, and what the corpus records of a run, is the value the extractor
    gets. An unknown algorithm or a bad option is a :class:`UsageError`, before any file."""
    return coerce_options(type(_extractor(name, options)), options)


def _read(name: str) -> bytes:
    if "://" in name and not Path(name).exists():
        raise CommandError(
            f"cannot read {name}: URLs are not fetched; save the page to a file and give the "
            "file, with --url URL if the URL matters"
        )
    try:
        data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read {name}: {error.strerror or error}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise CommandError(f"cannot read {name}: bad gzip data ({error})") from None
    return data


def _run_extract(args: argparse.Namespace) -> int:
    """Each file in turn; a file that cannot be read or is not a page is reported on stderr
    and the others still go out, with exit status 1 at the end."""
    options = _checked_options(args.algorithm, _options(args.option))
    if args.metadata and args.format != "json":
        raise UsageError(f"--metadata is printed in --format json only, not {args.format}")
    status = 0
    printed = 0
    for name in args.files:
        try:
            result = _extract_file(name, args, options)
        except CommandError as error:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            status = 1
            continue
        for note in result.notes:
            print(f"{PROG}: {name}: {note}", file=sys.stderr)
        _print_result(name, result, args.format, header=len(args.files) > 1, first=printed == 0)
        printed += 1
    return status


def _extract_file(name: str, args: argparse.Namespace, options: dict[str, Any]) -> ExtractionResult:
    data = _read(name)
    try:
        return extract(
            data,
            algorithm=args.algorithm,
            url=args.url,
            encoding=args.encoding,
            markdown=args.format == "markdown",
            metadata=args.metadata,
            **options,
        )
    except ValueError as error:
        hint = "; scrapy-cetd corpus reads WARC archives" if "a WARC archive" in str(error) else ""
        raise CommandError(f"{name}: {error}{hint}") from None


def _print_result(
    name: str, result: ExtractionResult, fmt: str, *, header: bool, first: bool
) -> None:
    if fmt == "json":
        record: dict[str, Any] = {
            "file": name,
            "algorithm": result.algorithm,
            "reason": result.reason,
            "reason_code": None if result.reason_code is None else result.reason_code.value,
            "title": result.title,
            "page_type": result.page_type,
            "page_type_confidence": result.page_type_confidence,
            "text": result.text,
            "html": result.html,
            "notes": list(result.notes),
        }
        if result.metadata is not None:
            record["metadata"] = asdict(result.metadata)
        print(json.dumps(record, ensure_ascii=False))
        return
    if header:
        print(f"{'' if first else chr(10)}==> {name} <==")
    if result.reason is not None:
        print(f"{PROG}: {name}: nothing extracted: {result.reason}", file=sys.stderr)
        return
    print({"text": result.text, "markdown": result.markdown}.get(fmt, result.html))


def _run_evaluate(args: argparse.Namespace) -> int:
    options = _options(args.option)
    names = [name.strip() for name in args.algorithm.split(",") if name.strip()]
    if args.metadata:
        return _evaluate_metadata(args, names, options)
    extractors = [(name, _extractor(name, options)) for name in names]
    scores: list[DatasetScore] = []
    datasets = _datasets(args.datasets)
    for dataset, ids in zip(datasets, _pages_read(datasets, args.limit), strict=True):
        for name, extractor in extractors:
            scores.append(evaluate(dataset, _predictor(extractor), system=name, ids=ids))
    if args.json:
        print(json.dumps([score.to_dict() for score in scores], indent=2, ensure_ascii=False))
    else:
        print(format_table(scores))
    return 0


def _evaluate_metadata(
    args: argparse.Namespace, names: Sequence[str], options: dict[str, Any]
) -> int:
    """``evaluate --metadata``: metadata scores of each named algorithm's extraction (the text
    it extracts is what the language is identified from) on the datasets with metadata gold."""
    for name in names:
        _extractor(name, options)  # an unknown algorithm or option fails before any page
    datasets = [dataset for dataset in _datasets(args.datasets) if has_metadata_gold(dataset)]
    if not datasets:
        raise CommandError("no dataset with metadata gold (author, publish_date, byline...)")
    scores = []
    for dataset, ids in zip(datasets, _pages_read(datasets, args.limit), strict=True):
        for name in names:
            predict = metadata_predictor(name, **options)
            scores.append(evaluate_metadata(dataset, predict, system=name, ids=ids))
    if args.json:
        print(json.dumps([asdict(score) for score in scores], indent=2, ensure_ascii=False))
    else:
        print(format_metadata_table(scores))
    return 0


def _tps_options(args: argparse.Namespace) -> TpsOptions:
    """The :class:`TpsOptions` of ``prune``'s command line: the defaults (or the paper's, with
    ``--paper``), changed by the options given. Raises :class:`ValueError` for a bad value."""
    given = {
        name: getattr(args, name)
        for name in (
            "min_size_gap",
            "invert",
            "size",
            "keep_main_content",
            "guard_main_content",
            "complete_records",
            "keep_heading",
            "remove_furniture",
            "remove_widgets",
            "remove_buttons",
            "keep_positions",
        )
        if getattr(args, name) is not None
    }
    for name in ("main_landmark_share", "max_nodes", "time_budget", "max_attributes"):
        value = getattr(args, name)
        if value is not None:
            given[name] = None if value is _NO_LIMIT else value
    return TpsOptions.paper(**given) if args.paper else TpsOptions().replace(**given)


def _run_prune(args: argparse.Namespace) -> int:
    try:
        options = _tps_options(args)
    except ValueError as error:
        raise UsageError(str(error)) from None
    data = _read(args.file)
    try:
        response = html_response(data, url=args.url, encoding=args.encoding)
        refused = markup_problem(response.text, max_attributes=options.max_attributes)
        if refused is not None:  # libxml2 would take minutes to parse it, uninterruptibly
            raise CommandError(f"{args.file}: not pruned: {refused}")
        tree = to_tree(data, url=args.url, encoding=args.encoding)
        pruned, region = prune_tag_paths_region(tree, options)
    except ValueError as error:
        raise CommandError(f"{args.file}: {error}") from None
    if region.reason is not None:
        raise CommandError(f"{args.file}: not pruned: {region.reason}")
    before, after = region.node_count, region.kept_count
    base = document_base(tree, args.url) if args.url else None
    left = 0
    if base:
        _, left = absolute_links(pruned, base, growth=URL_GROWTH * len(data) + URL_GROWTH_FLOOR)
    _declare_utf8(pruned)
    html = lxml.html.tostring(pruned, encoding="unicode", doctype="<!DOCTYPE html>")
    removed = 100 * (1 - after / before) if before else 0.0
    summary = (
        f"{args.file}: {before} of the body's elements before, {after} after "
        f"({removed:.1f}% removed); "
        f"region {region.start}-{region.end}{' inverted' if region.invert else ''}, "
        f"{len(region.splits)} splits"
    )
    if left:
        grown = "the page would grow too much"
        print(f"{args.file}: {left} links kept relative ({grown})", file=sys.stderr)
    if args.output is None:
        print(html)
        print(summary, file=sys.stderr)
        return 0
    try:
        Path(args.output).write_text(html + "\n", encoding="utf-8")
    except OSError as error:
        raise CommandError(f"cannot write {args.output}: {error.strerror or error}") from None
    print(summary)
    return 0


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


def _check_writable(name: str, option: str) -> None:
    """Raise :class:`UsageError` unless a file can be written at ``name``: an existing file (or
    a device such as ``/dev/stdout``) that may be written, or a new file whose missing folders
    can be made (see :func:`_check_new_entry`). Checked before a run, whose hours of work must
    not end on a path that was wrong from the start."""
    if os.path.isdir(name):
        raise UsageError(f"{option} {name}: is a folder")
    if not os.path.exists(name):  # a new file where the name, or the link it is, leads
        _check_new_entry(name, option, Path(os.path.realpath(name)))
    elif not os.access(name, os.W_OK):
        raise UsageError(f"{option} {name}: cannot be written")


def _check_new_entry(name: str, option: str, path: Path) -> None:
    """Raise :class:`UsageError` unless ``path`` (``name`` as given) can be made with the
    missing folders on its way: its nearest existing ancestor is a folder in which a folder
    can be made."""
    ancestor = path.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise UsageError(f"{option} {name}: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK):
        raise UsageError(f"{option} {name}: cannot be written")
    if why := _cannot_create_in(ancestor):
        raise UsageError(f"{option} {name}: cannot be written ({ancestor}: {why})")


def _cannot_create_in(folder: Path) -> str | None:
    """Why nothing can be made in ``folder``, or ``None`` when a folder made there (and removed
    at once) says it can: the permissions alone do not tell, as a file system such as
    ``/proc`` refuses new entries whatever they say, and root passes every check of them."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".scrapy-cetd-", dir=folder))
    except OSError as error:
        return error.strerror or str(error)
    return None


def _check_out(name: str) -> None:
    """Raise :class:`UsageError` unless ``--out`` can be written: not a folder, and below a
    folder in which a folder can be made (the missing folders on the way are made, with
    ``OUT.parts/`` beside the file)."""
    path = Path(os.path.realpath(name))
    if path.is_dir():
        raise UsageError(f"--out {name}: is a folder")
    _check_new_entry(name, "--out", path)


def _write_stats(name: str, summary: Any) -> None:
    """Write the run's ``summary`` as JSON at ``name``, making the missing folders on its way
    (as ``--out`` has them made; where a symbolic link leads, if ``name`` is one)."""
    try:
        if not os.path.exists(name):
            Path(os.path.realpath(name)).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(json.dumps(summary.to_dict(), indent=1) + "\n")
    except OSError as error:
        raise CommandError(f"cannot write {name}: {error.strerror or error}") from None


def _run_corpus(args: argparse.Namespace) -> int:
    try:
        from scrapy_cetd import corpus  # noqa: PLC0415 - needs the optional corpus extra
    except ImportError as error:
        if (error.name or "").startswith("scrapy_cetd"):
            raise  # a fault of scrapy-cetd's own, not a missing extra
        hint = "" if "pip install" in str(error) else ": pip install 'scrapy-cetd[corpus]'"
        raise CommandError(f"{error}{hint}") from None
    options = _checked_options(args.algorithm, _options(args.option))
    languages = tuple(code for code in (args.languages or "").split(",") if code.strip())
    if args.languages is not None and not languages:
        raise UsageError(f"--languages names no language: {args.languages!r}")
    page_types = tuple(kind for kind in (args.page_types or "").split(",") if kind.strip())
    if args.page_types is not None and not page_types:
        raise UsageError(f"--page-types names no page type: {args.page_types!r}")
    if args.stats:
        _check_writable(args.stats, "--stats")
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
            max_nodes=_limit(args.max_nodes, DEFAULT_MAX_NODES),
            time_budget=_limit(args.time_budget, DEFAULT_TIME_BUDGET),
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
    except KeyboardInterrupt:  # a second Ctrl-C: stop at once
        print(f"interrupted; run the same command again to resume from {args.out}.parts/")
        return 130
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


def _declare_utf8(root: Any) -> None:
    """Make the copy's ``<meta>`` charset say UTF-8, the encoding the output is written in."""
    for meta in root.iter("meta"):
        if meta.get("charset") is not None:
            meta.set("charset", "utf-8")
        elif (meta.get("http-equiv") or "").lower() == "content-type":
            meta.set("content", "text/html; charset=utf-8")


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


if __name__ == "__main__":
    sys.exit(main())

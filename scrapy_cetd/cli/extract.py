"""``scrapy-cetd extract``: the main content of HTML files, as text, HTML, Markdown or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from scrapy_cetd.api import extract
from scrapy_cetd.cli.errors import PROG, CommandError, UsageError
from scrapy_cetd.cli.files import read
from scrapy_cetd.cli.options import add_algorithm_options, checked_options, parse_options
from scrapy_cetd.result import ExtractionResult


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the command and its arguments to ``commands`` (the top parser's subparsers)."""
    pages = commands.add_parser("extract", help="print the main content of HTML files")
    pages.add_argument("files", nargs="+", metavar="FILE", help="HTML file (.gz too); - = stdin")
    add_algorithm_options(pages, many=False)
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
    pages.add_argument(
        "--markdown",
        action="store_true",
        help="with --format json: also the main content as Markdown, as --format markdown "
        "prints it (one call for the text, the HTML and the Markdown)",
    )
    pages.add_argument("--encoding", help="charset to assume, as an HTTP header would declare")
    pages.add_argument(
        "--url",
        help="the URL the files came from (nothing is fetched): the page is parsed as the "
        "response of that URL and the URL is handed to the extractor, as in a crawl",
    )
    pages.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Each file in turn; a file that cannot be read or is not a page is reported on stderr
    and the others still go out, with exit status 1 at the end."""
    options = checked_options(args.algorithm, parse_options(args.option))
    if args.metadata and args.format != "json":
        raise UsageError(f"--metadata is printed in --format json only, not {args.format}")
    if args.markdown and args.format != "json":
        raise UsageError(
            f"--markdown is printed in --format json only, not {args.format} "
            "(--format markdown prints the Markdown alone)"
        )
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
        _print_result(
            name,
            result,
            args.format,
            markdown=args.markdown,
            metadata=args.metadata,
            header=len(args.files) > 1,
            first=printed == 0,
        )
        printed += 1
    return status


def _extract_file(name: str, args: argparse.Namespace, options: dict[str, Any]) -> ExtractionResult:
    data = read(name)
    try:
        return extract(
            data,
            algorithm=args.algorithm,
            url=args.url,
            encoding=args.encoding,
            markdown=args.markdown or args.format == "markdown",
            metadata=args.metadata,
            **options,
        )
    except ValueError as error:
        hint = "; scrapy-cetd corpus reads WARC archives" if "a WARC archive" in str(error) else ""
        raise CommandError(f"{name}: {error}{hint}") from None


def _print_result(
    name: str,
    result: ExtractionResult,
    fmt: str,
    *,
    markdown: bool,
    metadata: bool,
    header: bool,
    first: bool,
) -> None:
    """Print ``result`` in format ``fmt``: one JSON object (with the Markdown when
    ``markdown``, the metadata when ``metadata``: each ``null`` when the time budget gave it
    up), or the text, HTML or Markdown after a ``==> FILE <==`` line when there are several
    files (``header``)."""
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
        if markdown:  # None when it was given up for the time budget, as a note says
            record["markdown"] = result.markdown
        if metadata:
            record["metadata"] = None if result.metadata is None else asdict(result.metadata)
        print(json.dumps(record, ensure_ascii=False))
        return
    if header:
        print(f"{'' if first else chr(10)}==> {name} <==")
    if result.reason is not None:
        print(f"{PROG}: {name}: nothing extracted: {result.reason}", file=sys.stderr)
        return
    print({"text": result.text, "markdown": result.markdown}.get(fmt, result.html))

"""``scrapy-cetd prune``: a record (list) page pruned to its main region by tag path sequences
(TPS), with the options of :class:`~scrapy_cetd.tps.TpsOptions`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import lxml.html

from scrapy_cetd.cli.errors import CommandError, UsageError
from scrapy_cetd.cli.files import read
from scrapy_cetd.cli.options import NO_LIMIT, optional
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES, markup_problem
from scrapy_cetd.limits import DEFAULT_MAX_NODES
from scrapy_cetd.page.decoding import html_response
from scrapy_cetd.page.finish import URL_GROWTH, URL_GROWTH_FLOOR, absolute_links, document_base
from scrapy_cetd.page.parse import to_tree
from scrapy_cetd.tps import (
    DEFAULT_MIN_SIZE_GAP,
    MAIN_LANDMARK_SHARE,
    MIN_SIZE_GAP,
    TpsOptions,
    prune_tag_paths_region,
)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the command and its arguments to ``commands`` (the top parser's subparsers)."""
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
        type=optional(float),
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
        type=optional(int),
        metavar="N",
        help=f"leave a page of more than N elements unpruned and exit 1 "
        f"(default {DEFAULT_MAX_NODES}; none = no limit)",
    )
    prune.add_argument(
        "--time-budget",
        type=optional(float),
        metavar="SECONDS",
        help="leave a page that takes longer unpruned and exit 1 (default: none = no limit)",
    )
    prune.add_argument(
        "--max-attributes",
        type=optional(int),
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
    prune.set_defaults(run=run)


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
            given[name] = None if value is NO_LIMIT else value
    return TpsOptions.paper(**given) if args.paper else TpsOptions().replace(**given)


def run(args: argparse.Namespace) -> int:
    """Prune the page and write it; its node counts go to stderr, or to stdout with ``-o``."""
    try:
        options = _tps_options(args)
    except ValueError as error:
        raise UsageError(str(error)) from None
    data = read(args.file)
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


def _declare_utf8(root: Any) -> None:
    """Make the copy's ``<meta>`` charset say UTF-8, the encoding the output is written in."""
    for meta in root.iter("meta"):
        if meta.get("charset") is not None:
            meta.set("charset", "utf-8")
        elif (meta.get("http-equiv") or "").lower() == "content-type":
            meta.set("content", "text/html; charset=utf-8")

"""The options more than one command takes: the algorithm and its options (``-a``, ``-O``),
and the limits that ``none`` turns off."""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Sequence
from typing import Any

from scrapy_cetd.cli.errors import UsageError
from scrapy_cetd.extractors.registry import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    build_extractor,
    coerce_options,
)
from scrapy_cetd.limits import TreeExtractor

NO_LIMIT = object()
"""What ``--max-nodes none`` and ``--time-budget none`` parse to."""


def optional(kind: type[int] | type[float]) -> Any:
    """An argparse type: a number of ``kind``, or ``none`` for no limit."""

    def parse(value: str) -> object:
        if value.strip().lower() == "none":
            return NO_LIMIT
        return kind(value)

    parse.__name__ = kind.__name__  # argparse names the type in its error message
    return parse


def limit(value: Any, default: Any) -> Any:
    """An option's value for a limit: ``default`` when not given, ``None`` for ``none``."""
    if value is None:
        return default
    return None if value is NO_LIMIT else value


def add_algorithm_options(parser: argparse.ArgumentParser, *, many: bool) -> None:
    """Add ``-a`` (one algorithm, or a comma-separated list when ``many``) and ``-O``."""
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


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
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


def checked_extractor(name: str, options: dict[str, Any]) -> TreeExtractor:
    """The extractor of algorithm ``name`` with ``options``; an unknown algorithm or a bad
    option is a :class:`UsageError`."""
    try:
        return build_extractor(name, options)
    except ValueError as error:
        raise UsageError(str(error)) from None


def checked_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` converted to the types algorithm ``name`` declares (``"0.90"`` is ``0.9``),
    so what is passed on, and what the corpus records of a run, is the value the extractor
    gets. An unknown algorithm or a bad option is a :class:`UsageError`, before any file."""
    return coerce_options(type(checked_extractor(name, options)), options)

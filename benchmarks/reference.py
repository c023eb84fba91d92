"""The peers' published scores (``../shared/datasets/peers.md``) against this run's.

``peers.md`` gives, for the same pages and the same metrics, one Markdown table per metric
(``### BOW-F1 ...``: a row per system, a column per dataset and ``mean``) and the WCXB scores
by page type. Our run of the same peers should agree within :data:`TOLERANCE`; every value
further away is flagged, to be explained (library version, decoding, a changed default).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from scrapy_cetd.evaluation.metrics import METRICS

TOLERANCE = 0.01
"""The largest F1 difference from ``peers.md`` that is not flagged."""

PAGE_TYPE_TABLE = "WCXB by page type"
"""Start of the heading of the table of WCXB BOW-F1 by page type."""

SNIPPET_COLUMN = "snippet acc."
"""The column of that table with WCXB snippet accuracy (compared with the same tolerance)."""

FAILURES_COLUMN = "failures"
"""The column of the speed table with each system's failures over all datasets."""

KNOWN_CAUSES = {
    "boilerpy3": (
        "`peers.md` ran `ArticleExtractor(raise_on_failure=False)` (it reports 0 failures); here "
        "it runs with its documented default `raise_on_failure=True`, so the pages where its "
        "parser gives up raise `HTMLExtractionError` and count as failures with empty output, "
        "although the lenient mode still extracts some of them. With `raise_on_failure=False` "
        "this run gives exactly the `peers.md` scores on cleaneval, dragnet and l3s_gn1."
    ),
    "readability-lxml": (
        "`peers.md` turned readability's HTML into text with lxml's `text_content()`, which glues "
        "adjacent blocks together (`<li>Home</li><li>News</li>` becomes the one token "
        "`homenews`); here every block element ends a line (`benchmarks.peers.fragment_text`). "
        "With `text_content()` this run gives exactly the `peers.md` scores on cleaneval, "
        "dragnet and wcxb."
    ),
}
"""Why a peer's scores differ from ``peers.md``, for the causes found and checked so far."""

Table = dict[str, dict[str, str]]
"""A Markdown table: first-column value -> column name -> cell text."""

_HEADING = re.compile(r"^#{2,4}\s+(.*\S)\s*$")


def _cells(line: str) -> list[str]:
    """The cells of one Markdown table row, stripped, without the outer pipes."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _is_separator(cells: list[str]) -> bool:
    return all(re.fullmatch(r":?-+:?", cell) for cell in cells)


def parse_tables(markdown: str) -> dict[str, Table]:
    """Every table of ``markdown`` that follows a heading, keyed by the heading's text.

    Each table maps its first column (the system) to ``{column: cell}``. A table without a
    heading above it is ignored; a second table under the same heading is merged into the first.
    """
    tables: dict[str, Table] = {}
    heading: str | None = None
    header: list[str] | None = None
    for line in markdown.splitlines():
        match = _HEADING.match(line)
        if match:
            heading, header = match.group(1), None
            continue
        if not line.lstrip().startswith("|"):
            header = None
            continue
        if heading is None:
            continue
        cells = _cells(line)
        if header is None:
            header = cells
            continue
        if _is_separator(cells):
            continue
        row = dict(zip(header[1:], cells[1:], strict=False))
        tables.setdefault(heading, {})[cells[0]] = row
    return tables


def _number(cell: str) -> float | None:
    """The number in a cell (bold marks dropped); ``None`` for a cell that holds none."""
    match = re.fullmatch(r"\**\s*(-?\d+(?:\.\d+)?)\s*\**", cell)
    return float(match.group(1)) if match else None


def reference_scores(markdown: str) -> dict[str, dict[str, dict[str, float]]]:
    """``peers.md``'s F1s as ``metric -> system -> column -> value``.

    Metrics are ``LCS``, ``BOW``, ``SH`` (columns: datasets and ``mean``) and ``BOW:wcxb`` (columns:
    the WCXB page types, from the page-type table).
    """
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for heading, table in parse_tables(markdown).items():
        metric = next((m for m in METRICS if heading.startswith(f"{m}-F1")), None)
        if heading.startswith(PAGE_TYPE_TABLE):
            metric = "BOW:wcxb"
        if metric is None:
            continue
        for system, row in table.items():
            values = {column: _number(cell) for column, cell in row.items()}
            scores.setdefault(metric, {})[system] = {
                column: value for column, value in values.items() if value is not None
            }
    return scores


def reference_failures(markdown: str) -> dict[str, int]:
    """Failures per system over all datasets, from the table that has a ``failures`` column."""
    failures: dict[str, int] = {}
    for table in parse_tables(markdown).values():
        for system, row in table.items():
            value = _number(row.get(FAILURES_COLUMN, ""))
            if value is not None:
                failures[system] = int(value)
    return failures


@dataclass(frozen=True)
class Difference:
    """One value of ``peers.md`` next to ours."""

    system: str
    metric: str
    column: str
    reference: float
    measured: float

    @property
    def diff(self) -> float:
        """Ours minus the reference."""
        return self.measured - self.reference

    @property
    def flagged(self) -> bool:
        """Further from the reference than :data:`TOLERANCE`, both rounded as ``peers.md`` rounds.

        The float epsilon keeps a difference of exactly 0.010 between rounded values unflagged.
        """
        return abs(round(self.measured, 3) - self.reference) > TOLERANCE + 1e-9

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the difference and the flag."""
        return {**asdict(self), "diff": self.diff, "flagged": self.flagged}


def _measured(system: Mapping[str, Any], metric: str, column: str) -> float | None:
    """Our value for one cell of ``peers.md``, ``None`` when this run has no such value."""
    if metric == "BOW:wcxb" and column == SNIPPET_COLUMN:
        value = system["datasets"].get("wcxb", {}).get("snippet_accuracy")
    elif metric == "BOW:wcxb":
        types = system["datasets"].get("wcxb", {}).get("page_types", {})
        value = types.get(column, {}).get("metrics", {}).get("BOW", {}).get("f1")
    elif column == "mean":
        value = system["overall"]["metrics"][metric]["f1"]
    else:
        value = system["datasets"].get(column, {}).get("metrics", {}).get(metric, {}).get("f1")
    return float(value) if value is not None else None


def compare(
    reference: Mapping[str, Mapping[str, Mapping[str, float]]],
    systems: Mapping[str, Mapping[str, Any]],
    datasets: list[str],
) -> Iterator[Difference]:
    """Every value of ``reference`` for a system and dataset that this run measured.

    The ``mean`` column is compared only when this run covers every dataset it averages.
    """
    for metric, rows in reference.items():
        for name, row in rows.items():
            if name not in systems:
                continue
            for column, value in row.items():
                if column == "mean" and set(datasets) != set(row) - {"mean"}:
                    continue
                measured = _measured(systems[name], metric, column)
                if measured is not None:
                    yield Difference(name, metric, column, value, measured)

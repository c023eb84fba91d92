"""Scoring an extractor on a dataset with the metrics of :mod:`scrapy_cetd.evaluation.metrics`.

:func:`evaluate` runs a prediction function on every page, times it and scores its text against
the gold text; the per-dataset numbers are macro averages over pages, as in the datasets README
and its reference scorer ``score.py``, which they match exactly.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from time import perf_counter
from types import MappingProxyType
from typing import Any

from scrapy_cetd.evaluation.datasets import Dataset, Page, systems_on_several_datasets
from scrapy_cetd.evaluation.metrics import (
    METRICS,
    PRF,
    bootstrap_interval,
    score_text,
    snippet_accuracy,
)

__all__ = [
    "DatasetScore",
    "MeanScore",
    "MetricScore",
    "PageScore",
    "Predict",
    "by_page_type",
    "evaluate",
    "format_table",
    "mean_over_datasets",
]

Predict = Callable[[Page], str]
"""A system under test: the main-content text of a page."""


@dataclass(frozen=True)
class MetricScore:
    """Macro-averaged scores of one metric over a dataset, with a 95% bootstrap interval."""

    precision: float
    recall: float
    f1: float
    f1_ci95: tuple[float, float]


@dataclass(frozen=True)
class PageScore:
    """The outcome on one page: time, failure and per-metric scores."""

    id: str
    page_type: str
    lang: str | None
    ms: float
    """Wall time of the prediction call, in milliseconds."""
    failed: bool
    error: str | None
    """``"ExceptionType: message"`` when the prediction failed, else ``None``."""
    scores: Mapping[str, PRF]
    snippet_accuracy: float | None = None
    """WCXB snippet accuracy of the page; ``None`` for pages without snippets."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the page's outcome."""
        return {
            "id": self.id,
            "page_type": self.page_type,
            "lang": self.lang,
            "ms": self.ms,
            "failed": self.failed,
            "error": self.error,
            "scores": {name: _prf_dict(prf) for name, prf in self.scores.items()},
            "snippet_accuracy": self.snippet_accuracy,
        }


@dataclass(frozen=True)
class DatasetScore:
    """One system's scores on one dataset."""

    dataset: str
    system: str
    pages: int
    failures: int
    """Pages where the prediction raised: scored as an empty output."""
    metrics: Mapping[str, MetricScore]
    """Keys ``LCS``, ``BOW`` and ``SH``."""
    ms_median: float
    ms_p95: float
    snippet_accuracy: float | None
    """Mean snippet accuracy over the pages that have snippets; ``None`` if none has."""
    per_page: tuple[PageScore, ...]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of all the scores, pages included."""
        return {
            "dataset": self.dataset,
            "system": self.system,
            "pages": self.pages,
            "failures": self.failures,
            "metrics": {
                name: {
                    "precision": metric.precision,
                    "recall": metric.recall,
                    "f1": metric.f1,
                    "f1_ci95": list(metric.f1_ci95),
                }
                for name, metric in self.metrics.items()
            },
            "ms_median": self.ms_median,
            "ms_p95": self.ms_p95,
            "snippet_accuracy": self.snippet_accuracy,
            "per_page": [page.to_dict() for page in self.per_page],
        }


@dataclass(frozen=True)
class MeanScore:
    """One system's scores over several datasets, each dataset weighing the same: the mean of
    the datasets' means, as the README's and ``make bench``'s means over datasets are, so a
    large dataset does not outweigh a small one."""

    system: str
    datasets: tuple[str, ...]
    """The datasets averaged over, in the order they were scored."""
    pages: int
    """Pages over all the datasets."""
    failures: int
    metrics: Mapping[str, PRF]
    """Keys ``LCS``, ``BOW`` and ``SH``: the mean of the datasets' precision, recall and F1."""
    ms_median: float
    """Median milliseconds per page over all the datasets' pages, pooled (a median of medians
    would describe no page)."""
    ms_p95: float


def _prf_dict(prf: PRF) -> dict[str, float]:
    """A page's scores of one metric as a JSON-ready dict."""
    return {"precision": prf.precision, "recall": prf.recall, "f1": prf.f1}


def _predict_timed(predict: Predict, page: Page) -> tuple[str, float, str | None]:
    """Predicted text, milliseconds spent in ``predict`` and the error if it failed.

    A failure (an exception, or a value that is not a string) counts as an empty output: one
    broken page must not stop the evaluation of a whole dataset.
    """
    start = perf_counter()
    try:
        text = predict(page)
    except Exception as exc:
        ms = (perf_counter() - start) * 1000
        return "", ms, f"{type(exc).__name__}: {exc}"
    ms = (perf_counter() - start) * 1000
    if not isinstance(text, str):
        return "", ms, f"TypeError: prediction is {type(text).__name__}, not str"
    return text, ms, None


def _score_page(predict: Predict, page: Page) -> PageScore:
    """Run and score the prediction on one page."""
    text, ms, error = _predict_timed(predict, page)
    return PageScore(
        id=page.id,
        page_type=page.page_type,
        lang=page.lang,
        ms=ms,
        failed=error is not None,
        error=error,
        scores=MappingProxyType(score_text(text, page.gold)),
        snippet_accuracy=snippet_accuracy(text, page.snippets_with, page.snippets_without),
    )


def _mean(values: Sequence[float]) -> float:
    """Arithmetic mean summed left to right as ``score.py`` does; 0.0 for no values."""
    return sum(values) / (len(values) or 1)


def _metric_score(pages: Sequence[PageScore], name: str) -> MetricScore:
    """Macro averages of one metric over pages, and the bootstrap interval of its F1."""
    rows = [page.scores[name] for page in pages]
    f1s = [row.f1 for row in rows]
    return MetricScore(
        precision=_mean([row.precision for row in rows]),
        recall=_mean([row.recall for row in rows]),
        f1=_mean(f1s),
        f1_ci95=bootstrap_interval(f1s) if f1s else (0.0, 0.0),
    )


def _nearest_rank(values: Sequence[float], percent: int) -> float:
    """The nearest-rank percentile: the smallest value with ``percent`` % of values at or below.

    The rank is computed in integers, so that float rounding cannot move it by one.
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-percent * len(ordered) // 100))
    return ordered[rank - 1]


def _mean_snippet_accuracy(pages: Sequence[PageScore]) -> float | None:
    """Mean over the pages that have snippets (WCXB); ``None`` when no page has any."""
    accuracies = [p.snippet_accuracy for p in pages if p.snippet_accuracy is not None]
    return sum(accuracies) / len(accuracies) if accuracies else None


def evaluate(
    dataset: Dataset, predict: Predict, *, system: str, ids: Iterable[str] | None = None
) -> DatasetScore:
    """Score ``predict`` on the pages of ``dataset`` (all, or those of ``ids``).

    Only the ``predict`` call is timed (pages are read from disk before it); an exception
    raised by ``predict`` is recorded as a failure with empty output and never propagates.
    """
    per_page = tuple(_score_page(predict, page) for page in dataset.pages(ids))
    times = [page.ms for page in per_page]
    return DatasetScore(
        dataset=dataset.name,
        system=system,
        pages=len(per_page),
        failures=sum(page.failed for page in per_page),
        metrics=MappingProxyType({name: _metric_score(per_page, name) for name in METRICS}),
        ms_median=statistics.median(times) if times else 0.0,
        ms_p95=_nearest_rank(times, 95),
        snippet_accuracy=_mean_snippet_accuracy(per_page),
        per_page=per_page,
    )


def mean_over_datasets(scores: Sequence[DatasetScore]) -> list[MeanScore]:
    """The :class:`MeanScore` of each system of ``scores`` scored on more than one dataset, in
    the order the systems first appear (a system scored on one dataset has no mean)."""
    means = []
    for system, rows in systems_on_several_datasets(scores).items():
        times = [page.ms for row in rows for page in row.per_page]
        metrics = {
            name: PRF(
                precision=_mean([row.metrics[name].precision for row in rows]),
                recall=_mean([row.metrics[name].recall for row in rows]),
                f1=_mean([row.metrics[name].f1 for row in rows]),
            )
            for name in METRICS
        }
        means.append(
            MeanScore(
                system=system,
                datasets=tuple(row.dataset for row in rows),
                pages=sum(row.pages for row in rows),
                failures=sum(row.failures for row in rows),
                metrics=MappingProxyType(metrics),
                ms_median=statistics.median(times) if times else 0.0,
                ms_p95=_nearest_rank(times, 95),
            )
        )
    return means


def by_page_type(score: DatasetScore) -> dict[str, dict[str, float]]:
    """Mean F1 of each metric per page type (WCXB labels seven), page types sorted."""
    groups: dict[str, list[PageScore]] = {}
    for page in score.per_page:
        groups.setdefault(page.page_type, []).append(page)
    return {
        page_type: {name: _mean([p.scores[name].f1 for p in pages]) for name in METRICS}
        for page_type, pages in sorted(groups.items())
    }


def _table_row(cells: Iterable[str]) -> str:
    """One Markdown table row; a ``|`` inside a cell is escaped so it does not split the cell."""
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def format_table(
    scores: Sequence[DatasetScore], metric_order: Sequence[str] = METRICS, *, means: bool = False
) -> str:
    """A Markdown table of scores, one row per (system, dataset) in the given order.

    Columns: dataset, system, pages, failures, the F1 of each metric of ``metric_order``,
    precision and recall of BOW, and the median and p95 milliseconds per page. With
    ``means``, a row per system scored on more than one dataset follows, its dataset
    ``mean of N datasets`` (:func:`mean_over_datasets`: the scores are the means of the
    datasets' rows, the pages and failures their sums, the times over all their pages).
    """
    header = [
        "dataset",
        "system",
        "pages",
        "failures",
        *(f"{name}-F1" for name in metric_order),
        "BOW-P",
        "BOW-R",
        "ms median",
        "ms p95",
    ]
    align = [":--", ":--", *["--:"] * (len(header) - 2)]
    lines = [_table_row(header), _table_row(align)]
    rows: list[tuple[str, DatasetScore | MeanScore]] = [(row.dataset, row) for row in scores]
    if means:
        rows += [
            (f"mean of {len(row.datasets)} datasets", row) for row in mean_over_datasets(scores)
        ]
    for dataset, score in rows:
        bow = score.metrics["BOW"]
        cells = [
            dataset,
            score.system,
            str(score.pages),
            str(score.failures),
            *(f"{score.metrics[name].f1:.3f}" for name in metric_order),
            f"{bow.precision:.3f}",
            f"{bow.recall:.3f}",
            f"{score.ms_median:.1f}",
            f"{score.ms_p95:.1f}",
        ]
        lines.append(_table_row(cells))
    return "\n".join(lines) + "\n"

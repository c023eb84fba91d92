"""From the per-system results of :mod:`benchmarks.accuracy` to the numbers of the report.

Pure computation on JSON-ready data (no peer library, no plotting), so it is tested on tiny
synthetic inputs. What it adds to each child's own per-dataset scores:

* pooled speed over all pages: median and p95 ms per page, pages per second, and each time as a
  multiple of the reference lxml parse of the same page in the same process;
* the F1 mean over datasets with a stratified bootstrap interval;
* a paired bootstrap of each system against the best one on the same pages, so that two systems
  whose difference is within noise are not ranked (``tied``);
* the F1 over the pages whose language is known and not English, pooled over the datasets (a
  check that no step leans on one language).

Every interval uses the bootstrap of the reference scorer ``../shared/datasets/score.py``
(1,000 resamples of pages with ``random.Random(seed).choice``, sorted means, the 2.5% and 97.5%
order statistics as ``means[int(0.025 * n)]`` and ``means[int(0.975 * n) - 1]``); on a single
dataset it gives exactly ``score.py``'s interval.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from scrapy_cetd.evaluation.metrics import METRICS

RESAMPLES = 1000
"""Bootstrap resamples, as in ``score.py``."""

_PAGE_KEYS = ("page_ids", "page_f1", "page_langs", "page_ms", "page_parse_ms", "page_extract_ms")
"""Per-page arrays of a child's results: used here, left out of ``results.json``."""


def resample_means(
    values: Sequence[float], resamples: int = RESAMPLES, seed: int = 0
) -> list[float]:
    """Means of ``resamples`` bootstrap resamples of ``values``, drawn as ``score.py`` draws them.

    Unsorted, so that the resamples of several strata can be combined draw by draw.
    """
    if not values:
        raise ValueError("resample_means needs at least one value")
    pool = list(values)
    rng = random.Random(seed)
    k = len(pool)
    return [sum(rng.choice(pool) for _ in range(k)) / k for _ in range(resamples)]


def percentile_interval(means: Sequence[float]) -> tuple[float, float]:
    """The 95% interval of bootstrap means with ``score.py``'s order statistics."""
    ordered = sorted(means)
    n = len(ordered)
    return ordered[int(0.025 * n)], ordered[int(0.975 * n) - 1]


def stratified_interval(groups: Sequence[Sequence[float]], seed: int = 0) -> tuple[float, float]:
    """95% bootstrap interval of the mean over groups of the mean within each group.

    Each group (a dataset) is resampled on its own, with seed ``seed + i`` for group ``i`` so the
    strata are drawn independently; the resample means are averaged draw by draw. With one group
    this is exactly ``score.py``'s ``bootstrap``.
    """
    if not groups:
        raise ValueError("stratified_interval needs at least one group")
    per_group = [resample_means(group, seed=seed + i) for i, group in enumerate(groups)]
    combined = [sum(draw) / len(draw) for draw in zip(*per_group, strict=True)]
    return percentile_interval(combined)


def nearest_rank(values: Sequence[float], percent: int) -> float:
    """The nearest-rank percentile, as :func:`scrapy_cetd.evaluation.scoring.evaluate` computes
    p95."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-percent * len(ordered) // 100))
    return ordered[rank - 1]


def _median_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float | None:
    """Median over pages of ``numerator / denominator`` (pages with a zero parse time skipped)."""
    ratios = [n / d for n, d in zip(numerators, denominators, strict=True) if d > 0]
    return statistics.median(ratios) if ratios else None


def speed(
    ms: Sequence[float], parse_ms: Sequence[float], extract_ms: Sequence[float] | None
) -> dict[str, Any]:
    """Speed of one system on some pages: times per page, throughput and times ÷ parse.

    ``x_parse`` is the whole call (for ours: parse plus extraction) as a multiple of the reference
    parse of the same page, median over pages; ``extract_x_parse`` (ours only) the extraction
    alone. ``pages_per_s`` is single-process throughput: pages over the summed times.
    """
    total = sum(ms)
    result: dict[str, Any] = {
        "ms_median": statistics.median(ms) if ms else 0.0,
        "ms_p95": nearest_rank(ms, 95),
        "pages_per_s": len(ms) / (total / 1000) if total > 0 else None,
        "parse_ms_median": statistics.median(parse_ms) if parse_ms else None,
        "x_parse": _median_ratio(ms, parse_ms),
    }
    if extract_ms is not None:
        result["extract_ms_median"] = statistics.median(extract_ms) if extract_ms else None
        result["extract_x_parse"] = _median_ratio(extract_ms, parse_ms)
    return result


def _dataset_summary(data: Mapping[str, Any]) -> dict[str, Any]:
    """One system on one dataset: the child's scores without per-page arrays, plus speed."""
    summary = {key: value for key, value in data.items() if key not in _PAGE_KEYS}
    summary.update(speed(data["page_ms"], data["page_parse_ms"], data.get("page_extract_ms")))
    return summary


def _overall(datasets: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One system over all its datasets: F1 means over datasets and pooled speed."""
    names = list(datasets)
    metrics: dict[str, Any] = {}
    for name in METRICS:
        scores = [datasets[d]["metrics"][name] for d in names]
        metrics[name] = {
            key: sum(score[key] for score in scores) / len(scores)
            for key in ("precision", "recall", "f1")
        }
        groups = [datasets[d]["page_f1"][name] for d in names]
        metrics[name]["f1_ci95"] = list(stratified_interval(groups))
    ms = [t for d in names for t in datasets[d]["page_ms"]]
    parse_ms = [t for d in names for t in datasets[d]["page_parse_ms"]]
    has_extract = all("page_extract_ms" in datasets[d] for d in names)
    extract_ms = [t for d in names for t in datasets[d]["page_extract_ms"]] if has_extract else None
    return {
        "datasets": names,
        "pages": sum(datasets[d]["pages"] for d in names),
        "failures": sum(datasets[d]["failures"] for d in names),
        "metrics": metrics,
        **speed(ms, parse_ms, extract_ms),
    }


def _not_english(datasets: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The pages whose language the datasets give and is not English, pooled: their count per
    language and each metric's mean F1 with its bootstrap interval (empty when there are none)."""
    languages: Counter[str] = Counter()
    f1s: dict[str, list[float]] = {name: [] for name in METRICS}
    for data in datasets.values():
        for k, lang in enumerate(data.get("page_langs", [])):
            if lang and lang != "en":
                languages[lang] += 1
                for name in METRICS:
                    f1s[name].append(data["page_f1"][name][k])
    if not languages:
        return {}
    return {
        "pages": languages.total(),
        "languages": dict(sorted(languages.items())),
        "metrics": {
            name: {
                "f1": sum(values) / len(values),
                "f1_ci95": list(percentile_interval(resample_means(values))),
            }
            for name, values in f1s.items()
        },
    }


def _paired(best: Sequence[Sequence[float]], other: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Difference best - other of the mean F1 (per group, then over groups), with its interval.

    A paired bootstrap: the per-page differences are resampled, so the pages both systems share
    do not count as noise. ``tied`` when the interval reaches zero.
    """
    diffs = [
        [b - o for b, o in zip(best_group, other_group, strict=True)]
        for best_group, other_group in zip(best, other, strict=True)
    ]
    mean = sum(sum(group) / len(group) for group in diffs) / len(diffs)
    low, high = stratified_interval(diffs)
    return {"diff": mean, "diff_ci95": [low, high], "tied": low <= 0.0}


def _scores(entry: dict[str, Any], dataset: str | None) -> dict[str, Any]:
    """A system's scores on one dataset, or over all of them when ``dataset`` is ``None``."""
    scores: dict[str, Any] = entry["overall"] if dataset is None else entry["datasets"][dataset]
    return scores


def _rank(
    systems: Mapping[str, dict[str, Any]],
    raw: Mapping[str, Mapping[str, Any]],
    names: Sequence[str],
) -> None:
    """Add ``vs_best``, each system's paired difference to the best, per dataset and over all."""
    for metric in METRICS:
        for dataset in [*names, None]:
            f1s = {s: _scores(e, dataset)["metrics"][metric]["f1"] for s, e in systems.items()}
            best = max(f1s, key=f1s.__getitem__)
            wanted = names if dataset is None else [dataset]
            best_pages = [raw[best]["datasets"][d]["page_f1"][metric] for d in wanted]
            for system, entry in systems.items():
                vs_best = _scores(entry, dataset).setdefault("vs_best", {})
                if system == best:
                    vs_best[metric] = {"best": best, "diff": 0.0, "diff_ci95": [0.0, 0.0]}
                    vs_best[metric]["tied"] = True
                    continue
                pages = [raw[system]["datasets"][d]["page_f1"][metric] for d in wanted]
                vs_best[metric] = {"best": best, **_paired(best_pages, pages)}


def _check_same_pages(raw: Mapping[str, Mapping[str, Any]], names: Sequence[str]) -> None:
    """Every system must have been run on the same pages in the same order."""
    for dataset in names:
        page_lists = {tuple(result["datasets"][dataset]["page_ids"]) for result in raw.values()}
        if len(page_lists) > 1:
            raise ValueError(f"systems were not run on the same pages of {dataset}")


def summarize(raw: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The report's numbers for every system that ran; missing systems keep their reason.

    ``raw`` maps each system to its child's result (see :func:`benchmarks.accuracy.run_system`)
    or to ``{"system", "kind", "missing"}``.
    """
    ran = {name: result for name, result in raw.items() if "missing" not in result}
    names: list[str] = list(next(iter(ran.values()))["datasets"]) if ran else []
    for name, result in ran.items():
        if list(result["datasets"]) != names:
            raise ValueError(f"{name} was not run on the same datasets as the others")
    _check_same_pages(ran, names)
    systems: dict[str, dict[str, Any]] = {}
    for name, result in ran.items():
        head = {key: value for key, value in result.items() if key != "datasets"}
        systems[name] = {
            **head,
            "datasets": {d: _dataset_summary(result["datasets"][d]) for d in names},
            "overall": _overall(result["datasets"]),
            "not_english": _not_english(result["datasets"]),
        }
    if systems:
        _rank(systems, ran, names)
    missing = {name: dict(result) for name, result in raw.items() if "missing" in result}
    pages = {d: next(iter(ran.values()))["datasets"][d]["pages"] for d in names} if ran else {}
    return {"datasets": names, "pages": pages, "systems": systems, "missing": missing}

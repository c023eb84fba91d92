"""The benchmark's figures (PNG, matplotlib's Agg backend, no screen needed).

* ``scatter.png``: SH-F1 mean over datasets against median ms per page, one point per system,
  with the 95% bootstrap interval of the mean as an error bar; the time axis is logarithmic
  because the systems span two orders of magnitude.
* ``datasets.png``: a bar chart per dataset (and one for the mean over datasets) of every
  system's SH-F1 with its interval, best first.

Ours are drawn in one colour, the peers in another. matplotlib is part of the ``bench`` extra.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter

COLOURS = {"ours": "tab:blue", "peer": "tab:orange"}
LABELS = {"ours": "scrapy-cetd", "peer": "peers"}
METRIC = "SH"


def _errors(metric: Mapping[str, Any]) -> tuple[float, float]:
    """Distances from the F1 down and up to the ends of its interval."""
    low, high = metric["f1_ci95"]
    return metric["f1"] - low, high - metric["f1"]


def label_offsets(
    points: Sequence[tuple[float, float]], labels: Sequence[str], font_size: float = 8.0
) -> list[tuple[float, float]]:
    """Offsets (in points) that keep the labels of ``points`` (in points) from overlapping.

    Labels are placed highest point first. Each takes the first free spot of: right of its
    point and above, right and below, left and above, left and below; failing all four, it moves
    down from the first spot a line at a time. Widths are estimated from the number of
    characters, which is close enough for short names.
    """
    char, line = 0.6 * font_size, 1.25 * font_size
    placed: list[tuple[float, float, float, float]] = []
    offsets: list[tuple[float, float]] = [(0.0, 0.0)] * len(points)
    for i in sorted(range(len(points)), key=lambda i: -points[i][1]):
        x, y = points[i]
        width = char * len(labels[i])
        spots = [(6.0, 3.0), (6.0, -3.0 - line), (-6.0 - width, 3.0), (-6.0 - width, -3.0 - line)]
        spots += [(6.0, -3.0 - line * step) for step in range(2, 2 * len(points) + 2)]
        for dx, dy in spots:
            box = (x + dx, y + dy, x + dx + width, y + dy + line)
            if not any(_overlap(box, other) for other in placed):
                break
        placed.append(box)
        offsets[i] = (dx, dy)
    return offsets


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def scatter(results: Mapping[str, Any], path: Path) -> Path:
    """SH-F1 (mean over datasets) against median ms per page; one point per system."""
    figure, axes = plt.subplots(figsize=(9, 6))
    seen: set[str] = set()
    names, xy = [], []
    for system, entry in results["systems"].items():
        overall = entry["overall"]
        metric = overall["metrics"][METRIC]
        kind = entry["kind"]
        down, up = _errors(metric)
        axes.errorbar(
            overall["ms_median"],
            metric["f1"],
            yerr=[[down], [up]],
            fmt="o" if kind == "ours" else "s",
            color=COLOURS[kind],
            capsize=3,
            label=None if kind in seen else LABELS[kind],
        )
        seen.add(kind)
        names.append(system)
        xy.append((overall["ms_median"], metric["f1"]))
    axes.set_xscale("log")
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    axes.xaxis.set_major_formatter(plain)
    axes.xaxis.set_minor_formatter(plain)
    axes.tick_params(axis="x", which="minor", labelsize=7)
    axes.autoscale_view()
    to_points = 72 / figure.dpi
    points = [(px * to_points, py * to_points) for px, py in axes.transData.transform(xy)]
    for name, point, offset in zip(names, xy, label_offsets(points, names), strict=True):
        axes.annotate(name, point, textcoords="offset points", xytext=offset, fontsize=8)
    axes.set_xlabel("median ms per page (decoded text to main content, parse included; log)")
    axes.set_ylabel(f"{METRIC}-F1, mean over {len(results['datasets'])} datasets (95% CI)")
    axes.set_title(f"Accuracy against speed, {sum(results['pages'].values()):,} pages")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def _bars(axes: Axes, title: str, rows: list[tuple[str, str, Mapping[str, Any]]]) -> None:
    """One panel: a horizontal bar per system, best at the top, with interval whiskers."""
    rows = sorted(rows, key=lambda row: row[2]["f1"])
    positions = range(len(rows))
    errors = [_errors(metric) for _, _, metric in rows]
    axes.barh(
        list(positions),
        [metric["f1"] for _, _, metric in rows],
        xerr=[[e[0] for e in errors], [e[1] for e in errors]],
        color=[COLOURS[kind] for _, kind, _ in rows],
        capsize=2,
    )
    axes.set_yticks(list(positions), [system for system, _, _ in rows], fontsize=7)
    axes.set_xlim(0, 1)
    axes.set_title(title, fontsize=10)
    axes.grid(True, axis="x", alpha=0.3)


def datasets(results: Mapping[str, Any], path: Path) -> Path:
    """A bar chart of SH-F1 per dataset, and one of the mean over datasets."""
    panels: list[tuple[str, list[tuple[str, str, Mapping[str, Any]]]]] = []
    for dataset in results["datasets"]:
        rows = [
            (system, entry["kind"], entry["datasets"][dataset]["metrics"][METRIC])
            for system, entry in results["systems"].items()
        ]
        panels.append((f"{dataset} ({results['pages'][dataset]} pages)", rows))
    means = [
        (system, entry["kind"], entry["overall"]["metrics"][METRIC])
        for system, entry in results["systems"].items()
    ]
    panels.append(("mean over datasets", means))
    columns = min(4, len(panels))
    lines = math.ceil(len(panels) / columns)
    size = (4.2 * columns, (0.25 * len(means) + 1.2) * lines)
    figure, grid = plt.subplots(lines, columns, figsize=size, squeeze=False)
    for axes, (title, rows) in zip(grid.flat, panels, strict=False):
        _bars(axes, title, rows)
    for axes in list(grid.flat)[len(panels) :]:
        axes.set_visible(False)
    figure.suptitle(f"{METRIC}-F1 per dataset (95% bootstrap interval); blue: ours, orange: peers")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path

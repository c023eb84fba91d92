"""Train and cross-validate the page-type classifier (:mod:`scrapy_cetd.page.page_types`).

Pages: every page of the shared datasets ``wcxb`` and ``wcxb_dev`` (labelled with WCXB's seven
types) and of the article datasets ``cleaneval``, ``utomo_big9_chaos``, ``l3s_gn1``,
``dragnet``, ``readability`` and ``scrapinghub`` (all articles). Each page is decoded and
parsed as :func:`scrapy_cetd.classify_page_type` does, and described by
:func:`scrapy_cetd.page.page_types.page_features`.

Sites: a page's site is the registered domain of its URL host (WCXB's ``domain``, else the
URL's host: its last two labels, three under a two-letter country code with a short
second-level label such as ``co.uk``); a page without a URL is a site of its own, except in
``utomo_big9_chaos``, whose MANIFEST names the site.

``speed`` times cetd-plus on every page with the classifier and with the type forced (which
skips it), best of three runs each, back to back on the same parsed tree, and prints the
median over pages of the ratio and of each time.

``train`` fits the shipped model on all pages and writes ``scrapy_cetd/page/page_types_model.json``.
``evaluate`` cross-validates by site (:class:`~sklearn.model_selection.GroupKFold`, five folds,
no site in two folds; the token vocabulary is learned on each training fold alone) and prints
the accuracy over all pages, over the WCXB pages and over the 50-per-type ``wcxb``, the
per-type precision and recall and the confusion matrix, as Markdown; ``--compare`` adds the
other model families and class weightings tried. Everything is deterministic (fixed seeds,
sorted inputs).

Classes are weighted so that each type's pages weigh ``(n_max / n_type) ** BALANCE`` each:
articles are about two thirds of the pages, and without weights (0.0) the rare types are
under-predicted; full balancing (1.0) was the most accurate of 0.5 and 1.0, over all pages
and over the WCXB pages.

Usage: ``python -m benchmarks.page_types train|evaluate|speed [--datasets-root DIR]
[--compare]`` (needs the ``train`` extra: scikit-learn).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from scrapy_cetd.evaluation.datasets import Page, default_datasets_root, load_dataset
from scrapy_cetd.extractors.registry import get_extractor
from scrapy_cetd.page.page_types import (
    FEATURES,
    MODEL_PATH,
    PAGE_TYPES,
    TOKEN_PREFIXES,
    PageTypeModel,
    page_features,
)
from scrapy_cetd.page.parse import html_response, response_tree

LABELLED = ("wcxb", "wcxb_dev")
"""The datasets whose MANIFEST gives each page's type."""

ARTICLES = ("cleaneval", "utomo_big9_chaos", "l3s_gn1", "dragnet", "readability", "scrapinghub")
"""The datasets made of articles only."""

MIN_SITES = 3
"""A token joins the vocabulary when pages of at least this many sites have it: a token of
one or two sites would only name those sites."""

MIN_CLASS_SITES = 20
"""The same for the words of class names, which pages have by the hundred: only the words of
many sites' templates join."""

C = 0.03
"""The inverse regularisation strength of the shipped logistic regression (0.03 and 0.1 were
tried: 0.03 was as accurate or slightly more, and is the simpler model)."""

BALANCE = 1.0
"""The exponent of the class weights (see the module docstring)."""

FOLDS = 5


@dataclass(frozen=True)
class Sample:
    """One page: its features, its type, its site and its dataset."""

    features: dict[str, float]
    label: str
    site: str
    dataset: str


def registered_domain(host: str) -> str:
    """``host`` without ``www.`` and subdomains: its last two labels, or three under a
    two-letter country code whose second-level label is short (``bbc.co.uk``)."""
    labels = host.lower().strip(".").split(".")
    keep = 3 if len(labels) >= 3 and len(labels[-1]) == 2 and len(labels[-2]) <= 3 else 2
    return ".".join(labels[-keep:])


def site_of(page: Page, dataset: str) -> str:
    """The site a page belongs to, for grouping (see the module docstring)."""
    domain = page.meta.get("domain")
    url = page.meta.get("url")
    if isinstance(domain, str) and domain:
        return registered_domain(domain)
    if isinstance(url, str) and url.startswith("http"):
        host = urlsplit(url).hostname
        if host:
            return registered_domain(host)
    site = page.meta.get("site")
    if dataset == "utomo_big9_chaos" and isinstance(site, str) and site:
        return f"{dataset}:{site}"
    return f"{dataset}:{page.id}"


def page_url(page: Page) -> str | None:
    """The page's URL when its MANIFEST gives one."""
    url = page.meta.get("url")
    return url if isinstance(url, str) and url.startswith("http") else None


def collect(root: Path) -> list[Sample]:
    """The samples of every page of :data:`LABELLED` and :data:`ARTICLES`, in a fixed order."""
    samples = []
    for name in (*LABELLED, *ARTICLES):
        dataset = load_dataset(root / name)
        for page in dataset.pages():
            url = page_url(page)
            tree = response_tree(html_response(page.html, url=url, encoding=page.encoding))
            samples.append(
                Sample(page_features(tree, url), page.page_type, site_of(page, name), name)
            )
        print(f"read {name}: {len(dataset)} pages", file=sys.stderr)
    return samples


def vocabulary(samples: Sequence[Sample]) -> list[str]:
    """:data:`FEATURES` and the tokens of at least :data:`MIN_SITES` sites, sorted."""
    sites: dict[str, set[str]] = {}
    for sample in samples:
        for name in sample.features:
            if name.startswith(TOKEN_PREFIXES):
                sites.setdefault(name, set()).add(sample.site)
    tokens = sorted(
        name
        for name, found in sites.items()
        if len(found) >= (MIN_CLASS_SITES if name.startswith("class:") else MIN_SITES)
    )
    return [*FEATURES, *tokens]


def matrix(samples: Sequence[Sample], names: Sequence[str]) -> np.ndarray:
    """The samples' features in the columns ``names`` (0 where a page lacks one)."""
    return np.array([[s.features.get(name, 0.0) for name in names] for s in samples])


def class_weights(labels: Sequence[str], balance: float) -> np.ndarray:
    """Per sample, ``(n_max / n_label) ** balance``."""
    counts = Counter(labels)
    most = max(counts.values())
    return np.array([(most / counts[label]) ** balance for label in labels])


@dataclass(frozen=True)
class Family:
    """A model family: a name and how to fit it and predict with it."""

    name: str
    fit: Callable[[np.ndarray, list[str], np.ndarray], Callable[[np.ndarray], list[str]]]


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean and scale (standard deviation, 1 where it is 0) of each column."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale


def fit_logistic(
    x: np.ndarray, y: list[str], weights: np.ndarray, c: float = C
) -> tuple[LogisticRegression, np.ndarray, np.ndarray]:
    """A multinomial logistic regression (L2, lbfgs) on standardised ``x``."""
    mean, scale = standardise(x)
    model = LogisticRegression(C=c, max_iter=2000, tol=1e-5)
    model.fit((x - mean) / scale, y, sample_weight=weights)
    return model, mean, scale


def logistic(c: float) -> Family:
    def fit(x: np.ndarray, y: list[str], w: np.ndarray) -> Callable[[np.ndarray], list[str]]:
        model, mean, scale = fit_logistic(x, y, w, c)
        return lambda test: list(model.predict((test - mean) / scale))

    return Family(f"logistic regression, C={c:g}", fit)


def boosted() -> Family:
    def fit(x: np.ndarray, y: list[str], w: np.ndarray) -> Callable[[np.ndarray], list[str]]:
        model = HistGradientBoostingClassifier(
            max_iter=150, learning_rate=0.1, max_leaf_nodes=15, random_state=0
        )
        model.fit(x, y, sample_weight=w)
        return lambda test: list(model.predict(test))

    return Family("gradient-boosted trees (150 x 15 leaves)", fit)


def forest() -> Family:
    def fit(x: np.ndarray, y: list[str], w: np.ndarray) -> Callable[[np.ndarray], list[str]]:
        model = RandomForestClassifier(n_estimators=300, min_samples_leaf=2, random_state=0)
        model.fit(x, y, sample_weight=w)
        return lambda test: list(model.predict(test))

    return Family("random forest (300 trees)", fit)


def cross_validate(samples: Sequence[Sample], family: Family, balance: float) -> list[str]:
    """Each sample's type as predicted by a model fitted on the folds without its site."""
    labels = [s.label for s in samples]
    sites = [s.site for s in samples]
    predicted = [""] * len(samples)
    for train, test in GroupKFold(n_splits=FOLDS).split(labels, labels, sites):
        fold = [samples[i] for i in train]
        names = vocabulary(fold)
        fold_labels = [labels[i] for i in train]
        predict = family.fit(matrix(fold, names), fold_labels, class_weights(fold_labels, balance))
        for i, kind in zip(test, predict(matrix([samples[i] for i in test], names)), strict=True):
            predicted[i] = kind
    return predicted


def accuracy(samples: Sequence[Sample], predicted: Sequence[str], where: set[str]) -> float:
    pairs = [(s.label, p) for s, p in zip(samples, predicted, strict=True) if s.dataset in where]
    return sum(label == p for label, p in pairs) / len(pairs)


def report(samples: Sequence[Sample], predicted: Sequence[str], title: str) -> str:
    """Accuracies, per-type precision and recall, and the confusion matrix, as Markdown."""
    wcxb = set(LABELLED)
    everything = {s.dataset for s in samples}
    lines = [
        f"### {title}",
        "",
        "| pages | n | accuracy |",
        "| :-- | --: | --: |",
    ]
    for name, where in (
        ("all", everything),
        ("WCXB (`wcxb` + `wcxb_dev`)", wcxb),
        ("`wcxb` (50 per type)", {"wcxb"}),
        ("article datasets", everything - wcxb),
    ):
        n = sum(s.dataset in where for s in samples)
        lines.append(f"| {name} | {n} | {accuracy(samples, predicted, where):.3f} |")
    lines += [
        "",
        "| type | pages | precision | recall | precision (WCXB) | recall (WCXB) |",
        "| :-- | --: | --: | --: | --: | --: |",
    ]
    for kind in PAGE_TYPES:
        cells = []
        for where in (everything, wcxb):
            pairs = [
                (s.label, p) for s, p in zip(samples, predicted, strict=True) if s.dataset in where
            ]
            said = [label for label, p in pairs if p == kind]
            real = [p for label, p in pairs if label == kind]
            cells.append(f"{said.count(kind) / len(said):.3f}" if said else "-")
            cells.append(f"{real.count(kind) / len(real):.3f}" if real else "-")
        count = sum(s.label == kind for s in samples)
        lines.append(f"| {kind} | {count} | {' | '.join(cells)} |")
    confusion = Counter((s.label, p) for s, p in zip(samples, predicted, strict=True))
    lines += [
        "",
        "Confusion matrix, all pages (rows: true type, columns: predicted type):",
        "",
        "| true \\ predicted | " + " | ".join(PAGE_TYPES) + " |",
        "| :-- |" + " --: |" * len(PAGE_TYPES),
    ]
    for kind in PAGE_TYPES:
        row = " | ".join(str(confusion[kind, other]) for other in PAGE_TYPES)
        lines.append(f"| {kind} | {row} |")
    return "\n".join(lines)


def train(samples: Sequence[Sample]) -> PageTypeModel:
    """The shipped model: the logistic regression fitted on all ``samples``."""
    names = vocabulary(samples)
    labels = [s.label for s in samples]
    model, mean, scale = fit_logistic(
        matrix(samples, names), labels, class_weights(labels, BALANCE)
    )
    order = [list(model.classes_).index(kind) for kind in PAGE_TYPES]

    def rounded(values: Any) -> tuple[float, ...]:
        return tuple(float(f"{float(v):.5g}") for v in values)

    return PageTypeModel(
        classes=PAGE_TYPES,
        features=tuple(names),
        mean=rounded(mean),
        scale=rounded(scale),
        weights=tuple(rounded(model.coef_[k]) for k in order),
        bias=rounded(model.intercept_[order]),
    )


def write_model(model: PageTypeModel, path: Path = MODEL_PATH) -> None:
    """Write ``model`` as JSON, one line per feature, so that the file reads as a table."""
    data = model.to_json()
    rows = data.pop("features")
    head = json.dumps(data, indent=1)[:-2]
    lines = [f"{head},", ' "features": [']
    lines += [f"  {json.dumps(row, ensure_ascii=False)}," for row in rows]
    lines[-1] = lines[-1].rstrip(",")
    lines += [" ]", "}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def speed(root: Path, repeat: int = 3) -> str:
    """The time the classifier adds to cetd-plus (see the module docstring), as Markdown."""
    classified = get_extractor("cetd-plus")
    forced = get_extractor("cetd-plus", page_type="article")
    with_times, without_times, ratios = [], [], []
    for name in (*LABELLED, *ARTICLES):
        for page in load_dataset(root / name).pages():
            url = page_url(page)
            tree = response_tree(html_response(page.html, url=url, encoding=page.encoding))
            best = []
            for extractor in (classified, forced):
                times = []
                for _ in range(repeat):
                    start = time.perf_counter()
                    extractor.extract(tree, url=url)
                    times.append(time.perf_counter() - start)
                best.append(min(times))
            with_times.append(best[0])
            without_times.append(best[1])
            ratios.append(best[0] / best[1])
    return "\n".join(
        [
            "| pages | cetd-plus ms (median) | with the classifier ms (median) | ratio (median) |",
            "| --: | --: | --: | --: |",
            f"| {len(ratios)} | {1000 * statistics.median(without_times):.2f} | "
            f"{1000 * statistics.median(with_times):.2f} | {statistics.median(ratios):.3f} |",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.page_types", description=__doc__)
    parser.add_argument("command", choices=("train", "evaluate", "speed"))
    parser.add_argument("--datasets-root", type=Path, default=default_datasets_root())
    parser.add_argument("--compare", action="store_true", help="also the other model families")
    parser.add_argument("--output", type=Path, default=MODEL_PATH, help="where train writes")
    args = parser.parse_args(argv)
    if args.datasets_root is None:
        parser.error("no datasets: pass --datasets-root or set CETD_DATASETS")
    if args.command == "speed":
        print(speed(args.datasets_root))
        return 0
    samples = collect(args.datasets_root)
    if args.command == "train":
        model = train(samples)
        write_model(model, args.output)
        print(f"wrote {args.output}: {len(model.features)} features")
        return 0
    shipped = logistic(C)
    print(
        report(
            samples,
            cross_validate(samples, shipped, BALANCE),
            f"{shipped.name}, class weights ^{BALANCE:g} (shipped)",
        )
    )
    if args.compare:
        for family, balance in (
            (logistic(C), 0.5),
            (logistic(0.1), BALANCE),
            (boosted(), BALANCE),
            (forest(), BALANCE),
        ):
            predicted = cross_validate(samples, family, balance)
            print()
            print(report(samples, predicted, f"{family.name}, class weights ^{balance:g}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

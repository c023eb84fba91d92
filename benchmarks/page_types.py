"""Train and cross-validate the page-type classifier (:mod:`scrapy_cetd.page.page_types`).

Pages: every page of the shared datasets ``wcxb`` and ``wcxb_dev`` (labelled with WCXB's seven
types) and of the article datasets ``cleaneval``, ``utomo_big9_chaos``, ``l3s_gn1``,
``dragnet``, ``readability`` and ``scrapinghub`` (all articles). Each page is decoded and
parsed as :func:`scrapy_cetd.classify_page_type` does, and described by
:func:`scrapy_cetd.page.page_types.features.page_features`.

Sites: a page's site is the registered domain of its URL host (WCXB's ``domain``, else the
URL's host: its last two labels, three under a two-letter country code with a short
second-level label such as ``co.uk``); a page without a URL is a site of its own, except in
``utomo_big9_chaos``, whose MANIFEST names the site.

``speed`` times, on every page, what a crawl pays: the parse (as parsel does it) and
cetd-plus's extraction, with the classifier and without it (``detect_page_type=False``), and
trafilatura's ``extract()`` on the same text when it is installed; each time is the least CPU
time of the thread over three runs (a busy machine's waits for a core are not counted), and
the table gives the median over pages of each, of the ratio with/without, and of each against
trafilatura.

``train`` fits the shipped model on all pages and writes ``scrapy_cetd/page/page_types/model.json``:
a logistic regression over the standardised features and gradient-boosted trees
(:data:`TREES` rounds of one :data:`TREE_LEAVES`-leaf tree per type) over the same features,
whose probabilities the classifier averages (:data:`TREE_SHARE`). The trees catch what a
linear model cannot (a threshold, a combination of two signals); averaged, the two models
are more accurate under the cross-validation than either alone.
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

``evaluate --without a,b`` leaves out the features whose names start with ``a`` or ``b``
(``dates``, ``class:``, ``record``...): what a signal brings is the difference.

Usage: ``python -m benchmarks.page_types train|evaluate|speed [--datasets-root DIR]
[--compare] [--without PREFIXES]`` (needs the ``train`` extra: scikit-learn). scikit-learn's
numerical libraries start a thread per core for each product of matrices; on a shared
machine ``OMP_NUM_THREADS=1`` makes training and evaluation many times faster.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from benchmarks.speed import decoded_text, page_url, parse, parsel_body
from scrapy_cetd.evaluation.datasets import Page, default_datasets_root, load_dataset
from scrapy_cetd.extractors.base import Extractor
from scrapy_cetd.extractors.registry import get_extractor
from scrapy_cetd.page.decoding import html_response
from scrapy_cetd.page.page_types import PAGE_TYPES
from scrapy_cetd.page.page_types.features import FEATURES, page_features
from scrapy_cetd.page.page_types.model import MODEL_PATH, BoostedTrees, PageTypeModel, Tree
from scrapy_cetd.page.page_types.tokens import TOKEN_PREFIXES
from scrapy_cetd.page.parse import response_tree

LABELLED = ("wcxb", "wcxb_dev")
"""The datasets whose MANIFEST gives each page's type."""

ARTICLES = ("cleaneval", "utomo_big9_chaos", "l3s_gn1", "dragnet", "readability", "scrapinghub")
"""The datasets made of articles only."""

MIN_SITES = 3
"""A token joins the vocabulary when pages of at least this many sites have it: a token of
one or two sites would only name those sites."""

MIN_WORD_SITES = 20
"""The same for the words of class names, which pages have by the hundred, and of titles:
only the words of many sites' templates and titles join (a title's words otherwise name its
subject, not its type)."""

WORD_PREFIXES = ("class:", "title:")
"""The tokens that need :data:`MIN_WORD_SITES` sites."""

C = 0.03
"""The inverse regularisation strength of the shipped logistic regression (0.03 and 0.1 were
tried: 0.03 was as accurate or slightly more, and is the simpler model)."""

BALANCE = 1.0
"""The exponent of the class weights (see the module docstring)."""

FOLDS = 5

TREES = 50
"""The boosting rounds of the gradient-boosted trees (each fits one tree per type)."""

TREE_LEAVES = 4
"""The leaves of each tree: small trees, each a combination of two or three signals."""

TREE_RATE = 0.2
"""The learning rate of the trees."""

TREE_SHARE = 0.5
"""The trees' share of the shipped model's probabilities (the rest is the regression's)."""


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


def vocabulary(samples: Sequence[Sample], without: Sequence[str] = ()) -> list[str]:
    """:data:`FEATURES` and the tokens of at least :data:`MIN_SITES` sites, sorted, except the
    names that start with one of ``without`` (to measure what a feature brings)."""
    sites: dict[str, set[str]] = {}
    for sample in samples:
        for name in sample.features:
            if name.startswith(TOKEN_PREFIXES):
                sites.setdefault(name, set()).add(sample.site)
    tokens = sorted(
        name
        for name, found in sites.items()
        if len(found) >= (MIN_WORD_SITES if name.startswith(WORD_PREFIXES) else MIN_SITES)
    )
    return [name for name in (*FEATURES, *tokens) if not name.startswith(tuple(without))]


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


def fit_trees(x: np.ndarray, y: list[str], weights: np.ndarray) -> HistGradientBoostingClassifier:
    """The gradient-boosted trees (:data:`TREES` rounds of :data:`TREE_LEAVES` leaves) on the
    raw ``x``; deterministic (no early stopping, no sampling)."""
    model = HistGradientBoostingClassifier(
        max_iter=TREES,
        learning_rate=TREE_RATE,
        max_leaf_nodes=TREE_LEAVES,
        l2_regularization=1.0,
        early_stopping=False,
        random_state=0,
    )
    model.fit(x, y, sample_weight=weights)
    return model


def ensemble(c: float = C, share: float = TREE_SHARE) -> Family:
    """The shipped model: the logistic regression's probabilities and the trees', averaged
    with ``share`` for the trees."""

    def fit(x: np.ndarray, y: list[str], w: np.ndarray) -> Callable[[np.ndarray], list[str]]:
        linear, mean, scale = fit_logistic(x, y, w, c)
        trees = fit_trees(x, y, w)
        classes = list(linear.classes_)

        def predict(test: np.ndarray) -> list[str]:
            probabilities = (1 - share) * linear.predict_proba(
                (test - mean) / scale
            ) + share * trees.predict_proba(test)
            return [classes[k] for k in probabilities.argmax(axis=1)]

        return predict

    return Family(
        f"logistic regression, C={c:g}, and {TREES} x {TREE_LEAVES}-leaf boosted trees "
        f"(share {share:g})",
        fit,
    )


def logistic(c: float) -> Family:
    def fit(x: np.ndarray, y: list[str], w: np.ndarray) -> Callable[[np.ndarray], list[str]]:
        model, mean, scale = fit_logistic(x, y, w, c)
        return lambda test: list(model.predict((test - mean) / scale))

    return Family(f"logistic regression, C={c:g}", fit)


def boosted() -> Family:
    """The shipped model's trees alone."""

    def fit(x: np.ndarray, y: list[str], w: np.ndarray) -> Callable[[np.ndarray], list[str]]:
        model = fit_trees(x, y, w)
        return lambda test: list(model.predict(test))

    return Family(f"gradient-boosted trees alone ({TREES} x {TREE_LEAVES} leaves)", fit)


def forest() -> Family:
    def fit(x: np.ndarray, y: list[str], w: np.ndarray) -> Callable[[np.ndarray], list[str]]:
        model = RandomForestClassifier(n_estimators=300, min_samples_leaf=2, random_state=0)
        model.fit(x, y, sample_weight=w)
        return lambda test: list(model.predict(test))

    return Family("random forest (300 trees)", fit)


def cross_validate(
    samples: Sequence[Sample], family: Family, balance: float, without: Sequence[str] = ()
) -> list[str]:
    """Each sample's type as predicted by a model fitted on the folds without its site (and
    without the features ``without`` names, see :func:`vocabulary`)."""
    labels = [s.label for s in samples]
    sites = [s.site for s in samples]
    predicted = [""] * len(samples)
    for train, test in GroupKFold(n_splits=FOLDS).split(labels, labels, sites):
        fold = [samples[i] for i in train]
        names = vocabulary(fold, without)
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


def export_trees(model: HistGradientBoostingClassifier, names: Sequence[str]) -> BoostedTrees:
    """The fitted ``model``'s trees, by type in the order of :data:`PAGE_TYPES`, its features
    named by ``names`` (the columns it was fitted on)."""
    order = [list(model.classes_).index(kind) for kind in PAGE_TYPES]

    def tree(nodes: Any) -> Tree:
        leaf = [bool(node["is_leaf"]) for node in nodes]
        return Tree(
            feature=tuple(
                None if end else names[node["feature_idx"]]
                for node, end in zip(nodes, leaf, strict=True)
            ),
            threshold=tuple(
                0.0 if end else float(node["num_threshold"])
                for node, end in zip(nodes, leaf, strict=True)
            ),
            left=tuple(
                0 if end else int(node["left"]) for node, end in zip(nodes, leaf, strict=True)
            ),
            right=tuple(
                0 if end else int(node["right"]) for node, end in zip(nodes, leaf, strict=True)
            ),
            value=tuple(
                float(f"{float(node['value']):.6g}") if end else 0.0
                for node, end in zip(nodes, leaf, strict=True)
            ),
        )

    # The fitted trees and baselines have no public accessor.
    rounds = model._predictors
    baseline = model._baseline_prediction.ravel()
    return BoostedTrees(
        baseline=tuple(float(baseline[k]) for k in order),
        trees=tuple(tuple(tree(round_[k].nodes) for round_ in rounds) for k in order),
    )


def train(samples: Sequence[Sample]) -> PageTypeModel:
    """The shipped model: the logistic regression and the boosted trees fitted on all
    ``samples``."""
    names = vocabulary(samples)
    labels = [s.label for s in samples]
    x = matrix(samples, names)
    weights = class_weights(labels, BALANCE)
    model, mean, scale = fit_logistic(x, labels, weights)
    trees = export_trees(fit_trees(x, labels, weights), names)
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
        trees=trees,
        tree_share=TREE_SHARE,
    )


def write_model(model: PageTypeModel, path: Path = MODEL_PATH) -> None:
    """Write ``model`` as JSON, one line per feature, so that the file reads as a table."""
    data = model.to_json()
    rows = data.pop("features")
    trees = data.pop("trees", None)
    head = json.dumps(data, indent=1)[:-2]
    lines = [f"{head},", ' "features": [']
    lines += [f"  {json.dumps(row, ensure_ascii=False)}," for row in rows]
    lines[-1] = lines[-1].rstrip(",")
    lines.append(" ]")
    if trees is not None:
        lines[-1] += ","
        lines.append(' "trees": [')
        for k, row in enumerate(trees):
            lines.append("  [")
            lines += [f"   {json.dumps(tree, ensure_ascii=False)}," for tree in row]
            lines[-1] = lines[-1].rstrip(",")
            lines.append("  ]" + ("," if k < len(trees) - 1 else ""))
        lines.append(" ]")
    lines += ["}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def _parse_and_extract(extractor: Extractor, body: bytes, url: str | None) -> None:
    """What a crawl pays per page: the parse (as parsel does it) and the extraction."""
    extractor.extract(parse(body), url=url)


def _best(run: Callable[[], object], repeat: int) -> float:
    """The least CPU time of this thread over ``repeat`` calls of ``run``, in seconds: on a
    busy machine the wall-clock time of a millisecond's work includes the time the thread
    waited for a core, which the CPU time does not."""
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        run()
        times.append(time.thread_time() - start)
    return min(times)


def speed(root: Path, repeat: int = 3) -> str:
    """The time the classifier adds to cetd-plus (see the module docstring), as Markdown."""
    peer: Callable[[str], object] | None = None
    if importlib.util.find_spec("trafilatura") is not None:
        import trafilatura  # noqa: PLC0415  (a bench extra, needed for its column only)

        peer = trafilatura.extract
    with_type = get_extractor("cetd-plus", detect_page_type=True)
    without_type = get_extractor("cetd-plus", detect_page_type=False)
    times: dict[str, list[float]] = {"without": [], "with": [], "trafilatura": []}
    ratios = []
    for name in (*LABELLED, *ARTICLES):
        for page in load_dataset(root / name).pages():
            url = page_url(page)
            text = decoded_text(page)
            body = parsel_body(text)
            without = _best(partial(_parse_and_extract, without_type, body, url), repeat)
            classified = _best(partial(_parse_and_extract, with_type, body, url), repeat)
            times["without"].append(without)
            times["with"].append(classified)
            ratios.append(classified / without)
            if peer is not None:
                times["trafilatura"].append(_best(partial(peer, text), repeat))
    median = {key: 1000 * statistics.median(values) for key, values in times.items() if values}
    peer_ms = median.get("trafilatura")

    def against_peer(ms: float) -> str:
        return f"{ms / peer_ms:.3f}" if peer_ms else "-"

    return "\n".join(
        [
            "| pages | cetd-plus without the classifier ms | with it ms | ratio (median) "
            "| trafilatura ms | without ÷ trafilatura | with ÷ trafilatura |",
            "| --: | --: | --: | --: | --: | --: | --: |",
            f"| {len(ratios)} | {median['without']:.2f} | {median['with']:.2f} | "
            f"{statistics.median(ratios):.3f} | {f'{peer_ms:.2f}' if peer_ms else '-'} | "
            f"{against_peer(median['without'])} | {against_peer(median['with'])} |",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.page_types", description=__doc__)
    parser.add_argument("command", choices=("train", "evaluate", "speed"))
    parser.add_argument("--datasets-root", type=Path, default=default_datasets_root())
    parser.add_argument("--compare", action="store_true", help="also the other model families")
    parser.add_argument("--output", type=Path, default=MODEL_PATH, help="where train writes")
    parser.add_argument(
        "--without",
        default="",
        help="evaluate without the features whose names start with these (comma-separated)",
    )
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
    shipped = ensemble()
    without = tuple(name for name in args.without.split(",") if name)
    print(
        report(
            samples,
            cross_validate(samples, shipped, BALANCE, without),
            f"{shipped.name}, class weights ^{BALANCE:g} (shipped)",
        )
    )
    if args.compare:
        for family, balance in (
            (logistic(C), BALANCE),
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

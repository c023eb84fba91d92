"""The trained model: a multinomial logistic regression over the standardised features and
small gradient-boosted trees over the same features, their probabilities averaged, read from
the ``model.json`` beside this module (written by ``python -m benchmarks.page_types
train``). The dot products' numeric part and the trees' walks are compiled passes of
:mod:`scrapy_cetd.page.accel` when it is built (:func:`weighted_sums`, :func:`tree_scores`)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from scrapy_cetd.page import accel
from scrapy_cetd.page.page_types.labels import PAGE_TYPES, PageType

MODEL_PATH = Path(__file__).with_name("model.json")
"""The trained model shipped with the package."""


@dataclass(frozen=True)
class Tree:
    """One regression tree, its nodes in flat lists (node 0 is the root): an inner node ``i``
    sends a page to ``left[i]`` when its feature ``feature[i]`` is at most ``threshold[i]``
    (a feature the page lacks counts as 0), else to ``right[i]``; a leaf (``feature[i]`` is
    ``None``) adds ``value[i]`` to its class's score."""

    feature: tuple[str | None, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]

    def to_json(self) -> list[list[Any]]:
        """The nodes, each ``[feature, threshold, left, right]`` or ``[value]`` for a leaf."""
        return [
            [name, self.threshold[i], self.left[i], self.right[i]] if name else [self.value[i]]
            for i, name in enumerate(self.feature)
        ]

    @classmethod
    def from_json(cls, nodes: Sequence[Sequence[Any]]) -> Tree:
        """The tree :meth:`to_json` wrote; a ``ValueError`` when a node's child is not a node
        after it (which also rules out a loop)."""
        feature: list[str | None] = []
        threshold, values = [], []
        left, right = [], []
        for i, node in enumerate(nodes):
            split = len(node) == 4
            children = (int(node[2]), int(node[3])) if split else (0, 0)
            if split and not all(i < child < len(nodes) for child in children):
                raise ValueError(f"a tree's child is not one of its nodes after {i}: {children}")
            feature.append(str(node[0]) if split else None)
            threshold.append(float(node[1]) if split else 0.0)
            values.append(0.0 if split else float(node[0]))
            left.append(children[0])
            right.append(children[1])
        if not nodes:
            raise ValueError("a tree without nodes")
        return cls(tuple(feature), tuple(threshold), tuple(left), tuple(right), tuple(values))


@dataclass(frozen=True)
class BoostedTrees:
    """Gradient-boosted trees for several classes: a class's score is ``baseline[k]`` plus the
    leaf values of the trees of ``classes[k]``; a softmax over the scores gives the
    probabilities. The trees read the features as they are (no standardisation), and split
    on whichever features, numbers or tokens, separate the types best: they catch what a
    linear model cannot (a combination of signals, a threshold)."""

    baseline: tuple[float, ...]
    trees: tuple[tuple[Tree, ...], ...]
    """``trees[k]``: the trees of class ``k``, in the order they were fitted."""

    _inputs: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _nodes: tuple[tuple[int, ...], tuple[float, ...], tuple[int, ...], tuple[int, ...]] = field(
        init=False, repr=False, compare=False
    )
    _values: tuple[float, ...] = field(init=False, repr=False, compare=False)
    _roots: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Lay all the trees' nodes end to end in flat lists, their features as indices into
        the features the trees read (:attr:`_inputs`), so that a page is read once per
        feature and each tree is a few steps of one loop, without a call."""
        inputs = sorted({name for row in self.trees for t in row for name in t.feature if name})
        index = {name: j for j, name in enumerate(inputs)}
        feature: list[int] = []
        threshold: list[float] = []
        left: list[int] = []
        right: list[int] = []
        values: list[float] = []
        roots = []
        for k, row in enumerate(self.trees):
            for tree in row:
                start = len(feature)
                roots.append((k, start))
                for i, name in enumerate(tree.feature):
                    feature.append(index[name] if name else -1)
                    threshold.append(tree.threshold[i])
                    left.append(start + tree.left[i])
                    right.append(start + tree.right[i])
                    values.append(tree.value[i])
        object.__setattr__(self, "_inputs", tuple(inputs))
        nodes = (tuple(feature), tuple(threshold), tuple(left), tuple(right))
        object.__setattr__(self, "_nodes", nodes)
        object.__setattr__(self, "_values", tuple(values))
        object.__setattr__(self, "_roots", tuple(roots))

    def probabilities(self, features: Mapping[str, float]) -> list[float]:
        """The probability of each class, in the order of :attr:`trees`."""
        get = features.get
        read = [get(name, 0.0) for name in self._inputs]
        return _softmax(tree_scores(read, self._nodes, self._values, self._roots, self.baseline))


@accel.twin(accel.compiled.tree_scores)
def tree_scores(
    read: list[float],
    nodes: tuple[tuple[int, ...], tuple[float, ...], tuple[int, ...], tuple[int, ...]],
    values: tuple[float, ...],
    roots: tuple[tuple[int, int], ...],
    baseline: tuple[float, ...],
) -> list[float]:
    """Each class's score: its ``baseline`` plus the leaf value each of its trees reaches for
    the features ``read`` (the trees laid end to end as :class:`BoostedTrees` lays them, each
    leaf added in the order of ``roots``), in pure Python: the reference the compiled pass
    reproduces."""
    feature, threshold, left, right = nodes
    scores = list(baseline)
    for k, root in roots:
        node = root
        at = feature[node]
        while at >= 0:
            node = left[node] if read[at] <= threshold[node] else right[node]
            at = feature[node]
        scores[k] += values[node]
    return scores


def _softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(score - top) for score in scores]
    norm = sum(exps)
    return [e / norm for e in exps]


@dataclass(frozen=True)
class PageTypeModel:
    """A multinomial logistic regression over standardised features, and optionally
    gradient-boosted trees over the same features, whose probabilities are averaged with the
    regression's (``tree_share`` of the trees', the rest the regression's).

    ``features`` names the inputs (a numeric feature of :data:`.features.FEATURES` or a
    token), and ``mean`` and ``scale`` standardise each; ``weights[k]`` and ``bias[k]``
    score ``classes[k]``. A feature a page lacks counts as 0.
    """

    classes: tuple[str, ...]
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[tuple[float, ...], ...]
    bias: tuple[float, ...]
    trees: BoostedTrees | None = None
    tree_share: float = 0.0

    _constant: tuple[float, ...] = field(init=False, repr=False, compare=False)
    _scaled: dict[str, tuple[float, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Fold the standardisation into the weights: a class's score is a constant plus the
        sum over the features the page has (not 0) of ``weight / scale * value``, so a page
        costs as many steps as it has features, not as the model has."""
        constant = list(self.bias)
        scaled = {}
        for j, name in enumerate(self.features):
            row = tuple(weights[j] / self.scale[j] for weights in self.weights)
            scaled[name] = row
            for k, weight in enumerate(row):
                constant[k] -= weight * self.mean[j]
        object.__setattr__(self, "_constant", tuple(constant))
        object.__setattr__(self, "_scaled", scaled)

    def probabilities(self, features: Mapping[str, float]) -> dict[str, float]:
        """The probability of each class for a page with ``features``."""
        scaled = self._scaled
        rows, values, tokens = [], [], []
        for name, value in features.items():
            row = scaled.get(name)
            if row is None or not value:
                continue
            if value == 1.0:
                tokens.append(row)  # summed below, column by column, exactly: in any order
            else:
                rows.append(row)
                values.append(value)
        scores = weighted_sums(list(self._constant), rows, values)
        if tokens:
            columns = zip(*tokens, strict=True)
            sums = [math.fsum(column) for column in columns]
            scores = [score + total for score, total in zip(scores, sums, strict=True)]
        linear = _softmax(scores)
        if self.trees is not None:
            share = self.tree_share
            trees = self.trees.probabilities(features)
            linear = [(1 - share) * p + share * q for p, q in zip(linear, trees, strict=True)]
        return dict(zip(self.classes, linear, strict=True))

    def predict(self, features: Mapping[str, float]) -> PageType:
        """The most probable type (the first of :attr:`classes` on a tie) and its
        probability."""
        probabilities = self.probabilities(features)
        name = max(self.classes, key=lambda kind: probabilities[kind])
        return PageType(name, probabilities[name])

    def to_json(self) -> dict[str, Any]:
        """The model as a JSON object: the classes, their biases, and one entry per feature
        with its mean, its scale and its weight for each class (in the order of
        ``classes``)."""
        return {
            "kind": "multinomial logistic regression over standardised features",
            "classes": list(self.classes),
            "bias": list(self.bias),
            "features": [
                {
                    "name": name,
                    "mean": self.mean[j],
                    "scale": self.scale[j],
                    "weights": [row[j] for row in self.weights],
                }
                for j, name in enumerate(self.features)
            ],
            **self._trees_json(),
        }

    def _trees_json(self) -> dict[str, Any]:
        """The trees' part of :meth:`to_json`: their share, each class's baseline and trees."""
        if self.trees is None:
            return {}
        return {
            "tree_share": self.tree_share,
            "tree_baseline": list(self.trees.baseline),
            "trees": [[tree.to_json() for tree in trees] for trees in self.trees.trees],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PageTypeModel:
        """The model :meth:`to_json` wrote; a ``ValueError`` when ``data`` is not one."""
        try:
            classes = tuple(str(kind) for kind in data["classes"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a page-type model: {exc!r}") from exc
        unknown = set(classes) - set(PAGE_TYPES)
        if unknown or not classes:
            raise ValueError(f"not a page-type model: classes {sorted(unknown) or 'missing'}")
        try:
            rows = data["features"]
            model = cls(
                classes=classes,
                features=tuple(str(row["name"]) for row in rows),
                mean=tuple(float(row["mean"]) for row in rows),
                scale=tuple(float(row["scale"]) or 1.0 for row in rows),
                weights=tuple(
                    tuple(float(row["weights"][k]) for row in rows) for k in range(len(classes))
                ),
                bias=tuple(float(data["bias"][k]) for k in range(len(classes))),
                trees=_trees_from_json(data, len(classes)),
                tree_share=float(data.get("tree_share", 0.0)),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ValueError(f"not a page-type model: {exc!r}") from exc
        return model


def _trees_from_json(data: Mapping[str, Any], classes: int) -> BoostedTrees | None:
    """The trees :meth:`PageTypeModel.to_json` wrote, ``None`` when it wrote none."""
    if "trees" not in data:
        return None
    trees = tuple(tuple(map(Tree.from_json, row)) for row in data["trees"])
    baseline = tuple(float(value) for value in data["tree_baseline"])
    if len(trees) != classes or len(baseline) != classes:
        raise ValueError(f"trees and baselines for {len(trees)} classes, not {classes}")
    return BoostedTrees(baseline, trees)


@accel.twin(accel.compiled.weighted_sums)
def weighted_sums(
    start: list[float], rows: list[tuple[float, ...]], values: list[float]
) -> list[float]:
    """``start`` plus each row times its value, added one row after the other (the order the
    sums are rounded in), in pure Python: the reference the compiled pass reproduces."""
    sums = start
    for row, value in zip(rows, values, strict=True):
        sums = [total + weight * value for total, weight in zip(sums, row, strict=True)]
    return list(sums)


@cache
def default_model() -> PageTypeModel:
    """The model shipped with the package (:data:`MODEL_PATH`), read once."""
    return PageTypeModel.from_json(json.loads(MODEL_PATH.read_text(encoding="utf-8")))

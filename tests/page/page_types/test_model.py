"""The page-type model: its file, its refusal of what is not one, the trees averaged with the
regression, deterministic training, and the same confidence in every process."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_cetd import PAGE_TYPES
from scrapy_cetd.page.page_types.features import FEATURES
from scrapy_cetd.page.page_types.model import (
    MODEL_PATH,
    BoostedTrees,
    PageTypeModel,
    Tree,
    default_model,
)


def test_the_model_file_is_small_and_names_its_features() -> None:
    assert MODEL_PATH.stat().st_size < 1_000_000
    model = default_model()
    assert model.classes == PAGE_TYPES
    assert set(FEATURES) <= set(model.features)
    assert len(model.weights) == len(PAGE_TYPES)
    assert all(len(row) == len(model.features) for row in model.weights)
    assert all(scale > 0 for scale in model.scale)
    assert model.trees is not None and 0 < model.tree_share < 1
    assert len(model.trees.trees) == len(PAGE_TYPES)
    used = {name for row in model.trees.trees for tree in row for name in tree.feature if name}
    assert used <= set(model.features)  # the trees read the regression's features
    assert PageTypeModel.from_json(model.to_json()) == model


def test_a_model_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="not a page-type model"):
        PageTypeModel.from_json({"classes": ["article"]})
    data = default_model().to_json()
    data["classes"] = ["article", "recipe"]
    with pytest.raises(ValueError, match="recipe"):
        PageTypeModel.from_json(data)
    data = default_model().to_json()
    data["trees"][0][0][0][2] = 10_000  # a child that is not a node of the tree
    with pytest.raises(ValueError, match="not one of its nodes after 0"):
        PageTypeModel.from_json(data)
    data = default_model().to_json()
    data["trees"] = data["trees"][:3]
    with pytest.raises(ValueError, match="3 classes"):
        PageTypeModel.from_json(data)


def test_the_trees_are_averaged_with_the_regression() -> None:
    """A model of two classes, whose regression says nothing (equal scores) and whose one
    tree per class sends a page by its ``code_share``: the probabilities are the trees'
    softmax, weighted by ``tree_share``, and an even split for the rest."""
    split = Tree(("code_share", None, None), (0.5, 0.0, 0.0), (1, 0, 0), (2, 0, 0), (0, -1, 1))
    leaf = Tree((None,), (0.0,), (0,), (0,), (0.0,))
    model = PageTypeModel(
        classes=("article", "documentation"),
        features=("code_share",),
        mean=(0.0,),
        scale=(1.0,),
        weights=((0.0,), (0.0,)),
        bias=(0.0, 0.0),
        trees=BoostedTrees((0.0, 0.0), ((leaf,), (split,))),
        tree_share=0.5,
    )
    low = 1 / (1 + math.e)  # softmax of (0, -1)
    prose = model.probabilities({"code_share": 0.1})
    assert prose["documentation"] == pytest.approx(0.5 * 0.5 + 0.5 * low)
    code = model.probabilities({"code_share": 0.9})
    assert code["documentation"] == pytest.approx(0.5 * 0.5 + 0.5 * (1 - low))
    assert model.probabilities({})["documentation"] == prose["documentation"]  # missing is 0
    assert PageTypeModel.from_json(model.to_json()) == model


def test_training_is_deterministic() -> None:
    pytest.importorskip("sklearn")
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from benchmarks.page_types import Sample, train

    rng = random.Random(7)
    samples = []
    for k in range(70):
        kind = PAGE_TYPES[k % len(PAGE_TYPES)]
        features = {name: rng.random() for name in FEATURES}
        features["code_share"] += PAGE_TYPES.index(kind)
        features[f"folder:{kind}"] = 1.0
        samples.append(Sample(features, kind, f"site{k % 10}.example", "synthetic"))
    first, second = train(samples), train(list(samples))
    assert first == second
    assert first.features[: len(FEATURES)] == FEATURES
    assert "folder:article" in first.features  # a token of ten sites joins the vocabulary
    assert [first.predict(s.features).name for s in samples[:7]] == list(PAGE_TYPES)


def test_the_confidence_is_the_same_in_every_process() -> None:
    """The tokens' weights are summed exactly, so the order of a set (which changes with
    Python's hash seed from one process to the next) does not change the last digits."""
    program = (
        "import sys; sys.path.insert(0, 'tests'); from pagetypekit import HAND_MADE;"
        "from scrapy_cetd import classify_page_type;"
        "print([repr(classify_page_type(s, url=u).confidence) for s, u in HAND_MADE.values()])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", program],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(1, 7)
    }
    assert len(outputs) == 1

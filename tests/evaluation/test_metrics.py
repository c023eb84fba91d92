"""Tests of scrapy_cetd.evaluation.metrics: hand-made cases, properties, and agreement with
score.py."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Sequence
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_cetd.evaluation.datasets import Dataset, default_datasets_root, load_dataset
from scrapy_cetd.evaluation.metrics import (
    PRF,
    bootstrap_interval,
    lcs_length,
    score_text,
    snippet_accuracy,
    tokens,
)

BOILERPLATE = (
    "Home | News | Sport | Contact us",
    "Share this article on Facebook Twitter Email",
    "© 2024 Example Media Ltd. All rights reserved. Privacy policy",
    "Related: ten things you did not know about this story",
)


def naive_lcs(a: Sequence[str], b: Sequence[str]) -> int:
    """The textbook O(len(a) * len(b)) dynamic programme, as an oracle."""
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


# --- tokens ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("  \n\t ", []),
        ("Hello, World!", ["hello", "world"]),
        ("snake_case and kebab-case", ["snake", "case", "and", "kebab", "case"]),
        ("Price: $3,000.50 (2025)", ["price", "3", "000", "50", "2025"]),
        ("Ünïcödé ÉTÉ straße", ["ünïcödé", "été", "straße"]),
        ("don't", ["don", "t"]),
        ("中文分词", ["中", "文", "分", "词"]),
        ("東京タワーへ", ["東", "京", "タ", "ワ", "ー", "へ"]),
        ("한국어 text", ["한", "국", "어", "text"]),
        ("abc中def", ["abc", "中", "def"]),
        ("Привет мир", ["привет", "мир"]),
    ],
)
def test_tokens(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected


# --- lcs_length -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([], [], 0),
        (["a"], [], 0),
        ([], ["a"], 0),
        (["a", "b", "c"], ["a", "b", "c"], 3),
        (["a", "b", "c"], ["c", "b", "a"], 1),
        (["a", "x", "b", "y", "c"], ["a", "b", "c"], 3),
        (["the", "cat", "sat"], ["a", "dog", "ran"], 0),
        (list("ABCBDAB"), list("BDCABA"), 4),
    ],
)
def test_lcs_length_small(a: list[str], b: list[str], expected: int) -> None:
    assert lcs_length(a, b) == expected
    assert lcs_length(b, a) == expected


def test_lcs_length_long_pages() -> None:
    """Sequences longer than a machine word, with one block of boilerplate inserted."""
    rng = random.Random(5)
    page = [f"w{rng.randrange(500)}" for _ in range(3000)]
    with_boilerplate = page[:1000] + ["nav"] * 200 + page[1000:]
    assert lcs_length(page, with_boilerplate) == 3000
    assert lcs_length(page, page[::2]) == 1500


def test_lcs_length_multi_character_tokens_are_not_confused() -> None:
    """Tokens are compared whole, not by their characters or hashes."""
    assert lcs_length(["ab", "c"], ["a", "bc"]) == 0
    assert lcs_length(["1", "10"], ["10", "1"]) == 1


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from("abcde"), max_size=150),
    st.lists(st.sampled_from("abcde"), max_size=150),
)
def test_lcs_length_equals_naive_dp(a: list[str], b: list[str]) -> None:
    assert lcs_length(a, b) == naive_lcs(a, b)


# --- PRF and score_text ---------------------------------------------------------------------


def test_prf_edge_cases() -> None:
    assert PRF.from_counts(0, 0, 0) == PRF(1.0, 1.0, 1.0)
    assert PRF.from_counts(0, 5, 0) == PRF(0.0, 0.0, 0.0)
    assert PRF.from_counts(0, 0, 5) == PRF(0.0, 0.0, 0.0)
    assert PRF.from_counts(0, 4, 5) == PRF(0.0, 0.0, 0.0)
    assert PRF.from_counts(2, 4, 8) == PRF(0.5, 0.25, 2 * 0.5 * 0.25 / 0.75)


def test_score_text_both_empty_is_perfect() -> None:
    assert score_text("", "  ...  ") == {name: PRF(1.0, 1.0, 1.0) for name in ("LCS", "BOW", "SH")}


@pytest.mark.parametrize(("predicted", "gold"), [("", "some gold"), ("some output", "!!")])
def test_score_text_one_empty_is_zero(predicted: str, gold: str) -> None:
    assert score_text(predicted, gold) == {
        name: PRF(0.0, 0.0, 0.0) for name in ("LCS", "BOW", "SH")
    }


def test_score_text_identical_is_perfect() -> None:
    text = "A title\nThe body of the article, with several words in it."
    assert all(prf == PRF(1.0, 1.0, 1.0) for prf in score_text(text, text).values())


def test_score_text_reordering_costs_lcs_and_sh_but_not_bow() -> None:
    gold = "one two three four five six"
    scores = score_text("four five six one two three", gold)
    assert scores["BOW"] == PRF(1.0, 1.0, 1.0)
    assert scores["LCS"] == PRF(0.5, 0.5, 0.5)
    # no 4-token window of the prediction ("four five six one", ...) occurs in the gold
    assert scores["SH"] == PRF(0.0, 0.0, 0.0)


def test_score_text_counts_multisets() -> None:
    scores = score_text("the the the cat", "the cat sat")
    assert scores["BOW"].precision == 2 / 4
    assert scores["BOW"].recall == 2 / 3
    assert scores["LCS"].precision == 2 / 4


def test_score_text_short_texts_are_one_shingle() -> None:
    assert score_text("Hello world", "hello, WORLD!")["SH"] == PRF(1.0, 1.0, 1.0)
    assert score_text("hello world", "hello there")["SH"] == PRF(0.0, 0.0, 0.0)
    # a 2-token prediction against 5 gold tokens: 1 shingle vs 2 shingles, none shared
    assert score_text("a b", "a b c d e")["SH"] == PRF(0.0, 0.0, 0.0)


def test_score_text_added_boilerplate_lowers_precision_only() -> None:
    gold = "alpha beta gamma delta epsilon"
    scores = score_text("menu login " + gold + " footer", gold)
    for name in ("LCS", "BOW"):
        assert scores[name].recall == 1.0
        assert scores[name].precision == 5 / 8
    assert scores["SH"] == PRF.from_counts(2, 5, 2)


# --- snippet_accuracy -----------------------------------------------------------------------


def test_snippet_accuracy_none_without_snippets() -> None:
    assert snippet_accuracy("anything", [], []) is None


def test_snippet_accuracy_collapses_whitespace_and_case() -> None:
    predicted = "The   Main\ntext here. Footer"
    assert snippet_accuracy(predicted, ["the main text", "missing"], ["footer", "Cookies"]) == 0.5
    assert snippet_accuracy(predicted, ["MAIN  text\there"], []) == 1.0
    assert snippet_accuracy("", ["x"], ["y", "z"]) == 2 / 3


# --- bootstrap_interval ---------------------------------------------------------------------


def test_bootstrap_interval_brackets_the_mean() -> None:
    rng = random.Random(3)
    values = [rng.random() for _ in range(200)]
    low, high = bootstrap_interval(values)
    mean = sum(values) / len(values)
    assert low < mean < high
    assert bootstrap_interval(values) == (low, high)
    assert bootstrap_interval(values, seed=1) != (low, high)


def test_bootstrap_interval_constant_values() -> None:
    assert bootstrap_interval([0.5] * 10, resamples=50) == (0.5, 0.5)


@pytest.mark.parametrize(("values", "resamples"), [([], 1000), ([1.0], 0)])
def test_bootstrap_interval_rejects_empty_input(values: list[float], resamples: int) -> None:
    with pytest.raises(ValueError, match="at least one"):
        bootstrap_interval(values, resamples=resamples)


# --- agreement with the reference scorer score.py -------------------------------------------


@pytest.fixture(scope="module")
def reference() -> ModuleType:
    """``../shared/datasets/score.py`` imported by path (skips when it is absent)."""
    root = default_datasets_root()
    if root is None or not (root / "score.py").is_file():
        pytest.skip(f"no score.py in the datasets folder ({root}; $CETD_DATASETS or ../shared)")
    spec = importlib.util.spec_from_file_location("cetd_reference_score", root / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def perturb(gold: str, rng: random.Random) -> str:
    """A plausible imperfect extraction: lines dropped and swapped, boilerplate added."""
    lines = [line for line in gold.splitlines() if rng.random() > 0.15]
    for _ in range(len(lines) // 5):
        i = rng.randrange(len(lines))
        j = min(len(lines) - 1, i + rng.randrange(1, 4))
        lines[i], lines[j] = lines[j], lines[i]
    for snippet in rng.sample(BOILERPLATE, rng.randrange(len(BOILERPLATE) + 1)):
        lines.insert(rng.randrange(len(lines) + 1), snippet)
    return "\n".join(lines)


def sample_pages(dataset: Dataset, count: int, seed: int) -> list[tuple[str, str]]:
    """(prediction, gold) pairs for ``count`` random pages of a dataset."""
    rng = random.Random(seed)
    ids = rng.sample(sorted(dataset.page_ids), count)
    return [(perturb(page.gold, rng), page.gold) for page in dataset.pages(ids)]


def shared_dataset(name: str) -> Dataset:
    root = default_datasets_root()
    if root is None or not (root / name).is_dir():
        pytest.skip(f"dataset {name} not found under ../shared/datasets")
    return load_dataset(root / name)


@pytest.mark.datasets
@pytest.mark.parametrize("name", ["cleaneval", "wcxb"])
def test_score_text_agrees_with_reference(reference: ModuleType, name: str) -> None:
    pairs = sample_pages(shared_dataset(name), 10, seed=len(name))
    pairs += [("", pairs[0][1]), (pairs[1][1], pairs[1][1])]
    for predicted, gold in pairs:
        assert tokens(predicted) == reference.tokens(predicted)
        ours = score_text(predicted, gold)
        expected = reference.f1_scores(predicted, gold)
        assert {k: (v.precision, v.recall, v.f1) for k, v in ours.items()} == expected


@pytest.mark.datasets
def test_lcs_length_agrees_with_reference_on_long_pages(reference: ModuleType) -> None:
    dataset = shared_dataset("cleaneval")
    text = "\n".join(page.gold for page in dataset.pages(dataset.page_ids[:8]))
    gold = tokens(text)
    predicted = tokens(perturb(text, random.Random(11)))
    assert len(gold) > 5000
    assert lcs_length(predicted, gold) == reference.lcs_len(predicted, gold)


@pytest.mark.datasets
def test_bootstrap_interval_agrees_with_reference(reference: ModuleType) -> None:
    pairs = sample_pages(shared_dataset("wcxb"), 10, seed=2)
    pairs += sample_pages(shared_dataset("cleaneval"), 10, seed=3)
    f1s = [score_text(predicted, gold)["LCS"].f1 for predicted, gold in pairs]
    assert bootstrap_interval(f1s) == reference.bootstrap(f1s)
    assert bootstrap_interval(f1s, 200, 7) == reference.bootstrap(f1s, 200, 7)


@pytest.mark.datasets
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80))
def test_score_text_agrees_with_reference_on_any_text(
    reference: ModuleType, predicted: str, gold: str
) -> None:
    ours = score_text(predicted, gold)
    assert {k: (v.precision, v.recall, v.f1) for k, v in ours.items()} == reference.f1_scores(
        predicted, gold
    )

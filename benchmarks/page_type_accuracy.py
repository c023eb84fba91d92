"""Extraction by page type: cetd-plus per WCXB page type, today, by type and against the peers.

One run scores, on every page of ``wcxb`` and ``wcxb_dev`` (WCXB's seven types), with BOW-F1
and SH-F1 as ``score.py`` computes them (:func:`scrapy_cetd.evaluation.metrics.score_text`):

* ``today``: cetd-plus without its type profiles (``type_profiles=False``);
* ``gold``: cetd-plus told the page's gold type (the ceiling of extraction by type);
* ``classifier``: cetd-plus with the type the classifier gives, followed only above the
  profile confidence threshold (what users get with ``detect_page_type=True``). The shipped
  model was trained on these very pages, so its answers here are those of a model trained
  without the page's site: :mod:`benchmarks.page_types` is fitted again on each of five
  folds grouped by site (its ``collect`` and ``train``, scikit-learn from the ``train``
  extra), and each page gets the type and confidence of the fold that did not see its site;
* ``trafilatura``: its documented defaults; with ``--peers`` (and ``--write-docs``), every
  other peer of :data:`benchmarks.peers.PEERS` that is installed too (readability-lxml,
  resiliparse, jusText, boilerpy3, goose3, trafilatura's other settings), called as that
  module calls them, so the by-type table shows whether cetd-plus leads the best of them.
  Each peer's outputs are cached in ``benchmarks/results/tmp`` (keyed by its version), so a
  second run costs only cetd-plus;
* the ablation: each step of the profiles turned off alone, with the gold type (the
  confidence threshold moved, with the classifier's type), as the change in BOW-F1.

Every figure is also given on two halves of the sites (pages grouped by their registered
domain, each domain in one half by a hash of its name), so that a rule can be judged on the
half it was not looked at on. Speed: the median time of cetd-plus with the classifier
(classification included) and of trafilatura, both timed in this run on every
``--speed-every``-th page, parse excluded (trafilatura's own parse included, as it takes
text).

``python -m benchmarks.page_type_accuracy`` prints the tables as Markdown; ``--write-docs``
also puts them into ``docs/page-types.md`` between the markers of its by-type section.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import datasets_root
from benchmarks.peers import PEERS
from benchmarks.speed import decoded_text, parse, parsel_body
from scrapy_cetd.evaluation.datasets import Dataset, Page, load_dataset
from scrapy_cetd.evaluation.metrics import score_text
from scrapy_cetd.extractors.cetd_plus import CetdPlusExtractor
from scrapy_cetd.extractors.cetd_plus.profiles import PROFILES, Profile
from scrapy_cetd.page.page_types import PAGE_TYPES, PageType

DATASETS = ("wcxb", "wcxb_dev")
"""The shared datasets whose pages carry WCXB's page types."""

CACHE = Path("benchmarks", "results", "tmp", "trafilatura-wcxb.json")
"""Where trafilatura's outputs are kept between runs (not committed)."""

DOCS = Path("docs", "page-types.md")
BEGIN = "<!-- by-type results: begin (python -m benchmarks.page_type_accuracy --write-docs) -->"
END = "<!-- by-type results: end -->"

METRICS = ("BOW", "SH")

OTHER_PEERS = tuple(name for name in PEERS if name != "trafilatura")
"""The peers scored beside trafilatura with ``--peers`` (:data:`benchmarks.peers.PEERS`)."""

WCXB_WORD = re.compile(r"\w+")
"""A word as WCXB's own ``evaluate.py`` counts it (on lower-cased text)."""

LEADERBOARD = (
    ("rs-trafilatura", 0.859),
    ("MinerU-HTML (0.6B)", 0.827),
    ("trafilatura", 0.791),
    ("ReaderLM-v2", 0.741),
)
"""WCXB's published leaderboard on its dev split (1,497 pages), with WCXB's own metric."""

STEP_TYPES: Mapping[str, Callable[[Profile], bool]] = {
    "hidden_panels": lambda profile: profile.hidden,
    "thread_posts": lambda profile: profile.thread,
    "whole_page_types": lambda profile: profile.whole_page,
    "main_landmark_share": lambda profile: profile.whole_page or profile.main_bound,
    "record_share": lambda profile: profile.records,
    "after_records_share": lambda profile: profile.records,
    "after_posts_share": lambda profile: profile.posts,
    "unique_blocks": lambda profile: profile.unique_blocks,
    "review_sections": lambda profile: profile.reviews,
    "declared_description": lambda profile: profile.description,
    "signatures": lambda profile: profile.signatures,
    "detail_lists": lambda profile: profile.detail_lists,
    "repeated_labels": lambda profile: profile.labels,
    "post_region": lambda profile: profile.posts,
    "post_forms": lambda profile: profile.forms,
    "whole_posts": lambda profile: profile.posts,
    "post_comments": lambda profile: profile.post_comments,
    "menu_link_chars": lambda profile: profile.menus,
    "before_heading_share": lambda profile: profile.heading_start,
    "remove_controls": lambda profile: profile.controls,
    "remove_badges": lambda profile: profile.badges,
}
"""Which profiles follow each step: the pages of their types are the step's own."""

ABLATIONS: Mapping[str, Mapping[str, Any]] = {
    "hidden_panels": {"hidden_panels": False},
    "thread_posts": {"thread_posts": False},
    "whole_page_types": {"whole_page_types": False},
    "main_landmark_share": {"main_landmark_share": None},
    "record_share": {"record_share": None},
    "after_records_share": {"after_records_share": None},
    "after_posts_share": {"after_posts_share": None},
    "unique_blocks": {"unique_blocks": False},
    "review_sections": {"review_sections": False},
    "declared_description": {"declared_description": False},
    "signatures": {"signatures": False},
    "detail_lists": {"detail_lists": False},
    "repeated_labels": {"repeated_labels": False},
    "post_region": {"post_region": None},
    "post_forms": {"post_forms": False},
    "whole_posts": {"whole_posts": None},
    "post_comments": {"post_comments": None},
    "menu_link_chars": {"menu_link_chars": None},
    "before_heading_share": {"before_heading_share": None},
    "remove_controls": {"remove_controls": False},
    "remove_badges": {"remove_badges": False},
    "profile_confidence 0.5 -> 0": {"profile_confidence": 0.0},
    "profile_confidence 0.5 -> 0.8": {"profile_confidence": 0.8},
}
"""The steps of the profiles, each turned off (or the threshold moved) alone: option values of
cetd-plus by name."""

THRESHOLDS = frozenset(name for name in ABLATIONS if name.startswith("profile_confidence"))
"""The ablations that move the confidence threshold: run with the classifier's type."""

PREDICTIONS = Path("benchmarks", "results", "tmp", "page-types-out-of-fold.json")
"""Where the out-of-fold page types are kept between runs (not committed)."""

CLASSIFIER_SOURCES = (
    Path(__file__).with_name("page_types.py"),
    *sorted((Path(__file__).parents[1] / "scrapy_cetd" / "page" / "page_types").glob("*.*")),
)
"""What the out-of-fold types depend on: the training, the features and the shipped model (a
retrain changes it)."""


@dataclass
class Outcome:
    """The scores of the systems on one page."""

    id: str
    page_type: str
    domain: str
    half: str
    predicted: str
    confidence: float
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    """System name -> metric -> F1."""


def site_half(domain: str) -> str:
    """``A`` or ``B``: the half of the sites ``domain`` is in, by a hash of its name."""
    return "AB"[hashlib.sha1(domain.encode()).digest()[0] % 2]


def domain_of(page: Page) -> str:
    """The page's registered domain (WCXB gives it; else the host of its URL)."""
    domain = page.meta.get("domain")
    if isinstance(domain, str) and domain:
        return domain
    url = str(page.meta.get("url") or "")
    return url.split("/")[2] if url.count("/") >= 2 else page.id


def peer_outputs(
    name: str, pages: Sequence[tuple[str, Dataset, str]], refresh: bool
) -> dict[str, str]:
    """The text the peer ``name`` (:data:`benchmarks.peers.PEERS`) gives on every page, read
    from its cache (:func:`cache_of`) when that holds this version's outputs."""
    peer = PEERS[name]
    path, version = cache_of(name), peer.version()
    cached: dict[str, str] = {}
    if path.is_file() and not refresh:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("version") == version:
            cached = stored["outputs"]
    missing = [(key, dataset, page_id) for key, dataset, page_id in pages if key not in cached]
    run = peer.make() if missing else None
    for n, (key, dataset, page_id) in enumerate(missing, 1):
        assert run is not None
        try:
            cached[key] = run(decoded_text(dataset.page(page_id)))
        except Exception:  # a failure counts as empty output, as in score.py
            cached[key] = ""
        if n % 100 == 0:
            print(f"{name}: {n}/{len(missing)}", file=sys.stderr)
    if missing:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"version": version, "outputs": cached}), encoding="utf-8")
    return cached


def cache_of(peer: str) -> Path:
    """Where the outputs of ``peer`` are kept between runs (not committed)."""
    return CACHE.with_name(f"{peer}-wcxb.json")


def out_of_fold_types(refresh: bool) -> dict[str, PageType]:
    """The type of each page of :data:`DATASETS` by a model trained without its site, read
    from :data:`PREDICTIONS` when it was made by today's classifier (:func:`classifier_digest`)."""
    digest = classifier_digest()
    stored = None if refresh else stored_types(digest)
    if stored is not None:
        return stored
    from sklearn.model_selection import GroupKFold  # noqa: PLC0415 - the train extra

    from benchmarks import page_types  # noqa: PLC0415 - imports scikit-learn

    root = datasets_root()
    assert root is not None
    samples = page_types.collect(root)
    keys = [
        f"{name}/{page_id}"
        for name in page_types.LABELLED
        for page_id in load_dataset(root / name).page_ids
    ]
    labels = [sample.label for sample in samples]
    sites = [sample.site for sample in samples]
    found: dict[str, PageType] = {}
    for train, test in GroupKFold(n_splits=page_types.FOLDS).split(labels, labels, sites):
        model = page_types.train([samples[i] for i in train])
        for i in test:
            if i < len(keys):
                found[keys[i]] = model.predict(samples[i].features)
    PREDICTIONS.parent.mkdir(parents=True, exist_ok=True)
    types = {key: (kind.name, kind.confidence) for key, kind in found.items()}
    PREDICTIONS.write_text(json.dumps({"digest": digest, "types": types}), encoding="utf-8")
    return found


def stored_types(digest: str) -> dict[str, PageType] | None:
    """The out-of-fold types :data:`PREDICTIONS` holds, if the classifier of ``digest`` made
    them."""
    if not PREDICTIONS.is_file():
        return None
    stored = json.loads(PREDICTIONS.read_text(encoding="utf-8"))
    if stored.get("digest") != digest:
        return None
    return {key: PageType(name, confidence) for key, (name, confidence) in stored["types"].items()}


def classifier_digest() -> str:
    """A digest of :data:`CLASSIFIER_SOURCES`: the stored out-of-fold types are used only while
    it is the same, so that a change to the classifier is never scored with the old types."""
    digest = hashlib.sha256()
    for path in CLASSIFIER_SOURCES:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def wcxb_f1(predicted: str, gold: str) -> float:
    """WCXB's own metric: F1 of the bags of ``\\w+`` words of the lower-cased texts (1 when both
    are empty, 0 when one is)."""
    found = Counter(WCXB_WORD.findall(predicted.lower()))
    wanted = Counter(WCXB_WORD.findall(gold.lower()))
    if not found or not wanted:
        return float(found == wanted)
    overlap = sum((found & wanted).values())
    if not overlap:
        return 0.0
    precision, recall = overlap / found.total(), overlap / wanted.total()
    return 2 * precision * recall / (precision + recall)


def f1s(predicted: str, gold: str) -> dict[str, float]:
    """BOW-F1 and SH-F1 of ``predicted`` against ``gold``, and WCXB's own metric."""
    scored = score_text(predicted, gold)
    return {**{metric: scored[metric].f1 for metric in METRICS}, "WCXB": wcxb_f1(predicted, gold)}


def systems(kind: PageType, gold: PageType) -> Iterator[tuple[str, CetdPlusExtractor, PageType]]:
    """The cetd-plus configurations scored on a page: name, extractor, type it is told."""
    plain = CetdPlusExtractor()
    yield "gold", plain, gold
    yield "classifier", plain, kind
    for name, options in ABLATIONS.items():
        ablated = CetdPlusExtractor(**options)
        if name in THRESHOLDS:
            yield f"classifier -{name}", ablated, kind
        else:
            yield f"gold -{name}", ablated, gold


def run(
    datasets: Sequence[Dataset], refresh: bool, speed_every: int, peers: Sequence[str] = ()
) -> tuple[list[Outcome], dict[str, float]]:
    """Score every page of ``datasets``, with trafilatura and the other ``peers``; the median
    milliseconds of the timed systems."""
    import trafilatura  # noqa: PLC0415 - the bench extra

    pages = [
        (f"{dataset.name}/{page_id}", dataset, page_id)
        for dataset in datasets
        for page_id in dataset.page_ids
    ]
    outputs = {name: peer_outputs(name, pages, refresh) for name in ("trafilatura", *peers)}
    types = out_of_fold_types(refresh)
    today = CetdPlusExtractor(type_profiles=False)
    timed = CetdPlusExtractor(detect_page_type=True)
    outcomes = []
    times: dict[str, list[float]] = {
        "cetd-plus, type forced": [],
        "cetd-plus + classifier": [],
        "trafilatura": [],
    }
    for n, (key, dataset, page_id) in enumerate(pages):
        page = dataset.page(page_id)
        text = decoded_text(page)
        tree = parse(parsel_body(text))
        url = str(page.meta.get("url") or "") or None
        kind = types[key]
        domain = domain_of(page)
        outcome = Outcome(
            key, page.page_type, domain, site_half(domain), kind.name, kind.confidence
        )
        outcome.scores["today"] = f1s(today.extract_as(tree, None).text, page.gold)
        for name, extractor, told in systems(kind, PageType(page.page_type, 1.0)):
            outcome.scores[name] = f1s(extractor.extract_as(tree, told).text, page.gold)
        for name, texts in outputs.items():
            outcome.scores[name] = f1s(texts[key], page.gold)
        outcomes.append(outcome)
        if speed_every and n % speed_every == 0:
            start = time.perf_counter()
            CetdPlusExtractor(page_type=page.page_type).extract(tree, url=url)
            forced = time.perf_counter()
            timed.extract(tree, url=url)
            middle = time.perf_counter()
            trafilatura.extract(text)
            end = time.perf_counter()
            times["cetd-plus, type forced"].append(1000 * (forced - start))
            times["cetd-plus + classifier"].append(1000 * (middle - forced))
            times["trafilatura"].append(1000 * (end - middle))
        if (n + 1) % 200 == 0:
            print(f"cetd-plus: {n + 1}/{len(pages)}", file=sys.stderr)
    return outcomes, {name: statistics.median(ms) for name, ms in times.items() if ms}


def mean(outcomes: Sequence[Outcome], system: str, metric: str) -> float:
    """The mean F1 of ``system`` over ``outcomes`` (0 for none)."""
    return statistics.fmean(o.scores[system][metric] for o in outcomes) if outcomes else 0.0


def type_table(outcomes: Sequence[Outcome]) -> str:
    """Per type and over all pages: today, gold type, classifier type, trafilatura."""
    shown = ("today", "gold", "classifier", "trafilatura")
    lines = [
        "| type | pages | "
        + " | ".join(f"{s} BOW | {s} SH" for s in shown)
        + " | classifier accuracy |",
        "| :-- | --: | " + " | ".join("--: | --:" for _ in shown) + " | --: |",
    ]
    groups = [(t, [o for o in outcomes if o.page_type == t]) for t in PAGE_TYPES]
    groups.append(("**all**", list(outcomes)))
    for name, group in groups:
        cells = [f"{mean(group, s, m):.3f}" for s in shown for m in METRICS]
        accuracy = sum(o.predicted == o.page_type for o in group) / len(group) if group else 0.0
        lines.append(f"| {name} | {len(group)} | " + " | ".join(cells) + f" | {accuracy:.2f} |")
    return "\n".join(lines)


def wcxb_table(outcomes: Sequence[Outcome]) -> str:
    """WCXB's own metric over these pages, beside its published dev-split leaderboard."""
    lines = ["| system | WCXB word F1 | measured |", "| :-- | --: | :-- |"]
    names = {"today": "cetd-plus (today)", "gold": "cetd-plus, gold type"}
    names |= {"classifier": "cetd-plus, classifier's type", "trafilatura": "trafilatura"}
    for system, name in names.items():
        lines.append(f"| {name} | {mean(outcomes, system, 'WCXB'):.3f} | this run |")
    for name, score in LEADERBOARD:
        lines.append(f"| {name} | {score:.3f} | published (dev split, 1,497 pages) |")
    return "\n".join(lines)


def peers_table(outcomes: Sequence[Outcome], peers: Sequence[str]) -> str:
    """BOW-F1 per type of cetd-plus (classifier's type, gold type) beside every peer: the best
    peer, and whether cetd-plus with the classifier's type is ahead of it."""
    shown = ("classifier", "gold", "trafilatura", *peers)
    lines = [
        "| type | pages | cetd-plus, classifier | cetd-plus, gold | "
        + " | ".join(shown[2:])
        + " | best peer | classifier ahead |",
        "| :-- | --: | " + " | ".join("--:" for _ in shown) + " | :-- | :-- |",
    ]
    groups = [(t, [o for o in outcomes if o.page_type == t]) for t in PAGE_TYPES]
    groups.append(("**all**", list(outcomes)))
    for name, group in groups:
        scores = {system: mean(group, system, "BOW") for system in shown}
        best = max(shown[2:], key=lambda system: scores[system])
        ahead = "yes" if scores["classifier"] > scores[best] else "no"
        cells = [f"{scores[system]:.3f}" for system in shown]
        lines.append(f"| {name} | {len(group)} | " + " | ".join(cells) + f" | {best} | {ahead} |")
    return "\n".join(lines)


def halves_table(outcomes: Sequence[Outcome]) -> str:
    """BOW-F1 per type on each half of the sites: today, gold type, classifier type."""
    lines = [
        "| type | half | pages | today | gold | classifier | trafilatura |",
        "| :-- | :-- | --: | --: | --: | --: | --: |",
    ]
    for page_type in (*PAGE_TYPES, "all"):
        for half in "AB":
            group = [o for o in outcomes if o.half == half and page_type in ("all", o.page_type)]
            cells = [
                f"{mean(group, s, 'BOW'):.3f}"
                for s in ("today", "gold", "classifier", "trafilatura")
            ]
            lines.append(f"| {page_type} | {half} | {len(group)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ablation_table(outcomes: Sequence[Outcome]) -> str:
    """The change in BOW-F1 when each step is turned off (or the threshold moved), over all
    pages, then over the pages of the types whose profile has the step, whole and on each
    half of the sites."""
    lines = [
        "| step turned off | type told | all pages | its types | pages | on them | half A "
        "| half B |",
        "| :-- | :-- | --: | :-- | --: | --: | --: | --: |",
    ]
    for name in ABLATIONS:
        told = "classifier" if name in THRESHOLDS else "gold"
        has_step = STEP_TYPES.get(name)
        types = (
            {kind for kind, profile in PROFILES.items() if has_step(profile)}
            if has_step is not None
            else set(PAGE_TYPES)  # a threshold changes what any page, articles too, is told
        )
        own = [o for o in outcomes if o.page_type in types]

        def delta(group: Sequence[Outcome], told: str = told, name: str = name) -> str:
            return f"{mean(group, f'{told} -{name}', 'BOW') - mean(group, told, 'BOW'):+.4f}"

        halves = [delta([o for o in own if o.half == half]) for half in "AB"]
        cells = [delta(outcomes), type_label(types), str(len(own)), delta(own), *halves]
        lines.append(f"| `{name}` | {told} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def type_label(types: set[str]) -> str:
    """The types of a step, in :data:`PAGE_TYPES` order."""
    return ", ".join(kind for kind in PAGE_TYPES if kind in types)


def report(outcomes: Sequence[Outcome], speed: Mapping[str, float]) -> str:
    """The Markdown tables of a run."""
    parts = [
        f"Pages: {len(outcomes)} (`{'` + `'.join(DATASETS)}`), BOW-F1 and SH-F1 as `score.py`.",
        "",
        type_table(outcomes),
        "",
        "WCXB's own metric (word F1 over `\\w+` bags of the lower-cased texts, as WCXB's"
        " `evaluate.py`), beside WCXB's published leaderboard (its dev split, of which these"
        " pages are the usable part):",
        "",
        wcxb_table(outcomes),
        "",
        "BOW-F1 on two halves of the sites (no site in both):",
        "",
        halves_table(outcomes),
    ]
    peers = [name for name in OTHER_PEERS if outcomes and name in outcomes[0].scores]
    if peers:
        absent = [name for name in OTHER_PEERS if name not in peers]
        parts += [
            "",
            "BOW-F1 per type beside every peer (each with its documented defaults, as"
            " `benchmarks/peers.py` calls it):",
            "",
            peers_table(outcomes, peers),
        ]
        if absent:
            parts += ["", f"Not installed, so not scored: {', '.join(absent)}."]
    if ABLATIONS:
        parts += [
            "",
            "Each step turned off alone (change in BOW-F1):",
            "",
            ablation_table(outcomes),
        ]
    if speed:
        parts += [
            "",
            "| system | median ms per page (parse excluded) | / trafilatura |",
            "| :-- | --: | --: |",
            *(
                f"| {name} | {ms:.1f} | {ms / speed['trafilatura']:.2f} |"
                for name, ms in speed.items()
            ),
        ]
    return "\n".join(parts)


def write_docs(text: str) -> None:
    """Replace what lies between :data:`BEGIN` and :data:`END` in :data:`DOCS` by ``text``."""
    page = DOCS.read_text(encoding="utf-8")
    head, found, rest = page.partition(BEGIN)
    _, found_end, tail = rest.partition(END)
    if not (found and found_end):
        raise SystemExit(f"{DOCS} lacks the markers {BEGIN!r} and {END!r}")
    DOCS.write_text(f"{head}{BEGIN}\n\n{text}\n\n{END}{tail}", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refresh", action="store_true", help="run trafilatura again")
    parser.add_argument(
        "--speed-every", type=int, default=10, help="time every n-th page (0: none)"
    )
    parser.add_argument(
        "--pages", type=Path, help="write the per-page scores and times to this JSON file"
    )
    parser.add_argument(
        "--report-from", type=Path, help="report the scores and times a --pages file holds"
    )
    parser.add_argument(
        "--peers",
        action="store_true",
        help="score the other peers too (slow the first time; their outputs are cached)",
    )
    parser.add_argument(
        "--write-docs", action="store_true", help=f"write the tables into {DOCS} (with --peers)"
    )
    args = parser.parse_args(argv)
    root = datasets_root()
    if root is None:
        raise SystemExit("no shared datasets: set $CETD_DATASETS")
    if args.report_from:
        stored = json.loads(args.report_from.read_text(encoding="utf-8"))
        outcomes = [Outcome(**fields) for fields in stored["outcomes"]]
        speed = stored["speed"]
    else:
        datasets = [load_dataset(root / name) for name in DATASETS]
        peers: tuple[str, ...] = ()
        if args.peers or args.write_docs:
            peers = tuple(name for name in OTHER_PEERS if PEERS[name].available())
        outcomes, speed = run(datasets, args.refresh, args.speed_every, peers)
    text = report(outcomes, speed)
    print(text)
    if args.pages:
        stored = {"outcomes": [o.__dict__ for o in outcomes], "speed": speed}
        args.pages.write_text(json.dumps(stored), encoding="utf-8")
    if args.write_docs:
        write_docs(text)


if __name__ == "__main__":
    main()

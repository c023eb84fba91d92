"""Scoring page metadata (headline, authors, publication date, site name) against the gold of
the datasets that give it.

The gold is read from each page's MANIFEST entry: ``title``, ``author`` and ``publish_date``
(WCXB) or ``title``, ``byline``, ``site_name`` and ``published_time`` (Readability's test
pages); a null value means the page has none. The matches, the same for every system:

- **date**: the same day (the first ten characters of both ISO 8601 values), over the pages
  with a gold date; a *false positive* is a date predicted on a page whose gold has none;
- **title**: equal after :func:`normalize` (case, white space and punctuation ignored), and the
  token F1 of the two normalised titles;
- **author**: both sides are split into names (:func:`author_names`); a page matches when every
  gold name is among the predicted ones (a page that credits more people than its gold still
  names the right ones), over the pages with gold authors;
- **site name**: equal after :func:`normalize`, over the pages with a gold site name.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from time import perf_counter
from typing import Any

from scrapy_cetd.api import extract
from scrapy_cetd.evaluation.datasets import Dataset, Page, systems_on_several_datasets
from scrapy_cetd.extractors.registry import DEFAULT_ALGORITHM
from scrapy_cetd.page.metadata import load_metadata_libraries

__all__ = [
    "MetadataGuess",
    "MetadataScore",
    "PredictMetadata",
    "author_names",
    "evaluate_metadata",
    "format_metadata_table",
    "has_metadata_gold",
    "mean_metadata_scores",
    "metadata_predictor",
    "normalize",
]

GOLD_KEYS = ("author", "publish_date", "byline", "published_time", "site_name")
"""MANIFEST keys of metadata gold besides ``title`` (which text-only datasets give too)."""


@dataclass(frozen=True)
class MetadataGuess:
    """What a system says about one page (``None`` or empty: it says nothing)."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    published: str | None = None
    site_name: str | None = None


PredictMetadata = Callable[[Page], MetadataGuess]
"""A system under test: the metadata of a page."""


def metadata_predictor(algorithm: str = DEFAULT_ALGORITHM, **options: Any) -> PredictMetadata:
    """scrapy-cetd as a system under test: ``extract(..., metadata=True)`` on the page's bytes,
    with its URL and encoding, as a crawl would call it. The metadata's libraries are loaded
    now, as a crawl loads them before its first page, so that no page's time counts their
    loading."""
    load_metadata_libraries()

    def predict(page: Page) -> MetadataGuess:
        url = page.meta.get("url")
        result = extract(
            page.html,
            algorithm=algorithm,
            url=url if isinstance(url, str) else None,
            encoding=page.encoding,
            metadata=True,
            **options,
        )
        found = result.metadata
        if found is None:
            return MetadataGuess()
        return MetadataGuess(found.title, found.authors, found.published, found.site_name)

    return predict


def has_metadata_gold(dataset: Dataset) -> bool:
    """Whether the pages of ``dataset`` carry metadata gold (:data:`GOLD_KEYS`)."""
    return any(any(key in meta for key in GOLD_KEYS) for meta in dataset.manifest["pages"].values())


_NAME_SPLIT = re.compile(r"\s*(?:[,;&|/]|\band\b)\s*", re.IGNORECASE)
_DEGREE = re.compile(r"^\S{1,4}$")


def normalize(value: str | None) -> str:
    """``value`` case-folded, NFKC-normalised, its punctuation dropped and white space
    collapsed."""
    if not value:
        return ""
    folded = unicodedata.normalize("NFKC", value).casefold()
    kept = "".join(c if c.isalnum() else " " for c in folded)
    return " ".join(kept.split())


def author_names(value: str | Iterable[str] | None) -> frozenset[str]:
    """The normalised names of an author string or list: split at commas, semicolons, ``&``,
    ``|``, ``/`` and the word "and"; parts of one word of at most four characters after the
    first (degrees such as ``MS``, ``RD``, ``PhD``) dropped."""
    if not value:
        return frozenset()
    raw = [value] if isinstance(value, str) else list(value)
    names: list[str] = []
    for item in raw:
        parts = [normalize(part) for part in _NAME_SPLIT.split(item)]
        parts = [part for part in parts if part]
        names.extend(parts[:1] + [part for part in parts[1:] if not _DEGREE.match(part)])
    return frozenset(names)


def _token_f1(predicted: str, gold: str) -> float:
    """The F1 of the normalised tokens of two titles (bags of words)."""
    guess, truth = Counter(predicted.split()), Counter(gold.split())
    common = sum((guess & truth).values())
    if not common:
        return 0.0
    precision, recall = common / sum(guess.values()), common / sum(truth.values())
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class _Gold:
    title: str | None
    authors: str | None
    date: str | None
    site_name: str | None
    has_site_name: bool


def _gold(page: Page) -> _Gold:
    meta = page.meta

    def text(*keys: str) -> str | None:
        for key in keys:
            value = meta.get(key)
            if isinstance(value, str) and value.strip():
                return value
        return None

    return _Gold(
        title=text("title"),
        authors=text("author", "byline"),
        date=text("publish_date", "published_time"),
        site_name=text("site_name"),
        has_site_name="site_name" in meta,
    )


@dataclass
class _Tally:
    hits: int = 0
    total: int = 0

    def add(self, hit: bool) -> None:
        self.hits += hit
        self.total += 1

    def rate(self) -> float | None:
        return self.hits / self.total if self.total else None


@dataclass(frozen=True)
class MetadataScore:
    """One system's metadata scores on one dataset; a rate is ``None`` when no page has the
    gold it needs."""

    dataset: str
    system: str
    pages: int
    failures: int
    """Pages where the system raised: scored as saying nothing."""
    date_accuracy: float | None
    """Exact day, over the pages with a gold date (``date_pages``)."""
    date_pages: int
    date_false_positives: float | None
    """Pages given a date among those whose gold has none (``undated_pages``)."""
    undated_pages: int
    title_exact: float | None
    title_f1: float | None
    author_match: float | None
    """Over the pages with gold authors (``author_pages``): every gold name is predicted."""
    author_exact: float | None
    """Over the same pages: the predicted names are the gold's, no more (a job title or a
    second byline's name taken for an author is a miss here, not in ``author_match``)."""
    author_pages: int
    site_name_exact: float | None
    """Over the pages with a gold site name (``site_pages``)."""
    site_pages: int
    ms_median: float
    page_ms: tuple[float, ...] = field(default=(), repr=False, compare=False)
    """Each page's milliseconds, for the median over several datasets
    (:func:`mean_metadata_scores`); not in :meth:`to_dict`."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the scores, without the pages' times."""
        record = asdict(self)
        del record["page_ms"]
        return record


def evaluate_metadata(
    dataset: Dataset,
    predict: PredictMetadata,
    *,
    system: str,
    ids: Iterable[str] | None = None,
) -> MetadataScore:
    """Score ``predict`` on the pages of ``dataset`` (all, or those of ``ids``); an exception
    it raises on a page counts as a failure that says nothing, and never propagates."""
    date, false_date, title, site = _Tally(), _Tally(), _Tally(), _Tally()
    author, author_exact = _Tally(), _Tally()
    title_f1: list[float] = []
    times: list[float] = []
    pages = failures = 0
    for page in dataset.pages(ids):
        pages += 1
        start = perf_counter()
        try:
            guess = predict(page)
        except Exception:
            guess, failures = MetadataGuess(), failures + 1
        times.append((perf_counter() - start) * 1000)
        gold = _gold(page)
        if gold.date:
            date.add(guess.published is not None and guess.published[:10] == gold.date[:10])
        else:
            false_date.add(bool(guess.published))
        if gold.title:
            predicted, truth = normalize(guess.title), normalize(gold.title)
            title.add(predicted == truth)
            title_f1.append(_token_f1(predicted, truth))
        if gold.authors:
            names, guessed = author_names(gold.authors), author_names(guess.authors)
            author.add(bool(names) and names <= guessed)
            author_exact.add(bool(names) and names == guessed)
        if gold.site_name:
            site.add(normalize(guess.site_name) == normalize(gold.site_name))
    return MetadataScore(
        dataset=dataset.name,
        system=system,
        pages=pages,
        failures=failures,
        date_accuracy=date.rate(),
        date_pages=date.total,
        date_false_positives=false_date.rate(),
        undated_pages=false_date.total,
        title_exact=title.rate(),
        title_f1=sum(title_f1) / len(title_f1) if title_f1 else None,
        author_match=author.rate(),
        author_exact=author_exact.rate(),
        author_pages=author.total,
        site_name_exact=site.rate(),
        site_pages=site.total,
        ms_median=sorted(times)[len(times) // 2] if times else 0.0,
        page_ms=tuple(times),
    )


def mean_metadata_scores(scores: Sequence[MetadataScore]) -> list[MetadataScore]:
    """A row per system of ``scores`` scored on more than one dataset, in the order the
    systems first appear, its dataset ``mean of N datasets``: each rate the mean of the
    datasets' rates, each dataset weighing the same (over the datasets that have that rate: a
    site name is scored on Readability's pages alone), the pages counted in each its sum, the
    median time over all their pages."""
    means = []
    for system, rows in systems_on_several_datasets(scores).items():

        def mean(
            rate: Callable[[MetadataScore], float | None], rows: list[MetadataScore] = rows
        ) -> float | None:
            values = [value for row in rows if (value := rate(row)) is not None]
            return sum(values) / len(values) if values else None

        times = tuple(ms for row in rows for ms in row.page_ms)
        means.append(
            MetadataScore(
                dataset=f"mean of {len(rows)} datasets",
                system=system,
                pages=sum(row.pages for row in rows),
                failures=sum(row.failures for row in rows),
                date_accuracy=mean(lambda row: row.date_accuracy),
                date_pages=sum(row.date_pages for row in rows),
                date_false_positives=mean(lambda row: row.date_false_positives),
                undated_pages=sum(row.undated_pages for row in rows),
                title_exact=mean(lambda row: row.title_exact),
                title_f1=mean(lambda row: row.title_f1),
                author_match=mean(lambda row: row.author_match),
                author_exact=mean(lambda row: row.author_exact),
                author_pages=sum(row.author_pages for row in rows),
                site_name_exact=mean(lambda row: row.site_name_exact),
                site_pages=sum(row.site_pages for row in rows),
                ms_median=statistics.median(times) if times else 0.0,
                page_ms=times,
            )
        )
    return means


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def format_metadata_table(scores: Sequence[MetadataScore], *, means: bool = False) -> str:
    """A Markdown table of metadata scores, one row per (dataset, system) in the given order;
    the number of pages each rate is over is in its column's cells. With ``means``, a row
    per system scored on more than one dataset follows (:func:`mean_metadata_scores`)."""
    header = (
        "| dataset | system | pages | date (exact day) | date false pos. | title exact "
        "| title token F1 | author | author exact | site name | ms median |"
    )
    lines = [header, "| :-- | :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: |"]
    for score in [*scores, *(mean_metadata_scores(scores) if means else ())]:
        cells = [
            score.dataset,
            score.system,
            str(score.pages) + (f" ({score.failures} failed)" if score.failures else ""),
            f"{_rate(score.date_accuracy)} / {score.date_pages}",
            f"{_rate(score.date_false_positives)} / {score.undated_pages}",
            _rate(score.title_exact),
            _rate(score.title_f1),
            f"{_rate(score.author_match)} / {score.author_pages}",
            _rate(score.author_exact),
            f"{_rate(score.site_name_exact)} / {score.site_pages}",
            f"{score.ms_median:.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

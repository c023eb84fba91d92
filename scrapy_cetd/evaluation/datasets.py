"""Reading evaluation datasets: a folder of pages with their gold main content.

A dataset folder holds ``MANIFEST.json`` (the page list and its metadata), ``html/ID.html.gz``
(the archived page, gzipped original bytes) and ``gold/ID.txt`` (the gold main content, UTF-8).
Pages are read lazily, one at a time, so a whole dataset never has to sit in memory.

:func:`systems_on_several_datasets` groups the systems' scores on several datasets, text or
metadata, for their means over the datasets.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

__all__ = [
    "DATASETS_ENV",
    "Dataset",
    "Page",
    "default_datasets_root",
    "find_datasets",
    "load_dataset",
    "systems_on_several_datasets",
]

DATASETS_ENV = "CETD_DATASETS"
"""Environment variable that points at the folder holding the datasets."""

MANIFEST = "MANIFEST.json"
"""File name of a dataset's page list; its presence marks a dataset folder."""


@dataclass(frozen=True)
class Page:
    """One page of a dataset: its archived HTML, its gold text and its MANIFEST entry."""

    id: str
    html: bytes
    """The page as archived: original bytes in the original encoding."""
    gold: str
    """The gold main content, one block per line."""
    meta: Mapping[str, Any]
    """The page's entry in ``MANIFEST.json["pages"]`` (url, lang, page_type, encoding, ...)."""

    @property
    def encoding(self) -> str | None:
        """The declared or verified encoding of ``html``; ``None`` when it must be detected."""
        return _optional_str(self.meta, "encoding")

    @property
    def page_type(self) -> str:
        """The kind of page (``article``, ``forum``, ``listing``, ...); ``article`` by default."""
        return _optional_str(self.meta, "page_type") or "article"

    @property
    def lang(self) -> str | None:
        """The page's language code, when the dataset gives it."""
        return _optional_str(self.meta, "lang")

    @property
    def snippets_with(self) -> tuple[str, ...]:
        """Snippets a correct extraction contains (WCXB only; empty elsewhere)."""
        return _str_tuple(self.meta, "with")

    @property
    def snippets_without(self) -> tuple[str, ...]:
        """Boilerplate snippets a correct extraction leaves out (WCXB only; empty elsewhere)."""
        return _str_tuple(self.meta, "without")


def _optional_str(meta: Mapping[str, Any], key: str) -> str | None:
    """``meta[key]`` when it is a non-empty string, else ``None``."""
    value = meta.get(key)
    return value if isinstance(value, str) and value else None


def _str_tuple(meta: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """The strings of the list ``meta[key]``; empty when the key is absent or null."""
    return tuple(str(item) for item in meta.get(key) or ())


@dataclass(frozen=True)
class Dataset:
    """A dataset folder and its parsed ``MANIFEST.json``; pages are read on demand."""

    path: Path
    name: str
    manifest: Mapping[str, Any]

    @property
    def page_ids(self) -> tuple[str, ...]:
        """The IDs of all pages, in MANIFEST order."""
        return tuple(self._page_meta())

    def __len__(self) -> int:
        return len(self._page_meta())

    def pages(self, ids: Iterable[str] | None = None) -> Iterator[Page]:
        """The pages with the given IDs (all pages by default), read one at a time.

        Unknown IDs are reported at once, before any page is read, so a typo does not surface
        only after a long run.
        """
        wanted = self.page_ids if ids is None else tuple(ids)
        unknown = [page_id for page_id in wanted if page_id not in self._page_meta()]
        if unknown:
            raise ValueError(f"{self.path}: no page {', '.join(map(repr, unknown))} in {MANIFEST}")
        return (self._read_page(page_id) for page_id in wanted)

    def page(self, page_id: str) -> Page:
        """One page by its ID."""
        return next(self.pages([page_id]))

    def missing_files(self, ids: Iterable[str] | None = None) -> list[Path]:
        """The HTML and gold files that the pages with the given IDs (all pages by default)
        lack, in their order: checked before a long run, as a missing file stops the reading
        of the pages."""
        wanted = self.page_ids if ids is None else tuple(ids)
        return [file for page_id in wanted for file in self._files(page_id) if not file.is_file()]

    def _files(self, page_id: str) -> tuple[Path, Path]:
        """The HTML and the gold text of a page."""
        return self.path / "html" / f"{page_id}.html.gz", self.path / "gold" / f"{page_id}.txt"

    def _page_meta(self) -> Mapping[str, Mapping[str, Any]]:
        """MANIFEST's ``pages`` object: page ID -> metadata (checked by ``load_dataset``)."""
        pages: Mapping[str, Mapping[str, Any]] = self.manifest["pages"]
        return pages

    def _read_page(self, page_id: str) -> Page:
        """Read one page's HTML and gold text from disk."""
        html_path, gold_path = self._files(page_id)
        for file in (html_path, gold_path):
            if not file.is_file():
                raise ValueError(f"{self.path}: page {page_id!r} has no file {file}")
        return Page(
            id=page_id,
            html=gzip.decompress(html_path.read_bytes()),
            gold=gold_path.read_text(encoding="utf-8"),
            meta=MappingProxyType(dict(self._page_meta()[page_id])),
        )


def _not_a_dataset(path: Path, why: str) -> ValueError:
    """The one-line error for a folder that cannot be read as a dataset."""
    return ValueError(f"{path} is not a dataset folder: {why}")


def _read_manifest(path: Path) -> dict[str, Any]:
    """Parse and check ``path/MANIFEST.json``: an object whose ``pages`` maps IDs to objects."""
    if not path.is_dir():
        raise _not_a_dataset(path, "not a directory" if path.exists() else "no such directory")
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise _not_a_dataset(path, f"no {MANIFEST}")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _not_a_dataset(path, f"{MANIFEST} is not valid JSON ({exc})") from exc
    if not isinstance(manifest, dict):
        raise _not_a_dataset(path, f"{MANIFEST} is not a JSON object")
    pages = manifest.get("pages")
    if not isinstance(pages, dict) or not all(isinstance(m, dict) for m in pages.values()):
        raise _not_a_dataset(path, f'{MANIFEST} has no "pages" object of page objects')
    return manifest


def load_dataset(path: str | Path) -> Dataset:
    """Open the dataset folder at ``path``; reads only its ``MANIFEST.json``.

    Raises ``ValueError`` with a one-line message naming the folder when it is missing or its
    MANIFEST is missing or malformed.
    """
    folder = Path(path)
    manifest = _read_manifest(folder)
    name = manifest.get("name")
    return Dataset(
        path=folder,
        name=name if isinstance(name, str) and name else folder.name,
        manifest=MappingProxyType(manifest),
    )


def find_datasets(root: str | Path) -> list[Dataset]:
    """Every dataset folder directly under ``root`` (those with a MANIFEST), sorted by name."""
    folder = Path(root)
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder of datasets: no such directory")
    found = [load_dataset(sub) for sub in folder.iterdir() if (sub / MANIFEST).is_file()]
    return sorted(found, key=lambda dataset: (dataset.name, str(dataset.path)))


class _Scored(Protocol):
    """A system's score on one dataset, as :func:`systems_on_several_datasets` groups them."""

    @property
    def system(self) -> str: ...


_ScoreT = TypeVar("_ScoreT", bound=_Scored)


def systems_on_several_datasets(scores: Iterable[_ScoreT]) -> dict[str, list[_ScoreT]]:
    """The scores of each system of ``scores`` scored on more than one dataset, by system, in
    the order the systems first appear: what a mean over datasets is taken of (a system
    scored on one dataset has no mean)."""
    by_system: dict[str, list[_ScoreT]] = {}
    for score in scores:
        by_system.setdefault(score.system, []).append(score)
    return {system: rows for system, rows in by_system.items() if len(rows) >= 2}


def default_datasets_root() -> Path | None:
    """Where the datasets are: the folder named by ``$CETD_DATASETS``, else ``None``.

    The package knows no location of its own: the ``evaluate`` command takes the folders as
    arguments; the benchmarks and the tests fall back to ``../shared/datasets`` from the
    current directory (the repository's root) when the variable is not set.
    """
    configured = os.environ.get(DATASETS_ENV)
    return Path(configured) if configured else None

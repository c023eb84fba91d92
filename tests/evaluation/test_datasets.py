"""Tests of scrapy_cetd.evaluation.datasets on temporary dataset folders and on the shared
datasets."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scrapy_cetd.evaluation.datasets import (
    DATASETS_ENV,
    Dataset,
    default_datasets_root,
    find_datasets,
    load_dataset,
    systems_on_several_datasets,
)

PAGES: dict[str, tuple[bytes, str, dict[str, Any]]] = {
    "zz-last": (
        "<html><body><p>Café crème</p></body></html>".encode("cp1252"),
        "Café crème\n",
        {"url": "http://example.com/z", "lang": "fr", "encoding": "cp1252"},
    ),
    "aa-first": (
        b"<html><body><p>Hello</p><nav>menu</nav></body></html>",
        "Hello\n",
        {"page_type": "forum", "encoding": None, "with": ["Hello"], "without": ["menu"]},
    ),
}
"""ID -> (html bytes, gold text, MANIFEST entry); not in ID order, to check MANIFEST order."""


def write_dataset(
    folder: Path,
    pages: Mapping[str, tuple[bytes, str, dict[str, Any]]] = PAGES,
    name: str | None = "tiny",
) -> Path:
    """Write a dataset folder in the shared layout and return its path."""
    (folder / "html").mkdir(parents=True)
    (folder / "gold").mkdir()
    for page_id, (html, gold, _) in pages.items():
        (folder / "html" / f"{page_id}.html.gz").write_bytes(gzip.compress(html))
        (folder / "gold" / f"{page_id}.txt").write_text(gold, encoding="utf-8")
    manifest: dict[str, Any] = {"pages": {page_id: meta for page_id, (_, _, meta) in pages.items()}}
    if name is not None:
        manifest["name"] = name
    (folder / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_load_dataset_reads_the_manifest(tmp_path: Path) -> None:
    dataset = load_dataset(str(write_dataset(tmp_path / "folder")))
    assert dataset.name == "tiny"
    assert dataset.path == tmp_path / "folder"
    assert dataset.page_ids == ("zz-last", "aa-first")
    assert len(dataset) == 2


def test_name_defaults_to_the_folder_name(tmp_path: Path) -> None:
    assert load_dataset(write_dataset(tmp_path / "my_set", name=None)).name == "my_set"


def test_pages_in_manifest_order_with_their_files(tmp_path: Path) -> None:
    pages = list(load_dataset(write_dataset(tmp_path / "d")).pages())
    assert [page.id for page in pages] == ["zz-last", "aa-first"]
    for page in pages:
        html, gold, meta = PAGES[page.id]
        assert page.html == html
        assert page.gold == gold
        assert dict(page.meta) == meta


def test_page_properties(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "d"))
    french, forum = dataset.page("zz-last"), dataset.page("aa-first")
    assert (french.encoding, french.page_type, french.lang) == ("cp1252", "article", "fr")
    assert (forum.encoding, forum.page_type, forum.lang) == (None, "forum", None)
    assert (french.snippets_with, french.snippets_without) == ((), ())
    assert (forum.snippets_with, forum.snippets_without) == (("Hello",), ("menu",))


def test_page_meta_is_read_only(tmp_path: Path) -> None:
    page = load_dataset(write_dataset(tmp_path / "d")).page("zz-last")
    with pytest.raises(TypeError):
        page.meta["lang"] = "en"  # type: ignore[index]


def test_pages_by_ids_keeps_the_requested_order(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "d"))
    assert [page.id for page in dataset.pages(["aa-first", "zz-last"])] == ["aa-first", "zz-last"]
    assert list(dataset.pages([])) == []


def test_unknown_ids_fail_before_any_page_is_read(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "d"))
    with pytest.raises(ValueError, match="'nope'"):
        dataset.pages(["aa-first", "nope"])


def test_pages_are_read_lazily(tmp_path: Path) -> None:
    folder = write_dataset(tmp_path / "d")
    pages = load_dataset(folder).pages()
    assert next(pages).id == "zz-last"
    (folder / "html" / "aa-first.html.gz").unlink()
    with pytest.raises(ValueError, match=r"'aa-first' has no file .*aa-first\.html\.gz"):
        next(pages)


def write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.parent


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda tmp: tmp / "missing", "no such directory"),
        (lambda tmp: write_text(tmp / "file" / "x", "").joinpath("x"), "not a directory"),
        (lambda tmp: write_text(tmp / "d" / "README.md", "hi"), "no MANIFEST.json"),
        (lambda tmp: write_text(tmp / "d" / "MANIFEST.json", "{oops"), "not valid JSON"),
        (lambda tmp: write_text(tmp / "d" / "MANIFEST.json", "[]"), "not a JSON object"),
        (lambda tmp: write_text(tmp / "d" / "MANIFEST.json", "{}"), 'no "pages" object'),
        (
            lambda tmp: write_text(tmp / "d" / "MANIFEST.json", '{"pages": {"a": 1}}'),
            'no "pages" object',
        ),
    ],
)
def test_load_dataset_errors_name_the_folder(
    tmp_path: Path, make: Callable[[Path], Path], reason: str
) -> None:
    folder = make(tmp_path)
    with pytest.raises(ValueError, match="is not a dataset folder") as info:
        load_dataset(folder)
    message = str(info.value)
    assert reason in message
    assert str(folder) in message
    assert "\n" not in message


def test_find_datasets_sorted_by_name(tmp_path: Path) -> None:
    write_dataset(tmp_path / "a", name="zeta")
    write_dataset(tmp_path / "b", name="alpha")
    write_text(tmp_path / "not_a_dataset" / "notes.txt", "")
    (tmp_path / "stray.txt").write_text("", encoding="utf-8")
    found = find_datasets(tmp_path)
    assert [(dataset.name, dataset.path.name) for dataset in found] == [
        ("alpha", "b"),
        ("zeta", "a"),
    ]


def test_find_datasets_needs_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such directory"):
        find_datasets(tmp_path / "missing")


@dataclass(frozen=True)
class Score:
    """A system's score on one dataset, as the text's and the metadata's scores hold them."""

    dataset: str
    system: str


def test_systems_on_several_datasets_in_the_order_they_first_appear() -> None:
    """What the means over datasets are taken of: a system scored on one dataset is left out,
    the others keep their scores in order, the systems in the order they first appear."""
    scores = [
        Score("big", "b"),
        Score("big", "once"),
        Score("big", "a"),
        Score("small", "a"),
        Score("small", "b"),
        Score("third", "b"),
    ]
    grouped = systems_on_several_datasets(scores)
    assert list(grouped) == ["b", "a"]
    assert grouped["b"] == [scores[0], scores[4], scores[5]]
    assert grouped["a"] == [scores[2], scores[3]]
    assert systems_on_several_datasets(scores[:3]) == {}
    assert systems_on_several_datasets([]) == {}


def test_default_root_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATASETS_ENV, str(tmp_path))
    assert default_datasets_root() == tmp_path


def test_the_package_knows_no_datasets_folder_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(DATASETS_ENV, raising=False)
    (tmp_path / "shared" / "datasets").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "shared")
    assert default_datasets_root() is None


# --- the shared datasets --------------------------------------------------------------------

EXPECTED_SIZES = {
    "cleaneval": 150,
    "dragnet": 100,
    "l3s_gn1": 150,
    "readability": 92,
    "record_pages_wri": 25,
    "scrapinghub": 181,
    "utomo_big9_chaos": 144,
    "wcxb": 350,
    "wcxb_dev": 941,
}
"""Pages per dataset, from the table of ../shared/datasets/README.md."""


@pytest.fixture(scope="module")
def shared() -> dict[str, Dataset]:
    root = default_datasets_root()
    if root is None or not root.is_dir():
        pytest.skip(f"no datasets folder ({root}; $CETD_DATASETS or ../shared/datasets)")
    return {dataset.name: dataset for dataset in find_datasets(root)}


@pytest.mark.datasets
def test_shared_datasets_load_with_all_their_files(shared: dict[str, Dataset]) -> None:
    assert {name: len(dataset) for name, dataset in shared.items()} == EXPECTED_SIZES
    for dataset in shared.values():
        for page_id in dataset.page_ids:
            assert (dataset.path / "html" / f"{page_id}.html.gz").is_file()
            assert (dataset.path / "gold" / f"{page_id}.txt").is_file()
        first = dataset.page(dataset.page_ids[0])
        assert b"<" in first.html
        assert first.gold.strip()


@pytest.mark.datasets
def test_shared_wcxb_page_types_and_snippets(shared: dict[str, Dataset]) -> None:
    wcxb = shared["wcxb"]
    types: dict[str, int] = {}
    for page_id in wcxb.page_ids:
        page_type = wcxb.manifest["pages"][page_id]["page_type"]
        types[page_type] = types.get(page_type, 0) + 1
    assert set(types.values()) == {50}
    assert len(types) == 7
    page = wcxb.page(wcxb.page_ids[0])
    assert page.snippets_with
    assert page.snippets_without


GOLD_METADATA = {
    "wcxb": ("title", "author", "publish_date"),
    "wcxb_dev": ("title", "author", "publish_date"),
    "readability": ("title", "byline", "site_name", "published_time"),
}
"""The gold metadata fields each dataset's manifest gives per page (``null`` where the page has
none), from ../shared/datasets/README.md."""


@pytest.mark.datasets
@pytest.mark.parametrize(("name", "fields"), GOLD_METADATA.items())
def test_shared_gold_metadata_fields(
    shared: dict[str, Dataset], name: str, fields: tuple[str, ...]
) -> None:
    pages = shared[name].manifest["pages"]
    for page_id, page in pages.items():
        assert set(fields) <= set(page), page_id
    assert any(page[fields[0]] for page in pages.values())

"""The bounds on every value's length."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator

from metadatakit import json_ld, page

from scrapy_cetd.page.metadata import page_metadata
from scrapy_cetd.page.metadata.values import MAX_VALUES, absolute_url, split_keywords, unique


def test_long_values_are_cut_to_their_bounds() -> None:
    """A megabyte in a title, a site name, a description, a keyword, an image URL or a ``lang``
    does not go whole into the metadata (it did, as far as a 900 kB "language tag")."""
    long = "Headline words " * 70_000
    found = page_metadata(
        page(
            f"<meta property='og:title' content='{long}'>"
            f"<meta property='og:site_name' content='{long}'>"
            f"<meta name='description' content='{long}'><meta name='keywords' content='{long},b'>"
            f"<meta property='og:image' content='https://example.com/{'a' * 10_000}.png'>",
            lang=f"en-{'abcdefgh-' * 10_000}x",
        ),
        url="https://example.com/a",
    )
    assert found.title is not None and 900 < len(found.title) <= 1_000
    assert found.site_name is not None and len(found.site_name) <= 1_000
    assert found.description is not None and len(found.description) <= 10_000
    assert [len(tag) <= 1_000 for tag in found.tags] == [True, True]
    assert (found.image, found.language) == (None, None)


def test_a_link_with_white_space_is_a_url_only_with_a_slash_before_it() -> None:
    base = "https://example.com/dir/page"
    assert absolute_url("Read more about us", base) is None
    assert absolute_url(" \t", base) is None
    assert (
        absolute_url("files/Team photo.jpg", base)
        == "https://example.com/dir/files/Team%20photo.jpg"
    )
    assert absolute_url("https://example.com/a\nb", None) == "https://example.com/ab"
    assert absolute_url("photo.jpg", base) == "https://example.com/dir/photo.jpg"
    assert absolute_url("photo.jpg", None) == "photo.jpg"
    assert absolute_url(f"/{'a' * 10_000}", base) is None


def test_keywords_are_read_one_at_a_time_up_to_the_last_kept() -> None:
    """A keywords value may hold a page of words, of which fifty are kept: they are split one
    at a time, and none is read after the fiftieth distinct one."""
    read: list[str] = []

    def words() -> Iterator[str]:
        for k in range(10_000):
            read.append(str(k))
            yield f"w{k % 60}"

    assert unique(words()) == tuple(f"w{k}" for k in range(MAX_VALUES))
    assert len(read) == MAX_VALUES
    keywords = split_keywords(["a, b,,c ", "d"])
    assert next(keywords) == "a"
    assert list(keywords) == ["b", "c", "d"]


def test_a_page_of_json_ld_keywords_takes_the_memory_of_a_description() -> None:
    """A JSON-LD ``keywords`` string of a megabyte of words took twenty times the memory of
    the same string as a description (each word a string, kept in a list of them all)."""

    def peak(key: str) -> int:
        tree = page(json_ld({"@type": "Article", key: "ab," * 300_000}))
        tracemalloc.start()
        page_metadata(tree)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak

    assert peak("keywords") < 2 * peak("description")

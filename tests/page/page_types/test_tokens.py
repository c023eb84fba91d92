"""The URL's tokens: a path's segments read a piece at a time, as a split of the whole path."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_cetd.page import words
from scrapy_cetd.page.page_types import tokens
from scrapy_cetd.page.page_types.tokens import url_tokens


@given(path=st.text(alphabet="ab1/", max_size=40))
def test_a_path_is_read_in_pieces_as_one_split(path: str) -> None:
    """With pieces of two characters, a path's segments and tokens are those of a split of
    the whole path."""
    url = "https://news.example.com/" + path
    whole = url_tokens(url)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(words, "PIECE", 2)
        assert list(tokens._segments(path)) == [part for part in path.split("/") if part]
        assert list(url_tokens(url).items()) == list(whole.items())


def test_a_url_of_a_megabyte_takes_no_string_for_each_segment() -> None:
    """A page URL of a megabyte of dates took twenty times its size for its tokens (a list of
    its segments, each a string); its lower-cased copy and its parts now."""
    url = "https://example.com/2024/03/12/storm" + "/2024/03/12" * 90_000
    tracemalloc.start()
    features = url_tokens(url)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert features["url_numeric"] == 1.0
    assert features["folder:<num>"] == 1.0
    assert peak < 4 * len(url)

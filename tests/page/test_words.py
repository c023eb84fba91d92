"""Words of a long text, split a piece at a time: the same words as ``str.split`` gives, without
holding a string for every word of the text."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_cetd.page import words
from scrapy_cetd.page.words import collapse_spaces, count_words, pieces

SPACES = "".join(chr(code) for code in range(0x3001) if chr(code).isspace())


@given(text=st.text(alphabet="ab \n\t\u00a0\u3000\x1c\u4e2d", max_size=60))
def test_pieces_cut_long_texts_only_at_white_space(text: str) -> None:
    """With pieces of three characters, every cut falls before a white-space character (of
    every kind ``str.split`` splits at): the words, their count and the collapsed text are
    those of the whole text."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(words, "PIECE", 3)
        cut = list(pieces(text))
        assert "".join(cut) == text
        assert all(piece[0] in SPACES for piece in cut[1:])
        assert [word for piece in cut for word in piece.split()] == text.split()
        assert collapse_spaces(text) == " ".join(text.split())
        ascii_text = text.encode("ascii", "replace").decode()
        assert count_words(ascii_text) == len(ascii_text.split())


def test_a_text_without_white_space_is_one_piece() -> None:
    text = "a" * (words.PIECE * 3)
    assert list(pieces(text)) == [text]
    assert count_words(text) == 1
    assert collapse_spaces(text) == text


@pytest.mark.parametrize(
    ("function", "bound"),
    [(count_words, 0.5), (collapse_spaces, 3.0)],
    ids=["count_words", "collapse_spaces"],
)
def test_a_long_text_takes_no_string_for_each_word(
    function: Callable[[str], object], bound: float
) -> None:
    """A megabyte of short words took ten times its size to be counted or collapsed (a list
    of them all, each a string); now a piece's words at a time, plus the collapsed text."""
    text = "storm hits the coast " * 50_000
    tracemalloc.start()
    function(text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < bound * len(text)

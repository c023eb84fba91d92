"""Words and tokens of a text.

:func:`count_words` is the word count of the word-based extractors (CoreEx, Alarte & Silva):
``docs/algorithms.md`` §0.3, words are the whitespace-separated tokens of the text, except that
every CJK ideograph, kana and Hangul syllable is a word on its own, so that a paragraph of
Chinese or Japanese is not counted as one or two "words" and does not lose to a menu.

:func:`tokens` is the tokenization of the shared datasets' scorer, which cetd-plus and the
furniture detection also use to compare texts (a headline with the page title, a block with
the rest of the page), and the evaluation metrics score with.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u31f0-\u31ff"  # katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK unified ideographs extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width katakana
    "\U00020000-\U0003134f"  # CJK unified ideographs extensions B-G
)

_WORD = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")
"""One CJK character, or a run of other non-space characters."""


PIECE = 16_384
"""About how many characters of a long text :func:`pieces` gives at a time."""

_SPACE = re.compile(r"\s")


def pieces(text: str, at: re.Pattern[str] = _SPACE) -> Iterator[str]:
    """``text`` in consecutive pieces of at least :data:`PIECE` characters, each but the first
    starting at a match of ``at``: by default a white-space character (``str.split``'s and
    ``\\s``'s), so that no word is cut and ``str.split`` of each piece gives the words of
    ``text`` in order (a URL path's ``/`` for its segments). A text of up to :data:`PIECE`
    characters is given whole, and so is the rest of one from where ``at`` matches no more.
    Splitting a long text piece by piece holds the strings of one piece's parts at a time, not
    those of the whole text (tens of bytes each)."""
    start = 0
    while len(text) - start > PIECE:
        found = at.search(text, start + PIECE)
        if found is None:
            break
        yield text[start : found.start()]
        start = found.start()
    yield text[start:]


def count_words(text: str) -> int:
    """The number of words in ``text`` (§0.3): whitespace tokens, with every CJK character
    counted as one word and splitting the token it sits in (``"abc中文"`` is 3 words)."""
    if not text.isascii():
        return sum(1 for _ in _WORD.finditer(text))
    if len(text) <= PIECE:
        return len(text.split())
    return sum(len(piece.split()) for piece in pieces(text))


def collapse_spaces(text: str) -> str:
    """``" ".join(text.split())``: the words of ``text`` joined by one space, a long text's
    split one of its :func:`pieces` at a time (pieces cut at white space: their words are
    apart, and a piece of white space alone adds none)."""
    if len(text) <= PIECE:
        return " ".join(text.split())
    return " ".join(filter(None, (" ".join(piece.split()) for piece in pieces(text))))


_TOKEN = re.compile(r"[^\W_]+")
# Same ranges as the datasets' score.py: kana, CJK extension A, CJK unified ideographs, hangul
# syllables, CJK compatibility ideographs.
_CJK_CHAR = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])")


def tokens(text: str) -> list[str]:
    """Lower-cased runs of letters and digits; each CJK ideograph, kana or hangul alone.

    Punctuation, underscores and whitespace separate tokens and are not tokens themselves.
    CJK characters are split apart because those scripts do not separate words by spaces.
    ASCII text, most of the text compared, has no CJK character to split apart.
    """
    lowered = text.lower()
    if lowered.isascii():
        return _TOKEN.findall(lowered)
    return _TOKEN.findall(_CJK_CHAR.sub(r" \1 ", lowered))

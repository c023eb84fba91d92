"""The text a selection keeps: the characters below the outermost elements its modes keep with
their text, less the blocks dropped inside them (step 11, and the shares of steps 9 and 10).
"""

from __future__ import annotations

from collections.abc import Sequence

from scrapy_cetd.page import accel
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.output import KEEP, Keep, kept_list


def kept_chars(view: DomView, counts: NodeCounts, modes: Sequence[Keep]) -> int:
    """The characters ``modes`` keep: those below the outermost elements kept with their text,
    less the outermost blocks dropped inside them."""
    return _kept_char_count(view.parent, modes, counts.chars, KEEP)


@accel.twin(accel.compiled.kept_chars)
def _kept_char_count(
    parent: list[int], modes: Sequence[Keep], chars: list[int], keep: tuple[Keep, Keep, Keep]
) -> int:
    """:func:`kept_chars` on a view's parents and its counts' characters, the modes given as
    ``keep``, in pure Python: the reference the compiled pass reproduces."""
    drop, _, text = keep
    in_output = kept_list(parent, modes, keep)
    total = 0
    for i in range(len(parent)):
        if modes[i] == text and in_output[i] and (i == 0 or modes[parent[i]] != text):
            total += chars[i]
        elif modes[i] == drop and i and in_output[parent[i]] and modes[parent[i]] == text:
            total -= chars[i]
    return total

"""The repeated blocks (step 15, the ``unique_blocks`` option): a kept block whose text repeats
that of a kept block before it (a description shown twice, for wide and narrow screens).
"""

from __future__ import annotations

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import BLOCK_TAGS, DomView
from scrapy_cetd.page.output import Keep, kept_elements

REPEAT_MIN_CHARS = 20
"""The fewest characters (spaces collapsed) a block needs to be told a repeat: a short label
("Add to cart", a size) repeats by design."""

_LINE_TAGS = frozenset({"br", "hr"})


def drop_repeated_blocks(view: DomView, modes: list[Keep]) -> None:
    """Drop each kept block without blocks below it whose text (spaces collapsed, at least
    :data:`REPEAT_MIN_CHARS` characters) is that of a kept block before it. One pass to find
    the blocks without blocks below, one over the kept ones: linear in the view."""
    size, tags, parent = len(view), view.tags, view.parent
    block_below = [False] * size
    for i in range(size - 1, 0, -1):
        if block_below[i] or (tags[i] in BLOCK_TAGS and tags[i] not in _LINE_TAGS):
            block_below[parent[i]] = True
    in_output = kept_elements(view, modes)
    seen: set[str] = set()
    i = steps = 1
    while i < size:
        steps += 1
        if steps & CHECK_EVERY == CHECK_EVERY:
            check_deadline("dropping repeated blocks")
        if not (
            in_output[i]
            and modes[i] == Keep.TEXT
            and tags[i] in BLOCK_TAGS
            and tags[i] not in _LINE_TAGS
            and not block_below[i]
        ):
            i += 1
            continue
        end = view.subtree_end(i)
        text = view.collapsed_runs(i, end)
        if len(text) >= REPEAT_MIN_CHARS:
            if text in seen:
                modes[i] = Keep.DROP
            seen.add(text)
        i = end

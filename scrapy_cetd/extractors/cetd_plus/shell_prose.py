"""Step 7, the shells' prose: the own text of an element kept only because it holds selected
blocks, when it is long enough to be prose written straight into the block.
"""

from __future__ import annotations

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import BLOCK_TAGS, DomView
from scrapy_cetd.page.output import Keep


def keep_shell_prose(view: DomView, counts: NodeCounts, modes: list[Keep], min_chars: int) -> None:
    """Let the shells below the root that hold ``min_chars`` or more of their own text keep it
    (step 7), with the inline elements it runs through: links, emphasis, line breaks. Only
    the shells are visited; one whose inline elements kept their text with it is no shell any
    more, and is passed over."""
    run_chars, tags = counts.run_chars, view.tags
    shells = [i for i, mode in enumerate(modes) if i and mode == Keep.SHELL]
    for step, i in enumerate(shells, 1):
        if step & CHECK_EVERY == CHECK_EVERY:
            check_deadline("keeping the shells' prose")
        if modes[i] != Keep.SHELL or sum(run_chars[i]) < min_chars:
            continue
        modes[i] = Keep.TEXT
        for c in view.children[i]:
            if modes[c] == Keep.DROP and (tags[c] not in BLOCK_TAGS or tags[c] == "br"):
                end = view.subtree_end(c)
                modes[c:end] = [Keep.TEXT] * (end - c)

"""Step 8, the link blocks: the blocks inside the selection whose text is mostly links (menus,
"related" lists), with the compiled pass's pure-Python reference.
"""

from __future__ import annotations

from scrapy_cetd.page import accel
from scrapy_cetd.page.density import EPSILON, NodeCounts
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.output import KEEP, Keep

LINK_BLOCK_TAGS = frozenset(
    {
        *("div", "section", "header", "ul", "ol", "li", "dl", "dt", "dd", "p", "span", "form"),
        *("table", "tbody", "tr", "td", "h2", "h3", "h4", "h5", "h6", "figure"),
    }
)
"""Elements that may form a block of links (a menu, a list of related articles)."""


def drop_link_blocks(view: DomView, counts: NodeCounts, modes: list[Keep], ratio: float) -> None:
    """Drop the kept blocks whose share of link text exceeds ``ratio`` and the page's own
    (a page that is all links, such as one wrapped in an unclosed ``<a>``, keeps them)."""
    chars, link_chars = counts.chars, counts.link_chars
    ratio = max(ratio, min(1.0, counts.link_ratio + 0.1))
    _drop_link_block_modes(
        view.parent, view.tags, chars, link_chars, modes, ratio, LINK_BLOCK_TAGS, KEEP, EPSILON
    )


@accel.twin(accel.compiled.drop_link_blocks)
def _drop_link_block_modes(  # noqa: PLR0917 - the parameters of its compiled twin
    parent: list[int],
    tags: list[str],
    chars: list[int],
    link_chars: list[int],
    modes: list[Keep],
    ratio: float,
    block_tags: frozenset[str],
    keep: tuple[Keep, Keep, Keep],
    epsilon: float,
) -> int:
    """:func:`drop_link_blocks` on a view's lists, with the final ``ratio``,
    :data:`LINK_BLOCK_TAGS`, the modes (:data:`~scrapy_cetd.page.output.KEEP`) and
    :data:`EPSILON` passed in, in pure Python: the reference the compiled pass reproduces.
    The number of blocks dropped."""
    drop, _, text = keep
    dropped = 0
    for i in range(1, len(parent)):
        if (
            modes[i] == text
            and modes[parent[i]] == text
            and tags[i] in block_tags
            and chars[i]
            and link_chars[i] > ratio * chars[i] - epsilon
        ):
            modes[i] = drop
            dropped += 1
    return dropped

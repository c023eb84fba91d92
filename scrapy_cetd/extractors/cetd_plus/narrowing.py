"""Steps 4 and 5, the narrowing to the main block: the ``itemprop="articleBody"`` element
that bounds the selection, the best block's anchor and the text of an expansion, and the
blocks of the same tag path that join the single block.
"""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page import accel
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.flags import within

ARTICLE_BODY_LOOKUPS = 8
"""Up to this many ``itemprop="articleBody"`` elements are looked up in the view one by one;
a page with more (almost always one) is read in one pass over the view."""


def article_body_element(
    view: DomView, counts: NodeCounts, bodies: frozenset[etree._Element]
) -> int | None:
    """The element of ``bodies`` with the most text in ``view`` (at least 200 characters).

    A few bodies are looked up one by one (``index`` scans the view in compiled code); more
    are found in one pass over the view, so that a page of many costs no more than one
    view. That pass holds every element's proxy until the end, freed deepest first (lxml
    walks up from a proxy freed alone to the closest ancestor that has one)."""
    if len(bodies) <= ARTICLE_BODY_LOOKUPS:
        indices = []
        for body in bodies:
            try:
                indices.append(view.elements.index(body))
            except ValueError:  # hidden, or furniture
                continue
    else:
        elements = list(view.elements)
        indices = [i for i, element in enumerate(elements) if element in bodies]
    found = None
    for i in indices:
        chars = counts.chars[i]
        if chars >= 200 and (
            found is None
            or chars > counts.chars[found]
            or (chars == counts.chars[found] and i < found)
        ):
            found = i
    return found


def block_anchor(path: Sequence[int], counts: NodeCounts) -> int:
    """The closest ancestor of the best block (``path[0]``) that holds more text than it:
    wrappers around the block itself are climbed through."""
    for k in range(1, len(path)):
        if counts.chars[path[k]] > counts.chars[path[k - 1]]:
            return path[k]
    return path[-1]


def selected_chars(view: DomView, counts: NodeCounts, content: Sequence[bool]) -> int:
    """Characters below the outermost content elements."""
    return _outermost_chars(view.parent, content, counts.chars)


@accel.twin(accel.compiled.outermost_chars)
def _outermost_chars(parent: list[int], content: Sequence[bool], chars: list[int]) -> int:
    """:func:`selected_chars` on a view's parents and its counts' characters, in pure Python: the
    reference the compiled pass reproduces."""
    inside = [False] * len(parent)
    total = 0
    for i in range(len(parent)):
        p = parent[i]
        if p >= 0 and inside[p]:
            inside[i] = True
        elif content[i]:
            inside[i] = True
            total += chars[i]
    return total


def add_same_path_blocks(view: DomView, whole: Sequence[bool], local: list[bool]) -> None:
    """Add to ``local`` each block of ``whole`` outside it whose tag path (tags and sorted
    classes from the root down) is that of an element inside it (step 5). Only the elements
    inside ``local`` that could match, by depth and tag, get a path.

    The proxies of the elements whose class is read are held until the end and freed deepest
    first: lxml walks up from a proxy freed alone to the closest ancestor that has one, which
    on a deep chain costs its depth per element."""
    inside = within(view, local)
    size, parent, tags, depth = len(view), view.parent, view.tags, view.depth
    candidates = [i for i in range(size) if whole[i] and not inside[i]]
    if not candidates:
        return
    wanted = {(depth[i], tags[i]) for i in candidates}
    path: dict[int, int] = {}
    known: dict[tuple[int, str, tuple[str, ...]], int] = {}
    held: list[etree._Element] = []

    def path_of(i: int) -> int:
        chain = []
        while i >= 0 and i not in path:
            chain.append(i)
            i = parent[i]
        code = path[i] if i >= 0 else 0
        for j in reversed(chain):
            held.append(element := view.elements[j])
            classes = tuple(sorted((element.get("class") or "").split()))
            code = path[j] = known.setdefault((code, tags[j], classes), len(known) + 1)
        return code

    kept = {path_of(i) for i in range(size) if inside[i] and (depth[i], tags[i]) in wanted}
    check_deadline("comparing tag paths")
    for i in candidates:
        if path_of(i) in kept:
            local[i] = True

"""The pruned copy: a deep copy of the page cut to the modes of its elements [P Alg. 5]
(:mod:`scrapy_cetd.tps.modes`), the input tree left as it was.
"""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.output import remove_keeping_tails
from scrapy_cetd.tps.modes import DROP, KEEP, SHELL


def trim(
    tree: etree._Element,
    clone: etree._Element,
    view: DomView,
    modes: Sequence[int],
    *,
    keep_positions: bool = False,
) -> None:
    """Prune ``clone``, a deep copy of ``tree``, to the kept elements of ``view``; with
    ``keep_positions``, a removed element before a remaining sibling of the same tag is emptied
    instead (:func:`prune_tag_paths`).

    Copies are paired with originals by walking both trees in the same order. Every proxy
    stays referenced until the end: lxml frees a proxy by searching its ancestors for a live
    one, which would make a walk of a deep tree quadratic. An element kept with its text whose
    children in the view are all kept is left as copied, without a look at its children.
    """
    index_of: dict[etree._Element, int] = {}
    for i, element in enumerate(view.elements):
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("trimming the copy")
        index_of[element] = i
    originals = list(tree.iter())
    duplicates = list(clone.iter())
    copies: list[etree._Element | None] = [None] * len(view)
    for step, (original, twin) in enumerate(zip(originals, duplicates, strict=True)):
        if step & CHECK_EVERY == CHECK_EVERY:
            check_deadline("trimming the copy")
        position = index_of.get(original)
        if position is not None:
            copies[position] = twin
    children = view.children
    if not modes[0]:  # ``invert`` of a region that is the whole body: nothing is kept
        body = copies[0]
        if body is not None:
            body.text = None
            for child in list(body):
                body.remove(child)
        return
    for i, mode in enumerate(modes):
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("trimming the copy")
        target = copies[i]
        if mode == DROP or target is None:
            continue
        if mode == KEEP and all(modes[c] for c in children[i]):
            continue  # nothing of it goes
        duplicate: etree._Element = target
        own = {id(copies[c]): c for c in children[i]}
        if mode == SHELL:
            duplicate.text = None
        later: set[object] = set()  # the tags of the children that stay, after this one
        doomed: list[etree._Element] = []  # removed with their tails kept, in reverse order
        for step, child in enumerate(reversed(list(duplicate)), 1):
            if step & CHECK_EVERY == CHECK_EVERY:
                check_deadline("trimming the copy")
            c = own.get(id(child))
            goes = (
                (c is None or not modes[c]) if mode == SHELL else (c is not None and not modes[c])
            )
            if mode == SHELL:
                child.tail = None
            if not goes:
                later.add(child.tag)
            elif keep_positions and isinstance(child.tag, str) and child.tag in later:
                child.clear(keep_tail=True)  # type: ignore[call-arg]  # lxml >= 4.4; not in lxml-stubs
            elif mode == SHELL:
                duplicate.remove(child)
            else:
                doomed.append(child)
        remove_keeping_tails(duplicate, doomed[::-1])

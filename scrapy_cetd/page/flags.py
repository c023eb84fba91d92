"""Flags over the elements of a view, spread along its tree: down to every descendant
(:func:`within`) or up to every ancestor (:func:`holding`, :func:`ancestors_of`).

The extractors and TPS mark elements (content, furniture, media, headings) and need the
elements inside or around the marked ones; each function is one linear pass over the view's
preorder numbering, with no recursion.
"""

from __future__ import annotations

from collections.abc import Sequence

from scrapy_cetd.page import accel
from scrapy_cetd.page.dom import DomView


def within(view: DomView, flags: Sequence[bool]) -> list[bool]:
    """Which elements are flagged or lie below a flagged element."""
    inside = [bool(flag) for flag in flags]
    parent = view.parent
    for i in range(1, len(view)):
        inside[i] = inside[i] or inside[parent[i]]
    return inside


def holding(view: DomView, names: frozenset[str]) -> list[bool]:
    """Which elements are named one of ``names`` (tags) or have such an element below them."""
    return holding_tags(view.parent, view.tags, names)


@accel.twin(accel.compiled.holding_tags)
def holding_tags(parent: list[int], tags: list[str], names: frozenset[str]) -> list[bool]:
    """:func:`holding` on a view's parents and tags, in pure Python: the reference the
    compiled pass reproduces."""
    named = [tag in names for tag in tags]
    return [own or below for own, below in zip(named, below_flags(parent, named), strict=True)]


def ancestors_of(view: DomView, content: Sequence[bool]) -> list[bool]:
    """Which elements have a content element below them (the shells of the output)."""
    return below_flags(view.parent, content)


@accel.twin(accel.compiled.ancestors_of)
def below_flags(parent: list[int], content: Sequence[bool]) -> list[bool]:
    """:func:`ancestors_of` on a view's parents, in pure Python: the reference the compiled pass
    reproduces."""
    below = [False] * len(parent)
    for i in range(len(parent) - 1, 0, -1):
        if content[i] or below[i]:
            below[parent[i]] = True
    return below

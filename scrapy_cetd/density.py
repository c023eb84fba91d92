"""Text density statistics of CETD (Sun, Song, Liao, SIGIR 2011).

Per element ``i`` of a :class:`~scrapy_cetd.dom.DomView`: ``C`` (characters), ``T``
(descendant tags), ``LC`` (link characters) and ``LT`` (link tags), computed bottom-up in one
O(n) pass (``docs/algorithms.md`` §1.2); from them the Text Density (paper §3.2, Def. 1), the
Composite Text Density (§3.3, Def. 2, with the clamping of the author's code) and the
DensitySum (§4.2, Def. 3, with text runs as pseudo-children).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scrapy_cetd.dom import DomView, normalized_length


@dataclass(frozen=True, eq=False)
class NodeCounts:
    """``C``, ``T``, ``LC`` and ``LT`` of every element of a view, plus the character counts of
    each element's own text runs (needed by DensitySum)."""

    chars: list[int]
    tags: list[int]
    link_chars: list[int]
    link_tags: list[int]
    run_chars: list[list[int]]

    @property
    def link_ratio(self) -> float:
        """``LC_b / C_b`` of the root (0 for a root without text)."""
        return self.link_chars[0] / self.chars[0] if self.chars[0] else 0.0


def count_nodes(view: DomView) -> NodeCounts:
    """Count ``C, T, LC, LT`` for every element, children before parents (§1.2).

    ``LT_i = Σ_c (LT_c + q(c))`` where ``q(c) = 1`` when ``c`` is a link element or inside one,
    or is an "all-link" wrapper (``LT_c = T_c ≥ 1`` and ``LC_c = C_c``).
    """
    size = len(view)
    run_chars = [[normalized_length(run) for run in runs] for runs in view.runs]
    own = [sum(counts) for counts in run_chars]
    chars = own[:]
    link_chars = [own[i] if view.in_link[i] else 0 for i in range(size)]
    tags = [0] * size
    link_tags = [0] * size
    parent = view.parent
    in_link = view.in_link
    # Preorder puts every child after its parent, so a reverse scan sees children first.
    for i in range(size - 1, 0, -1):
        p = parent[i]
        chars[p] += chars[i]
        link_chars[p] += link_chars[i]
        tags[p] += tags[i] + 1
        all_link = tags[i] >= 1 and link_tags[i] == tags[i] and link_chars[i] == chars[i]
        link_tags[p] += link_tags[i] + (1 if in_link[i] or all_link else 0)
    return NodeCounts(chars, tags, link_chars, link_tags, run_chars)


def text_density(chars: int, tags: int) -> float:
    """``TD = C / max(T, 1)`` (§3.2, Def. 1)."""
    return chars / max(tags, 1)


def composite_text_density(
    chars: int, tags: int, link_chars: int, link_tags: int, link_ratio: float
) -> float:
    """``CTD`` of §3.3, Def. 2, with ``T, LC, LT, C - LC`` clamped to at least 1 (S-6).

    ``CTD = C/T' · log_B(C·T' / (LC'·LT'))`` with ``B = ln(C·LC'/N' + ratio·C + e)``; 0 for a
    node without text. The clamping keeps the value finite and non-negative, and exactly 0 for
    a subtree made only of links.
    """
    if chars <= 0:
        return 0.0
    t = max(tags, 1)
    lc = max(link_chars, 1)
    lt = max(link_tags, 1)
    non_link = max(chars - link_chars, 1)
    base = math.log(chars * lc / non_link + link_ratio * chars + math.e)
    return (chars / t) * math.log(chars * t / (lc * lt)) / math.log(base)


def densities(counts: NodeCounts, *, composite: bool) -> list[float]:
    """TD (``composite=False``) or CTD (``composite=True``) of every element."""
    if not composite:
        return [text_density(c, t) for c, t in zip(counts.chars, counts.tags, strict=True)]
    ratio = counts.link_ratio
    return [
        composite_text_density(c, t, lc, lt, ratio)
        for c, t, lc, lt in zip(
            counts.chars, counts.tags, counts.link_chars, counts.link_tags, strict=True
        )
    ]


def density_sums(
    view: DomView, counts: NodeCounts, density: list[float], *, composite: bool
) -> list[float]:
    """DensitySum of every element (§4.2, Def. 3): the densities of its element children plus
    those of its own text runs, each run scored as a pseudo-node with ``T = LT = 0`` whose
    characters are link characters when the element is (inside) a link (S-11)."""
    ratio = counts.link_ratio
    sums: list[float] = []
    for i, child_indices in enumerate(view.children):
        in_link = view.in_link[i]
        total = 0.0
        for run in counts.run_chars[i]:
            if run:
                if composite:
                    total += composite_text_density(run, 0, run if in_link else 0, 0, ratio)
                else:
                    total += run
        for c in child_indices:
            total += density[c]
        sums.append(total)
    return sums

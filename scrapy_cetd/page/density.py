"""Text density statistics of CETD (Sun, Song, Liao, SIGIR 2011).

Per element ``i`` of a :class:`~scrapy_cetd.page.dom.DomView`: ``C`` (characters), ``T``
(descendant tags), ``LC`` (link characters) and ``LT`` (link tags), computed bottom-up in one
O(n) pass (``docs/algorithms.md`` §1.2); from them the Text Density (paper §3.2, Def. 1), the
Composite Text Density (§3.3, Def. 2, with the clamping of the author's code) and the
DensitySum (§4.2, Def. 3, with text runs as pseudo-children).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scrapy_cetd.page import accel
from scrapy_cetd.page.dom import DomView

EPSILON = 1e-9
"""Tolerance of every threshold comparison (``x ≥ t`` is ``x ≥ t - ε``; §0.5)."""


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
    return NodeCounts(*count_lists(view.runs, view.in_link, view.parent))


CountLists = tuple[list[int], list[int], list[int], list[int], list[list[int]]]
"""The fields of a :class:`NodeCounts`, in order."""


@accel.twin(accel.compiled.count_nodes)
def count_lists(runs: list[list[str]], in_link: list[bool], parent: list[int]) -> CountLists:
    """The fields of :func:`count_nodes`'s counts from a view's runs, link flags and parents,
    in pure Python: the reference the compiled pass reproduces."""
    size = len(parent)
    # dom.normalized_length, inlined: this runs once per text run of the page.
    run_chars = [[len(" ".join(run.split())) if run else 0 for run in texts] for texts in runs]
    own = list(map(sum, run_chars))
    chars = own[:]
    link_chars = [count if link else 0 for count, link in zip(own, in_link, strict=True)]
    tags = [0] * size
    link_tags = [0] * size
    # Preorder puts every child after its parent, so a reverse scan sees children first.
    for i in range(size - 1, 0, -1):
        p = parent[i]
        c, lc, t, lt = chars[i], link_chars[i], tags[i], link_tags[i]
        chars[p] += c
        link_chars[p] += lc
        tags[p] += t + 1
        if in_link[i] or (t >= 1 and lt == t and lc == c):  # q(c) = 1
            lt += 1
        link_tags[p] += lt
    return chars, tags, link_chars, link_tags, run_chars


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
    """TD (``composite=False``) or CTD (``composite=True``) of every element.

    Same arithmetic, in the same order, as :func:`text_density` and
    :func:`composite_text_density`, inlined because it runs once per element.
    """
    return density_lists(
        counts.chars,
        counts.tags,
        counts.link_chars,
        counts.link_tags,
        counts.link_ratio,
        composite,
    )


@accel.twin(accel.compiled.densities)
def density_lists(  # noqa: PLR0917 - the parameters of its compiled twin
    chars: list[int],
    tags: list[int],
    link_chars: list[int],
    link_tags: list[int],
    ratio: float,
    composite: bool,
) -> list[float]:
    """:func:`densities` on the lists of a :class:`NodeCounts` (``ratio`` is its
    :attr:`~NodeCounts.link_ratio`), in pure Python: the reference the compiled pass
    reproduces."""
    if not composite:
        return [c / (t if t > 1 else 1) for c, t in zip(chars, tags, strict=True)]
    log, e = math.log, math.e
    values: list[float] = []
    append = values.append
    for c, tc, lcc, ltc in zip(chars, tags, link_chars, link_tags, strict=True):
        if c <= 0:
            append(0.0)
            continue
        t = tc if tc > 1 else 1  # the clamping of composite_text_density
        lc = lcc if lcc > 1 else 1
        lt = ltc if ltc > 1 else 1
        non_link = c - lcc if c - lcc > 1 else 1
        base = log(c * lc / non_link + ratio * c + e)
        append((c / t) * log(c * t / (lc * lt)) / log(base))
    return values


def density_sums(
    view: DomView, counts: NodeCounts, density: list[float], *, composite: bool
) -> list[float]:
    """DensitySum of every element (§4.2, Def. 3): the densities of its element children plus
    those of its own text runs, each run scored as a pseudo-node with ``T = LT = 0`` whose
    characters are link characters when the element is (inside) a link (S-11).

    A run's density depends only on its length and on the link flag, so it is computed once
    per distinct pair; the additions keep their order (runs, then children), so the floats are
    those of the plain definition.
    """
    return density_sum_lists(
        view.children, counts.run_chars, view.in_link, density, counts.link_ratio, composite
    )


@accel.twin(accel.compiled.density_sums)
def density_sum_lists(  # noqa: PLR0917 - the parameters of its compiled twin
    children: list[list[int]],
    run_chars: list[list[int]],
    in_link: list[bool],
    density: list[float],
    ratio: float,
    composite: bool,
) -> list[float]:
    """:func:`density_sums` on a view's lists and its counts' ``run_chars`` and ``link_ratio``,
    in pure Python: the reference the compiled pass reproduces."""
    run_density: dict[tuple[int, bool], float] = {}
    sums: list[float] = []
    for child_indices, own_runs, link in zip(children, run_chars, in_link, strict=True):
        total = 0.0
        for run in own_runs:
            if run:
                if composite:
                    key = (run, link)
                    value = run_density.get(key)
                    if value is None:
                        value = run_density[key] = composite_text_density(
                            run, 0, run if link else 0, 0, ratio
                        )
                    total += value
                else:
                    total += run
        for c in child_indices:
            total += density[c]
        sums.append(total)
    return sums

"""The three extractors of CETD: Content Extraction via Text Density (Sun, Song, Liao, SIGIR
2011; ``shared/seeds/cetd-sun-2011.md``, specification in ``docs/algorithms.md`` §1)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from scrapy_cetd.extractors.base import NO_TEXT, Extractor
from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page import accel
from scrapy_cetd.page.density import EPSILON, NodeCounts, count_nodes, densities, density_sums
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.flags import ancestors_of
from scrapy_cetd.page.output import Keep, content_modes, own_modes
from scrapy_cetd.result import EmptyReason


class _DensitySumExtractor(Extractor):
    """Algorithm 2 of the paper (§4.2): the DensitySum-maximal node sets a threshold, then every
    node reachable from the body through nodes at or above it contributes its own best block."""

    composite: ClassVar[bool]

    def __init__(self, *, threshold_coefficient: float = 1.0, remove_hidden: bool = True) -> None:
        """``threshold_coefficient`` is the paper's λ (§5.5, Fig. 5; default 1.0, 0.9 a good
        trade-off on Yahoo!): the threshold is λ times the smallest density on the path from
        the best node to the body. 0 keeps the whole body.
        ``remove_hidden``: see :class:`~scrapy_cetd.extractors.base.Extractor`."""
        if threshold_coefficient < 0:
            raise ValueError(f"threshold_coefficient must be >= 0, got {threshold_coefficient}")
        super().__init__(remove_hidden=remove_hidden)
        self.threshold_coefficient = threshold_coefficient

    def select(self, view: DomView) -> Sequence[Keep] | EmptyReason:
        counts = count_nodes(view)
        if counts.chars[0] == 0:
            return NO_TEXT
        check_deadline("after counting the nodes")
        size = len(view)
        if self.threshold_coefficient == 0:
            return [Keep.TEXT] * size
        scores = density_sum_scores(
            view,
            counts,
            composite=self.composite,
            threshold_coefficient=self.threshold_coefficient,
        )
        check_deadline("after scoring the nodes")
        content = expand(view, scores, seed=scores.path[0])
        return content_modes(view, content, ancestors_of(view, content), shell_text=True)


@dataclass(frozen=True, eq=False)
class DensitySumScores:
    """What Algorithm 2 (§4.2) decides with, for one view."""

    counts: NodeCounts
    density: list[float]
    """TD or CTD of every element."""
    best: list[int]
    """For each element, the element of its subtree with the largest DensitySum."""
    path: list[int]
    """The DensitySum-maximal element and its ancestors, up to the root."""
    threshold: float
    """λ times the smallest density on :attr:`path`, at most the root's density (S-15)."""


def density_sum_scores(
    view: DomView, counts: NodeCounts, *, composite: bool, threshold_coefficient: float
) -> DensitySumScores:
    """The densities, DensitySums, best blocks and threshold of ``view``."""
    density = densities(counts, composite=composite)
    sums = density_sums(view, counts, density, composite=composite)
    best = _subtree_argmax(view.parent, sums)
    path = [best[0], *view.ancestors(best[0])]
    threshold = min(threshold_coefficient * min(density[i] for i in path), density[0])
    return DensitySumScores(counts, density, best, path, threshold)


def expand(
    view: DomView, scores: DensitySumScores, anchor: int = 0, *, seed: int | None = None
) -> list[bool]:
    """The content elements of Algorithm 2's expansion below ``anchor`` (the root by default):
    every element reached through elements at or above the threshold contributes the best block
    of its subtree; ``seed`` is content from the start (the paper's best block)."""
    density, best, threshold = scores.density, scores.best, scores.threshold
    content = [False] * len(view)
    if seed is not None:
        content[seed] = True
    stack = [anchor]
    while stack:
        node = stack.pop()
        if content[node] or density[node] < threshold - EPSILON:
            continue
        content[best[node]] = True
        stack.extend(reversed(view.children[node]))
    return content


@accel.twin(accel.compiled.subtree_argmax)
def _subtree_argmax(parent: Sequence[int], values: Sequence[float]) -> list[int]:
    """For each node, the node of its subtree (itself included) with the largest value; ties go
    to the first in document order (S-13). One bottom-up pass over a preorder numbering."""
    best = list(range(len(values)))
    for i in range(len(values) - 1, 0, -1):
        p = parent[i]
        candidate, current = best[i], best[p]
        if values[candidate] > values[current] or (
            values[candidate] == values[current] and candidate < current
        ):
            best[p] = candidate
    return best


class TextDensityExtractor(_DensitySumExtractor):
    """CETD-DS: Text Density (§3.2, Def. 1) with DensitySum extraction (§4.2)."""

    name = "cetd-ds"
    composite = False


class CompositeTextDensityExtractor(_DensitySumExtractor):
    """CECTD-DS: Composite Text Density (§3.3, Def. 2) with DensitySum extraction (§4.2); the
    paper's best variant on average (Table 4)."""

    name = "cectd-ds"
    composite = True


class SmoothedCompositeTextDensityExtractor(Extractor):
    """CECTD-S: Composite Text Density smoothed over sibling elements, thresholded per node
    (§4.1, §4.3). Each element is judged on its own, so an inline link inside a paragraph
    (density 0) loses its text: the weakness DensitySum was introduced to fix."""

    name = "cectd-s"

    def __init__(self, *, threshold_coefficient: float = 1.0, remove_hidden: bool = True) -> None:
        """``threshold_coefficient`` is λ (§5.5): an element is content when its smoothed
        density is at least λ times the body's density (§4.1).
        ``remove_hidden``: see :class:`~scrapy_cetd.extractors.base.Extractor`."""
        if threshold_coefficient < 0:
            raise ValueError(f"threshold_coefficient must be >= 0, got {threshold_coefficient}")
        super().__init__(remove_hidden=remove_hidden)
        self.threshold_coefficient = threshold_coefficient

    def select(self, view: DomView) -> Sequence[Keep] | EmptyReason:
        counts = count_nodes(view)
        if counts.chars[0] == 0:
            return NO_TEXT
        check_deadline("after counting the nodes")
        density = densities(counts, composite=True)
        smoothed = smooth_over_siblings(view, density)
        threshold = self.threshold_coefficient * density[0]
        size = len(view)
        content = [i > 0 and smoothed[i] >= threshold - EPSILON for i in range(size)]
        return own_modes(view, content)


def smooth_over_siblings(view: DomView, values: Sequence[float]) -> list[float]:
    """Weighted (1, 2, 1) average of each element with its previous and next element sibling,
    from the unsmoothed values; a missing neighbour drops out with its weight; the root keeps
    its own value (S-18)."""
    return smoothed_lists(view.children, values)


@accel.twin(accel.compiled.smooth_over_siblings)
def smoothed_lists(children: list[list[int]], values: Sequence[float]) -> list[float]:
    """:func:`smooth_over_siblings` on a view's children, in pure Python: the reference the
    compiled pass reproduces."""
    smoothed = list(values)
    for siblings in children:
        last = len(siblings) - 1
        for k, node in enumerate(siblings):
            total, weight = 2 * values[node], 2
            if k > 0:
                total += values[siblings[k - 1]]
                weight += 1
            if k < last:
                total += values[siblings[k + 1]]
                weight += 1
            smoothed[node] = total / weight
    return smoothed

"""Page-level main content extraction with node ratios and a set of candidates (c-SET), by
Alarte & Silva (``shared/seeds/cset-alarte-silva.md``, specification in ``docs/algorithms.md``
§4).

Every eligible element becomes a point in R⁴ (word, hyperlink, children and position ratios);
after standardisation, the ``c`` points farthest from the centroid are the candidates, and the
candidate with the most text per tag, with its candidate siblings, is the main content.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from scrapy_cetd.extractors.base import NO_TEXT, Extractor
from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.output import Keep, content_modes
from scrapy_cetd.page.words import collapse_spaces, count_words
from scrapy_cetd.result import EmptyReason, Reason

EXCLUDED_TAGS = frozenset(
    {
        *("a", "nav", "hr", "span", "em", "header", "br", "iframe", "script", "body"),
        *("h1", "h2", "h3", "h4", "h5", "h6"),
    }
)
"""Elements never rated (§3.1 criterion 2; ``h6`` added, ``docs`` §4.1)."""

MEDIA_TAGS = frozenset(
    {"img", "picture", "video", "audio", "iframe", "embed", "object", "svg", "canvas"}
)
"""Non-text content a main-content node may consist of (§1: images, animations, media)."""

MAX_WORD_DISTANCE = 64
"""The deepest text, in levels below a node, that counts in its word ratio. The ratio weights
the words of a text by ``1/distance``; summed over every (node, text) pair it costs the sum of
the text's depths, quadratic on a page nested thousands deep with text at every level. Text
this far down weighs under 1/64; real pages do not nest text 50 levels below the body, so
their ratios are the exact sums."""

NO_RATED = EmptyReason(
    "no element qualifies for rating (every element is a leaf or an excluded tag)",
    Reason.NO_CONTENT,
)
EMPTY_AFTER_POST_PROCESS = EmptyReason(
    "the selected nodes were only groups of links (post-process)", Reason.NO_CONTENT
)


@dataclass(frozen=True, eq=False)
class NodeRatios:
    """The rated nodes of a view (document order) and their four ratios (§3.1, Def. 3.1)."""

    rated: list[int]
    word: list[float]
    hyperlink: list[float]
    children: list[float]
    position: list[float]


class CSetExtractor(Extractor):
    """Alarte & Silva's page-level extractor: node ratios, standardisation, centroid, c-SET,
    reduction, selection and post-process (§3.1-§3.5; ``docs/algorithms.md`` §4).

    1. Rated nodes (§3.1): elements below ``<body>`` that are not leaves and not one of
       :data:`EXCLUDED_TAGS`. When the page is wider than deep (the largest number of rated
       nodes on a path down from the body is less than the number of rated children of the
       body, criterion 3), the whole body is the main content.
    2. Ratios (Def. 3.1): word ratio (non-link words weighted by ``1/distance``), hyperlink
       ratio (``1/links``), children ratio (more than two child nodes) and position ratio
       (``1`` in the upper half of the tree, ``maxDepth/depth - 1`` below it).
    3. Standardisation (Def. 3.2, population SD; a constant ratio standardises to 0), centroid
       (Alg. 1), and the ``c`` nodes farthest from it (Alg. 2, ties in document order).
    4. Reduction (Alg. 3): a candidate below another candidate with the same text nodes goes.
    5. Selection (Alg. 4): the candidates with the most characters per element, plus their
       candidate siblings.
    6. Post-process (§3.5, Alg. 5): a selected node with ``textRatio > tr`` and more than
       ``hr`` links goes; inside the rest, every group of single-link children (breadcrumbs,
       link lists) without images goes; a node left without text or media goes.

    Word ratios count the text up to :data:`MAX_WORD_DISTANCE` levels below a node, so the
    cost is linear in the page whatever its depth (see :func:`node_ratios`).
    """

    name = "cset"

    def __init__(
        self,
        *,
        c: int = 3,
        tr: float = 1.5,
        hr: int = 7,
        post_process: bool = True,
        remove_hidden: bool = True,
    ) -> None:
        """``c``: size of the candidate set (§4, Table 1: 3 is best of 1-8).
        ``tr``: text-ratio threshold of the post-process (§4, Table 2: 1.5; any value 1.5-3
        gives the same result).
        ``hr``: hyperlink threshold of the post-process (§4, Table 2: 7; 7 and 8 are equal).
        ``post_process``: apply the final post-process (§3.5; Table 2's last row is without).
        ``remove_hidden``: see :class:`~scrapy_cetd.extractors.base.Extractor`."""
        if c < 1:
            raise ValueError(f"c must be at least 1, got {c}")
        if tr < 0 or hr < 0:
            raise ValueError(f"tr and hr must be >= 0, got tr={tr}, hr={hr}")
        super().__init__(remove_hidden=remove_hidden)
        self.c = c
        self.tr = tr
        self.hr = hr
        self.post_process = post_process

    def select(self, view: DomView) -> Sequence[Keep] | EmptyReason:
        size = len(view)
        if not any(run and not run.isspace() for runs in view.runs for run in runs):
            return NO_TEXT
        ratios = node_ratios(view)
        check_deadline("after rating the nodes")
        if not ratios.rated:
            return NO_RATED
        if is_wide_page(view, ratios.rated):
            return [Keep.TEXT] * size
        distances = centroid_distances(ratios)
        check_deadline("after measuring the distances")
        order = heapq.nsmallest(self.c, range(len(ratios.rated)), key=lambda k: (-distances[k], k))
        candidates = sorted(ratios.rated[k] for k in order)
        distance_of = {ratios.rated[k]: distances[k] for k in order}

        stats = _SubtreeStats(view)
        check_deadline("after counting the subtrees")
        candidates = reduce_candidates(stats, candidates)
        main = select_main_content(view, stats, candidates, distance_of)

        removed = [False] * size
        if self.post_process:
            main = [n for n in main if not self._too_many_links(view, stats, n)]
            for node in main:
                for group in link_groups(view, stats, node):
                    removed[group] = True
            main = [n for n in main if _has_content(view, stats, n, removed)]
            if not main:
                return EMPTY_AFTER_POST_PROCESS

        content = [False] * size
        for node in main:
            content[node] = True
        shells = [False] * size
        for node in main:
            for ancestor in view.ancestors(node):
                if shells[ancestor]:
                    break
                shells[ancestor] = True
        modes = content_modes(view, content, shells, shell_text=False)
        for i in range(size):
            if removed[i]:
                for j in range(i, i + stats.size[i]):
                    modes[j] = Keep.DROP
        return modes

    def _too_many_links(self, view: DomView, stats: _SubtreeStats, node: int) -> bool:
        """Rule 1 of the post-process (Alg. 5): ``textRatio > tr`` and ``links > hr``, with
        ``textRatio`` = characters of the text / characters of the text outside links."""
        if stats.links[node] <= self.hr:
            return False
        total = len(subtree_text(view, node))
        without_links = len(subtree_text(view, node, skip_links=True))
        if without_links == 0:
            return True  # textRatio = ∞ (docs §4.3 step 9)
        return total / without_links > self.tr


def node_ratios(view: DomView) -> NodeRatios:
    """The rated nodes of ``view`` and their four ratios (§3.1, Def. 3.1)."""
    size = len(view)
    tags, parent, depth, runs = view.tags, view.parent, view.depth, view.runs
    text_children = [sum(1 for run in own if run and not run.isspace()) for own in runs]
    in_a = [False] * size
    for i in range(size):
        p = parent[i]
        in_a[i] = tags[i] == "a" or (p >= 0 and in_a[p])
    links = [0] * size
    for i in range(size - 1, 0, -1):
        links[parent[i]] += links[i] + (tags[i] == "a")
    rated_flag = [
        i > 0 and tags[i] not in EXCLUDED_TAGS and (bool(view.children[i]) or text_children[i] > 0)
        for i in range(size)
    ]

    # Word ratio: Σ words(t)/distance(t, n) over text nodes t below n outside links, where text
    # directly in n is at distance 1. Each text-bearing element adds to its rated ancestors up
    # to MAX_WORD_DISTANCE.
    word = [0.0] * size
    for m in range(size):
        if not m % 4096:
            check_deadline("rating the nodes")
        if in_a[m]:
            continue
        words = sum(count_words(run) for run in runs[m] if run)
        if not words:
            continue
        node, distance = m, 1
        while node > 0 and distance <= MAX_WORD_DISTANCE:
            if rated_flag[node]:
                word[node] += words / distance
            node = parent[node]
            distance += 1

    max_depth = max(depth)
    rated = [i for i in range(size) if rated_flag[i]]
    return NodeRatios(
        rated=rated,
        word=[word[i] for i in rated],
        hyperlink=[1.0 / links[i] if links[i] else 1.0 for i in rated],
        children=[1.0 if len(view.children[i]) + text_children[i] > 2 else 0.0 for i in rated],
        position=[1.0 if 2 * depth[i] <= max_depth else max_depth / depth[i] - 1.0 for i in rated],
    )


def is_wide_page(view: DomView, rated: Sequence[int]) -> bool:
    """§3.1 criterion 3: the largest number of rated nodes on a path down from the body is
    less than the number of rated children of the body."""
    is_rated = [False] * len(view)
    for i in rated:
        is_rated[i] = True
    on_path = [0] * len(view)
    deepest = 0
    for i in range(1, len(view)):
        on_path[i] = on_path[view.parent[i]] + is_rated[i]
        deepest = max(deepest, on_path[i])
    width = sum(1 for child in view.children[0] if is_rated[child])
    return deepest < width


def standardize(values: Sequence[float]) -> list[float]:
    """``(r - mean) / sd`` with the population SD (Def. 3.2); 0 for a constant ratio."""
    if not values or min(values) == max(values):
        return [0.0] * len(values)
    mean = math.fsum(values) / len(values)
    sd = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / len(values))
    return [(value - mean) / sd for value in values]


def centroid_distances(ratios: NodeRatios) -> list[float]:
    """Euclidean distance of every rated node to the centroid of the standardised points
    (Def. 3.4, Alg. 1-2). The centroid is computed, though standardisation makes it 0."""
    columns = [
        standardize(ratios.word),
        standardize(ratios.hyperlink),
        standardize(ratios.children),
        standardize(ratios.position),
    ]
    count = len(ratios.rated)
    centroid = [math.fsum(column) / count for column in columns]
    return [
        math.sqrt(
            sum((column[k] - centre) ** 2 for column, centre in zip(columns, centroid, strict=True))
        )
        for k in range(count)
    ]


class _SubtreeStats:
    """Per element: subtree size, ``<a>`` count, non-whitespace text nodes and images below."""

    __slots__ = ("images", "links", "size", "text_nodes")

    def __init__(self, view: DomView) -> None:
        size = len(view)
        self.size = [1] * size
        self.links = [0] * size
        self.images = [0] * size
        self.text_nodes = [sum(1 for run in own if run and not run.isspace()) for own in view.runs]
        for i in range(size - 1, 0, -1):
            p = view.parent[i]
            self.size[p] += self.size[i]
            self.links[p] += self.links[i] + (view.tags[i] == "a")
            self.images[p] += self.images[i] + (view.tags[i] == "img")
            self.text_nodes[p] += self.text_nodes[i]

    def contains(self, ancestor: int, node: int) -> bool:
        """Whether ``node`` is in the subtree of ``ancestor`` (preorder intervals)."""
        return ancestor <= node < ancestor + self.size[ancestor]


def reduce_candidates(stats: _SubtreeStats, candidates: Sequence[int]) -> list[int]:
    """Alg. 3: drop a candidate that has a candidate ancestor with the same text nodes."""
    return [
        n2
        for n2 in candidates
        if not any(
            n1 != n2 and stats.contains(n1, n2) and stats.text_nodes[n1] == stats.text_nodes[n2]
            for n1 in candidates
        )
    ]


def select_main_content(
    view: DomView,
    stats: _SubtreeStats,
    candidates: Sequence[int],
    distance_of: dict[int, float],
) -> list[int]:
    """Alg. 4: the candidates with the highest ``textPond`` (characters of the normalised text
    / elements in the subtree, the node included), all of them on a tie, plus every candidate
    that shares a parent with one of them; when no candidate has text, the farthest one."""
    ponds = {n: len(subtree_text(view, n)) / stats.size[n] for n in candidates}
    best = max(ponds.values())
    if best == 0:
        farthest = min(candidates, key=lambda n: (-distance_of[n], n))
        return [farthest]
    chosen = {n for n in candidates if ponds[n] == best}
    parents = {view.parent[n] for n in chosen}
    chosen.update(n for n in candidates if view.parent[n] in parents)
    return sorted(chosen)


def subtree_text(view: DomView, node: int, *, skip_links: bool = False) -> str:
    """The normalised text content of ``node``'s subtree (the innerText of S-9: whitespace
    collapsed and stripped); ``skip_links`` leaves out the text inside ``<a>`` elements."""
    parts: list[str] = []
    stack: list[tuple[int, int]] = [(node, 0)]
    while stack:
        element, k = stack.pop()
        parts.append(view.runs[element][k])
        children = view.children[element]
        if k < len(children):
            stack.append((element, k + 1))
            child = children[k]
            if not (skip_links and view.tags[child] == "a"):
                stack.append((child, 0))
    return collapse_spaces("".join(parts))


def link_groups(view: DomView, stats: _SubtreeStats, node: int) -> list[int]:
    """Rule 2 of the post-process (§3.5): the elements of ``node``'s subtree (``node``
    included) that have two or more element children, all with one tag, each holding exactly
    one child node (whitespace ignored) that is an ``<a>``, and no ``<img>`` below. Groups
    inside a group are not listed."""
    groups: list[int] = []
    i, end = node, node + stats.size[node]
    while i < end:
        if _is_link_group(view, stats, i):
            groups.append(i)
            i += stats.size[i]
        else:
            i += 1
    return groups


def _is_link_group(view: DomView, stats: _SubtreeStats, element: int) -> bool:
    children = view.children[element]
    if len(children) < 2 or stats.images[element]:
        return False
    tag = view.tags[children[0]]
    for child in children:
        if view.tags[child] != tag:
            return False
        grandchildren = view.children[child]
        if len(grandchildren) != 1 or view.tags[grandchildren[0]] != "a":
            return False
        if any(run and not run.isspace() for run in view.runs[child]):
            return False
    return True


def _has_content(view: DomView, stats: _SubtreeStats, node: int, removed: Sequence[bool]) -> bool:
    """Whether ``node`` keeps any text or media once the removed link groups are gone."""
    i, end = node, node + stats.size[node]
    while i < end:
        if removed[i]:
            i += stats.size[i]
            continue
        if view.tags[i] in MEDIA_TAGS or any(run and not run.isspace() for run in view.runs[i]):
            return True
        i += 1
    return False

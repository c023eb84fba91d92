"""CoreEx: Content Extraction from Online News Articles (Prasad & Paepcke, Stanford;
``shared/seeds/coreex-prasad-paepcke.md``, specification in ``docs/algorithms.md`` §3).

Every node gets a word count ``textCnt`` (a link counts as one word) and a link count
``linkCnt``; each interior node keeps the subset ``S`` of its children that are mostly text, and
the node whose subset scores best under the weighted score is the main content.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from scrapy_cetd.extractors.base import NO_TEXT, Extractor
from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.dom import HEADING_TAGS, DomView
from scrapy_cetd.page.output import Keep
from scrapy_cetd.page.words import count_words
from scrapy_cetd.result import EmptyReason, Reason

FORM_CONTROL_TAGS = frozenset(
    {"select", "option", "optgroup", "input", "textarea", "button", "datalist"}
)
"""Form controls whose subtrees are ignored, neither counted nor output (paper §3.2 variant 1:
select, input, textarea, option; optgroup, button and datalist added, ``docs`` §3.4)."""


NO_CANDIDATE = EmptyReason(
    "no node has a mostly-text child (every block is links or form controls)", Reason.NO_CONTENT
)


class CoreExExtractor(Extractor):
    """CoreEx, configuration R5 of the paper's Table 1 (weighted scoring, subset selection,
    form tags ignored, scripts removed), with the optional title recovery of §6.1.

    Counts (§2.1, ``docs`` §3.1): a text node counts its words (CJK characters one each, §0.3);
    an ``<a>`` element is a link node worth one word and one link whatever it holds (its subtree
    is not visited); other terminals count nothing; interior nodes sum their children. Scripts,
    styles, comments and hidden elements are removed before counting (§3.2 variant 2, §0.2).

    Subset selection (§2.2.2): a child enters ``S(N)`` when its ratio
    ``(textCnt - linkCnt) / textCnt`` is strictly above ``threshold`` (tested in exact
    rational arithmetic, so ``9/10`` is not above 0.9). An element ``N`` scores
    ``weight_ratio·(setTextCnt - setLinkCnt)/setTextCnt + (1 - weight_ratio)·setTextCnt/pageText``
    (§2.2.1 with the subset counts); the best one wins, ties going to the node higher in the
    tree (§2.1), then to the first in document order (instead of the paper's random choice).
    The output is the winner as a shell holding exactly ``S`` (its text and the selected
    children, whole), with its ancestors as shells.

    Forms (§3.2 variant 1, §6.1): form controls are ignored with their subtrees; a ``<form>``
    element is *unwrapped*: it is neither a candidate nor a child of its own, its text and
    children count as children of the nearest non-form ancestor. The paper's implementation
    lost whole pages that sit in one ``<form>`` (``leading_the_charge``, every ASP.NET
    WebForms page); unwrapping keeps the gain of ignoring forms without that failure.
    """

    name = "coreex"

    def __init__(
        self,
        *,
        weight_ratio: float = 0.99,
        threshold: float = 0.9,
        ignore_forms: bool = True,
        include_title: bool = True,
        remove_hidden: bool = True,
    ) -> None:
        """``weight_ratio``: the paper's ``weight_ratio`` (§2.2.1; 0.99, tuned on 500 pages);
        ``weight_text`` is ``1 - weight_ratio`` (0.01), as the two must sum to 1.
        ``threshold``: the child ratio a child must exceed to enter the subset (§2.2.2; 0.9).
        ``ignore_forms``: ignore form controls and unwrap ``<form>`` elements (§3.2 variant 1,
        on in the best configuration R4-R5 of Table 1).
        ``include_title``: add the first ``h1``-``h6`` among the winner's previous siblings,
        nearest first (§6.1; title recall 80% → 92%; ``False`` reproduces Table 1's R5).
        ``remove_hidden``: see :class:`~scrapy_cetd.extractors.base.Extractor`."""
        if not 0 <= weight_ratio <= 1:
            raise ValueError(f"weight_ratio must be between 0 and 1, got {weight_ratio}")
        if not 0 <= threshold <= 1:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        super().__init__(remove_hidden=remove_hidden)
        self.weight_ratio = weight_ratio
        self.threshold = threshold
        self.ignore_forms = ignore_forms
        self.include_title = include_title

    @property
    def weight_text(self) -> float:
        """``weight_text = 1 - weight_ratio`` (§2.2.1)."""
        return 1.0 - self.weight_ratio

    def select(self, view: DomView) -> Sequence[Keep] | EmptyReason:
        size = len(view)
        counts = count_coreex(view, ignore_forms=self.ignore_forms)
        check_deadline("after counting the words")
        if not any(run and not run.isspace() for runs in view.runs for run in runs):
            return NO_TEXT
        page_text = counts.text[0]
        if page_text == 0:
            return NO_CANDIDATE

        selected = _subset_rule(self.threshold)
        scores = subset_scores(view, counts, selected, self.weight_ratio)
        check_deadline("after scoring the subsets")
        # Ties: higher in the tree (§2.1), then the first in document order.
        best = -1
        for i, score in enumerate(scores):
            if score is None:
                continue
            if (
                best < 0
                or score > (scores[best] or 0.0)
                or (score == scores[best] and counts.depth[i] < counts.depth[best])
            ):
                best = i
        if best < 0:
            return NO_CANDIDATE

        # Output: the winner as a shell holding exactly S(winner), plus the title (§6.1).
        roots: list[int] = []
        own_text: list[int] = [best]
        text_nodes_kept = selected(1, 0)
        for i in range(best + 1, best + counts.subtree[best]):
            if counts.container[i] < 0:
                continue
            if counts.unwrapped[i] and counts.container[i] == best:
                own_text.append(i)  # a form unwrapped into the winner: its text is in S
            p = view.parent[i]
            if (
                not counts.unwrapped[i]
                and counts.container[p] == best
                and selected(counts.text[i], counts.links[i])
            ):
                roots.append(i)
        if self.include_title:
            title = _previous_heading(view, counts, best)
            if title >= 0:
                roots.append(title)

        modes = [Keep.DROP] * size
        if text_nodes_kept:
            for i in own_text:
                modes[i] = Keep.TEXT
        for root in roots:
            _keep_subtree(view, counts, root, modes)
        kept = [i for i in range(size) if modes[i] != Keep.DROP]
        for i in (*kept, best):
            for ancestor in view.ancestors(i):
                if modes[ancestor] != Keep.DROP:
                    break
                modes[ancestor] = Keep.SHELL
        if modes[best] == Keep.DROP:
            modes[best] = Keep.SHELL
        return modes


class CoreExCounts:
    """``textCnt`` and ``linkCnt`` of every element of a view, with what the subset rule needs.

    ``container[i]`` is the node whose children ``i``'s own text nodes count as (``i`` itself,
    or for an unwrapped form the nearest non-form ancestor); ``-1`` for an element that is not
    visited (inside a link node or an ignored form control).
    """

    __slots__ = (
        "candidate",
        "container",
        "depth",
        "ignored",
        "links",
        "own_words",
        "subtree",
        "text",
        "unwrapped",
    )

    def __init__(self, size: int) -> None:
        self.text = [0] * size
        self.links = [0] * size
        self.own_words = [0] * size
        self.container = [-1] * size
        self.unwrapped = [False] * size
        self.ignored = [False] * size
        self.candidate = [False] * size
        self.depth = [0] * size
        self.subtree = [1] * size


def count_coreex(view: DomView, *, ignore_forms: bool) -> CoreExCounts:
    """The CoreEx counts of every element (§2.1), in two O(n) passes."""
    size = len(view)
    counts = CoreExCounts(size)
    tags, parent = view.tags, view.parent
    text, links, own, container = counts.text, counts.links, counts.own_words, counts.container
    for i in range(size):
        counts.ignored[i] = ignore_forms and tags[i] in FORM_CONTROL_TAGS
        p = parent[i]
        if p >= 0 and (container[p] < 0 or tags[p] == "a" or counts.ignored[p]):
            continue  # not visited: inside a link node or an ignored control
        tag = tags[i]
        if tag == "a":
            container[i] = i
            text[i] = links[i] = 1
            continue
        if counts.ignored[i]:
            container[i] = i
            continue
        if ignore_forms and tag == "form" and p >= 0:
            counts.unwrapped[i] = True
            container[i] = container[p]
            counts.depth[i] = counts.depth[p]
        else:
            container[i] = i
            counts.candidate[i] = True
            counts.depth[i] = counts.depth[p] + 1 if p >= 0 else 0
        own[i] = sum(count_words(run) for run in view.runs[i] if run)
    subtree = counts.subtree
    for i in range(size - 1, 0, -1):
        p = parent[i]
        subtree[p] += subtree[i]
        if container[i] < 0:
            continue
        if tags[i] != "a":
            text[i] += own[i]
        if container[p] >= 0 and tags[p] != "a":
            text[p] += text[i]
            links[p] += links[i]
    if size and container[0] >= 0 and tags[0] != "a":
        text[0] += own[0]
    return counts


def _subset_rule(threshold: float) -> Callable[[int, int], bool]:
    """The test ``(textCnt - linkCnt) / textCnt > threshold`` of §2.2.2, in exact rational
    arithmetic (``docs`` S-7: ``9/10 > 0.9`` is false)."""
    ratio = Fraction(str(threshold))
    numerator, denominator = ratio.numerator, ratio.denominator

    def selected(text: int, links: int) -> bool:
        return text > 0 and (text - links) * denominator > numerator * text

    return selected


def subset_scores(
    view: DomView,
    counts: CoreExCounts,
    selected: Callable[[int, int], bool],
    weight_ratio: float,
) -> list[float | None]:
    """The subset score of every element (§2.2.1-§2.2.2), ``None`` for non-candidates: link
    nodes, ignored controls, unwrapped forms and nodes whose subset holds no text."""
    size = len(view)
    set_text = [0] * size
    set_link = [0] * size
    container, parent = counts.container, view.parent
    for i in range(size):
        if container[i] < 0:
            continue
        words = counts.own_words[i]
        if words and selected(words, 0):
            # A text node: every non-empty one of i counts as a child of i's container.
            set_text[container[i]] += words
        p = parent[i]
        if p >= 0 and not counts.unwrapped[i] and selected(counts.text[i], counts.links[i]):
            target = container[p]
            set_text[target] += counts.text[i]
            set_link[target] += counts.links[i]
    page_text = counts.text[0]
    weight_text = 1.0 - weight_ratio
    return [
        weight_ratio * (set_text[i] - set_link[i]) / set_text[i]
        + weight_text * set_text[i] / page_text
        if counts.candidate[i] and set_text[i] > 0
        else None
        for i in range(size)
    ]


def _keep_subtree(view: DomView, counts: CoreExCounts, root: int, modes: list[Keep]) -> None:
    """Keep ``root``'s subtree whole, except ignored form controls (never visited, §3.2)."""
    i, end = root, root + counts.subtree[root]
    while i < end:
        if counts.ignored[i]:
            i += counts.subtree[i]
            continue
        modes[i] = Keep.TEXT
        i += 1


def _previous_heading(view: DomView, counts: CoreExCounts, node: int) -> int:
    """The first ``h1``-``h6`` among ``node``'s previous siblings, nearest first (§6.1);
    siblings are taken with forms unwrapped. ``-1`` when there is none."""
    if node == 0:
        return -1
    parent = counts.container[view.parent[node]]
    # The siblings of ``node``: the non-form children of ``parent`` with forms unwrapped, in
    # document order; only those before ``node`` matter.
    siblings: list[int] = []
    stack = list(reversed(view.children[parent]))
    while stack:
        child = stack.pop()
        if child >= node:
            break
        if counts.unwrapped[child]:
            stack.extend(reversed(view.children[child]))
        else:
            siblings.append(child)
    for sibling in reversed(siblings):
        if view.tags[sibling] in HEADING_TAGS:
            return sibling
    return -1

"""The runs of records: a list's records or a thread's posts, siblings alike in tag and class
(steps 14, 21 and 23), and what follows the last of them (steps 29 and 30).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import HOLD_DEPTH, DomView
from scrapy_cetd.page.output import Keep

MIN_RECORDS = 3
"""The fewest siblings alike in tag and class that make a run of records."""

MIN_RECORD_CHARS = 10
"""The fewest characters a sibling needs to count as a record (an empty spacer is none)."""


def sibling_runs(view: DomView, chars: Sequence[int], parent: int) -> list[list[int]]:
    """The children of ``parent`` alike in tag and class (:func:`alike_siblings`), each with
    :data:`MIN_RECORD_CHARS` characters or more, grouped (each group in document order, of any
    size); ``chars`` are the view's :func:`count_nodes` characters."""
    return alike_siblings(view, (c for c in view.children[parent] if chars[c] >= MIN_RECORD_CHARS))


def alike_siblings(view: DomView, siblings: Iterable[int]) -> list[list[int]]:
    """``siblings`` (in document order) grouped by tag and class, each group in document order,
    the groups in the order of their first members. Two classes of one tag whose siblings take
    turns (A B A B, :func:`_take_turns`) are one group: a page that shades its records in turn
    gives consecutive records two classes (phpBB's ``post bg1`` and ``post bg2``, ``odd`` and
    ``even`` rows, ``alt`` on every other comment), and they are one run of records all the
    same. Turns are a pattern of the markup, not of its words, so no class name is looked
    for. Only the two classes' siblings are compared: another sibling between them (a banner
    after a post) does not break the turns. A class is tried only with the class of the next
    sibling of its tag after its first one (past a banner there, the other class is tried
    with it the other way round) and paired at most once, so each sibling is read a bounded
    number of times."""
    groups: dict[tuple[str, str], list[int]] = {}
    following: dict[tuple[str, str], tuple[str, str]] = {}
    waiting: dict[str, tuple[str, str]] = {}  # per tag, the class whose first sibling was last
    for c in siblings:
        tag = view.tags[c]
        key = (tag, view.elements[c].get("class") or "")
        if tag in waiting:
            following[waiting.pop(tag)] = key
        if key not in groups:
            groups[key] = []
            waiting[tag] = key
        groups[key].append(c)
    partner: dict[tuple[str, str], tuple[str, str]] = {}
    for key, other in following.items():
        if other == key or key in partner or other in partner:
            continue
        if _take_turns(*sorted((groups[key], groups[other]))):
            partner[key], partner[other] = other, key
    runs: list[list[int]] = []
    for key, group in groups.items():
        turns = partner.get(key)
        if turns is None:
            runs.append(group)
        elif group[0] < groups[turns][0]:
            runs.append(sorted(group + groups[turns]))
    return runs


def _take_turns(first: list[int], second: list[int]) -> bool:
    """Whether the siblings of two groups (each in document order, ``first`` starting first)
    alternate, two of each at least: A B A B (or A B A B A), never two of one group without one
    of the other between. A lone sibling between two others (A B A) is no turn: two of one
    class around one of another are as often a block's head, body and foot as three records
    (see docs/page-types.md)."""
    if len(second) < 2 or len(first) - len(second) not in {0, 1}:
        return False
    return all(a < b for a, b in zip(first, second, strict=False)) and all(
        b < a for b, a in zip(second, first[1:], strict=False)
    )


def record_run(view: DomView, chars: Sequence[int], share: float) -> list[int]:
    """The records of a list or the posts of a thread: the run of :data:`MIN_RECORDS` or more
    siblings alike in tag and class (:func:`sibling_runs`) that holds the most text, in
    document order; none when no run holds ``share`` of the text of the view's root. Only the
    elements that hold that much are looked at, each child once."""
    least = max(share * chars[0], 1)
    best: list[int] = []
    best_chars = 0
    held: list[etree._Element] = []  # freed together at the end: lxml walks up from one alone
    for p in range(len(view)):
        if chars[p] < least or len(view.children[p]) < MIN_RECORDS:
            continue
        held.append(view.elements[p])  # its children's proxies, freed alone, stop at it
        for run in sibling_runs(view, chars, p):
            total = sum(chars[c] for c in run)
            if len(run) >= MIN_RECORDS and total > best_chars:
                best, best_chars = run, total
        if p & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding the records")
    return best if best_chars >= least else []


def drop_after_run(
    view: DomView,
    chars: Sequence[int],
    modes: list[Keep],
    run: Sequence[int],
    region: int,
    *,
    share: float,
    thread: bool = False,
) -> None:
    """Drop from ``modes`` what lies after the last element of ``run`` (a list's records or a
    thread's posts, :func:`record_run`; not empty) inside the element ``region`` that bounds
    them (:func:`after_last`): the pagination, the "related" and "popular" lists and the
    banners under a list; the reply box, the "related threads" and "who is reading" panels
    and the invitation to sign in under a thread. It stays when together it holds more than
    ``share`` of the run's text (``chars``: the view's :func:`count_nodes` characters): a list
    that a long text follows (a category's description below its records) keeps it. What the
    run missed stays too (:class:`_Missed`). A list ends with its last record, a thread with
    its last post. Only elements go: a text directly after the last record stays."""
    missed = _Missed(view, chars, run, thread, region)
    after = [c for c in after_last(view, run, region) if not missed(c)]
    if sum(chars[c] for c in after) <= share * sum(chars[r] for r in run):
        for c in after:
            modes[c] = Keep.DROP


class _Missed:
    """Whether an element after the last of a ``run`` of records is one the run missed: a
    sibling with the records' tag whose class shares a word with theirs (``card card--last``
    after ``card``: a run groups siblings by their whole class) or that holds half the text of
    the shortest record (the asker's post under a class of its own); on a ``thread``, also an
    element holding one with the posts' tag and a word of their class (the replies nested
    under the last post). The run is read once (the records share their class, or take turns
    with two, so the first two records' words are theirs), not once per element asked
    about."""

    def __init__(
        self,
        view: DomView,
        chars: Sequence[int],
        run: Sequence[int],
        thread: bool,
        region: int = 0,
    ):
        self.view, self.chars, self.thread = view, chars, thread
        # The proxies of the run's ancestors up to region, made top-down and so freed deepest
        # first: an element asked about is a child of one of them, and lxml frees its proxy by
        # walking up to the closest ancestor that has one (the depth, on a deep page).
        chain = [view.parent[run[-1]]]
        while chain[-1] != region and view.parent[chain[-1]] >= 0:
            chain.append(view.parent[chain[-1]])
        self.held: list[etree._Element] = [view.elements[a] for a in reversed(chain)]
        self.tag = view.tags[run[0]]
        self.words = _class_words(view, run[0]) | _class_words(view, run[min(1, len(run) - 1)])
        self.parent = view.parent[run[0]]
        self.shortest = min(chars[r] for r in run)

    def _alike(self, i: int) -> bool:
        return self.view.tags[i] == self.tag and not self.words.isdisjoint(
            _class_words(self.view, i)
        )

    def __call__(self, c: int) -> bool:
        view = self.view
        if view.parent[c] == self.parent and view.tags[c] == self.tag:
            if self._alike(c) or not (self.words or _class_words(view, c)):
                return True
            if 2 * self.chars[c] >= self.shortest:
                return True
        if not self.thread:
            return False
        end = view.subtree_end(c)
        depth = view.depth
        # A deep subtree's proxies are held while it is read, freed deepest first.
        held = view.elements[c:end] if max(depth[c:end]) - depth[c] >= HOLD_DEPTH else []
        found = any(self._alike(i) for i in range(c, end))
        del held
        return found


def _class_words(view: DomView, i: int) -> set[str]:
    return set((view.elements[i].get("class") or "").split())


def after_last(view: DomView, run: Sequence[int], region: int) -> list[int]:
    """The children of the parent of ``run``'s last element (``run`` is not empty), and of its
    ancestors up to the element ``region`` that holds them, that start after that element
    ends."""
    end = view.subtree_end(run[-1])
    after: list[int] = []
    above = view.parent[run[-1]]
    while above >= 0:
        after.extend(c for c in view.children[above] if c >= end)
        if above == region:
            break
        above = view.parent[above]
    return after

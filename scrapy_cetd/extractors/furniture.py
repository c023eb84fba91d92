"""Page furniture: the parts of a page that are there on every page of its site (navigation,
sidebars, footers, dialogs, comment sections), found by the page's own markup, and the view of
the page without them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import deque
from collections.abc import Sequence

from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page import accel
from scrapy_cetd.page.dom import LINK_TAGS, DomView, ViewFields
from scrapy_cetd.page.words import tokens

BOILERPLATE_TAGS = frozenset({"nav", "aside", "footer", "dialog", "menu", "select"})
"""HTML elements whose content is page furniture by definition (HTML Living Standard §4.3-4.4)."""

WRAPPER_SHARE = 0.9
"""A furniture tag or role around this share of the page's text or more wraps the page itself:
a markup error (an unclosed ``<nav>``), not furniture. Measured: wcxb +0.003, no change on the
other datasets."""

BOILERPLATE_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "dialog"}
)
"""ARIA landmark and widget roles that mark page furniture (WAI-ARIA 1.2 §5.3)."""

FOOTER_NAME = re.compile(
    r"(?<![Nn]ot[-_])(?<![Nn]on[-_])(?<![Nn]o[-_])(?<!not)(?<!non)"
    r"(?:(?<![A-Za-z])|(?<=[a-z])(?=F))(?:footer|Footer|FOOTER)(?![a-z])"
)
"""The word ``footer`` in an ``id`` or ``class``: between non-letters or case changes
(``footer``, ``site-footer``, ``x-bar-footer``, ``preFooter``, ``footerBlocks``), not inside a
longer word (``seofootercopy``, a collection's description), and not negated (``not-footer``,
``no_footer``, ``nonFooter``: Weebly names its content column ``wsite-not-footer``).
Templates name the site's footer so when they build it of ``<div>`` elements, or repeat it for
narrow screens outside its ``<footer>``. A table's header cell (``<th>``) is never taken for
one: it heads its column, whatever style its class borrows (``footer_title_big``)."""

LOCATE_TOKENS = 5
"""A declared text is found in the page by its first and last this many tokens."""


def boilerplate(
    view: DomView,
    chars: Sequence[int],
    *,
    structural: bool,
    comments: bool,
    forms: bool = True,
    footers: bool = False,
) -> list[bool]:
    """Which elements of ``view`` are page furniture, their descendants included: semantic
    tags and ARIA roles holding less than :data:`WRAPPER_SHARE` of the text (a page wrapped
    whole in an unclosed ``<nav>`` is not furniture) and forms holding less than half of it (a
    page wrapped in one ``<form>``, as ASP.NET makes them, is not furniture) when
    ``structural``; with ``footers`` too, elements whose ``id`` or ``class`` names a footer
    (:data:`FOOTER_NAME`) holding less than half of it (more is a wrapper: ``has-footer``);
    comment sections other than an ``<article>`` or ``<main>`` when ``comments``.
    ``forms=False`` leaves forms alone. ``chars`` are the view's :func:`count_nodes`
    characters."""
    half, most = chars[0] / 2, WRAPPER_SHARE * chars[0]
    return furniture_flags(
        view.elements, view.tags, view.parent, chars, structural, comments, forms,
        structural and footers, half, most, BOILERPLATE_TAGS, BOILERPLATE_ROLES, FOOTER_NAME,
    )  # fmt: skip


@accel.twin(accel.compiled.boilerplate)
def furniture_flags(  # noqa: PLR0917 - the parameters of its compiled twin
    elements: Sequence[etree._Element],
    tags: list[str],
    parent: list[int],
    chars: Sequence[int],
    structural: bool,
    comments: bool,
    forms: bool,
    footers: bool,
    half: float,
    most: float,
    furniture_tags: frozenset[str],
    furniture_roles: frozenset[str],
    footer_name: re.Pattern[str],
) -> list[bool]:
    """:func:`boilerplate` on a view's lists, with the shares of the text a form or a named
    footer (``half``) and a furniture tag or role (``most``) must stay under and
    :data:`BOILERPLATE_TAGS`, :data:`BOILERPLATE_ROLES` and :data:`FOOTER_NAME` passed in, in
    pure Python: the reference the compiled pass reproduces."""
    drop = [False] * len(elements)
    for i, element in enumerate(elements):
        if i == 0:
            continue
        if drop[parent[i]]:
            drop[i] = True
            continue
        tag, get = tags[i], element.get
        role = (get("role") or "").strip().lower()
        names = f"{get('id') or ''} {get('class') or ''}"
        furniture = structural and (
            (forms and tag == "form" and chars[i] < half)
            or ((tag in furniture_tags or role in furniture_roles) and chars[i] < most)
        )
        named_footer = (
            footers and tag != "th" and chars[i] < half and footer_name.search(names) is not None
        )
        if furniture or named_footer:
            drop[i] = True
        elif comments and tag not in ("article", "main"):
            drop[i] = (
                "comment" in names.lower()
                or "disqus" in names.lower()
                or (get("itemtype") or "").endswith("schema.org/Comment")
            )
    return drop


def located(view: DomView, texts: Sequence[str]) -> list[int]:
    """The elements of ``view`` that hold each of ``texts``: the closest common ancestor of
    where its first and of where its last :data:`LOCATE_TOKENS` tokens are read, in document
    order (tokens as the metrics count them, so markup inside the text does not matter). A text
    not found, or shorter than that, gives nothing; the body itself is never given.

    Linear in the view and the texts, and in memory as large as the texts: the view's tokens
    are read once, in a window of :data:`LOCATE_TOKENS`. When a text's first window is read for
    the first time, the text waits for its last window, and the next time that window is read
    (at the same place or later) places it; the common ancestors are then found in one more
    pass over the view (:func:`_common_ancestors`)."""
    by_head: dict[tuple[str, ...], list[int]] = {}  # the texts that begin with each window
    tails: list[tuple[str, ...]] = []
    wanted: dict[tuple[str, ...], tuple[str, ...]] = {}  # each window kept once
    kept: dict[str, str] = {}  # and each of their tokens
    for text in texts:
        words = tokens(text)
        if len(words) >= LOCATE_TOKENS:
            head = tuple(kept.setdefault(word, word) for word in words[:LOCATE_TOKENS])
            tail = tuple(kept.setdefault(word, word) for word in words[-LOCATE_TOKENS:])
            by_head.setdefault(wanted.setdefault(head, head), []).append(len(tails))
            tails.append(wanted.setdefault(tail, tail))
    if not tails:
        return []
    first_tokens = {window[0] for window in wanted}
    starts = [-1] * len(tails)  # the element that owns the first token of each text, when read
    ends = [-1] * len(tails)  # ... and the last
    waiting: dict[tuple[str, ...], list[int]] = {}  # the texts read up to their last window
    window: deque[str] = deque(maxlen=LOCATE_TOKENS)
    owners: deque[int] = deque(maxlen=LOCATE_TOKENS)
    stack = [(0, 0)]  # (element, which of its text runs comes next)
    steps = 0
    while stack:
        i, k = stack.pop()
        for token in tokens(view.runs[i][k]):
            window.append(token)
            owners.append(i)
            if window[0] not in first_tokens or (read := tuple(window)) not in wanted:
                continue
            for n in by_head.pop(read, ()):
                starts[n] = owners[0]
                waiting.setdefault(tails[n], []).append(n)
            for n in waiting.pop(read, ()):
                ends[n] = i
        if k < len(view.children[i]):
            stack.append((i, k + 1))
            stack.append((view.children[i][k], 0))
        steps += 1
        if steps & CHECK_EVERY == CHECK_EVERY:
            check_deadline("locating the reader texts")
    pairs = [(start, end) for start, end in zip(starts, ends, strict=True) if end >= 0]
    return [common for common in _common_ancestors(view.parent, pairs) if common]


def _common_ancestors(parent: Sequence[int], pairs: Sequence[tuple[int, int]]) -> list[int]:
    """The closest common ancestor (or self) of each pair of elements of a view whose
    ``parent`` indices are given, in document order (preorder).

    For ``u <= v`` it is the deepest element on the path from the root to ``v`` whose index is
    at most ``u`` (such an element's subtree spans ``u`` too, as it spans ``v``). One pass over
    the elements up to the last ``v`` keeps that path, and each pair is answered by bisection
    on it: linear in the view plus a logarithm per pair, where climbing from each pair costs
    the depth per pair."""
    by_later: dict[int, list[int]] = {}
    for n, (u, v) in enumerate(pairs):
        by_later.setdefault(max(u, v), []).append(n)
    found = [0] * len(pairs)
    path: list[int] = []
    for i in range(max(by_later, default=-1) + 1):
        while path and path[-1] != parent[i]:
            path.pop()
        path.append(i)
        for n in by_later.get(i, ()):
            found[n] = path[bisect_right(path, min(pairs[n])) - 1]
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("locating the reader texts")
    return found


def without(view: DomView, drop: Sequence[bool], *, href_links: bool) -> DomView:
    """``view`` without the elements marked in ``drop`` (a dropped element's descendants must
    be marked too), with the text runs around each removed element joined, as if it had been
    deleted. With ``href_links``, an ``<a>`` is a link only when it has an ``href``."""
    fields = view_without(
        view.elements, view.tags, view.parent, view.children, view.runs, view.depth, drop,
        href_links, LINK_TAGS,
    )  # fmt: skip
    return DomView(*fields)


@accel.twin(accel.compiled.without)
def view_without(  # noqa: PLR0917 - the parameters of its compiled twin
    elements: Sequence[etree._Element],
    tags: list[str],
    parent: list[int],
    children: list[list[int]],
    runs: list[list[str]],
    depth: list[int],
    drop: Sequence[bool],
    href_links: bool,
    link_tags: frozenset[str],
) -> ViewFields:
    """The fields of :func:`without`'s view from a view's lists, with
    :data:`~scrapy_cetd.page.dom.LINK_TAGS` passed in, in pure Python: the reference the
    compiled pass reproduces."""
    kept = [i for i, dropped in enumerate(drop) if not dropped]
    new_index = [-1] * len(elements)
    for new, old in enumerate(kept):
        new_index[old] = new
    new_parent = [new_index[parent[i]] if i else -1 for i in kept]
    new_children: list[list[int]] = []
    new_runs: list[list[str]] = []
    for i in kept:
        own_children, own_runs = children[i], runs[i]
        if not any(drop[c] for c in own_children):
            new_children.append([new_index[c] for c in own_children])
            new_runs.append(own_runs)
            continue
        kept_runs = [own_runs[0]]
        kept_children = []
        for k, child in enumerate(own_children, 1):
            if drop[child]:
                kept_runs[-1] += own_runs[k]
            else:
                kept_children.append(new_index[child])
                kept_runs.append(own_runs[k])
        new_children.append(kept_children)
        new_runs.append(kept_runs)
    new_elements = [elements[i] for i in kept]
    new_tags = [tags[i] for i in kept]
    in_link: list[bool] = []
    for new, (tag, element) in enumerate(zip(new_tags, new_elements, strict=True)):
        own = tag in link_tags and not (href_links and tag == "a" and element.get("href") is None)
        in_link.append(own or (new > 0 and in_link[new_parent[new]]))
    new_depth = [depth[i] for i in kept]
    return new_elements, new_tags, new_parent, new_children, new_runs, new_depth, in_link

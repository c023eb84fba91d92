"""Extraction by page type: what cetd-plus does differently on a page of a known type.

A page's type (:mod:`scrapy_cetd.page.page_types`, or forced by the user) picks a profile: the
steps that replace cetd-plus's narrowing to one dense block on pages whose main content is not
one block of prose. Each step is an option of
:class:`~scrapy_cetd.extractors.cetd_plus.CetdPlusExtractor` that turns it off; the gain of
each is measured by ``python -m benchmarks.page_type_accuracy`` (``docs/page-types.md``).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import lxml.html
from lxml import etree

from scrapy_cetd.extractors.furniture import CHECK_EVERY, boilerplate
from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import (
    BLOCK_TAGS,
    HOLD_DEPTH,
    DomView,
    attribute_owners,
    build_view,
    child_positions,
    in_running_text,
    local_tag,
)
from scrapy_cetd.page.markup import json_ld_objects, json_ld_types
from scrapy_cetd.page.output import Keep, kept_elements, render
from scrapy_cetd.page.words import tokens
from scrapy_cetd.result import ExtractionResult


@dataclass(frozen=True)
class Profile:
    """The steps a page of one type follows instead of cetd-plus's narrowing."""

    name: str
    """The page type."""
    hidden: bool = False
    """Elements hidden by their own markup are content: closed tabs and accordions (a
    product's description and specifications, a service page's FAQ answers)."""
    thread: bool = False
    """The page is a thread: its comment sections are content (the posts and replies) and
    the selection is not narrowed to one post, as on a page that declares itself a
    discussion."""
    whole_page: bool = False
    """The content is all the page keeps once its furniture is gone (step 2), within its main
    landmark: the records of a list, every section of a service page, the main column of a
    documentation page with its code, tables and headings. One dense block is only a part of
    it."""
    records: bool = False
    """With ``whole_page``: the content is bounded by the region of the page's records (the
    run of sibling records, alike in tag and class, that holds the most text) with the
    headline above them, when that run holds enough of the text (the ``record_share``
    option); the main landmark bounds it otherwise."""
    main_bound: bool = False
    """cetd-plus's own selection is bounded by the page's main landmark: a product's
    recommendations, recently viewed items and shop banners outside ``<main>`` go."""
    unique_blocks: bool = False
    """A kept block that repeats the text of one kept before it goes: templates that show a
    product's description twice (one copy for wide screens, one for narrow, or a tab and its
    accordion) give the text once."""
    reviews: bool = False
    """The page's reviews are furniture, as comments are on an article: customers' ratings and
    texts about a product are not its description."""
    detail_lists: bool = False
    """The posters' details are furniture: the definition lists repeated with the same labels
    under each poster's name (when they joined, how many posts they wrote) describe the
    posters, not the thread."""
    posts: bool = False
    """The thread's posts are its records (the run of siblings alike in tag and class that
    holds the most text). When they hold enough of the text, each is kept whole (the
    ``whole_posts`` option), not only the posts dense enough for DensitySum (a short reply, a
    post of code), and the selection is bounded by their region with the thread's title above
    them (the ``post_region`` option): a thread's sidebars, related threads and banners lie
    outside it, however dense."""
    forms: bool = False
    """Forms are no furniture: a thread wraps its posts in a form (to select them for
    moderation), or each post in its own (to edit it in place)."""
    post_comments: bool = False
    """The comment sections nested in a post are not the thread: the remarks under a question
    or an answer ("could you post your log?"), where the answers are the posts."""
    labels: bool = False
    """Short texts repeated identically across the page are controls and labels, not posts:
    the reply, quote and share buttons and the rank of a poster, under every post."""
    signatures: bool = False
    """The posters' signatures are furniture: the same lines under every post of one poster
    (their machine, a motto, links to their site) say nothing of the thread."""
    description: bool = False
    """When the selection lacks most of the words of the description the page's JSON-LD
    declares for its product, that description joins the content: a template that keeps it
    in a drawer or a script shows it on a click."""
    heading_start: bool = False
    """With ``whole_page``: the content starts at the page's first ``<h1>`` (a list's
    heading, a documentation page's title, a service page's hero): what its template puts
    before it (the site's header, breadcrumbs, banners) is no part of it, unless it holds much
    of the text."""
    controls: bool = False
    """With ``whole_page``: the controls inside the records (buttons to add an item to the
    cart, to save or compare it; the labels of the filters and sort orders a template left
    outside its furniture) are furniture: a list's records are what they show, not what one
    can do with them."""
    badges: bool = False
    """With ``whole_page``: the short texts repeated from record to record without digits or
    links (badges: new, sale, in stock, free shipping) are furniture: they say nothing of
    one record."""
    menus: bool = False
    """With ``whole_page``: the blocks that are menus of short links (a header's or a hero's
    links to the site's other pages, a language or currency picker) are furniture, as the
    ``<nav>`` that the page did not mark would be."""


PROFILES: dict[str, Profile] = {
    "forum": Profile(
        "forum",
        thread=True,
        posts=True,
        post_comments=True,
        forms=True,
        unique_blocks=True,
        detail_lists=True,
        signatures=True,
        labels=True,
    ),
    "listing": Profile(
        "listing",
        whole_page=True,
        records=True,
        unique_blocks=True,
        heading_start=True,
        controls=True,
        badges=True,
    ),
    "collection": Profile(
        "collection",
        whole_page=True,
        unique_blocks=True,
        heading_start=True,
        controls=True,
        badges=True,
    ),
    "documentation": Profile("documentation", whole_page=True, heading_start=True),
    "service": Profile(
        "service",
        hidden=True,
        whole_page=True,
        unique_blocks=True,
        menus=True,
        heading_start=True,
    ),
    "product": Profile(
        "product",
        hidden=True,
        main_bound=True,
        unique_blocks=True,
        reviews=True,
        description=True,
    ),
}
"""The profile of each page type that has one; articles follow cetd-plus's own steps. On
products neither the whole page nor the whole-body expansion beat those steps; documentation
keeps its repeated blocks (the same command shown twice is its content twice); only listings
are bounded by their records (on a shop's category the record region did no better than the
main landmark: lower on some sites, higher on others); hidden elements are content only where
that measured better (products, service pages)."""


def bound_to(view: DomView, modes: list[Keep], region: int) -> None:
    """Drop from ``modes`` what lies outside the element ``region``; its ancestors keep only
    what lies inside it (they become shells)."""
    end = view.subtree_end(region)
    above = set(view.ancestors(region))
    for i in range(len(view)):
        if region <= i < end:
            continue
        if i not in above:
            modes[i] = Keep.DROP
        elif modes[i] != Keep.DROP:
            modes[i] = Keep.SHELL


_ROLE_MAIN = etree.XPath("descendant-or-self::*[@role='main']")

MAIN_LOOKUPS = 8
"""Up to this many ``role="main"`` elements are looked up in the view one by one; a page with
more is read in one pass over the view."""


def main_landmark(view: DomView, chars: Sequence[int], share: float) -> int | None:
    """The ``<main>`` element (or ``role="main"``) of ``view`` with the most text, when it
    holds at least ``share`` of the text of the view's root (a ``<main>`` around one widget
    is no main column); ``chars`` are the view's :func:`count_nodes` characters."""
    candidates = [i for i, tag in enumerate(view.tags) if tag == "main"]
    found = _ROLE_MAIN(view.elements[0])
    assert isinstance(found, list)
    if len(found) <= MAIN_LOOKUPS:
        for element in found:
            try:
                candidates.append(view.elements.index(element))
            except ValueError:  # hidden, or furniture
                continue
    else:  # one pass over the view, not one per element: each look-up scans the view
        roles = set(found)
        candidates.extend(i for i, element in enumerate(list(view.elements)) if element in roles)
    best = max(candidates, key=lambda i: (chars[i], -i), default=None)
    if best is None or chars[best] < share * chars[0]:
        return None
    return best


REPEAT_MIN_CHARS = 20
"""The fewest characters (spaces collapsed) a block needs to be told a repeat: a short label
("Add to cart", a size) repeats by design."""

_LINE_TAGS = frozenset({"br", "hr"})


def drop_repeated_blocks(view: DomView, modes: list[Keep]) -> None:
    """Drop each kept block without blocks below it whose text (spaces collapsed, at least
    :data:`REPEAT_MIN_CHARS` characters) is that of a kept block before it. One pass to find
    the blocks without blocks below, one over the kept ones: linear in the view."""
    size, tags, parent = len(view), view.tags, view.parent
    block_below = [False] * size
    for i in range(size - 1, 0, -1):
        if block_below[i] or (tags[i] in BLOCK_TAGS and tags[i] not in _LINE_TAGS):
            block_below[parent[i]] = True
    in_output = kept_elements(view, modes)
    seen: set[str] = set()
    i = steps = 1
    while i < size:
        steps += 1
        if not steps % CHECK_EVERY:
            check_deadline("dropping repeated blocks")
        if not (
            in_output[i]
            and modes[i] == Keep.TEXT
            and tags[i] in BLOCK_TAGS
            and tags[i] not in _LINE_TAGS
            and not block_below[i]
        ):
            i += 1
            continue
        end = view.subtree_end(i)
        text = view.collapsed_runs(i, end)
        if len(text) >= REPEAT_MIN_CHARS:
            if text in seen:
                modes[i] = Keep.DROP
            seen.add(text)
        i = end


LABEL_CHARS = REPEAT_MIN_CHARS - 1
"""The most characters (as :func:`~scrapy_cetd.page.density.count_nodes` counts them) of a
label: a text too short for :func:`drop_repeated_blocks` to tell a repeat, a button's or a
rank's text, not a sentence."""

MIN_LABELS = 3
"""The fewest kept elements with one short text that make it a label repeated across posts."""


def drop_repeated_labels(view: DomView, chars: Sequence[int], modes: list[Keep]) -> None:
    """Drop the outermost kept elements whose text has 1 to :data:`LABEL_CHARS` characters
    (``chars``: :func:`~scrapy_cetd.page.density.count_nodes`'s) when :data:`MIN_LABELS` or
    more of them have the same text (spaces collapsed): the controls and labels a thread
    repeats under each post ("Reply", "Quote", a poster's rank). An element with words of its
    parent's text beside it is a phrase of a sentence, not a label (:func:`in_running_text`):
    a term a thread keeps writing in bold or as code stays in its sentences. Each text run is
    read once: below an element that is read, nothing is."""
    size = len(view)
    in_output = kept_elements(view, modes)
    positions = child_positions(view)
    labels: dict[str, list[int]] = {}
    i = 1
    while i < size:
        if not i % CHECK_EVERY:
            check_deadline("finding the repeated labels")
        if not (in_output[i] and modes[i] == Keep.TEXT and 0 < chars[i] <= LABEL_CHARS):
            i += 1
            continue
        end = view.subtree_end(i)
        if not in_running_text(view, positions, i):
            labels.setdefault(view.collapsed_runs(i, end), []).append(i)
        i = end
    for found in labels.values():
        if len(found) >= MIN_LABELS:
            for i in found:
                modes[i] = Keep.DROP


MIN_RECORDS = 3
"""The fewest siblings alike in tag and class that make a run of records."""

MIN_RECORD_CHARS = 10
"""The fewest characters a sibling needs to count as a record (an empty spacer is none)."""


def sibling_runs(view: DomView, chars: Sequence[int], parent: int) -> list[list[int]]:
    """The children of ``parent`` alike in tag and class, each with :data:`MIN_RECORD_CHARS`
    characters or more, grouped (each group in document order, of any size); ``chars`` are the
    view's :func:`count_nodes` characters."""
    runs: dict[tuple[str, str], list[int]] = {}
    for c in view.children[parent]:
        if chars[c] >= MIN_RECORD_CHARS:
            runs.setdefault((view.tags[c], view.elements[c].get("class") or ""), []).append(c)
    return list(runs.values())


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
        if not p % CHECK_EVERY:
            check_deadline("finding the records")
    return best if best_chars >= least else []


def drop_post_comments(
    view: DomView, chars: Sequence[int], posts: Sequence[int], modes: list[Keep], share: float
) -> None:
    """Drop the comment sections nested in the posts ``posts`` of a thread: the outermost
    elements inside a post, not the post itself, that :func:`boilerplate` finds to be comments
    (an ``id`` or ``class`` naming them, a schema.org ``Comment``) and that hold less than
    ``share`` of their post's text (``chars``: the view's :func:`count_nodes` characters); a
    section holding nearly all of its post is the post's own body, in a template that names
    each post a comment. One pass over the view."""
    size, parent = len(view), view.parent
    post = [-1] * size
    for p in posts:
        post[p] = p
    named = boilerplate(view, chars, structural=False, comments=True)
    for i in range(1, size):
        if post[i] < 0:
            post[i] = post[parent[i]]
        if (
            named[i]
            and not named[parent[i]]
            and post[i] not in (-1, i)
            and chars[i] < share * chars[post[i]]
        ):
            modes[i] = Keep.DROP
        if not i % CHECK_EVERY:
            check_deadline("finding the posts' comments")


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
    under the last post). The run is read once (the records share their class, so the
    first's is theirs), not once per element asked about."""

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
        self.tag, self.words = view.tags[run[0]], _class_words(view, run[0])
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


def headed_region(view: DomView, chars: Sequence[int], region: int) -> int:
    """The closest element holding both ``region`` and the page's first ``<h1>`` with text
    (``chars``: the view's :func:`count_nodes` characters); ``region`` itself when the page
    has none."""
    size, tags, parent = len(view), view.tags, view.parent
    heading = next((i for i in range(size) if tags[i] == "h1" and chars[i]), None)
    if heading is None:
        return region
    above = set()
    i = region
    while i >= 0:
        above.add(i)
        i = parent[i]
    i = heading
    while i not in above:
        i = parent[i]
    return i


_NAME_WORDS = re.compile(r"[a-z]+|[A-Z][a-z]*")
"""The words of an ``id`` or ``class`` value: runs of letters, each capital starting one
(``productReviews`` is ``product``, ``Reviews``)."""

REVIEW_NAMES = frozenset({"review", "reviews"})
"""The words of an ``id`` or ``class`` that name a section of reviews, as ``comment`` names a
comment section (:func:`~scrapy_cetd.extractors.furniture.boilerplate`)."""

REVIEW_SHARE = 0.5
"""An element holding this share of the view's text or more is no review section: it wraps the
page (a template that names its page ``review``)."""


Attributes = Callable[[str], str | None]
"""An element's ``get``: the value of an attribute, or ``None``."""


def is_review(get: Attributes) -> bool:
    """Whether an element is a review: a schema.org ``Review`` item (``itemtype``, or
    ``itemprop="review"``), or an ``id`` or ``class`` with a word of :data:`REVIEW_NAMES`."""
    names = f"{get('id') or ''} {get('class') or ''}"
    return (
        "review" in (get("itemprop") or "").split()
        or (get("itemtype") or "").endswith("schema.org/Review")
        or (
            "eview" in names
            and any(word.lower() in REVIEW_NAMES for word in _NAME_WORDS.findall(names))
        )
    )


def review_sections(view: DomView, chars: Sequence[int]) -> list[bool]:
    """The elements of ``view`` that are its reviews (:func:`is_review`), their descendants
    included (:func:`named_sections`)."""
    return named_sections(view, chars, is_review, "finding the reviews")


SIGNATURE_NAME = "signature"
"""What an ``id``, ``class`` or ``data-role`` of a poster's signature holds, lower-cased
(``signature``, ``message-signature``, ``memberSignature``, ``postsignature``): the
templates' own name for it."""


def is_signature(get: Attributes) -> bool:
    """Whether an element is a poster's signature: its ``id``, ``class`` or ``data-role``
    holds :data:`SIGNATURE_NAME`."""
    names = f"{get('id') or ''} {get('class') or ''} {get('data-role') or ''}"
    return SIGNATURE_NAME in names.lower()


def signature_sections(view: DomView, chars: Sequence[int]) -> list[bool]:
    """The elements of ``view`` that are posters' signatures (:func:`is_signature`), their
    descendants included (:func:`named_sections`)."""
    return named_sections(view, chars, is_signature, "finding the signatures")


def named_sections(
    view: DomView, chars: Sequence[int], named: Callable[[Attributes], bool], task: str
) -> list[bool]:
    """The elements of ``view`` that ``named`` says are a section of their kind, with their
    descendants, among those holding less than :data:`REVIEW_SHARE` of the view's text (more
    is the page's wrapper, in a template that names its page after them). One pass over the
    view, every element's proxy held until the end (lxml frees a proxy by walking up to the
    closest ancestor that has one); ``task`` names the pass when its time runs out."""
    elements = list(view.elements)
    parent, most = view.parent, REVIEW_SHARE * chars[0]
    found = [False] * len(elements)
    for i in range(1, len(elements)):
        if not i % CHECK_EVERY:
            check_deadline(task)
        if found[parent[i]]:
            found[i] = True
        elif chars[i] < most:
            found[i] = named(elements[i].get)
    return found


MIN_DETAIL_LISTS = 2
"""The fewest definition lists with the same class and labels that make them details repeated
for each post (one list of terms is the content's own)."""


def detail_lists(view: DomView) -> list[bool]:
    """The elements of ``view`` that are repeated detail lists, their descendants included: the
    ``<dl>`` elements whose class and terms (the text of their ``<dt>`` children, in order) are
    those of :data:`MIN_DETAIL_LISTS` or more ``<dl>`` of the view. A ``<dl>`` without ``<dt>``
    children (replies indented with ``<dd>``, terms grouped in ``<div>``) has no terms to
    compare and is never one. Each text run is read once, for the closest ``<dt>`` above it;
    the proxies of the lists are held until the end."""
    size, tags, parent, runs = len(view), view.tags, view.parent, view.runs
    term = [-1] * size  # the closest <dt> at or above each element
    labels: dict[int, list[str]] = {}
    for i in range(1, size):
        if tags[i] == "dt":
            term[i] = i
            labels[i] = []
        else:
            term[i] = term[parent[i]]
        if term[i] >= 0:
            labels[term[i]].extend(runs[i])
        if not i % CHECK_EVERY:
            check_deadline("finding the detail lists")
    held: list[etree._Element] = []
    keys: dict[int, tuple[str, ...]] = {}
    for i in range(1, size):
        if tags[i] == "dl":
            held.append(element := view.elements[i])
            terms = [" ".join(" ".join(labels[c]).split()) for c in view.children[i] if c in labels]
            if terms:
                keys[i] = (element.get("class") or "", *terms)
    repeated = Counter(keys.values())
    drop = [False] * size
    for i, key in keys.items():
        drop[i] = repeated[key] >= MIN_DETAIL_LISTS
    return drop


PRODUCT_TYPES = frozenset(
    {"product", "productgroup", "productmodel", "individualproduct", "someproducts"}
)
"""The schema.org types of a product, lower-cased."""

DESCRIPTION_SHARE = 0.5
"""The share of the declared description's words the content must hold for the description to
count as shown."""

_JSON_LD = (("type", "application/ld+json"),)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
"""A tag: the description is written in HTML."""


def declared_description(root: etree._Element) -> str:
    """The longest ``description`` the JSON-LD of ``root``'s document declares for an item of
    :data:`PRODUCT_TYPES` (``""`` when none); a script that does not parse, or nests deeper
    than Python's parser reads, declares nothing."""
    longest = ""
    for script in attribute_owners(root.getroottree().getroot(), _JSON_LD):
        if local_tag(script) != "script":
            continue
        for item in json_ld_objects(script.text or ""):
            text = item.get("description")
            if (
                isinstance(text, str)
                and len(text) > len(longest)
                and json_ld_types(item) & PRODUCT_TYPES
            ):
                longest = text
        check_deadline("reading the declared description")
    return longest.strip()


_SURROGATE = re.compile("[\ud800-\udfff]")


def description_content(description: str) -> tuple[str, str]:
    """``description`` as cetd-plus renders content, ``(html, text)``: read as HTML when it has
    tags, else each of its lines a paragraph (its character references read). A lone
    surrogate (half an emoji, from a JSON escape) is a replacement character, as in the
    page's own text: lxml would stop reading there."""
    description = _SURROGATE.sub("\ufffd", description)
    if not _TAG.search(description):
        lines = (html.escape(html.unescape(line)) for line in description.splitlines())
        description = "".join(f"<p>{line}</p>" for line in lines if line.strip())
    try:
        root = lxml.html.fragment_fromstring(description, create_parent="div")
    except (etree.ParserError, ValueError, AssertionError, IndexError):
        # lxml asserts that a description written as a whole document (``<html>...``) has one
        # ``<body>``: ``<html></html>``, a frameset or two bodies have none or two (IndexError
        # under ``python -O``)
        return "", ""
    view = build_view(root)
    return render(view, [Keep.TEXT] * len(view))


def with_declared_description(result: ExtractionResult, root: etree._Element) -> ExtractionResult:
    """``result`` with the product description the JSON-LD of ``root``'s document declares
    added at the end of its content, when the content holds less than
    :data:`DESCRIPTION_SHARE` of its words (counted with repeats)."""
    description = declared_description(root)
    words = Counter(tokens(description))
    if not words:
        return result
    shown = words & Counter(tokens(result.text))
    if shown.total() >= DESCRIPTION_SHARE * words.total():
        return result
    added_html, added_text = description_content(description)
    if not added_text:
        return result
    if not result.text:
        return ExtractionResult(text=added_text, html=added_html, algorithm=result.algorithm)
    end = result.html.rfind("</")  # inside the content's root, before its end tag
    if end < 0:
        end = len(result.html)
    return replace(
        result,
        text=f"{result.text}\n{added_text}",
        html=f"{result.html[:end]}{added_html}{result.html[end:]}",
    )


MENU_MIN_LINKS = 3
"""The fewest links that make a block a menu (two buttons side by side are a choice)."""

MENU_MAX_SHARE = 0.5
"""The most of the page's text a menu holds: a block with more is the page itself (a list of
short links typed a service page, or a page whose closed menus, shown with its hidden panels,
hold as much text as its content), which a service page's profile would otherwise drop whole."""

MENU_LINK_SHARE = 0.7
"""The share of its text a block's links must hold to make it a menu: cetd-plus's own
``link_block_ratio``."""


def drop_menus(view: DomView, counts: NodeCounts, modes: list[Keep], link_chars: int) -> None:
    """Drop the outermost kept blocks that are menus: :data:`MENU_MIN_LINKS` links or more,
    holding :data:`MENU_LINK_SHARE` of the block's text, whose text is on average shorter than
    ``link_chars`` characters (a menu's entries name pages; a list of offers or articles
    says more), and at most :data:`MENU_MAX_SHARE` of the page's text. A link is an outermost
    element of :data:`~scrapy_cetd.page.dom.LINK_TAGS` with text. Two passes over the view."""
    size, parent, in_link = len(view), view.parent, view.in_link
    chars, linked = counts.chars, counts.link_chars
    links = [0] * size
    for i in range(size - 1, 0, -1):
        if in_link[i] and not in_link[parent[i]] and chars[i]:
            links[i] += 1
        links[parent[i]] += links[i]
    in_output = kept_elements(view, modes)
    for i in range(1, size):
        if not i % CHECK_EVERY:
            check_deadline("finding the menus")
        if not in_output[parent[i]]:
            in_output[i] = False
        elif (
            modes[i] == Keep.TEXT
            and in_output[i]
            and links[i] >= MENU_MIN_LINKS
            and linked[i] >= MENU_LINK_SHARE * chars[i]
            and linked[i] < link_chars * links[i]
            and view.tags[i] in BLOCK_TAGS
            and chars[i] <= MENU_MAX_SHARE * chars[0]
        ):
            modes[i] = Keep.DROP
            in_output[i] = False


def drop_before_heading(
    view: DomView, chars: Sequence[int], modes: list[Keep], region: int, share: float
) -> None:
    """Drop from ``modes`` what lies before the first ``<h1>`` with text inside the element
    ``region`` (the page's heading), when it holds less than ``share`` of the region's text:
    the elements that end before the heading, children of its ancestors up to ``region``."""
    tags, parent, depth = view.tags, view.parent, view.depth
    heading = region
    while heading < len(view) and (heading == region or depth[heading] > depth[region]):
        if tags[heading] == "h1" and chars[heading]:
            break
        heading += 1
    else:
        return
    if heading == region:
        return
    before: list[int] = []
    child, above = heading, parent[heading]
    while child != region:
        before.extend(c for c in view.children[above] if c < child)
        child, above = above, parent[above]
    if sum(chars[c] for c in before) < share * chars[region]:
        for c in before:
            modes[c] = Keep.DROP


CONTROL_TAGS = frozenset({"label"})
"""Controls whose text goes: the labels of form fields (a filter's checkboxes, a sort order).
Buttons stay: some lists show their records' buttons as part of each record ("Save",
"Quick add"), others leave them out, and no structure tells the two apart."""

CONTROL_SHARE = 0.5
"""A control holding this share of the text or more wraps the content: a markup error (an
unclosed ``<label>``), not a control."""


def drop_controls(view: DomView, chars: Sequence[int], modes: list[Keep]) -> None:
    """Drop the controls (:data:`CONTROL_TAGS`) that ``modes`` keep with their text, holding
    less than :data:`CONTROL_SHARE` of the view's text."""
    tags, most = view.tags, CONTROL_SHARE * chars[0]
    for i in range(1, len(view)):
        if tags[i] in CONTROL_TAGS and modes[i] == Keep.TEXT and chars[i] < most:
            modes[i] = Keep.DROP


BADGE_SHARE = 0.7
"""A badge's text is shared by elements as many as this share of the records or more: the
mark most cards carry ("Add to cart", "Free shipping"), not a value some records share (a
size, a skill, a sector)."""


def most_records(view: DomView, chars: Sequence[int], kept: Sequence[bool]) -> int:
    """The number of records in the longest run of siblings alike in tag and class
    (:func:`sibling_runs`) below a ``kept`` element; 0 when no kept element has
    :data:`MIN_RECORDS` children, or none of them :data:`MIN_RECORD_CHARS` characters."""
    most = 0
    held: list[etree._Element] = []  # freed together at the end: lxml walks up from one alone
    for p in range(len(view)):
        if not kept[p] or len(view.children[p]) < MIN_RECORDS:
            continue
        held.append(view.elements[p])  # its children's proxies, freed alone, stop at it
        most = max(most, max((len(run) for run in sibling_runs(view, chars, p)), default=0))
        if not p % CHECK_EVERY:
            check_deadline("counting the records")
    return most


def drop_badges(view: DomView, chars: Sequence[int], modes: list[Keep]) -> None:
    """Drop the badges ``modes`` keep: the outermost elements with text shorter than
    :data:`REPEAT_MIN_CHARS` (the repeats :func:`drop_repeated_blocks` leaves), neither a
    link nor in one, without digits, whose text is that of :data:`MIN_RECORDS` such elements or
    more, and by :data:`BADGE_SHARE` of the records of the longest run (:func:`most_records`)
    ("New", "Sale", "In stock", "Free shipping" on the cards of a grid). A number is
    a record's own data (a price, a count, a date), a link's text names the record; a short
    text repeated from card to card says nothing of one record. Each element is read once:
    the outermost short elements do not nest."""
    size, parent = len(view), view.parent
    in_output = kept_elements(view, modes)
    found: dict[str, list[int]] = {}
    for i in range(1, size):
        if not i % CHECK_EVERY:
            check_deadline("finding the badges")
        if not (
            0 < chars[i] < REPEAT_MIN_CHARS <= chars[parent[i]]
            and not view.in_link[i]
            and in_output[i]
            and modes[i] == Keep.TEXT
        ):
            continue
        text = view.collapsed_runs(i, view.subtree_end(i))
        if not any(character.isdigit() for character in text):
            found.setdefault(text, []).append(i)
    if all(len(owners) < MIN_RECORDS for owners in found.values()):
        return  # no text is repeated enough to be a badge: the records need not be counted
    least = max(MIN_RECORDS, BADGE_SHARE * most_records(view, chars, in_output))
    for owners in found.values():
        if len(owners) >= least:
            for i in owners:
                modes[i] = Keep.DROP

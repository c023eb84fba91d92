"""The page-type classifier: what kind of page a document is, from cheap signals of its tree
and its URL.

The seven types are WCXB's (see :data:`PAGE_TYPES`). A page is described by a few dozen
numbers read in one pass over its visible elements (:func:`page_features`): the shares of its
text in paragraphs, links, code blocks and tables, its headings, forms and prices, the records
its repeated siblings form (and whether each record holds a link, an image, a ``<time>``, a
heading), its navigation trees; and by the tokens it declares or is found under, from a
vocabulary learned from training pages: schema.org / Open Graph types, ``itemprop`` and
``<meta property>`` names, the folders of its URL path and its host's subdomains. A
multinomial logistic regression over the standardised features and small gradient-boosted
trees over the same features, their probabilities averaged (:class:`PageTypeModel`, read
from ``page_types_model.json`` beside this module, written by ``python -m benchmarks.page_types
train``), turn them into a probability per type: a dot product per type and a few
comparisons per tree. The body's counts, the class names' words and the dot products' numeric
part come from compiled passes of :mod:`scrapy_cetd.page.accel` when it is built
(:func:`body_counts`, :func:`class_words`, :func:`weighted_sums`, each with its pure-Python
reference), and so do the trees' walks (:func:`tree_scores`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from lxml import etree

from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page import accel
from scrapy_cetd.page.density import NodeCounts, count_nodes
from scrapy_cetd.page.dom import DomView, attribute_owners, build_view, local_tag, viewed_body
from scrapy_cetd.page.markup import ARTICLE_TYPES, DISCUSSION_TYPES, PageMarkup, page_markup

PAGE_TYPES = (
    "article",
    "forum",
    "product",
    "collection",
    "listing",
    "documentation",
    "service",
)
"""WCXB's seven page types: news and blog posts; discussion threads and Q&A; one product's
page; a shop's category of products; an index of content items (news, courses, reviews);
technical documentation; a company's page about what it offers."""

MODEL_PATH = Path(__file__).with_name("page_types_model.json")
"""The trained model shipped with the package."""

TOKEN_PREFIXES = (
    *("type:", "prop:", "meta:", "rel:", "class:", "folder:", "host:", "last:", "slug:", "ext:"),
    "title:",
)
"""The kinds of token feature, each a prefix of the token's name: a declared schema.org or
Open Graph type, an ``itemprop`` name, a ``<meta property>`` name, a ``rel`` value
(``next``, ``author``...), a word of the body's
``class`` names (``product-card`` gives ``product`` and ``card``), a folder of the URL path,
a subdomain of the host, the last segment of the path when it is one word, a word of that
segment, its extension."""

_CURRENCY = "$€£¥₹₽₩₪฿₫₴₦₺₱"
_CURRENCY_SIGN = re.compile(f"[{_CURRENCY}]")

_QUESTION_MARKS = ("?", "\uff1f", "\u061f")
"""The question marks of Latin, CJK and Arabic script."""

_CLASSES = etree.XPath("descendant::*/@class", smart_strings=False)
_CLASS_WORD = re.compile(r"[A-Z]?[a-z]{3,20}")
"""A word of a class name: lower-case letters, maybe after one capital (``productCard``)."""

_TITLE_WORD = re.compile(r"[^\W\d_]{3,20}")
MAX_TITLE_CHARS = 300
"""The part of a ``<title>`` read for words (a title is a line, not a page)."""

_SEGMENT_SPLIT = re.compile(r"[-_.+~,;:!%]")
_ALPHA = re.compile(r"[^\W\d_]+\Z")
_DIGITS = re.compile(r"\d+\Z")

HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
LISTS = frozenset({"ul", "ol"})
MEDIA = frozenset({"img", "picture", "svg", "video"})
FIELDS = frozenset({"input", "select", "textarea", "button"})
_INDEXED = frozenset({"p", "pre", "code", "table", "ul", "ol", "input", *HEADINGS})
"""The tags whose elements :func:`_body_features` sums the text of."""

_HOLDS = {
    "a": 1,
    **dict.fromkeys(MEDIA, 2),
    "time": 4,
    **dict.fromkeys(HEADINGS, 8),
    **dict.fromkeys(FIELDS, 16),
    "p": 32,
    "blockquote": 64,
}
"""Bits of the tags a record holds (see :func:`_record_features`)."""
_LINK, _MEDIA, _TIME, _HEADING, _FIELD, _PARAGRAPH, _QUOTE = 1, 2, 4, 8, 16, 32, 64

RECORD_TAGS = frozenset(
    {"div", "li", "article", "section", "tr", "td", "dd", "figure", "details", "ul", "ol"}
    | {"table", "tbody", "form", "aside", "header", "footer", "main", "dl"}
)
"""The containers that hold records (cards, posts, rows); a run of paragraphs is prose."""

MIN_RECORDS = 3
"""The fewest siblings alike in tag and class that make a run of records."""

MIN_RECORD_CHARS = 10
"""The fewest characters a sibling needs to count as a record (an empty spacer is none)."""

LONG_RUN_CHARS = 120
"""A text run this long is prose (a paragraph, a post), whatever its language."""


@dataclass(frozen=True)
class PageType:
    """A page's type (one of :data:`PAGE_TYPES`) and the classifier's probability for it
    (1.0 when the user forced the type)."""

    name: str
    confidence: float


def check_page_type(value: str | None, option: str = "page_type") -> str | None:
    """``value`` when it is ``None`` or one of :data:`PAGE_TYPES`; else a ``ValueError``
    naming ``option`` and the valid values."""
    if value is not None and value not in PAGE_TYPES:
        raise ValueError(f"{option} must be one of {', '.join(PAGE_TYPES)} or None, not {value!r}")
    return value


def page_features(tree: etree._Element, url: str | None = None) -> dict[str, float]:
    """The features of the document holding ``tree``: numbers named in :data:`FEATURES`, and
    a 1.0 for each token (names starting with one of :data:`TOKEN_PREFIXES`) it has.

    Reads the page as :class:`~scrapy_cetd.extractors.cetd_plus.CetdPlusExtractor` does (its
    visible body, the counts of that view, its markup) and gives what
    :func:`view_features` gives cetd-plus, which has all of that already; the tree is not
    modified.
    """
    check_deadline("before reading the page type's features")
    body = viewed_body(tree)
    if body is None:
        return view_features(tree, None, None, page_markup(tree), url)
    view = build_view(body)
    return view_features(tree, view, count_nodes(view), page_markup(body), url)


def view_features(
    tree: etree._Element,
    view: DomView | None,
    counts: NodeCounts | None,
    markup: PageMarkup,
    url: str | None = None,
) -> dict[str, float]:
    """:func:`page_features` from what an extractor has read already: the visible ``view`` of
    the body of the document holding ``tree`` (``None`` when it has none), its ``counts``,
    and its ``markup``.

    Linear in the size of the page, iterative; the tree is not modified.
    """
    features = dict.fromkeys(FEATURES, 0.0)
    features.update(_url_tokens(url))
    document = view.elements[0] if view is not None and len(view) else tree
    features.update(_markup_tokens(document, markup))
    features.update(_title_tokens(document))
    if view is not None and counts is not None and len(view):
        features.update(_class_tokens(view.elements[0]))
        features.update(_body_features(view, counts))
        features.update(_link_features(view, counts))
    check_deadline("after reading the page type's features")
    return features


def _log(count: float) -> float:
    return math.log1p(count)


def _share(part: float, whole: float) -> float:
    return min(1.0, part / whole) if whole > 0 else 0.0


def _body_features(view: DomView, counts: NodeCounts) -> dict[str, float]:
    """The numeric features of the visible body ``view``, whose counts are ``counts``."""
    size = len(view)
    total = counts.chars[0]
    n = BodyCounts._make(
        body_counts(
            view.elements,
            view.tags,
            view.parent,
            view.children,
            view.runs,
            counts.chars,
            counts.link_chars,
            counts.tags,
            counts.run_chars,
        )
    )
    features = {
        "elements": _log(size),
        "chars": _log(total),
        "chars_per_element": _log(total / size),
        "link_share": _share(counts.link_chars[0], total),
        "links": _log(n.links),
        "paragraphs": _log(n.paragraphs),
        "paragraph_share": _share(n.paragraph_chars, total),
        "long_run_share": _share(n.long_run_chars, total),
        "mean_run": _log(n.run_chars / n.runs) if n.runs else 0.0,
        "h1": _log(n.h1),
        "h1_chars": _log(n.h1_chars),
        "headings": _log(n.headings - n.h1),
        "heading_share": _share(n.heading_chars, total),
        "chars_per_heading": _log(total / (n.headings + 1)),
        "question_headings": _share(n.question_headings, n.headings),
        "paragraph_block_share": _share(n.paragraph_block_chars, total),
        "pre": _log(n.pre),
        "code": _log(n.code),
        "code_share": _share(n.pre_chars + n.code_chars, total),
        "tables": _log(n.tables),
        "table_rows": _log(n.table_rows),
        "table_share": _share(n.table_chars, total),
        "list_items": _log(n.list_items),
        "nested_lists": _log(n.nested_lists),
        "link_list_share": _share(n.link_list_chars, total),
        "definition_lists": _log(n.definition_lists),
        "forms": _log(n.forms),
        "fields": _log(n.fields),
        "textareas": _log(n.textareas),
        "selects": _log(n.selects),
        "buttons": _log(n.buttons),
        "number_inputs": _log(n.number_inputs),
        "prices": _log(n.prices),
        "digit_share": _share(n.digits, n.text_length),
        "times": _log(n.times),
        "articles": _log(n.articles),
        "sections": _log(n.sections),
        "blockquotes": _log(n.blockquotes),
        "images": _log(n.media),
        "images_per_kchar": _log(1000 * n.media / total) if total else 0.0,
        "navs": _log(n.navs),
        "asides": _log(n.asides),
        "main": float(n.main > 0),
        "record_runs": _log(n.record_runs),
    }
    if n.record_runs:
        records = n.records
        features.update(
            {
                "records": _log(records),
                "most_records": _log(n.most_records),
                "record_share": _share(n.record_chars, total),
                "record_chars": _log(n.record_chars / records),
                "record_link_share": _share(n.record_link_chars, n.record_chars),
                "records_with_link": n.records_with_link / records,
                "records_with_media": n.records_with_media / records,
                "records_with_time": n.records_with_time / records,
                "records_with_heading": n.records_with_heading / records,
                "records_with_field": n.records_with_field / records,
                "records_with_paragraph": n.records_with_paragraph / records,
                "records_with_quote": n.records_with_quote / records,
                "records_with_price": n.records_with_price / records,
            }
        )
    return features


class BodyCounts(NamedTuple):
    """What :func:`_body_features` reads off a visible view, counted in one pass by
    :func:`body_counts`: numbers of elements by tag, characters (as ``NodeCounts`` counts them)
    by tag, the view's text runs, and the run of records (:func:`_record_counts`)."""

    links: int
    paragraphs: int
    h1: int
    headings: int
    """``h1`` to ``h6``."""
    pre: int
    code: int
    """``code``, ``kbd`` and ``samp``."""
    tables: int
    table_rows: int
    list_items: int
    definition_lists: int
    forms: int
    fields: int
    """:data:`FIELDS`."""
    textareas: int
    selects: int
    buttons: int
    times: int
    articles: int
    sections: int
    blockquotes: int
    media: int
    """:data:`MEDIA`."""
    navs: int
    asides: int
    main: int
    paragraph_chars: int
    heading_chars: int
    pre_chars: int
    code_chars: int
    """In ``code`` elements only."""
    table_chars: int
    h1_chars: int
    """The first ``h1``'s (0 without one)."""
    long_run_chars: int
    """In the text runs of :data:`LONG_RUN_CHARS` or more."""
    run_chars: int
    runs: int
    """The text runs that have characters."""
    text_length: int
    """The raw text of all runs, as ``len`` counts it (the other counts are normalised)."""
    digits: int
    """ASCII digits in that text."""
    prices: int
    """:func:`_prices` of that text, the runs joined element after element."""
    question_headings: int
    nested_lists: int
    """Lists whose parent is a list item."""
    link_list_chars: int
    """In lists whose text is more than 70% link text."""
    number_inputs: int
    paragraph_block_chars: int
    """The most characters the paragraphs of one parent hold."""
    record_runs: int
    records: int
    most_records: int
    record_chars: int
    record_link_chars: int
    records_with_link: int
    records_with_media: int
    records_with_time: int
    records_with_heading: int
    records_with_field: int
    records_with_paragraph: int
    records_with_quote: int
    records_with_price: int


@accel.twin(accel.compiled.body_counts)
def body_counts(  # noqa: PLR0917 - the parameters of its compiled twin
    elements: Sequence[etree._Element],
    tags: list[str],
    parent: list[int],
    children: list[list[int]],
    runs: list[list[str]],
    chars: list[int],
    link_chars: list[int],
    subtree_tags: list[int],
    run_chars: list[list[int]],
) -> tuple[int, ...]:
    """The fields of :class:`BodyCounts` of a view (its fields, and the ``chars``,
    ``link_chars``, ``tags`` and ``run_chars`` of its ``NodeCounts``), in pure Python: the
    reference the compiled pass reproduces."""
    by_tag: dict[str, list[int]] = {}
    for i, tag in enumerate(tags):
        if tag in _INDEXED:
            by_tag.setdefault(tag, []).append(i)
        if i & 4095 == 4095:
            check_deadline("counting the page type's numbers")
    number = Counter(tags)

    def chars_in(*names: str) -> int:
        return sum(chars[i] for name in names for i in by_tag.get(name, ()))

    nonempty = [n for own in run_chars for n in own if n]
    text = "".join(map("".join, runs))
    headings = [i for name in HEADINGS for i in by_tag.get(name, ())]
    in_paragraphs: Counter[int] = Counter()
    for i in by_tag.get("p", ()):
        in_paragraphs[parent[i]] += chars[i]
    return (
        number["a"],
        number["p"],
        number["h1"],
        len(headings),
        number["pre"],
        number["code"] + number["kbd"] + number["samp"],
        number["table"],
        number["tr"],
        number["li"],
        number["dl"],
        number["form"],
        sum(number[name] for name in FIELDS),
        number["textarea"],
        number["select"],
        number["button"],
        number["time"],
        number["article"],
        number["section"],
        number["blockquote"],
        sum(number[name] for name in MEDIA),
        number["nav"],
        number["aside"],
        number["main"],
        chars_in("p"),
        chars_in(*HEADINGS),
        chars_in("pre"),
        chars_in("code"),
        chars_in("table"),
        chars[by_tag["h1"][0]] if "h1" in by_tag else 0,
        sum(n for n in nonempty if n >= LONG_RUN_CHARS),
        sum(nonempty),
        len(nonempty),
        len(text),
        sum(map(text.count, "0123456789")),
        _prices(text),
        sum(1 for i in headings if _ends_with_question(runs[i])),
        sum(1 for name in LISTS for i in by_tag.get(name, ()) if tags[parent[i]] == "li"),
        sum(
            chars[i]
            for name in LISTS
            for i in by_tag.get(name, ())
            if link_chars[i] > 0.7 * chars[i]
        ),
        sum(1 for i in by_tag.get("input", ()) if (elements[i].get("type") or "") == "number"),
        max(in_paragraphs.values(), default=0),
        *_record_counts(elements, tags, children, runs, chars, link_chars, subtree_tags),
    )


def _ends_with_question(runs: Sequence[str]) -> bool:
    """The last non-blank run of a heading's own text ends with a question mark."""
    for run in reversed(runs):
        if run.strip():
            return run.rstrip().endswith(_QUESTION_MARKS)
    return False


def _prices(text: str) -> int:
    """The currency signs of ``text`` with a digit beside them, or one space away."""
    found = 0
    for match in _CURRENCY_SIGN.finditer(text):
        at = match.start()
        around = text[max(0, at - 2) : at] + text[at + 1 : at + 3]
        if any(ch.isdigit() for ch in around):
            found += 1
    return found


def _record_counts(  # noqa: PLR0917 - the lists of body_counts it reads
    elements: Sequence[etree._Element],
    tags: list[str],
    children: list[list[int]],
    runs: list[list[str]],
    chars: list[int],
    link_chars: list[int],
    subtree_tags: list[int],
) -> tuple[int, ...]:
    """The runs of records: sibling containers (:data:`RECORD_TAGS`) alike in tag and class,
    each with some text; the last thirteen fields of :class:`BodyCounts`.

    The run holding the most text (the first of those) is described by its number of records,
    its characters and link characters, and the number of its records that hold a link, an
    image, a ``<time>``, a heading, a form field, a paragraph, a quotation or a price.
    """
    found: list[list[int]] = []
    parents = [kids for kids in children if len(kids) >= MIN_RECORDS]
    for step, kids in enumerate(parents):
        candidates = [c for c in kids if chars[c] >= MIN_RECORD_CHARS and tags[c] in RECORD_TAGS]
        if len(candidates) < MIN_RECORDS:
            continue
        groups: dict[tuple[str, str], list[int]] = {}
        for c in candidates:
            groups.setdefault((tags[c], elements[c].get("class") or ""), []).append(c)
        found.extend(group for group in groups.values() if len(group) >= MIN_RECORDS)
        if step % 1024 == 1023:
            check_deadline("reading the page's records")
    if not found:
        return (0,) * 13
    best = max(found, key=lambda run: sum(chars[c] for c in run))
    holding = dict.fromkeys(_RECORD_PARTS, 0)
    with_price = 0
    for c in best:
        # Preorder: the subtree of c is c and the subtree_tags[c] elements after it.
        end = c + subtree_tags[c] + 1
        holds = 0
        for tag in set(tags[c:end]):
            holds |= _HOLDS.get(tag, 0)
        for bit in _RECORD_PARTS:
            if holds & bit:
                holding[bit] += 1
        with_price += _prices("".join(map("".join, runs[c:end]))) > 0
    return (
        len(found),
        len(best),
        max(map(len, found)),
        sum(chars[c] for c in best),
        sum(link_chars[c] for c in best),
        *(holding[bit] for bit in _RECORD_PARTS),
        with_price,
    )


LONG_LINK_CHARS = 30
"""A link with this many characters of text or more names an item (a story's headline, a
product's name), not a place of the site's menus."""

_SUBHEADINGS = HEADINGS - {"h1"}


def _link_features(view: DomView, counts: NodeCounts) -> dict[str, float]:
    """What the links of the visible body ``view`` (whose counts are ``counts``) point at and
    hold: the share of the text in long links (:data:`LONG_LINK_CHARS`), the characters per
    link, the share of the subheadings that are links and of the images inside links (an index
    of items, each a linked title and a linked picture), the targets that two links or more
    share and the share of the links that point at them (a card links its picture and its
    title to the same page), and the subheadings by level."""
    n = LinkCounts._make(
        link_counts(view.elements, view.tags, counts.chars, counts.link_chars, view.in_link)
    )
    return {
        "long_link_share": _share(n.long_link_chars, counts.chars[0]),
        "chars_per_link": _log(n.link_chars / n.links) if n.links else 0.0,
        "linked_headings": _log(n.linked_headings),
        "linked_heading_share": _share(n.linked_headings, n.headings),
        "linked_media_share": _share(n.linked_media, n.media),
        "shared_targets": _log(n.shared_targets),
        "shared_target_share": _share(n.shared_target_links, n.target_links),
        "h2": _log(n.h2),
        "h3": _log(n.h3),
        "h4_to_h6": _log(n.h4_to_h6),
    }


class LinkCounts(NamedTuple):
    """What :func:`link_counts` counts in a view, for :func:`_link_features`."""

    links: int
    """``<a>`` elements."""
    link_chars: int
    """The characters of their text."""
    long_link_chars: int
    """The characters of those of :data:`LONG_LINK_CHARS` or more."""
    headings: int
    """Subheadings (``<h2>`` to ``<h6>``)."""
    linked_headings: int
    """Subheadings with text, at least half of it link text."""
    media: int
    """:data:`MEDIA` elements."""
    linked_media: int
    """Those inside a link."""
    target_links: int
    """Links with an ``href``."""
    shared_targets: int
    """Targets (``href``, stripped) that two of them or more point at."""
    shared_target_links: int
    """The links that point at those."""
    h2: int
    h3: int
    h4_to_h6: int


@accel.twin(accel.compiled.link_counts)
def link_counts(
    elements: Sequence[etree._Element],
    tags: list[str],
    chars: list[int],
    link_chars: list[int],
    in_link: list[bool],
) -> tuple[int, ...]:
    """The fields of :class:`LinkCounts` for a view's ``elements`` (their ``tags``, ``chars``,
    ``link_chars`` and ``in_link``), in pure Python: the reference the compiled pass
    reproduces."""
    link_text: list[int] = []
    targets: Counter[str] = Counter()
    headings = linked_headings = media = linked_media = 0
    levels: Counter[str] = Counter()
    for i, tag in enumerate(tags):
        if tag == "a":
            link_text.append(chars[i])
            href = elements[i].get("href")
            if href:
                targets[href.strip()] += 1
        elif tag in _SUBHEADINGS:
            headings += 1
            levels[tag] += 1
            linked_headings += bool(chars[i]) and 2 * link_chars[i] >= chars[i]
        elif tag in MEDIA:
            media += 1
            linked_media += in_link[i]
    shared = [n for n in targets.values() if n >= 2]
    return (
        len(link_text),
        sum(link_text),
        sum(n for n in link_text if n >= LONG_LINK_CHARS),
        headings,
        linked_headings,
        media,
        linked_media,
        sum(targets.values()),
        len(shared),
        sum(shared),
        levels["h2"],
        levels["h3"],
        levels["h4"] + levels["h5"] + levels["h6"],
    )


_RECORD_PARTS = (_LINK, _MEDIA, _TIME, _HEADING, _FIELD, _PARAGRAPH, _QUOTE)
"""The bits of :data:`_HOLDS` a record is described by, in the order of the
``records_with_`` fields of :class:`BodyCounts`."""


FEATURES = (
    *("elements", "chars", "chars_per_element", "link_share", "links", "paragraphs"),
    *("paragraph_share", "long_run_share", "mean_run", "h1", "h1_chars", "headings"),
    *("heading_share",),
    *("chars_per_heading", "question_headings", "paragraph_block_share", "buttons"),
    *("pre", "code", "code_share", "tables", "table_rows", "table_share", "list_items"),
    *("nested_lists", "link_list_share", "definition_lists", "forms", "fields", "textareas"),
    *("selects", "number_inputs", "prices", "digit_share", "times", "articles", "sections"),
    *("blockquotes", "images", "images_per_kchar", "navs", "asides", "main", "record_runs"),
    *("records", "most_records", "record_share", "record_chars", "record_link_share"),
    *("records_with_link", "records_with_media", "records_with_time", "records_with_heading"),
    *("records_with_field", "records_with_paragraph", "records_with_quote", "records_with_price"),
    *("url_depth", "url_slug_words", "url_numeric", "url_query", "url_root"),
    *("declares_article", "declares_discussion", "declares_other"),
    *("long_link_share", "chars_per_link", "linked_headings", "linked_heading_share"),
    *("linked_media_share", "shared_targets", "shared_target_share", "h2", "h3", "h4_to_h6"),
)
"""The names of the numeric features, in a fixed order."""


def _url_tokens(url: str | None) -> dict[str, float]:
    """The URL's shape (depth, words of its last segment, numeric segments, a query, the
    site's root) and its tokens: folders, subdomains, a one-word last segment, an
    extension."""
    if not url:
        return {}
    try:
        parts = urlsplit(url.strip().lower())
    except ValueError:
        return {}
    segments = [segment for segment in parts.path.split("/") if segment]
    features: dict[str, float] = {
        "url_depth": _log(len(segments)),
        "url_query": float(bool(parts.query)),
        "url_root": float(not segments),
    }
    for segment in segments[:-1]:
        features[f"folder:{_shape(segment)}"] = 1.0
    if segments:
        last = segments[-1]
        stem, dot, extension = last.rpartition(".")
        if dot and stem and _ALPHA.match(extension) and len(extension) <= 5:
            features[f"ext:{extension}"] = 1.0
            last = stem
        words = [word for word in _SEGMENT_SPLIT.split(last) if word]
        features["url_slug_words"] = _log(len(words))
        if len(words) == 1:
            features[f"last:{_shape(words[0])}"] = 1.0
        for word in words:
            features[f"slug:{_shape(word)}"] = 1.0
    features["url_numeric"] = float(any(_DIGITS.match(segment) for segment in segments))
    labels = (parts.hostname or "").split(".")
    for label in labels[:-2]:
        if label != "www":
            features[f"host:{_shape(label)}"] = 1.0
    return features


def _shape(token: str) -> str:
    """A URL token as a feature: itself when it is letters only, ``<num>`` when it is digits,
    ``<mixed>`` otherwise (an id, a slug with digits)."""
    if _ALPHA.match(token):
        return token
    return "<num>" if _DIGITS.match(token) else "<mixed>"


_TOKEN_ATTRIBUTES = (("itemprop", None), ("property", None), ("rel", None))


def _class_tokens(body: etree._Element) -> dict[str, float]:
    """The words of the class names below ``body``, as tokens."""
    return {f"class:{word}": 1.0 for word in class_words(body)}


@accel.twin(accel.compiled.class_words)
def class_words(root: etree._Element) -> set[str]:
    """The words (:data:`_CLASS_WORD`, lower-cased) of the class names of the elements below
    ``root`` (each distinct value read once), in pure Python: the reference the compiled pass
    reproduces."""
    values = _CLASSES(root)
    assert isinstance(values, list)
    return {word.lower() for word in _CLASS_WORD.findall(" ".join(set(map(str, values))))}


def _title_tokens(document: etree._Element) -> dict[str, float]:
    """The words (letters only, 3 to 20 of them) of the document's ``<title>``."""
    title = document.getroottree().getroot().findtext("head/title") or ""
    words = _TITLE_WORD.findall(title[:MAX_TITLE_CHARS].lower())
    return {f"title:{word}": 1.0 for word in words}


def _markup_tokens(tree: etree._Element, markup: PageMarkup) -> dict[str, float]:
    """The declared types (of ``markup``), ``itemprop`` names, ``<meta property>`` names and
    ``rel`` values of the document holding ``tree``."""
    types = markup.types
    features = {f"type:{name}": 1.0 for name in types if len(name) <= 60}
    features["declares_article"] = float(bool(types & ARTICLE_TYPES))
    features["declares_discussion"] = float(bool(types & DISCUSSION_TYPES))
    features["declares_other"] = float(markup.not_an_article)
    root = tree.getroottree().getroot()
    for element in attribute_owners(root, _TOKEN_ATTRIBUTES):
        get = element.get
        for name in (get("itemprop") or "").split():
            if len(name) <= 60:
                features[f"prop:{name}"] = 1.0
        meta = get("property")
        if meta and local_tag(element) == "meta" and len(meta) <= 60:
            features[f"meta:{meta.strip().lower()}"] = 1.0
        for name in (get("rel") or "").lower().split():
            if len(name) <= 30:
                features[f"rel:{name}"] = 1.0
    return features


@dataclass(frozen=True)
class Tree:
    """One regression tree, its nodes in flat lists (node 0 is the root): an inner node ``i``
    sends a page to ``left[i]`` when its feature ``feature[i]`` is at most ``threshold[i]``
    (a feature the page lacks counts as 0), else to ``right[i]``; a leaf (``feature[i]`` is
    ``None``) adds ``value[i]`` to its class's score."""

    feature: tuple[str | None, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]

    def to_json(self) -> list[list[Any]]:
        """The nodes, each ``[feature, threshold, left, right]`` or ``[value]`` for a leaf."""
        return [
            [name, self.threshold[i], self.left[i], self.right[i]] if name else [self.value[i]]
            for i, name in enumerate(self.feature)
        ]

    @classmethod
    def from_json(cls, nodes: Sequence[Sequence[Any]]) -> Tree:
        """The tree :meth:`to_json` wrote; a ``ValueError`` when a node's child is not a node
        after it (which also rules out a loop)."""
        feature: list[str | None] = []
        threshold, values = [], []
        left, right = [], []
        for i, node in enumerate(nodes):
            split = len(node) == 4
            children = (int(node[2]), int(node[3])) if split else (0, 0)
            if split and not all(i < child < len(nodes) for child in children):
                raise ValueError(f"a tree's child is not one of its nodes after {i}: {children}")
            feature.append(str(node[0]) if split else None)
            threshold.append(float(node[1]) if split else 0.0)
            values.append(0.0 if split else float(node[0]))
            left.append(children[0])
            right.append(children[1])
        if not nodes:
            raise ValueError("a tree without nodes")
        return cls(tuple(feature), tuple(threshold), tuple(left), tuple(right), tuple(values))


@dataclass(frozen=True)
class BoostedTrees:
    """Gradient-boosted trees for several classes: a class's score is ``baseline[k]`` plus the
    leaf values of the trees of ``classes[k]``; a softmax over the scores gives the
    probabilities. The trees read the features as they are (no standardisation), and split
    on whichever features, numbers or tokens, separate the types best: they catch what a
    linear model cannot (a combination of signals, a threshold)."""

    baseline: tuple[float, ...]
    trees: tuple[tuple[Tree, ...], ...]
    """``trees[k]``: the trees of class ``k``, in the order they were fitted."""

    _inputs: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _nodes: tuple[tuple[int, ...], tuple[float, ...], tuple[int, ...], tuple[int, ...]] = field(
        init=False, repr=False, compare=False
    )
    _values: tuple[float, ...] = field(init=False, repr=False, compare=False)
    _roots: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Lay all the trees' nodes end to end in flat lists, their features as indices into
        the features the trees read (:attr:`_inputs`), so that a page is read once per
        feature and each tree is a few steps of one loop, without a call."""
        inputs = sorted({name for row in self.trees for t in row for name in t.feature if name})
        index = {name: j for j, name in enumerate(inputs)}
        feature: list[int] = []
        threshold: list[float] = []
        left: list[int] = []
        right: list[int] = []
        values: list[float] = []
        roots = []
        for k, row in enumerate(self.trees):
            for tree in row:
                start = len(feature)
                roots.append((k, start))
                for i, name in enumerate(tree.feature):
                    feature.append(index[name] if name else -1)
                    threshold.append(tree.threshold[i])
                    left.append(start + tree.left[i])
                    right.append(start + tree.right[i])
                    values.append(tree.value[i])
        object.__setattr__(self, "_inputs", tuple(inputs))
        nodes = (tuple(feature), tuple(threshold), tuple(left), tuple(right))
        object.__setattr__(self, "_nodes", nodes)
        object.__setattr__(self, "_values", tuple(values))
        object.__setattr__(self, "_roots", tuple(roots))

    def probabilities(self, features: Mapping[str, float]) -> list[float]:
        """The probability of each class, in the order of :attr:`trees`."""
        get = features.get
        read = [get(name, 0.0) for name in self._inputs]
        return _softmax(tree_scores(read, self._nodes, self._values, self._roots, self.baseline))


@accel.twin(accel.compiled.tree_scores)
def tree_scores(
    read: list[float],
    nodes: tuple[tuple[int, ...], tuple[float, ...], tuple[int, ...], tuple[int, ...]],
    values: tuple[float, ...],
    roots: tuple[tuple[int, int], ...],
    baseline: tuple[float, ...],
) -> list[float]:
    """Each class's score: its ``baseline`` plus the leaf value each of its trees reaches for
    the features ``read`` (the trees laid end to end as :class:`BoostedTrees` lays them, each
    leaf added in the order of ``roots``), in pure Python: the reference the compiled pass
    reproduces."""
    feature, threshold, left, right = nodes
    scores = list(baseline)
    for k, root in roots:
        node = root
        at = feature[node]
        while at >= 0:
            node = left[node] if read[at] <= threshold[node] else right[node]
            at = feature[node]
        scores[k] += values[node]
    return scores


def _softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(score - top) for score in scores]
    norm = sum(exps)
    return [e / norm for e in exps]


@dataclass(frozen=True)
class PageTypeModel:
    """A multinomial logistic regression over standardised features, and optionally
    gradient-boosted trees over the same features, whose probabilities are averaged with the
    regression's (``tree_share`` of the trees', the rest the regression's).

    ``features`` names the inputs (a numeric feature of :data:`FEATURES` or a token), and
    ``mean`` and ``scale`` standardise each; ``weights[k]`` and ``bias[k]`` score
    ``classes[k]``. A feature a page lacks counts as 0.
    """

    classes: tuple[str, ...]
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[tuple[float, ...], ...]
    bias: tuple[float, ...]
    trees: BoostedTrees | None = None
    tree_share: float = 0.0

    _constant: tuple[float, ...] = field(init=False, repr=False, compare=False)
    _scaled: dict[str, tuple[float, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Fold the standardisation into the weights: a class's score is a constant plus the
        sum over the features the page has (not 0) of ``weight / scale * value``, so a page
        costs as many steps as it has features, not as the model has."""
        constant = list(self.bias)
        scaled = {}
        for j, name in enumerate(self.features):
            row = tuple(weights[j] / self.scale[j] for weights in self.weights)
            scaled[name] = row
            for k, weight in enumerate(row):
                constant[k] -= weight * self.mean[j]
        object.__setattr__(self, "_constant", tuple(constant))
        object.__setattr__(self, "_scaled", scaled)

    def probabilities(self, features: Mapping[str, float]) -> dict[str, float]:
        """The probability of each class for a page with ``features``."""
        scaled = self._scaled
        rows, values, tokens = [], [], []
        for name, value in features.items():
            row = scaled.get(name)
            if row is None or not value:
                continue
            if value == 1.0:
                tokens.append(row)  # summed below, column by column, exactly: in any order
            else:
                rows.append(row)
                values.append(value)
        scores = weighted_sums(list(self._constant), rows, values)
        if tokens:
            columns = zip(*tokens, strict=True)
            sums = [math.fsum(column) for column in columns]
            scores = [score + total for score, total in zip(scores, sums, strict=True)]
        linear = _softmax(scores)
        if self.trees is not None:
            share = self.tree_share
            trees = self.trees.probabilities(features)
            linear = [(1 - share) * p + share * q for p, q in zip(linear, trees, strict=True)]
        return dict(zip(self.classes, linear, strict=True))

    def predict(self, features: Mapping[str, float]) -> PageType:
        """The most probable type (the first of :attr:`classes` on a tie) and its
        probability."""
        probabilities = self.probabilities(features)
        name = max(self.classes, key=lambda kind: probabilities[kind])
        return PageType(name, probabilities[name])

    def to_json(self) -> dict[str, Any]:
        """The model as a JSON object: the classes, their biases, and one entry per feature
        with its mean, its scale and its weight for each class (in the order of
        ``classes``)."""
        return {
            "kind": "multinomial logistic regression over standardised features",
            "classes": list(self.classes),
            "bias": list(self.bias),
            "features": [
                {
                    "name": name,
                    "mean": self.mean[j],
                    "scale": self.scale[j],
                    "weights": [row[j] for row in self.weights],
                }
                for j, name in enumerate(self.features)
            ],
            **self._trees_json(),
        }

    def _trees_json(self) -> dict[str, Any]:
        """The trees' part of :meth:`to_json`: their share, each class's baseline and trees."""
        if self.trees is None:
            return {}
        return {
            "tree_share": self.tree_share,
            "tree_baseline": list(self.trees.baseline),
            "trees": [[tree.to_json() for tree in trees] for trees in self.trees.trees],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PageTypeModel:
        """The model :meth:`to_json` wrote; a ``ValueError`` when ``data`` is not one."""
        try:
            classes = tuple(str(kind) for kind in data["classes"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a page-type model: {exc!r}") from exc
        unknown = set(classes) - set(PAGE_TYPES)
        if unknown or not classes:
            raise ValueError(f"not a page-type model: classes {sorted(unknown) or 'missing'}")
        try:
            rows = data["features"]
            model = cls(
                classes=classes,
                features=tuple(str(row["name"]) for row in rows),
                mean=tuple(float(row["mean"]) for row in rows),
                scale=tuple(float(row["scale"]) or 1.0 for row in rows),
                weights=tuple(
                    tuple(float(row["weights"][k]) for row in rows) for k in range(len(classes))
                ),
                bias=tuple(float(data["bias"][k]) for k in range(len(classes))),
                trees=_trees_from_json(data, len(classes)),
                tree_share=float(data.get("tree_share", 0.0)),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ValueError(f"not a page-type model: {exc!r}") from exc
        return model


def _trees_from_json(data: Mapping[str, Any], classes: int) -> BoostedTrees | None:
    """The trees :meth:`PageTypeModel.to_json` wrote, ``None`` when it wrote none."""
    if "trees" not in data:
        return None
    trees = tuple(tuple(map(Tree.from_json, row)) for row in data["trees"])
    baseline = tuple(float(value) for value in data["tree_baseline"])
    if len(trees) != classes or len(baseline) != classes:
        raise ValueError(f"trees and baselines for {len(trees)} classes, not {classes}")
    return BoostedTrees(baseline, trees)


@accel.twin(accel.compiled.weighted_sums)
def weighted_sums(
    start: list[float], rows: list[tuple[float, ...]], values: list[float]
) -> list[float]:
    """``start`` plus each row times its value, added one row after the other (the order the
    sums are rounded in), in pure Python: the reference the compiled pass reproduces."""
    sums = start
    for row, value in zip(rows, values, strict=True):
        sums = [total + weight * value for total, weight in zip(sums, row, strict=True)]
    return list(sums)


@cache
def default_model() -> PageTypeModel:
    """The model shipped with the package (:data:`MODEL_PATH`), read once."""
    return PageTypeModel.from_json(json.loads(MODEL_PATH.read_text(encoding="utf-8")))


def classify_tree(tree: etree._Element, url: str | None = None) -> PageType:
    """The type of the document holding the parsed ``tree`` (left unchanged)."""
    return default_model().predict(page_features(tree, url))


def classify_view(
    tree: etree._Element,
    view: DomView | None,
    counts: NodeCounts | None,
    markup: PageMarkup,
    url: str | None = None,
) -> PageType:
    """The type of the document holding ``tree``, from what an extractor has read already
    (see :func:`view_features`): the same answer as :func:`classify_tree`."""
    return default_model().predict(view_features(tree, view, counts, markup, url))

"""The features of the visible body: the shares of its text in paragraphs, links, code
blocks and tables, its headings, forms and prices, and the records its repeated siblings
form (and what each record holds: a link, an image, a ``<time>``, a heading, a price).
The counts come from one pass, compiled when :mod:`scrapy_cetd.page.accel` is built
(:func:`body_counts`, with its pure-Python reference)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from lxml import etree

from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page import accel
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.page_types.measures import log_count, share_of
from scrapy_cetd.page.page_types.tags import FIELDS, HEADINGS, LISTS, MEDIA, RECORD_TAGS

_CURRENCY = "$€£¥₹₽₩₪฿₫₴₦₺₱"


_CURRENCY_SIGN = re.compile(f"[{_CURRENCY}]")


_QUESTION_MARKS = ("?", "\uff1f", "\u061f")
"""The question marks of Latin, CJK and Arabic script."""


_INDEXED = frozenset({"p", "pre", "code", "table", "ul", "ol", "input", *HEADINGS})
"""The tags whose elements :func:`body_features` sums the text of."""


_HOLDS = {
    "a": 1,
    **dict.fromkeys(MEDIA, 2),
    "time": 4,
    **dict.fromkeys(HEADINGS, 8),
    **dict.fromkeys(FIELDS, 16),
    "p": 32,
    "blockquote": 64,
}
"""Bits of the tags a record holds (see :func:`_record_counts`)."""


_LINK, _MEDIA, _TIME, _HEADING, _FIELD, _PARAGRAPH, _QUOTE = 1, 2, 4, 8, 16, 32, 64


MIN_RECORDS = 3
"""The fewest siblings alike in tag and class that make a run of records."""


MIN_RECORD_CHARS = 10
"""The fewest characters a sibling needs to count as a record (an empty spacer is none)."""


LONG_RUN_CHARS = 120
"""A text run this long is prose (a paragraph, a post), whatever its language."""


_RECORD_PARTS = (_LINK, _MEDIA, _TIME, _HEADING, _FIELD, _PARAGRAPH, _QUOTE)
"""The bits of :data:`_HOLDS` a record is described by, in the order of the
``records_with_`` fields of :class:`BodyCounts`."""


def body_features(view: DomView, counts: NodeCounts) -> dict[str, float]:
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
        "elements": log_count(size),
        "chars": log_count(total),
        "chars_per_element": log_count(total / size),
        "link_share": share_of(counts.link_chars[0], total),
        "links": log_count(n.links),
        "paragraphs": log_count(n.paragraphs),
        "paragraph_share": share_of(n.paragraph_chars, total),
        "long_run_share": share_of(n.long_run_chars, total),
        "mean_run": log_count(n.run_chars / n.runs) if n.runs else 0.0,
        "h1": log_count(n.h1),
        "h1_chars": log_count(n.h1_chars),
        "headings": log_count(n.headings - n.h1),
        "heading_share": share_of(n.heading_chars, total),
        "chars_per_heading": log_count(total / (n.headings + 1)),
        "question_headings": share_of(n.question_headings, n.headings),
        "paragraph_block_share": share_of(n.paragraph_block_chars, total),
        "pre": log_count(n.pre),
        "code": log_count(n.code),
        "code_share": share_of(n.pre_chars + n.code_chars, total),
        "tables": log_count(n.tables),
        "table_rows": log_count(n.table_rows),
        "table_share": share_of(n.table_chars, total),
        "list_items": log_count(n.list_items),
        "nested_lists": log_count(n.nested_lists),
        "link_list_share": share_of(n.link_list_chars, total),
        "definition_lists": log_count(n.definition_lists),
        "forms": log_count(n.forms),
        "fields": log_count(n.fields),
        "textareas": log_count(n.textareas),
        "selects": log_count(n.selects),
        "buttons": log_count(n.buttons),
        "number_inputs": log_count(n.number_inputs),
        "prices": log_count(n.prices),
        "digit_share": share_of(n.digits, n.text_length),
        "times": log_count(n.times),
        "articles": log_count(n.articles),
        "sections": log_count(n.sections),
        "blockquotes": log_count(n.blockquotes),
        "images": log_count(n.media),
        "images_per_kchar": log_count(1000 * n.media / total) if total else 0.0,
        "navs": log_count(n.navs),
        "asides": log_count(n.asides),
        "main": float(n.main > 0),
        "record_runs": log_count(n.record_runs),
    }
    if n.record_runs:
        records = n.records
        features.update(
            {
                "records": log_count(records),
                "most_records": log_count(n.most_records),
                "record_share": share_of(n.record_chars, total),
                "record_chars": log_count(n.record_chars / records),
                "record_link_share": share_of(n.record_link_chars, n.record_chars),
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
    """What :func:`body_features` reads off a visible view, counted in one pass by
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

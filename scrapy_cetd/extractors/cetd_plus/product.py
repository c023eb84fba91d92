"""The steps of a product page: its reviews (step 16), and the description its JSON-LD
declares (step 17).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import lxml.html
from lxml import etree

from scrapy_cetd.extractors.cetd_plus.named_sections import Attributes, named_sections
from scrapy_cetd.guard import markup_problem
from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.dom import DomView, attribute_owners, build_view, local_tag
from scrapy_cetd.page.markup import json_ld_objects, json_ld_types
from scrapy_cetd.page.output import Keep, render
from scrapy_cetd.page.words import tokens
from scrapy_cetd.result import ExtractionResult

_NAME_WORDS = re.compile(r"[a-z]+|[A-Z][a-z]*")
"""The words of an ``id`` or ``class`` value: runs of letters, each capital starting one
(``productReviews`` is ``product``, ``Reviews``)."""

REVIEW_NAMES = frozenset({"review", "reviews"})
"""The words of an ``id`` or ``class`` that name a section of reviews, as ``comment`` names a
comment section (:func:`~scrapy_cetd.extractors.furniture.boilerplate`)."""


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


PRODUCT_TYPES = frozenset(
    {"product", "productgroup", "productmodel", "individualproduct", "someproducts"}
)
"""The schema.org types of a product, lower-cased."""

DESCRIPTION_SHARE = 0.5
"""The share of the declared description's words the content must hold for the description to
count as shown."""

MAX_DESCRIPTION_ELEMENTS = 10_000
"""The most elements a declared description is read with, counted by its ``<`` (each element
opens with one). The page's ``max_nodes`` does not count them (a JSON string is text to the
page's parser), and each takes memory once parsed, viewed and rendered
(``docs/limits-markup.md``). A shop's description, tables of specifications included, holds
hundreds."""

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
    page's own text: lxml would stop reading there. A description holding a tag of more
    attributes than a page may have by default (:func:`~scrapy_cetd.guard.markup_problem`)
    is ``("", "")``: libxml2 would read them in quadratic time, in a call no budget stops,
    and the page's own check never read it (a JSON string is text to the page's parser); so
    is one of more than :data:`MAX_DESCRIPTION_ELEMENTS` elements."""
    description = _SURROGATE.sub("\ufffd", description)
    if not _TAG.search(description):
        lines = (html.escape(html.unescape(line)) for line in description.splitlines())
        description = "".join(f"<p>{line}</p>" for line in lines if line.strip())
    elif (
        description.count("<") > MAX_DESCRIPTION_ELEMENTS or markup_problem(description) is not None
    ):
        return "", ""
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

"""What a page says about itself: the schema.org and Open Graph types it declares, its
``itemprop="articleBody"``, the reader texts its JSON-LD carries, and its headline.

cetd-plus reads this markup to tell an article from a product or a discussion, to bound its
selection and to find reader comments. None of it is required: a page without any is read by
its text alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from lxml import etree

from scrapy_cetd.page.dom import attribute_owners, local_tag

DISCUSSION_TYPES = frozenset({"discussionforumposting", "qapage", "question", "socialmediaposting"})
"""schema.org types of pages whose main content is the discussion itself."""

USER_CONTENT_TYPES = frozenset({"review", "comment", "answer"})
"""schema.org types of what readers write about a page: comments unless it is a discussion."""

USER_TEXT_KEYS = ("reviewBody", "text", "description")
"""The JSON-LD properties that hold the text of a :data:`USER_CONTENT_TYPES` item."""

ARTICLE_TYPES = frozenset(
    {
        *("article", "newsarticle", "blogposting", "liveblogposting", "reportagenewsarticle"),
        *("analysisnewsarticle", "opinionnewsarticle", "techarticle", "scholarlyarticle"),
        "report",
    }
)
"""schema.org article types, and Open Graph's ``og:type`` ``article``."""

_JSON_TYPES = re.compile(r'"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")')
_MARKUP_ATTRIBUTES = (
    ("itemtype", None),
    ("itemprop", "articleBody"),
    ("type", "application/ld+json"),
    ("property", "og:type"),
)
"""The attributes (and values) that carry the markup :func:`page_markup` reads."""
_TITLE_SOURCES = (
    "//meta[@property='og:title']/@content",
    "//meta[@name='twitter:title']/@content",
    "//title/text()",
)


@dataclass(frozen=True)
class PageMarkup:
    """What the document says about itself in structured markup, read in one pass over its
    attributes."""

    types: frozenset[str]
    """The lower-case schema.org / Open Graph types it declares (JSON-LD ``@type``, microdata
    ``itemtype``, ``og:type``), e.g. ``{"newsarticle", "person"}``."""
    article_bodies: frozenset[etree._Element]
    """Its ``itemprop="articleBody"`` elements."""
    user_texts: tuple[str, ...] = ()
    """The texts of the reviews, comments and answers its JSON-LD declares
    (:data:`USER_CONTENT_TYPES`)."""

    @property
    def discussion(self) -> bool:
        """The page declares itself a discussion (:data:`DISCUSSION_TYPES`)."""
        return bool(self.types & DISCUSSION_TYPES)

    @property
    def not_an_article(self) -> bool:
        """The page declares types, none of them an article (:data:`ARTICLE_TYPES`): a
        product, a collection, a forum, a service page..."""
        return bool(self.types) and not self.types & ARTICLE_TYPES


def page_markup(tree: etree._Element) -> PageMarkup:
    """The :class:`PageMarkup` of the document that holds ``tree``, read from its item types,
    ``itemprop="articleBody"`` elements, JSON-LD scripts and head's ``og:type``."""
    types: set[str] = set()
    bodies: set[etree._Element] = set()
    user_texts: list[str] = []
    root = tree.getroottree().getroot()
    for element in attribute_owners(root, _MARKUP_ATTRIBUTES):
        get = element.get
        if get("itemprop") == "articleBody":
            bodies.add(element)
        itemtype = get("itemtype")
        if itemtype:
            types.update(value.rsplit("/", 1)[-1].lower() for value in itemtype.split())
        tag = local_tag(element)
        if tag == "meta" and get("property") == "og:type" and _in_head(element, root):
            types.add((get("content") or "").strip().lower())
        elif tag == "script" and get("type") == "application/ld+json":
            declared: set[str] = set()
            for match in _JSON_TYPES.finditer(element.text or ""):
                declared.update(name.lower() for name in _type_names(match.group(1)))
            types |= declared
            if declared & USER_CONTENT_TYPES:
                user_texts.extend(_json_ld_user_texts(element.text or ""))
    types.discard("")
    return PageMarkup(frozenset(types), frozenset(bodies), tuple(user_texts))


def _type_names(value: str) -> list[str]:
    """The names of one JSON-LD ``@type`` value as :data:`_JSON_TYPES` reads it: a string or a
    list of them; none when the list is not valid JSON or nests deeper than Python's limit (a
    broken script declares nothing)."""
    if not value.startswith("["):
        return [value.strip('"')]
    try:
        listed = json.loads(value)
    except (ValueError, RecursionError):
        return []
    return [str(name) for name in listed]


def _in_head(element: etree._Element, root: etree._Element) -> bool:
    """``element`` is a child of the ``<head>`` of the document ``root`` (an ``<html>``)."""
    head = element.getparent()
    return (
        head is not None
        and local_tag(head) == "head"
        and head.getparent() is root
        and local_tag(root) == "html"
    )


def _json_ld_user_texts(script: str) -> list[str]:
    """The texts of the :data:`USER_CONTENT_TYPES` items of one JSON-LD script (none when it
    does not parse, or nests deeper than Python's limit)."""
    try:
        stack: list[object] = [json.loads(script)]
    except (ValueError, RecursionError):
        return []
    texts: list[str] = []
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            declared = item.get("@type")
            names = declared if isinstance(declared, list) else [declared]
            if {str(name).lower() for name in names} & USER_CONTENT_TYPES:
                texts.extend(
                    text for key in USER_TEXT_KEYS if isinstance(text := item.get(key), str)
                )
            stack.extend(item.values())
    return texts


def page_title(tree: etree._Element) -> str | None:
    """The page's headline: its first non-empty ``<h1>``, else its ``og:title``,
    ``twitter:title`` or ``<title>``."""
    for heading in tree.iter("h1"):
        text = " ".join("".join(map(str, heading.itertext())).split())
        if text:
            return text
    for source in _TITLE_SOURCES:
        values = tree.xpath(source)
        assert isinstance(values, list)
        for value in values:
            text = " ".join(str(value).split())
            if text:
                return text
    return None

"""What a page says about itself: the schema.org and Open Graph types it declares, its
``itemprop="articleBody"``, the reader texts its JSON-LD carries, and its headline.

cetd-plus reads this markup to tell an article from a product or a discussion, to bound its
selection and to find reader comments. None of it is required: a page without any is read by
its text alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from lxml import etree

from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page import accel
from scrapy_cetd.page.dom import BLOCK_TAGS, attribute_owners, local_tag, namespaced
from scrapy_cetd.page.words import collapse_spaces

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

_TYPE_KEY = re.compile(r'"@type"\s*:\s*[\["]')
"""A JSON-LD ``@type`` key up to the first character of its value (a list or a string).

The value's end is then found with :meth:`str.find` (see :func:`_json_types`): a single
expression that also matched the value (``"@type"\\s*:\\s*(\\[[^\\]]*\\]|"[^"]*")``) scanned the
rest of the script from every ``"@type": [`` that no ``]`` closes, in quadratic time."""
_WRAPPER_START = re.compile(
    r"\s*(?:<!--//--><!\[CDATA\[//><!--"
    r"|(?:(?://|/\*)[ \t]*)?(?:<!\[CDATA\[|<!--)(?:[ \t]*\*/)?)"
)
"""The opening of a CDATA section or an HTML comment that a template wraps a script's JSON in
(``<![CDATA[``, ``//<![CDATA[``, ``/*<![CDATA[*/``, ``<!--``), from an XHTML habit, or of
both at once as Drupal writes them (``<!--//--><![CDATA[//><!--``)."""
_WRAPPER_END = re.compile(r"(?://--><!\]\]>|(?:(?://|/\*)[ \t]*)?(?:\]\]>|-->)(?:[ \t]*\*/)?)\Z")
"""The closing of :data:`_WRAPPER_START`'s wrapper, at the end of the script (Drupal's
``//--><!]]>`` closes both)."""
MAX_JSON_LD = 2_000_000
"""Characters of one JSON-LD script that are parsed; a longer one is skipped (no page's
metadata needs more, and :func:`json.loads` holds the whole structure in memory)."""
_WRAPPER_TAIL = 64
"""Characters at the end of a script, its trailing whitespace left out, searched for
:data:`_WRAPPER_END`."""
_MARKUP_ATTRIBUTES = (
    ("itemtype", None),
    ("itemprop", "articleBody"),
    ("type", "application/ld+json"),
    ("property", "og:type"),
)
"""The attributes (and values) that carry the markup :func:`page_markup` reads."""
_STRING = etree.XPath("string()")
"""An element's text, as ``"".join(element.itertext())`` gives it."""


@dataclass(frozen=True)
class _TitleQueries:
    """The XPaths :func:`title_text` reads a page's headline with."""

    headings: etree.XPath
    inner_headings: etree.XPath
    sources: tuple[etree.XPath, ...]

    @classmethod
    def naming(cls, element: Callable[[str], str]) -> _TitleQueries:
        """The queries with each element test written by ``element`` (given a tag name)."""
        return cls(
            etree.XPath(f"descendant-or-self::{element('h1')}"),
            etree.XPath(f"count(descendant::{element('h1')})"),
            tuple(
                etree.XPath(source)
                for source in (
                    f"//{element('meta')}[@property='og:title']/@content",
                    f"//{element('meta')}[@name='twitter:title']/@content",
                    f"//{element('title')}/text()",
                )
            ),
        )


_TITLE_QUERIES = _TitleQueries.naming(lambda tag: tag)
_NAMESPACED_TITLE_QUERIES = _TitleQueries.naming(lambda tag: f"*[local-name()='{tag}']")
"""For a tree parsed as XML, whose elements are in the XHTML namespace (``{http://www.w3.org/
1999/xhtml}h1``), which a bare name does not test in XPath."""


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
            script = element.text or ""
            declared = {name.lower() for name in _json_types(script)}
            types |= declared
            if declared & USER_CONTENT_TYPES:
                user_texts.extend(_json_ld_user_texts(script))
        check_deadline("reading the page's markup")
    types.discard("")
    return PageMarkup(frozenset(types), frozenset(bodies), tuple(user_texts))


def _json_types(script: str) -> set[str]:
    """The names the ``@type`` keys of one JSON-LD script declare, in linear time and whether
    or not the script is valid JSON: each key's value is a string (up to the next ``"``) or a
    list of them (up to the next ``]``, read as JSON; a list that is not valid JSON, or nests
    deeper than Python's parser reads, declares nothing). Keys inside a list that was read are
    skipped, and a key whose value is not closed declares nothing.

    Every ``str.find`` starts past the previous one, so the script is read a bounded number
    of times: the position of the next ``]`` is kept until the scan passes it, and once there
    is none, no list after it can close either."""
    names: set[str] = set()
    close = 0  # the next "]" at or after the current list's start; -1 when there is none
    position = 0
    while (key := _TYPE_KEY.search(script, position)) is not None:
        start = key.end() - 1
        if script[start] == '"':
            end = script.find('"', start + 1)
            if end >= 0:
                names.add(script[start + 1 : end])
        else:
            if 0 <= close < start:
                close = script.find("]", start)
            end = close
            if end >= 0:
                names.update(_listed_names(script[start : end + 1]))
        position = end + 1 if end >= 0 else key.start() + 1
    return names


def _listed_names(value: str) -> list[str]:
    """The names of one JSON-LD ``@type`` list (``value`` holds no ``]`` but its last
    character); none when it is not valid JSON or nests deeper than Python's parser reads."""
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


def json_ld_json(script: str) -> str:
    """The JSON of one JSON-LD script: its text without the CDATA section or HTML comment
    around it (``<![CDATA[ {...} ]]>``), which XHTML-era templates still write and browsers'
    and search engines' readers ignore, but which :func:`json.loads` rejects."""
    start = _WRAPPER_START.match(script)
    if start is None:
        return script
    script = script.rstrip()  # however long the indentation after the closing
    end = _WRAPPER_END.search(script, max(start.end(), len(script) - _WRAPPER_TAIL))
    return script[start.end() : end.start() if end else len(script)]


def json_ld_data(script: str) -> object:
    """The value of one JSON-LD script's JSON (:func:`json_ld_json`), or ``None`` when the
    script is longer than :data:`MAX_JSON_LD` characters, does not parse, or nests deeper than
    Python's parser reads. Control characters inside strings are read as they are (a
    description pasted with its line breaks): JSON forbids them, search engines' readers
    take them."""
    if len(script) > MAX_JSON_LD:
        return None
    try:
        return json.loads(json_ld_json(script), strict=False)
    except (ValueError, RecursionError):
        return None


def json_ld_objects(script: str) -> Iterator[dict[str, Any]]:
    """Every object of one JSON-LD script (:func:`json_ld_data`), the nested ones included."""
    stack: list[object] = [json_ld_data(script)]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            yield item
            stack.extend(item.values())


def json_ld_types(item: dict[str, Any]) -> set[str]:
    """The lower-cased ``@type`` names of one JSON-LD object."""
    declared = item.get("@type")
    names = declared if isinstance(declared, list) else [declared]
    return {name.lower() for name in names if isinstance(name, str)}


def _json_ld_user_texts(script: str) -> list[str]:
    """The texts of the :data:`USER_CONTENT_TYPES` items of one JSON-LD script."""
    return [
        text
        for item in json_ld_objects(script)
        if json_ld_types(item) & USER_CONTENT_TYPES
        for key in USER_TEXT_KEYS
        if isinstance(text := item.get(key), str)
    ]


def text_of(element: etree._Element) -> str:
    """The text of ``element`` and its descendants, as ``"".join(element.itertext())`` gives
    it, read in C: lxml's ``itertext()`` makes and frees a proxy per element, and freeing one
    walks up to the closest ancestor that has one, so it costs depth squared on deep trees."""
    if not len(element):
        return element.text or ""
    return str(_STRING(element))


def lines_of(element: etree._Element, limit: int, *, apart: bool = False) -> str:
    """The text of ``element`` with a line break where each block element (:data:`BLOCK_TAGS`)
    starts and ends, as the text output breaks it: a byline laid out in blocks (``Written
    by`` / the name / the job title) reads as lines, not as one run of words glued together.
    With ``apart``, a space where each other element starts and ends too: the texts of two
    elements side by side are two words (a byline's ``<a>Jane Doe</a><span>Editor</span>``),
    where a page's text may set a word's letters in elements of their own (a drop cap).
    Read up to about ``limit`` characters, through at most :data:`LINES_MAX_ELEMENTS`
    elements; comments, scripts and styles give no text."""
    parts: list[str] = []
    size = elements = 0
    for event, node in etree.iterwalk(element, events=_LINE_EVENTS):
        tag = node.tag if isinstance(node.tag, str) else None
        if event != "end":
            elements += 1
            if elements > LINES_MAX_ELEMENTS:
                break
        if event == "start":
            text = node.text if tag is not None and tag not in _NO_TEXT_TAGS else None
        else:  # an element's end, or a comment or processing instruction: the text after it
            text = node.tail if node is not element else None
        if tag in BLOCK_TAGS:
            parts.append("\n")
        elif apart and tag is not None:
            parts.append(" ")
        if text:
            parts.append(text)
            size += len(text)
            if size >= limit:
                break
    return "".join(parts)


LINES_MAX_ELEMENTS = 1000
"""Elements :func:`lines_of` walks at most. The elements that hold no text cost their walk
too, and the metadata reads the lines of up to fifty elements for each of its properties,
which may each hold the whole page (nested in one another): the lines of a byline or of a
property value begin within its first few dozen elements."""
_LINE_EVENTS = ("start", "end", "comment", "pi")
"""The events :func:`lines_of` walks: a comment or a processing instruction is one event, not
a start and an end, and the text after it (its tail) is the element's text all the same."""
_NO_TEXT_TAGS = frozenset({"script", "style", "template"})
"""Elements whose text is no text of the page."""


def page_title(tree: etree._Element) -> str | None:
    """The page's headline: its first non-empty ``<h1>``, else its ``og:title``,
    ``twitter:title`` or ``<title>`` (:func:`title_text`); ``None`` when it has none."""
    return title_text(tree) or None


@accel.twin(accel.compiled.title_text)
def title_text(tree: etree._Element) -> str:
    """The text of :func:`page_title`, ``""`` when the page has none, in pure Python: the
    reference the compiled pass reproduces in one walk below ``tree`` and, for a page without
    a ``<h1>`` of text, one walk over the document (where XPath walks it once per source).

    Linear in the page: the text of each ``<h1>`` is read once (:func:`text_of`), and not again
    for the headings nested in one without text. The headings are listed by one XPath query,
    so that their lxml proxies are held together and freed deepest first: a proxy freed alone
    walks up to the closest ancestor that has one, which on nested headings costs the depth."""
    queries = _NAMESPACED_TITLE_QUERIES if namespaced(tree) else _TITLE_QUERIES
    headings = queries.headings(tree)
    assert isinstance(headings, list)
    k = 0
    while k < len(headings):
        heading = headings[k]
        assert isinstance(heading, etree._Element)
        k += 1
        text = collapse_spaces(text_of(heading))
        if text:
            return text
        if len(heading):  # the headings inside, next in line, have no text either
            inside = queries.inner_headings(heading)
            assert isinstance(inside, float)
            k += int(inside)
    for source in queries.sources:
        values = source(tree)
        assert isinstance(values, list)
        for value in values:
            text = collapse_spaces(str(value))
            if text:
                return text
    return ""

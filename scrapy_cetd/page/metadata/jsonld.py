"""The JSON-LD of a page: its scripts' objects (those of ``@graph`` too), the one that
describes the page, and its values as text."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.markup import ARTICLE_TYPES, json_ld_data
from scrapy_cetd.page.metadata.values import MAX_VALUES, clean, split_keywords

_ARTICLE_LIKE = ARTICLE_TYPES | {
    *("webpage", "itempage", "creativework", "videoobject", "recipe"),
    *("discussionforumposting", "socialmediaposting"),
}
"""JSON-LD types whose ``headline``/``name``, dates and authors describe the page itself: a
forum thread's posting (Invision, XenForo, Discourse) is its first post, whose author and
date are the thread's."""
SITE_TYPES = frozenset({"website", "organization", "newsmediaorganization"})
"""JSON-LD types whose ``name`` is the site's."""


def json_ld_items(script: str) -> list[dict[str, Any]]:
    """The objects of one JSON-LD script (:func:`~scrapy_cetd.page.markup.json_ld_data`),
    those of its ``@graph`` too, outermost first."""
    items: list[dict[str, Any]] = []
    queue: list[object] = [json_ld_data(script)]
    walked = 0
    while queue:
        value = queue.pop()
        walked += 1
        if walked & CHECK_EVERY == CHECK_EVERY:
            check_deadline("reading the page's JSON-LD")
        if isinstance(value, list):
            queue.extend(reversed(value))
        elif isinstance(value, dict):
            items.append(value)
            graph = value.get("@graph")
            if graph is not None:
                queue.append(graph)
    return items


def _types(item: dict[str, Any]) -> set[str]:
    declared = item.get("@type")
    names = declared if isinstance(declared, list) else [declared]
    return {name.rsplit("/", 1)[-1].lower() for name in names if isinstance(name, str)}


def main_item(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON-LD object that describes the page: its first article, else its first other
    creative work, else an empty one."""
    for wanted in (ARTICLE_TYPES, _ARTICLE_LIKE):
        for item in items:
            if _types(item) & wanted:
                return item
    return {}


def first_of_type(items: list[dict[str, Any]], types: frozenset[str], key: str) -> object:
    for item in items:
        if _types(item) & types and item.get(key):
            return item[key]
    return None


def nested(item: dict[str, Any], *keys: str) -> object:
    value: object = item
    for key in keys:
        if isinstance(value, list) and value:
            value = value[0]
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def json_string(value: object) -> str | None:
    """A JSON-LD value as text: the first of a list, its character references decoded
    (:func:`json_text`)."""
    if isinstance(value, list) and value:
        value = value[0]
    return clean(json_text(value)) if isinstance(value, str) else None


def json_text(value: str) -> str:
    """A JSON-LD string with its HTML character references decoded: JSON holds text, but
    many CMSs write the HTML-escaped title into it (``Planning Tools &#8211; Caterer``,
    ``Eating Plate &bull; The Nutrition Source``), which would then neither read as written
    nor match the page's ``<h1>`` or ``<title>``. Only references closed by ``;`` are read:
    HTML's legacy names without one (``&reg``, ``&sect``) also begin the parameters of a URL
    (``?w=800&region=us``)."""
    return _REFERENCE.sub(_unescape, value) if "&" in value else value


_REFERENCE = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
"""An HTML character reference closed by ``;``: numeric, hexadecimal or named."""


def _unescape(reference: re.Match[str]) -> str:
    return html.unescape(reference[0])


def image_url(value: object) -> object:
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, dict):
        return value.get("url") or value.get("contentUrl")
    return value


def by_id(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The objects of ``items`` that have an ``@id``, by it (the first of each)."""
    found: dict[str, dict[str, Any]] = {}
    for item in items:
        key = item.get("@id")
        if isinstance(key, str):
            found.setdefault(key, item)
    return found


def person_names(value: object, nodes: dict[str, dict[str, Any]] | None = None) -> Iterator[str]:
    """The names of a JSON-LD ``author``: a string, a person or organisation, or a list. A
    person without a name that gives the ``@id`` of one of ``nodes`` (:func:`by_id`) is that
    object: a ``@graph`` names each thing once and refers to it elsewhere by its ``@id``, as
    Yoast SEO's refers to the article's author (``"author": {"@id": ".../#/schema/person/…"}``)."""
    values = value if isinstance(value, list) else [value]
    for given in values[:MAX_VALUES]:
        person = _referred(given, nodes) if nodes else given
        name = person.get("name") if isinstance(person, dict) else person
        if isinstance(name, list):
            name = name[0] if name else None
        if isinstance(name, str):
            yield json_text(name)


def _referred(value: object, nodes: dict[str, dict[str, Any]]) -> object:
    """``value``, or the object of ``nodes`` whose ``@id`` it gives when it has no name."""
    if isinstance(value, dict) and not value.get("name"):
        reference = value.get("@id")
        if isinstance(reference, str):
            return nodes.get(reference, value)
    return value


def keywords(value: object) -> Iterator[str]:
    """The keywords of a JSON-LD ``keywords`` or ``articleSection``: a list, or a string of
    comma-separated words (:func:`~.values.split_keywords`), read one at a time."""
    values = value if isinstance(value, list) else [value]
    return split_keywords(json_text(item) for item in values[:MAX_VALUES] if isinstance(item, str))

"""The tokens a page declares or is found under, each a feature of its own: its declared
schema.org / Open Graph types, ``itemprop``, ``<meta property>`` and ``rel`` names, the
words of its class names and of its ``<title>``, the folders, words and extension of its URL
path and its host's subdomains."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

from lxml import etree

from scrapy_cetd.page import accel
from scrapy_cetd.page.dom import attribute_owners, local_tag
from scrapy_cetd.page.markup import ARTICLE_TYPES, DISCUSSION_TYPES, PageMarkup
from scrapy_cetd.page.page_types.measures import log_count
from scrapy_cetd.page.words import pieces

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


_CLASSES = etree.XPath("descendant::*/@class", smart_strings=False)


_CLASS_WORD = re.compile(r"[A-Z]?[a-z]{3,20}")
"""A word of a class name: lower-case letters, maybe after one capital (``productCard``)."""


_TITLE_WORD = re.compile(r"[^\W\d_]{3,20}")


MAX_TITLE_CHARS = 300
"""The part of a ``<title>`` read for words (a title is a line, not a page)."""


_SEGMENT_SPLIT = re.compile(r"[-_.+~,;:!%]")


_ALPHA = re.compile(r"[^\W\d_]+\Z")


_DIGITS = re.compile(r"\d+\Z")


_TOKEN_ATTRIBUTES = (("itemprop", None), ("property", None), ("rel", None))


def url_tokens(url: str | None) -> dict[str, float]:
    """The URL's shape (depth, words of its last segment, numeric segments, a query, the
    site's root) and its tokens: folders, subdomains, a one-word last segment, an
    extension."""
    if not url:
        return {}
    try:
        parts = urlsplit(url.strip().lower())
    except ValueError:
        return {}
    folders: dict[str, float] = {}
    depth = 0
    last = ""
    numeric = False
    for segment in _segments(parts.path):
        if depth:
            folders[f"folder:{_shape(last)}"] = 1.0
        last = segment
        numeric = numeric or _DIGITS.match(last) is not None
        depth += 1
    features: dict[str, float] = {
        "url_depth": log_count(depth),
        "url_query": float(bool(parts.query)),
        "url_root": float(not depth),
    }
    features.update(folders)
    if depth:
        stem, dot, extension = last.rpartition(".")
        if dot and stem and _ALPHA.match(extension) and len(extension) <= 5:
            features[f"ext:{extension}"] = 1.0
            last = stem
        words = [word for word in _SEGMENT_SPLIT.split(last) if word]
        features["url_slug_words"] = log_count(len(words))
        if len(words) == 1:
            features[f"last:{_shape(words[0])}"] = 1.0
        for word in words:
            features[f"slug:{_shape(word)}"] = 1.0
    features["url_numeric"] = float(numeric)
    labels = (parts.hostname or "").split(".")
    for label in labels[:-2]:
        if label != "www":
            features[f"host:{_shape(label)}"] = 1.0
    return features


_SLASH = re.compile("/")


def _segments(path: str) -> Iterator[str]:
    """The segments of a URL path that are not empty, split a piece at a time
    (:func:`~scrapy_cetd.page.words.pieces`, each piece cut at a ``/``): a path of a megabyte
    is no list of all its segments (tens of bytes each)."""
    for piece in pieces(path, _SLASH):
        yield from filter(None, piece.split("/"))


def _shape(token: str) -> str:
    """A URL token as a feature: itself when it is letters only, ``<num>`` when it is digits,
    ``<mixed>`` otherwise (an id, a slug with digits)."""
    if _ALPHA.match(token):
        return token
    return "<num>" if _DIGITS.match(token) else "<mixed>"


def class_tokens(body: etree._Element) -> dict[str, float]:
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


def title_tokens(document: etree._Element) -> dict[str, float]:
    """The words (letters only, 3 to 20 of them) of the document's ``<title>``."""
    title = document.getroottree().getroot().findtext("head/title") or ""
    words = _TITLE_WORD.findall(title[:MAX_TITLE_CHARS].lower())
    return {f"title:{word}": 1.0 for word in words}


def markup_tokens(tree: etree._Element, markup: PageMarkup) -> dict[str, float]:
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

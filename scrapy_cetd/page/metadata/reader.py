"""The metadata of one page: its sources read in one walk over the tree, and the choice among
them, in order of trust, for each field of :class:`~scrapy_cetd.result.Metadata`."""

# htmldate and py3langid load data when imported: they are imported when first needed.
# ruff: noqa: PLC0415

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterable, Sequence
from functools import cache, partial
from itertools import chain
from typing import Any

from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import attribute_owners, local_tag, namespaced
from scrapy_cetd.page.markup import lines_of, text_of
from scrapy_cetd.page.metadata.authors import (
    author_name,
    first_byline,
    first_last,
    first_names,
    item_scope,
    lazy,
    raw_value,
)
from scrapy_cetd.page.metadata.date_search import bound_dateparser, html_tree, published_date
from scrapy_cetd.page.metadata.declared_dates import earliest, first_iso, iso
from scrapy_cetd.page.metadata.jsonld import (
    SITE_TYPES,
    by_id,
    first_of_type,
    image_url,
    json_ld_items,
    json_string,
    keywords,
    main_item,
    nested,
    person_names,
)
from scrapy_cetd.page.metadata.language import language_identifier, language_tag, page_language
from scrapy_cetd.page.metadata.titles import headline
from scrapy_cetd.page.metadata.values import (
    MAX_PROPERTY,
    MAX_TEXT,
    MAX_VALUES,
    absolute_url,
    clean,
    split_keywords,
    unique,
    within,
)
from scrapy_cetd.result import Metadata

_SOURCES = (
    ("type", "application/ld+json"),
    ("itemprop", None),
    ("property", None),
    ("name", None),
    ("rel", None),
    ("http-equiv", None),
    ("lang", None),
)
"""The attributes of the elements :func:`page_metadata` reads, found in one walk."""
_META_TITLE = ("og:title", "twitter:title", "citation_title", "dc.title", "dcterms.title")
_META_PUBLISHED = (
    *("article:published_time", "og:article:published_time", "citation_publication_date"),
    *("citation_date", "citation_online_date", "dc.date", "dcterms.created", "dcterms.issued"),
    *("dc.date.issued", "parsely-pub-date", "sailthru.date", "pubdate", "publishdate"),
    *("date", "article.published", "published_time"),
)
_META_MODIFIED = ("article:modified_time", "og:updated_time", "dcterms.modified", "lastmod")
_META_AUTHORS = (
    *("author", "article:author", "citation_author", "dc.creator", "parsely-author"),
    *("sailthru.author", "twitter:creator"),
)
_META_SITE = ("og:site_name", "application-name", "citation_journal_title", "twitter:site")
_HANDLE = re.compile(r"@(\w+)")
"""An account's handle, as ``twitter:site`` names the site's account (``@GitLab``)."""
_META_DESCRIPTION = ("og:description", "description", "twitter:description", "dc.description")
_META_IMAGE = ("og:image", "og:image:url", "og:image:secure_url", "twitter:image")
_META_TAGS = ("article:tag", "keywords", "news_keywords", "citation_keywords", "parsely-tags")
_META_SECTIONS = ("article:section", "parsely-section")


def page_metadata(
    tree: etree._Element,
    *,
    url: str | None = None,
    text: str | None = None,
    page_type: str | None = None,
) -> Metadata:
    """The :class:`Metadata` of the document that holds ``tree``; ``url`` is the page's address
    (for its date and for absolute links), ``text`` its main content (for its language),
    ``page_type`` its type (:data:`~scrapy_cetd.page.page_types.PAGE_TYPES`): on an article
    whose markup gives no date, the dates written next to its headline, then anywhere on the
    page, are read too.

    The tree is read, never modified. A tree parsed as XML, whose elements are in the XHTML
    namespace, is read as the page parsed as HTML (:func:`.date_search.html_tree`): the sources
    are found by their tags' bare names."""
    return read_metadata(tree, url=url, text=text, page_type=page_type)[0]


def read_metadata(
    tree: etree._Element,
    *,
    url: str | None = None,
    text: str | None = None,
    page_type: str | None = None,
    content_language: str | None = None,
) -> tuple[Metadata, tuple[str, ...]]:
    """:func:`page_metadata`, and the notes of what the time budget cut short (a
    :attr:`~scrapy_cetd.result.NoteKind.DATE_SEARCH_CUT_SHORT` note when the date search was), for
    the result's ``notes``. ``content_language`` is the value of the HTTP ``Content-Language``
    header the page was served with: its language when the page's own markup (``<html lang>``,
    ``<meta http-equiv="Content-Language">``) declares none, as the page is more specific than
    the server's default, and before ``og:locale``."""
    root = tree.getroottree().getroot()
    if namespaced(root):
        root = html_tree(root)
    reader = _Reader(root, url, content_language=content_language)
    found = reader.metadata(text, page_type)
    return found, reader.notes


def load_metadata_libraries() -> None:
    """Import htmldate, let it load dateparser and read one date with it, and load py3langid's
    model now (3 to 4.5 s of CPU time, several times that in wall time on a loaded
    machine), rather than in the first call that needs them: a worker process does it before
    it takes a page, so that no page's time budget pays for it. Done once per process (the
    first thread loads, the others wait); a call after that returns at once."""
    with _LIBRARIES_LOADING:
        _loaded_libraries()


_LIBRARIES_LOADING = threading.Lock()


@cache
def _loaded_libraries() -> None:
    import lxml.html
    from htmldate import find_date

    # htmldate imports dateparser when its extensive mode first needs it: a Spanish date,
    # which htmldate's own patterns do not read, loads it now, and a text no language reads
    # as a date makes dateparser load every language it knows.
    for text in ("martes 8 de noviembre de 2022", "ab 12 cd 2021 ef 77"):
        page = lxml.html.fromstring(f"<html><body><p>{text}</p></body></html>")
        with contextlib.suppress(Exception):  # a third-party heuristic must not stop the start
            find_date(page, extensive_search=True, original_date=True)
    with contextlib.suppress(Exception):  # without it, each page's search tries again
        bound_dateparser()
    language_identifier()


class _Reader:
    """The sources of one page, read once; :meth:`metadata` chooses among them."""

    def __init__(
        self, root: etree._Element, url: str | None, *, content_language: str | None = None
    ) -> None:
        self.root = root
        self.url = url
        self.content_language = content_language
        """The HTTP ``Content-Language`` header's value, when the page came with one."""
        self.meta: dict[str, list[str]] = {}
        self.links: dict[str, str] = {}
        self.declared_language: str | None = None
        self.json_items: list[dict[str, Any]] = []
        self.microdata: dict[str, list[etree._Element]] = {}
        self.notes: tuple[str, ...] = ()
        """What the time budget cut short, set by :meth:`metadata`."""
        for k, element in enumerate(attribute_owners(root, _SOURCES)):
            self._read_element(element)
            if k & CHECK_EVERY == CHECK_EVERY:
                check_deadline("reading the page's metadata")

    def _read_element(self, element: etree._Element) -> None:
        get = element.get
        tag = local_tag(element)
        if tag == "meta":
            content = clean(get("content"))
            if content:
                key = (get("property") or get("name") or "").strip().lower()
                if key:
                    self._add_meta(key, content)
                if (get("http-equiv") or "").strip().lower() == "content-language":
                    self._add_meta("content-language", content)
        elif tag == "link":
            for rel in (get("rel") or "").lower().split():
                if rel not in self.links and get("href"):
                    self.links[rel] = (get("href") or "").strip()
        elif tag == "script" and get("type") == "application/ld+json":
            self.json_items.extend(json_ld_items(element.text or ""))
        elif tag == "html" and self.declared_language is None:
            self.declared_language = language_tag(get("lang"))
        itemprop = get("itemprop")
        if itemprop:
            for name in itemprop.split():
                found = self.microdata.setdefault(name, [])
                if len(found) < MAX_VALUES:
                    found.append(element)

    def _add_meta(self, key: str, content: str) -> None:
        """Keep ``content`` under ``key``, up to :data:`MAX_VALUES` values of a key."""
        values = self.meta.setdefault(key, [])
        if len(values) < MAX_VALUES:
            values.append(content)

    def _first_meta(self, keys: Iterable[str]) -> str | None:
        for key in keys:
            values = self.meta.get(key)
            if values:
                return values[0]
        return None

    def _all_meta(self, keys: Iterable[str]) -> list[str]:
        return [value for key in keys for value in self.meta.get(key, ())]

    def _microdata_value(self, name: str) -> str | None:
        for element in self.microdata.get(name, ()):
            value = _element_value(element)
            if value:
                return value
        return None

    def metadata(self, text: str | None, page_type: str | None = None) -> Metadata:
        article = main_item(self.json_items)
        site_name = (
            json_string(first_of_type(self.json_items, SITE_TYPES, "name"))
            or self._first_meta(_META_SITE[:3])
            or json_string(nested(article, "publisher", "name"))
            or _account_name(self._first_meta(_META_SITE[3:]))
        )
        declared = (
            first_iso(self._all_meta(_META_PUBLISHED[:2]))
            or iso(json_string(article.get("datePublished")))
            or iso(json_string(article.get("dateCreated")))
            or iso(self._microdata_value("datePublished"))
            or first_iso(self._all_meta(_META_PUBLISHED[2:]))
        )
        modified = (
            iso(json_string(article.get("dateModified")))
            or iso(self._microdata_value("dateModified"))
            or first_iso(self._all_meta(_META_MODIFIED))
        )
        # htmldate's fallback to the modification date matters only when nothing else dates
        # the page: a declared publication date is the earlier one anyway
        searched = published_date(self.root, self.url, page_type, None if declared else modified)
        published = earliest(declared, searched.date)
        if published is None and searched.cut_short is not None:
            self.notes = (searched.cut_short,)
        canonical = self.links.get("canonical") or self._first_meta(("og:url",))
        image = json_string(image_url(article.get("image"))) or self._first_meta(_META_IMAGE)
        if image is None:
            image = self._microdata_value("image")
        authors = self._authors(article)
        return Metadata(
            title=within(self._title(article, site_name, authors), MAX_TEXT),
            authors=authors,
            published=published,
            modified=modified,
            site_name=within(site_name, MAX_TEXT),
            language=self._language(text),
            description=within(
                json_string(article.get("description"))
                or self._first_meta(_META_DESCRIPTION)
                or self._microdata_value("description"),
                MAX_PROPERTY,
            ),
            canonical_url=absolute_url(canonical, self.url),
            image=absolute_url(image, self.url),
            tags=unique(
                chain(keywords(article.get("keywords")), split_keywords(self._all_meta(_META_TAGS)))
            ),
            categories=unique(
                chain(keywords(article.get("articleSection")), self._all_meta(_META_SECTIONS))
            ),
        )

    def _titles(self, article: dict[str, Any]) -> list[str | None]:
        """Every structured title: JSON-LD's and microdata's ``headline``, each meta title."""
        return [
            json_string(article.get("headline")),
            self._microdata_value("headline"),
            *self._all_meta(_META_TITLE),
        ]

    def _title(
        self, article: dict[str, Any], site_name: str | None, authors: Sequence[str]
    ) -> str | None:
        structured = (
            json_string(article.get("headline")),
            self._microdata_value("headline"),
            self._first_meta(_META_TITLE),
        )
        return headline(
            self.root,
            structured,
            json_string(article.get("name")),
            site_name=site_name,
            url=self.url,
            authors=authors,
        )

    def _authors(self, article: dict[str, Any]) -> tuple[str, ...]:
        nodes = by_id(self.json_items)
        return first_names(
            [
                person_names(article.get("author"), nodes),
                person_names(article.get("creator"), nodes),
                (raw_value(author_name(element)) for element in self._microdata_authors()),
                self._all_meta(_META_AUTHORS[:2]),
                (first_last(name) for name in self._all_meta(_META_AUTHORS[2:3])),
                self._all_meta(_META_AUTHORS[3:]),
                lazy(partial(first_byline, titles=self._titles(article)), self.root),
            ]
        )

    def _microdata_authors(self) -> list[etree._Element]:
        """The microdata authors of the first item that has any: on a forum or a page with
        reviews, each post's item names its own author, and the page's is the first."""
        found = self.microdata.get("author", []) + self.microdata.get("creator", [])
        if not found:
            return found
        scope = item_scope(found[0])
        return [element for element in found if item_scope(element) is scope]

    def _language(self, text: str | None) -> str | None:
        declared = (
            self.declared_language
            or language_tag(self._first_meta(("content-language",)))
            or language_tag(self.content_language)
            or language_tag(self._first_meta(("og:locale",)))
        )
        return page_language(declared, text)


def _account_name(value: str | None) -> str | None:
    """The site's name in ``twitter:site``: the handle of the site's account without its
    ``@`` (``@GitLab`` gives ``GitLab``), as a site's name is written; a value that is no
    handle, as it stands."""
    if value is None:
        return None
    handle = _HANDLE.fullmatch(value)
    return handle.group(1) if handle else value


def _element_value(element: etree._Element) -> str | None:
    """A microdata property's value: its ``content``, ``datetime``, link or text (its blocks'
    texts apart: ``<p>Light shoe.</p><h2>Specs</h2>`` is ``Light shoe. Specs``)."""
    for attribute in ("content", "datetime"):
        value = element.get(attribute)
        if value is not None:
            return clean(value)
    tag = local_tag(element)
    if tag in ("a", "link"):
        return clean(element.get("href")) or clean(text_of(element))
    if tag in ("img", "meta"):
        return clean(element.get("src"))
    return clean(lines_of(element, MAX_PROPERTY)[:MAX_PROPERTY])

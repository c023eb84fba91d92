"""What a page says about itself besides its text: headline, authors, dates, site, language.

:func:`page_metadata` reads the sources a news crawl relies on, in order of trust: JSON-LD
(``@graph`` included), microdata, the Open Graph / Twitter / ``article:*`` / ``citation_*`` and
Dublin Core ``<meta>`` tags, a byline next to the headline, and the publication date found by
`htmldate <https://htmldate.readthedocs.io>`_ (``<time>`` elements, the date in the URL, the
patterns of common CMSs; on an article, the dates written next to its headline, then
anywhere on the page). The
language is the page's declared one checked against the text by `py3langid
<https://pypi.org/project/py3langid/>`_, whose model ships inside its package.

Every step is linear in the page: the scripts and tags are found by one walk over the
attributes, each JSON-LD script is parsed once and walked iteratively, and at most a bounded
number of element texts is read. Nothing raises on any input: a value that cannot be read is
left out.
"""

# htmldate and py3langid load data when imported: they are imported when first needed.
# ruff: noqa: PLC0415
# The separators of titles and bylines include the dashes typography puts there.
# ruff: noqa: RUF001

from __future__ import annotations

import calendar
import contextlib
import email.utils
import html
import json
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from functools import cache
from itertools import islice
from typing import Any
from urllib.parse import urljoin, urlsplit

import lxml.html
from lxml import etree

from scrapy_cetd.limits import PARSER_MAX_DEPTH, check_deadline, time_left
from scrapy_cetd.page.dom import attribute_owners, has_depth, local_tag, namespaced
from scrapy_cetd.page.markup import ARTICLE_TYPES, lines_of, text_of
from scrapy_cetd.page.parse import to_tree
from scrapy_cetd.result import Metadata

__all__ = ["Metadata", "load_libraries", "page_metadata"]


_MAX_SCRIPT = 2_000_000
"""Characters of one JSON-LD script that are parsed; a longer one is skipped (no page's
metadata needs more, and :func:`json.loads` holds the whole structure in memory)."""
_MAX_VALUES = 50
"""Authors, tags or categories kept from one source."""
_MAX_WORDS = 6
"""Words of an author's name: a longer "name" is a sentence (a biography, a job title)."""
_CHECK_EVERY = 1024
"""Elements read, or JSON-LD nodes walked, between two
:func:`~scrapy_cetd.limits.check_deadline` calls."""

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

_ARTICLE_LIKE = ARTICLE_TYPES | {"webpage", "itempage", "creativework", "videoobject", "recipe"}
"""JSON-LD types whose ``headline``/``name``, dates and authors describe the page itself."""
_SITE_TYPES = frozenset({"website", "organization", "newsmediaorganization"})
"""JSON-LD types whose ``name`` is the site's."""

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
_META_DESCRIPTION = ("og:description", "description", "twitter:description", "dc.description")
_META_IMAGE = ("og:image", "og:image:url", "og:image:secure_url", "twitter:image")
_META_TAGS = ("article:tag", "keywords", "news_keywords", "citation_keywords", "parsely-tags")
_META_SECTIONS = ("article:section", "parsely-section")

_ISO_DATE = re.compile(
    r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})"
    r"(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d{1,9})?\s?(Z|[+-]\d{2}:?\d{2})?)?"
)
"""An ISO 8601 date at the start of a value, with an optional time and zone."""
_INTERNET_DATE = re.compile(
    r"\s*(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{1,2}:\d{2}(?::\d{2})?\s+"
    r"(?:[+-]\d{4}|UT|GMT|Z|[ECMP][SD]T)(?:\s*\([^()]*\))?\s*$",
    re.IGNORECASE,
)
"""An e-mail and HTTP date (RFC 5322 §3.3, §4.3): a day, an English month abbreviation, a
year, a time and a zone: an offset of four digits or one of the names the RFC defines, maybe
followed by a comment (``+0100 (CET)``). Another zone name (``CET``) says nothing certain: the
date is not read."""
_URL_SUFFIX = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$", re.IGNORECASE)
"""A bare host name (``example.com``), a common title suffix."""
_TITLE_SEPARATORS = (" | ", " - ", " – ", " — ", " :: ", " · ", " • ", " « ", " » ", " / ")
"""What separates a headline from the site's name in ``<title>``."""
_BYLINE_PREFIX = re.compile(
    r"^(?:(?:written|posted|words|reported|published)\s+by|by|von|par|por|door|av|af)\b[\s:]*",
    re.IGNORECASE,
)
"""The byline prefixes trafilatura strips from authors' names ("by" and its equivalents in the
languages it names), and no other words: the rest of the cleaning reads punctuation, digits
and case, whatever the language."""
_NAME_SEPARATORS = re.compile(r"\s*(?:[;|/&•·]|,(?!\s*(?:jr|sr)\b))\s*", re.IGNORECASE)
"""Between two names of one byline string."""
_FIELD_SEPARATORS = ("|", "•", "·")
"""What parts a byline's fields (the names, a date, a reading time), rather than two names."""
_BYLINE_CUT = re.compile(r"\s+[-–—]\s+|\d|\S*@|https?:|\(|\[")
"""Where a byline's name part ends: a dash between spaces, a digit (a date, a time), an
e-mail address or handle, a link, a parenthesis."""
_MAX_CONNECTOR = 3
"""The most letters of a lower-case word between a byline's name and its date (``on``, ``le``,
``am``), joined to the name by a space alone: a name's last word is longer or capitalised,
and a credit after a comma (``Jane Doe, dpa 12.03.2024``) is a name of its own."""
_CREDENTIAL = re.compile(r"^(?:[A-Z][A-Za-z]?\.?){1,4}$|^[A-Z]{2,6}$")
"""A degree or credential after a name (``MS``, ``PhD``, ``M.D.``), dropped from the authors."""
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]+")
"""Control characters but tab and line breaks, noncharacters, and lone surrogates."""
_LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$")
_BYLINE_CLASS = etree.XPath(
    "(//h1)[1]/following::*[@rel='author' or contains(@class,'byline')"
    " or contains(@class,'author') or contains(@id,'byline')][position()<=3]"
)
"""The first elements after the headline marked as a byline or an author."""
_UNKNOWN_ZONE = r"tzname .* identified but not understood"
"""The start of the warning dateutil gives for a zone abbreviation it does not know."""
_DATEUTIL_PARSER = r"dateutil\.parser\._parser"
"""The module that gives it."""
_MAX_HEADINGS = 20
"""``<h1>`` elements read for the headline."""
_MAX_TEXT = 1000
"""Characters of a title, a heading, a byline or a name read: a longer text is none of them,
and reading it whole would make each comparison cost its length."""
_MAX_PROPERTY = 10_000
"""Characters of a microdata property's text read, and of a description (a description may be
long)."""
_MAX_URL = 8192
"""Characters of the longest canonical URL or image URL kept (the longest request line common
servers accept); a longer one is an inlined image or junk."""
_MAX_LANGUAGE_TAG = 35
"""Characters of the longest language tag kept: what BCP 47 (RFC 5646 §4.4.1) asks every
implementation to be able to hold."""
_WORD = re.compile(r"[^\W_]+")
"""A word of a title, for comparing titles (letters and digits of any script)."""
_HEADING_IN_TITLE = 0.75
"""Share of an ``<h1>``'s words found in ``<title>`` for the two to name the same page."""
_UNDATED_TYPES = frozenset({"product", "collection"})
"""Page types that are no dated publication: the dates a product or a category of products
shows are those of its offers, its reviews, its stock and its copyright, which htmldate takes
for the page's; only the date the page declares is its own."""
_SECTION_LEVELS = 3
"""Levels above the headline's ``<h1>`` searched for an article's written date: the
headline's block, the header that holds it with the byline, and the article around them.
Fewer miss the bylines set beside the headline's block; more reach the sidebars and the
footer and their dates."""
_STRUCTURED_IN_TITLE = 0.5
"""Share of a structured title's words found in the page's agreeing ``<title>`` or ``<h1>``
below which it names something else."""
_SEGMENT_CHARS = (7, 51)
_SEGMENT_DIGITS = (4, 18)
"""The lengths and digits of the texts htmldate's extensive mode reads as dates (its
``MIN_SEGMENT_LEN``, ``MAX_SEGMENT_LEN`` and digit bounds)."""
_DIGITS = "string-length(translate(., translate(., '0123456789', ''), ''))"
_DATE_CANDIDATES = etree.XPath(
    f"count(.//text()[string-length(normalize-space()) >= {_SEGMENT_CHARS[0]}"
    f" and string-length(normalize-space()) <= {_SEGMENT_CHARS[1]}"
    f" and {_DIGITS} >= {_SEGMENT_DIGITS[0]} and {_DIGITS} <= {_SEGMENT_DIGITS[1]}])"
)
"""The number of such texts below an element, counted by libxml2."""
_EXTENSIVE_MAX_CANDIDATES = 200
"""The most texts that look like dates (:func:`_date_candidates`) in a part of the page that
htmldate's extensive mode reads. Each one it cannot read itself goes to dateparser, about ten
milliseconds each (a part of 300 dated paragraphs takes three seconds), in a call that no time
budget can stop. The parts of the shared datasets' pages that it dates hold 1 to 100 (3 for
the median whole page)."""
_PLACEHOLDER = re.compile(
    r"(?:(?:undefined|null|none|nan|\[object object\])\s*)+\Z|.*(?:\{\{|\}\}|\$\{|<%)",
    re.IGNORECASE,
)
"""A value a script or a template left where a name should be: JavaScript's ``undefined``,
``null`` and ``NaN`` (alone or repeated: ``undefined undefined``, a first and a last name both
unset), an object written as text, a template's unfilled ``{{author}}``."""
_SECONDS_PER_CHARACTER = 1e-6
"""The time htmldate's fast mode may take per character of a page's text, twice the worst it
was seen to take (its patterns over the serialised page: half a second a megabyte of a text
full of years): a page is searched only when the time budget left allows for it; otherwise it
is dated from what it declares."""
_SECONDS_PER_CANDIDATE = 0.025
"""The worst time htmldate's extensive mode takes per text that looks like a date (dateparser
tries every language it knows on a text it cannot read, 18 to 25 milliseconds): a part of the
page is read only when the time budget left allows for all of them."""
_EXTENSIVE_MAX_ELEMENTS = 10_000
"""The most elements in a part of the page that htmldate's extensive mode reads. Its XPath over
the text of the part's paragraphs and headings costs the number of texts times their depth
(libxml2 sorts them into document order by their ancestors): 100,000 lines nested 2,000 deep
take five seconds, in a call that cannot be stopped. The parts of the shared datasets' pages
it reads hold at most 3,100."""
_ELEMENTS = etree.XPath("count(.//*)")
_HTMLDATE_MAX_READ = 20_000_000
"""The most nodes and characters htmldate may read in the elements it reads whole. It reads the
whole text of each element whose class, id or ``itemprop`` names a date, a byline or a footer,
and of each ``<footer>``, ``<small>``, ``<abbr>``, ``<title>`` and ``<h1>``, so that such
elements nested in one another read the same nodes and text again and again: 1,000 nested
``<div class="byline">`` around 1.3 MB of text took 39 s, in a call that no time budget can
stop. It reads about 30 ns a character, so this is about half a second. On the shared datasets'
pages those elements hold at most 0.8 million characters (extensive mode)."""
_HTMLDATE_MAX_COMMENTS = 20_000
"""The most comments in a part of the page that htmldate reads: lxml reads the text of a run
of sibling comments in a time that grows as its square (100,000 take a second, 1.3 million
six minutes, in htmldate's last search of its fast mode). The shared datasets' pages hold at
most 4,325."""
_HTMLDATE_MAX_DEPTH = PARSER_MAX_DEPTH
"""The depth from which a page is dated only from what it declares: deeper than a parse of HTML
gives, so only a tree given already parsed. htmldate searches a copy of the page, and makes
and drops one lxml proxy per element it reads there; lxml frees a dropped proxy by walking up
to the closest ancestor that has one, so that its search costs the elements times the depth
(80,000 nested ``<div>`` given as a tree took 23 s, in a call no time budget stops)."""
_DEEPEST_PROBE = 4096
"""The deepest level :func:`~scrapy_cetd.page.dom.has_depth` looks for."""
_TEXT_LENGTH = etree.XPath("string-length()")
_NODES = etree.XPath("count(descendant-or-self::node())")
_COMMENTS = etree.XPath("count(.//comment())")
_DECLARED_DATES = etree.XPath(
    "//meta | //link[@rel='canonical'] | //script[@type='application/ld+json']"
)
"""The elements where a page declares its dates, which htmldate reads first."""
_DATEPARSER_CALLS = 50
"""The most texts htmldate may send to dateparser while it dates a page (in all its searches):
dateparser tries every language it knows on a text it cannot read (15 to 25 ms each), in a
search no time budget can stop, and a page can hold thousands of such texts where htmldate
looks (``<time>``, ``<meta>``, elements of a date class). Past this number, or when the time
budget left is shorter than one such text, the search stops with no date. The shared datasets'
pages send at most 35 in one search."""
_DATEPARSER_LEFT: ContextVar[int | None] = ContextVar("scrapy_cetd_dateparser_left", default=None)
"""The texts the search running in this context may still send to dateparser (``None``: no
search of ours is running, and htmldate's other callers are not bounded)."""


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
    namespace, is read as the page parsed as HTML (:func:`_html_tree`): the sources are found
    by their tags' bare names."""
    root = tree.getroottree().getroot()
    if namespaced(root):
        root = _html_tree(root)
    reader = _Reader(root, url)
    return reader.metadata(text, page_type)


def load_libraries() -> None:
    """Import htmldate, let it load dateparser and read one date with it, and load py3langid's
    model now (one to three seconds), rather than in the first call that needs them: a worker
    process does it before it takes a page, so that no page's time budget pays for it."""
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
        _bound_dateparser()
    language_identifier()


class _Reader:
    """The sources of one page, read once; :meth:`metadata` chooses among them."""

    def __init__(self, root: etree._Element, url: str | None) -> None:
        self.root = root
        self.url = url
        self.meta: dict[str, list[str]] = {}
        self.links: dict[str, str] = {}
        self.declared_language: str | None = None
        self.json_items: list[dict[str, Any]] = []
        self.microdata: dict[str, list[etree._Element]] = {}
        for k, element in enumerate(attribute_owners(root, _SOURCES)):
            self._read_element(element)
            if not k % _CHECK_EVERY:
                check_deadline("reading the page's metadata")

    def _read_element(self, element: etree._Element) -> None:
        get = element.get
        tag = local_tag(element)
        if tag == "meta":
            key = (get("property") or get("name") or "").strip().lower()
            content = _clean(get("content"))
            if key and content and len(self.meta.setdefault(key, [])) < _MAX_VALUES:
                self.meta[key].append(content)
            equiv = (get("http-equiv") or "").strip().lower()
            if equiv == "content-language" and content:
                self.meta.setdefault("content-language", []).append(content)
        elif tag == "link":
            for rel in (get("rel") or "").lower().split():
                if rel not in self.links and get("href"):
                    self.links[rel] = (get("href") or "").strip()
        elif tag == "script" and get("type") == "application/ld+json":
            self.json_items.extend(_json_ld_items(element.text or ""))
        elif tag == "html" and self.declared_language is None:
            self.declared_language = _language_tag(get("lang"))
        itemprop = get("itemprop")
        if itemprop:
            for name in itemprop.split():
                found = self.microdata.setdefault(name, [])
                if len(found) < _MAX_VALUES:
                    found.append(element)

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
        article = _main_item(self.json_items)
        site_name = (
            _string(_first(self.json_items, _SITE_TYPES, "name"))
            or self._first_meta(_META_SITE[:3])
            or _string(_nested(article, "publisher", "name"))
            or self._first_meta(_META_SITE[3:])
        )
        declared = (
            _first_iso(self._all_meta(_META_PUBLISHED[:2]))
            or _iso(_string(article.get("datePublished")))
            or _iso(_string(article.get("dateCreated")))
            or _iso(self._microdata_value("datePublished"))
            or _first_iso(self._all_meta(_META_PUBLISHED[2:]))
        )
        published = _earliest(declared, self.published(page_type))
        modified = (
            _iso(_string(article.get("dateModified")))
            or _iso(self._microdata_value("dateModified"))
            or _first_iso(self._all_meta(_META_MODIFIED))
        )
        canonical = self.links.get("canonical") or self._first_meta(("og:url",))
        image = _string(_image(article.get("image"))) or self._first_meta(_META_IMAGE)
        if image is None:
            image = self._microdata_value("image")
        return Metadata(
            title=_within(self._title(article, site_name), _MAX_TEXT),
            authors=self._authors(article),
            published=published,
            modified=modified,
            site_name=_within(site_name, _MAX_TEXT),
            language=self._language(text),
            description=_within(
                _string(article.get("description"))
                or self._first_meta(_META_DESCRIPTION)
                or self._microdata_value("description"),
                _MAX_PROPERTY,
            ),
            canonical_url=_url_within(self._absolute(canonical)),
            image=_url_within(self._absolute(image)),
            tags=_unique(
                [*_keywords(article.get("keywords")), *_split_keywords(self._all_meta(_META_TAGS))]
            ),
            categories=_unique(
                [*_keywords(article.get("articleSection")), *self._all_meta(_META_SECTIONS)]
            ),
        )

    def _absolute(self, link: str | None) -> str | None:
        if not link:
            return None
        if self.url:
            try:
                return urljoin(self.url, link)
            except ValueError:
                return link
        return link

    def _title(self, article: dict[str, Any], site_name: str | None) -> str | None:
        document_title = _clean(_document_title(self.root))
        heading = _headline_heading(self.root, document_title)
        structured = [
            _string(article.get("headline")),
            self._microdata_value("headline"),
            self._first_meta(_META_TITLE),
        ]
        if heading and document_title and _share(heading, document_title) >= _HEADING_IN_TITLE:
            # The page's two visible titles agree: a structured one that neither holds is a
            # summary, a teaser or a type's description, not this page's headline.
            structured = [
                candidate
                for candidate in structured
                if candidate
                and max(_share(candidate, heading), _share(candidate, document_title))
                >= _STRUCTURED_IN_TITLE
            ]
        candidates = [*structured, heading, document_title, _string(article.get("name"))]
        for candidate in candidates:
            if candidate:
                return _strip_site_name(_headed(candidate, heading), site_name, self.url)
        return None

    def _authors(self, article: dict[str, Any]) -> tuple[str, ...]:
        sources: list[Iterable[str]] = [
            _person_names(article.get("author")),
            _person_names(article.get("creator")),
            (_raw_value(_author_name(element)) for element in self._microdata_authors()),
            self._all_meta(_META_AUTHORS[:2]),
            (_first_last(name) for name in self._all_meta(_META_AUTHORS[2:3])),
            self._all_meta(_META_AUTHORS[3:]),
            _lazy(_first_byline, self.root),  # an XPath over the page: only when needed
        ]
        for k, source in enumerate(sources):
            names = _unique(name for raw in source for name in _clean_names(raw))
            if names:
                return _recased(names, sources[k + 1 :]) if any(map(_shouted, names)) else names
        return ()

    def _microdata_authors(self) -> list[etree._Element]:
        """The microdata authors of the first item that has any: on a forum or a page with
        reviews, each post's item names its own author, and the page's is the first."""
        found = self.microdata.get("author", []) + self.microdata.get("creator", [])
        if not found:
            return found
        scope = _item_scope(found[0])
        return [element for element in found if _item_scope(element) is scope]

    def _language(self, text: str | None) -> str | None:
        declared = self.declared_language or _language_tag(self._first_meta(("content-language",)))
        if declared is None:
            locale = self._first_meta(("og:locale",))
            declared = _language_tag(locale.replace("_", "-") if locale else None)
        identified = None
        if text and (declared is None or len(text) >= _MIN_OVERRULE):
            if declared is not None and _agrees(declared, text):
                return declared
            identified = _identify_language(text)  # too short a text cannot overrule: not read
        if identified is None:
            return declared
        if declared is None:
            return identified[0]
        language, confident = identified
        if confident and declared.split("-")[0].lower() != language:
            return language
        return declared

    def published(self, page_type: str | None) -> str | None:
        """The publication date htmldate finds: in its fast mode on the whole page, then, on
        an article where that finds none, in its extensive mode (the dates written in the
        text, ``November 2, 2022``) on the headline's section (:func:`_headline_section`),
        then on the whole page.

        An article is dated content, and its date is often written in a byline next to its
        headline with no markup that the fast mode reads; the headline's section is searched
        first, as the whole page also holds the dates of sidebars and comments, and the
        extensive mode keeps the oldest date it reads. That mode completes a year or a month
        that it reads alone (a footer's copyright year) to the first of the month: such a date
        is no day of publication, and is not taken (:func:`_not_first_of_month`). A part of
        the page is read only when that search is bounded (:func:`_affords_extensive`), and
        the page at all only when htmldate reads a bounded part of it (:func:`_reads_little`)
        and it nests less than :data:`_HTMLDATE_MAX_DEPTH` deep, else only the dates it
        declares (:func:`_declarations`): htmldate's search cannot be stopped once started.
        Its searches send at most :data:`_DATEPARSER_CALLS` texts to
        dateparser in all (:class:`_BoundedDateParser`).
        Other types (listings, services, documentation) carry the dates of other things
        (comments, releases) and get the fast mode alone. A shop's pages
        (:data:`_UNDATED_TYPES`) are not searched at all: ``None``."""
        if page_type in _UNDATED_TYPES:
            return None
        allowance = _DATEPARSER_LEFT.set(_DATEPARSER_CALLS)
        try:
            return self._published(page_type)
        finally:
            _DATEPARSER_LEFT.reset(allowance)

    def _published(self, page_type: str | None) -> str | None:
        root = _html_tree(self.root)
        characters = _count(_TEXT_LENGTH, root)
        if (
            has_depth(root, _HTMLDATE_MAX_DEPTH)
            or not _reads_little(root, extensive=False, characters=characters)
            or not _affords_search(characters)
        ):
            return self._htmldate(_declarations(root), extensive=False)
        found = self._htmldate(root, extensive=False)
        if found is not None or page_type != "article":
            return found
        section = _headline_section(root)
        for part in (root,) if section is None else (section, root):
            check_deadline("dating the article")
            if not _affords_extensive(part):
                break  # the whole page holds the section's and has less time left
            found = self._htmldate(part, extensive=True)
            if found is not None and _not_first_of_month(found):
                return found
        return None

    def _htmldate(self, root: etree._Element, *, extensive: bool) -> str | None:
        from htmldate import find_date  # imported when asked for: its import takes a while

        _ignore_unknown_zones()
        try:
            _bound_dateparser()
            found = find_date(root, extensive_search=extensive, original_date=True, url=self.url)
        except Exception:  # a heuristic that fails, or stops (_DatingStoppedError), loses no more
            return None
        return found if isinstance(found, str) else None


def _html_tree(root: etree._Element) -> etree._Element:
    """``root``, or, when it is not a tree of :mod:`lxml.html` (``lxml.etree.HTML``, XHTML
    parsed as XML), the same page parsed by it: htmldate reads no other tree, and its rules
    (and the bounds that follow them) name tags without a namespace."""
    if not isinstance(root, lxml.html.HtmlElement):
        root = to_tree(etree.tostring(root, encoding="unicode"))  # parsed as a crawl parses it
    return root


class _DatingStoppedError(Exception):
    """htmldate's search used up its texts for dateparser (:data:`_DATEPARSER_CALLS`) or the
    time budget."""


class _BoundedDateParser:
    """dateparser's parser as htmldate calls it, with the allowance of the search running in
    this context (:data:`_DATEPARSER_LEFT`) taken before each text."""

    def __init__(self, parser: Any) -> None:
        self.parser = parser

    def get_date_data(self, text: str) -> Any:
        left = _DATEPARSER_LEFT.get()
        if left is not None:
            budget = time_left()
            if left <= 0 or (budget is not None and budget < _SECONDS_PER_CANDIDATE):
                raise _DatingStoppedError
            _DATEPARSER_LEFT.set(left - 1)
        return self.parser.get_date_data(text)


_BOUNDING = threading.Lock()


@cache
def _bound_dateparser() -> None:
    """Make htmldate reach dateparser through :class:`_BoundedDateParser`: it looks its parser
    up with ``htmldate.extractors.get_external_parser`` before each text. Done once, under a
    lock, so that two threads starting together do not wrap it twice."""
    from htmldate import extractors

    with _BOUNDING:
        parser = extractors.get_external_parser()
        if not isinstance(parser, _BoundedDateParser):
            bounded = _BoundedDateParser(parser)
            setattr(extractors, "get_external_parser", lambda: bounded)  # noqa: B010


def _ignore_unknown_zones() -> None:
    """Ignore dateutil's warning that it does not know a date's zone abbreviation (``EDT``),
    which it gives, through htmldate, for every such page: htmldate reads the date without
    the zone all the same, and the warning, which says a future dateutil will raise, means
    nothing to a crawl. Only that warning from dateutil is ignored; the filter is appended,
    so the application's own filters come first, and added again when something (a
    :class:`warnings.catch_warnings` block that ended) dropped it. A filter rather than
    :class:`warnings.catch_warnings` around the call, which swaps the process's filters and
    is not thread-safe; added only when missing, since adding one resets the registries that
    show other warnings once."""
    for action, _message, _category, module, _line in warnings.filters:
        if action == "ignore" and module is not None and module.pattern == _DATEUTIL_PARSER:
            return
    warnings.filterwarnings("ignore", message=_UNKNOWN_ZONE, module=_DATEUTIL_PARSER, append=True)


def _json_ld_items(script: str) -> list[dict[str, Any]]:
    """The objects of one JSON-LD script (those of its ``@graph`` too), outermost first; none
    when it does not parse, is too long, or nests deeper than Python's parser reads."""
    if len(script) > _MAX_SCRIPT:
        return []
    try:
        data: object = json.loads(script)
    except (ValueError, RecursionError):
        return []
    items: list[dict[str, Any]] = []
    queue: list[object] = [data]
    walked = 0
    while queue:
        value = queue.pop()
        walked += 1
        if not walked % _CHECK_EVERY:
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


def _main_item(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON-LD object that describes the page: its first article, else its first other
    creative work, else an empty one."""
    for wanted in (ARTICLE_TYPES, _ARTICLE_LIKE):
        for item in items:
            if _types(item) & wanted:
                return item
    return {}


def _first(items: list[dict[str, Any]], types: frozenset[str], key: str) -> object:
    for item in items:
        if _types(item) & types and item.get(key):
            return item[key]
    return None


def _nested(item: dict[str, Any], *keys: str) -> object:
    value: object = item
    for key in keys:
        if isinstance(value, list) and value:
            value = value[0]
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _string(value: object) -> str | None:
    """A JSON-LD value as text: the first of a list, its character references decoded
    (:func:`_json_text`)."""
    if isinstance(value, list) and value:
        value = value[0]
    return _clean(_json_text(value)) if isinstance(value, str) else None


def _json_text(value: str) -> str:
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


def _clean(value: str | None) -> str | None:
    """``value`` with its white space collapsed and the characters no text may hold (control
    characters, lone surrogates a JSON escape can make) dropped; ``None`` when nothing is
    left."""
    if not value:
        return None
    return " ".join(_UNPRINTABLE.sub("", value).split()) or None


def _image(value: object) -> object:
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, dict):
        return value.get("url") or value.get("contentUrl")
    return value


def _person_names(value: object) -> Iterator[str]:
    """The names of a JSON-LD ``author``: a string, a person or organisation, or a list."""
    values = value if isinstance(value, list) else [value]
    for person in values[:_MAX_VALUES]:
        name = person.get("name") if isinstance(person, dict) else person
        if isinstance(name, list):
            name = name[0] if name else None
        if isinstance(name, str):
            yield _json_text(name)


def _author_name(element: etree._Element) -> etree._Element:
    """The ``itemprop="name"`` inside a microdata author item, else the author element."""
    if element.get("itemscope") is None:
        return element
    found = _ITEM_NAME(element)
    return found[0] if isinstance(found, list) and found else element  # type: ignore[return-value]


_ITEM_NAME = etree.XPath(
    "descendant::*[contains(concat(' ', normalize-space(@itemprop), ' '), ' name ')][1]"
)
"""The first element below an item whose ``itemprop`` names its ``name``, found by libxml2
rather than by a walk in Python (which lxml makes quadratic in the depth of a built tree)."""


def _element_value(element: etree._Element) -> str | None:
    """A microdata property's value: its ``content``, ``datetime``, link or text (its blocks'
    texts apart: ``<p>Light shoe.</p><h2>Specs</h2>`` is ``Light shoe. Specs``)."""
    for attribute in ("content", "datetime"):
        value = element.get(attribute)
        if value is not None:
            return _clean(value)
    tag = local_tag(element)
    if tag in ("a", "link"):
        return _clean(element.get("href")) or _clean(text_of(element))
    if tag in ("img", "meta"):
        return _clean(element.get("src"))
    return _clean(lines_of(element, _MAX_PROPERTY)[:_MAX_PROPERTY])


def _lazy(function: Callable[[etree._Element], list[str]], root: etree._Element) -> Iterator[str]:
    """``function(root)``, called when the first value is asked for."""
    yield from function(root)


def _first_byline(root: etree._Element) -> list[str]:
    """The text of the first byline after the headline (:data:`_BYLINE_CLASS`) that names
    someone; a page's later author blocks are biographies and comments."""
    found = _BYLINE_CLASS(root)
    for element in found if isinstance(found, list) else ():
        if isinstance(element, etree._Element):
            text = lines_of(element, _MAX_TEXT).lstrip()[:_MAX_TEXT]
            names = _clean_names(text)
            if names:
                return [_linked_names(element, names) or text]
    return []


def _linked_names(byline: etree._Element, names: list[str]) -> str | None:
    """The names of ``names`` that ``byline`` links (to their author pages), joined by
    ``;``, when it links the first and not all: the words it does not link, after a linked
    name, are a job title or an affiliation (``<a>Jane Doe</a>, Staff Writer``), whatever the
    language. A byline whose first name is not linked links something else (``Jane Doe,
    <a>Reuters</a>``) and keeps every name."""
    linked = {
        name.casefold()
        for link in byline.iter("a")
        for name in _clean_names(text_of(link)[:_MAX_TEXT])
    }
    if names[0].casefold() not in linked:
        return None
    kept = [name for name in names if name.casefold() in linked]
    return "; ".join(kept) if len(kept) < len(names) else None


def _item_scope(element: etree._Element) -> etree._Element | None:
    """The closest ancestor of ``element`` that opens a microdata item."""
    for ancestor in element.iterancestors():
        if ancestor.get("itemscope") is not None:
            return ancestor
    return None


def _raw_value(element: etree._Element) -> str:
    """A microdata property's value with its line breaks (see :func:`_clean_names`)."""
    for attribute in ("content", "datetime"):
        value = element.get(attribute)
        if value is not None:
            return value
    return lines_of(element, _MAX_TEXT).lstrip()[:_MAX_TEXT]


def _shouted(name: str) -> bool:
    """Whether ``name`` is written in capitals alone (``STEVEN DAVIDOFF SOLOMON``)."""
    return name.isupper()


def _recased(names: tuple[str, ...], later: Iterable[Iterable[str]]) -> tuple[str, ...]:
    """``names``, each written in capitals alone replaced by the same name as a later source
    writes it in mixed case (a template's style sheet shows the byline in capitals, and its
    microdata keeps them, while the ``<meta name="author">`` writes the name)."""
    written: dict[str, str] = {}
    for source in later:
        for raw in source:
            for name in _clean_names(raw):
                if not _shouted(name):
                    written.setdefault(name.casefold(), name)
    return tuple(written.get(name.casefold(), name) if _shouted(name) else name for name in names)


def _clean_names(raw: str) -> list[str]:
    """The names in one author string: its first line with more than the byline prefix, cut
    before a date, an e-mail address, a link, a parenthesis or a spaced dash (a digit inside a
    single word is a user name's and stays); split at ``;``, ``&``, ``|``, ``/`` and commas;
    degrees (``PhD``) and parts longer than a name (:data:`_MAX_WORDS`) dropped."""
    value = None
    for line in raw[:_MAX_TEXT].splitlines():
        value = _clean(_BYLINE_PREFIX.sub("", line.strip()))
        if value:
            break
    if value is None or value.startswith(("http:", "https:")):
        return []
    cut = _BYLINE_CUT.search(value)
    if cut is not None and (not cut.group().isdigit() or " " in value):
        value = value[: cut.start()]
        head, _, last = value.rstrip().rpartition(" ")
        if (
            cut.group().isdigit()
            and head
            and not _NAME_SEPARATORS.match(head[-1])
            and len(last) <= _MAX_CONNECTOR
            and last.isalpha()
            and last.islower()
        ):
            value = head  # the word that joins the name to the date (``admin on 2024-01-02``)
        if cut.group().isdigit():
            value = _before_date_field(value)
    names: list[str] = []
    for part in _NAME_SEPARATORS.split(value):
        name = _BYLINE_PREFIX.sub("", part.strip(" ,.:;-–—'\""))
        if not name or len(name.split()) > _MAX_WORDS or not any(c.isalpha() for c in name):
            continue
        if _PLACEHOLDER.match(name):
            continue
        if names and _CREDENTIAL.match(name):
            continue
        names.append(name)
    return names


def _before_date_field(value: str) -> str:
    """A byline cut before a date, without the field of that date: the words after the last
    ``|``, ``•`` or ``·`` (``Jane Doe | Updated March``, where the date said ``March 3``) are
    the date's, as those separators part a byline's fields, not names joined by a comma."""
    end = max(value.rfind(mark) for mark in _FIELD_SEPARATORS)
    return value[:end] if end >= 0 else value


def _first_last(name: str) -> str:
    """``citation_author``'s "Last, First" as "First Last" (one name per tag)."""
    last, comma, first = name.partition(",")
    return f"{first.strip()} {last.strip()}" if comma and "," not in first else name


def _within(value: str | None, limit: int) -> str | None:
    """``value`` cut to ``limit`` characters (at a space when there is one near the end)."""
    if value is None or len(value) <= limit:
        return value
    cut = value[:limit]
    space = cut.rfind(" ", limit - 50)
    return cut[:space] if space > 0 else cut


def _url_within(value: str | None) -> str | None:
    """``value``, or ``None`` when it is longer than :data:`_MAX_URL` (a URL cut short
    points elsewhere)."""
    return None if value is not None and len(value) > _MAX_URL else value


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for value in (_within(value, _MAX_TEXT) or "" for value in values):
        key = value.casefold()
        if key not in seen and len(seen) < _MAX_VALUES:
            seen[key] = value
    return tuple(seen.values())


def _keywords(value: object) -> list[str]:
    values = value if isinstance(value, list) else [value]
    strings = [_json_text(item) for item in values[:_MAX_VALUES] if isinstance(item, str)]
    return _split_keywords(strings)


def _split_keywords(values: Iterable[str]) -> list[str]:
    return [word for value in values for w in value.split(",") if (word := _clean(w))]


def _iso(value: str | None) -> str | None:
    """The ISO 8601 date (and time, when it has one) at the start of ``value``; ``None`` when
    it does not start with one or names no real day."""
    if not value:
        return None
    match = _ISO_DATE.match(value.strip())
    if match is None:
        return _internet_date(value)
    year, month, day, hour, minute, second, zone = match.groups()
    if not (1 <= int(month) <= 12 and 1900 < int(year) < 2200):
        return None
    if not 1 <= int(day) <= calendar.monthrange(int(year), int(month))[1]:
        return None  # February 31st
    date = f"{year}-{int(month):02d}-{int(day):02d}"
    if hour is None or int(hour) > 23 or int(minute) > 59 or int(second or 0) > 60:
        return date
    time = f"{int(hour):02d}:{minute}:{second or '00'}"
    if zone and zone != "Z" and ":" not in zone:
        zone = f"{zone[:3]}:{zone[3:]}"
    return f"{date}T{time}{zone or ''}"


def _internet_date(value: str) -> str | None:
    """An e-mail and HTTP date (RFC 5322, ``Tue, 12 Mar 2024 08:30:00 GMT``), which some pages
    declare where ISO 8601 belongs, as ISO 8601 with its time and zone; ``None`` for any other
    text."""
    if not _INTERNET_DATE.match(value):
        return None
    try:
        moment = email.utils.parsedate_to_datetime(value.strip())
    except (ValueError, TypeError, IndexError):
        return None
    if not 1900 < moment.year < 2200:
        return None
    zone = moment.isoformat()[19:]
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (zone or "")


def _earliest(declared: str | None, found: str | None) -> str | None:
    """The earlier day of the date the page declares and the one htmldate finds: a page's
    original publication precedes its updates, which structured dates often give instead
    (``datePublished`` of an edited item, a time converted to another day in UTC)."""
    if declared and found:
        return found if found[:10] < declared[:10] else declared
    return declared or found


def _first_iso(values: Iterable[str]) -> str | None:
    for value in values:
        iso = _iso(value)
        if iso:
            return iso
    return None


def _headline_heading(root: etree._Element, document_title: str | None) -> str | None:
    """The text of the ``<h1>`` that is the headline: the first with a text (the headline on
    most article pages) that is not a link home (:func:`_links_home`), unless most of its
    words are not in ``<title>`` while those of a later one are (the first is then a logo, a
    section's name or a cookie banner)."""
    texts = (
        text
        for heading in root.iter("h1")
        if (text := _clean(text_of(heading).lstrip()[:_MAX_TEXT])) and not _links_home(heading)
    )
    first = next(texts, None)
    if first is None or not document_title or _share(first, document_title) >= _HEADING_IN_TITLE:
        return first
    for text in islice(texts, _MAX_HEADINGS - 1):
        if _share(text, document_title) >= _HEADING_IN_TITLE:
            return text
    return first


def _links_home(heading: etree._Element) -> bool:
    """Whether the text of ``heading`` is a link to a site's home page (a URL without a path):
    the site's name as a logo, which templates put in an ``<h1>``, not the page's headline."""
    for link in heading.iter("a"):
        try:
            parts = urlsplit((link.get("href") or "").strip())
        except ValueError:
            continue
        home = parts.path in {"", "/"} if parts.netloc else parts.path == "/" and not parts.scheme
        if home and not parts.query:
            return _clean(text_of(link)) == _clean(text_of(heading))
    return False


def _not_first_of_month(found: str) -> bool:
    """Whether a date of htmldate's extensive mode may name a day: that mode gives the first
    of the month for a year or a month that it reads alone (``2025`` as ``2025-01-01``,
    ``11/2022`` as ``2022-11-01``), and a text naming the first day of a month is rarer than
    one naming a year."""
    return found[8:10] != "01"


def _date_candidates(part: etree._Element) -> int:
    """The texts in ``part`` that htmldate's extensive mode may send to dateparser: those of
    :data:`_SEGMENT_CHARS` characters with :data:`_SEGMENT_DIGITS` digits (its own gate; it
    reads some of them itself, without dateparser)."""
    return _count(_DATE_CANDIDATES, part)


def _affords_search(characters: int) -> bool:
    """Whether the time budget left (if any) allows htmldate's fast mode to search a text of
    this many ``characters``, at :data:`_SECONDS_PER_CHARACTER`."""
    left = time_left()
    return left is None or characters * _SECONDS_PER_CHARACTER <= left


def _affords_extensive(part: etree._Element) -> bool:
    """Whether htmldate's extensive mode may read ``part``: at most
    :data:`_EXTENSIVE_MAX_ELEMENTS` elements, a bounded reading of the elements it reads whole
    (:func:`_reads_little`), and at most :data:`_EXTENSIVE_MAX_CANDIDATES` texts that look
    like dates, for which the time budget left allows :data:`_SECONDS_PER_CANDIDATE` each."""
    if _count(_ELEMENTS, part) > _EXTENSIVE_MAX_ELEMENTS:
        return False
    if not _reads_little(part, extensive=True):
        return False
    candidates = _date_candidates(part)
    left = time_left()
    return candidates <= _EXTENSIVE_MAX_CANDIDATES and (
        left is None or candidates * _SECONDS_PER_CANDIDATE <= left
    )


def _reads_little(part: etree._Element, *, extensive: bool, characters: int | None = None) -> bool:
    """Whether htmldate reads ``part`` within bounds: at most :data:`_HTMLDATE_MAX_COMMENTS`
    comments, and at most :data:`_HTMLDATE_MAX_READ` nodes and characters in the elements it
    reads whole. A node or a text is read once for each such element around it, so at most as
    many times as it is deep: a part no deeper than the bound over its nodes and characters is
    known to read little after a few C calls (the median page), and the others are counted
    (:func:`_read_whole`). ``characters`` is the length of ``part``'s text when the caller
    has counted it."""
    if _count(_COMMENTS, part) > _HTMLDATE_MAX_COMMENTS:
        return False
    text = _count(_TEXT_LENGTH, part) if characters is None else characters
    size = text + _count(_NODES, part)
    if not has_depth(part, min(_HTMLDATE_MAX_READ // size, _DEEPEST_PROBE)):
        return True
    return _read_whole(part, extensive=extensive) <= _HTMLDATE_MAX_READ


def _read_whole(part: etree._Element, *, extensive: bool) -> int:
    """The nodes and characters htmldate reads in the elements of ``part`` it reads whole:
    those it takes for dates, by its own rule, and ``<abbr>``, ``<title>`` and ``<h1>``,
    counted in one walk that knows how many of them are open around each node; the count stops
    just past :data:`_HTMLDATE_MAX_READ`."""
    from htmldate.core import date_candidates  # imported when asked for, like htmldate

    whole = [*date_candidates(part, extensive), *part.iter("abbr", "title", "h1")]
    read_whole = {id(element) for element in whole}  # the proxies live as long as ``whole``
    read = around = 0
    for step, (event, node) in enumerate(etree.iterwalk(part, events=("start", "end"))):
        if event == "start":
            around += id(node) in read_whole
            text = node.text if isinstance(node.tag, str) else None
            read += around * (1 + len(text or ""))
            for child in node:  # iterwalk passes over comments and their tails
                if isinstance(child, _UNWALKED):
                    read += around * (1 + len(child.tail or ""))
        else:
            around -= id(node) in read_whole
            read += around * len(node.tail or "") if node is not part else 0
        if read > _HTMLDATE_MAX_READ:
            break
        if step & 4095 == 4095:
            check_deadline("counting what htmldate reads")
    return read


_UNWALKED = (etree._Comment, etree._ProcessingInstruction)
"""The nodes :func:`lxml.etree.iterwalk` does not give."""


def _declarations(root: etree._Element) -> etree._Element:
    """A page of the elements where ``root``'s page declares its dates (:data:`_DECLARED_DATES`),
    each copied as its tag, attributes and text alone: what htmldate reads first, without the
    rest of the page. A parsed ``<meta>`` or ``<link>`` has no children, and a ``<script>`` only
    its text; a tree built otherwise may nest anything in them (thousands of ``<meta>`` each
    inside the last, whose whole copies grew as the square of their depth)."""
    page: etree._Element = lxml.html.Element("html")
    head = etree.SubElement(page, "head")
    found = _DECLARED_DATES(root)
    assert isinstance(found, list)
    for element in found:
        assert isinstance(element, etree._Element)
        clone = etree.SubElement(head, element.tag)
        for name, value in element.items():
            clone.set(name, value)
        clone.text = element.text
    return page


def _count(xpath: etree.XPath, part: etree._Element) -> int:
    """The number an XPath ``count()`` gives for ``part``."""
    found = xpath(part)
    assert isinstance(found, float)
    return int(found)


def _headline_section(root: etree._Element) -> etree._Element | None:
    """The part of the page around its headline: the first ``<h1>``'s ancestor
    :data:`_SECTION_LEVELS` levels up (or the highest below ``<body>``), where an article's
    byline and date are; ``None`` when the page has no ``<h1>``."""
    heading = next(root.iter("h1"), None)
    if heading is None:
        return None
    section = heading
    for _ in range(_SECTION_LEVELS):
        parent = section.getparent()
        if parent is None or parent is root or parent.tag == "body":
            break
        section = parent
    return section


def _share(part: str, whole: str) -> float:
    """The share of the words of ``part`` that are words of ``whole`` (case ignored)."""
    words = set(_WORD.findall(part.casefold()))
    if not words:
        return 0.0
    return len(words & set(_WORD.findall(whole.casefold()))) / len(words)


def _document_title(root: etree._Element) -> str | None:
    for element in root.iter("title"):
        return text_of(element).lstrip()[:_MAX_TEXT]
    return None


def _strip_site_name(title: str, site_name: str | None, url: str | None) -> str:
    """``title`` without a site name joined to it by a separator (``Headline | Site``,
    ``Site - Headline``): the site name the page declares, a host name, or a part of at most
    four words that holds a label of the host's name (``Doom9's Forum`` on ``doom9.org``)."""
    names = {_fold(site_name)} if site_name else set()
    host = (url or "").split("//", 1)[-1].split("/", 1)[0].split(":", 1)[0].lower()
    host = host.removeprefix("www.")
    labels = [_fold(label) for label in host.split(".")[:-1] if len(label) >= 4]
    if host:
        names.add(_fold(host))
        names.add(_fold(host.rsplit(".", 1)[0]))

    def is_site(part: str) -> bool:
        folded = _fold(part)
        return bool(
            folded in names
            or _URL_SUFFIX.match(part.strip())
            or (len(part.split()) <= 4 and any(label in folded for label in labels))
        )

    for separator in _TITLE_SEPARATORS:
        head, found, tail = title.rpartition(separator)
        if found and head.strip() and is_site(tail):
            return head.strip()
        head, found, tail = title.partition(separator)
        if found and tail.strip() and is_site(head):
            return tail.strip()
    return title


def _headed(title: str, heading: str | None) -> str:
    """The page's ``<h1>`` when ``title`` is that heading joined by a separator to more
    (``Headline | Section | Site``): the heading is the headline, the rest is furniture."""
    if heading and heading != title:
        for separator in _TITLE_SEPARATORS:
            if title.startswith(heading + separator) or title.endswith(separator + heading):
                return heading
    return title


def _fold(value: str) -> str:
    """``value`` for comparison: case, spaces and punctuation ignored."""
    return "".join(character for character in value.casefold() if character.isalnum())


def _language_tag(value: str | None) -> str | None:
    """A BCP 47 tag from an ``lang``/``Content-Language`` value (the first of a list), in the
    cases BCP 47 recommends: the language lower-case, a script title-case (``zh-Hans``), a
    region upper-case (``pt-BR``)."""
    if not value:
        return None
    first = value.split(",")[0].strip().replace("_", "-")
    if len(first) > _MAX_LANGUAGE_TAG or not _LANGUAGE_TAG.match(first):
        return None
    primary, _, rest = first.partition("-")
    parts = [primary.lower()]
    parts.extend(_subtag_case(subtag) for subtag in (rest.split("-") if rest else ()))
    return "-".join(parts)


def _subtag_case(subtag: str) -> str:
    if len(subtag) == 2:
        return subtag.upper()  # a region
    if len(subtag) == 4 and subtag.isalpha():
        return subtag.title()  # a script
    return subtag


_MIN_IDENTIFIED = 40
"""Characters of text below which the language is not identified (too few to tell)."""
_MIN_OVERRULE = 400
"""Characters of text needed to overrule the declared language."""
_CONFIDENT = 0.95
"""py3langid's probability needed to overrule the declared language."""
_AGREEING_TEXT = 300
"""Characters of the text read first on a page that declares its language: when py3langid
finds that language in them, no more are read."""
_IDENTIFIED_TEXT = 1000
"""Characters of the text read to identify its language. py3langid's time grows with them
(each byte is a step through a 39 MB table); on the 2,133 pages of the shared datasets, the
first 1,000 characters give the same language as the first 4,000 on all but four pages, and
agree with the datasets' language labels as often."""


def _identify_language(text: str) -> tuple[str, bool] | None:
    """py3langid's language of ``text`` and whether it is sure enough to overrule a declared
    one; ``None`` when the text is too short."""
    sample = text[:_IDENTIFIED_TEXT]
    if len(sample.strip()) < _MIN_IDENTIFIED:
        return None
    language, probability = language_identifier().classify(sample)
    return str(language), probability >= _CONFIDENT and len(sample) >= _MIN_OVERRULE


def _agrees(declared: str, text: str) -> bool:
    """Whether py3langid reads the declared language in the first :data:`_AGREEING_TEXT`
    characters of ``text``: then they decide, and the rest is not read (a text that turns to
    another language after them keeps the declared one)."""
    language, _ = language_identifier().classify(text[:_AGREEING_TEXT])
    return bool(declared.split("-", maxsplit=1)[0].lower() == language)


_LOADING = threading.Lock()
"""Held while py3langid's model loads, so that threads that need it at once load it once."""


def language_identifier() -> Any:
    """py3langid's identifier with normalised probabilities, loaded once (its model is in its
    package) by the first thread that needs it, while the others wait."""
    with _LOADING:
        return _loaded_identifier()


@cache
def _loaded_identifier() -> Any:
    from py3langid.langid import (  # type: ignore[import-untyped]
        MODEL_DIR,
        MODEL_FILE,
        LanguageIdentifier,
    )

    return LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)

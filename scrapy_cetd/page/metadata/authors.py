"""The authors of a page: the names in its author values and bylines, without "By", dates,
job titles, degrees or a template's placeholders, whatever the language."""

# The separators of bylines include the dashes typography puts there.
# ruff: noqa: RUF001

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from lxml import etree

from scrapy_cetd.page.markup import lines_of, text_of
from scrapy_cetd.page.metadata.values import MAX_TEXT, clean, unique

_MAX_WORDS = 6
"""Words of an author's name: a longer "name" is a sentence (a biography, a job title)."""
_BYLINE_PREFIX = re.compile(
    r"^(?:(?:written|posted|words|reported|published)\s+by|by|von|par|por|door|av|af)\b[\s:]*",
    re.IGNORECASE,
)
"""The byline prefixes trafilatura strips from authors' names ("by" and its equivalents in the
languages it names), and no other words: the rest of the cleaning reads punctuation, digits
and case, whatever the language."""
_NAME_SEPARATORS = re.compile(
    r"\s*(?:[;|/&•·]|,(?!\s*(?:jr|sr)\b\.?\s*(?:$|[;|/&•·,])))\s*", re.IGNORECASE
)
"""Between two names of one byline string: not the comma before a name's suffix (``Martin
Luther King, Jr.``), which ends the name, where ``Sr.`` before more words is a senior's job
title (``Jane Doe, Sr. Director of Operations``)."""
_FIELD_SEPARATORS = ("|", "•", "·")
"""What parts a byline's fields (the names, a date, a reading time), rather than two names."""
_BYLINE_CUT = re.compile(r"\s+[-–—]\s+|\d|\S*@|https?:|\(|\[")
"""Where a byline's name part ends: a dash between spaces, a digit (a date, a time), an
e-mail address or handle, a link, a parenthesis."""
_LABEL = re.compile(r"^[^\W\d_]+(?:\s+[^\W\d_]+)?\s*:(?!//)\s*")
"""A label before a name: one or two words and a colon (``Author:``, ``Authored by:``,
``Текст:``), in any script."""
_DAY_AND_YEAR = re.compile(r"\d{1,2},?\s+\d{4}\b")
"""The day and the year of a date that writes its month first (``March 3, 2024``): the
capitalised word before the day is the month, no name's."""
_MAX_CONNECTOR = 3
"""The most letters of a lower-case word between a byline's name and its date (``on``, ``le``,
``am``), joined to the name by a space alone: a name's last word is longer or capitalised,
and a credit after a comma (``Jane Doe, dpa 12.03.2024``) is a name of its own."""
_CREDENTIAL = re.compile(r"^(?:[A-Z][A-Za-z]?\.?){1,4}$|^[A-Z]{2,6}$")
"""A degree or credential after a name (``MS``, ``PhD``, ``M.D.``), dropped from the authors."""
_BYLINE_CLASS = etree.XPath(
    "following::*[@rel='author' or @class[contains(.,'byline') or contains(.,'author')]"
    " or @id[contains(.,'byline')] or self::a[@href[contains(.,'/author')]]][position()<=$most]"
)
"""The first elements after the headline (the context node, :func:`_headline`) that may be
marked as a byline or an author, for :func:`_marked` to tell. libxml2 tests every element
after the headline (the whole page, where fewer are marked): each attribute's value is tested
in a predicate on the attribute, as ``contains(@class, ...)`` would make the string of
``@class`` for each test (``docs/metadata-results.md``)."""
_AUTHOR_PAGE = re.compile(r"/authors?/[^/?#\s]")
"""A link to an author's page (``/author/jane-doe/``, ``/authors/jane-doe``), as blogs' and
news sites' templates link a byline's name; not to the list of authors (``/authors/``)."""
_NAME_PARTS = re.compile(r"[-_\d]+|(?<=[a-z])(?=[A-Z])")
"""Between the words of a class's or an id's name: ``-``, ``_``, digits, and a lower-case
letter followed by a capital (``authorName``)."""
_CLASS_MARKS = ("author", "authors", "byline", "bylines")
"""The words a part of a class's name ends with when it marks a byline."""
_ID_MARKS = ("byline", "bylines")
"""The words a part of an id ends with when it marks a byline (an id ``author`` is a comment
form's field)."""
_SEEN = 48
"""Elements the XPath gives at most, of which :func:`_marked` keeps :data:`_CANDIDATES`."""
_BYLINES_READ = 3
"""Bylines read after the headline (:func:`first_byline`); an element that is no byline
(:func:`_no_byline`) is passed over and does not count."""
_CANDIDATES = 12
"""Elements marked as a byline or an author looked at after the headline, at most."""
_FORM_TAGS = frozenset({"label", "input", "select", "textarea"})
"""A form's field: what no byline holds."""
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
"""A byline's first heading is a name (an author box's), never longer: the headings inside
it are its own, read once."""
_PLACEHOLDER = re.compile(
    r"(?:(?:undefined|null|none|nan|\[object object\])\s*)+\Z|.*(?:\{\{|\}\}|\$\{|<%)",
    re.IGNORECASE,
)
"""A value a script or a template left where a name should be: JavaScript's ``undefined``,
``null`` and ``NaN`` (alone or repeated: ``undefined undefined``, a first and a last name both
unset), an object written as text, a template's unfilled ``{{author}}``."""


def author_name(element: etree._Element) -> etree._Element:
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


def lazy(function: Callable[[etree._Element], list[str]], root: etree._Element) -> Iterator[str]:
    """``function(root)``, called when the first value is asked for."""
    yield from function(root)


def first_byline(root: etree._Element, titles: Iterable[str | None] = ()) -> list[str]:
    """The text of the first byline after the headline (:func:`_headline`, given the page's
    structured ``titles``; :data:`_BYLINE_CLASS`) that names someone; a page's later author
    blocks are biographies and comments. The texts of the byline's elements are read apart
    (``<span>By</span><a>Jane Doe</a>`` is ``By Jane Doe``): two elements are two words."""
    anchor = _headline(root, titles)
    if anchor is None:
        return []
    found = _BYLINE_CLASS(anchor, most=_SEEN)
    marked = [
        element
        for element in (found if isinstance(found, list) else ())
        if isinstance(element, etree._Element) and _marked(element)
    ]
    read = 0
    for element in marked[:_CANDIDATES]:
        if read == _BYLINES_READ:
            break
        if _no_byline(element):
            continue
        read += 1
        text = lines_of(element, MAX_TEXT, apart=True).lstrip()[:MAX_TEXT]
        names = _clean_names(text, byline=_markup_words(element), opening=_opening_words(element))
        if names:
            return [_linked_names(element, names) or "; ".join(names)]
    return []


def _headline(root: etree._Element, titles: Iterable[str | None]) -> etree._Element | None:
    """The headline a byline follows: the first ``<h1>``, unless a heading before it is one
    of the page's structured ``titles`` (alone, or with more after a separator: the site's
    name): a template that sets the headline in an ``<h3>`` and a later block's words in the
    page's ``<h1>`` (a promotion under the article), whose byline is before that ``<h1>``. A
    page without an ``<h1>`` has no headline to read a byline after (its headings are a
    listing's or a shop's, whose bylines are their records')."""
    wanted = {_folded(title) for title in titles if title}
    for heading in root.iter(*_HEADINGS):
        if heading.tag == "h1":
            return heading
        text = _folded(text_of(heading))
        if text and any(_is_title(text, title) for title in wanted):
            return heading if root.find(".//h1") is not None else None
    return None


def _is_title(text: str, title: str) -> bool:
    """Whether a heading's ``text`` is ``title``, alone or joined to more by a separator."""
    return title == text or (
        title.startswith(text) and title[len(text) :].lstrip()[:1] in _SEPARATORS
    )


def _folded(text: str) -> str:
    """``text`` case-folded, its white space collapsed."""
    return " ".join(text[:MAX_TEXT].split()).casefold()


_SEPARATORS = frozenset("|-–—·:/»")
"""What joins a title to the site's name after it."""


def _marked(element: etree._Element) -> bool:
    """Whether ``element`` is marked as a byline or an author: ``rel="author"``, a class
    with the word ``author`` or ``byline`` (:func:`_has_word`), an id with the word
    ``byline``, or a link to an author's page (:data:`_AUTHOR_PAGE`)."""
    if element.get("rel") == "author" or _has_word(element.get("id"), _ID_MARKS):
        return True
    if _has_word(element.get("class"), _CLASS_MARKS):
        return True
    return element.tag == "a" and _AUTHOR_PAGE.search(element.get("href") or "") is not None


def _has_word(value: str | None, marks: tuple[str, ...]) -> bool:
    """Whether a class or an id (``value``) has one of ``marks`` as a word of one of its
    names: a part of a name between ``-``, ``_``, digits and a lower-case letter followed by
    a capital that ends with it (``post-author``, ``c-byline``, ``entry__author``,
    ``authorName``, ``byline1``, ``storybyline``, ``postauthor``: the last word of a
    compound is its head), not one that only begins with it (``authority-control``,
    ``authorized-dealer``, ``authoring``)."""
    return any(
        part.casefold().endswith(marks)
        for name in (value or "")[:MAX_TEXT].split()
        for part in _NAME_PARTS.split(name)
    )


def _no_byline(element: etree._Element) -> bool:
    """Whether ``element``, though marked as an author, is no byline: a form's field (a
    ``<label>`` or inside one, or holding a label or a form control: a comment form's
    ``comment-form-author`` and its ``Name *``), or an article or a teaser whose class names
    its author (an ``<article>``, or whose first heading is longer than a name: another
    article's headline)."""
    if element.tag in ("label", "article"):
        return True
    if any(ancestor.tag == "label" for ancestor in element.iterancestors()):
        return True
    if any(
        node.tag != "input" or (node.get("type") or "").lower() != "hidden"
        for node in element.iterdescendants(*_FORM_TAGS)
    ):
        return True
    heading = next(element.iterdescendants(*_HEADINGS), None)
    return heading is not None and len(text_of(heading)[:MAX_TEXT].split()) > _MAX_WORDS


def _linked_names(byline: etree._Element, names: list[str]) -> str | None:
    """The names that ``byline`` links (to their author pages), joined by ``;``, when the
    first of ``names`` begins with a link's text: each link's text is one name, and the words
    it does not link, after a linked name, are a job title, an affiliation or a button
    (``<a>Jane Doe</a>, Staff Writer``, ``<a>Jane Doe</a> <span>Follow</span>``), whatever
    the language, as are the words between two linked names (``<a>Jane Doe</a> and <a>John
    Roe</a>``). A name that does not begin with a link's text is dropped, links and all: the
    words before the link name its role (``Reviewed by <a>John Roe</a>``). A byline whose
    first name does not begin with a link's text links something else (``Jane Doe,
    <a>Reuters</a>``) and keeps every name."""
    linked = sorted(
        {
            tuple(name.casefold().split())
            for link in byline.iter("a")
            for name in _clean_names(lines_of(link, MAX_TEXT, apart=True).lstrip()[:MAX_TEXT])
        },
        key=len,
        reverse=True,
    )
    held = [_links_in(name, linked) for name in names]
    if not held[0]:
        return None
    kept = [name for links in held for name in links]
    return "; ".join(kept) if kept != names else None


def _links_in(name: str, linked: Sequence[tuple[str, ...]]) -> list[str]:
    """The linked names (``linked``: each a link's case-folded words, the longest first) that
    ``name``'s words hold, in their order, as ``name`` writes them; none when ``name`` does not
    begin with one."""
    words = name.split()
    folded = [word.casefold() for word in words]
    found: list[str] = []
    start = 0
    while start < len(words) and (found or not start):
        size = next(
            (len(link) for link in linked if tuple(folded[start : start + len(link)]) == link),
            0,
        )
        if size:
            found.append(" ".join(words[start : start + size]))
        start += size or 1
    return found


def item_scope(element: etree._Element) -> etree._Element | None:
    """The closest ancestor of ``element`` that opens a microdata item."""
    for ancestor in element.iterancestors():
        if ancestor.get("itemscope") is not None:
            return ancestor
    return None


def raw_value(element: etree._Element) -> str:
    """A microdata property's value with its line breaks (see :func:`_clean_names`)."""
    for attribute in ("content", "datetime"):
        value = element.get(attribute)
        if value is not None:
            return value
    return lines_of(element, MAX_TEXT).lstrip()[:MAX_TEXT]


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


def _clean_names(
    raw: str, *, byline: frozenset[str] | None = None, opening: frozenset[str] = frozenset()
) -> list[str]:
    """The names in one author string: its first line with more than the byline prefix, cut
    before a date, an e-mail address, a link, a parenthesis or a spaced dash (a digit inside a
    single word is a user name's and stays); split at ``;``, ``&``, ``|``, ``/`` and commas;
    degrees (``PhD``) and parts longer than a name (:data:`_MAX_WORDS`) dropped; in a
    ``byline``'s text (given the words of its markup, :func:`_markup_words`), a label that
    introduces a name (:func:`_introduces`) too (an author value's ``Michiel de`` is a name
    written last name first), and a line that repeats a word of the markup; a word alone
    before a date that opens a text of the byline holding it (one of ``opening``,
    :func:`_opening_words`) is the date's (``On November 1, 2012``, ``Tuesday March 28``),
    where a name before a date is set apart from it (``<span>Nadia</span> October 25``)."""
    value = _name_line(raw, byline or frozenset())
    if value is None or value.startswith(("http:", "https:")):
        return []
    cut = _BYLINE_CUT.search(value)
    if cut is not None and (not cut.group().isdigit() or " " in value):
        dated = cut.group().isdigit()
        day_first = dated and _DAY_AND_YEAR.match(value, cut.start()) is not None
        value = value[: cut.start()].rstrip()
        head, _, last = value.rpartition(" ")
        if day_first and last[:1].isupper() and last.isalpha():
            value = head.rstrip()  # the month of ``March 3, 2024``
            head, _, last = value.rpartition(" ")
        if dated and not head and last.rstrip(",").casefold() in opening:
            value = last = ""  # the date's first word (``On November 1``, ``Tuesday, March 28``)
        if (
            dated
            and not (head and _NAME_SEPARATORS.match(head[-1]))
            and len(last) <= _MAX_CONNECTOR
            and last.isalpha()
            and last.islower()
        ):
            # the word that joins the name to the date (``admin on 2024-01-02``), or all
            # that comes before the date (``on 2024-01-02``)
            value = head
        if dated:
            value = _before_date_field(value)
    names: list[str] = []
    for part in _NAME_SEPARATORS.split(value):
        name = _LABEL.sub("", _BYLINE_PREFIX.sub("", part.strip(" ,.:;-–—'\"«»")))
        if not name or len(name.split()) > _MAX_WORDS or not any(c.isalpha() for c in name):
            continue
        if _PLACEHOLDER.match(name) or (byline is not None and _introduces(name)):
            continue
        if names and _CREDENTIAL.match(name):
            continue
        names.append(name)
    return names


def _introduces(name: str) -> bool:
    """Whether ``name`` is a label that introduces what follows it (``Posted on``, ``Posted
    in``): a capitalised word, then words ending with a short lower-case one, where a name
    written in mixed case ends with a capitalised word."""
    head, _, last = name.rpartition(" ")
    return (
        bool(head)
        and head[0].isupper()
        and len(last) <= _MAX_CONNECTOR
        and last.isalpha()
        and last.islower()
    )


def _opening_words(element: etree._Element) -> frozenset[str]:
    """The first words, case-folded and without a comma, of the texts inside ``element`` that
    hold a digit (:data:`_DATED_TEXTS`): the word a date opens with when it is written in one
    text (``On November 1, 2012``, ``Tuesday, March 28, 2017``)."""
    found = _DATED_TEXTS(element, most=_TEXTS_READ)
    words = set()
    for text in found if isinstance(found, list) else ():
        first = str(text)[:MAX_TEXT].split(maxsplit=1)
        if first:
            words.add(first[0].rstrip(",").casefold())
    return frozenset(words)


_DATED_TEXTS = etree.XPath(
    "(descendant::text()[translate(., '0123456789', '') != .])[position() <= $most]"
)
"""The texts below an element that hold a digit, found by libxml2 (a walk in Python costs
depth squared on a deep tree, see :func:`~scrapy_cetd.page.markup.text_of`)."""
_TEXTS_READ = 20
"""The texts holding a digit read in a byline, at most."""


def _markup_words(element: etree._Element) -> frozenset[str]:
    """The words of the class and the id of ``element`` that made it a byline
    (:data:`_BYLINE_CLASS`: those holding ``author`` or ``byline``), case-folded: a byline's
    line that is one of them (``Author`` in ``<div class="post-author">``) is the field's
    label, named by the text as by the markup. The other words of the class may name the
    author (``comment-author-jdoe``)."""
    markup = f"{element.get('class') or ''} {element.get('id') or ''}"[:MAX_TEXT].casefold()
    return frozenset(
        word for word in _NOT_LETTERS.split(markup) if "author" in word or "byline" in word
    )


_NOT_LETTERS = re.compile(r"[\W\d_]+")


def _name_line(raw: str, labels: frozenset[str] = frozenset()) -> str | None:
    """The line of ``raw`` that holds the name: the first that begins with a byline prefix
    (``By Jane Doe``) or follows a line that is the prefix alone (``Posted`` / ``by`` /
    ``msmash``), else the first with more than a prefix or a label (one of ``labels``, or a
    word and a colon); the lines before a prefixed one are a label, a date or a section
    (``Posted in Architecture`` / ``By Lavinia``, ``Updated January 8, 2026`` / ``Written by
    Meghan Neville``)."""
    first = None
    after_prefix = False
    for written in raw[:MAX_TEXT].splitlines():
        line = written.strip()
        if not line:
            continue
        unprefixed = _BYLINE_PREFIX.sub("", line)
        value = clean(_LABEL.sub("", unprefixed))
        if not value or value.casefold().rstrip(" *:") in labels:
            after_prefix = after_prefix or len(unprefixed) < len(line)
            continue
        if after_prefix or len(unprefixed) < len(line):
            return value
        if first is None:
            first = value
    return first


def _before_date_field(value: str) -> str:
    """A byline cut before a date, without the field of that date: the words after the last
    ``|``, ``•`` or ``·`` (``Jane Doe | Updated March``, where the date said ``March 3``) are
    the date's, as those separators part a byline's fields, not names joined by a comma."""
    end = max(value.rfind(mark) for mark in _FIELD_SEPARATORS)
    return value[:end] if end >= 0 else value


def first_last(name: str) -> str:
    """``citation_author``'s "Last, First" as "First Last" (one name per tag)."""
    last, comma, first = name.partition(",")
    return f"{first.strip()} {last.strip()}" if comma and "," not in first else name


def first_names(sources: Sequence[Iterable[str]]) -> tuple[str, ...]:
    """The names of the first of ``sources`` (author values, in order of trust) that names
    anyone (:func:`_clean_names`); a name written in capitals alone takes the case a later
    source writes it in (:func:`_recased`)."""
    for k, source in enumerate(sources):
        names = unique(name for raw in source for name in _clean_names(raw))
        if names:
            return _recased(names, sources[k + 1 :]) if any(map(_shouted, names)) else names
    return ()

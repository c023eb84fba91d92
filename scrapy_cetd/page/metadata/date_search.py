"""The publication date that `htmldate <https://htmldate.readthedocs.io>`_ finds in a page
(``<time>`` elements, the date in the URL, the patterns of common CMSs; on an article, the
dates written next to its headline, then anywhere on the page), within bounds: htmldate's
search cannot be stopped once started, so a page is searched only when what it would read is
known to be bounded, and its calls to dateparser are counted."""

# htmldate loads data when imported: it is imported when first needed.
# ruff: noqa: PLC0415

from __future__ import annotations

import threading
import warnings
from contextvars import ContextVar
from functools import cache
from typing import Any, NamedTuple

import lxml.html
from lxml import etree

from scrapy_cetd.limits import PARSER_MAX_DEPTH, check_deadline, time_left
from scrapy_cetd.page.dom import has_depth
from scrapy_cetd.page.parse import to_tree
from scrapy_cetd.result import NoteKind

_UNKNOWN_ZONE = r"tzname .* identified but not understood"
"""The start of the warning dateutil gives for a zone abbreviation it does not know."""
_DATEUTIL_PARSER = r"dateutil\.parser\._parser"
"""The module that gives it."""
_UNDATED_TYPES = frozenset({"product", "collection"})
"""Page types that are no dated publication: the dates a product or a category of products
shows are those of its offers, its reviews, its stock and its copyright, which htmldate takes
for the page's; only the date the page declares is its own."""
_SECTION_LEVELS = 3
"""Levels above the headline's ``<h1>`` searched for an article's written date: the
headline's block, the header that holds it with the byline, and the article around them.
Fewer miss the bylines set beside the headline's block; more reach the sidebars and the
footer and their dates."""
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
_SECONDS_PER_CHARACTER = 1e-6
"""The time htmldate's fast mode may take per character of a page's text, twice the worst it
was seen to take (its patterns over the serialised page: half a second a megabyte of a text
full of years): a page is searched only when the time budget left allows for it; otherwise it
is dated from what it declares."""
_SECONDS_PER_CANDIDATE = 0.025
"""The worst time htmldate's extensive mode takes per text that looks like a date (dateparser
tries every language it knows on a text it cannot read, 18 to 25 milliseconds): a part of the
page is read only when the time budget left allows for all of them. Under a short budget this
leaves the written date of an article unread (60 such texts need 1.5 s): the result then says
so (:attr:`~scrapy_cetd.result.NoteKind.DATE_SEARCH_CUT_SHORT`)."""
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
_CUT_SHORT: ContextVar[list[str] | None] = ContextVar("scrapy_cetd_date_cut_short", default=None)
"""Why the time budget cut short the search running in this context, if it did."""


class DateFound(NamedTuple):
    """What :func:`published_date` found."""

    date: str | None
    """The publication date, ISO 8601, or ``None``."""
    cut_short: str | None
    """Why the time budget cut the search short (a
    :attr:`~scrapy_cetd.result.NoteKind.DATE_SEARCH_CUT_SHORT` note), or
    ``None`` when it was not."""


def _cut_short(why: str) -> None:
    """Note that the time budget cut the running search short, the first time only."""
    cuts = _CUT_SHORT.get()
    if cuts is not None and not cuts:
        cuts.append(NoteKind.DATE_SEARCH_CUT_SHORT.note(why))


def html_tree(root: etree._Element) -> etree._Element:
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
            if budget is not None and budget < _SECONDS_PER_CANDIDATE:
                _cut_short(f"{budget:.3f} s left of the time budget for dateparser's next text")
                raise _DatingStoppedError
            if left <= 0:
                raise _DatingStoppedError
            _DATEPARSER_LEFT.set(left - 1)
        return self.parser.get_date_data(text)


_BOUNDING = threading.Lock()


@cache
def bound_dateparser() -> None:
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
    this many ``characters``, at :data:`_SECONDS_PER_CHARACTER` (noted when it does not)."""
    left = time_left()
    if left is None or characters * _SECONDS_PER_CHARACTER <= left:
        return True
    _cut_short(f"{left:.3f} s left of the time budget for a search of {characters} characters")
    return False


def _affords_extensive(part: etree._Element) -> bool:
    """Whether htmldate's extensive mode may read ``part``: at most
    :data:`_EXTENSIVE_MAX_ELEMENTS` elements, a bounded reading of the elements it reads whole
    (:func:`_reads_little`), and at most :data:`_EXTENSIVE_MAX_CANDIDATES` texts that look
    like dates, for which the time budget left allows :data:`_SECONDS_PER_CANDIDATE` each
    (noted when it does not)."""
    if _count(_ELEMENTS, part) > _EXTENSIVE_MAX_ELEMENTS:
        return False
    if not _reads_little(part, extensive=True):
        return False
    candidates = _date_candidates(part)
    if candidates > _EXTENSIVE_MAX_CANDIDATES:
        return False
    left = time_left()
    if left is None or candidates * _SECONDS_PER_CANDIDATE <= left:
        return True
    milliseconds = round(_SECONDS_PER_CANDIDATE * 1000)
    _cut_short(
        f"{left:.3f} s left of the time budget for {candidates} texts that look like dates "
        f"({milliseconds} ms each)"
    )
    return False


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


def published_date(
    root: etree._Element, url: str | None, page_type: str | None, modified: str | None = None
) -> DateFound:
    """The publication date htmldate finds in the page of ``root``, whose address is ``url``
    (and why the time budget cut the search short, if it did):
    in its fast mode on the whole page, then, on an article (``page_type``) where that finds
    none, in its extensive mode (the dates written in the text, ``November 2, 2022``) on the
    headline's section (:func:`_headline_section`), then on the whole page.

    ``modified`` is the date the page declares it was last modified. Asked for the original
    date, htmldate gives the modification date its header declares when it finds no other (its
    reserve): a date of the day of ``modified`` is taken as that reserve, and on an article the
    written date is searched as when nothing was found, the reserve kept unless the search
    finds an earlier day (a post updated months after it was written would otherwise be dated
    by its update; a later day is no publication date of a page modified before it).

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
        return DateFound(None, None)
    cuts: list[str] = []
    allowance = _DATEPARSER_LEFT.set(_DATEPARSER_CALLS)
    noting = _CUT_SHORT.set(cuts)
    try:
        found = _published(root, url, page_type, modified)
    finally:
        _CUT_SHORT.reset(noting)
        _DATEPARSER_LEFT.reset(allowance)
    return DateFound(found, None if found is not None or not cuts else cuts[0])


def _published(
    root: etree._Element, url: str | None, page_type: str | None, modified: str | None
) -> str | None:
    root = html_tree(root)
    characters = _count(_TEXT_LENGTH, root)
    if (
        has_depth(root, _HTMLDATE_MAX_DEPTH)
        or not _reads_little(root, extensive=False, characters=characters)
        or not _affords_search(characters)
    ):
        return _htmldate(_declarations(root), url, extensive=False)
    reserve = _htmldate(root, url, extensive=False)
    if page_type != "article" or (reserve is not None and not _on_day(reserve, modified)):
        return reserve
    section = _headline_section(root)
    for part in (root,) if section is None else (section, root):
        check_deadline("dating the article")
        if not _affords_extensive(part):
            break  # the whole page holds the section's and has less time left
        found = _htmldate(part, url, extensive=True)
        if found is not None and _not_first_of_month(found) and _before(found, modified):
            return found
    return reserve


def _on_day(found: str, modified: str | None) -> bool:
    """Whether the date htmldate ``found`` is of the day of the declared ``modified`` date
    (ISO 8601 both: the day is their first ten characters)."""
    return modified is not None and found[:10] == modified[:10]


def _before(found: str, modified: str | None) -> bool:
    """Whether the date htmldate ``found`` is of a day before the declared ``modified`` date,
    or the page declares none."""
    return modified is None or found[:10] < modified[:10]


def _htmldate(root: etree._Element, url: str | None, *, extensive: bool) -> str | None:
    from htmldate import find_date  # imported when asked for: its import takes a while

    _ignore_unknown_zones()
    try:
        bound_dateparser()
        found = find_date(root, extensive_search=extensive, original_date=True, url=url)
    except Exception:  # a heuristic that fails, or stops (_DatingStoppedError), loses no more
        return None
    return found if isinstance(found, str) else None

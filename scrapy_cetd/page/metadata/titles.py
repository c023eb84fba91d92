"""The headline of a page: a structured title, the ``<h1>`` that heads the content or the
``<title>``, never with the site's name joined to it."""

# The separators of titles include the dashes typography puts there.
# ruff: noqa: RUF001

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import islice
from urllib.parse import urlsplit

from lxml import etree

from scrapy_cetd.page.markup import text_of
from scrapy_cetd.page.metadata.values import MAX_TEXT, clean

_URL_SUFFIX = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$", re.IGNORECASE)
"""A bare host name (``example.com``), a common title suffix."""
_TITLE_SEPARATORS = (" | ", " - ", " – ", " — ", " :: ", " · ", " • ", " « ", " » ", " / ")
"""What separates a headline from the site's name in ``<title>``."""
_MAX_HEADINGS = 20
"""``<h1>`` elements read for the headline."""
_WORD = re.compile(r"[^\W_]+")
"""A word of a title, for comparing titles (letters and digits of any script)."""
_HEADING_IN_TITLE = 0.75
"""Share of an ``<h1>``'s words found in ``<title>`` for the two to name the same page."""
_STRUCTURED_IN_TITLE = 0.5
"""Share of a structured title's words found in the page's agreeing ``<title>`` or ``<h1>``
below which it names something else."""


def _headline_heading(
    root: etree._Element, document_title: str | None, is_site: Callable[[str], bool]
) -> str | None:
    """The text of the ``<h1>`` that is the headline: the first with a text (the headline on
    most article pages) that is not a link home (:func:`_links_home`), unless most of its
    words are not in ``<title>``, or it is the part ``<title>`` joins to the rest
    (:func:`_rest_of_title`), while a later one is that (the first is then a logo, a section's
    name or a cookie banner), or while ``<title>`` names an ``<h2>``
    (:func:`_titled_subheading`)."""
    texts = (
        text
        for heading in root.iter("h1")
        if (text := _heading_text(heading)) and not _links_home(heading)
    )
    first = next(texts, None)
    if first is None or not document_title:
        return first
    rest = _rest_of_title(first, document_title)
    if rest is None and _share(first, document_title) >= _HEADING_IN_TITLE:
        return first
    for text in islice(texts, _MAX_HEADINGS - 1):
        if _share(text, rest or document_title) >= _HEADING_IN_TITLE:
            return text
    if rest is None:
        return _titled_subheading(root, first, document_title, is_site) or first
    return first


def _titled_subheading(
    root: etree._Element, first: str, document_title: str, is_site: Callable[[str], bool]
) -> str | None:
    """The text of an ``<h2>`` that ``<title>`` names, alone or joined to more by a separator
    (``Headline | Site``), on a page whose ``<h1>`` ``<title>`` does not name: the ``<h1>`` is
    then a section's name (``Health Center`` above an article whose headline a template set
    one level lower), unless it holds the ``<h2>``'s text (a numbered chapter's ``<h1>``
    above its name). An ``<h2>`` that names the site (``is_site``) is no headline: a home
    page's ``<title>`` joins its name to the site's, which the page repeats in an ``<h2>``."""
    folded_first = _fold(first)
    folded_title = _fold(document_title)
    for heading in islice(root.iter("h2"), _MAX_HEADINGS):
        text = _heading_text(heading)
        if not text:
            continue
        folded = _fold(text)
        if (
            (folded == folded_title or _headed(document_title, text) == text)
            and folded not in folded_first
            and not is_site(text)
        ):
            return text
    return None


def _heading_text(heading: etree._Element) -> str | None:
    """The text of ``heading``, up to :data:`MAX_TEXT`, without the pilcrow (``¶``) a
    documentation generator links each heading with."""
    return clean(text_of(heading).strip().removesuffix("\u00b6")[:MAX_TEXT])


def _rest_of_title(heading: str, title: str) -> str | None:
    """What ``title`` joins ``heading`` to by a separator (``Headline`` in ``Headline — Site``
    when the ``<h1>`` is ``Site``), or ``None``: the first ``<h1>`` is then a logo or a
    section's name when a later one is that rest."""
    for separator in _TITLE_SEPARATORS:
        if title.endswith(separator + heading):
            return title[: -len(separator + heading)]
        if title.startswith(heading + separator):
            return title[len(heading + separator) :]
    return None


def _links_home(heading: etree._Element) -> bool:
    """Whether the text of ``heading`` is a link to a site's home page (a URL without a path):
    the site's name as a logo, which templates put in an ``<h1>``, or wrap an ``<h1>`` in
    (``<a href="/"><h1>Site</h1></a>``), not the page's headline."""
    for link in (*heading.iterancestors("a"), *heading.iter("a")):
        try:
            parts = urlsplit((link.get("href") or "").strip())
        except ValueError:
            continue
        home = parts.path in {"", "/"} if parts.netloc else parts.path == "/" and not parts.scheme
        if home and not parts.query:
            return clean(text_of(link)) == clean(text_of(heading))
    return False


def _share(part: str, whole: str) -> float:
    """The share of the words of ``part`` that are words of ``whole`` (case ignored)."""
    words = set(_WORD.findall(part.casefold()))
    if not words:
        return 0.0
    return len(words & set(_WORD.findall(whole.casefold()))) / len(words)


def _document_title(root: etree._Element) -> str | None:
    for element in root.iter("title"):
        return text_of(element).lstrip()[:MAX_TEXT]
    return None


def _site_name_test(
    site_name: str | None, url: str | None, authors: Sequence[str] = ()
) -> Callable[[str], bool]:
    """Whether a part of a title names the site rather than the page: the site name the page
    declares, a host name, a part of at most four words that holds a label of the host's name
    (``Doom9's Forum`` on ``doom9.org``), or the name of one of the page's ``authors`` (a
    personal site's ``Headline | Jane Doe``)."""
    names = {_fold(name) for name in (site_name, *authors) if name}
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

    return is_site


def _strip_site_name(title: str, is_site: Callable[[str], bool]) -> str:
    """``title`` without a site name (:func:`_site_name_test`) joined to it by a separator
    (``Headline | Site``, ``Site - Headline``)."""
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


def headline(
    root: etree._Element,
    structured: Sequence[str | None],
    name: str | None,
    *,
    site_name: str | None,
    url: str | None,
    authors: Sequence[str] = (),
) -> str | None:
    """The headline of the page of ``root``: the first of its ``structured`` titles (JSON-LD's
    ``headline``, microdata's, the ``<meta>`` titles, in that order), its ``<h1>``
    (:func:`_headline_heading`), its ``<title>``, its JSON-LD ``name``; each without the site's
    name, or one of its ``authors``, joined to it (:func:`_strip_site_name`). When the ``<h1>``
    and the ``<title>`` agree, a structured title that neither holds is not taken."""
    document_title = clean(_document_title(root))
    is_site = _site_name_test(site_name, url, authors)
    heading = _headline_heading(root, document_title, is_site)
    candidates = list(structured)
    if heading and document_title and _share(heading, document_title) >= _HEADING_IN_TITLE:
        # The page's two visible titles agree: a structured one that neither holds is a
        # summary, a teaser or a type's description, not this page's headline.
        candidates = [
            candidate
            for candidate in candidates
            if candidate
            and max(_share(candidate, heading), _share(candidate, document_title))
            >= _STRUCTURED_IN_TITLE
        ]
    for candidate in (*candidates, heading, document_title, name):
        if candidate:
            return _strip_site_name(_headed(candidate, heading), is_site)
    return None

"""Finishing an extraction's HTML for its reader: its links and images made absolute against
the page's URL and ``<base href>`` (within a bound on how much the HTML may grow), only its
semantic attributes kept in the clean mode, and its Markdown written. The HTML the extractor
rendered (:mod:`scrapy_cetd.page.output`) is parsed again for that (:func:`content_tree`),
only when something may change.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from html import unescape as html_unescape
from html.parser import HTMLParser
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit

import lxml.html
from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, MAX_URL, PARSER_MAX_DEPTH, check_deadline
from scrapy_cetd.page.dom import local_tag
from scrapy_cetd.page.markdown import to_markdown
from scrapy_cetd.result import NoteKind

URL_ATTRIBUTES = ("href", "src", "poster", "cite", "action", "formaction", "longdesc", "background")
"""Attributes that hold one URL, made absolute by :func:`absolute_links` (``srcset`` too)."""

SEMANTIC_ATTRIBUTES = frozenset(
    {
        *("href", "src", "srcset", "sizes", "alt", "title", "lang", "dir", "cite", "datetime"),
        *("colspan", "rowspan", "headers", "scope", "abbr", "span", "start", "reversed"),
        *("value", "type", "poster", "controls", "open", "label", "for", "name", "content"),
    }
)
"""The attributes :func:`clean_attributes` keeps: what the content means, not how the site
styles or scripts it (``class``, ``style``, ``id``, ``data-*``, ``on*``... go)."""

_LANGUAGE_CLASS = re.compile(r"^(?:language|lang)-[\w#+.-]{1,40}$")
_URL_MARKERS = tuple(f" {name}=" for name in (*URL_ATTRIBUTES, "srcset"))


def document_base(tree: etree._Element, url: str | None) -> str | None:
    """The URL relative links of ``tree``'s document resolve against: ``url`` joined with the
    document's first ``<base href>``, as a browser resolves them; ``None`` when neither
    gives an absolute URL. A ``<base href>`` that makes no valid URL (a port that is not a
    number...) is ignored, as browsers ignore it, and so is a URL longer than
    :data:`~scrapy_cetd.limits.MAX_URL` (joining a relative link reads the base's path
    segment by segment, so a longer one would make each link cost its length)."""
    page = url if url and is_absolute_url(url) else None
    for element in tree.getroottree().getroot().iter("base"):
        href = (element.get("href") or "").strip()
        if href:
            joined = _join(page, href) if page and len(href) <= MAX_URL else href
            return joined if is_absolute_url(joined) else page
    return page


_NOT_IN_ATTRIBUTES = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters no attribute of an lxml tree can hold (XML's): a URL holding one, in ``<base>`` or
given with the page, is no base to write links against."""


def is_absolute_url(url: str) -> bool:
    """Whether ``url`` is an absolute URL links can be resolved against: a scheme and a host
    (or a ``file:`` URL's path: a page saved on disk, as a browser opens it), a port that is
    a number, at most :data:`~scrapy_cetd.limits.MAX_URL` characters, none of them one an
    attribute cannot hold."""
    if len(url) > MAX_URL or _NOT_IN_ATTRIBUTES.search(url):
        return False
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number
    except ValueError:
        return False
    if parts.scheme == "file":
        return parts.path.startswith("/")
    return bool(parts.scheme and parts.netloc)


def content_tree(html: str) -> etree._Element:
    """A tree of an extraction's ``html`` (one element serialised, as
    :attr:`~scrapy_cetd.result.ExtractionResult.html` is): its root is that element.

    lxml's parser stops at :data:`~scrapy_cetd.limits.PARSER_MAX_DEPTH`; the HTML of a tree
    given to :func:`scrapy_cetd.extract` already parsed can nest deeper, and is then parsed by
    Python's :mod:`html.parser` into a tree of the same elements."""
    document = etree.fromstring(html, parser=_PARSER)
    if document is None:  # no element and no text: a comment, spaces
        return etree.Element("div")
    body = document.find("body")
    if body is None:  # pragma: no cover - lxml's HTML parser always makes one
        body = document
    root = body if html[:5].lower() == "<body" or len(body) != 1 else body[0]
    if _reaches(root, PARSER_MAX_DEPTH - 2):
        return _python_tree(html)
    for element in root.iter(*_RAW_TEXT):
        _unescape_raw_text(element)
    return root


_RAW_TEXT = ("iframe", "noembed", "noframes", "xmp", "plaintext")
"""Elements whose text lxml writes escaped (``&lt;``) and its parser reads back raw: the
text of the first parse is restored by unescaping it."""


def _unescape_raw_text(element: etree._Element) -> None:
    text = element.text
    if not text:
        return
    if local_tag(element) == "plaintext":
        # it reads everything up to the end, the end tags written after it included
        text = text[: text.rfind("</plaintext")] if "</plaintext" in text else text
    if "&" in text or element.text != text:
        element.text = html_unescape(text)


_PARSER = etree.HTMLParser(huge_tree=True)
"""lxml's parser without :mod:`lxml.html`'s element classes: the Markdown and the links read
tags and attributes alone, and lxml.html looks each element's class up in Python as it is
first reached."""


def _reaches(root: etree._Element, depth: int) -> bool:
    """Whether the last descendant of ``root`` lies ``depth`` elements below it (where lxml's
    parser stops reading a document that nests deeper)."""
    node, level = root, 0
    while len(node) and level < depth:
        node = node[-1]
        level += 1
    return level >= depth


class _TreeBuilder(HTMLParser):
    """Python's HTML tokenizer feeding lxml's :class:`~lxml.etree.TreeBuilder`: the HTML of an
    extraction (well formed: every element closed, as lxml writes it) at any depth."""

    _VOID = frozenset(
        {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"}
        | {"source", "track", "wbr", "basefont", "frame", "keygen"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = etree.TreeBuilder()
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        try:
            etree.QName(tag)
        except ValueError:  # a name lxml's HTML parser keeps and its builder refuses (o:p)
            return  # the element is left out, its content kept; its end tag is a stray one
        attributes: dict[str | bytes, str | bytes] = {}
        for name, value in attrs:
            with contextlib.suppress(ValueError):
                etree.QName(name)  # a name lxml accepts
                attributes[name] = value or ""
        self.builder.start(tag, attributes)
        if tag in self._VOID:
            self.builder.end(tag)
        else:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or (self.open[-1] != tag and tag not in self.open):
            return  # a stray end tag (lxml writes none)
        while self.open:
            name = self.open.pop()
            self.builder.end(name)
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        self.builder.data(data)


def _python_tree(html: str) -> etree._Element:
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    while builder.open:
        builder.builder.end(builder.open.pop())
    root: etree._Element = builder.builder.close()
    return root


def _with_attributes(
    root: etree._Element, step: str
) -> Iterator[tuple[etree._Element, etree._Attrib]]:
    """The elements of ``root``'s tree that have attributes, in document order, each with its
    attributes to change in place; the time budget is checked every
    :data:`~scrapy_cetd.limits.CHECK_EVERY` elements, ``step`` naming what ran out of it.
    The elements are all listed first, so that every proxy stays alive during the walk (see
    :func:`scrapy_cetd.page.output._trim`)."""
    elements = list(root.iter())
    for i, element in enumerate(elements):
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline(step)
        attributes = element.attrib
        if attributes:
            yield element, attributes


def absolute_links(
    root: etree._Element, base_url: str, *, growth: int | None = None
) -> tuple[bool, int]:
    """Make the links and images below ``root`` absolute against ``base_url`` (the attributes
    of :data:`URL_ATTRIBUTES` and every URL of a ``srcset``); whether anything changed, and
    how many values were left as they are because making them absolute would have made the
    HTML more than ``growth`` characters longer (``None``: no bound). A value that
    :func:`~urllib.parse.urljoin` cannot read stays as it is.

    The bound keeps the output linear in the page: each link can grow by the length of the
    base URL, and a long ``<base href>`` over many links, or a ``srcset`` of many
    candidates, would otherwise multiply them. It keeps the time linear too: once the room
    left is shorter than the base URL, a link without a scheme is left as it is unjoined (a
    join costs the base's length)."""
    changed = False
    left = 0
    room = growth
    base_length = _written(base_url)
    for _, attributes in _with_attributes(root, "making the links absolute"):
        for name in URL_ATTRIBUTES:
            value = attributes.get(name)
            if value is not None and value.strip():
                if room is not None and base_length > room and not _SCHEME.match(value):
                    left += 1
                    continue
                absolute = _join(base_url, value.strip())
                if absolute == value:
                    continue
                grown = _written(absolute) - _written(value)
                if room is not None and grown > room:
                    left += 1
                    continue
                if room is not None:
                    room -= max(0, grown)
                attributes[name] = absolute
                changed = True
        srcset = attributes.get("srcset")
        if not srcset:
            continue
        if room is not None and (srcset.count(",") + 1) * _written(base_url) > room:
            left += 1  # checked before joining: the joined value could be that long
            continue
        absolute = ", ".join(
            " ".join([_join(base_url, parts[0]), *parts[1:]])
            for candidate in srcset.split(",")
            if (parts := candidate.split())
        )
        if absolute != srcset:
            if room is not None:
                room -= max(0, _written(absolute) - _written(srcset))
            attributes["srcset"] = absolute
            changed = True
    return changed, left


_ESCAPED_IN_URLS = re.compile(r"[^\x21-\x7e]|[&\"<>]")
"""What a serializer writes longer than itself in a link: ``&`` as ``&amp;``, a space or a
character outside ASCII as ``%XX`` escapes of its UTF-8 bytes (at most twelve characters)."""


_SCHEME = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*:")
"""The scheme that starts an absolute URL (which a join leaves as it is)."""


def _written(url: str) -> int:
    """At most the characters ``url`` takes once written in the HTML or the Markdown."""
    return len(url) + 11 * len(_ESCAPED_IN_URLS.findall(url))


def _join(base_url: str, value: str) -> str:
    try:
        return urljoin(base_url, value)
    except ValueError:
        return value


def clean_attributes(root: etree._Element) -> bool:
    """Keep only the :data:`SEMANTIC_ATTRIBUTES` below ``root`` (and, on ``<pre>`` and
    ``<code>``, the ``language-…`` class that names a code block's language); whether
    anything changed."""
    changed = False
    for element, attributes in _with_attributes(root, "cleaning the attributes"):
        kept = [(name, value) for name, value in attributes.items() if name in SEMANTIC_ATTRIBUTES]
        if len(kept) == len(attributes):
            continue
        language = ""
        if local_tag(element) in ("pre", "code"):
            names = (attributes.get("class") or "").split()
            language = next((name for name in names if _LANGUAGE_CLASS.match(name)), "")
        # Cleared and set again, not deleted by name: lxml refuses to delete a name it reads
        # as a namespace (``{`` left by damaged markup); the kept names are plain ones.
        attributes.clear()
        for name, value in kept:
            attributes[name] = value
        if language:
            attributes["class"] = language
        changed = True
    return changed


URL_GROWTH = 4
"""Making the links absolute may make an extraction's HTML longer by at most this many times
its length (plus :data:`URL_GROWTH_FLOOR`): far more than real pages need (their links grow by
the length of their base URL), and a bound on a page of many links under a long base URL."""

URL_GROWTH_FLOOR = 1_000_000
"""Characters that making the links absolute may add to any extraction's HTML."""


class Finished(NamedTuple):
    """What :func:`finish_html` gives."""

    html: str
    """The HTML, with its links absolute and, in the clean mode, only its semantic attributes."""
    markdown: str | None
    """Its Markdown, when asked for; else ``None``."""
    notes: tuple[str, ...] = ()
    """A :attr:`~scrapy_cetd.result.NoteKind.LINKS_LEFT_RELATIVE` note when links were left
    relative, as making them absolute would have grown the HTML past :data:`URL_GROWTH`."""


def finish_html(
    html: str, *, base_url: str | None, clean: bool = False, markdown: bool = False
) -> Finished:
    """An extraction's ``html`` with its links absolute against ``base_url`` (as long as the
    HTML grows by no more than :data:`URL_GROWTH` times its length, then left relative, with
    a note) and, when ``clean``, only its semantic attributes; and its Markdown when
    ``markdown`` (else ``None``). The HTML is parsed again only when something may change, and
    written again only when something did; otherwise it is returned as it is."""
    if not html:
        return Finished(html, "" if markdown else None)
    relative = base_url is not None and any(marker in html for marker in _URL_MARKERS)
    if not (relative or clean or markdown):
        return Finished(html, None)
    root = content_tree(html)
    changed, left = False, 0
    if relative and base_url is not None:
        growth = URL_GROWTH * len(html) + URL_GROWTH_FLOOR
        changed, left = absolute_links(root, base_url, growth=growth)
    # Once absolute_links has run, every link it could make absolute is.
    text = to_markdown(root, base_url=None if relative else base_url) if markdown else None
    if clean:
        changed = clean_attributes(root) or changed
    if changed:
        html = lxml.html.tostring(root, encoding="unicode", with_tail=False)
    notes = (NoteKind.LINKS_LEFT_RELATIVE.note(f"{left} kept relative"),) if left else ()
    return Finished(html, text, notes)

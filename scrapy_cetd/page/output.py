"""Turning an extractor's decision into the two outputs every algorithm gives (§0.6).

An extractor decides, for each element of a :class:`~scrapy_cetd.page.dom.DomView`, one of three
:class:`Keep` modes. :func:`render` then writes a copy of the root holding only what is kept,
serialises it as HTML (structure, attributes, links and images intact) and as plain text with
one block per line. The input tree is never touched: the copy is made first and trimmed.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import enum
import re
from collections.abc import Callable, Iterator, Sequence
from html import unescape as html_unescape
from html.parser import HTMLParser
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit

import lxml.html
from lxml import etree

from scrapy_cetd.limits import PARSER_MAX_DEPTH, check_deadline
from scrapy_cetd.page import accel
from scrapy_cetd.page.dom import BLOCK_TAGS, UNSHOWN_CONTENT_TAGS, DomView, joined_text, local_tag
from scrapy_cetd.page.markdown import to_markdown
from scrapy_cetd.result import blank

_SPACES = re.compile(r"\s+")

_CHECK_EVERY = 4095
"""Long loops check the time budget once in 4,096 iterations, when ``i & _CHECK_EVERY`` is
``_CHECK_EVERY``: a shorter loop adds no check to those made between the steps."""


class Keep(enum.IntEnum):
    """What the output keeps of one element."""

    DROP = 0
    """Neither the element nor anything below it."""
    SHELL = 1
    """The tag and its attributes, as a container of kept descendants; no text of its own."""
    TEXT = 2
    """The tag, its attributes and its own text; each child decides for itself."""


KEEP = (Keep.DROP, Keep.SHELL, Keep.TEXT)
"""The modes, as the passes that take them as ``keep`` want them (the compiled module does not
import this one)."""


def content_modes(
    view: DomView, content: Sequence[bool], shells: Sequence[bool], *, shell_text: bool
) -> list[Keep]:
    """Modes for "content roots plus shells" algorithms: everything below a content element is
    kept whole; a shell keeps its own text only when ``shell_text`` is true."""
    return content_mode_list(view.parent, content, shells, shell_text, KEEP)


@accel.twin(accel.compiled.content_modes)
def content_mode_list(
    parent: list[int],
    content: Sequence[bool],
    shells: Sequence[bool],
    shell_text: bool,
    keep: tuple[Keep, Keep, Keep],
) -> list[Keep]:
    """:func:`content_modes` on a view's parents, the modes given as ``keep`` (:data:`KEEP`),
    in pure Python: the reference the compiled pass reproduces."""
    drop, shell, text = keep
    shell_mode = text if shell_text else shell
    modes: list[Keep] = []
    inside: list[bool] = []
    for i in range(len(parent)):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("choosing what to keep")
        p = parent[i]
        inside.append(content[i] or (p >= 0 and inside[p]))
        if inside[i]:
            modes.append(text)
        elif shells[i]:
            modes.append(shell_mode)
        else:
            modes.append(drop)
    return modes


def own_modes(view: DomView, content: Sequence[bool]) -> list[Keep]:
    """Modes for "each element on its own" algorithms: a content element keeps its own text,
    an element with content below it is a shell, every other element is dropped."""
    return own_mode_list(view.parent, content, KEEP)


@accel.twin(accel.compiled.own_modes)
def own_mode_list(
    parent: list[int], content: Sequence[bool], keep: tuple[Keep, Keep, Keep]
) -> list[Keep]:
    """:func:`own_modes` on a view's parents, the modes given as ``keep`` (:data:`KEEP`), in
    pure Python: the reference the compiled pass reproduces."""
    drop, shell, text = keep
    size = len(parent)
    below = [False] * size
    for i in range(size - 1, 0, -1):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("choosing what to keep")
        if content[i] or below[i]:
            below[parent[i]] = True
    return [text if content[i] else shell if below[i] else drop for i in range(size)]


_RENDER_HTML: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "scrapy_cetd_render_html", default=True
)
"""Whether :func:`render` writes the HTML (see :func:`text_only`)."""


@contextlib.contextmanager
def text_only() -> Iterator[None]:
    """In the block (in this thread), :func:`render` writes no HTML: it gives ``("", text)``,
    the text unchanged. For a caller that throws the HTML away
    (``scrapy_cetd.extract(..., html=False)``), whatever extractor it runs."""
    token = _RENDER_HTML.set(False)
    try:
        yield
    finally:
        _RENDER_HTML.reset(token)


def render(view: DomView, modes: Sequence[Keep]) -> tuple[str, str]:
    """The kept part of ``view`` as ``(html, text)``; ``("", "")`` when nothing is kept, and
    ``("", text)`` inside :func:`text_only`.

    The HTML is a deep copy of the root trimmed in place and serialised by lxml. Only the copies
    of elements that change are visited (see :func:`_trim`); a kept subtree with nothing to
    remove is never walked. The text is then written from the view itself, with the strings the
    trimmed copy holds, exactly as :func:`element_text` would read them from the copy.

    The compiled version gives the same two strings without copying the whole root: it builds
    the copy from the kept elements only. Attributes whose names cannot be written back
    (:func:`drop_unsafe_attributes`) are left out of the HTML.
    """
    return render_view(
        view, modes, KEEP, BLOCK_TAGS, drop_unsafe_attributes, html=_RENDER_HTML.get()
    )


@accel.twin(accel.compiled.render)
def render_view(  # noqa: PLR0917 - the parameters of its compiled twin
    view: DomView,
    modes: Sequence[Keep],
    keep: tuple[Keep, Keep, Keep],
    block_tags: frozenset[str],
    clean: Callable[[etree._Element], None],
    html: bool = True,
) -> tuple[str, str]:
    """:func:`render` in pure Python: the reference the compiled version reproduces. The
    compiled module imports nothing of this package, so it is given :data:`KEEP`,
    :data:`~scrapy_cetd.page.dom.BLOCK_TAGS` and :func:`drop_unsafe_attributes` as ``keep``,
    ``block_tags`` and ``clean``; the reference reads ``modes`` as :class:`Keep` members and
    the block elements from ``block_tags``, and cleans the copy with ``clean``. With ``html``
    false the HTML is left out (the compiled version does not build it; the reference builds
    it, as its text is read from the trimmed copy)."""
    if modes[0] == keep[0]:
        return "", ""
    kept = kept_elements(view, modes)
    written, texts, tails = _html(view, modes, kept, clean)
    return written if html else "", _view_text(view, kept, texts, tails, block_tags)


def render_html(view: DomView, modes: Sequence[Keep]) -> str:
    """The HTML of :func:`render` alone, for an extractor that writes its text otherwise.

    The text is not written at all: the compiled :func:`render` writes it in buffers of four
    bytes a character, several times the memory of the page's parse on a page of long text.
    """
    if modes[0] == Keep.DROP:
        return ""
    return _html(view, modes, kept_elements(view, modes), drop_unsafe_attributes)[0]


def _html(
    view: DomView,
    modes: Sequence[Keep],
    kept: Sequence[bool],
    clean: Callable[[etree._Element], None],
) -> tuple[str, list[str | None], list[str | None]]:
    """The kept part of ``view`` as HTML (a deep copy of the root, trimmed, cleaned by
    ``clean`` and serialised), and the text and tail each kept element has in it
    (:func:`_trim`)."""
    clone = copy.deepcopy(view.elements[0])
    texts, tails = _trim(view, modes, kept, clone)
    clean(clone)
    return lxml.html.tostring(clone, encoding="unicode", with_tail=False), texts, tails


_UNSAFE_NAME_CHARACTERS = "\"'<>=/"
_UNSAFE_ATTRIBUTES = "descendant-or-self::*/@*[translate(name(), $unsafe, '') != name()]"


def drop_unsafe_attributes(root: etree._Element) -> None:
    """Remove the attributes below ``root`` whose *name* holds a quote, ``<``, ``>``, ``=`` or
    ``/``. A damaged page can leave such a name (``<div type="a><p style=" x"="">``); lxml
    writes it out verbatim, and the serialised fragment then reads differently (attribute
    text as text). One XPath pass, in C; a page without such names pays only the search."""
    found = root.xpath(_UNSAFE_ATTRIBUTES, unsafe=_UNSAFE_NAME_CHARACTERS)
    assert isinstance(found, list)
    for attribute in found:
        if not isinstance(attribute, etree._ElementUnicodeResult):
            continue
        owner, name = attribute.getparent(), attribute.attrname
        # ``owner.keys()``, not ``owner.attrib``: a membership test on ``attrib`` checks the name
        if owner is None or not isinstance(name, str) or name not in owner.keys():  # noqa: SIM118
            continue
        try:
            del owner.attrib[name]
        except (KeyError, ValueError):
            _drop_attribute_by_rebuilding(owner, name)


def _drop_attribute_by_rebuilding(owner: etree._Element, name: str) -> None:
    """Remove ``name`` from ``owner`` when lxml cannot delete it by name (a control character
    in it: ``ValueError``; a leading ``{...}``, which lxml reads as a namespace: ``KeyError``):
    the attributes are cleared and the others set again, those lxml accepts as plain names
    (on an element this damaged, a name such as ``0``, ``visibility:`` or ``{x}y`` is debris
    too)."""
    others = [(key, value) for key, value in owner.attrib.items() if key != name]
    owner.attrib.clear()
    for key, value in others:
        if isinstance(key, str) and key.startswith("{"):
            continue
        with contextlib.suppress(ValueError):
            owner.set(key, value)


def kept_elements(view: DomView, modes: Sequence[Keep]) -> list[bool]:
    """Whether each element is in the output: its mode keeps it and so do its ancestors'."""
    return kept_list(view.parent, modes, KEEP)


@accel.twin(accel.compiled.kept_elements)
def kept_list(
    parent: list[int], modes: Sequence[Keep], keep: tuple[Keep, Keep, Keep]
) -> list[bool]:
    """:func:`kept_elements` on a view's parents, the modes given as ``keep`` (:data:`KEEP`), in
    pure Python: the reference the compiled pass reproduces."""
    drop = keep[0]
    kept = [True] * len(parent)
    for i in range(1, len(parent)):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("rendering the output")
        kept[i] = modes[i] != drop and kept[parent[i]]
    return kept


def _changed(view: DomView, modes: Sequence[Keep], kept: Sequence[bool]) -> list[bool]:
    """Kept elements whose copy changes: a shell (its text and its children's tails go) or an
    element with a child to remove (a node outside the view, or a dropped element)."""
    elements, children = view.elements, view.children
    changed = [False] * len(view)
    for i, own in enumerate(children):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("rendering the output")
        if kept[i]:
            changed[i] = (
                modes[i] != Keep.TEXT
                or len(elements[i]) != len(own)
                or not all(kept[c] for c in own)
            )
    return changed


def _trim(
    view: DomView, modes: Sequence[Keep], kept: Sequence[bool], clone: etree._Element
) -> tuple[list[str | None], list[str | None]]:
    """Trim ``clone``, a deep copy of the view's root, to the kept elements; return the text
    and the tail each kept element has afterwards (``None`` where the output has none).

    A shell loses its text and its children's tails; a child that is not kept is removed, its
    tail joined to the text before it when the parent keeps its text. The walk goes down only
    to elements that change or have a changing descendant, pairing copies with originals
    child by child; the children an element loses go at once (:func:`remove_keeping_tails`).
    Every copy it touches stays referenced until the end: lxml frees a proxy by
    searching its ancestors for a live one, which would make a deep walk quadratic.
    """
    elements, children, runs = view.elements, view.children, view.runs
    changed = _changed(view, modes, kept)
    visit = changed[:]
    for i in range(len(view) - 1, 0, -1):
        if visit[i]:
            visit[view.parent[i]] = True

    texts: list[str | None] = [None] * len(view)
    tails: list[str | None] = [None] * len(view)
    for i, own in enumerate(children):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("rendering the output")
        if kept[i] and not changed[i]:  # then a text element whose children are all kept
            own_runs = runs[i]
            texts[i] = own_runs[0]
            for k, child in enumerate(own, 1):
                tails[child] = own_runs[k]

    alive: list[list[etree._Element]] = []
    stack = [(0, clone)] if visit[0] else []
    while stack:
        if len(alive) & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("rendering the output")
        i, duplicate = stack.pop()
        copies = list(duplicate)
        alive.append(copies)
        if not changed[i]:
            stack.extend((c, dup) for c, dup in zip(children[i], copies, strict=True) if visit[c])
            continue
        with_text = modes[i] == Keep.TEXT
        if not with_text:
            duplicate.text = None
        kept_copies: list[tuple[int, etree._Element]] = []
        to_remove: list[etree._Element] = []
        own = children[i]
        k = 0
        for original, dup in zip(list(elements[i]), copies, strict=True):
            if not with_text:
                dup.tail = None
            if k < len(own) and original is elements[own[k]]:
                child = own[k]
                k += 1
                if kept[child]:
                    kept_copies.append((child, dup))
                    if visit[child]:
                        stack.append((child, dup))
                    continue
            to_remove.append(dup)
        remove_keeping_tails(duplicate, to_remove)
        if with_text:
            texts[i] = duplicate.text
            for child, dup in kept_copies:
                tails[child] = dup.tail
    return texts, tails


def _view_text(
    view: DomView,
    kept: Sequence[bool],
    texts: Sequence[str | None],
    tails: Sequence[str | None],
    block_tags: frozenset[str],
) -> str:
    """:func:`element_text` of the trimmed copy, read from the view: the kept elements in
    document order with the text and tails they have in the copy; ``block_tags`` break lines."""
    parts: list[str] = []
    tags, parent = view.tags, view.parent
    open_elements: list[int] = []

    def close(index: int) -> None:
        if tags[index] in block_tags:
            parts.append("\n")
        tail = tails[index]
        if index and tail:
            parts.append(_SPACES.sub(" ", tail))

    for i, keep in enumerate(kept):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("writing the text")
        if not keep:
            continue
        while open_elements and open_elements[-1] != parent[i]:
            close(open_elements.pop())
        if tags[i] in block_tags:
            parts.append("\n")
        text = texts[i]
        if text:
            parts.append(_SPACES.sub(" ", text))
        open_elements.append(i)
    while open_elements:
        close(open_elements.pop())
    return _lines(parts)


def remove_keeping_tail(element: etree._Element) -> None:
    """Remove ``element`` and its subtree; its tail text stays in the document."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    if tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = joined_text(previous.tail, tail)
        else:
            parent.text = joined_text(parent.text, tail)
    parent.remove(element)


def remove_keeping_tails(parent: etree._Element, doomed: Sequence[etree._Element]) -> None:
    """Remove ``doomed``, children of ``parent`` in document order, with their subtrees, as
    :func:`remove_keeping_tail` removes them one after the other, in time linear in the text
    kept: the tails of each run of removed siblings are joined once onto what precedes the run
    (the sibling before it, or the parent's text), not one at a time onto a growing string
    (which costs the square of the text: 174 s for the comments of a 1 MB paragraph)."""
    if not doomed:
        return
    going = {id(child) for child in doomed}
    tails: list[str] = []
    before: etree._Element | None = None  # what precedes the current run; None: the text
    for child in parent:
        if id(child) in going:
            if child.tail:
                tails.append(child.tail)
            continue
        _join_tails(parent, before, tails)
        before = child
    _join_tails(parent, before, tails)
    for child in doomed:
        parent.remove(child)


def _join_tails(parent: etree._Element, before: etree._Element | None, tails: list[str]) -> None:
    """Append ``tails`` (then emptied) to ``before``'s tail, or to ``parent``'s text."""
    if not tails:
        return
    if before is None:
        parent.text = joined_text(parent.text, "".join(tails))
    else:
        before.tail = joined_text(before.tail, "".join(tails))
    tails.clear()


def element_text(root: etree._Element) -> str:
    """Visible text of ``root`` with one block per line (§0.6): block elements and ``<br>``
    break lines, whitespace inside a line is collapsed, empty lines are dropped; what an
    ``<iframe>``, ``<noembed>`` or ``<noframes>`` holds is not shown
    (:data:`~scrapy_cetd.page.dom.UNSHOWN_CONTENT_TAGS`)."""
    parts: list[str] = []
    stack: list[tuple[etree._Element, bool]] = [(root, False)]
    steps = 0
    while stack:
        steps += 1
        if steps & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("writing the text")
        element, closing = stack.pop()
        tag = local_tag(element)
        block = tag in BLOCK_TAGS
        if closing:
            if block:
                parts.append("\n")
            if element is not root and element.tail:
                parts.append(_SPACES.sub(" ", element.tail))
            continue
        if tag is None:
            if element.tail:
                parts.append(_SPACES.sub(" ", element.tail))
            continue
        if block:
            parts.append("\n")
        stack.append((element, True))
        if tag in UNSHOWN_CONTENT_TAGS:
            continue
        if element.text:
            parts.append(_SPACES.sub(" ", element.text))
        stack.extend((child, False) for child in reversed(element))
    return _lines(parts)


def _lines(parts: list[str]) -> str:
    """The text of ``parts`` with each line stripped and empty lines dropped, and the runs of
    whitespace that two parts make together (``"the "`` and ``" chart"`` around an image)
    collapsed as those inside a part are."""
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if not blank(line))


# --- the finished HTML: absolute links, the clean mode, and the tree Markdown is written from

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
    number...) is ignored, as browsers ignore it."""
    page = url if url and _absolute_url(url) else None
    for element in tree.getroottree().getroot().iter("base"):
        href = (element.get("href") or "").strip()
        if href:
            joined = _join(page, href) if page else href
            return joined if _absolute_url(joined) else page
    return page


_NOT_IN_ATTRIBUTES = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters no attribute of an lxml tree can hold (XML's): a URL holding one, in ``<base>`` or
given with the page, is no base to write links against."""


def _absolute_url(url: str) -> bool:
    if _NOT_IN_ATTRIBUTES.search(url):
        return False
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number
    except ValueError:
        return False
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
    candidates, would otherwise multiply them."""
    changed = False
    left = 0
    room = growth
    elements = list(root.iter())  # every proxy alive: see _trim
    for i, element in enumerate(elements):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("making the links absolute")
        attributes = element.attrib
        if not attributes:
            continue
        for name in URL_ATTRIBUTES:
            value = attributes.get(name)
            if value is not None and value.strip():
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
    elements = list(root.iter())
    for i, element in enumerate(elements):
        if i & _CHECK_EVERY == _CHECK_EVERY:
            check_deadline("cleaning the attributes")
        attributes = element.attrib
        if not attributes:
            continue
        drop = [name for name in attributes if name not in SEMANTIC_ATTRIBUTES]
        if not drop:
            continue
        language = ""
        if local_tag(element) in ("pre", "code"):
            names = (attributes.get("class") or "").split()
            language = next((name for name in names if _LANGUAGE_CLASS.match(name)), "")
        for name in drop:
            del attributes[name]
        if language:
            attributes["class"] = language
        changed = True
    return changed


LINKS_LEFT_RELATIVE = "links-left-relative"
"""The kind of note (``"links-left-relative: <detail>"`` in
:attr:`~scrapy_cetd.result.ExtractionResult.notes`) of an extraction whose links were not all
made absolute, as that would have grown its HTML past :data:`URL_GROWTH`."""

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
    """:data:`LINKS_LEFT_RELATIVE` when links were left relative."""


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
    notes = (f"{LINKS_LEFT_RELATIVE}: {left} kept relative",) if left else ()
    return Finished(html, text, notes)

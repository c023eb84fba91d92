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

import lxml.html
from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page import accel
from scrapy_cetd.page.dom import (
    BLOCK_TAGS,
    CODE_TAGS,
    PREFORMATTED_TAGS,
    UNSHOWN_CONTENT_TAGS,
    DomView,
    code_line_class,
    joined_text,
    local_tag,
)
from scrapy_cetd.result import blank

_SPACES = re.compile(r"\s+")


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
        if i & CHECK_EVERY == CHECK_EVERY:
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
        if i & CHECK_EVERY == CHECK_EVERY:
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
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("rendering the output")
        kept[i] = modes[i] != drop and kept[parent[i]]
    return kept


def _changed(view: DomView, modes: Sequence[Keep], kept: Sequence[bool]) -> list[bool]:
    """Kept elements whose copy changes: a shell (its text and its children's tails go) or an
    element with a child to remove (a node outside the view, or a dropped element)."""
    elements, children = view.elements, view.children
    changed = [False] * len(view)
    for i, own in enumerate(children):
        if i & CHECK_EVERY == CHECK_EVERY:
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
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("rendering the output")
        if kept[i] and not changed[i]:  # then a text element whose children are all kept
            own_runs = runs[i]
            texts[i] = own_runs[0]
            for k, child in enumerate(own, 1):
                tails[child] = own_runs[k]

    alive: list[list[etree._Element]] = []
    stack = [(0, clone)] if visit[0] else []
    while stack:
        if len(alive) & CHECK_EVERY == CHECK_EVERY:
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
    document order with the text and tails they have in the copy; ``block_tags``, the lines
    of code (:func:`~scrapy_cetd.page.dom.code_line_class`) and the newlines inside
    preformatted elements (:data:`~scrapy_cetd.page.dom.PREFORMATTED_TAGS`) break lines."""
    parts: list[str] = []
    tags, parent, elements = view.tags, view.parent, view.elements
    open_elements: list[int] = []
    in_code = [False] * len(kept)  # of each kept element: it is code, or lies in code
    in_pre = [False] * len(kept)  # of each kept element: it is preformatted, or lies in one
    breaks = [False] * len(kept)

    def close(index: int) -> None:
        if breaks[index]:
            parts.append("\n")
        tail = tails[index]
        if index and tail:
            parts.append(_written(tail, preformatted=in_pre[parent[index]]))

    for i, keep in enumerate(kept):
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("writing the text")
        if not keep:
            continue
        while open_elements and open_elements[-1] != parent[i]:
            close(open_elements.pop())
        inside = i > 0 and in_code[parent[i]]
        in_code[i] = inside or tags[i] in CODE_TAGS
        in_pre[i] = (i > 0 and in_pre[parent[i]]) or tags[i] in PREFORMATTED_TAGS
        breaks[i] = tags[i] in block_tags or (inside and code_line_class(elements[i]))
        if breaks[i]:
            parts.append("\n")
        text = texts[i]
        if text:
            parts.append(_written(text, preformatted=in_pre[i]))
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
    """Visible text of ``root`` with one block per line (§0.6): block elements, ``<br>``, the
    lines of code (:func:`~scrapy_cetd.page.dom.code_line_class`) and the newlines inside
    preformatted elements (:data:`~scrapy_cetd.page.dom.PREFORMATTED_TAGS`) break lines,
    whitespace inside a line is collapsed, empty lines are dropped; what an ``<iframe>``,
    ``<noembed>`` or ``<noframes>`` holds is not shown
    (:data:`~scrapy_cetd.page.dom.UNSHOWN_CONTENT_TAGS`)."""
    parts: list[str] = []
    # an element to open and whether it lies in code, or one to close and whether it broke;
    # then whether its parent is preformatted (its tail lies in a preformatted element)
    stack: list[tuple[etree._Element, bool, bool, bool]] = [(root, False, False, False)]
    steps = 0
    while stack:
        steps += 1
        if steps & CHECK_EVERY == CHECK_EVERY:
            check_deadline("writing the text")
        element, closing, flag, in_pre = stack.pop()
        tag = local_tag(element)
        if closing:
            if flag:
                parts.append("\n")
            if element is not root and element.tail:
                parts.append(_written(element.tail, preformatted=in_pre))
            continue
        if tag is None:
            if element.tail:
                parts.append(_written(element.tail, preformatted=in_pre))
            continue
        block = tag in BLOCK_TAGS or (flag and code_line_class(element))
        if block:
            parts.append("\n")
        stack.append((element, True, block, in_pre))
        if tag in UNSHOWN_CONTENT_TAGS:
            continue
        preformatted = in_pre or tag in PREFORMATTED_TAGS
        if element.text:
            parts.append(_written(element.text, preformatted=preformatted))
        code = flag or tag in CODE_TAGS
        stack.extend((child, False, code, preformatted) for child in reversed(element))
    return _lines(parts)


def _written(text: str, *, preformatted: bool) -> str:
    """``text`` as a part of the text: its whitespace runs collapsed to one space, but for the
    newlines of a preformatted text, which :func:`_lines` splits the lines at (it collapses the
    other runs of its lines)."""
    return text if preformatted else _SPACES.sub(" ", text)


def _lines(parts: list[str]) -> str:
    """The text of ``parts`` with each line stripped and empty lines dropped, and the runs of
    whitespace that two parts make together (``"the "`` and ``" chart"`` around an image)
    collapsed as those inside a part are."""
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if not blank(line))


# --- the finished HTML: absolute links, the clean mode, and the tree Markdown is written from

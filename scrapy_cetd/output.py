"""Turning an extractor's decision into the two outputs every algorithm gives (§0.6).

An extractor decides, for each element of a :class:`~scrapy_cetd.dom.DomView`, one of three
:class:`Keep` modes. :func:`render` then writes a copy of the root holding only what is kept,
serialises it as HTML (structure, attributes, links and images intact) and as plain text with
one block per line. The input tree is never touched: the copy is made first and trimmed.
"""

from __future__ import annotations

import copy
import enum
import re
from collections.abc import Sequence

import lxml.html
from lxml import etree

from scrapy_cetd.dom import BLOCK_TAGS, DomView, local_tag

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters libxml2 keeps from a damaged page but lxml refuses in new text."""

_SPACES = re.compile(r"\s+")


class Keep(enum.IntEnum):
    """What the output keeps of one element."""

    DROP = 0
    """Neither the element nor anything below it."""
    SHELL = 1
    """The tag and its attributes, as a container of kept descendants; no text of its own."""
    TEXT = 2
    """The tag, its attributes and its own text; each child decides for itself."""


def content_modes(
    view: DomView, content: Sequence[bool], shells: Sequence[bool], *, shell_text: bool
) -> list[Keep]:
    """Modes for "content roots plus shells" algorithms: everything below a content element is
    kept whole; a shell keeps its own text only when ``shell_text`` is true."""
    shell_mode = Keep.TEXT if shell_text else Keep.SHELL
    modes: list[Keep] = []
    inside: list[bool] = []
    parent = view.parent
    for i in range(len(view)):
        p = parent[i]
        inside.append(content[i] or (p >= 0 and inside[p]))
        if inside[i]:
            modes.append(Keep.TEXT)
        elif shells[i]:
            modes.append(shell_mode)
        else:
            modes.append(Keep.DROP)
    return modes


def render(view: DomView, modes: Sequence[Keep]) -> tuple[str, str]:
    """The kept part of ``view`` as ``(html, text)``; ``("", "")`` when nothing is kept."""
    if modes[0] == Keep.DROP:
        return "", ""
    root = view.elements[0]
    clone = copy.deepcopy(root)
    index = {id(element): i for i, element in enumerate(view.elements)}
    to_remove: list[etree._Element] = []
    parent_mode: dict[int, Keep] = {id(root): modes[0]}
    # The copy has the same shape as the original, so walking both in step pairs the nodes.
    # Both walks are held in lists: lxml frees a node proxy by searching its ancestors for
    # another live proxy, which costs O(depth) per node on deep pages unless they are alive.
    originals = list(root.iter())
    duplicates = list(clone.iter())
    for original, duplicate in zip(originals, duplicates, strict=True):
        i = index.get(id(original))
        parent_of = original.getparent()
        above = parent_mode.get(id(parent_of)) if parent_of is not None else None
        mode = modes[i] if i is not None else Keep.DROP
        if original is not root:
            if above is None:  # inside a node that is removed anyway
                continue
            if above != Keep.TEXT:
                duplicate.tail = None
            if mode == Keep.DROP:
                to_remove.append(duplicate)
                continue
        parent_mode[id(original)] = mode
        if mode != Keep.TEXT:
            duplicate.text = None
    for element in to_remove:
        _remove_keeping_tail(element)
    html = lxml.html.tostring(clone, encoding="unicode", with_tail=False)
    return html, element_text(clone)


def _remove_keeping_tail(element: etree._Element) -> None:
    """Remove ``element`` and its subtree; its tail text stays in the document."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    if tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = _NOT_XML.sub("", (previous.tail or "") + tail)
        else:
            parent.text = _NOT_XML.sub("", (parent.text or "") + tail)
    parent.remove(element)


def element_text(root: etree._Element) -> str:
    """Visible text of ``root`` with one block per line (§0.6): block elements and ``<br>``
    break lines, whitespace inside a line is collapsed, empty lines are dropped."""
    parts: list[str] = []
    stack: list[tuple[etree._Element, bool]] = [(root, False)]
    while stack:
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
        if element.text:
            parts.append(_SPACES.sub(" ", element.text))
        stack.append((element, True))
        stack.extend((child, False) for child in reversed(element))
    lines = (line.strip() for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)

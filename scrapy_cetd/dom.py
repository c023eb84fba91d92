"""A read-only, flattened view of the visible part of a page's ``<body>``.

Every extractor starts from the same view, built in one iterative pass: the visible elements in
document order (preorder) with their parents, children and text runs, stored in plain lists
beside the tree. The lxml tree itself is never modified, so the spider, the pipeline and every
extractor can share Scrapy's one parse (``docs/algorithms.md`` §0.1-§0.4).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

INVISIBLE_TAGS = frozenset({"script", "style", "noscript", "template"})
"""Elements that are never rendered for a reader (§0.2)."""

LINK_TAGS = frozenset({"a", "button", "select"})
"""Elements whose text is link text: CETD treats buttons and drop-downs as links (§0.4)."""

BLOCK_TAGS = frozenset(
    {
        *("p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "dl", "dt", "dd"),
        *("table", "tr", "td", "th", "pre", "blockquote", "section", "article", "header"),
        *("footer", "aside", "main", "nav", "figure", "figcaption", "form", "hr", "br", "address"),
    }
)
"""Elements that start a new line of text output (§0.6)."""


def local_tag(element: etree._Element) -> str | None:
    """The lower-case local name of an element; ``None`` for comments, PIs and entities."""
    tag = element.tag
    if not isinstance(tag, str):
        return None
    if tag[:1] == "{":
        tag = tag.rpartition("}")[2]
    return tag.lower()


def is_hidden(element: etree._Element) -> bool:
    """Whether markup alone hides the element: ``hidden``, ``input[type=hidden]`` or an inline
    ``display:none`` / ``visibility:hidden`` style (§0.2; no CSS is evaluated)."""
    if element.get("hidden") is not None:
        return True
    if local_tag(element) == "input" and (element.get("type") or "").strip().lower() == "hidden":
        return True
    style = element.get("style")
    if not style:
        return False
    compact = "".join(style.split()).lower()
    return "display:none" in compact or "visibility:hidden" in compact


def find_body(root: etree._Element) -> etree._Element | None:
    """The ``<body>`` of the document that contains ``root``, or ``root`` itself when it is an
    element below ``<html>`` (a fragment the caller chose). ``None`` when the document has no
    body (a frameset page, or a document with only a head)."""
    if local_tag(root) != "html":
        return root
    for child in root:
        if local_tag(child) == "body":
            return child
    return None


def has_frameset(root: etree._Element) -> bool:
    """Whether the document is a frameset page (its content lives in other documents)."""
    return any(local_tag(child) == "frameset" for child in root)


def normalized_length(text: str) -> int:
    """Characters of a text node after collapsing whitespace runs and stripping (§0.3)."""
    return len(" ".join(text.split()))


@dataclass(frozen=True, eq=False)
class DomView:
    """The visible elements below a root, in document order; index 0 is the root.

    ``runs[i]`` has ``len(children[i]) + 1`` strings: ``runs[i][k]`` is the raw text directly in
    element ``i`` before its ``k``-th visible child (the last one after all children). Text on
    both sides of a removed node (a comment, a script, a hidden element) is joined into one run,
    as if the node had been deleted from the tree.
    """

    elements: list[etree._Element]
    tags: list[str]
    parent: list[int]
    children: list[list[int]]
    runs: list[list[str]]
    depth: list[int]
    in_link: list[bool]
    """The element is a link element or lies inside one (§0.4)."""

    def __len__(self) -> int:
        return len(self.elements)

    def ancestors(self, index: int) -> Iterator[int]:
        """The indices from ``index``'s parent up to the root."""
        index = self.parent[index]
        while index >= 0:
            yield index
            index = self.parent[index]


def build_view(root: etree._Element, *, remove_hidden: bool = True) -> DomView:
    """Flatten the visible subtree of ``root`` (one iterative preorder pass, O(n)).

    Removed before anything is counted (§0.2): comments, processing instructions, ``script``,
    ``style``, ``noscript``, ``template`` and, when ``remove_hidden`` is true, elements hidden by
    their own markup.
    """
    elements: list[etree._Element] = []
    tags: list[str] = []
    parent: list[int] = []
    children: list[list[int]] = []
    runs: list[list[str]] = []
    depth: list[int] = []
    in_link: list[bool] = []

    stack: list[tuple[etree._Element, str, int]] = [(root, local_tag(root) or "", -1)]
    while stack:
        element, tag, parent_index = stack.pop()
        index = len(elements)
        elements.append(element)
        tags.append(tag)
        parent.append(parent_index)
        children.append([])
        if parent_index >= 0:
            children[parent_index].append(index)
            depth.append(depth[parent_index] + 1)
            in_link.append(tag in LINK_TAGS or in_link[parent_index])
        else:
            depth.append(0)
            in_link.append(tag in LINK_TAGS)

        own_runs: list[str] = []
        run = element.text or ""
        visible: list[tuple[etree._Element, str, int]] = []
        for child in element:
            child_tag = local_tag(child)
            if (
                child_tag is None
                or child_tag in INVISIBLE_TAGS
                or (remove_hidden and is_hidden(child))
            ):
                run += child.tail or ""
                continue
            own_runs.append(run)
            visible.append((child, child_tag, index))
            run = child.tail or ""
        own_runs.append(run)
        runs.append(own_runs)
        stack.extend(reversed(visible))

    return DomView(elements, tags, parent, children, runs, depth, in_link)

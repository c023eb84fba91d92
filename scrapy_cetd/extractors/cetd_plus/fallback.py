"""Step 1, the fallback content: what a reader without scripts sees of a page whose visible
body is (almost) empty, its ``<noscript>`` content or its hidden wrappers shown.
"""

from __future__ import annotations

from lxml import etree

from scrapy_cetd.page import accel
from scrapy_cetd.page.density import count_nodes
from scrapy_cetd.page.dom import DomView, build_view, hidden_text_length
from scrapy_cetd.page.markup import text_of


def fallback_view(view: DomView, visible: int) -> DomView | None:
    """The view of what a reader without scripts sees, when it holds more text than the
    ``visible`` characters of ``view``: the body's ``<noscript>`` with the most text, or the
    body with its hidden elements shown when that holds four times the visible text (a page
    hidden until a script runs). Candidates are first sized by their raw text (the hidden
    elements' must be over three times the visible text), so most pages build no second
    view. A ``<noscript>`` inside another is no candidate: it holds less text than the one
    around it, which is read first (sizing and viewing each of a chain of nested ones would
    cost the chain's length squared)."""
    body = view.elements[0]
    candidates: list[tuple[etree._Element, int]] = []
    if hidden_text_length(body) > 3 * visible:
        candidates.append((body, 4))
    candidates.extend(
        (element, 1)
        for element in _outermost(body, "noscript")
        if len(element) and len(text_of(element)) > visible
    )
    best = None
    for root, factor in candidates:
        alternative = build_view(root, remove_hidden=False)
        size = count_nodes(alternative).chars[0]
        if size > factor * visible:
            visible, best = size, alternative
    return best


@accel.twin(accel.compiled.outermost_named)
def _outermost(root: etree._Element, tag: str) -> list[etree._Element]:
    """The elements named ``tag`` below ``root`` that lie inside no other one, in document
    order, listed by XPath (no proxy is made for the other elements, and those made are held
    together and freed deepest first: lxml walks up from a proxy freed alone), in pure Python:
    the reference the compiled pass reproduces in one walk over the nodes, which skips the
    subtree of each element found."""
    found = root.xpath(f"descendant::{tag}")
    assert isinstance(found, list)
    outermost: list[etree._Element] = []
    k = 0
    while k < len(found):
        element = found[k]
        assert isinstance(element, etree._Element)
        outermost.append(element)
        k += 1
        if len(element):
            inside = element.xpath(f"count(descendant::{tag})")
            assert isinstance(inside, float)
            k += int(inside)
    return outermost

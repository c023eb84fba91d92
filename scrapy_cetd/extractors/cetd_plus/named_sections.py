"""The sections a page names by their attributes (a product's reviews, a thread's signatures:
steps 16 and 18): each element that one test of its attributes finds, with its descendants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import DomView

WRAPPER_SHARE = 0.5
"""An element holding this share of the view's text or more is no named section: it wraps the
page, in a template that names the whole page after one of its sections (``review``)."""


Attributes = Callable[[str], str | None]
"""An element's ``get``: the value of an attribute, or ``None``."""


def named_sections(
    view: DomView, chars: Sequence[int], named: Callable[[Attributes], bool], task: str
) -> list[bool]:
    """The elements of ``view`` that ``named`` says are a section of their kind, with their
    descendants, among those holding less than :data:`WRAPPER_SHARE` of the view's text (more
    is the page's wrapper, in a template that names its page after them). One pass over the
    view, every element's proxy held until the end (lxml frees a proxy by walking up to the
    closest ancestor that has one); ``task`` names the pass when its time runs out."""
    elements = list(view.elements)
    parent, most = view.parent, WRAPPER_SHARE * chars[0]
    found = [False] * len(elements)
    for i in range(1, len(elements)):
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline(task)
        if found[parent[i]]:
            found[i] = True
        elif chars[i] < most:
            found[i] = named(elements[i].get)
    return found

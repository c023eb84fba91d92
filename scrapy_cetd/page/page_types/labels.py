"""The seven page types the classifier tells apart, and its answer for one page."""

from __future__ import annotations

from dataclasses import dataclass

PAGE_TYPES = (
    "article",
    "forum",
    "product",
    "collection",
    "listing",
    "documentation",
    "service",
)
"""WCXB's seven page types: news and blog posts; discussion threads and Q&A; one product's
page; a shop's category of products; an index of content items (news, courses, reviews);
technical documentation; a company's page about what it offers."""


@dataclass(frozen=True)
class PageType:
    """A page's type (one of :data:`PAGE_TYPES`) and the classifier's probability for it
    (1.0 when the user forced the type)."""

    name: str
    confidence: float


def check_page_type(value: str | None, option: str = "page_type") -> str | None:
    """``value`` when it is ``None`` or one of :data:`PAGE_TYPES`; else a ``ValueError``
    naming ``option`` and the valid values."""
    if value is not None and value not in PAGE_TYPES:
        raise ValueError(f"{option} must be one of {', '.join(PAGE_TYPES)} or None, not {value!r}")
    return value

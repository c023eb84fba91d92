"""The tags the features count by kind: headings, lists, media, form fields, and the
containers that hold records (cards, posts, rows)."""

from __future__ import annotations

HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
LISTS = frozenset({"ul", "ol"})
MEDIA = frozenset({"img", "picture", "svg", "video"})
FIELDS = frozenset({"input", "select", "textarea", "button"})
RECORD_TAGS = frozenset(
    {"div", "li", "article", "section", "tr", "td", "dd", "figure", "details", "ul", "ol"}
    | {"table", "tbody", "form", "aside", "header", "footer", "main", "dl"}
)
"""The containers that hold records (cards, posts, rows); a run of paragraphs is prose."""

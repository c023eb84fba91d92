"""The features of a page: the numbers of its body and its links, and its tokens, read in
one pass over its visible elements."""

from __future__ import annotations

from lxml import etree

from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.density import NodeCounts, count_nodes
from scrapy_cetd.page.dom import DomView, build_view, viewed_body
from scrapy_cetd.page.markup import PageMarkup, page_markup
from scrapy_cetd.page.page_types.body import body_features
from scrapy_cetd.page.page_types.links import link_features
from scrapy_cetd.page.page_types.tokens import class_tokens, markup_tokens, title_tokens, url_tokens

FEATURES = (
    *("elements", "chars", "chars_per_element", "link_share", "links", "paragraphs"),
    *("paragraph_share", "long_run_share", "mean_run", "h1", "h1_chars", "headings"),
    *("heading_share",),
    *("chars_per_heading", "question_headings", "paragraph_block_share", "buttons"),
    *("pre", "code", "code_share", "tables", "table_rows", "table_share", "list_items"),
    *("nested_lists", "link_list_share", "definition_lists", "forms", "fields", "textareas"),
    *("selects", "number_inputs", "prices", "digit_share", "times", "articles", "sections"),
    *("blockquotes", "images", "images_per_kchar", "navs", "asides", "main", "record_runs"),
    *("records", "most_records", "record_share", "record_chars", "record_link_share"),
    *("records_with_link", "records_with_media", "records_with_time", "records_with_heading"),
    *("records_with_field", "records_with_paragraph", "records_with_quote", "records_with_price"),
    *("url_depth", "url_slug_words", "url_numeric", "url_query", "url_root"),
    *("declares_article", "declares_discussion", "declares_other"),
    *("long_link_share", "chars_per_link", "linked_headings", "linked_heading_share"),
    *("linked_media_share", "shared_targets", "shared_target_share", "h2", "h3", "h4_to_h6"),
)
"""The names of the numeric features, in a fixed order."""


def page_features(tree: etree._Element, url: str | None = None) -> dict[str, float]:
    """The features of the document holding ``tree``: numbers named in :data:`FEATURES`, and
    a 1.0 for each token (names starting with one of :data:`.tokens.TOKEN_PREFIXES`) it has.

    Reads the page as :class:`~scrapy_cetd.extractors.cetd_plus.CetdPlusExtractor` does (its
    visible body, the counts of that view, its markup) and gives what
    :func:`view_features` gives cetd-plus, which has all of that already; the tree is not
    modified.
    """
    check_deadline("before reading the page type's features")
    body = viewed_body(tree)
    if body is None:
        return view_features(tree, None, None, page_markup(tree), url)
    view = build_view(body)
    return view_features(tree, view, count_nodes(view), page_markup(body), url)


def view_features(
    tree: etree._Element,
    view: DomView | None,
    counts: NodeCounts | None,
    markup: PageMarkup,
    url: str | None = None,
) -> dict[str, float]:
    """:func:`page_features` from what an extractor has read already: the visible ``view`` of
    the body of the document holding ``tree`` (``None`` when it has none), its ``counts``,
    and its ``markup``.

    Linear in the size of the page, iterative; the tree is not modified.
    """
    features = dict.fromkeys(FEATURES, 0.0)
    features.update(url_tokens(url))
    document = view.elements[0] if view is not None and len(view) else tree
    features.update(markup_tokens(document, markup))
    features.update(title_tokens(document))
    if view is not None and counts is not None and len(view):
        features.update(class_tokens(view.elements[0]))
        features.update(body_features(view, counts))
        features.update(link_features(view, counts))
    check_deadline("after reading the page type's features")
    return features

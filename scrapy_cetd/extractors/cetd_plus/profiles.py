"""Extraction by page type: which steps a page of each known type follows.

A page's type (:mod:`scrapy_cetd.page.page_types`, or forced by the user) picks a profile: the
steps that replace cetd-plus's narrowing to one dense block on pages whose main content is not
one block of prose. Each step is an option of
:class:`~scrapy_cetd.extractors.cetd_plus.CetdPlusExtractor` that turns it off, and a
function of the module of its page type (:mod:`.forum`, :mod:`.listing`, :mod:`.product`,
:mod:`.service`) or, when types share it, of its role (:mod:`.regions`, :mod:`.record_runs`,
:mod:`.repeats`, :mod:`.named_sections`); the gain of each is measured by
``python -m benchmarks.page_type_accuracy`` (``docs/page-types.md``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """The steps a page of one type follows instead of cetd-plus's narrowing."""

    name: str
    """The page type."""
    hidden: bool = False
    """Elements hidden by their own markup are content: closed tabs and accordions (a
    product's description and specifications, a service page's FAQ answers)."""
    thread: bool = False
    """The page is a thread: its comment sections are content (the posts and replies) and
    the selection is not narrowed to one post, as on a page that declares itself a
    discussion."""
    whole_page: bool = False
    """The content is all the page keeps once its furniture is gone (step 2), within its main
    landmark: the records of a list, every section of a service page, the main column of a
    documentation page with its code, tables and headings. One dense block is only a part of
    it."""
    records: bool = False
    """With ``whole_page``: the content is bounded by the region of the page's records (the
    run of sibling records, alike in tag and class, that holds the most text) with the
    headline above them, when that run holds enough of the text (the ``record_share``
    option); the main landmark bounds it otherwise."""
    main_bound: bool = False
    """cetd-plus's own selection is bounded by the page's main landmark: a product's
    recommendations, recently viewed items and shop banners outside ``<main>`` go."""
    unique_blocks: bool = False
    """A kept block that repeats the text of one kept before it goes: templates that show a
    product's description twice (one copy for wide screens, one for narrow, or a tab and its
    accordion) give the text once."""
    reviews: bool = False
    """The page's reviews are furniture, as comments are on an article: customers' ratings and
    texts about a product are not its description."""
    detail_lists: bool = False
    """The posters' details are furniture: the definition lists repeated with the same labels
    under each poster's name (when they joined, how many posts they wrote) describe the
    posters, not the thread."""
    posts: bool = False
    """The thread's posts are its records (the run of siblings alike in tag and class that
    holds the most text). When they hold enough of the text, each is kept whole (the
    ``whole_posts`` option), not only the posts dense enough for DensitySum (a short reply, a
    post of code), and the selection is bounded by their region with the thread's title above
    them (the ``post_region`` option): a thread's sidebars, related threads and banners lie
    outside it, however dense."""
    forms: bool = False
    """Forms are no furniture: a thread wraps its posts in a form (to select them for
    moderation), or each post in its own (to edit it in place)."""
    post_comments: bool = False
    """The comment sections nested in a post are not the thread: the remarks under a question
    or an answer ("could you post your log?"), where the answers are the posts."""
    labels: bool = False
    """Short texts repeated identically across the page are controls and labels, not posts:
    the reply, quote and share buttons and the rank of a poster, under every post."""
    signatures: bool = False
    """The posters' signatures are furniture: the same lines under every post of one poster
    (their machine, a motto, links to their site) say nothing of the thread."""
    description: bool = False
    """When the selection lacks most of the words of the description the page's JSON-LD
    declares for its product, that description joins the content: a template that keeps it
    in a drawer or a script shows it on a click."""
    heading_start: bool = False
    """With ``whole_page``: the content starts at the page's first ``<h1>`` (a list's
    heading, a documentation page's title, a service page's hero): what its template puts
    before it (the site's header, breadcrumbs, banners) is no part of it, unless it holds much
    of the text."""
    controls: bool = False
    """With ``whole_page``: the controls inside the records (buttons to add an item to the
    cart, to save or compare it; the labels of the filters and sort orders a template left
    outside its furniture) are furniture: a list's records are what they show, not what one
    can do with them."""
    badges: bool = False
    """With ``whole_page``: the short texts repeated from record to record without digits or
    links (badges: new, sale, in stock, free shipping) are furniture: they say nothing of
    one record."""
    menus: bool = False
    """With ``whole_page``: the blocks that are menus of short links (a header's or a hero's
    links to the site's other pages, a language or currency picker) are furniture, as the
    ``<nav>`` that the page did not mark would be."""


PROFILES: dict[str, Profile] = {
    "forum": Profile(
        "forum",
        thread=True,
        posts=True,
        post_comments=True,
        forms=True,
        unique_blocks=True,
        detail_lists=True,
        signatures=True,
        labels=True,
    ),
    "listing": Profile(
        "listing",
        whole_page=True,
        records=True,
        unique_blocks=True,
        heading_start=True,
        controls=True,
        badges=True,
    ),
    "collection": Profile(
        "collection",
        whole_page=True,
        unique_blocks=True,
        heading_start=True,
        controls=True,
        badges=True,
    ),
    "documentation": Profile("documentation", whole_page=True, heading_start=True),
    "service": Profile(
        "service",
        hidden=True,
        whole_page=True,
        unique_blocks=True,
        menus=True,
        heading_start=True,
    ),
    "product": Profile(
        "product",
        hidden=True,
        main_bound=True,
        unique_blocks=True,
        reviews=True,
        description=True,
    ),
}
"""The profile of each page type that has one; articles follow cetd-plus's own steps. On
products neither the whole page nor the whole-body expansion beat those steps; documentation
keeps its repeated blocks (the same command shown twice is its content twice); only listings
are bounded by their records (on a shop's category the record region did no better than the
main landmark: lower on some sites, higher on others); hidden elements are content only where
that measured better (products, service pages)."""

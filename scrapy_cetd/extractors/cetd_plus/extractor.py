"""The cetd-plus extractor: its options and the order of its steps.

Each step is a function of the module of its role (see the package's docstring); the
class reads the page's view and markup once, picks the profile of the page's type, and calls
the steps its options and that profile turn on, in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from lxml import etree

from scrapy_cetd.extractors.base import FRAMESET, NO_TEXT, Extractor
from scrapy_cetd.extractors.cetd import DensitySumScores, density_sum_scores, expand
from scrapy_cetd.extractors.cetd_plus.content_forms import sparing_content_form
from scrapy_cetd.extractors.cetd_plus.fallback import fallback_view
from scrapy_cetd.extractors.cetd_plus.forum import (
    detail_lists,
    drop_post_comments,
    drop_repeated_labels,
    signature_sections,
)
from scrapy_cetd.extractors.cetd_plus.headline import find_headline
from scrapy_cetd.extractors.cetd_plus.kept_text import kept_chars
from scrapy_cetd.extractors.cetd_plus.link_blocks import drop_link_blocks
from scrapy_cetd.extractors.cetd_plus.listing import drop_badges, drop_controls
from scrapy_cetd.extractors.cetd_plus.media import drop_captions, drop_galleries
from scrapy_cetd.extractors.cetd_plus.narrowing import (
    add_same_path_blocks,
    article_body_element,
    block_anchor,
    selected_chars,
)
from scrapy_cetd.extractors.cetd_plus.permalinks import drop_heading_permalinks
from scrapy_cetd.extractors.cetd_plus.product import review_sections, with_declared_description
from scrapy_cetd.extractors.cetd_plus.profiles import PROFILES, Profile
from scrapy_cetd.extractors.cetd_plus.record_runs import drop_after_run, record_run
from scrapy_cetd.extractors.cetd_plus.regions import (
    bound_to,
    drop_before_heading,
    headed_region,
    main_landmark,
)
from scrapy_cetd.extractors.cetd_plus.repeats import drop_repeated_blocks
from scrapy_cetd.extractors.cetd_plus.service import drop_menus
from scrapy_cetd.extractors.cetd_plus.shell_prose import keep_shell_prose
from scrapy_cetd.extractors.furniture import boilerplate, located, without
from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.density import NodeCounts, count_nodes
from scrapy_cetd.page.dom import DomView, build_view, require_element, viewed_body
from scrapy_cetd.page.flags import ancestors_of, within
from scrapy_cetd.page.markup import ARTICLE_TYPES, PageMarkup, page_markup, page_title
from scrapy_cetd.page.output import Keep, content_modes
from scrapy_cetd.page.page_types import PageType, check_page_type, classify_view
from scrapy_cetd.result import EmptyReason, ExtractionResult


@dataclass(frozen=True, eq=False)
class _PageView(DomView):
    """A view that remembers the page's markup and type, read once by
    :meth:`CetdPlusExtractor.view`."""

    markup: PageMarkup | None = None
    visible_chars: int = 0
    profile: Profile | None = None
    """The page type whose profile (:mod:`.profiles`) the selection follows, or ``None`` for
    the steps every page goes through."""
    page_type: PageType | None = None


class CetdPlusExtractor(Extractor):
    """cetd-plus: composite text density and DensitySum (CETD §3.3, §4.2), told apart from page
    furniture by the page's own markup, and narrowed to the main block when one block holds
    most of the content.

    Steps, each named by the option that turns it off:

    1. ``fallback_content``: a page whose visible body is (almost) empty is read from its
       ``<noscript>`` content or with hidden wrappers shown (pages rendered by scripts).
    2. ``remove_boilerplate``: ``nav``, ``aside``, ``footer``, ``dialog``, ``menu``, ``select``,
       ARIA furniture roles and forms holding less than half the text are removed before
       scoring, except (``content_forms``) a form holding the page's best block, and
       (``footer_names``) the elements whose ``id`` or ``class`` names a footer, holding less
       than half the text: a site's footer built of ``<div>`` elements, or repeated for narrow
       screens outside its ``<footer>``;
       ``include_comments=False`` removes comment sections too, and the reviews, comments and
       answers whose text the page's JSON-LD declares, unless the page declares itself a
       discussion (schema.org), where the comments are the content.
    3. CECTD-DS scores and thresholds the rest; ``href_links`` counts only ``<a href>`` as a
       link (an unclosed ``<a name>`` otherwise turns a whole page into "link text").
    4. ``article_body``: an ``itemprop="articleBody"`` element, when the page has one, bounds
       the selection.
    5. ``single_block_share``: the expansion of DensitySum is done twice, around the best block
       (its closest ancestor that adds text) and over the whole body; the first wins when it
       holds at least this share of the second's text, unless (``whole_page_share``) the second
       holds nearly all the page's visible text: there was no furniture left to narrow away.
       When the first wins, ``same_path_blocks`` adds the second's blocks whose tag path (tags
       and classes from the body down: TPS's tag path without the style) is that of an
       element of the first: the same kind of element in the same layout (the other column of
       a table of categories, an article continued in a second table of its template).
    6. ``include_title``: the headline joins the content; it always goes to ``.title``.
    7. ``shell_prose_chars``: an element kept only because it holds selected blocks keeps its
       own text too when that text is this long, with the inline elements it runs through:
       prose written straight into the block (paragraphs parted by ``<br>``, text after bold
       lead-ins), which DensitySum, summing over children, does not see; such an element's
       own text is otherwise a separator or a label. The body's own text stays out.
    8. ``link_block_ratio``: inside the selection, blocks whose link text exceeds this share of
       their text go (menus, "related" lists; the post-process of Alarte & Silva §3.5), unless
       the page declares types and none is an article type: the links of a product, collection
       or documentation page are its content.
    9. ``remove_galleries``: inside the selection, runs of at least three sibling cards (same
       tag and class) that each show media go (slideshows with their captions and counters,
       strips of teaser cards), unless they hold half the selected text (a listicle), each
       card has a heading and the cards hold a paragraph's worth of their own text (the
       sections of a listicle laid out in columns), or the page declares types and none is an
       article type. A figure that holds a table is data, not media.
    10. ``remove_captions``: on a page that declares an article type, the kept blocks without
        headings that repeat an image's alternative text go (photo captions, the captions
        of a slideshow kept apart from its images), unless one holds half the selected text.
    11. ``listing_share``: when what is left holds less than this share of the text that step 2
        left, the page is not an article with a main block but a list (search results, a
        category page, job offers whose records are links, a table of contents): all of that
        text is its content.

    Extraction by type (:mod:`scrapy_cetd.extractors.cetd_plus.profiles`): when the page's
    type is known (the ``page_type`` option, or the classifier with ``detect_page_type``) with
    a confidence of at least ``profile_confidence``, and ``type_profiles`` is on, the page
    follows its type's profile; a page of unknown type, or of a type told with less
    confidence, goes through the steps above alone, so a wrong guess costs little.

    12. ``hidden_panels`` (product, service): the elements hidden by their own markup stay in
        the view (step 3's ``remove_hidden`` is not applied): the text of closed tabs and
        accordions (a product's description and specifications, a service page's FAQ
        answers) is content that the page shows on a click.
    13. ``thread_posts`` (forum): the page is read as a discussion (step 2 keeps its comment
        sections, step 5 does not narrow to one post): the posts and replies are the content.
    14. ``whole_page_types`` (listing, collection, documentation, service): steps 3 to 11 are
        skipped and all the text step 2 left is the content (the records of a list with its
        heading and intro, every section of a service page, a documentation page's code,
        tables and headings); filter panels, facets, sidebar trees and menus are the
        furniture step 2 removed. With ``main_landmark_share``, only the page's ``<main>``
        (or ``role="main"``) is kept, when it holds at least this share of that text: what
        lies around it (previous/next, "edit this page", related lists) goes; on a product
        page, what cetd-plus selected outside its main landmark goes. On a listing,
        ``record_share`` bounds it first by the region of its records: the parent of the run
        of three or more siblings alike in tag and class that holds the most text, when the
        run holds at least this share of that text, widened to hold the page's first
        ``<h1>`` (the heading and the intro above the records).
    15. ``unique_blocks`` (all but documentation): a kept block without blocks below it whose
        text repeats that of a kept block before it goes (a description shown twice, for wide
        and narrow screens; a tab and its accordion; a quoted post).
    16. ``review_sections`` (product): unless ``include_comments``, step 2 also removes the
        page's reviews, as it removes an article's comments: schema.org ``Review`` items
        (``itemtype``, ``itemprop="review"``) and elements whose ``id`` or ``class`` names
        reviews (``review``, ``product-reviews``, ``productReviews``), holding less than half
        the text. Customers' ratings and texts are not the product's description.
    17. ``declared_description`` (product): when the content holds less than half the words
        of the description the page's JSON-LD declares for its product (``Product``,
        ``ProductGroup``...), that description is added at its end (its HTML read as HTML):
        templates that keep it in a drawer, or only in a script, show it on a click.
    18. ``signatures`` (forum): step 2 also removes the posters' signatures, elements whose
        ``id``, ``class`` or ``data-role`` names a signature (``signature``,
        ``message-signature``, ``memberSignature``), holding less than half the text: the
        same lines under every post of one poster (their machine, a motto, links) are not
        the thread.
    19. ``detail_lists`` (forum): step 2 also removes the posters' details, the ``<dl>``
        elements with terms whose class (or, without one, whose terms: the texts of their
        ``<dt>``) is that of another such ``<dl>`` of the page: the lists a forum repeats
        under each poster's name (when they joined, how many messages they wrote) describe
        the posters, not the thread.
    20. ``repeated_labels`` (forum): after step 15, the outermost kept elements whose text is
        too short for step 15 to compare (under 20 characters) go when three or more have the
        same text: the controls and labels a thread repeats under each post (reply, quote
        and share buttons, a poster's rank); an element with words of its parent's text
        beside it is a phrase of a sentence (a term in bold or as code) and stays.
    21. ``post_region`` (forum): the selection is bounded by the region of the thread's
        posts, found as step 14 finds a listing's records (the parent of the run of three or
        more siblings alike in tag and class that holds the most text, widened to hold the
        page's first ``<h1>``), when the run holds at least this share of the text: the
        sidebars, related threads and banners around a thread go, however dense.
    22. ``post_forms`` (forum): step 2 removes no form: a thread wraps its posts in a form
        (to select them for moderation), or each post in its own (to edit it in place).
    23. ``whole_posts`` (forum): after step 5, the thread's posts (the run of step 21) are
        content whole when they hold at least this share of the text: DensitySum keeps the
        dense posts, and a short reply or a post of code below its threshold is as much a
        part of the thread.
    24. ``post_comments`` (forum): the comment sections nested in a post of step 21 (found by
        their names as step 2 finds an article's comments), not the post itself, go when they
        hold less than this share of their post's text: the remarks under a question or an
        answer are not the thread, whose posts are the answers; a section holding nearly all
        of its post is the post's own body, in templates that name each post a comment.
    25. ``menu_link_chars`` (service): after step 14, the kept blocks that are menus of short
        links go: three links or more, holding 70% of the block's text or more and at most half
        of the page's (a block with more is the page itself), whose text is on average
        shorter than this many characters (a header's or a hero's links to the site's other
        pages, sign-in buttons, a language or currency picker): reading the
        whole page keeps the menus its template did not mark as ``<nav>``, which a service
        page's many short sections make common. What the company offers is listed in longer
        entries, or in entries that are not links.
    26. ``before_heading_share`` (listing, collection, documentation, service): with step 14,
        the content starts at the first ``<h1>`` with text inside what it keeps (a list's
        heading, a documentation page's title, a service page's hero): the elements that end
        before that heading go (the site's header, breadcrumbs and banners that its template
        did not mark as furniture), unless they hold at least this share of the kept text (a
        template that puts its ``<h1>`` late, under much of the content).
    27. ``remove_controls`` (listing, collection): with step 14, the labels of form fields
        kept with the content go (``<label>``: a filter's checkboxes or a sort order that the
        template left outside its furniture), unless one holds half the text (an unclosed
        ``<label>`` around the page). Buttons stay: some lists show them as part of each
        record.
    28. ``remove_badges`` (listing, collection): with step 14, the badges go: the outermost
        elements of fewer than 20 characters (the repeats step 15 leaves), not in a link and
        without digits, whose text three such elements or more share, as many as 70% of the
        records of the page's longest run of records or more ("New", "In stock", "Free
        shipping" on the cards of a grid). A number is a record's own data (a price, a
        count, a date), a link's text names the record, and a value only some records share
        (a size, a skill, a sector) is theirs; a mark most cards carry says nothing of one.
    29. ``after_records_share`` (listing): when step 14 bounds the content by the region of the
        records, what follows the last record inside that region goes (the children of the
        records' parent and of its ancestors up to the region that start after the last
        record: the pagination, "related" and "popular" lists, banners), unless it holds more
        than this share of the records' text (a category's description written below its
        records). A record the run missed stays: a sibling with the records' tag whose class
        shares a word with theirs (``card card--last``) or that holds half the text of the
        shortest. A list ends with its last record.
    30. ``after_posts_share`` (forum): when step 21 bounds the selection by the region of the
        thread's posts, what follows the last post inside that region goes, as step 29 does
        on a listing (the reply box, the "related threads" and "who is reading" panels, the
        invitation to sign in to reply), unless it holds more than this share of the posts'
        text. What the run of posts missed stays, as in step 29 (the asker's post under a
        class of its own), and so does an element holding one with the posts' tag and a word
        of their class (the replies nested under the last post). A thread ends with its last
        post.
    31. ``heading_permalinks``: the output leaves out the permalinks of headings, the links
        to a fragment whose text is a mark without a letter or a digit (``¶``, ``#``, ``§``,
        an icon) that documentation generators and blogs put in each heading: the mark stuck
        to the heading's last word in the text, and made each heading a link in the Markdown.
        It runs on the selection, so the selection is the one the page had without it.
    """

    name = "cetd-plus"

    def __init__(
        self,
        *,
        include_comments: bool = False,
        include_title: bool = False,
        remove_boilerplate: bool = True,
        footer_names: bool = True,
        fallback_content: bool = True,
        href_links: bool = True,
        article_body: bool = True,
        single_block_share: float = 0.5,
        link_block_ratio: float = 0.7,
        listing_share: float = 0.05,
        remove_galleries: bool = True,
        remove_captions: bool = True,
        content_forms: bool = True,
        whole_page_share: float | None = 0.9,
        same_path_blocks: bool = True,
        shell_prose_chars: int | None = 50,
        threshold_coefficient: float = 1.0,
        remove_hidden: bool = True,
        page_type: str | None = None,
        detect_page_type: bool = True,
        type_profiles: bool = True,
        profile_confidence: float = 0.5,
        thread_posts: bool = True,
        whole_page_types: bool = True,
        main_landmark_share: float | None = 0.5,
        unique_blocks: bool = True,
        hidden_panels: bool = True,
        record_share: float | None = 0.3,
        after_records_share: float | None = 0.3,
        after_posts_share: float | None = 0.3,
        review_sections: bool = True,
        declared_description: bool = True,
        signatures: bool = True,
        detail_lists: bool = True,
        repeated_labels: bool = True,
        post_region: float | None = 0.3,
        post_forms: bool = True,
        whole_posts: float | None = 0.5,
        post_comments: float | None = 0.9,
        menu_link_chars: int | None = 40,
        before_heading_share: float | None = 0.5,
        remove_controls: bool = True,
        remove_badges: bool = True,
        heading_permalinks: bool = True,
    ) -> None:
        """Options: each turns off or tunes a step of the class docstring.

        - ``include_comments``: keep user comments (off by default: comments are not the main
          content, except on pages that declare themselves a discussion).
        - ``include_title``: put the headline in ``.text`` and ``.html`` too (it always goes to
          ``.title``).
        - ``fallback_content``, ``remove_boilerplate``, ``footer_names``, ``content_forms``,
          ``href_links``, ``article_body``, ``same_path_blocks``, ``remove_galleries``,
          ``remove_captions``: turn off steps 1, 2, 2, 2, 3, 4, 5, 9 and 10.
        - ``single_block_share`` (step 5; 0 keeps the paper's whole-body expansion): the share of
          the whole-body expansion's text that the best block's expansion must hold to win.
        - ``whole_page_share`` (step 5; None turns it off): the share of the page's visible
          text, before step 2, that the whole-body expansion must hold for the single block to
          be skipped.
        - ``shell_prose_chars`` (step 7; None turns it off): characters of own text (counted as
          CETD counts them, §0.3) that make a shell keep it.
        - ``link_block_ratio`` (step 8; 1.0 keeps every block): the share of link text above
          which a block inside the selection goes.
        - ``listing_share`` (step 11; 0 turns it off): the share of step 2's text below which
          what is left makes the page a list.
        - ``threshold_coefficient``: the paper's λ (§5.5), as in CECTD-DS.
        - ``remove_hidden``: see :class:`~scrapy_cetd.extractors.base.Extractor`.
        - ``page_type``: the page's type (one of
          :data:`~scrapy_cetd.page.page_types.PAGE_TYPES`), when the user knows it (a spider for
          one shop's category pages): it goes to the result's ``.page_type`` with confidence
          1.0, and the page follows its type's profile (steps 12 to 30).
        - ``detect_page_type``: classify the page (:mod:`scrapy_cetd.page.page_types`) when
          ``page_type`` is not given, into ``.page_type`` and ``.page_type_confidence``, from
          the view, counts and markup this extractor reads anyway, and follow its type's
          profile. On by default; it adds about 22% to the time of a page, parse
          included (docs/page-types.md), and False turns it off.
        - ``type_profiles``: follow the profile of the page's type when it is known (False:
          the type is only reported).
        - ``profile_confidence``: the confidence below which a type is reported but its
          profile not followed.
        - ``hidden_panels``, ``thread_posts``, ``whole_page_types``, ``unique_blocks``,
          ``review_sections``, ``declared_description``, ``signatures``, ``detail_lists``,
          ``repeated_labels``: turn off steps 12 to 20.
        - ``post_region`` (step 21; None turns it off): the share of the text the run of posts
          must hold to bound the selection.
        - ``post_forms``: turns off step 22.
        - ``whole_posts`` (step 23; None turns it off): the share of the text the run of posts
          must hold to be kept whole.
        - ``post_comments`` (step 24; None turns it off): the share of its post's text below
          which a comment section nested in the post goes.
        - ``main_landmark_share`` (step 14; None turns it off): the share of the text the main
          landmark must hold to bound the content (of a product page too).
        - ``record_share`` (step 14, listings; None turns it off): the share of the text the
          run of records must hold to bound the content.
        - ``after_records_share`` (step 29, listings; None turns it off): the share of the
          records' text above which what follows the last record stays.
        - ``after_posts_share`` (step 30, forums; None turns it off): the share of the posts'
          text above which what follows the last post stays.
        - ``menu_link_chars`` (step 25, service; None turns it off): the mean characters of
          link text under which a block of links is a menu.
        - ``before_heading_share`` (step 26; None turns it off): the share of the kept text
          below which what lies before the heading goes.
        - ``remove_controls``, ``remove_badges``: turn off steps 27 and 28.
        - ``heading_permalinks``: turns off step 31.

        The defaults are the values that measured best on the shared datasets; the gain of each
        step, and of the alternatives tried, is in ``docs/benchmarks.md`` (cetd-plus step by
        step). Raises ``ValueError`` naming an option whose value is out of range.
        """
        if threshold_coefficient < 0:
            raise ValueError(f"threshold_coefficient must be >= 0, got {threshold_coefficient}")
        if not 0 <= single_block_share <= 1:
            raise ValueError(f"single_block_share must be in [0, 1], got {single_block_share}")
        if whole_page_share is not None and not 0 < whole_page_share <= 1:
            raise ValueError(f"whole_page_share must be in (0, 1] or None, got {whole_page_share}")
        if shell_prose_chars is not None and shell_prose_chars < 0:
            raise ValueError(f"shell_prose_chars must be >= 0 or None, got {shell_prose_chars}")
        if not 0 < link_block_ratio <= 1:
            raise ValueError(f"link_block_ratio must be in (0, 1], got {link_block_ratio}")
        if not 0 <= listing_share <= 1:
            raise ValueError(f"listing_share must be in [0, 1], got {listing_share}")
        if not 0 <= profile_confidence <= 1:
            raise ValueError(f"profile_confidence must be in [0, 1], got {profile_confidence}")
        if record_share is not None and not 0 <= record_share <= 1:
            raise ValueError(f"record_share must be in [0, 1] or None, got {record_share}")
        if after_records_share is not None and not after_records_share >= 0:
            raise ValueError(
                f"after_records_share must be 0 or more, or None, got {after_records_share}"
            )
        if after_posts_share is not None and not after_posts_share >= 0:
            raise ValueError(
                f"after_posts_share must be 0 or more, or None, got {after_posts_share}"
            )
        if post_region is not None and not 0 <= post_region <= 1:
            raise ValueError(f"post_region must be in [0, 1] or None, got {post_region}")
        if whole_posts is not None and not 0 <= whole_posts <= 1:
            raise ValueError(f"whole_posts must be in [0, 1] or None, got {whole_posts}")
        if post_comments is not None and not 0 <= post_comments <= 1:
            raise ValueError(f"post_comments must be in [0, 1] or None, got {post_comments}")
        if menu_link_chars is not None and menu_link_chars < 1:
            raise ValueError(f"menu_link_chars must be >= 1 or None, got {menu_link_chars}")
        if before_heading_share is not None and not 0 <= before_heading_share <= 1:
            raise ValueError(
                f"before_heading_share must be in [0, 1] or None, got {before_heading_share}"
            )
        if main_landmark_share is not None and not 0 <= main_landmark_share <= 1:
            raise ValueError(
                f"main_landmark_share must be in [0, 1] or None, got {main_landmark_share}"
            )
        super().__init__(remove_hidden=remove_hidden)
        self.page_type = check_page_type(page_type)
        self.detect_page_type = detect_page_type
        self.type_profiles = type_profiles
        self.profile_confidence = profile_confidence
        self.thread_posts = thread_posts
        self.whole_page_types = whole_page_types
        self.main_landmark_share = main_landmark_share
        self.unique_blocks = unique_blocks
        self.hidden_panels = hidden_panels
        self.record_share = record_share
        self.after_records_share = after_records_share
        self.after_posts_share = after_posts_share
        self.review_sections = review_sections
        self.declared_description = declared_description
        self.signatures = signatures
        self.detail_lists = detail_lists
        self.repeated_labels = repeated_labels
        self.post_region = post_region
        self.post_forms = post_forms
        self.whole_posts = whole_posts
        self.post_comments = post_comments
        self.menu_link_chars = menu_link_chars
        self.before_heading_share = before_heading_share
        self.remove_controls = remove_controls
        self.remove_badges = remove_badges
        self.heading_permalinks = heading_permalinks
        self.include_comments = include_comments
        self.include_title = include_title
        self.remove_boilerplate = remove_boilerplate
        self.footer_names = footer_names
        self.fallback_content = fallback_content
        self.href_links = href_links
        self.article_body = article_body
        self.single_block_share = single_block_share
        self.link_block_ratio = link_block_ratio
        self.listing_share = listing_share
        self.remove_galleries = remove_galleries
        self.remove_captions = remove_captions
        self.content_forms = content_forms
        self.whole_page_share = whole_page_share
        self.same_path_blocks = same_path_blocks
        self.shell_prose_chars = shell_prose_chars
        self.threshold_coefficient = threshold_coefficient

    def extract(self, tree: etree._Element, *, url: str | None = None) -> ExtractionResult:
        """As :meth:`Extractor.extract`, with the page's headline in ``.title`` and its type
        in ``.page_type`` (see the ``page_type`` option)."""
        require_element(tree)
        forced = PageType(self.page_type, 1.0) if self.page_type is not None else None
        return self._extract(tree, forced, detect=forced is None and self.detect_page_type, url=url)

    def extract_as(self, tree: etree._Element, kind: PageType | None) -> ExtractionResult:
        """As :meth:`extract`, for a page whose type is ``kind`` (``None``: unknown), however
        it was found: the profile of that type is followed when ``type_profiles`` is on and
        the confidence is at least ``profile_confidence``."""
        return self._extract(tree, kind, detect=False, url=None)

    def _extract(
        self, tree: etree._Element, kind: PageType | None, *, detect: bool, url: str | None
    ) -> ExtractionResult:
        """:meth:`extract` for a page of type ``kind``, or of the type the classifier finds on
        its visible view when ``detect``."""
        view = self._view(tree, kind, detect=detect, url=url)
        if isinstance(view, EmptyReason):
            result = view.result(self.name)
            if detect:
                kind = classify_view(tree, None, None, page_markup(tree), url)
        else:
            result = self.extract_view(view)
            if isinstance(view, _PageView):
                kind = view.page_type
                if self.declared_description and view.profile and view.profile.description:
                    result = with_declared_description(result, view.elements[0])
        title = page_title(tree)
        check_deadline("after reading the title")
        result = replace(result, title=title) if title else result
        if kind is None:
            return result
        return replace(result, page_type=kind.name, page_type_confidence=kind.confidence)

    def profile_of(self, kind: PageType | None) -> Profile | None:
        """The profile a page of type ``kind`` follows: its type's when profiles are on, the
        type has one and the confidence clears ``profile_confidence``; else ``None``."""
        if kind is None or not self.type_profiles or kind.confidence < self.profile_confidence:
            return None
        return PROFILES.get(kind.name)

    def view(self, tree: etree._Element, *, url: str | None = None) -> DomView | EmptyReason:
        """The visible body (or its fallback, step 1) without page furniture (step 2), with
        the page's type (see the ``page_type`` option; ``url`` is one of its signals)."""
        forced = PageType(self.page_type, 1.0) if self.page_type is not None else None
        return self._view(tree, forced, detect=forced is None and self.detect_page_type, url=url)

    def _view(
        self, tree: etree._Element, kind: PageType | None, *, detect: bool, url: str | None
    ) -> DomView | EmptyReason:
        """:meth:`view` for a page of type ``kind``, or of the type the classifier finds on the
        visible view (before steps 1 and 2: the page as the classifier was trained on it) when
        ``detect``; the view then follows that type's profile."""
        profile = None if detect else self.profile_of(kind)
        view = self._profile_view(tree, profile)
        if isinstance(view, EmptyReason):
            return view
        markup = page_markup(view.elements[0])  # the document viewed, maybe a repaired copy
        counts = count_nodes(view)
        if detect:
            kind = classify_view(tree, view, counts, markup, url)
            profile = self.profile_of(kind)
            if self._shows_hidden(profile):  # the type is known only now: view it again
                view = self._profile_view(tree, profile)
                if isinstance(view, EmptyReason):
                    return view
                markup = page_markup(view.elements[0])  # it holds elements of the viewed copy
                counts = count_nodes(view)
        if self.fallback_content:
            fallback = fallback_view(view, counts.chars[0])
            if fallback is not None:
                view, counts = fallback, count_nodes(fallback)
        check_deadline("after reading the markup")
        drop = self._furniture(view, counts, markup, profile)
        check_deadline("after finding the furniture")
        pruned = without(view, drop, href_links=self.href_links)
        return _PageView(
            pruned.elements,
            pruned.tags,
            pruned.parent,
            pruned.children,
            pruned.runs,
            pruned.depth,
            pruned.in_link,
            markup=markup,
            visible_chars=counts.chars[0],
            profile=profile,
            page_type=kind,
        )

    def _furniture(
        self, view: DomView, counts: NodeCounts, markup: PageMarkup, profile: Profile | None
    ) -> list[bool]:
        """The elements of ``view`` that are furniture, their descendants included (step 2):
        the furniture tags, roles and names, and the forms but those ``content_forms`` spares;
        the comment sections and the reviews and comments the page's JSON-LD declares, unless
        ``include_comments`` keeps them or the page is a discussion (by its markup, or a
        thread by ``profile``); and what ``profile`` takes for furniture (a product's reviews,
        a thread's signatures and detail lists: steps 16, 18 and 19)."""
        chars = counts.chars
        thread = self.thread_posts and profile is not None and profile.thread
        discussion = markup.discussion or thread
        comments = not (self.include_comments or discussion)
        forms = not (self.post_forms and profile is not None and profile.forms)
        drop = boilerplate(
            view,
            chars,
            structural=self.remove_boilerplate,
            comments=comments,
            forms=forms,
            footers=self.footer_names,
        )
        if self.content_forms:
            drop = sparing_content_form(view, counts, drop, comments=comments)
        if comments and self.review_sections and profile is not None and profile.reviews:
            reviews = review_sections(view, chars)
            drop = [dropped or review for dropped, review in zip(drop, reviews, strict=True)]
        if self.signatures and profile is not None and profile.signatures:
            signed = signature_sections(view, chars)
            drop = [dropped or signature for dropped, signature in zip(drop, signed, strict=True)]
        if self.detail_lists and profile is not None and profile.detail_lists:
            details = detail_lists(view)
            drop = within(view, [dropped or d for dropped, d in zip(drop, details, strict=True)])
        if comments and markup.user_texts:
            for i in located(view, markup.user_texts):
                drop[i] = True
            drop = within(view, drop)
        return drop

    def _shows_hidden(self, profile: Profile | None) -> bool:
        """Whether a page that follows ``profile`` is viewed with its hidden panels (step 12)."""
        return self.hidden_panels and self.remove_hidden and profile is not None and profile.hidden

    def _profile_view(self, tree: etree._Element, profile: Profile | None) -> DomView | EmptyReason:
        """The visible view of the body, with the hidden panels shown when ``profile`` reads
        them."""
        if not self._shows_hidden(profile):
            return super().view(tree)
        check_deadline("before building the view with its hidden panels")
        body = viewed_body(tree)
        if body is None:
            return FRAMESET
        return build_view(body, remove_hidden=False)

    def select(self, view: DomView) -> Sequence[Keep] | EmptyReason:
        counts = count_nodes(view)
        if counts.chars[0] == 0:
            return NO_TEXT
        modes = self._selection(view, counts)
        if self.heading_permalinks:
            drop_heading_permalinks(view, counts.chars, modes)
        return modes

    def _selection(self, view: DomView, counts: NodeCounts) -> list[Keep]:
        """What :meth:`select` keeps of a view with text, before step 31."""
        profile = view.profile if isinstance(view, _PageView) else None
        if self.whole_page_types and profile is not None and profile.whole_page:
            return self._select_whole_page(view, counts, profile)
        scores = density_sum_scores(
            view, counts, composite=True, threshold_coefficient=self.threshold_coefficient
        )
        markup = view.markup if isinstance(view, _PageView) else None
        markup = markup or page_markup(view.elements[0])
        thread = self.thread_posts and profile is not None and profile.thread
        discussion = markup.discussion or thread
        content = self._narrowed(view, counts, scores, markup, discussion=discussion)
        posts = self._posts(view, counts, profile if thread else None)
        if self.whole_posts is not None and _holds(counts, posts, self.whole_posts):
            for post in posts:
                content[post] = True
        check_deadline("after expanding the blocks")
        if self.include_title:
            headline = find_headline(view)
            if headline is not None:
                content[headline] = True
        shells = ancestors_of(view, content)
        modes = content_modes(view, content, shells, shell_text=False)
        self._bound_by_type(view, counts, modes, profile, posts)
        self._prune(view, counts, modes, markup, profile)
        if kept_chars(view, counts, modes) < self.listing_share * counts.chars[0]:
            return [Keep.TEXT] * len(view)
        return modes

    def _select_whole_page(self, view: DomView, counts: NodeCounts, profile: Profile) -> list[Keep]:
        """The selection of a page whose profile takes the whole page (step 14, with steps 26
        and 29), without the menus, the controls, the badges and the repeated blocks its
        profile drops (steps 25, 27, 28 and 15)."""
        modes = self._whole_page(view, counts, profile)
        if self.menu_link_chars is not None and profile.menus:
            drop_menus(view, counts, modes, self.menu_link_chars)
        if self.remove_controls and profile.controls:
            drop_controls(view, counts.chars, modes)
        if self.remove_badges and profile.badges:
            drop_badges(view, counts.chars, modes)
        if self.unique_blocks and profile.unique_blocks:
            drop_repeated_blocks(view, modes)
        return modes

    def _narrowed(
        self,
        view: DomView,
        counts: NodeCounts,
        scores: DensitySumScores,
        markup: PageMarkup,
        *,
        discussion: bool,
    ) -> list[bool]:
        """The content elements of DensitySum's expansion (step 3), bounded by the page's
        article body (step 4) or narrowed to the best block with the blocks of its tag paths
        (step 5); neither on a ``discussion``, whose posts and comments are all content."""
        hint = (
            article_body_element(view, counts, markup.article_bodies)
            if self.article_body and not discussion
            else None
        )
        if hint is not None:
            content = expand(view, scores, hint)
        else:
            content = expand(view, scores)
            if self.single_block_share > 0 and not discussion:
                whole = selected_chars(view, counts, content)
                visible = view.visible_chars if isinstance(view, _PageView) else counts.chars[0]
                if self.whole_page_share is None or whole < self.whole_page_share * visible:
                    local = expand(view, scores, block_anchor(scores.path, counts))
                    if selected_chars(view, counts, local) >= self.single_block_share * whole:
                        if self.same_path_blocks:
                            add_same_path_blocks(view, content, local)
                        content = local
        return content

    def _bound_by_type(
        self,
        view: DomView,
        counts: NodeCounts,
        modes: list[Keep],
        profile: Profile | None,
        posts: list[int],
    ) -> None:
        """Bound ``modes`` as ``profile`` asks: by the page's main landmark (a product), by
        the region of the thread's ``posts`` without what follows the last one (steps 21 and
        30), and without the comment sections nested in the posts (step 24)."""
        if self.main_landmark_share is not None and profile is not None and profile.main_bound:
            landmark = main_landmark(view, counts.chars, self.main_landmark_share)
            if landmark is not None:
                bound_to(view, modes, landmark)
        if self.post_region is not None and _holds(counts, posts, self.post_region):
            region = headed_region(view, counts.chars, view.parent[posts[0]])
            bound_to(view, modes, region)
            if self.after_posts_share is not None:
                drop_after_run(
                    view,
                    counts.chars,
                    modes,
                    posts,
                    region,
                    share=self.after_posts_share,
                    thread=True,
                )
        if (
            posts
            and self.post_comments is not None
            and profile is not None
            and profile.post_comments
        ):
            drop_post_comments(view, counts.chars, posts, modes, self.post_comments)

    def _prune(
        self,
        view: DomView,
        counts: NodeCounts,
        modes: list[Keep],
        markup: PageMarkup,
        profile: Profile | None,
    ) -> None:
        """Inside the selection ``modes`` make: keep the shells' prose (step 7), drop the link
        blocks, galleries and captions (steps 8 to 10) as the page's ``markup`` allows, and
        the repeated blocks and labels ``profile`` drops (steps 15 and 20)."""
        if self.shell_prose_chars is not None:
            keep_shell_prose(view, counts, modes, self.shell_prose_chars)
        check_deadline("after keeping the shells' prose")
        if not markup.not_an_article:
            if self.link_block_ratio < 1:
                drop_link_blocks(view, counts, modes, self.link_block_ratio)
            if self.remove_galleries:
                drop_galleries(view, counts, modes)
        if self.remove_captions and markup.types & ARTICLE_TYPES:
            drop_captions(view, counts, modes)
        if self.unique_blocks and profile is not None and profile.unique_blocks:
            drop_repeated_blocks(view, modes)
        if self.repeated_labels and profile is not None and profile.labels:
            drop_repeated_labels(view, counts.chars, modes)

    def _posts(self, view: DomView, counts: NodeCounts, profile: Profile | None) -> list[int]:
        """The posts of a thread whose ``profile`` reads them (:func:`record_run`), when they
        hold the least share of the text ``whole_posts`` and ``post_region`` ask for; else
        none."""
        shares = [share for share in (self.whole_posts, self.post_region) if share is not None]
        if profile is None or not profile.posts or not shares:
            return []
        return record_run(view, counts.chars, min(shares))

    def _whole_page(self, view: DomView, counts: NodeCounts, profile: Profile) -> list[Keep]:
        """The selection of a page whose profile takes the whole page (step 14): all of the
        view, or only the region of its records when the profile and ``record_share`` find
        one (without what follows the last record, step 29), else its main landmark when
        ``main_landmark_share`` finds one."""
        share, records = self.main_landmark_share, self.record_share
        region = None
        run: list[int] = []
        if records is not None and profile.records:
            run = record_run(view, counts.chars, records)
            region = headed_region(view, counts.chars, view.parent[run[0]]) if run else None
        if region is None and share is not None:
            region = main_landmark(view, counts.chars, share)
        if region is None:
            modes = [Keep.TEXT] * len(view)
        else:
            content = [False] * len(view)
            content[region] = True
            modes = content_modes(view, content, ancestors_of(view, content), shell_text=False)
        if self.before_heading_share is not None and profile.heading_start:
            drop_before_heading(view, counts.chars, modes, region or 0, self.before_heading_share)
        if run and region is not None and self.after_records_share is not None:
            drop_after_run(view, counts.chars, modes, run, region, share=self.after_records_share)
        return modes


def _holds(counts: NodeCounts, elements: Sequence[int], share: float | None) -> bool:
    """Whether ``elements`` (none of them inside another) hold at least ``share`` of the text
    of the view's root; never when there are none or ``share`` is ``None``."""
    if share is None or not elements:
        return False
    return sum(counts.chars[i] for i in elements) >= share * counts.chars[0]

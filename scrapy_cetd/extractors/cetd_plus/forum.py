"""The steps of a forum thread: the posters' signatures (step 18) and details (step 19), the
labels repeated under each post (step 20), and the comment sections nested in a post (step 24).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from lxml import etree

from scrapy_cetd.extractors.cetd_plus.named_sections import Attributes, named_sections
from scrapy_cetd.extractors.cetd_plus.repeats import REPEAT_MIN_CHARS
from scrapy_cetd.extractors.furniture import boilerplate
from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import DomView, child_positions, in_running_text
from scrapy_cetd.page.output import Keep, kept_elements

SIGNATURE_NAME = "signature"
"""What an ``id``, ``class`` or ``data-role`` of a poster's signature holds, lower-cased
(``signature``, ``message-signature``, ``memberSignature``, ``postsignature``): the
templates' own name for it."""


def is_signature(get: Attributes) -> bool:
    """Whether an element is a poster's signature: its ``id``, ``class`` or ``data-role``
    holds :data:`SIGNATURE_NAME`."""
    names = f"{get('id') or ''} {get('class') or ''} {get('data-role') or ''}"
    return SIGNATURE_NAME in names.lower()


def signature_sections(view: DomView, chars: Sequence[int]) -> list[bool]:
    """The elements of ``view`` that are posters' signatures (:func:`is_signature`), their
    descendants included (:func:`named_sections`)."""
    return named_sections(view, chars, is_signature, "finding the signatures")


MIN_DETAIL_LISTS = 2
"""The fewest definition lists with the same class (or, without one, the same labels) that make
them details repeated for each post (one list of terms is the content's own)."""


def detail_lists(view: DomView) -> list[bool]:
    """The elements of ``view`` that are repeated detail lists, their descendants included: the
    ``<dl>`` elements with terms (``<dt>`` children) whose class is that of
    :data:`MIN_DETAIL_LISTS` or more such ``<dl>`` of the view, or, without a class, whose
    terms (the text of their ``<dt>`` children, in order) are. A class a template gives the
    pane under each poster's name says what the list is whatever its terms: phpBB's
    ``postprofile`` has the poster's name as its term, different in each post. A ``<dl>``
    without ``<dt>`` children (replies indented with ``<dd>``, terms grouped in ``<div>``) is
    not a list of details and is never one. Each text run is read once, for the closest
    ``<dt>`` above it; the proxies of the lists are held until the end."""
    size, tags, parent, runs = len(view), view.tags, view.parent, view.runs
    term = [-1] * size  # the closest <dt> at or above each element
    labels: dict[int, list[str]] = {}
    for i in range(1, size):
        if tags[i] == "dt":
            term[i] = i
            labels[i] = []
        else:
            term[i] = term[parent[i]]
        if term[i] >= 0:
            labels[term[i]].extend(runs[i])
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding the detail lists")
    held: list[etree._Element] = []
    keys: dict[int, tuple[str, ...]] = {}
    for i in range(1, size):
        if tags[i] == "dl":
            held.append(element := view.elements[i])
            terms = [" ".join(" ".join(labels[c]).split()) for c in view.children[i] if c in labels]
            name = element.get("class") or ""
            if terms:
                keys[i] = (name,) if name else ("", *terms)
    repeated = Counter(keys.values())
    drop = [False] * size
    for i, key in keys.items():
        drop[i] = repeated[key] >= MIN_DETAIL_LISTS
    return drop


LABEL_CHARS = REPEAT_MIN_CHARS - 1
"""The most characters (as :func:`~scrapy_cetd.page.density.count_nodes` counts them) of a
label: a text too short for :func:`.repeats.drop_repeated_blocks` to tell a repeat, a
button's or a rank's text, not a sentence."""

MIN_LABELS = 3
"""The fewest kept elements with one short text that make it a label repeated across posts."""


def drop_repeated_labels(view: DomView, chars: Sequence[int], modes: list[Keep]) -> None:
    """Drop the outermost kept elements whose text has 1 to :data:`LABEL_CHARS` characters
    (``chars``: :func:`~scrapy_cetd.page.density.count_nodes`'s) when :data:`MIN_LABELS` or
    more of them have the same text (spaces collapsed): the controls and labels a thread
    repeats under each post ("Reply", "Quote", a poster's rank). An element with words of its
    parent's text beside it is a phrase of a sentence, not a label (:func:`in_running_text`):
    a term a thread keeps writing in bold or as code stays in its sentences. Each text run is
    read once: below an element that is read, nothing is."""
    size = len(view)
    in_output = kept_elements(view, modes)
    positions = child_positions(view)
    labels: dict[str, list[int]] = {}
    i = 1
    while i < size:
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding the repeated labels")
        if not (in_output[i] and modes[i] == Keep.TEXT and 0 < chars[i] <= LABEL_CHARS):
            i += 1
            continue
        end = view.subtree_end(i)
        if not in_running_text(view, positions, i):
            labels.setdefault(view.collapsed_runs(i, end), []).append(i)
        i = end
    for found in labels.values():
        if len(found) >= MIN_LABELS:
            for i in found:
                modes[i] = Keep.DROP


def drop_post_comments(
    view: DomView, chars: Sequence[int], posts: Sequence[int], modes: list[Keep], share: float
) -> None:
    """Drop the comment sections nested in the posts ``posts`` of a thread: the outermost
    elements inside a post, not the post itself, that :func:`boilerplate` finds to be comments
    (an ``id`` or ``class`` naming them, a schema.org ``Comment``) and that hold less than
    ``share`` of their post's text (``chars``: the view's :func:`count_nodes` characters); a
    section holding nearly all of its post is the post's own body, in a template that names
    each post a comment. One pass over the view."""
    size, parent = len(view), view.parent
    post = [-1] * size
    for p in posts:
        post[p] = p
    named = boilerplate(view, chars, structural=False, comments=True)
    for i in range(1, size):
        if post[i] < 0:
            post[i] = post[parent[i]]
        if (
            named[i]
            and not named[parent[i]]
            and post[i] not in (-1, i)
            and chars[i] < share * chars[post[i]]
        ):
            modes[i] = Keep.DROP
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding the posts' comments")

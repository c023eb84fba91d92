"""Steps 9 and 10, what an article shows beside its text: the galleries (runs of sibling cards
that each show media) and the captions (blocks that repeat an image's alternative text).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate, compress

from lxml import etree

from scrapy_cetd.extractors.cetd_plus.kept_text import kept_chars
from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page import accel
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import (
    HEADING_TAGS,
    DomView,
    attribute_owners,
    child_positions,
    in_running_text,
    local_tag,
)
from scrapy_cetd.page.flags import holding
from scrapy_cetd.page.output import Keep, kept_elements
from scrapy_cetd.page.words import tokens

MEDIA_TAGS = frozenset({"img", "picture", "video", "audio", "svg", "iframe", "canvas"})
"""Elements that show media: what makes a run of sibling cards a gallery. A ``<figure>`` shows
media too, unless it holds a table: a figure can be an image, a slideshow's frame whose image
is loaded later, or a table with its caption, which is data."""

_FIGURE, _TABLE = frozenset({"figure"}), frozenset({"table"})

GALLERY_SECTION_CHARS = 400
"""Characters of their own text (outside links) that sibling cards hold on average, each with
a heading, to be the sections of the text (a listicle laid out in columns: a picture, a
heading and a paragraph each) rather than a gallery's captions or a strip of teasers (a
title and a line of summary)."""

GALLERY_MIN_CARDS = 3
"""The fewest sibling cards that make a gallery (two images side by side are an illustration)."""

GALLERY_MAX_SHARE = 0.5
"""A run of cards holding at least this share of the selected text is the content itself (a
listicle, a recipe's steps), not a gallery inside it."""

CAPTION_OVERLAP = 0.9
"""A block at least this share of whose tokens are words of one image's alternative text
describes that image: a caption."""

CAPTION_TOKENS = 5
"""The fewest tokens a block needs to be told a caption by its words (a credit such as "Photo:
AP" is too short to tell)."""

CAPTION_WORK = 16
"""Look-ups of a word among the images' words that finding captions may make per element and
token of the view (:func:`drop_captions`). The pages of the shared datasets make at most 1.3
(measured 2026-11-25); a page that needs more is made to be compared without end (deep chains
of small blocks of words shared by many images), and keeps the blocks not yet compared."""


def drop_galleries(view: DomView, counts: NodeCounts, modes: list[Keep]) -> None:
    """Drop the kept runs of :data:`GALLERY_MIN_CARDS` or more sibling cards, alike in tag and
    class, that each show media (:data:`MEDIA_TAGS`), unless they hold
    :data:`GALLERY_MAX_SHARE` of the kept text or are headed sections of the text
    (:data:`GALLERY_SECTION_CHARS`). Cards are alike by their whole class, not by classes in
    turn as records are (:func:`.record_runs.alike_siblings`): in an article, siblings in turn
    are mostly blocks of two kinds (a picture and a text, a heading and a picture), and joined
    they would hide the pictures' own gallery (see docs/page-types.md)."""
    size = len(view)
    tags, chars, parent = view.tags, counts.chars, view.parent
    media = holding(view, MEDIA_TAGS | _FIGURE)  # a figure's table is told apart below
    media_children = [0] * size
    for c in compress(range(1, size), media[1:]):
        media_children[parent[c]] += 1
    candidates = [p for p in range(size) if media_children[p] >= GALLERY_MIN_CARDS]
    if not candidates:
        return
    in_output = kept_elements(view, modes)
    pictures: list[bool] = []  # read once a run needs them
    tables: list[bool] = []
    headed: list[bool] = []
    kept = -1
    held: list[etree._Element] = []  # freed together at the end: lxml walks up from one alone
    for p in candidates:
        if modes[p] != Keep.TEXT or not in_output[p]:
            continue
        children = view.children[p]
        held.append(view.elements[p])  # its children's proxies, freed alone, stop at it
        runs: dict[tuple[str, str], list[int]] = {}
        for c in children:
            runs.setdefault((tags[c], view.elements[c].get("class") or ""), []).append(c)
        for run in runs.values():
            if len(run) < GALLERY_MIN_CARDS or not all(media[c] for c in run):
                continue
            if not pictures:
                pictures, tables = holding(view, MEDIA_TAGS), holding(view, _TABLE)
                headed = holding(view, HEADING_TAGS)
            if not all(pictures[c] or not tables[c] for c in run):
                continue  # a card whose only media is a figure holding a table shows data
            own = sum(chars[c] - counts.link_chars[c] for c in run)
            if all(headed[c] for c in run) and own >= GALLERY_SECTION_CHARS * len(run):
                continue  # sections of the text, each headed, not captions or teasers
            if kept < 0:
                kept = kept_chars(view, counts, modes)
            if sum(chars[c] for c in run) < GALLERY_MAX_SHARE * kept:
                for c in run:
                    modes[c] = Keep.DROP


def drop_captions(view: DomView, counts: NodeCounts, modes: list[Keep]) -> None:
    """Drop the outermost kept blocks without headings that repeat one image's alternative
    text (:data:`CAPTION_OVERLAP` of :data:`CAPTION_TOKENS` or more tokens), unless they hold
    half the kept text. Blocks are first sized against the words of all the images at once,
    counted bottom-up, so a page reads each text run once.

    A block that passes is then compared with each image's words through an index from words
    to the images that have them, and blocks that hold the same words as one already compared
    (wrappers) reuse its answer. Comparisons stop after :data:`CAPTION_WORK` word look-ups per
    element and token of the view, which keeps a page made to be compared without end (deep
    chains of blocks made of words shared by many images) linear."""
    root = view.elements[0].getroottree().getroot()
    vocabularies: dict[frozenset[str], int] = {}
    longest = 0
    for image in attribute_owners(root, (("alt", None),)):
        text = image.get("alt") or ""
        if local_tag(image) == "img" and (vocabulary := frozenset(tokens(text))):
            vocabularies.setdefault(vocabulary, len(vocabularies))
            longest = max(longest, len(text))
    if not vocabularies:
        return
    images_of: dict[str, list[int]] = {}
    for vocabulary, image_number in vocabularies.items():
        for word in vocabulary:
            images_of.setdefault(word, []).append(image_number)
    size, chars = len(view), counts.chars
    in_output = kept_elements(view, modes)
    small = [
        0 < chars[i] <= 2 * longest and in_output[i] and modes[i] == Keep.TEXT for i in range(size)
    ]
    total, in_alts, end, own = _caption_counts(view.parent, small, view.runs, images_of)
    heading = holding(view, HEADING_TAGS)
    half = kept_chars(view, counts, modes) / 2
    positions = child_positions(view)
    bearers = sorted(own)  # the small elements with tokens, in document order
    before = [0, *accumulate(len(own[j]) for j in bearers)]  # their tokens before each
    work = CAPTION_WORK * (size + before[-1])
    answers: dict[tuple[int, int], int] = {}  # (first, last bearer) -> most words of one image
    for i in range(1, size):
        if not (
            small[i]
            and total[i] >= CAPTION_TOKENS
            and in_alts[i] >= CAPTION_OVERLAP * total[i]
            and chars[i] < half
            and not heading[i]
            and not in_running_text(view, positions, i)
        ):
            continue
        first, last = bisect_left(bearers, i), bisect_left(bearers, end[i])
        key = (first, last)
        if key not in answers:
            work -= before[last] - before[first]
            if work < 0:
                return
            found = Counter(word for j in bearers[first:last] for word in own[j])
            shared: dict[int, int] = {}
            for word, count in found.items():
                numbers = images_of.get(word, ())
                work -= len(numbers)
                if work < 0:
                    return
                for image_number in numbers:
                    shared[image_number] = shared.get(image_number, 0) + count
            answers[key] = max(shared.values(), default=0)
            check_deadline("finding captions")
        if answers[key] >= CAPTION_OVERLAP * total[i]:
            modes[i] = Keep.DROP
            for j in range(i, end[i]):
                small[j] = False


@accel.twin(accel.compiled.caption_counts)
def _caption_counts(
    parent: list[int], small: Sequence[bool], runs: list[list[str]], images_of: dict[str, list[int]]
) -> tuple[list[int], list[int], list[int], dict[int, list[str]]]:
    """The bottom-up counts of :func:`drop_captions`, in pure Python: the reference the
    compiled pass reproduces. For each element: the tokens of its ``small`` elements' own text
    (itself and, through an unbroken chain of small elements, those below it), how many of them
    are words of the images (keys of ``images_of``), one past its last descendant; and the
    tokens of each small element's own text that has any."""
    size = len(parent)
    total, in_alts = [0] * size, [0] * size
    own: dict[int, list[str]] = {}
    end = list(range(1, size + 1))
    for i in range(size - 1, 0, -1):
        end[parent[i]] = max(end[parent[i]], end[i])
        if small[i]:
            words = tokens(" ".join(runs[i]))
            if words:
                own[i] = words
            total[i] += len(words)
            in_alts[i] += sum(word in images_of for word in words)
            total[parent[i]] += total[i]
            in_alts[parent[i]] += in_alts[i]
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding captions")
    return total, in_alts, end, own

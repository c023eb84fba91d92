"""CETR: Content Extraction via Tag Ratios (Weninger, Hsu, Han, WWW 2010;
``shared/seeds/cetr-weninger-2010.md``, specification in ``docs/algorithms.md`` §2).

CETR works on the lines of the HTML source: each line gets its text-to-tag ratio, the ratios
are smoothed, and the lines are clustered into content and noise on the smoothed ratio and its
derivative (CETR) or thresholded on the smoothed ratio alone (CETR-TM).
"""

from __future__ import annotations

import copy
import html as html_lib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import lxml.html
from lxml import etree

from scrapy_cetd.extractors.base import NO_TEXT, Extractor
from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.dom import (
    BLOCK_TAGS,
    INVISIBLE_TAGS,
    UNSHOWN_CONTENT_TAGS,
    DomView,
    is_hidden,
    joined_text,
    local_tag,
    require_element,
    viewed_document,
)
from scrapy_cetd.page.output import Keep, render_html
from scrapy_cetd.page.words import collapse_spaces
from scrapy_cetd.result import EmptyReason, ExtractionResult, Reason

_LINE_BREAKING = BLOCK_TAGS | {"html", "head", "title", "body"}
"""Tags that end a block of a line's text: the block elements, and the document's own parts
(a ``<title>`` that shares a source line with the body's first words is not glued to them)."""

_NOT_SOURCE = INVISIBLE_TAGS - {"title"}
"""Elements removed before the page is serialised: the invisible ones except ``<title>``, which
CETR reads as a line of the page like the body's (S-15)."""

NO_CONTENT_LINES = EmptyReason("every line was classified as noise", Reason.NO_CONTENT)

MAX_ITERATIONS = 100
"""k-means stops after this many rounds if assignments still change (``docs`` §2.3)."""

_TOKEN = re.compile(r"<[^>]*>?|[^<]+")
"""A tag (``<`` to the next ``>``, possibly spanning lines) or a run of text."""

_SPACE = re.compile(r"\s")


_TAG_NAME = re.compile(r"</?([A-Za-z][^\s/>]*)")

_BREAK = "\x00"
"""Marks a block tag inside a line's text: §0.6 breaks the text output there; never counted."""

_SERIALIZED_VOID = frozenset(
    {"area", "base", "basefont", "br", "col", "frame", "hr", "img", "input", "isindex", "li"}
    | {"link", "meta", "param"}
)
"""Elements libxml2 serialises without an end tag when they are empty."""


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One non-blank line of the serialised document (``docs`` §2.2)."""

    chars: int
    """``x_k``: characters outside tags (entity-decoded, whitespace collapsed, trimmed)."""
    tags: int
    """``g_k``: tags that start on the line."""
    text: str
    """The line's text with tags stripped, normalised, broken at block tags (§0.6)."""
    elements: tuple[int, ...]
    """View indices of the body elements whose text lies on the line, and of the empty
    elements (images, line breaks) whose tag starts on it."""

    @property
    def ratio(self) -> float:
        """``TR_k = x_k / g_k``, or ``x_k`` when the line holds no tag (seed table, S-6)."""
        return self.chars / self.tags if self.tags else float(self.chars)


class _TagRatioExtractor(Extractor):
    """What CETR and CETR-TM share: serialising the tree, the lines, their tag ratios and the
    Gaussian smoothing; subclasses decide which lines are content (:meth:`classify`)."""

    def __init__(
        self,
        *,
        smoothing_radius: int = 3,
        smoothing_sigma: float = 1.0,
        reflow_width: int = 60,
        reflow_all_lines: bool = True,
        remove_hidden: bool = True,
    ) -> None:
        if smoothing_radius < 0:
            raise ValueError(f"smoothing_radius must be >= 0, got {smoothing_radius}")
        if not (math.isfinite(smoothing_sigma) and smoothing_sigma > 0):
            raise ValueError(f"smoothing_sigma must be a finite number > 0, got {smoothing_sigma}")
        if reflow_width < 1:
            raise ValueError(f"reflow_width must be >= 1, got {reflow_width}")
        super().__init__(remove_hidden=remove_hidden)
        self.smoothing_radius = smoothing_radius
        self.smoothing_sigma = smoothing_sigma
        self.reflow_width = reflow_width
        self.reflow_all_lines = reflow_all_lines

    def extract(self, tree: etree._Element, *, url: str | None = None) -> ExtractionResult:
        """Extract the content lines of the document that holds ``tree`` (or of its repaired
        copy, :func:`~scrapy_cetd.page.dom.viewed_body`).

        CETR works on source lines, but an extractor is handed a parsed tree (Scrapy's one
        parse), so the tree is serialised once: a copy of ``tree`` (the whole ``<html>``
        document, head included, S-15) without comments, scripts, styles, ``noscript``,
        ``template`` and hidden elements (§0.2, S-1) is written out by lxml, whose text nodes
        keep their newlines, so the page's own line structure survives (the authors' code also
        parses and re-serialises before splitting lines). ``tree`` itself is not modified.

        ``.text`` is the text of the content lines, one line each (``docs`` §2.5); ``.html``
        is the smallest set of body elements covering the content lines: every element with
        text (or an empty element such as an image) on a content line, whole in its own text,
        with its ancestors as shells.
        """
        require_element(tree)
        view = self.view(tree)
        if isinstance(view, EmptyReason):
            return view.result(self.name)
        if not _has_text(view):
            return NO_TEXT.result(self.name)
        lines = self.source_lines(viewed_document(tree, view.elements[0]), view)
        check_deadline("after splitting the lines")
        content = self.classify(lines)
        check_deadline("after classifying the lines")
        text = "\n".join(
            part
            for line, keep in zip(lines, content, strict=True)
            if keep
            for part in line.text.split("\n")
            if part
        )
        if not text:
            return NO_CONTENT_LINES.result(self.name)
        modes = _covering_modes(view, lines, content)
        del lines, content  # the lines hold a copy of the page's text: free it before rendering
        html = render_html(view, modes)
        return ExtractionResult(text=text, html=html, algorithm=self.name)

    def select(self, view: DomView) -> Sequence[Keep] | EmptyReason:
        """The covering elements of the content lines of ``view``'s root alone (for callers
        that hold only a view; :meth:`extract` works on the whole document)."""
        if not _has_text(view):
            return NO_TEXT
        lines = self.source_lines(view.elements[0], view)
        check_deadline("after splitting the lines")
        content = self.classify(lines)
        check_deadline("after classifying the lines")
        if not any(keep and line.text for line, keep in zip(lines, content, strict=True)):
            return NO_CONTENT_LINES
        return _covering_modes(view, lines, content)

    def source_lines(self, root: etree._Element, view: DomView) -> list[SourceLine]:
        """The non-blank lines of ``root`` serialised without invisible nodes (§2.3 steps 1-4),
        long lines reflowed (S-3)."""
        document, owners, void = _serialize(root, view, remove_hidden=self.remove_hidden)
        reflow = self.reflow_all_lines or _one_line(document)
        return split_lines(document, owners, void, width=self.reflow_width if reflow else 0)

    def smoothed(self, lines: Sequence[SourceLine]) -> list[float]:
        """``T'``: the tag ratios after Gaussian smoothing (§2.3 step 5)."""
        return gaussian_smooth(
            [line.ratio for line in lines], self.smoothing_radius, self.smoothing_sigma
        )

    def classify(self, lines: Sequence[SourceLine]) -> list[bool]:
        """Whether each line is content."""
        raise NotImplementedError


class CetrExtractor(_TagRatioExtractor):
    """CETR: k-means on the two-dimensional points (smoothed tag ratio, absolute derivative)
    with one centroid pinned at the origin; the lines of the origin's cluster are noise, all
    others content (seed "Extraction in two dimensions"; ``docs`` §2.3 step 6).

    Deterministic: the free centroids start farthest-first (the point farthest from the
    origin, then the point farthest from every chosen centroid; ties to the first line),
    points go to the nearest centroid (ties to the lowest centroid, the origin first), and
    the free centroids move to their means until nothing changes or 100 rounds (S-10).
    With fewer lines than clusters, ``k`` is the number of lines, and a single line is
    content when its ratio is positive (S-13).
    """

    name = "cetr"

    def __init__(
        self,
        *,
        clusters: int = 3,
        derivative_window: int = 3,
        smoothing_radius: int = 3,
        smoothing_sigma: float = 1.0,
        reflow_width: int = 60,
        reflow_all_lines: bool = True,
        remove_hidden: bool = True,
    ) -> None:
        """``clusters``: k of k-means, the pinned origin included (seed FAQ: "k=3 seems to
        work well"; k=2 also tried).
        ``derivative_window``: alpha, the derivative compares each smoothed ratio with the mean of
        the next alpha (``docs`` §2.4; the paper's value, [M], and the authors' code).
        ``smoothing_radius``: radius of the Gaussian smoothing (seed: "a radius of 3").
        ``smoothing_sigma``: sigma of the Gaussian kernel (not in the seed; 1.0 as in the
        *dragnet* re-implementation, ``docs`` §2.4).
        ``reflow_width``: long lines are cut after this many characters, at a space or after a
        tag's end, never inside a tag (seed FAQ: "after 60 (or so) characters").
        ``reflow_all_lines``: reflow every long line, so ratios do not depend on minification
        (S-3, default); ``False`` is the seed's literal rule, reflowing only a document that
        is on one line.
        ``remove_hidden``: see :class:`~scrapy_cetd.extractors.base.Extractor`."""
        if clusters < 2:
            raise ValueError(f"clusters must be >= 2, got {clusters}")
        if derivative_window < 1:
            raise ValueError(f"derivative_window must be >= 1, got {derivative_window}")
        super().__init__(
            smoothing_radius=smoothing_radius,
            smoothing_sigma=smoothing_sigma,
            reflow_width=reflow_width,
            reflow_all_lines=reflow_all_lines,
            remove_hidden=remove_hidden,
        )
        self.clusters = clusters
        self.derivative_window = derivative_window

    def classify(self, lines: Sequence[SourceLine]) -> list[bool]:
        if len(lines) == 1:
            return [lines[0].ratio > 0]
        smoothed = self.smoothed(lines)
        gradient = absolute_derivative(smoothed, self.derivative_window)
        points = list(zip(smoothed, gradient, strict=True))
        assignment, _ = pinned_kmeans(points, min(self.clusters, len(points)))
        return [cluster != 0 for cluster in assignment]


class CetrThresholdExtractor(_TagRatioExtractor):
    """CETR-TM: a line is content when its smoothed tag ratio is above λ times the population
    standard deviation of the smoothed ratios (``docs`` §2.3 step 6, S-14)."""

    name = "cetr-tm"

    def __init__(
        self,
        *,
        threshold_coefficient: float = 1.0,
        smoothing_radius: int = 3,
        smoothing_sigma: float = 1.0,
        reflow_width: int = 60,
        reflow_all_lines: bool = True,
        remove_hidden: bool = True,
    ) -> None:
        """``threshold_coefficient``: λ in ``τ = λ·sigma`` (the paper sweeps λ; its value is not
        in the seed, 1.0 as settled in ``docs`` §2.4).
        The other options are those of :class:`CetrExtractor`."""
        if threshold_coefficient < 0:
            raise ValueError(f"threshold_coefficient must be >= 0, got {threshold_coefficient}")
        super().__init__(
            smoothing_radius=smoothing_radius,
            smoothing_sigma=smoothing_sigma,
            reflow_width=reflow_width,
            reflow_all_lines=reflow_all_lines,
            remove_hidden=remove_hidden,
        )
        self.threshold_coefficient = threshold_coefficient

    def classify(self, lines: Sequence[SourceLine]) -> list[bool]:
        if not lines:
            return []
        smoothed = self.smoothed(lines)
        mean = math.fsum(smoothed) / len(smoothed)
        sd = math.sqrt(math.fsum((value - mean) ** 2 for value in smoothed) / len(smoothed))
        threshold = self.threshold_coefficient * sd
        return [value > threshold for value in smoothed]


def gaussian_smooth(values: Sequence[float], radius: int, sigma: float) -> list[float]:
    """``T'_k = Σ w_j·TR_{k+j} / Σ w_j`` over ``|j| ≤ radius`` inside the sequence, with
    ``w_j = exp(-j²/(2sigma²))``: the kernel is truncated and renormalised at the ends (S-7).
    A radius beyond the sequence reaches nothing more, and is cut to it; a sigma whose square
    is too small for a float weighs the line alone."""
    n = len(values)
    radius = min(radius, max(n - 1, 0))
    spread = 2 * sigma * sigma
    weights = [
        1.0 if j == 0 else math.exp(-(j * j) / spread) if spread else 0.0
        for j in range(-radius, radius + 1)
    ]
    smoothed: list[float] = []
    for k in range(n):
        total = weight = 0.0
        for j in range(max(-radius, -k), min(radius, n - 1 - k) + 1):
            w = weights[j + radius]
            total += w * values[k + j]
            weight += w
        smoothed.append(total / weight)
    return smoothed


def absolute_derivative(values: Sequence[float], window: int) -> list[float]:
    """``G_k = |mean(T'_{k+1} … T'_{k+alpha}) - T'_k|``, the window cut at the end; the last line
    has ``G = 0`` (S-9)."""
    n = len(values)
    # Prefix sums make every window mean O(1).
    prefix = [0.0]
    for value in values:
        prefix.append(prefix[-1] + value)
    gradient: list[float] = []
    for k in range(n):
        end = min(k + window, n - 1)
        if end <= k:
            gradient.append(0.0)
            continue
        mean = (prefix[end + 1] - prefix[k + 1]) / (end - k)
        gradient.append(abs(mean - values[k]))
    return gradient


def pinned_kmeans(
    points: Sequence[tuple[float, float]], k: int
) -> tuple[list[int], list[tuple[float, float]]]:
    """k-means with centroid 0 fixed at the origin (``docs`` §2.3 step 6); returns each
    point's cluster and the final centroids. Deterministic farthest-first initialisation."""
    centroids: list[tuple[float, float]] = [(0.0, 0.0)]
    nearest = [x * x + y * y for x, y in points]  # squared distance to the chosen centroids
    while len(centroids) < k:
        best = max(range(len(points)), key=lambda i: (nearest[i], -i))
        centroids.append(points[best])
        cx, cy = points[best]
        for i, (x, y) in enumerate(points):
            nearest[i] = min(nearest[i], (x - cx) ** 2 + (y - cy) ** 2)

    def assign() -> list[int]:
        result: list[int] = []
        for x, y in points:
            best_cluster, best_distance = 0, x * x + y * y
            for c in range(1, k):
                cx, cy = centroids[c]
                distance = (x - cx) ** 2 + (y - cy) ** 2
                if distance < best_distance:
                    best_cluster, best_distance = c, distance
            result.append(best_cluster)
        return result

    assignment = assign()
    for _ in range(MAX_ITERATIONS):
        check_deadline("clustering the lines")
        sums = [[0.0, 0.0, 0] for _ in range(k)]
        for (x, y), cluster in zip(points, assignment, strict=True):
            total = sums[cluster]
            total[0] += x
            total[1] += y
            total[2] += 1
        for c in range(1, k):
            sx, sy, count = sums[c]
            if count:
                centroids[c] = (sx / count, sy / count)
        updated = assign()
        if updated == assignment:
            break
        assignment = updated
    return assignment, centroids


def split_lines(
    document: str, owners: Sequence[int], void: Sequence[bool], *, width: int
) -> list[SourceLine]:
    """The lines of ``document`` with ``x_k``, ``g_k``, text and elements (§2.3 steps 2-4).

    One tokenizer runs over the whole document, so a tag spanning lines counts once, on the
    line where it starts, and its characters are never text (S-5). ``owners[e]`` is the view
    index of the ``e``-th start tag's element (``-1`` outside the body) and ``void[e]`` says
    whether it has no end tag. With ``width > 0`` a line is cut as soon as it is ``width``
    characters long, at the next whitespace (which is dropped) or after the next tag end
    (S-3). Lines with neither text nor tags are dropped (S-2).
    """
    document = document.replace("\r\n", "\n").replace("\r", "\n")
    lines: list[SourceLine] = []
    parts: list[str] = []
    elements: list[int] = []
    tags = 0
    length = 0

    def finish() -> None:
        nonlocal tags, length
        raw = unescape("".join(parts))
        chars = len(collapse_spaces(raw.replace(_BREAK, "")))
        if chars or tags:
            blocks = (collapse_spaces(block) for block in raw.split(_BREAK))
            text = "\n".join(block for block in blocks if block)
            lines.append(SourceLine(chars, tags, text, tuple(dict.fromkeys(elements))))
        parts.clear()
        elements.clear()
        tags = 0
        length = 0

    stack: list[int] = []
    next_element = 0
    for count, match in enumerate(_TOKEN.finditer(document)):
        if not count % 4096:
            check_deadline("splitting the lines")
        token = match.group()
        if token[0] == "<" and len(token) > 1 and (token[1].isalpha() or token[1] in "/!?"):
            tags += 1
            name = _TAG_NAME.match(token)
            if name is not None and name.group(1).lower() in _LINE_BREAKING:
                parts.append(_BREAK)
            if token[1] == "/":
                if stack:
                    stack.pop()
            elif token[1].isalpha() and next_element < len(owners):
                element = next_element
                next_element += 1
                if void[element]:
                    if owners[element] >= 0:
                        elements.append(owners[element])
                else:
                    stack.append(element)
            newlines = token.count("\n")
            if newlines:
                for _ in range(newlines):
                    finish()
                length = len(token) - token.rfind("\n") - 1
            else:
                length += len(token)
            if width and length >= width:
                finish()
            continue
        owner = owners[stack[-1]] if stack else -1
        for number, segment in enumerate(token.split("\n")):
            if number:
                finish()
            start = 0
            if width:
                while True:
                    position = max(start, start + width - length)
                    space = _SPACE.search(segment, position)
                    if space is None:
                        break
                    _add_text(segment[start : space.start()], owner, parts, elements)
                    finish()
                    start = space.end()
            _add_text(segment[start:], owner, parts, elements)
            length += len(segment) - start
    finish()
    return lines


_UNESCAPE_CHUNK = 1 << 16
"""Characters :func:`unescape` hands to :func:`html.unescape` at a time."""


def unescape(text: str) -> str:
    """:func:`html.unescape` of ``text``, in pieces of about :data:`_UNESCAPE_CHUNK` characters
    cut before an ``&``. A reference never holds another ``&``, so the pieces decode as the
    whole does; the pieces bound the list of fragments the decoder builds, which for a line of
    a million references is twenty times the line."""
    if len(text) <= _UNESCAPE_CHUNK or "&" not in text:
        return html_lib.unescape(text)
    pieces: list[str] = []
    start, size = 0, len(text)
    while start < size:
        end = start + _UNESCAPE_CHUNK
        if end < size:
            cut = text.rfind("&", start + 1, end + 1)
            if cut < 0:
                cut = text.find("&", end)
            end = cut if cut >= 0 else size
        pieces.append(html_lib.unescape(text[start:end]))
        start = end
    return "".join(pieces)


def _add_text(text: str, owner: int, parts: list[str], elements: list[int]) -> None:
    if text:
        parts.append(text.replace(_BREAK, ""))
        if owner >= 0 and not text.isspace():
            elements.append(owner)


def _serialize(
    root: etree._Element, view: DomView, *, remove_hidden: bool
) -> tuple[str, list[int], list[bool]]:
    """``root`` serialised as HTML without the invisible nodes of §0.2, with, for each start
    tag in the output, the view index of its element (-1 if not in the view) and whether the
    serialiser writes it without an end tag."""
    clone = copy.deepcopy(root)
    # Pair every node with its copy; both walks stay alive in lists, because lxml frees a
    # node proxy by searching its ancestors, O(depth) per node on deep pages otherwise.
    originals = list(root.iter())
    duplicates = list(clone.iter())
    view_index = {element: i for i, element in enumerate(view.elements)}
    body = view.elements[0]
    keep_visible = {id(clone)}
    owner_of: dict[int, int] = {}
    check_deadline("serialising the page")
    for original, duplicate in zip(originals, duplicates, strict=True):
        i = view_index.get(original)
        if i is not None:
            owner_of[id(duplicate)] = i
        if original is body:
            keep_visible.add(id(duplicate))

    removed: set[int] = set()
    parents: dict[int, etree._Element] = {}
    emptied: dict[int, etree._Element] = {}  # shown without their content (UNSHOWN_CONTENT_TAGS)
    for count, duplicate in enumerate(duplicates):
        if not count % 4096:
            check_deadline("serialising the page")
        parent = duplicate.getparent()
        if parent is not None and (id(parent) in removed or id(parent) in emptied):
            removed.add(id(duplicate))
            continue
        tag = local_tag(duplicate)
        if (
            tag is None
            or tag in _NOT_SOURCE
            or (remove_hidden and id(duplicate) not in keep_visible and is_hidden(duplicate))
        ):
            removed.add(id(duplicate))
            if parent is not None and duplicate is not clone:
                parents[id(parent)] = parent
        elif tag in UNSHOWN_CONTENT_TAGS:
            emptied[id(duplicate)] = duplicate
    for parent in parents.values():
        _remove_children_keeping_tails(parent, removed)
    for element in emptied.values():
        element.text = None
        for child in list(element):
            element.remove(child)  # with its tail: it lies inside the element too

    kept = [element for element in duplicates if id(element) not in removed]
    owners = [owner_of.get(id(element), -1) for element in kept]
    void = [
        (local_tag(element) or "") in _SERIALIZED_VOID and len(element) == 0 and not element.text
        for element in kept
    ]
    check_deadline("serialising the page")
    document = lxml.html.tostring(clone, encoding="unicode", with_tail=False)
    return document, owners, void


def _remove_children_keeping_tails(parent: etree._Element, removed: set[int]) -> None:
    """Remove the children of ``parent`` whose ``id`` is in ``removed``; the tail text of each
    stays where it was, joined to the text before it. Each run of text is joined once, so a
    parent with many removed children (a comment between every word) costs linear time."""
    parts: list[str] = [parent.text or ""]
    owner: etree._Element | None = None  # whose tail the parts become (None: parent.text)
    changed = False

    def flush() -> None:
        if not changed:
            return
        text = joined_text(None, "".join(parts))
        if owner is None:
            parent.text = text or None
        else:
            owner.tail = text or None

    for child in list(parent):
        if id(child) in removed:
            if child.tail:
                parts.append(child.tail)
                changed = True
            parent.remove(child)
        else:
            flush()
            owner, parts, changed = child, [child.tail or ""], False
    flush()


def _one_line(document: str) -> bool:
    """Whether the document has a single non-blank line (the seed FAQ's case)."""
    count = 0
    for line in document.splitlines():
        if line.strip():
            count += 1
            if count > 1:
                return False
    return count == 1


def _has_text(view: DomView) -> bool:
    return any(run and not run.isspace() for runs in view.runs for run in runs)


def _covering_modes(
    view: DomView, lines: Sequence[SourceLine], content: Sequence[bool]
) -> list[Keep]:
    """Every element with text (or an empty element) on a content line keeps its own text;
    its ancestors are shells."""
    modes = [Keep.DROP] * len(view)
    for line, keep in zip(lines, content, strict=True):
        if keep:
            for element in line.elements:
                modes[element] = Keep.TEXT
    for i in range(len(view) - 1, 0, -1):
        if modes[i] != Keep.DROP and modes[view.parent[i]] == Keep.DROP:
            modes[view.parent[i]] = Keep.SHELL
    return modes

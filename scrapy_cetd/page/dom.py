"""A read-only, flattened view of the visible part of a page's ``<body>``.

Every extractor starts from the same view, built in one iterative pass: the visible elements in
document order (preorder) with their parents, children and text runs, stored in plain lists
beside the tree. The lxml tree itself is never modified, so the spider, the pipeline and every
extractor can share Scrapy's one parse (``docs/algorithms.md`` §0.1-§0.4).

The per-page passes here and in the other modules of :mod:`scrapy_cetd.page` and of
:mod:`scrapy_cetd.extractors` run in the compiled module ``scrapy_cetd.page._speedups`` when it
was built for the installed lxml, through :mod:`scrapy_cetd.page.accel`. The Python function
registered beside each (``@accel.twin``) is the reference the compiled code reproduces exactly,
and the fallback.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline, count_elements_by_xpath
from scrapy_cetd.page import accel
from scrapy_cetd.page.words import collapse_spaces

INVISIBLE_TAGS = frozenset({"script", "style", "noscript", "template", "title"})
"""Elements that are never rendered for a reader (§0.2); a `<title>` the parser left in the
body is not shown by browsers either (and its content would read back as raw text)."""

UNSHOWN_CONTENT_TAGS = frozenset({"iframe", "noembed", "noframes"})
"""Elements shown without their content: an ``<iframe>`` shows the document it loads, and what
``<noembed>`` and ``<noframes>`` hold is for browsers without embeds or frames. The element
stays in the view (an embedded video is part of the content); its content does not (libxml2
reads it as raw text, markup included: a fallback link written out as ``<a href=...>``)."""

LINK_TAGS = frozenset({"a", "button", "select"})
"""Elements whose text is link text: CETD treats buttons and drop-downs as links (§0.4)."""

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
"""The headings of HTML's sections, ``<h1>`` to ``<h6>``."""

BLOCK_TAGS = HEADING_TAGS | {
    *("p", "div", "li", "ul", "ol", "menu", "dir", "dl", "dt", "dd", "pre", "listing", "xmp"),
    *("plaintext", "table", "caption", "tr", "td", "th", "blockquote", "center", "address"),
    *("section", "article", "header", "footer", "aside", "main", "nav", "search", "hgroup"),
    *("figure", "figcaption", "form", "fieldset", "legend", "details", "summary", "dialog"),
    *("hr", "br"),
}
"""Elements that start a new line of text output (§0.6): ``<br>`` and the elements HTML
renders as blocks (its rendering section's ``display: block`` and ``list-item``, a table, its
caption, rows and cells), so that the text and the Markdown, which writes each as a block of
its own, break their lines at the same elements."""

CODE_TAGS = frozenset({"pre", "code", "kbd", "samp", "tt"})
"""Elements whose text is code: a code block and the elements of code spans."""
PREFORMATTED_TAGS = frozenset({"pre", "listing", "xmp", "plaintext", "textarea"})
"""Elements whose line breaks HTML shows (its rendering section gives them ``white-space: pre``,
or ``pre-wrap`` for a ``<textarea>``): inside one, a newline of the text, or of a tail, breaks
the text's line (§0.6), so that each line of a code block is a line of the text."""
CODE_LINE_CLASS = "line"
"""The class of each line's ``<span>`` in Shiki's and GitLab's code, which their CSS shows as a
block: the code need not hold a newline between two lines. Inside code (:data:`CODE_TAGS`),
such an element starts and ends a line as a block does (:func:`code_line_class`), so that the
last word of a line and the first of the next are not read as one."""


def code_line_class(element: etree._Element) -> bool:
    """Whether ``element`` has the class of a line of code (:data:`CODE_LINE_CLASS`)."""
    return CODE_LINE_CLASS in (element.get("class") or "").split()


def local_tag(element: etree._Element) -> str | None:
    """The lower-case local name of an element; ``None`` for comments, PIs and entities."""
    tag = element.tag
    if not isinstance(tag, str):
        return None
    if tag[:1] == "{":
        tag = tag.rpartition("}")[2]
    return tag.lower()


_STREAMED_SEGMENT = re.compile(r"S:[0-9a-f]+\Z")
"""The ``id`` of the ``<div hidden>`` in which React's streaming server rendering sends a part
of the page that was not ready when the page began (``S:0``, ``S:1f``): the script after it
moves the part into its place at once, so the browser shows it. Next.js pages send their
article this way."""


def is_hidden(element: etree._Element) -> bool:
    """Whether markup alone hides the element: ``hidden`` (but for React's streamed parts,
    :data:`_STREAMED_SEGMENT`), a ``<dialog>`` without ``open`` (browsers show a dialog only
    once a script opens it), ``input[type=hidden]`` or an inline ``display:none`` /
    ``visibility:hidden`` style (§0.2; no CSS is evaluated)."""
    if element.get("hidden") is not None and not _streamed_segment(element):
        return True
    tag = local_tag(element)
    if tag == "dialog" and element.get("open") is None:
        return True
    if tag == "input" and (element.get("type") or "").strip().lower() == "hidden":
        return True
    style = element.get("style")
    if not style:
        return False
    compact = "".join(style.split()).lower()
    return "display:none" in compact or "visibility:hidden" in compact


def _streamed_segment(element: etree._Element) -> bool:
    """Whether ``element`` is a ``<div>`` of React's streamed parts (:data:`_STREAMED_SEGMENT`)."""
    return local_tag(element) == "div" and bool(_STREAMED_SEGMENT.match(element.get("id") or ""))


@accel.twin(accel.compiled.count_elements)
def count_elements(tree: etree._Element) -> int:
    """The elements of ``tree``, itself included, as :class:`~scrapy_cetd.limits.Limits`
    counts them for ``max_nodes`` (:func:`~scrapy_cetd.limits.count_elements_by_xpath`): the
    reference the compiled pass reproduces in a walk over the nodes."""
    return count_elements_by_xpath(tree)


def namespaced(tree: etree._Element) -> bool:
    """Whether the document that holds ``tree`` was parsed as XML with its tags in a namespace
    (XHTML: ``{http://www.w3.org/1999/xhtml}h1``), which XPath's bare names do not match."""
    tag = tree.getroottree().getroot().tag
    return isinstance(tag, str) and tag[:1] == "{"


_SHALLOW_PROBE = 64
"""The levels :func:`has_depth` looks for first: an element deeper than any level has an
ancestor at that level."""


def has_depth(root: etree._Element, levels: int) -> bool:
    """Whether some element lies ``2**k`` levels below ``root``, for the largest such number
    not above ``levels`` (so that each is one of a few compiled XPaths; libxml2 walks the
    levels in one C call). libxml2 takes a step for each level of the path even once no
    element is left, so a deep probe is made only when :data:`_SHALLOW_PROBE` levels are
    reached: almost no page nests that deep (``docs/metadata-results.md``)."""
    if not levels:
        return True
    deepest = 1 << (levels.bit_length() - 1)
    if deepest > _SHALLOW_PROBE and not _depth_probe(_SHALLOW_PROBE)(root):
        return False
    return bool(_depth_probe(deepest)(root))


@cache
def _depth_probe(levels: int) -> etree.XPath:
    return etree.XPath(f"boolean({'/'.join(['*'] * levels)})")


HOLD_DEPTH = 256
"""The depth from which :func:`deep_proxies` holds a tree's proxies."""


def deep_proxies(root: etree._Element) -> list[etree._Element]:
    """The proxies of every node below ``root`` when it nests :data:`HOLD_DEPTH` deep, else
    none: a caller holds them around code that makes and drops a proxy per element (a third
    party's walk, a table of elements freed outermost first). lxml frees a proxy dropped alone
    by walking up to the closest ancestor that has one, which on a deep tree costs the depth
    for each element; with every proxy held that walk is one step, and the list is freed
    deepest first (CPython frees a list's items from the last). A shallow page holds nothing:
    its walks are short."""
    return list(root.iter()) if has_depth(root, HOLD_DEPTH) else []


def find_body(root: etree._Element) -> etree._Element | None:
    """The ``<body>`` of the document that contains ``root``, or ``root`` itself when it is an
    element below ``<html>`` (a fragment the caller chose). ``None`` when the document has no
    body (a frameset page, or a document with only a head)."""
    if local_tag(root) != "html":
        return root
    for child in root:
        if local_tag(child) == "body":
            return child
    return None


def has_frameset(root: etree._Element) -> bool:
    """Whether the document is a frameset page (its content lives in other documents)."""
    return any(local_tag(child) == "frameset" for child in root)


def require_element(tree: etree._Element) -> None:
    """Raise :class:`ValueError` naming ``tree`` unless it is an element: a comment, a
    processing instruction or an entity has no body to read."""
    if not isinstance(tree, etree._Element) or not isinstance(tree.tag, str):
        raise ValueError(
            "tree must be an lxml element (a document's root or an element read as a fragment), "
            f"not {type(tree).__name__}"
        )


def viewed_body(tree: etree._Element) -> etree._Element | None:
    """The element to read as the body of ``tree``, as a browser's parser would build it;
    ``None`` for a frameset page. ``tree`` is a document root or an element taken as the root
    of a fragment (then it is its own body), and it is never changed: two kinds of document
    are read in a repaired copy, whose body is returned, in a document that keeps the head:

    - one without ``<body>`` (a tree built by hand or by an XML parser; libxml2's HTML parser
      always makes one when there is content): everything outside its ``<head>`` is moved
      into a new body;
    - one with text after its body (libxml2 closes the body at a stray ``</body>`` and puts
      what follows beside it, where browsers go on filling the body): what follows is moved
      to the end of the body.
    """
    body = find_body(tree)
    if body is None:
        return None if has_frameset(tree) else _with_body(tree)
    if local_tag(body) == "frameset":
        return None
    return _with_text_after(tree, body) if body is not tree and _text_after(body) else body


def viewed_document(tree: etree._Element, body: etree._Element) -> etree._Element:
    """The root that holds ``body``, the :func:`viewed_body` of ``tree``: ``tree`` itself, or
    the repaired copy of its document."""
    copied = body.getroottree().getroot()
    return tree if copied is tree.getroottree().getroot() else copied


def _with_body(root: etree._Element) -> etree._Element:
    """The body of a copy of the document ``root`` (which is not changed) in which everything
    but the ``<head>`` is moved into a new ``<body>``."""
    document = copy.deepcopy(root)
    namespace = etree.QName(root).namespace
    body = document.makeelement(f"{{{namespace}}}body" if namespace else "body")
    body.text, document.text = joined_text(None, document.text or "") or None, None
    for child in list(document):
        if local_tag(child) != "head":
            body.append(child)
    document.append(body)
    return body


def _text_after(body: etree._Element) -> bool:
    """Whether libxml2 put text after the document's ``<body>``, beside it."""
    return bool((body.tail or "").strip()) or any(
        local_tag(sibling) not in INVISIBLE_TAGS and any(t.strip() for t in sibling.itertext())
        for sibling in body.itersiblings()
        if isinstance(sibling.tag, str)
    )


def _with_text_after(root: etree._Element, body: etree._Element) -> etree._Element:
    """The body of a copy of the document ``root`` (which is not changed) that ends with what
    follows it; ``body`` is ``root``'s."""
    clone = copy.deepcopy(root)[root.index(body)]
    tail, clone.tail = clone.tail, None
    if tail:
        last = clone[-1] if len(clone) else None
        if last is None:
            clone.text = joined_text(clone.text, tail)
        else:
            last.tail = joined_text(last.tail, tail)
    for sibling in list(clone.itersiblings()):
        clone.append(sibling)
    etree.strip_tags(clone, "head", "body")  # a second one after the body: browsers ignore it
    return clone


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters libxml2 keeps from a damaged page but lxml refuses in new text."""


def joined_text(first: str | None, second: str) -> str:
    """``first`` (if any) followed by ``second``, as text lxml accepts in a tree: without the
    characters of :data:`_NOT_XML`."""
    return _NOT_XML.sub("", (first or "") + second)


def normalized_length(text: str) -> int:
    """Characters of a text node after collapsing whitespace runs and stripping (§0.3)."""
    return len(collapse_spaces(text))


@dataclass(frozen=True, eq=False)
class DomView:
    """The visible elements below a root, in document order; index 0 is the root.

    ``runs[i]`` has ``len(children[i]) + 1`` strings: ``runs[i][k]`` is the raw text directly in
    element ``i`` before its ``k``-th visible child (the last one after all children). Text on
    both sides of a removed node (a comment, a script, a hidden element) is joined into one run,
    as if the node had been deleted from the tree.
    """

    elements: Sequence[etree._Element]
    """The elements, a list or, from the compiled build, a sequence that makes each proxy
    when it is read (the same object while one is held, so sets and dicts of them work)."""
    tags: list[str]
    parent: list[int]
    children: list[list[int]]
    runs: list[list[str]]
    depth: list[int]
    in_link: list[bool]
    """The element is a link element or lies inside one (§0.4)."""

    def __len__(self) -> int:
        return len(self.elements)

    def ancestors(self, index: int) -> Iterator[int]:
        """The indices from ``index``'s parent up to the root."""
        index = self.parent[index]
        while index >= 0:
            yield index
            index = self.parent[index]

    def subtree_end(self, index: int) -> int:
        """One past the last index of ``index``'s subtree: a subtree is a run of the preorder,
        the elements after ``index`` deeper than it."""
        depth, size, end = self.depth, len(self.elements), index + 1
        while end < size and depth[end] > depth[index]:
            end += 1
        return end

    def collapsed_runs(self, start: int, end: int) -> str:
        """The text runs of the elements ``start`` to ``end`` (a subtree, with
        :meth:`subtree_end`), each element's runs in turn, white space collapsed: a key that
        subtrees alike share (the order is the elements', not the reading order of their
        text)."""
        runs = self.runs
        return collapse_spaces(" ".join(run for j in range(start, end) for run in runs[j]))


def child_positions(view: DomView) -> list[int]:
    """Each element's place among its parent's visible children (the root's is 0): the ``k``
    for which ``view.runs[parent]`` holds its text before (``k``) and after (``k + 1``)."""
    positions = [0] * len(view)
    for children in view.children:
        for k, child in enumerate(children):
            positions[child] = k
    return positions


def in_running_text(view: DomView, positions: Sequence[int], index: int) -> bool:
    """Whether element ``index`` has a word (a letter or a digit) of its parent's own text
    directly before or after it: a phrase of a sentence (``set <strong>preferred
    chain</strong> parameter``), not a block or a control of its own (``Reply · Quote``).
    ``positions`` are :func:`child_positions`'s."""
    parent = view.parent[index]
    if parent < 0:
        return False
    runs, k = view.runs[parent], positions[index]
    return any(char.isalnum() for char in runs[k]) or any(char.isalnum() for char in runs[k + 1])


ViewFields = tuple[
    Sequence[etree._Element],
    list[str],
    list[int],
    list[list[int]],
    list[list[str]],
    list[int],
    list[bool],
]
"""The fields of a :class:`DomView`, in order."""


def build_view(root: etree._Element, *, remove_hidden: bool = True) -> DomView:
    """Flatten the visible subtree of ``root`` (one iterative preorder pass, O(n)).

    Removed before anything is counted (§0.2): comments, processing instructions, ``script``,
    ``style``, ``noscript``, ``template`` and, when ``remove_hidden`` is true, elements hidden by
    their own markup.
    """
    return DomView(*view_fields(root, remove_hidden))


@accel.twin(accel.compiled.build_view)
def view_fields(root: etree._Element, remove_hidden: bool) -> ViewFields:
    """The fields of :func:`build_view`'s view, in pure Python: the reference the compiled pass
    reproduces.

    The pass is one ``root.iter()`` (a single C iterator, one proxy per node) rather than a
    Python stack of child iterators, and it makes no function call per node: each raw tag is
    resolved once per page to its local name, hidden elements are found up front by
    :func:`hidden_elements`, and a node whose parent is not in the view lies in a removed
    subtree. Removed nodes stay referenced until the end, so lxml frees no proxy deep in a
    removed subtree one by one (each free searches the ancestors for a live proxy).
    """
    root_tag = local_tag(root) or ""
    elements = [root]
    tags = [root_tag]
    parent = [-1]
    children: list[list[int]] = [[]]
    runs: list[list[str]] = [[]]
    depth = [0]
    in_link = [root_tag in LINK_TAGS]
    current = ["" if root_tag in UNSHOWN_CONTENT_TAGS else root.text or ""]  # each one's run
    index_of = {root: 0}
    removed: list[etree._Element] = []
    hidden = hidden_elements(root) if remove_hidden else set()
    names: dict[object, str | None] = {}  # raw tag -> local name, None when never visible

    nodes = root.iter()
    next(nodes)  # the root itself
    for step, node in enumerate(nodes, 1):
        if step & CHECK_EVERY == CHECK_EVERY:
            check_deadline("building the view")
        p = index_of.get(node.getparent())  # type: ignore[arg-type]
        if p is None or tags[p] in UNSHOWN_CONTENT_TAGS:  # inside a removed subtree
            removed.append(node)
            continue
        raw = node.tag
        try:
            name = names[raw]
        except KeyError:
            name = names[raw] = _visible_name(raw)
        if name is None or node in hidden:
            current[p] += node.tail or ""
            removed.append(node)
            continue
        index = len(elements)
        index_of[node] = index
        elements.append(node)
        tags.append(name)
        parent.append(p)
        children.append([])
        children[p].append(index)
        depth.append(depth[p] + 1)
        in_link.append(name in LINK_TAGS or in_link[p])
        runs[p].append(current[p])
        current[p] = node.tail or ""
        runs.append([])
        current.append("" if name in UNSHOWN_CONTENT_TAGS else node.text or "")
    for own_runs, last in zip(runs, current, strict=True):
        own_runs.append(last)
    return elements, tags, parent, children, runs, depth, in_link


def _visible_name(tag: object) -> str | None:
    """The local name for a raw lxml ``tag``, or ``None`` when such a node is never visible
    (a comment, PI or entity, whose ``tag`` is not a string, or an invisible element)."""
    if not isinstance(tag, str):
        return None
    if tag[:1] == "{":
        tag = tag.rpartition("}")[2]
    name = tag.lower()
    return None if name in INVISIBLE_TAGS else name


@accel.twin(accel.compiled.attribute_owners)
def attribute_owners(
    root: etree._Element, attributes: Sequence[tuple[str, str | None]]
) -> list[etree._Element]:
    """The elements of ``root``'s subtree, ``root`` first and then in document order, that
    carry any of ``attributes``, pairs of a name (without a namespace, as ``element.get``
    reads it) and the value it must have (``None``: any value).

    Pages carry few of the attributes the extractors look for (``itemtype``, ``hidden``...), so
    one compiled walk over the libxml2 nodes makes proxies for those few elements only. The
    Python reference walks the proxies instead: an XPath query such as ``//*[@itemtype]``
    would cost about a parse of the page, but libxml2 sorts its result by comparing the
    ancestries of the nodes, which takes seconds on a page nested 30,000 deep.
    """
    nodes = list(root.iter())  # every proxy held: lxml frees one by walking up to a live one
    owners = []
    for step, element in enumerate(nodes):
        if step & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding attributes")
        if not isinstance(element.tag, str):
            continue
        get = element.get
        for name, value in attributes:
            present = get(name)
            if present is not None and (value is None or present == value):
                owners.append(element)
                break
    return owners


def hidden_elements(root: etree._Element) -> set[etree._Element]:
    """The elements below ``root`` that :func:`is_hidden` rejects.

    Pages hide few elements, so :func:`build_view` tests set membership instead of reading
    three attributes of every element (which would cost more than the rest of its loop). The
    set holds the proxies alive, so the walk meets these very objects.
    """
    return set(hidden_in_order(root))


@accel.twin(accel.compiled.hidden_elements)
def hidden_in_order(root: etree._Element) -> list[etree._Element]:
    """The elements of :func:`hidden_elements`, in document order."""
    nodes = list(root.iter())  # every proxy held: lxml frees one by walking up to a live one
    hidden: list[etree._Element] = []
    for step, element in enumerate(nodes):
        if step & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding hidden elements")
        if element is not root and isinstance(element.tag, str) and is_hidden(element):
            hidden.append(element)
    return hidden


@accel.twin(accel.compiled.hidden_text_length)
def hidden_text_length(root: etree._Element) -> int:
    """Characters of the text below the elements :func:`hidden_elements` finds, each hidden
    subtree counted once (its text and its descendants' text and tails, as ``itertext``
    reads them)."""
    hidden = hidden_elements(root)
    total = 0
    for step, element in enumerate(_outermost(hidden)):
        if step & CHECK_EVERY == CHECK_EVERY:
            check_deadline("measuring hidden text")
        total += len("".join(map(str, element.itertext())))
    return total


def _outermost(elements: set[etree._Element]) -> list[etree._Element]:
    """The ``elements`` that have none of the others among their ancestors.

    Each ancestor met is remembered with the answer for it, so a walk up stops at the first
    one already seen: linear in the elements and their ancestors together, where asking each
    element's whole ancestry costs the square of the depth on hidden elements nested deep."""
    covered: dict[etree._Element, bool] = {}  # ancestor -> it or one above it is in elements
    outermost = []
    for step, element in enumerate(elements):
        if step & CHECK_EVERY == CHECK_EVERY:
            check_deadline("measuring hidden text")
        path = []
        node = element.getparent()
        inside = False
        while node is not None:
            known = covered.get(node)
            if known is not None:
                inside = known
                break
            if node in elements:
                inside = True
                break
            path.append(node)
            node = node.getparent()
        for ancestor in path:
            covered[ancestor] = inside
        if not inside:
            outermost.append(element)
    return outermost

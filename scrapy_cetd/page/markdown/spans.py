"""The inline elements: code spans, links, emphasis, images and line breaks.

:class:`Spans` opens a frame for each inline element that adds markup and, when it closes,
writes its content into the inline around it: as ``[text](url)``, between emphasis
delimiters where they can open and close (else plain), or in backticks. A link's or an
image's URL is made absolute against the base URL (:func:`destination`).
"""

from __future__ import annotations

import contextlib
from urllib.parse import urljoin

from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import local_tag
from scrapy_cetd.page.markdown.escape import can_wrap, label, longest_run, markup, plain
from scrapy_cetd.page.markdown.frames import Frame, Stack
from scrapy_cetd.page.markdown.inline import BlockLink, Inline
from scrapy_cetd.page.markdown.tags import BLOCK_BOXES, CODE, EMPHASIS, HEADINGS, SKIPPED
from scrapy_cetd.page.words import collapse_spaces
from scrapy_cetd.result import blank

_NOT_LINKS = ("javascript:", "vbscript:", "file:", "data:")
"""Schemes CommonMark parsers refuse as link destinations (markdown-it's ``validateLink``)."""
_URL_UNSAFE = str.maketrans(
    {
        " ": "%20",
        "<": "%3C",
        ">": "%3E",
        "(": "%28",
        ")": "%29",
        "|": "%7C",
        "\\": "%5C",
        "`": "%60",
    }
)
"""Characters of a URL written as ``%XX`` in a link destination (equivalent in a URL): a
backtick there would close a code span the text before the link opens."""


class Spans:
    """The inline elements of one walk, written into the inline of :meth:`.Stack.sink`."""

    def __init__(self, stack: Stack, base_url: str | None) -> None:
        self.stack = stack
        self.base_url = base_url
        self.links = 0
        """The links open: a link inside a link is its text."""
        self.emphasis: dict[str, int] = dict.fromkeys(EMPHASIS.values(), 0)
        """The emphases open, by delimiter: one inside another of the same delimiter adds
        none (``*x*y* w*`` would close the outer one at the inner one's start)."""

    def open(self, element: etree._Element, tag: str) -> Frame | None:
        """The frame of an inline element that adds markup (a code span, a link, emphasis)."""
        stack = self.stack
        if tag in CODE:
            stack.raw_depth += 1
            stack.inline_depth += 1
            return Frame(element, "code", raw=[])
        if tag == "a":
            href = destination(element.get("href"), self.base_url)
            if href is None or self.links:
                return None
            self.links += 1
            stack.inline_depth += 1
            return Frame(element, "a", inline=stack.sink().link(), href=href)
        wrap = EMPHASIS.get(tag)
        if wrap is not None and not self.emphasis[wrap]:
            self.emphasis[wrap] += 1
            stack.inline_depth += 1
            return Frame(element, "emphasis", inline=stack.sink().child(), wrap=wrap)
        return None

    def open_block_link(self, element: etree._Element) -> Frame | None:
        """The frame of a link that holds blocks (a card's ``<a>`` around a heading and a
        paragraph, valid HTML5), opened outside inline Markdown: ``None`` for any other
        element. Its blocks are written as blocks, where one link of the whole would hold its
        headings, lists and code as one line of text, and its URL once, as a link around the
        text of its first heading, else of the first paragraph (or list item) that gets text
        inside it: the heading names what the link leads to, and a URL written in each block
        would make a link of many blocks grow by the URL's length for each. Links inside it
        are text."""
        href = destination(element.get("href"), self.base_url)
        if href is None or self.links:
            return None
        holds, heading = _blocks_in(element)
        if not holds:
            return None
        self.links += 1
        self.stack.block_link = BlockLink(href, heading)
        return Frame(element, "block link")

    def close_block_link(self) -> None:
        """End the link around blocks, in the paragraph that holds its text when that is the
        one being written."""
        self.links -= 1
        link = self.stack.block_link
        if link is not None:
            link.href = None  # an inline offered it and still without text does not take it
        self.stack.block_link = None
        self.stack.container().paragraph.close_link()

    def close(self, frame: Frame) -> None:
        """Write what the frame of :meth:`open` holds into the inline around it."""
        self.stack.inline_depth -= 1
        if frame.kind == "code":
            self.stack.raw_depth -= 1
            self._code_span(frame.raw or [])
            return
        self.links -= frame.kind == "a"
        if frame.kind == "emphasis":
            self.emphasis[frame.wrap] -= 1
        inline = frame.inline or Inline()
        content = inline.content()
        written = plain(content)
        parent = self.stack.sink()
        if inline.lead:
            parent.add_space()
        if not blank(written):
            if frame.kind == "a":
                parent.draft(label("[", content, frame.href or ""))
            elif can_wrap(written, parent.previous()):
                parent.draft(f"{markup(frame.wrap)}{content}{markup(frame.wrap)}")
            else:
                if written[0] == "`" and parent.last() == "`":
                    parent.space = True  # as between two code spans (_code_span)
                parent.draft(content)
        if inline.space:
            parent.space = True

    def _code_span(self, raw: list[str]) -> None:
        text = plain("".join(raw))
        parent = self.stack.sink()
        if text[:1].isspace():
            parent.add_space()
        code = collapse_spaces(text)
        if code:
            if self.stack.table_depth:
                code = code.replace("|", "\\|")
            if parent.last() == "`":
                parent.space = True  # two code spans side by side would read as one fence
            ticks = "`" * (longest_run(code, "`") + 1)
            pad = " " if code[0] == "`" or code[-1] == "`" else ""
            parent.markup(f"{ticks}{pad}{code}{pad}{ticks}")
        if text[-1:].isspace() and code:
            parent.space = True

    def br(self) -> None:
        """A hard line break; a second one in a row ends the paragraph (a space, inline)."""
        if self.stack.inline_depth:
            self.stack.sink().add_space()
            return
        container = self.stack.container()
        if not container.paragraph.hard_break():
            container.flush()

    def image(self, element: etree._Element) -> None:
        """An ``<img>`` (or ``<amp-img>``) as ``![alt](src)``; nothing without a ``src``."""
        if self.stack.raw_depth:
            return
        src = destination(element.get("src"), self.base_url)
        if src is None:
            return
        alt = " ".join(plain(element.get("alt") or "").split())
        self.stack.sink().draft(label("![", alt, src))


def _blocks_in(link: etree._Element) -> tuple[bool, etree._Element | None]:
    """Whether a block (:data:`.tags.BLOCK_BOXES`) lies inside ``link``, and its first
    heading. Each element is read once at most: only a link with a destination is asked, and
    none inside it (a link's text, or inline Markdown) is."""
    holds = False
    walker = etree.iterwalk(link, events=("start",))
    for step, (_, inner) in enumerate(walker):
        if step & CHECK_EVERY == CHECK_EVERY:
            check_deadline("writing the Markdown")
        tag = local_tag(inner)
        if inner is link:
            continue
        if tag in SKIPPED:
            walker.skip_subtree()
        elif tag in HEADINGS:
            return True, inner
        else:
            holds = holds or tag in BLOCK_BOXES
    return holds, None


def destination(value: str | None, base_url: str | None) -> str | None:
    """``value`` as a link destination, absolute against ``base_url``; ``None`` for no
    link (empty, ``javascript:``, ``data:``)."""
    if not value:
        return None
    url = value.strip()
    if not url or url.lower().startswith(_NOT_LINKS):
        return None
    if base_url:
        with contextlib.suppress(ValueError):
            url = urljoin(base_url, url)
    return url.replace("\n", "").replace("\r", "").replace("\t", "").translate(_URL_UNSAFE)

"""The peers: other main-content extractors, one small adapter each.

Every adapter takes the page as a decoded ``str`` (the HTML as Scrapy decodes the response, see
:func:`benchmarks.speed.decoded_text`) and returns the main content as plain text, calling the
library with its documented defaults, as ``../shared/datasets/peers.md`` did. trafilatura also
runs with ``favor_recall=True`` and with ``fast=True`` (no fallback extractors). A peer that
raises is not caught here: :func:`scrapy_cetd.evaluation.scoring.evaluate` counts it as a failure.

A peer whose library is not installed is reported as missing (``pip install -e .[bench]``),
never silently dropped.
"""

# The peers are optional: each is imported only when its adapter is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any, cast

import lxml.html

Adapter = Callable[[str], str]
"""A peer ready to run: decoded HTML in, main-content text out."""

_BLOCKS = (
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 h3 h4"
    " h5 h6 header hr li main nav ol p pre section table tbody thead tfoot tr td th ul"
)
BLOCK_TAGS = frozenset(_BLOCKS.split(" "))
"""Elements that end a line when an HTML fragment is turned into text."""


def fragment_text(html: str) -> str:
    """Plain text of an HTML fragment, one block per line (for peers that return HTML).

    Block elements are separated by line breaks, so that ``<p>a</p><p>b</p>`` gives two tokens
    and not one; inline elements are joined as they are.
    """
    if not html.strip():
        return ""
    root = cast(lxml.html.HtmlElement, lxml.html.fromstring(html))
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.lower() in BLOCK_TAGS:
            element.tail = "\n" + (element.tail or "")
    text: str = root.text_content()
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _trafilatura(**options: Any) -> Callable[[], Adapter]:
    def make() -> Adapter:
        import trafilatura

        def run(html: str) -> str:
            return trafilatura.extract(html, **options) or ""

        return run

    return make


def _readability() -> Adapter:
    from readability import Document

    def run(html: str) -> str:
        return fragment_text(Document(html).summary(html_partial=True))

    return run


def _resiliparse() -> Adapter:
    from resiliparse.extract.html2text import extract_plain_text

    def run(html: str) -> str:
        text: str = extract_plain_text(html, main_content=True)
        return text

    return run


def _justext() -> Adapter:
    import justext

    stoplist = justext.get_stoplist("English")

    def run(html: str) -> str:
        paragraphs = justext.justext(html, stoplist)
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return run


def _boilerpy3() -> Adapter:
    from boilerpy3 import extractors

    # boilerpy3 logs a warning or a traceback for every page its parser has to recover; the
    # pages it cannot recover still raise HTMLExtractionError, which is counted as a failure.
    logging.getLogger("boilerpy3").setLevel(logging.CRITICAL)
    extractor = extractors.ArticleExtractor()

    def run(html: str) -> str:
        text: str = extractor.get_content(html)
        return text

    return run


def _goose3() -> Adapter:
    from goose3 import Goose

    # goose3 warns on every page whose publication date it cannot parse (metadata only).
    logging.getLogger("goose3").setLevel(logging.ERROR)
    goose = Goose()

    def run(html: str) -> str:
        text: str = goose.extract(raw_html=html).cleaned_text
        return text

    return run


@dataclass(frozen=True)
class Peer:
    """One peer system: how to build it, and which module and distribution it needs."""

    name: str
    module: str
    """The module to import; the peer is missing when it cannot be found."""
    distribution: str
    """The package name on PyPI (for the version)."""
    make: Callable[[], Adapter]
    call: str
    """How the library is called, for the report."""

    def available(self) -> bool:
        """Whether the peer's library is installed."""
        return importlib.util.find_spec(self.module) is not None

    def version(self) -> str | None:
        """The installed version of the peer's distribution, ``None`` when missing."""
        try:
            return metadata.version(self.distribution)
        except metadata.PackageNotFoundError:
            return None


PEERS: dict[str, Peer] = {
    peer.name: peer
    for peer in (
        Peer("trafilatura", "trafilatura", "trafilatura", _trafilatura(), "extract(html)"),
        Peer(
            "trafilatura-recall",
            "trafilatura",
            "trafilatura",
            _trafilatura(favor_recall=True),
            "extract(html, favor_recall=True)",
        ),
        Peer(
            "trafilatura-fast",
            "trafilatura",
            "trafilatura",
            _trafilatura(fast=True),
            "extract(html, fast=True)",
        ),
        Peer(
            "readability-lxml",
            "readability",
            "readability-lxml",
            _readability,
            "Document(html).summary(html_partial=True), block elements -> lines",
        ),
        Peer(
            "resiliparse",
            "resiliparse",
            "resiliparse",
            _resiliparse,
            "extract_plain_text(html, main_content=True)",
        ),
        Peer(
            "justext",
            "justext",
            "jusText",
            _justext,
            'justext(html, get_stoplist("English")), non-boilerplate paragraphs',
        ),
        Peer(
            "boilerpy3",
            "boilerpy3",
            "boilerpy3",
            _boilerpy3,
            "ArticleExtractor().get_content(html)",
        ),
        Peer("goose3", "goose3", "goose3", _goose3, "Goose().extract(raw_html=html).cleaned_text"),
    )
}
"""Every peer, by the name used in the results (the names of ``peers.md``)."""

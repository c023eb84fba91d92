"""From what a user hands us (text, bytes or a tree) to the lxml tree Scrapy would have built."""

from __future__ import annotations

from lxml import etree
from scrapy.http import HtmlResponse

Source = str | bytes | etree._Element
"""An HTML document as text, as undecoded bytes, or as an already parsed lxml tree."""

_BLANK_URL = "about:blank"


def to_tree(
    source: Source, *, url: str | None = None, encoding: str | None = None
) -> etree._Element:
    """The parsed document for ``source``, built exactly as a Scrapy crawl builds it.

    Bytes are decoded as Scrapy's ``TextResponse`` decodes them (``encoding`` plays the part of
    the Content-Type header's charset; then the BOM, the ``<meta>`` charset, and detection),
    and parsed by parsel, so ``extract(response.body)`` and the pipeline see the same tree. A
    tree is returned as it is. Raises :class:`ValueError` for input that holds no document.
    """
    if isinstance(source, etree._Element):
        return source
    if isinstance(source, str):
        if not source.strip():
            raise ValueError("not an HTML document: the text is empty or whitespace only")
        response = HtmlResponse(url or _BLANK_URL, body=source, encoding="utf-8")
    elif isinstance(source, bytes | bytearray):
        if not bytes(source).strip():
            raise ValueError("not an HTML document: the body is empty or whitespace only")
        headers = {"Content-Type": f"text/html; charset={encoding}"} if encoding else None
        response = HtmlResponse(url or _BLANK_URL, body=bytes(source), headers=headers)
    else:
        raise TypeError(
            f"source must be str, bytes or an lxml element, not {type(source).__name__}"
        )
    root: etree._Element = response.selector.root
    return root

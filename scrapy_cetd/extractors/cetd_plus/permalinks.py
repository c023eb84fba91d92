"""The permalinks of headings (step 31), left out of the selection: the ``¶``, ``#`` or ``§``
that documentation generators and blogs link each heading with, so that a reader can copy a
link to its section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import HEADING_TAGS, DomView
from scrapy_cetd.page.flags import within
from scrapy_cetd.page.output import Keep

PERMALINK_CHARS = 2
"""The most characters of text a permalink has: one mark (``¶``, ``#``, ``§``, an emoji of
two code points), or none beside an icon."""

_WORD_CHARACTER = re.compile(r"[^\W_]")
"""A letter or a digit, of any script."""


def heading_permalinks(view: DomView, chars: Sequence[int]) -> list[bool]:
    """The elements of ``view`` that are the permalink of the heading they stand in, with their
    descendants: a link inside an ``<h1>``-``<h6>`` to a fragment (its ``href`` holds ``#``)
    whose text is at most :data:`PERMALINK_CHARS` characters without a letter or a digit.
    Sphinx writes ``<a class="headerlink" href="#quickstart">¶</a>``, GitHub an icon, many
    blogs ``#``: in the text the mark sticks to the heading's last word (``Quickstart¶``), in
    the Markdown every heading ends in a link (``# Quickstart[¶](…#quickstart)``). A heading's
    own link (to its article, a section's title, a footnote's number) has letters or digits,
    and stays. Linear in the view; only the text inside headings is read."""
    tags, parent, runs = view.tags, view.parent, view.runs
    size = len(tags)
    in_heading = within(view, [tag in HEADING_TAGS for tag in tags])
    worded = [False] * size
    for i in range(size - 1, 0, -1):
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("reading the headings")
        if in_heading[i] and (worded[i] or any(map(_WORD_CHARACTER.search, runs[i]))):
            worded[i] = worded[parent[i]] = True
    elements = view.elements
    found = [
        i > 0
        and tags[i] == "a"
        and in_heading[parent[i]]
        and not worded[i]
        and chars[i] <= PERMALINK_CHARS
        and "#" in (elements[i].get("href") or "")
        for i in range(size)
    ]
    return within(view, found)


def drop_heading_permalinks(view: DomView, chars: Sequence[int], modes: list[Keep]) -> None:
    """Leave the :func:`heading_permalinks` of ``view`` out of the selection ``modes`` makes.
    After the selection, not before it: a mark of a character or two is no reason for the
    selection to move (removed with the furniture, it moved that of three shared pages)."""
    for i, permalink in enumerate(heading_permalinks(view, chars)):
        if permalink:
            modes[i] = Keep.DROP

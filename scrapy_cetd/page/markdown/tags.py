"""The tags by what the Markdown makes of them (headings, emphasis, code spans, lists, the
parts of a table, the blocks that end a paragraph, the elements never written): shared by the
writer's walk and the walk that finds the layout tables, so that both read a tree the same way."""

from __future__ import annotations

from scrapy_cetd.page.dom import BLOCK_TAGS, CODE_TAGS, UNSHOWN_CONTENT_TAGS

HEADINGS = {f"h{n}": n for n in range(1, 7)}
"""Each heading's tag and its level: the number of ``#`` that open its line."""
EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*", "del": "~~", "s": "~~", "strike": "~~"}
"""Elements written as emphasis, and their delimiter."""
CODE = CODE_TAGS - {"pre"}
"""Elements written as code spans."""
LISTS = frozenset({"ul", "ol", "menu", "dir"})
"""Elements written as lists: ``<menu>`` and the obsolete ``<dir>`` are shown as ``<ul>`` is."""
CELLS = frozenset({"td", "th"})
ROW_GROUPS = frozenset({"thead", "tbody", "tfoot"})
BLOCKS = BLOCK_TAGS
"""Elements that start and end a paragraph (a space, inside inline Markdown): the elements that
break the text's lines (:data:`~scrapy_cetd.page.dom.BLOCK_TAGS`), so that the Markdown and the
text separate the same words."""
BLOCK_BOXES = (BLOCKS | LISTS) - {"br"}
"""Elements shown as blocks of their own: a link around one is a link around blocks, written as
its blocks, and in code each is a line of its own."""
SKIPPED = frozenset(
    {"script", "style", "template", "head", "title", "meta", "link", *UNSHOWN_CONTENT_TAGS}
)
"""Elements whose content is no text of the page: neither walk enters them."""

"""The main content as Markdown (CommonMark with GitHub's tables and strikethrough).

:func:`to_markdown` writes the tree of an extraction's HTML (``ExtractionResult.html`` parsed
again, see :func:`scrapy_cetd.page.finish.content_tree`) as Markdown that a CommonMark parser
reads back as the same text, in the same structure:

- headings as ATX headings (``## ...``), paragraphs separated by a blank line, ``<br>`` as a
  hard line break (``\\`` at the end of the line), ``<hr>`` as ``---``;
- lists as CommonMark lists, each item's content indented under its marker so that nested lists
  stay nested; an ``<ol>`` keeps its ``start``; a list directly inside a list (a common error of
  real pages) is nested in the item before it, or before any item in an item of its own, and
  what follows it directly in the list (a group's title) is written between two lists, not as
  that item's text, as is what follows an item that holds lists alone (or nothing); the items
  inside a link directly inside a list (``<ul><a href><li>``, kept by libxml2) are items of
  that list, the link written once as a link around blocks (below); lists and
  block quotes nested more than eight deep (:data:`.nesting._MAX_NESTING`), or whose
  indentation would pass 24 columns (:data:`.nesting._MAX_INDENT`), are written as the blocks
  they hold;
- ``<pre>`` as a fenced code block, longer than any run of backticks inside it, with the
  language of a ``class="language-…"`` (or ``lang-…``) on the ``<pre>`` or its ``<code>``, else
  on the wrappers around it that hold nothing else (Sphinx's ``highlight-python`` too), and
  none for a name of no language (Prism's ``language-none``, Stack Exchange's ``lang-none``);
  a line of code that is an element of its own (a block, Shiki's ``<span class="line">``)
  starts a line where the code has no newline between two (:func:`.blocks.code_line`);
  ``<code>``, ``<kbd>``, ``<samp>`` and ``<tt>`` as code spans;
- data tables as GitHub tables: the first row is the header row, every row has as many cells as
  the widest (beyond :data:`.grid._GRID_GROWTH` times the table's cells, or
  :data:`.grid._MAX_GRID`, the rows after the header stop at their last cell, which GitHub's
  tables fill in, and the spans are not filled: the Markdown stays as large as the table), a
  cell spanning several columns or rows (``colspan`` / ``rowspan``) leaves empty cells where
  it spans, so the columns stay aligned, and ``|`` is escaped. A table used for layout (a
  cell holding paragraphs, headings, lists, a code block, a quote or another table, or text
  outside its cells, or a single cell) is written as the blocks it holds;
- block quotes with ``>``, links as ``[text](url)`` and images (``<img>``, AMP's
  ``<amp-img>``) as ``![alt](src)``, both made
  absolute against ``base_url`` (the page's URL joined with its ``<base href>``);
  ``javascript:`` links keep their text only; a link around blocks (a card's ``<a>`` around a
  heading and a paragraph) is written as its blocks, its URL once, around its first heading's
  text, else the first text inside it;
- ``<b>``/``<strong>`` as ``**``, ``<i>``/``<em>`` as ``*``, ``<del>``/``<s>`` as ``~~``, where
  the delimiters can open and close (the emphasised text starts and ends with a letter or a
  digit); elsewhere the text is written plain.

Literal characters are escaped with a backslash only where they would change the meaning
(:mod:`.escape`): ``Evidently [the two suspects] did not``, ``snake_case`` and ``Q&A`` are
written as they are, ``[x](y)`` in text is ``[x\\](y)``. The text of a block comes from many
elements, so a block is escaped once it is written, each character knowing its neighbours:
``` ` ``` where a run as long follows in the block (it would open a code span); ``\\``
before punctuation; ``*``, ``_`` and ``~`` where their run could open or close emphasis or
strikethrough with another run of the block (``5 * 3``, ``snake_case`` and ``per seat*``
stay); ``]`` before ``(``; a bracket no other matches in a link's text; ``<`` before an HTML
tag or an autolink; ``&`` before an entity or a character reference; ``|`` in a table's
cells; at the start of a line what would start a block (a heading, a quote, a list item, a
thematic break, a setext underline, a table's delimiter row, a code fence, the ``.`` or ``)``
of a number: ``1986\\. That year``), and at a block's start a link reference definition.

The text is the one :func:`~scrapy_cetd.page.output.element_text` reads from the same tree:
whitespace is collapsed, nothing is added but the Markdown syntax and image descriptions.

The walk is one pass of :func:`lxml.etree.iterwalk` (no recursion: trees nest 10,000 deep),
plus one for pages with tables, linear in the tree: every element's text is appended once, and
a frame of the walk holds what its element produced until it closes.

The modules, in layers import-linter checks: :mod:`.writer` (the walk, :func:`to_markdown`)
> :mod:`.nesting` (block quotes and lists), :mod:`.spans` (code spans, links, emphasis,
images, line breaks), :mod:`.tables` (data tables) > :mod:`.frames` (the open elements of
the walk and where content goes) > :mod:`.lists` (a list's items under their markers),
:mod:`.grid` (a table's rows as a GitHub table), :mod:`.layout` (which tables are used for
layout) > :mod:`.blocks` (the containers of blocks, code fences) > :mod:`.inline` (a line of
inline Markdown) > :mod:`.escape` (the escaping of literal characters), :mod:`.tags` (the
tags by what they become).
"""

from scrapy_cetd.page.markdown.writer import to_markdown

__all__ = ["to_markdown"]

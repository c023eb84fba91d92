"""The tables of the walk (scrapy_cetd.page.markdown.tables): spans read in ASCII digits,
and a blank caption."""

from __future__ import annotations

import pytest
from markdownkit import (
    body_markdown,
)


@pytest.mark.parametrize(
    "fragment",
    [
        "<table><tr><td colspan='\u00b2'>a</td><td>b</td></tr><tr><td>c</td><td>d</td></table>",
        "<table><tr><td rowspan='\u00b3'>a</td><td>b</td></tr><tr><td>c</td><td>d</td></table>",
        "<ol start='\u00b2'><li>one</li><li>two</li></ol>",
    ],
)
def test_spans_and_starts_in_digits_other_than_ascii_count_as_none(fragment: str) -> None:
    """``"²".isdigit()`` is true and ``int("²")`` raises: browsers read ASCII digits only."""
    markdown = body_markdown(f"<body>{fragment}</body>")
    assert "| a | b |" in markdown or "1. one" in markdown


def test_headings_and_captions_of_zero_width_characters_alone_are_blank() -> None:
    markdown = body_markdown(
        "<body><h2>\u200b</h2><p>Text.</p><table><caption>\u200d</caption><tr><th>a</th>"
        "<th>b</th></tr><tr><td>c</td><td>d</td></tr></table></body>"
    )
    assert markdown.splitlines() == ["Text.", "", "| a | b |", "| --- | --- |", "| c | d |"]

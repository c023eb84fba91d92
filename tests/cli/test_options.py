"""The options more than one command takes: -O values converted to the declared types."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_cetd.cli import main

COMMENT_PAGE = (
    "<html><body><nav><a href='/'>Home</a> <a href='/world'>World</a></nav><div id='main'>"
    "<article><h1>Storm hits the coast</h1>"
    + "".join(
        f"<p>Paragraph {i}: heavy rain and strong winds battered the coastal towns on Monday, "
        "forcing hundreds of residents to leave their homes before the river burst.</p>"
        for i in range(3)
    )
    + "</article><div id='comments'>"
    + "".join(
        f"<div class='comment'>Reader {i} wrote a long comment about the storm and the "
        "response of the council, which they found slow and badly organised this time.</div>"
        for i in range(2)
    )
    + "</div></div></body></html>"
)


@pytest.mark.parametrize(
    ("value", "comments"),
    [
        ("False", False),
        ("false", False),
        ("no", False),
        ("0", False),
        ("True", True),
        ("true", True),
        ("yes", True),
        ("1", True),
    ],
)
def test_a_bool_option_reads_false_as_false(
    value: str, comments: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "comments.html"
    path.write_text(COMMENT_PAGE)
    assert main(["extract", str(path), "-O", f"include_comments={value}"]) == 0
    out = capsys.readouterr().out
    assert "Paragraph 2" in out
    assert ("Reader 1 wrote" in out) is comments

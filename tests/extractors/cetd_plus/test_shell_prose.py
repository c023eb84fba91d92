"""Step 7, the shells' prose: text written straight into a block that holds selected blocks."""

from __future__ import annotations

from cetdpluskit import FURNITURE, lines


def test_prose_written_straight_into_a_block_is_kept_with_it() -> None:
    nav, footer = FURNITURE
    briefs = "".join(
        f"<li>Brief {i} of the day, told in one long sentence about it.</li>" for i in range(5)
    )
    story = (
        "<div id='story'><b>(Wire)</b> Officials said on Saturday that the roads would close "
        "for three days.<br><br>The ban covers private cars in every province, they said."
        f"<br><br><b>In other news:</b><ul>{briefs}</ul></div>"
    )
    page = f"<html><body>{nav}{story}{footer}</body></html>"
    assert lines(page)[:4] == [
        "(Wire) Officials said on Saturday that the roads would close for three days.",
        "The ban covers private cars in every province, they said.",
        "In other news:",
        "Brief 0 of the day, told in one long sentence about it.",
    ]
    assert (
        lines(page, shell_prose_chars=None)[0]
        == "Brief 0 of the day, told in one long sentence about it."
    )
    assert lines(page, shell_prose_chars=1000)[0] == lines(page, shell_prose_chars=None)[0]

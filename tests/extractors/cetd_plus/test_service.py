"""A service page's profile: every section, without the menus of short links."""

from __future__ import annotations

from cetdpluskit import SERVICE, text_as


def test_service_keeps_every_section() -> None:
    with_profile = text_as(SERVICE, "service")
    for section in ("garden plan", "Planting plans", "90 euros", "Do you work in winter"):
        assert section in with_profile
    assert "90 euros" not in text_as(SERVICE, "service", whole_page_types=False)


def test_service_drops_menus_of_short_links() -> None:
    menu = (
        '<div class="links"><a href="/">Home</a> <a href="/about">About us</a> '
        '<a href="/c">Contact</a></div>'
    )
    offers = "".join(
        f'<li><a href="/o/{n}">Garden design with planting plans for season {n}</a></li>'
        for n in range(4)
    )
    page = SERVICE.replace("</h1>", f"</h1>{menu}<ul>{offers}</ul>")
    with_profile = text_as(page, "service")
    assert "About us" not in with_profile
    assert "planting plans for season 3" in with_profile
    assert "garden plan" in with_profile
    assert "About us" in text_as(page, "service", menu_link_chars=None)


def test_a_menu_holds_less_than_half_of_the_page() -> None:
    """A list of short links that holds most of the page's text is the page (a list of links
    typed a service page), not a menu to drop: the profile would empty the page."""
    entries = "".join(f'<li><a href="/p/{n}">Entry number {n}</a></li>' for n in range(30))
    page = f"<html><body><h1>Index</h1><ul>{entries}</ul><p>Updated daily.</p></body></html>"
    text = text_as(page, "service")
    assert "Entry number 29" in text

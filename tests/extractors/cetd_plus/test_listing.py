"""A list's profile (listing and collection pages): every record, without controls or badges."""

from __future__ import annotations

import pytest
from cetdpluskit import LISTING, text_as


def test_listing_keeps_every_record_with_heading_and_intro() -> None:
    with_profile = text_as(LISTING, "listing")
    for record in (
        "Pottery for beginners",
        "Bookbinding by hand",
        "Furniture restoration, Mondays",
    ):
        assert record in with_profile
    assert "Courses this autumn" in with_profile
    assert "course catalogue" in with_profile
    assert "Pottery for beginners" not in text_as(LISTING, "listing", whole_page_types=False)
    assert text_as(LISTING, "collection") == with_profile


@pytest.mark.parametrize("page_type", ["listing", "collection"])
def test_form_labels_inside_the_records_go_and_buttons_stay(page_type: str) -> None:
    cards = "".join(
        f'<li class="card"><a href="/p/{n}">Stoneware mug number {n}, wheel thrown</a>'
        f'<label>{choice}</label><button type="button">Add to basket</button></li>'
        for n, choice in enumerate(("Compare", "Keep", "Share", "Pin"))
    )
    page = LISTING.replace('<ul class="courses">', f'<ul class="cards">{cards}</ul><ul>')
    with_profile = text_as(page, page_type)
    assert "Stoneware mug number 3" in with_profile
    assert "Compare" not in with_profile
    assert "Add to basket" in with_profile
    assert "Compare" in text_as(page, page_type, remove_controls=False)


@pytest.mark.parametrize("page_type", ["listing", "collection"])
def test_badges_most_records_carry_go(page_type: str) -> None:
    cards = "".join(
        f'<li class="card"><a href="/p/{n}">Stoneware mug number {n}, wheel thrown</a>'
        f'<span class="flag">Handmade</span><span class="price">$1{n}.00</span>'
        f"<span>{'Glossy' if n % 2 else size}</span></li>"
        for n, size in enumerate(("Small", "Large", "Tall", "Wide", "Flat", "Deep"))
    )
    page = LISTING.replace('<ul class="courses">', f'<ul class="cards">{cards}</ul><ul>')
    with_profile = text_as(page, page_type)
    assert "Handmade" not in with_profile
    assert "$15.00" in with_profile
    assert with_profile.count("Glossy") == 3
    assert "Stoneware mug number 5" in with_profile
    assert text_as(page, page_type, remove_badges=False).count("Handmade") == 6


def test_a_control_around_most_of_the_text_stays() -> None:
    page = LISTING.replace("<main>", "<main><label>").replace("</main>", "</label></main>")
    assert "course catalogue" in text_as(page, "listing")

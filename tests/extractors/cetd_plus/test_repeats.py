"""The repeated blocks: a text shown twice is given once, a short label stays."""

from __future__ import annotations

from cetdpluskit import PRODUCT, text_as


def test_product_gives_a_repeated_description_once() -> None:
    with_profile = text_as(PRODUCT, "product")
    assert with_profile.count("wheel thrown") == 1
    assert "$60.00" in with_profile
    assert text_as(PRODUCT, "product", unique_blocks=False).count("wheel thrown") == 2


def test_short_repeats_stay() -> None:
    page = PRODUCT.replace("</main>", "<p>In stock</p><p>In stock</p></main>")
    assert text_as(page, "product").count("In stock") == 2

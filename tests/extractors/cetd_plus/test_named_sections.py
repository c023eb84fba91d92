"""The sections named by their attributes: one around most of the page is no section."""

from __future__ import annotations

from cetdpluskit import PRODUCT, text_as


def test_a_review_section_holding_most_of_the_page_stays() -> None:
    page = PRODUCT.replace("<main>", '<main class="reviewed-product">')
    page = page.replace("<body>", '<body><div class="page-review">').replace(
        "</body>", "</div></body>"
    )
    assert "wheel thrown" in text_as(page, "product")

"""The regions that bound the content: the main landmark and the page's heading."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from cetdpluskit import DOCUMENTATION, LISTING, PRODUCT, SERVICE, prose, text_as
from ratios import TENFOLD, growth

from scrapy_cetd.extractors.cetd_plus.regions import main_landmark
from scrapy_cetd.page.density import count_nodes
from scrapy_cetd.page.dom import build_view
from scrapy_cetd.page.parse import to_tree


def test_documentation_keeps_the_main_column_only() -> None:
    with_profile = text_as(DOCUMENTATION, "documentation")
    assert "retries = 5" in with_profile
    assert "backoff" in with_profile
    assert "Configuration" in with_profile
    assert "edit this page" not in with_profile
    assert "Next: Deploy" not in with_profile
    assert "Install" not in with_profile
    assert "backoff" not in text_as(DOCUMENTATION, "documentation", whole_page_types=False)
    assert "edit this page" in text_as(DOCUMENTATION, "documentation", main_landmark_share=None)


def test_product_selection_is_bounded_by_the_main_landmark() -> None:
    page = PRODUCT.replace(
        "</main>", f'</main><div class="recommended"><p>{prose("matching saucer", 4)}</p></div>'
    )
    assert "matching saucer" not in text_as(page, "product")
    assert "wheel thrown" in text_as(page, "product")
    assert "matching saucer" in text_as(page, "product", main_landmark_share=None)


def test_main_landmark_needs_its_share_of_the_text() -> None:
    page = (
        f"<html><body><div role='main'><p>{prose('main part')}</p></div>"
        f"<p>{prose('rest')}</p></body></html>"
    )
    body = to_tree(page).find("body")
    assert body is not None
    view = build_view(body)
    chars = count_nodes(view).chars
    found = main_landmark(view, chars, 0.3)
    assert found is not None
    assert view.elements[found].get("role") == "main"
    assert main_landmark(view, chars, 0.7) is None


def test_many_main_roles_are_found_in_one_pass() -> None:
    """Each ``role="main"`` element was looked up in the view by a scan of the view (90,000
    of them after 90,000 paragraphs: 5.4 s on a collection, 8.3 s on a product)."""

    def make(size: int) -> Callable[[], object]:
        paragraphs = "".join(f"<p>{prose('a paragraph', 1)}</p>" for _ in range(size))
        roles = "<i role='main'>x</i>" * size
        root = to_tree(f"<html><body><div>{paragraphs}</div>{roles}</body></html>")
        body = root.find("body")
        assert body is not None
        view = build_view(body)
        chars = count_nodes(view).chars
        return lambda: main_landmark(view, chars, 0.5)

    assert growth(make, 2_000, 20_000) < TENFOLD


@pytest.mark.parametrize(
    ("page", "page_type", "kept"),
    [
        (LISTING, "listing", "Furniture restoration"),
        (LISTING, "collection", "Furniture restoration"),
        (SERVICE, "service", "Do you work in winter"),
        (DOCUMENTATION, "documentation", "retries = 5"),
    ],
)
def test_the_content_starts_at_the_heading(page: str, page_type: str, kept: str) -> None:
    header = f'<div class="top"><p>{prose("store opening hours", 1)}</p></div>'
    start = "<main>" if "<main>" in page else "<body>"
    page = page.replace(start, f"{start}{header}")
    with_profile = text_as(page, page_type)
    assert "store opening hours" not in with_profile
    assert kept in with_profile
    assert "store opening hours" in text_as(page, page_type, before_heading_share=None)


def test_what_holds_most_of_the_text_before_the_heading_stays() -> None:
    page = LISTING.replace("<main>", f"<main><p>{prose('long preface', 12)}</p>")
    assert "long preface" in text_as(page, "listing")

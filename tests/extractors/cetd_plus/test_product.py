"""A product page's profile: its closed tabs, its reviews and its declared description."""

from __future__ import annotations

import json

import pytest
from cetdpluskit import PRODUCT, prose, text_as

from scrapy_cetd import extract
from scrapy_cetd.extractors.cetd_plus.product import MAX_DESCRIPTION_ELEMENTS
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES


def test_product_keeps_the_text_of_closed_tabs() -> None:
    assert "Dishwasher safe" in text_as(PRODUCT, "product")
    assert "Dishwasher safe" not in text_as(PRODUCT, "product", hidden_panels=False)


REVIEWS = f"""<div id="productReviews"><h2>What buyers say</h2>
<div class="review-item"><p>{prose("chipped handle", 2)}</p></div>
<div class="review-item"><p>{prose("lovely colour", 2)}</p></div></div>"""


@pytest.mark.parametrize(
    "reviews",
    [
        REVIEWS,
        f'<div itemprop="review" itemscope><p>{prose("chipped handle", 2)}</p></div>',
        f'<div itemscope itemtype="https://schema.org/Review"><p>{prose("chipped handle", 2)}'
        "</p></div>",
    ],
)
def test_product_reviews_are_furniture(reviews: str) -> None:
    page = PRODUCT.replace("</main>", f"{reviews}</main>")
    assert "chipped handle" not in text_as(page, "product")
    assert "wheel thrown" in text_as(page, "product")
    assert "chipped handle" in text_as(page, "product", review_sections=False)
    assert "chipped handle" in text_as(page, "product", include_comments=True)


def test_a_class_merely_containing_the_letters_is_no_review() -> None:
    page = PRODUCT.replace('class="description desktop"', 'class="description preview"')
    assert "wheel thrown" in text_as(page, "product")


DECLARED = """<script type="application/ld+json">{"@context": "https://schema.org",
"@graph": [{"@type": "Product", "name": "White speckle mug",
"description": "Thrown by hand in our studio.\\nEach mug is glazed twice &amp; fired."}]}
</script>"""


def test_product_description_declared_in_json_ld_joins_when_not_shown() -> None:
    page = (
        f"<html><head>{DECLARED}</head><body><main><h1>White speckle mug</h1>"
        f'<p class="price">$60.00</p><p>{prose("shipping policy", 3)}</p></main>'
        '<aside class="drawer"><p>Thrown by hand in our studio.</p></aside></body></html>'
    )
    result = extract(page, page_type="product")
    assert result.text.endswith("Thrown by hand in our studio.\nEach mug is glazed twice & fired.")
    assert "<p>Each mug is glazed twice &amp; fired.</p>" in result.html
    assert result.html.endswith("</body>")
    assert "Thrown by hand" not in text_as(page, "product", declared_description=False)
    assert "Thrown by hand" not in text_as(page, None)


def test_a_declared_description_is_the_content_when_nothing_else_is() -> None:
    page = (
        f"<html><head>{DECLARED}</head><body>"
        '<nav><a href="/">Home</a> <a href="/mugs">All our mugs, cups and saucers</a></nav>'
        '<div class="reviews"><p>Lovely mug, five stars.</p></div></body></html>'
    )
    result = extract(page, page_type="product")
    assert result.text == "Thrown by hand in our studio.\nEach mug is glazed twice & fired."
    assert result.reason is None
    assert result.html.startswith("<div><p>Thrown by hand")
    assert not extract(page, page_type="product", declared_description=False).text


def test_a_lone_surrogate_in_a_declared_description_cuts_nothing_after_it() -> None:
    """Half an emoji written as a JSON escape (``\\ud83d``) is a replacement character, as
    in the page's own text: the rest of the description is still there."""
    declared = DECLARED.replace("studio.", "studio \\ud83d.")
    page = (
        f"<html><head>{declared}</head><body>"
        '<div class="reviews"><p>Lovely mug, five stars.</p></div></body></html>'
    )
    assert extract(page, page_type="product").text.endswith(
        "Thrown by hand in our studio \ufffd.\nEach mug is glazed twice & fired."
    )


def test_a_shown_description_is_not_added_again() -> None:
    page = PRODUCT.replace(
        "<html>",
        '<html><head><script type="application/ld+json">{"@type": "Product", "description":'
        ' "A wheel thrown mug. Handmade stoneware, about 350 ml."}</script></head>',
    )
    assert text_as(page, "product").count("Handmade stoneware") == 1


def test_a_description_in_html_is_read_as_html() -> None:
    declared = (
        r"\u003cp>Stoneware.\u003c/p>\u003cul>\u003cli>350 ml\u003c/li>"
        r"\u003cli>Dishwasher safe\u003c/li>\u003c/ul>\u003cscript>x()\u003c/script>"
    )
    page = (
        '<html><head><script type="application/ld+json">'
        f'{{"@type": ["Product"], "description": "{declared}"}}</script></head>'
        f"<body><main><p>{prose('shipping policy', 3)}</p></main></body></html>"
    )
    text = text_as(page, "product")
    assert text.endswith("Stoneware.\n350 ml\nDishwasher safe")


@pytest.mark.parametrize(
    "script",
    ['{"@type": "Product", "description": ', '{"@type": "Offer", "description": "Cheap mugs"}'],
)
def test_no_declared_product_description_adds_nothing(script: str) -> None:
    page = PRODUCT.replace(
        "<html>", f'<html><head><script type="application/ld+json">{script}</script></head>'
    )
    assert text_as(page, "product") == text_as(page, "product", declared_description=False)


def kettle(description: str, *, escaped: bool = False) -> str:
    """A kettle's page whose JSON-LD declares ``description`` (its ``<`` written ``\\u003c``
    when ``escaped``), with a paragraph of its own ("a kettle")."""
    declared = json.dumps({"@type": "Product", "name": "Kettle", "description": description})
    if escaped:
        declared = declared.replace("<", "\\u003c")
    return (
        f"<html><head><script type='application/ld+json'>{declared}</script></head>"
        f"<body><main><h1>Kettle</h1><p>{prose('a kettle', 2)}</p></main></body></html>"
    )


@pytest.mark.parametrize(
    "description",
    [
        "<html></html>",
        "<html><head><title>t</title></head></html>",
        "<html><frameset></frameset></html>",
        "<html><body>a</body><body>b</body></html>",
    ],
)
def test_a_description_written_as_a_document_without_one_body_adds_nothing(
    description: str,
) -> None:
    """lxml asserts that HTML written as a whole document has one ``<body>``: a product's
    declared description ``<html></html>`` raised AssertionError out of ``extract()``."""
    page = kettle(description)
    assert "a kettle" in extract(page, page_type="product").text


@pytest.mark.parametrize(("attributes", "added"), [(10, True), (DEFAULT_MAX_ATTRIBUTES + 1, False)])
def test_a_declared_description_with_a_tag_of_too_many_attributes_is_not_parsed(
    attributes: int, added: bool
) -> None:
    """libxml2 reads the attributes of one tag in a time quadratic in their number, in a call
    no budget stops. The page's text is checked for such a tag before it is parsed
    (``max_attributes``), but a description in a JSON string, its ``<`` written ``\\u003c``,
    is none of the page's markup: one tag of 100,000 attributes there took 29 s of a 2 s
    budget. A description holding a tag of more attributes than the page may have is not
    parsed, and adds nothing."""
    tag = "<p " + " ".join(f"a{k}=1" for k in range(attributes)) + ">Glazed twice.</p>"
    page = kettle(tag, escaped=True)
    text = extract(page, page_type="product").text
    assert "a kettle" in text
    assert ("Glazed twice." in text) is added


@pytest.mark.parametrize(("elements", "added"), [(50, True), (MAX_DESCRIPTION_ELEMENTS + 1, False)])
def test_a_declared_description_of_too_many_elements_is_not_parsed(
    elements: int, added: bool
) -> None:
    """The page's ``max_nodes`` does not count the elements of a description in a JSON string:
    166,000 ``<br>`` in one took 141 MB once parsed. A description of more than
    :data:`MAX_DESCRIPTION_ELEMENTS` elements adds nothing."""
    description = "Glazed twice." + "<br>" * (elements - 1) + "<b>Fired at 1,280 C.</b>"
    page = kettle(description)
    text = extract(page, page_type="product").text
    assert "a kettle" in text
    assert ("Fired at 1,280 C." in text) is added

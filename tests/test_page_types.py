"""The page-type classifier: its model file, its features on hand-made pages, its answers,
the cetd-plus option that forces the type, and the determinism of training."""

from __future__ import annotations

import math
import os
import pickle
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree, html
from parsel import Selector
from ratios import TENFOLD, growth
from scrapy.http import HtmlResponse

from scrapy_cetd import PAGE_TYPES, classify_page_type, extract, get_extractor
from scrapy_cetd.page import dom, page_types
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.page_types import (
    FEATURES,
    MODEL_PATH,
    BoostedTrees,
    PageType,
    PageTypeModel,
    Tree,
    default_model,
    page_features,
)

HEAD = (
    "<head><meta charset='utf-8'><title>{title}</title>"
    "<link rel='stylesheet' href='/static/site.css'></head>"
)

MENU = "<header><nav><ul>{}</ul></nav></header>".format(
    "".join(f"<li><a href='/section-{k}'>Section {k}</a></li>" for k in range(6))
)
FOOTER = "<footer><p>Contact us · Privacy · Terms</p></footer>"


def page(title: str, body: str) -> str:
    return f"<html>{HEAD.format(title=title)}<body>{MENU}{body}{FOOTER}</body></html>"


FORUM = page(
    "Boiler keeps losing pressure",
    "<main class='topic' itemscope itemtype='https://schema.org/DiscussionForumPosting'>"
    "<h1 class='topic-title' itemprop='headline'>Boiler keeps losing pressure after the "
    "annual service</h1><div class='topic-posts'>"
    + "".join(
        f"<div class='topic-post'><div class='post-author'><img class='avatar' "
        f"src='/avatar/{k}.png' alt=''><a class='username' href='/u/user{k}'>user{k}</a>"
        f"</div><time class='post-date' datetime='2025-03-0{k + 1}T10:00'>March {k + 1}</time>"
        f"<div class='post-body'><p>{sentence} I checked the valve twice and the gauge still "
        "drops by half a bar overnight, so I am wondering whether the expansion vessel "
        "needs recharging before I call the engineer again.</p></div>"
        f"<a class='reply-button' href='/reply?to={k}'>Reply</a></div>"
        for k, sentence in enumerate(
            [
                "Since the service the pressure falls every night.",
                "Same here last winter.",
                "Check the pressure relief valve for drips.",
                "It was the vessel in my case.",
                "Thanks, recharging it fixed the problem.",
            ]
        )
    )
    + "</div><form class='reply-form' action='/reply'><textarea name='body'></textarea>"
    "<button>Post reply</button></form></main>",
)

PRODUCT = page(
    "Trail runner 3 shoe",
    '<script type=\'application/ld+json\'>{"@type": "Product", "name": "Trail runner 3",'
    ' "offers": {"@type": "Offer", "price": "129.00"}}</script>'
    "<main class='product'><div class='product-gallery'><img src='/a.jpg' alt=''>"
    "<img src='/b.jpg' alt=''><img src='/c.jpg' alt=''></div><div class='product-info'>"
    "<h1 class='product-title'>Trail runner 3</h1><p class='product-price'>$129.00</p>"
    "<form class='product-form' action='/cart/add' method='post'>"
    "<select class='variant-select' name='size'><option>42</option><option>43</option>"
    "</select><input class='quantity' type='number' name='quantity' value='1'>"
    "<button class='add-to-cart' type='submit'>Add to cart</button></form></div>"
    "<div class='product-description'><h2>Description</h2><p>A light shoe for rocky "
    "trails with a grippy sole and a breathable upper.</p><h2>Specifications</h2><table>"
    "<tr><th>Weight</th><td>280 g</td></tr><tr><th>Drop</th><td>6 mm</td></tr></table>"
    "</div></main>",
)

DOCS = page(
    "Configuration reference",
    "<div class='layout'><aside class='sidebar'><ul class='toc'>"
    + "".join(
        f"<li><a href='/docs/{k}/'>Chapter {k}</a><ul>"
        + "".join(f"<li><a href='/docs/{k}/{j}/'>Topic {k}.{j}</a></li>" for j in range(4))
        + "</ul></li>"
        for k in range(5)
    )
    + "</ul></aside><main class='content'><h1>Configuration reference</h1><p>Settings are "
    "read from the "
    "file <code>app.toml</code> at start-up.</p>"
    + "".join(
        f"<h2>Option <code>option_{k}</code></h2><p>Sets the value of option {k}; the "
        f"default is <code>{k}</code>.</p><pre class='highlight'><code>[server]\n"
        f"option_{k} = {k}\n</code></pre>"
        for k in range(6)
    )
    + "</main></div>",
)

LISTING = page(
    "Latest stories",
    "<main><h1>Latest stories</h1><ul class='stories'>"
    + "".join(
        f"<li class='card'><img class='card-image' src='/thumb/{k}.jpg' alt=''><h3 "
        f"class='card-title'><a href='/stories/{k}'>Story number {k} about the town council"
        f"</a></h3><time class='date' datetime='2025-01-{k + 10}'>January {k + 10}</time>"
        f"<p class='excerpt'>A short teaser of story {k}.</p></li>"
        for k in range(12)
    )
    + "</ul><nav class='pagination'><a href='?page=2' rel='next'>Next page</a></nav></main>",
)

HAND_MADE = {
    "forum": (FORUM, "https://community.example.org/t/boiler-losing-pressure/48213"),
    "product": (PRODUCT, "https://shop.example.com/products/trail-runner-3"),
    "documentation": (DOCS, "https://example.dev/docs/reference/configuration/"),
    "listing": (LISTING, "https://news.example.net/stories/"),
}


def features_of(source: str, url: str | None = None) -> dict[str, float]:
    return page_features(html.fromstring(source), url)


def test_the_model_file_is_small_and_names_its_features() -> None:
    assert MODEL_PATH.stat().st_size < 1_000_000
    model = default_model()
    assert model.classes == PAGE_TYPES
    assert set(FEATURES) <= set(model.features)
    assert len(model.weights) == len(PAGE_TYPES)
    assert all(len(row) == len(model.features) for row in model.weights)
    assert all(scale > 0 for scale in model.scale)
    assert model.trees is not None and 0 < model.tree_share < 1
    assert len(model.trees.trees) == len(PAGE_TYPES)
    used = {name for row in model.trees.trees for tree in row for name in tree.feature if name}
    assert used <= set(model.features)  # the trees read the regression's features
    assert PageTypeModel.from_json(model.to_json()) == model


def test_a_model_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="not a page-type model"):
        PageTypeModel.from_json({"classes": ["article"]})
    data = default_model().to_json()
    data["classes"] = ["article", "recipe"]
    with pytest.raises(ValueError, match="recipe"):
        PageTypeModel.from_json(data)
    data = default_model().to_json()
    data["trees"][0][0][0][2] = 10_000  # a child that is not a node of the tree
    with pytest.raises(ValueError, match="not one of its nodes after 0"):
        PageTypeModel.from_json(data)
    data = default_model().to_json()
    data["trees"] = data["trees"][:3]
    with pytest.raises(ValueError, match="3 classes"):
        PageTypeModel.from_json(data)


def test_the_trees_are_averaged_with_the_regression() -> None:
    """A model of two classes, whose regression says nothing (equal scores) and whose one
    tree per class sends a page by its ``code_share``: the probabilities are the trees'
    softmax, weighted by ``tree_share``, and an even split for the rest."""
    split = Tree(("code_share", None, None), (0.5, 0.0, 0.0), (1, 0, 0), (2, 0, 0), (0, -1, 1))
    leaf = Tree((None,), (0.0,), (0,), (0,), (0.0,))
    model = PageTypeModel(
        classes=("article", "documentation"),
        features=("code_share",),
        mean=(0.0,),
        scale=(1.0,),
        weights=((0.0,), (0.0,)),
        bias=(0.0, 0.0),
        trees=BoostedTrees((0.0, 0.0), ((leaf,), (split,))),
        tree_share=0.5,
    )
    low = 1 / (1 + math.e)  # softmax of (0, -1)
    prose = model.probabilities({"code_share": 0.1})
    assert prose["documentation"] == pytest.approx(0.5 * 0.5 + 0.5 * low)
    code = model.probabilities({"code_share": 0.9})
    assert code["documentation"] == pytest.approx(0.5 * 0.5 + 0.5 * (1 - low))
    assert model.probabilities({})["documentation"] == prose["documentation"]  # missing is 0
    assert PageTypeModel.from_json(model.to_json()) == model


def test_forum_features() -> None:
    features = features_of(FORUM)
    assert features["records"] == pytest.approx(math.log1p(5))
    assert features["records_with_time"] == 1.0
    assert features["records_with_media"] == 1.0
    assert features["times"] == pytest.approx(math.log1p(5))
    assert features["textareas"] > 0
    assert features["prices"] == 0


def test_product_features() -> None:
    features = features_of(PRODUCT, HAND_MADE["product"][1])
    assert features["prices"] == pytest.approx(math.log1p(1))
    assert features["number_inputs"] == pytest.approx(math.log1p(1))
    assert features["selects"] > 0
    assert features["forms"] > 0
    assert features["type:product"] == features["type:offer"] == 1.0
    assert features["folder:products"] == features["host:shop"] == 1.0
    assert features["slug:trail"] == features["slug:<num>"] == 1.0


def test_documentation_features() -> None:
    features = features_of(DOCS, HAND_MADE["documentation"][1])
    assert features["pre"] == pytest.approx(math.log1p(6))
    assert features["code_share"] > 0.2
    assert features["nested_lists"] == pytest.approx(math.log1p(5))
    assert features["link_list_share"] > 0.1
    assert features["folder:docs"] == features["folder:reference"] == 1.0
    assert features["last:configuration"] == 1.0


def test_records_with_a_price() -> None:
    cards = "".join(
        f"<li class='product-card'><a href='/p/{k}'>Shoe model {k}</a><span>€{k}9.90</span></li>"
        for k in range(6)
    )
    shop = page("Running shoes", f"<main><ul class='grid'>{cards}</ul></main>")
    features = features_of(shop)
    assert features["records"] == pytest.approx(math.log1p(6))
    assert features["records_with_price"] == 1.0
    assert features_of(LISTING)["records_with_price"] == 0.0


def test_listing_features() -> None:
    features = features_of(LISTING)
    assert features["records"] == pytest.approx(math.log1p(12))
    for part in ("link", "media", "time", "heading", "paragraph"):
        assert features[f"records_with_{part}"] == 1.0
    assert features["rel:next"] == 1.0
    assert features["record_share"] > 0.7


def test_link_features() -> None:
    """Cards that link their picture and their headline to the same page: long linked
    headings, linked pictures, shared targets; an article's only links are its menu's."""
    cards = "".join(
        f"<div class='card'><a href='/stories/{k}'><img src='/i/{k}.jpg' alt=''></a>"
        f"<h3><a href='/stories/{k}'>A headline long enough to name story number {k}</a></h3>"
        "<p>Its summary.</p></div>"
        for k in range(4)
    )
    features = features_of(page("Stories", f"<main><h2>Latest</h2>{cards}</main>"))
    assert features["linked_headings"] == pytest.approx(math.log1p(4))
    assert features["linked_heading_share"] == pytest.approx(4 / 5)  # the h2 is not a link
    assert features["linked_media_share"] == 1.0
    assert features["shared_targets"] == pytest.approx(math.log1p(4))
    assert features["shared_target_share"] == pytest.approx(8 / 14)  # and the menu's six
    assert features["long_link_share"] > 0.5
    assert features["h2"] == pytest.approx(math.log1p(1))
    assert features["h3"] == pytest.approx(math.log1p(4))
    story = "<h2>The second part</h2><p>A paragraph of the story, in full sentences.</p>"
    article = features_of(page("Story", f"<main><article><h1>Story</h1>{story}</article></main>"))
    assert article["linked_headings"] == article["shared_targets"] == 0.0
    assert article["long_link_share"] == 0.0


def test_an_article_has_no_records_of_paragraphs() -> None:
    body = "".join(
        f"<p>Paragraph {k} of a long story, told in full sentences.</p>" for k in range(9)
    )
    features = features_of(page("Story", f"<main><article><h1>Story</h1>{body}</article></main>"))
    assert features["paragraph_block_share"] > 0.7
    assert features["records_with_paragraph"] == 0.0  # the menu's items hold none


@pytest.mark.parametrize("expected", sorted(HAND_MADE))
def test_the_classifier_tells_the_hand_made_pages(expected: str) -> None:
    source, url = HAND_MADE[expected]
    kind = classify_page_type(source, url=url)
    assert kind.name == expected
    assert 0 < kind.confidence <= 1


def test_classify_accepts_bytes_and_trees_and_leaves_the_tree_alone() -> None:
    source, url = HAND_MADE["forum"]
    tree = html.fromstring(source)
    before = etree.tostring(tree)
    from_tree = classify_page_type(tree, url=url)
    assert etree.tostring(tree) == before
    assert classify_page_type(source.encode(), url=url) == from_tree
    with pytest.raises(ValueError):
        classify_page_type(b"")


def test_classify_takes_what_extract_takes_within_the_same_limits() -> None:
    """A tree, a selector, a response, a memoryview: the same type; a comment, an oversized
    page or a page of too many elements: a ValueError naming the problem (a comment raised
    AttributeError, and no limit was checked)."""
    source, url = HAND_MADE["forum"]
    expected = classify_page_type(source, url=url)
    tree = html.fromstring(source)
    response = HtmlResponse(url, body=source.encode(), encoding="utf-8")
    for page in (etree.ElementTree(tree), Selector(text=source), memoryview(source.encode())):
        assert classify_page_type(page, url=url) == expected
    assert classify_page_type(response) == expected  # its own URL
    with pytest.raises(ValueError, match="_Comment"):
        classify_page_type(etree.Comment("x"))
    with pytest.raises(ValueError, match="max_body_size"):
        classify_page_type(source, max_body_size=100)
    with pytest.raises(ValueError, match=r"max_nodes exceeded: [0-9]+ elements, more than 5"):
        classify_page_type(tree, max_nodes=5)
    with pytest.raises(ValueError, match="time_budget exceeded"):
        classify_page_type(source, time_budget=1e-9)
    with pytest.raises(ValueError, match="max_nodes"):
        classify_page_type(source, max_nodes=-1)


def test_cetd_plus_gives_the_type_by_default_and_other_algorithms_none() -> None:
    source, url = HAND_MADE["product"]
    result = extract(source, url=url)  # on by default
    assert result.page_type == "product"
    assert result.page_type_confidence == classify_page_type(source, url=url).confidence
    assert pickle.loads(pickle.dumps(result)) == result
    assert extract(source, url=url, detect_page_type=True) == result
    off = extract(source, url=url, detect_page_type=False)
    assert (off.page_type, off.page_type_confidence) == (None, None)
    assert off.text == result.text
    other = extract(source, url=url, algorithm="cetd-ds")
    assert other.page_type is None
    assert other.page_type_confidence is None


def test_cetd_plus_classifies_from_its_own_view_without_building_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[object] = []
    build_view = dom.build_view

    def counting(root: etree._Element, *, remove_hidden: bool = True) -> DomView:
        built.append(root)
        return build_view(root, remove_hidden=remove_hidden)

    monkeypatch.setattr(page_types, "build_view", counting)
    source, url = HAND_MADE["forum"]
    assert extract(source, url=url, detect_page_type=True).page_type == "forum"
    assert built == []  # the view, counts and markup of cetd-plus were used
    assert classify_page_type(source, url=url).name == "forum"
    assert len(built) == 1  # on its own, the classifier reads the page itself


def test_a_frameset_page_gets_a_type_from_its_markup_and_url() -> None:
    source = (
        "<html><head><title>Docs</title></head><frameset cols='20%,80%'>"
        "<frame src='toc.html'><frame src='intro.html'></frameset></html>"
    )
    result = extract(source, url="https://example.dev/docs/manual/", detect_page_type=True)
    assert result.text == ""
    assert result.page_type in PAGE_TYPES
    assert result.page_type_confidence is not None
    assert extract(source, page_type="documentation").page_type == "documentation"


def test_the_type_can_be_forced() -> None:
    source, url = HAND_MADE["product"]
    forced = extract(source, url=url, page_type="collection")
    assert (forced.page_type, forced.page_type_confidence) == ("collection", 1.0)
    reported_only = extract(source, url=url, page_type="collection", type_profiles=False)
    assert reported_only.text == extract(source, url=url).text
    extractor = get_extractor("cetd-plus", page_type="forum")
    assert pickle.loads(pickle.dumps(extractor)).page_type == "forum"


def test_a_wrong_forced_type_is_refused() -> None:
    with pytest.raises(ValueError, match=r"page_type must be one of article, forum.* not 'blog'"):
        get_extractor("cetd-plus", page_type="blog")


def test_features_of_a_page_without_body_or_url() -> None:
    features = page_features(html.fromstring("<html><head><title>x</title></head></html>"))
    assert set(FEATURES) <= set(features)
    kind = default_model().predict(features)
    assert isinstance(kind, PageType)
    assert kind.name in PAGE_TYPES


def test_deep_nesting_is_read_iteratively() -> None:
    depth = 2000
    source = "<html><body>" + "<div>" * depth + "deep text" + "</div>" * depth + "</body></html>"
    assert classify_page_type(source).name in PAGE_TYPES


def _records_page(count: int) -> str:
    cards = "".join(
        f"<li class='card'><a href='/p/{k}'>Item {k}</a> <span>${k}.99</span></li>"
        for k in range(count)
    )
    return f"<html><body><ul>{cards}</ul></body></html>"


def test_the_features_grow_linearly() -> None:
    def make(count: int) -> Callable[[], object]:
        tree = html.fromstring(_records_page(count))
        return lambda: page_features(tree)

    assert growth(make, 2_000, 20_000) < TENFOLD  # from 2,000 records: out of the caches


def test_training_is_deterministic() -> None:
    pytest.importorskip("sklearn")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.page_types import Sample, train

    rng = random.Random(7)
    samples = []
    for k in range(70):
        kind = PAGE_TYPES[k % len(PAGE_TYPES)]
        features = {name: rng.random() for name in FEATURES}
        features["code_share"] += PAGE_TYPES.index(kind)
        features[f"folder:{kind}"] = 1.0
        samples.append(Sample(features, kind, f"site{k % 10}.example", "synthetic"))
    first, second = train(samples), train(list(samples))
    assert first == second
    assert first.features[: len(FEATURES)] == FEATURES
    assert "folder:article" in first.features  # a token of ten sites joins the vocabulary
    assert [first.predict(s.features).name for s in samples[:7]] == list(PAGE_TYPES)


def test_the_confidence_is_the_same_in_every_process() -> None:
    """The tokens' weights are summed exactly, so the order of a set (which changes with
    Python's hash seed from one process to the next) does not change the last digits."""
    program = (
        "import sys; sys.path.insert(0, 'tests'); from test_page_types import HAND_MADE;"
        "from scrapy_cetd import classify_page_type;"
        "print([repr(classify_page_type(s, url=u).confidence) for s, u in HAND_MADE.values()])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", program],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(1, 7)
    }
    assert len(outputs) == 1

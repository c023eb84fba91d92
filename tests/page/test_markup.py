"""What a page says about itself: declared types, article bodies, reader texts, headline."""

from __future__ import annotations

import json

from conftest import STORM_PAGE, parse

from scrapy_cetd.page.markup import page_markup, page_title


def test_page_markup_reads_json_ld_microdata_and_open_graph() -> None:
    tree = parse(
        "<html><head><script type='application/ld+json'>"
        '{"@context": "https://schema.org", "@graph": [{"@type": ["NewsArticle", "Thing"]},'
        ' {"@type": "Person"}]}</script>'
        "<meta property='og:type' content='article'></head>"
        "<body><div itemscope itemtype='https://schema.org/Comment'>x</div>"
        "<div itemprop='articleBody'>y</div></body></html>"
    )
    markup = page_markup(tree)
    assert markup.types == {"newsarticle", "thing", "person", "article", "comment"}
    assert not markup.discussion and not markup.not_an_article
    assert [element.text for element in markup.article_bodies] == ["y"]


def test_a_broken_json_ld_type_list_declares_nothing() -> None:
    tree = parse(
        "<html><head><script type='application/ld+json'>"
        '{"@type": [NewsArticle", "Thing"], "license": {"@type": "CreativeWork"}}'
        "</script></head><body><p>text</p></body></html>"
    )
    assert page_markup(tree).types == {"creativework"}


def test_json_ld_nested_deeper_than_python_reads_declares_nothing() -> None:
    deep_list = "[" * 5_000 + '"Article"]'
    deep_review = '{"@type": "Review", "reviewBody": ' + "[" * 5_000 + "]" * 5_000 + "}"
    for script in (f'{{"@type": {deep_list}}}', deep_review):
        tree = parse(f"<html><head><script type='application/ld+json'>{script}</script></head>")
        assert not page_markup(tree).user_texts


def test_declared_types_tell_discussions_and_pages_that_are_no_article() -> None:
    forum = page_markup(parse("<body><div itemscope itemtype='https://schema.org/QAPage'>q</div>"))
    assert forum.discussion and forum.not_an_article
    product = page_markup(parse("<head><meta property='og:type' content='product'></head><p>x"))
    assert product.types == {"product"} and product.not_an_article and not product.discussion
    assert not page_markup(parse("<body><p>nothing declared</p></body>")).not_an_article


def test_reader_texts_come_from_json_ld_reviews_comments_and_answers() -> None:
    data = {
        "@type": "Product",
        "review": [{"@type": "Review", "reviewBody": "Warm and dry."}],
        "comment": {"@type": "Comment", "text": "Nice."},
        "offers": {"@type": "Offer", "description": "Not a reader's text."},
    }
    tree = parse(
        f"<head><script type='application/ld+json'>{json.dumps(data)}</script>"
        "<script type='application/ld+json'>{not json</script></head><body>x</body>"
    )
    assert sorted(page_markup(tree).user_texts) == ["Nice.", "Warm and dry."]


def test_og_type_counts_only_in_the_head() -> None:
    tree = parse("<body><meta property='og:type' content='product'><p>x</p></body>")
    assert page_markup(tree).types == frozenset()


def test_page_title_falls_back_to_metadata() -> None:
    assert page_title(parse(STORM_PAGE)) == "Storm hits the coast"
    og = parse(
        "<html><head><meta property='og:title' content=' The  headline '><title>t</title>"
        "</head><body><p>x</p></body></html>"
    )
    assert page_title(og) == "The headline"
    assert page_title(parse("<html><head><title>Only </title></head><body>x</body></html>")) == (
        "Only"
    )
    assert page_title(parse("<body><p>no title</p></body>")) is None

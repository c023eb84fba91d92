"""JSON-LD: ``@graph`` and every field it gives, character references, URLs, and scripts that
are broken, hostile or full of control characters."""

from __future__ import annotations

import json

from metadatakit import json_ld, page

from scrapy_cetd.page.metadata import page_metadata
from scrapy_cetd.result import Metadata


def test_json_ld_graph_gives_every_field() -> None:
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "name": "The Daily Example"},
            {
                "@type": "NewsArticle",
                "headline": "Council approves the budget",
                "author": [{"@type": "Person", "name": "Jane Doe"}, {"name": "John Roe"}],
                "datePublished": "2024-03-12T08:30:00+01:00",
                "dateModified": "2024-03-13T10:00:00Z",
                "description": "The vote, and what it means.",
                "image": {"@type": "ImageObject", "url": "/img/council.jpg"},
                "keywords": "budget, council",
                "articleSection": "Local",
            },
        ],
    }
    found = page_metadata(
        page(json_ld(graph) + "<title>Something else | The Daily Example</title>"),
        url="https://example.com/news/council",
    )
    assert found == Metadata(
        title="Council approves the budget",
        authors=("Jane Doe", "John Roe"),
        published="2024-03-12T08:30:00+01:00",
        modified="2024-03-13T10:00:00Z",
        site_name="The Daily Example",
        description="The vote, and what it means.",
        image="https://example.com/img/council.jpg",
        tags=("budget", "council"),
        categories=("Local",),
    )


def test_an_author_named_by_its_id_in_the_graph_is_read_from_the_graph() -> None:
    # Yoast SEO's graph: the article names its author by "@id", the person's name is its own
    # object of the graph
    person = "https://blog.example/#/schema/person/af6aff82"
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "Article", "headline": "Só quem se Ama", "author": {"@id": person}},
            {"@type": "Person", "@id": person, "name": "webnata"},
        ],
    }
    assert page_metadata(page(json_ld(graph))).authors == ("webnata",)
    # an "@id" the graph does not hold names nobody: the next source is read
    graph["@graph"] = graph["@graph"][:1]
    meta = "<meta name='author' content='Ana Souza'>"
    assert page_metadata(page(json_ld(graph) + meta)).authors == ("Ana Souza",)


def test_a_forum_thread_s_posting_describes_the_page() -> None:
    # a forum's software describes the thread by its first post; htmldate alone reads the
    # date of the thread's last reply
    posting = {
        "@context": "https://schema.org",
        "@type": "DiscussionForumPosting",
        "headline": "If the forum comes to an end soon",
        "author": {"@type": "Person", "name": "ColdJ"},
        "datePublished": "2024-06-14T16:22:54+03:00",
    }
    body = "<h1>If the forum comes to an end soon</h1><p>Reply, <time>June 29, 2024</time></p>"
    found = page_metadata(page(json_ld(posting), body), page_type="forum")
    assert (found.authors, found.published) == (("ColdJ",), "2024-06-14T16:22:54+03:00")


def test_json_ld_in_a_cdata_section_gives_its_fields() -> None:
    # an XHTML habit some templates keep: the script's JSON inside //<![CDATA[ ... //]]>
    article = {"@type": "NewsArticle", "author": {"@type": "Person", "name": "Ana Diaz"}}
    script = json_ld({**article, "datePublished": "2024-03-12"})
    wrapped = script.replace(">{", ">//<![CDATA[\n{", 1).replace("}</", "}\n//]]></", 1)
    found = page_metadata(page(wrapped, "<h1>Council approves the budget</h1>"))
    assert (found.authors, found.published) == (("Ana Diaz",), "2024-03-12")


def test_json_ld_with_a_control_character_in_a_string_gives_its_fields() -> None:
    script = (
        "<script type='application/ld+json'>"
        '{"@type": "NewsArticle", "author": {"@type": "Person", "name": "Ana Diaz"},'
        ' "description": "One line.\nAnother.", "datePublished": "2024-03-12"}</script>'
    )
    found = page_metadata(page(script, "<h1>Council approves the budget</h1>"))
    assert (found.authors, found.published) == (("Ana Diaz",), "2024-03-12")


def test_character_references_in_json_ld_are_decoded() -> None:
    # many CMSs write the HTML-escaped title and names into their JSON-LD
    tree = page(
        json_ld(
            {
                "@type": "BlogPosting",
                "headline": "Planning Tools &#8211; Caterer Sheet &bull; Happily",
                "author": {"@type": "Person", "name": "Ana &amp; Jos&eacute;"},
                "keywords": ["Q&amp;A"],
            }
        )
        + "<title>Planning Tools \u2013 Caterer Sheet • Happily</title>",
        "<h1>Planning Tools \u2013 Caterer Sheet</h1>",
    )
    found = page_metadata(tree)
    assert found.title == "Planning Tools \u2013 Caterer Sheet"
    assert found.authors == ("Ana", "José")
    assert found.tags == ("Q&A",)


def test_a_url_in_json_ld_keeps_its_parameters() -> None:
    # "&region" and "&sect" would be the legacy references to "®" and "§" without their ";"
    image = "https://cdn.example.com/a.jpg?w=800&region=us&section=news"
    tree = page(json_ld({"@type": "NewsArticle", "headline": "A", "image": image}), "<h1>A</h1>")
    assert page_metadata(tree, url="https://example.com/a").image == image


def test_broken_and_hostile_json_ld_gives_nothing_and_raises_nothing() -> None:
    scripts = (
        "<script type='application/ld+json'>{not json</script>"
        "<script type='application/ld+json'>" + "[" * 100_000 + "</script>"
        "<script type='application/ld+json'>"
        + json.dumps({"author": {"name": [1, None]}})
        + "</script>"
        "<script type='application/ld+json'>"
        + json.dumps({"@type": "Article", "headline": 5, "datePublished": "2024-13-45"})
        + "</script>"
    )
    found = page_metadata(page(scripts))
    assert found.title is None and found.authors == () and found.published is None


def test_json_escapes_of_control_characters_and_surrogates_are_dropped() -> None:
    script = '{"@type": "Article", "headline": "A\\u0000 b\\ud800", "keywords": ["x\\u0007"]}'
    found = page_metadata(page(f"<script type='application/ld+json'>{script}</script>"))
    assert (found.title, found.tags) == ("A b", ("x",))

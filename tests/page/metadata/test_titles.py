"""The headline: the site's name (or an author's) stripped, the ``<h1>`` against ``<title>``
(and the ``<h2>`` it names) and the structured titles, a logo's ``<h1>`` linking home, and
the bound on a title's length."""

from __future__ import annotations

import pytest
from metadatakit import json_ld, page

from scrapy_cetd.page.metadata import page_metadata, values


@pytest.mark.parametrize("home", ["https://tones.example", "https://tones.example/", "/"])
def test_an_h1_that_links_home_is_the_site_s_logo_not_the_headline(home: str) -> None:
    head = "<title>Building a UI pipeline - Part 1 | Playful Tones</title>"
    body = (
        f"<header><h1 class='x'><a href='{home}'>Playful Tones</a></h1></header>"
        "<article><h2>Building a UI pipeline</h2><p>Text.</p></article>"
    )
    found = page_metadata(page(head, body), url="https://tones.example/blog/ui")
    assert found.title == "Building a UI pipeline - Part 1"
    section = "<h1><a href='/blog/'>Playful Tones</a></h1><p>Text.</p>"  # a link, not home
    assert page_metadata(page(head, section)).title == "Playful Tones"
    # the link wrapped around the heading, as a Korean news site sets its name in its header
    wrapped = f"<div id='header'><a href='{home}'><h1>Playful Tones</h1></a></div>"
    wrapped += body[body.index("<article>") :]
    found = page_metadata(page(head, wrapped), url="https://tones.example/blog/ui")
    assert found.title == "Building a UI pipeline - Part 1"
    around = "<a href='/blog/'><h1>Playful Tones</h1></a><p>Text.</p>"
    assert page_metadata(page(head, around)).title == "Playful Tones"


def test_title_site_name_suffix_and_prefix_are_stripped() -> None:
    site = "<meta property='og:site_name' content='Example Times'>"
    assert page_metadata(page(site + "<title>Big News | Example Times</title>")).title == (
        "Big News"
    )
    assert page_metadata(page(site + "<title>Example Times - Big News</title>")).title == (
        "Big News"
    )
    by_host = page("<title>Big News \u2013 Example Times</title>")
    assert page_metadata(by_host, url="https://www.exampletimes.com/a").title == "Big News"
    hyphenated = page("<title>Big News | The Example Times</title>")
    assert page_metadata(hyphenated, url="https://example-times.com/a").title == "Big News"
    # a separator inside the headline stays when no part names the site
    kept = page("<title>Cats - a history</title>")
    assert page_metadata(kept, url="https://pets.example/a").title == "Cats - a history"


def test_an_author_s_name_joined_to_the_title_is_stripped() -> None:
    author = "<meta name='author' content='Jane Doe'>"
    blog = page(author + "<title>Testing front-end code | Code | Jane Doe</title>")
    assert page_metadata(blog).title == "Testing front-end code | Code"
    assert page_metadata(page(author + "<title>Jane Doe - On testing</title>")).title == (
        "On testing"
    )
    # a name inside the headline is no part joined to it
    about = page(author + "<title>Ten questions for Jane Doe</title>")
    assert page_metadata(about).title == "Ten questions for Jane Doe"


def test_a_first_heading_that_title_joins_to_a_later_one_is_the_site_s_name() -> None:
    logo = "<h1>From Zero to Proof</h1><h1>Introduction</h1>"
    tree = page("<title>Introduction \u2014 From Zero to Proof</title>", logo)
    assert page_metadata(tree).title == "Introduction"
    # the headline joined to the site's name stays ahead of a later heading that quotes it
    comments = "<h1>Will it rain?</h1><p>Text.</p><h1>One response to Will it rain?</h1>"
    tree = page("<title>Will it rain? | Weather Notes</title>", comments)
    assert page_metadata(tree).title == "Will it rain?"


def test_a_heading_s_pilcrow_link_is_no_part_of_the_headline() -> None:
    heading = "<h1>Quickstart<a class='headerlink' href='#quickstart'>\u00b6</a></h1>"
    tree = page("<title>Quickstart | Example Docs</title>", heading)
    assert page_metadata(tree).title == "Quickstart"
    # nor of the <h2> that <title> names under a section's <h1>
    subheading = "<h1>User guide</h1><h2>Install<a class='headerlink' href='#i'>\u00b6</a></h2>"
    tree = page("<title>Install | Example Docs</title>", subheading)
    assert page_metadata(tree).title == "Install"


def test_the_heading_wins_over_a_title_that_adds_sections_to_it() -> None:
    tree = page("<title>Using promises - JavaScript | MDN</title>", "<h1>Using promises</h1>")
    assert page_metadata(tree).title == "Using promises"


def test_a_structured_title_that_neither_title_nor_heading_holds_is_not_the_headline() -> None:
    # Wikipedia's JSON-LD headline is the article's short description
    tree = page(
        json_ld({"@type": "Article", "headline": "Wikimedia list article"})
        + "<title>List of films featuring time loops - Wikipedia</title>"
        + "<meta property='og:title' content='A teaser that names nothing of it'>",
        "<h1>List of films featuring time loops</h1>",
    )
    assert page_metadata(tree).title == "List of films featuring time loops"
    # a structured headline the visible titles agree with stays
    kept = page(
        json_ld({"@type": "Article", "headline": "Time loops in film, a list"})
        + "<title>List of films featuring time loops - Wikipedia</title>",
        "<h1>List of films featuring time loops</h1>",
    )
    assert page_metadata(kept).title == "Time loops in film, a list"


def test_a_first_heading_the_title_does_not_name_gives_way_to_one_it_does() -> None:
    tree = page(
        "<title>Academy of Art Earns 19 Honors</title>",
        "<h1>abdz—do</h1><h1>Academy of Art Earns 19 Honors</h1>",
    )
    assert page_metadata(tree).title == "Academy of Art Earns 19 Honors"
    # no later heading the title names: the first stays
    single = page("<title>Reddit - The heart of the internet</title>", "<h1>Best laptops</h1>")
    assert page_metadata(single).title == "Best laptops"


def test_a_section_s_h1_gives_way_to_the_h2_that_title_names() -> None:
    body = "<h1>Allergy Center</h1><h2>Tools</h2><h2>Peanuts Early May Avoid Allergy</h2>"
    tree = page("<title>Peanuts Early May Avoid Allergy</title>", body)
    assert page_metadata(tree).title == "Peanuts Early May Avoid Allergy"
    joined = page("<title>Peanuts Early May Avoid Allergy | Health Site</title>", body)
    assert page_metadata(joined).title == "Peanuts Early May Avoid Allergy"
    # an <h2> the title names only in part is not the headline
    part = page("<title>Peanuts Early May Avoid Allergy, a study</title>", body)
    assert page_metadata(part).title == "Allergy Center"
    # a numbered chapter's <h1> that holds the <h2>'s text stays
    chapter = page(
        "<title>Git - Branches in a Nutshell</title>",
        "<h1>3.1 Git Branching - Branches in a Nutshell</h1><h2>Branches in a Nutshell</h2>",
    )
    assert page_metadata(chapter).title == "3.1 Git Branching - Branches in a Nutshell"


def test_an_h2_that_names_the_site_is_not_the_headline() -> None:
    # a home page's <title> joins its name to the site's, and an <h2> repeats the site's name
    body = "<h1>Support Small, Buy Local</h1><h2>Shop Local</h2><h2>Ohio Crafts Collective</h2>"
    declared = "<meta property='og:site_name' content='Ohio Crafts Collective'>"
    home = page("<title>Home - Ohio Crafts Collective</title>" + declared, body)
    assert page_metadata(home).title == "Support Small, Buy Local"
    # the site's name read from the host, the name of the page after it
    hosted = page("<title>Ohio Crafts Collective | Handmade gifts</title>", body)
    found = page_metadata(hosted, url="https://ohiocraftscollective.example/")
    assert found.title == "Support Small, Buy Local"


def test_a_title_longer_than_any_title_is_read_to_its_bound() -> None:
    # a text this long is no title; read whole, each comparison with a heading cost its length
    words = " ".join(f"word{n}" for n in range(50_000))
    found = page_metadata(page(f"<title>{words}</title>", "<p>Text.</p>"))
    assert found.title is not None
    assert words.startswith(found.title)
    assert len(found.title) <= values.MAX_TEXT
    padded = page(f"<title>{' ' * 1500}\n Storm hits the coast</title>", "<p>Text.</p>")
    assert page_metadata(padded).title == "Storm hits the coast"  # its bound is on the text

"""Step 2's content forms: a form around the page or its best block is no furniture."""

from __future__ import annotations

from cetdpluskit import ARTICLE, NEWS_PAGE, PARAGRAPHS, lines
from conftest import body_of, parse

from scrapy_cetd.extractors.furniture import boilerplate
from scrapy_cetd.page.density import count_nodes
from scrapy_cetd.page.dom import build_view


def test_a_form_wrapping_the_page_is_not_furniture() -> None:
    page = f"<html><body><form action='/'>{ARTICLE}<input name='q'></form></body></html>"
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    small = NEWS_PAGE.replace(
        "<footer>", "<form><label>Sign up for the newsletter and more</label></form><footer>"
    )
    view = build_view(body_of(parse(small)))
    drop = boilerplate(view, count_nodes(view).chars, structural=True, comments=False)
    forms = [i for i, tag in enumerate(view.tags) if tag == "form"]
    assert forms
    assert all(drop[i] for i in forms)


def test_a_form_holding_the_main_content_is_not_furniture() -> None:
    results = "".join(
        f"<p><input type='checkbox' name='pick' value='{i}'>{text}</p>"
        for i, text in enumerate(PARAGRAPHS)
    )
    links = "".join(
        f"<li><a href='/{i}'>Another story number {i} to read</a></li>" for i in range(30)
    )
    page = (
        f"<html><body><form id='search'><input name='q'><label>Search the site</label></form>"
        f"<form id='picked'><h1>Storm hits the coast</h1>{results}"
        "<input type='submit' value='Save'></form>"
        f"<ul>{links}</ul></body></html>"
    )
    view = build_view(body_of(parse(page)))
    chars = count_nodes(view).chars
    picked = view.tags.index("form", view.tags.index("form") + 1)
    assert chars[picked] < chars[0] / 2
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    assert "Search the site" not in "\n".join(lines(page))
    assert "Storm hits" not in "\n".join(lines(page, content_forms=False))

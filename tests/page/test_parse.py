"""Reading a page as Scrapy reads it: :mod:`scrapy_cetd.page.parse`."""

from __future__ import annotations

import codecs
import random
from typing import Any

import charset_normalizer
import pytest
from conftest import STORM_PAGE
from lxml import etree
from ratios import thread_seconds
from scrapy.http import HtmlResponse, Request, TextResponse

from scrapy_cetd import extract
from scrapy_cetd.guard import markup_problem
from scrapy_cetd.limits import Limits
from scrapy_cetd.page import accel, parse
from scrapy_cetd.page.parse import (
    NotADocumentError,
    detect_encoding,
    html_response,
    markup_reason,
    markup_scan,
    page_tree,
    readable_response,
    response_tree,
    undecodable_note,
    utf8_page,
)

UNUSUAL_PAGES = {
    "plain": STORM_PAGE,
    "bom": "\ufeff" + STORM_PAGE,
    "two boms": "\ufeff\ufeff" + STORM_PAGE,
    "white space at the ends": "\n \u00a0\u2003" + STORM_PAGE + "\r\n\u3000 ",
    "ascii white space at the ends": "\n\t \x0b" + STORM_PAGE.replace("coast", "côte") + "\r\n",
    "white space at one end": STORM_PAGE + "\n",
    "white space and a nul": "\n" + STORM_PAGE.replace("Heavy", "Hea\x00vy") + " ",
    "nul": STORM_PAGE.replace("Heavy", "Hea\x00vy"),
    "lone surrogate": STORM_PAGE.replace("Heavy", "Heavy \ud800 rain"),
    "control characters": STORM_PAGE.replace("Heavy", "Heavy\x01\x0b rain"),
    "not ascii": STORM_PAGE.replace("Heavy", "Schwerer Sturm über Ærø, 暴風雨 😀"),
    "base href": STORM_PAGE.replace("</title>", "</title><base href='/news/'>"),
    "base href scrapy cannot resolve": STORM_PAGE.replace(
        "</title>", "</title><base href='https://www.example: https://ogp.me/ns# article: x'>"
    ),
    "a fragment": "<p>one paragraph</p>",
    "markup only": "<html><body></body></html>",
}


@pytest.mark.parametrize("url", [None, "https://example.com/a/b.html"])
@pytest.mark.parametrize("name", sorted(UNUSUAL_PAGES))
def test_page_tree_is_the_tree_of_scrapy_s_response(name: str, url: str | None) -> None:
    """A ``str`` page read without a response gives the response's body and text, and the
    tree its selector builds: the same nodes, base URL and element classes."""
    source = UNUSUAL_PAGES[name]
    response = html_response(source, url=url)
    body, text = utf8_page(source)
    assert (body, text) == (response.body, response.text)
    ours, scrapy = page_tree(body, text, url), response_tree(response)
    assert etree.tostring(ours, encoding="unicode") == etree.tostring(scrapy, encoding="unicode")
    assert ours.getroottree().docinfo.URL == scrapy.getroottree().docinfo.URL
    assert [type(node) for node in ours.iter()] == [type(node) for node in scrapy.iter()]


@pytest.mark.parametrize("source", ["", "  \n", "\x00\x00", '{"a": [1, 2]}'])
def test_page_tree_refuses_what_is_no_document(source: str) -> None:
    with pytest.raises(NotADocumentError):
        response_tree(html_response(source))
    with pytest.raises(NotADocumentError):
        page_tree(*utf8_page(source))


PIECES = [
    *("<", ">", '"', "'", "=", " ", "\t", "/", "a", "<a", "<b ", "</p ", "<A", "?", "\n", "\x0b"),
    *("<script>", "</script>", "<style>", "</STYLE", "<title>", "<plaintext", "<!--", "-->"),
    *("<!", '="', "= '", 'x=">"', "y='>'", 'c="<b>"', "<a/b", "\u00a0", "\u3000", "é", "😀"),
]
"""Pieces of markup that change how the guard's tokenizer reads what follows them, and white
space and characters of every width."""


def test_the_compiled_markup_scan_gives_the_guard_s_reason() -> None:
    """On random short pages with limits of a few attributes (a tag over the limit in every
    context), the compiled pass refuses exactly the pages the guard refuses, with its reason."""
    pick = random.Random(25)
    refused = 0
    for _ in range(20_000):
        page = "".join(pick.choices(PIECES, k=pick.randint(1, 40)))
        limit = pick.randint(1, 3)
        expected = markup_problem(page, max_attributes=limit) or ""
        assert accel.compiled.markup_scan(page, limit) in (expected, None), page
        assert markup_scan(page, limit) == expected, page
        refused += bool(expected)
    assert refused > 1_000


@pytest.mark.parametrize(
    "shape",
    [
        "<a" * 25_000 + " " * 50_000 + ">",
        "<a" * 50_000,
        '<p title="' + "<b c " * 20_000 + '">x</p>',
        "<div " + " ".join(f"<a{n}" for n in range(20_000)) + ">",
    ],
    ids=["names_then_spaces", "nested", "tags_in_a_value", "names_with_lt"],
)
def test_markup_reason_is_linear_where_tags_begin_inside_tags(shape: str) -> None:
    """Tags read from every ``<`` overlap when tags begin inside tags: the compiled pass then
    hands the page to the guard's scan before it has read much more than the page."""
    small, large = shape[: len(shape) // 10], shape
    assert markup_reason(large, 1_000) == Limits().markup_reason(large)
    ratio = thread_seconds(lambda: markup_reason(large, 1_000)) / max(
        thread_seconds(lambda: markup_reason(small, 1_000)), 1e-4
    )
    assert ratio < 25, f"10x the text took {ratio:.0f}x the time"


def test_bytes_the_encoding_does_not_read_leave_a_note() -> None:
    """A page written in windows-1252 but sent as UTF-8 reads with U+FFFD where its accented
    letters were, as a browser shows it; the note says how many, and names the encoding."""
    page = STORM_PAGE.replace("Heavy", "Grand-mère préchauffe à 180 °C. Heavy")
    response = html_response(page.encode("cp1252"), encoding="utf-8")
    assert undecodable_note(response) == (
        "undecodable-bytes: 4 byte sequence(s) of the body are not utf-8 and read as U+FFFD"
    )
    assert extract(page.encode("cp1252"), encoding="utf-8").notes == (undecodable_note(response),)
    assert undecodable_note(html_response(page.encode("cp1252"), encoding="cp1252")) is None
    held = page.replace("Heavy", "a replacement character \ufffd, Heavy")
    assert undecodable_note(html_response(held.encode(), encoding="utf-8")) is None
    assert extract(held).notes == ()


def test_an_encoding_nothing_declares_is_noted_as_guessed() -> None:
    """Without a BOM, an HTTP charset or a ``<meta>`` charset, bytes that are not UTF-8 are
    decoded by a guess: the note says so and names the guess; declared or UTF-8 bodies have
    no such note, and the text is what Scrapy decodes either way."""
    page = STORM_PAGE.replace("Heavy", "Tickets cost £29, the café said. Heavy")
    guessed = extract(page.encode("cp1252"))
    response = html_response(page.encode("cp1252"))
    assert guessed.notes == (
        f"charset-guessed: no charset is declared and the body is not UTF-8: read as "
        f"{response.encoding}, guessed from its bytes",
    )
    assert guessed.text == extract(response).text
    assert extract(response).notes == guessed.notes  # a crawl's response: the same note
    assert extract(page.encode("utf-8")).notes == ()
    assert extract(page.encode("cp1252"), encoding="cp1252").notes == ()
    declared = page.replace("<head>", '<head><meta charset="windows-1252">')
    assert extract(declared.encode("cp1252")).notes == ()
    assert extract(page).notes == ()  # a str is decoded already


def test_bytes_that_spell_a_replacement_character_across_two_characters_are_not_it() -> None:
    """In UTF-16 the bytes of U+FFFD (``FD FF``) also appear across the boundary of two other
    characters (U+FD41 then U+00FF); they are not a replacement character the body holds, so
    the lone surrogate beside them is still counted as undecodable."""
    page = STORM_PAGE.replace("Heavy", "\ufd41\u00ff Heavy")
    body = codecs.BOM_UTF16_LE + page.encode("utf-16-le").replace(
        "Heavy".encode("utf-16-le"), b"\x00\xd8" + "Heavy".encode("utf-16-le")
    )
    response = html_response(body)
    assert response.encoding == "utf-16-le"
    assert response.text.count("\ufffd") == 1
    assert undecodable_note(response) == (
        "undecodable-bytes: 1 byte sequence(s) of the body are not utf-16-le and read as U+FFFD"
    )
    held = codecs.BOM_UTF16_LE + page.replace("Heavy", "\ufffd Heavy").encode("utf-16-le")
    assert undecodable_note(html_response(held)) is None


ASCII_FIRST = (
    b"<html><head><script>"
    + b"var a = 1;\n" * 100_000
    + b"</script></head><body><p>"
    + "Шторм обрушился на побережье ночью, и ветер не стихал до утра. ".encode("cp1251") * 500
    + b"</p></body></html>"
)
"""A page in windows-1251 that opens with a megabyte of ASCII script."""


def test_a_readable_copy_is_detected_once_on_a_bounded_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The decoding middleware runs in the reactor's thread: a body with a label no browser
    follows is detected once, on its first megabyte, and the copy keeps the response's
    request, status, headers and flags (Scrapy's ``replace`` read ``.encoding`` first, which
    detected the whole body a second time)."""
    read: list[int] = []
    detect = charset_normalizer.from_bytes

    def counted(body: bytes) -> Any:
        read.append(len(body))
        return detect(body)

    monkeypatch.setattr(parse, "from_bytes", counted)
    monkeypatch.setattr(
        TextResponse, "_body_inferred_encoding", lambda self: pytest.fail("inferred again")
    )
    body = b"<html><body>" + "<p>Grüße aus Köln</p>".encode("latin-1") * 100_000 + b"</body>"
    request = Request("http://127.0.0.1/p", meta={"k": 1})
    response = HtmlResponse(
        "http://127.0.0.1/p",
        status=203,
        body=body,
        headers={"Content-Type": "text/html; charset=utf8mb4"},
        flags=["cached"],
        request=request,
    )
    readable = readable_response(response)
    assert read == [1 << 20] and len(body) > 1 << 20
    assert detect_encoding(ASCII_FIRST) == "cp1251"  # not the first megabyte: no evidence there
    assert (readable.status, readable.flags, readable.meta, readable.body) == (
        203,
        ["cached"],
        {"k": 1},
        body,
    )
    assert readable.headers == response.headers and "Köln" in readable.text

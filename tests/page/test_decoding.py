"""Decoding a body as Scrapy decodes it: :mod:`scrapy_cetd.page.decoding`."""

from __future__ import annotations

import codecs
from typing import Any

import charset_normalizer
import pytest
from conftest import STORM_PAGE
from scrapy.http import HtmlResponse, Request, TextResponse

from scrapy_cetd import extract
from scrapy_cetd.page import decoding
from scrapy_cetd.page.decoding import (
    detect_encoding,
    html_response,
    readable_response,
    undecodable_note,
)


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

    monkeypatch.setattr(decoding, "from_bytes", counted)
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

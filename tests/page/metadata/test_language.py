"""The language: declared, checked against the text and identified; the model loaded once."""

from __future__ import annotations

import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from metadatakit import ENGLISH, FRENCH, page

from scrapy_cetd.page.metadata import language, page_metadata


def test_threads_that_need_the_language_model_at_once_load_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from py3langid.langid import LanguageIdentifier  # type: ignore[import-untyped]

    loads: list[int] = []
    real = LanguageIdentifier.from_modelpath

    def slow_load(*args: object, **kwargs: object) -> object:
        loads.append(1)
        time.sleep(0.2)  # long enough for every thread to ask while it loads
        return real(*args, **kwargs)

    monkeypatch.setattr(LanguageIdentifier, "from_modelpath", slow_load)
    language._loaded_identifier.cache_clear()
    try:
        with ThreadPoolExecutor(4) as pool:
            found = list(pool.map(lambda _: language.language_identifier(), range(4)))
    finally:
        language._loaded_identifier.cache_clear()  # the next test loads the real one again
    assert len(loads) == 1
    assert all(identifier is found[0] for identifier in found)


def test_language_declared_checked_and_identified() -> None:
    assert page_metadata(page(lang="en-us"), text=ENGLISH).language == "en-US"
    assert page_metadata(page(lang="en"), text=FRENCH).language == "fr"
    assert page_metadata(page(), text=FRENCH).language == "fr"
    assert page_metadata(page(lang="pt_br")).language == "pt-BR"
    assert page_metadata(page(lang="ZH-hans-cn")).language == "zh-Hans-CN"  # BCP 47's cases
    assert page_metadata(page(lang="de-CH-1996")).language == "de-CH-1996"
    assert page_metadata(page(lang="not a tag!")).language is None
    assert page_metadata(page(lang="de"), text="Kurz.").language == "de"


def test_a_declared_language_the_text_opens_in_is_read_no_further(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    identifier = language.language_identifier()
    read: list[int] = []

    class Counting:
        def classify(self, text: str) -> Any:
            read.append(len(text))
            return identifier.classify(text)

    monkeypatch.setattr(language, "language_identifier", Counting)
    long_english = ENGLISH * (1 + 1000 // len(ENGLISH))
    assert page_metadata(page(lang="en"), text=long_english).language == "en"
    assert read == [150]
    read.clear()
    assert page_metadata(page(lang="de"), text=long_english).language == "en"
    assert read == [150, 1000]  # another language: the whole sample decides


def test_a_declared_language_of_a_megabyte_takes_the_memory_of_an_unread_value() -> None:
    """``<html lang>``, ``Content-Language`` and ``og:locale`` values of a megabyte (a list of
    300,000 tags) took twice the memory of the same value in a ``<meta>`` nothing reads: the
    whole value was split into a string per tag, where only the first counts. Thousands of
    ``Content-Language`` tags were each kept; now 50 are, as of any other name."""
    huge = "de," * 300_000

    def peak(head: str, lang: str = "") -> int:
        tree = page(head, lang=lang)
        tracemalloc.start()
        found = page_metadata(tree).language
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert found == "de"
        return peak

    unread = peak(f"<meta name='unread' content='{huge}'>", lang="de")
    assert peak("", lang=huge) < 1.5 * unread
    assert peak(f"<meta http-equiv='Content-Language' content='{huge}'>") < 1.5 * unread
    assert peak(f"<meta property='og:locale' content='{huge}'>") < 1.5 * unread
    value = "de, " + "x" * 1000
    unread = peak(f"<meta http-equiv='x-unread' content='{value}'>" * 5000, lang="de")
    assert peak(f"<meta http-equiv='content-language' content='{value}'>" * 5000) < 1.5 * unread

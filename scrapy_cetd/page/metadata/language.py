"""The language of a page as a BCP 47 tag: the one it declares, checked against its text by
`py3langid <https://pypi.org/project/py3langid/>`_ (whose model ships inside its package),
and identified from the text when it declares none."""

# py3langid loads its model when first needed, not when this module is imported.
# ruff: noqa: PLC0415

from __future__ import annotations

import re
import threading
from functools import cache
from typing import Any

from scrapy_cetd.page.metadata.values import MAX_TEXT

_LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$")
_MAX_LANGUAGE_TAG = 35
"""Characters of the longest language tag kept: what BCP 47 (RFC 5646 §4.4.1) asks every
implementation to be able to hold."""


def language_tag(value: str | None) -> str | None:
    """A BCP 47 tag from an ``lang``/``Content-Language``/``og:locale`` value (the first of a
    list, ``_`` read as ``-``), in the cases BCP 47 recommends: the language lower-case, a
    script title-case (``zh-Hans``), a region upper-case (``pt-BR``). Only the value's first
    :data:`~scrapy_cetd.page.metadata.values.MAX_TEXT` characters are read: the tag that counts
    opens the list, and a value of a megabyte split whole made a string of each of its
    items."""
    if not value:
        return None
    first = value[:MAX_TEXT].split(",", 1)[0].strip().replace("_", "-")
    if len(first) > _MAX_LANGUAGE_TAG or not _LANGUAGE_TAG.match(first):
        return None
    primary, _, rest = first.partition("-")
    parts = [primary.lower()]
    parts.extend(_subtag_case(subtag) for subtag in (rest.split("-") if rest else ()))
    return "-".join(parts)


def _subtag_case(subtag: str) -> str:
    if len(subtag) == 2:
        return subtag.upper()  # a region
    if len(subtag) == 4 and subtag.isalpha():
        return subtag.title()  # a script
    return subtag


_MIN_IDENTIFIED = 40
"""Characters of text below which the language is not identified (too few to tell)."""
_MIN_OVERRULE = 400
"""Characters of text needed to overrule the declared language."""
_CONFIDENT = 0.95
"""py3langid's probability needed to overrule the declared language."""
_AGREEING_TEXT = 150
"""Characters of the text read first on a page that declares its language: when py3langid
finds that language in them, no more are read."""
_IDENTIFIED_TEXT = 1000
"""Characters of the text read to identify its language. py3langid's time grows with them
(each byte is a step through a 39 MB table); on the 2,133 pages of the shared datasets, the
first 1,000 characters give the same language as the first 4,000 on all but four pages, and
agree with the datasets' language labels as often."""


def _identify_language(text: str) -> tuple[str, bool] | None:
    """py3langid's language of ``text`` and whether it is sure enough to overrule a declared
    one; ``None`` when the text is too short."""
    sample = text[:_IDENTIFIED_TEXT]
    if len(sample.strip()) < _MIN_IDENTIFIED:
        return None
    language, probability = language_identifier().classify(sample)
    return str(language), probability >= _CONFIDENT and len(sample) >= _MIN_OVERRULE


def _agrees(declared: str, text: str) -> bool:
    """Whether py3langid reads the declared language in the first :data:`_AGREEING_TEXT`
    characters of ``text``: then they decide, and the rest is not read (a text that turns to
    another language after them keeps the declared one)."""
    language, _ = language_identifier().classify(text[:_AGREEING_TEXT])
    return bool(declared.split("-", maxsplit=1)[0].lower() == language)


_LOADING = threading.Lock()
"""Held while py3langid's model loads, so that threads that need it at once load it once."""


def language_identifier() -> Any:
    """py3langid's identifier with normalised probabilities, loaded once (its model is in its
    package) by the first thread that needs it, while the others wait."""
    with _LOADING:
        return _loaded_identifier()


@cache
def _loaded_identifier() -> Any:
    from py3langid.langid import (  # type: ignore[import-untyped]
        MODEL_DIR,
        MODEL_FILE,
        LanguageIdentifier,
    )

    return LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)


def page_language(declared: str | None, text: str | None) -> str | None:
    """The language of a page that declares ``declared`` (a tag, or ``None``) and whose main
    content is ``text``: the declared one unless the text is long enough
    (:data:`_MIN_OVERRULE`) for py3langid to be sure (:data:`_CONFIDENT`) it is another;
    the identified one when none is declared; ``None`` when neither tells."""
    identified = None
    if text and (declared is None or len(text) >= _MIN_OVERRULE):
        if declared is not None and _agrees(declared, text):
            return declared
        identified = _identify_language(text)  # too short a text cannot overrule: not read
    if identified is None:
        return declared
    if declared is None:
        return identified[0]
    language, confident = identified
    if confident and declared.split("-")[0].lower() != language:
        return language
    return declared

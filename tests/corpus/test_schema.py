"""The rows' columns and the digest of their text: :mod:`scrapy_cetd.corpus.schema`."""

from __future__ import annotations

from scrapy_cetd.corpus.schema import content_hash


def test_the_content_hash_ignores_case_unicode_form_and_spacing() -> None:
    assert content_hash("Caf\u00e9  au\nLAIT") == content_hash("café au lait")
    assert content_hash("café au lait") != content_hash("café au thé")
    assert len(content_hash("")) == 32

"""The bounds on every value's length."""

from __future__ import annotations

from metadatakit import page

from scrapy_cetd.page.metadata import page_metadata


def test_long_values_are_cut_to_their_bounds() -> None:
    """A megabyte in a title, a site name, a description, a keyword, an image URL or a ``lang``
    does not go whole into the metadata (it did, as far as a 900 kB "language tag")."""
    long = "Headline words " * 70_000
    found = page_metadata(
        page(
            f"<meta property='og:title' content='{long}'>"
            f"<meta property='og:site_name' content='{long}'>"
            f"<meta name='description' content='{long}'><meta name='keywords' content='{long},b'>"
            f"<meta property='og:image' content='https://example.com/{'a' * 10_000}.png'>",
            lang=f"en-{'abcdefgh-' * 10_000}x",
        ),
        url="https://example.com/a",
    )
    assert found.title is not None and 900 < len(found.title) <= 1_000
    assert found.site_name is not None and len(found.site_name) <= 1_000
    assert found.description is not None and len(found.description) <= 10_000
    assert [len(tag) <= 1_000 for tag in found.tags] == [True, True]
    assert (found.image, found.language) == (None, None)

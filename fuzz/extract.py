"""Fuzz :func:`scrapy_cetd.extract` and TPS pruning with atheris (libFuzzer for Python).

``make fuzz`` runs it for ``FUZZ_SECONDS`` on a corpus seeded with the example site's pages, in
``.fuzz/corpus/`` (inputs that reach new code are added there; a failing input is written to
``.fuzz/crashes/``). Usage: ``python -m fuzz.extract CORPUS_DIR [libFuzzer flags]``; an empty
or missing ``CORPUS_DIR`` is seeded first.

One input is one page: its first byte picks the algorithm, its second the TPS options (one
bit each), its third the outputs (:func:`outputs`: metadata, Markdown, the clean HTML, a page
URL, a forced page type), the rest is the page's bytes, decoded and parsed as a Scrapy crawl
would. What the fuzzer looks for is what the docs promise of bad input: the only exception is
a ``ValueError`` saying the input is not an HTML document; the parsed tree is never modified;
a result has text exactly when it has no reason, and the metadata and Markdown asked for when
it has text; and no input hangs (libFuzzer's ``-timeout``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lxml import etree

from scrapy_cetd import ALGORITHMS, PAGE_TYPES, TpsOptions, extract, prune_tag_paths
from scrapy_cetd.page.parse import to_tree
from scrapy_cetd.tps import MAIN_LANDMARK_SHARE

NAMES = sorted(ALGORITHMS)
URL = "https://example.com/news/2024/05/story.html"
"""The page URL an input gets when its outputs byte asks for one (links made absolute)."""
SITE = Path(__file__).resolve().parent.parent / "example_project" / "site"


def outputs(algorithm: str, bits: int) -> dict[str, Any]:
    """The keyword arguments of :func:`extract` that the outputs byte ``bits`` asks for: bit 0
    the metadata, 1 the Markdown, 2 the clean HTML, 3 a page URL (:data:`URL`); the high four
    bits a page type that ``cetd-plus`` is forced to (1 to 7: :data:`PAGE_TYPES`, in order;
    other values: classified)."""
    chosen: dict[str, Any] = {
        "metadata": bool(bits & 1),
        "markdown": bool(bits & 2),
        "clean_html": bool(bits & 4),
        "url": URL if bits & 8 else None,
    }
    forced = bits >> 4
    if algorithm == "cetd-plus" and 1 <= forced <= len(PAGE_TYPES):
        chosen["page_type"] = PAGE_TYPES[forced - 1]
    return chosen


def check(data: bytes) -> None:
    """Run one input (see the module docstring); an ``AssertionError`` or any other exception
    is a finding."""
    if len(data) < 3:
        return
    algorithm, bits, page = NAMES[data[0] % len(NAMES)], data[1], data[3:]
    asked = outputs(algorithm, data[2])
    try:
        tree = to_tree(page)
    except ValueError as error:
        if not str(error).startswith("not an HTML document:"):
            raise
        return
    before = etree.tostring(tree)
    result = extract(tree, algorithm=algorithm, **asked)
    assert (result.reason is None) == bool(result.text), result
    if result.text:
        assert (result.metadata is not None) == asked["metadata"], result
        assert isinstance(result.markdown, str) == asked["markdown"], result
    assert etree.tostring(tree) == before, "the input tree was modified by extract()"
    options = TpsOptions(
        invert=bool(bits & 1),
        keep_main_content=bool(bits & 2),
        remove_furniture=bool(bits & 4),
        keep_positions=bool(bits & 8),
        size="text" if bits & 16 else "nodes",
        remove_widgets=bool(bits & 32),
        guard_main_content=bool(bits & 64),
        main_landmark_share=None if bits & 128 else MAIN_LANDMARK_SHARE,
    )
    prune_tag_paths(tree, options)
    assert etree.tostring(tree) == before, "the input tree was modified"


def seeds() -> list[bytes]:
    """The example site's pages, each with every algorithm and a few option sets; with
    ``cetd-plus``, every set of outputs once and each forced page type."""
    pages = sorted(SITE.rglob("*.html"))
    plus = NAMES.index("cetd-plus")
    chosen = [
        (code, bits, 0)
        for code, bits in zip(range(len(NAMES)), (0, 2, 6, 14, 31, 8, 118, 1), strict=False)
    ]
    chosen += [(plus, 0, (bits % 8) << 4 | bits) for bits in range(1, 16)]
    return [bytes(header) + page.read_bytes() for page in pages for header in chosen]


def main(argv: list[str]) -> None:
    import atheris  # noqa: PLC0415  (the fuzz extra; the module is importable without it)

    corpus = Path(argv[1]) if len(argv) > 1 and not argv[1].startswith("-") else None
    if (
        corpus is not None
        and not corpus.is_file()
        and not any(corpus.glob("*/"))
        and not any(path.is_file() for path in corpus.glob("*"))
    ):
        corpus.mkdir(parents=True, exist_ok=True)
        for number, seed in enumerate(seeds()):
            (corpus / f"seed-{number:03d}").write_bytes(seed)
    atheris.instrument_all()
    atheris.Setup(argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)

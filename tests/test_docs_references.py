"""Section references from the code into the documentation resolve inside the repository.

The code cites its specification as ``docs/algorithms.md`` followed by a section sign and a
number (sometimes a range or a list of them), or in short as ``docs`` and the number, which
means the algorithms page. A bare section 0 (the common conventions) also means that page: no
paper has a section 0, while a bare §3.2 is a section of the paper the module implements.
Every such reference must name a page that exists under ``docs/`` and a section number that
the page has as a heading (``### 1.4 Algorithm ...``).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SELF = Path(__file__).resolve()
"""This file, whose examples of citations are not citations."""
SOURCES = ("scrapy_cetd", "tests", "benchmarks")
SUFFIXES = frozenset({".py", ".pyx", ".pyi"})
SHORT_PAGE = "algorithms.md"
"""The page a bare ``docs`` before a section number refers to."""

_NUMBER = r"§\s?\d+(?:\.\d+)*"
CITATION = re.compile(
    r"(?:\bdocs/(?P<page>[\w.-]+\.md)|\bdocs)`{0,2}\s*"
    rf"(?P<numbers>{_NUMBER}(?:\s*(?:-|\u2013|,|and)\s*{_NUMBER})*)"
)
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*)")
CONVENTION = re.compile(r"§\s?(0(?:\.\d+)*)(?![\d.]*\d)")
HEADING = re.compile(r"^#{1,6}[ \t]+(\d+(?:\.\d+)*)\.?(?:[ \t]|$)", re.MULTILINE)


def citations(text: str) -> list[tuple[str, str]]:
    """The ``(page, section number)`` pairs that ``text`` cites, in order."""
    found: list[tuple[int, str, str]] = []
    covered = []
    for match in CITATION.finditer(text):
        page = match["page"] or SHORT_PAGE
        start = match.start("numbers")
        for number in SECTION.finditer(match["numbers"]):
            found.append((start + number.start(), page, number[1]))
        covered.append(match.span("numbers"))
    for match in CONVENTION.finditer(text):
        if not any(lo <= match.start() < hi for lo, hi in covered):
            found.append((match.start(), SHORT_PAGE, match[1]))
    return [(page, number) for _, page, number in sorted(found)]


def headings(text: str) -> list[str]:
    """The section numbers that start the headings of a Markdown page."""
    return HEADING.findall(text)


def cited_sections() -> dict[tuple[str, str], list[str]]:
    """Every cited ``(page, section)`` with the source files that cite it."""
    cited: dict[tuple[str, str], list[str]] = {}
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file() or path == SELF:
                continue
            for key in citations(path.read_text(encoding="utf-8")):
                cited.setdefault(key, []).append(str(path.relative_to(ROOT)))
    return cited


def test_citation_forms_are_recognised() -> None:
    text = (
        "specification in ``docs/algorithms.md``\n    §4).\n"
        "(§5.4, §6.1; ``docs/algorithms.md`` §0.2) and (``docs/algorithms.md`` §0.1-§0.4)\n"
        "docs/tps.md §2 and ``docs`` §2.3 step 6; docs §4.6 vector; paper §3.2 is not ours;\n"
        "tolerance (§0.5), words (§0.3: ...), docs/tps.md §0.1 stays on its page"
    )
    assert citations(text) == [
        ("algorithms.md", "4"),
        ("algorithms.md", "0.2"),
        ("algorithms.md", "0.1"),
        ("algorithms.md", "0.4"),
        ("tps.md", "2"),
        ("algorithms.md", "2.3"),
        ("algorithms.md", "4.6"),
        ("algorithms.md", "0.5"),
        ("algorithms.md", "0.3"),
        ("tps.md", "0.1"),
    ]


def test_heading_numbers_are_recognised() -> None:
    text = "# Title\n## 1. CETD\n### 1.4 Algorithm (CETD-DS)\n#### 1.9.1 Example\n1.5 text\n"
    assert headings(text) == ["1", "1.4", "1.9.1"]


def test_every_cited_section_is_a_heading_of_an_existing_page() -> None:
    cited = cited_sections()
    assert len(cited) >= 20, "the code cites its documentation; the scan found almost nothing"
    missing = []
    for (page, number), sources in sorted(cited.items()):
        path = ROOT / "docs" / page
        if not path.is_file():
            missing.append(f"docs/{page} (cited by {', '.join(sorted(set(sources)))})")
        elif number not in headings(path.read_text(encoding="utf-8")):
            missing.append(f"docs/{page} §{number} (cited by {', '.join(sorted(set(sources)))})")
    assert not missing, "cited but missing:\n" + "\n".join(missing)


def test_section_numbers_are_unique_per_page() -> None:
    pages = {page for page, _ in cited_sections()}
    for page in sorted(pages):
        path = ROOT / "docs" / page
        if path.is_file():
            counts = Counter(headings(path.read_text(encoding="utf-8")))
            assert [number for number, count in counts.items() if count > 1] == [], page

"""The ``make demo`` summary shown in ``docs/quickstart.md`` is what the demo prints for a
crawl of the bundled site: the figures are checked here, not pasted."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from crawlkit import crawl, make_crawler, serve
from itemadapter import ItemAdapter

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "example_project"
QUICKSTART = ROOT / "docs" / "quickstart.md"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(PROJECT))  # the project's own imports: news.items, news.settings

from news import settings as project_settings  # noqa: E402
from news.spiders.articles import ArticlesSpider  # noqa: E402

from example_project import demo  # noqa: E402

TIMES = ("extraction CPU per page", "crawl wall time")
"""The summary lines whose figures depend on the machine: only their wording is compared."""


def documented_summary() -> list[str]:
    """The summary block of the quick start page, between its ``demo-summary`` markers."""
    text = QUICKSTART.read_text(encoding="utf-8")
    block = re.search(
        r"<!-- demo-summary\b.*?-->\n```\n(.*?)```\n<!-- /demo-summary -->", text, re.S
    )
    assert block is not None, "docs/quickstart.md has no demo-summary block"
    return block[1].splitlines()


def masked(lines: list[str]) -> list[str]:
    return [
        re.sub(r"[\d.]+", "N", line) if line.strip().startswith(TIMES) else line for line in lines
    ]


def test_the_quick_start_shows_the_summary_of_a_crawl_of_the_demo_site() -> None:
    settings: dict[str, Any] = {
        name: getattr(project_settings, name)
        for name in dir(project_settings)
        if name.isupper() and name not in ("EXTENSIONS", "LOG_LEVEL")
    }
    with serve(demo.SITE) as base:
        result = crawl(make_crawler(ArticlesSpider, settings), base_url=base)
    items = [ItemAdapter(item).asdict() for item in result.items]
    assert not demo.check(items)  # what the demo checks after its crawl
    lines = demo.summary(items, result.stats, wall=0.0)
    documented = documented_summary()
    assert masked(documented[: len(lines)]) == masked(lines)
    assert documented[len(lines) :] == [
        "",
        f"OK: all {len(items)} items' main_content_text (and main_content_html) equal "
        "scrapy_cetd.extract() on the same pages.",
    ]


OPTIONAL = re.findall(
    r"^([\w-]+) = \[",
    (ROOT / "pyproject.toml")
    .read_text(encoding="utf-8")
    .split("[project.optional-dependencies]", 1)[1]
    .split("\n[", 1)[0],
    re.MULTILINE,
)
"""The extras pyproject.toml declares (Python 3.10 has no tomllib)."""


@pytest.mark.parametrize("page", [ROOT / "README.md", QUICKSTART], ids=["README", "quickstart"])
def test_the_install_commands_install_from_a_checkout(page: Path) -> None:
    """The package is not on PyPI: every ``pip install`` of the install section names the
    checkout (``-e .``, with extras that pyproject.toml declares), never a package name."""
    section = page.read_text(encoding="utf-8").split("## Install", 1)[1].split("\n## ", 1)[0]
    commands = [line for line in section.splitlines() if line.lstrip().startswith("pip install")]
    assert commands
    for command in commands:
        words = command.split("#", 1)[0].split()
        assert words[:3] == ["pip", "install", "-e"], command
        target = words[3].strip("'\"")
        match = re.fullmatch(r"\.(?:\[(?P<extras>[\w,-]+)\])?", target)
        assert match is not None, command
        assert set((match["extras"] or "").split(",")) - {""} <= set(OPTIONAL), command

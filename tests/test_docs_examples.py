"""The Python examples of the README and the documentation can be copied into a script as
they stand: each block is valid Python, and one that starts worker processes guards the
script's start."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
STARTS_PROCESSES = ("LocalPipelineExecutor(", "LocalCluster(", "ProcessPoolExecutor(")
"""Calls that start worker processes, which import the script that started them again (the
``forkserver`` and ``spawn`` start methods): unguarded, the script starts them again."""
MAIN_GUARD = 'if __name__ == "__main__":'


def examples() -> list[tuple[str, str]]:
    return [
        (f"{page.name}:{text[: match.start()].count(chr(10)) + 1}", match[1])
        for page in PAGES
        for text in [page.read_text(encoding="utf-8")]
        for match in BLOCK.finditer(text)
    ]


@pytest.mark.parametrize(("where", "code"), examples(), ids=[w for w, _ in examples()])
def test_an_example_is_valid_python(where: str, code: str) -> None:
    compile(code, where, "exec")


@pytest.mark.parametrize(("where", "code"), examples(), ids=[w for w, _ in examples()])
def test_an_example_that_starts_worker_processes_guards_the_script_s_start(
    where: str, code: str
) -> None:
    if any(call in code for call in STARTS_PROCESSES):
        assert MAIN_GUARD in code, f"{where}: start the workers under {MAIN_GUARD}"


def test_the_examples_are_found() -> None:
    assert any("LocalPipelineExecutor(" in code for _, code in examples())

"""The package's layers as seen at run time (the static contracts are in ``pyproject.toml``,
checked by ``lint-imports`` in ``make lint``)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import scrapy_cetd

PACKAGE = Path(scrapy_cetd.__file__).parent

LOADED = """
import json, sys
import scrapy_cetd
print(json.dumps(sorted(sys.modules)))
"""


def test_importing_the_package_loads_neither_the_evaluation_code_nor_rapidfuzz() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOADED], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = json.loads(done.stdout)
    assert "scrapy_cetd.crawl.pipeline" in loaded  # the public API was imported
    unwanted = [m for m in loaded if m.startswith(("rapidfuzz", "scrapy_cetd.evaluation"))]
    assert unwanted == []


def _imports_of_the_accelerator(source: str) -> bool:
    """Whether ``source`` imports the compiled module ``_speedups`` in any form."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [f"{node.module or ''}.{alias.name}" for alias in node.names]
            names.append(node.module or "")
        else:
            continue
        if any(name.split(".")[-1] == "_speedups" for name in names):
            return True
    return False


def test_the_compiled_accelerator_is_imported_by_one_module() -> None:
    """``lint-imports`` cannot see it: its import graph is built from ``.py`` files only."""
    importers = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if _imports_of_the_accelerator(path.read_text(encoding="utf-8"))
    )
    assert importers == ["page/accel.py"]


def test_the_accelerator_check_sees_every_form_of_import() -> None:
    for source in (
        "from scrapy_cetd.page import _speedups",
        "from scrapy_cetd.page._speedups import build_view",
        "import scrapy_cetd.page._speedups as fast",
        "def f():\n    from . import _speedups",
    ):
        assert _imports_of_the_accelerator(source), source
    assert not _imports_of_the_accelerator("from scrapy_cetd.page import accel\naccel.compiled")

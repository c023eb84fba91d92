"""The corpus package itself: what importing it without its extra says."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "module", ["scrapy_cetd.corpus", "scrapy_cetd.corpus.dask_bag", "scrapy_cetd.corpus.codings"]
)
def test_without_the_corpus_extra_the_import_names_it(module: str) -> None:
    code = f"import sys; sys.modules['fastwarc'] = None; import {module}"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 1
    assert "ImportError: scrapy_cetd.corpus needs the corpus extra" in run.stderr

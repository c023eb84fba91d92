"""Sphinx configuration of the scrapy-cetd documentation (``make docs``).

The pages are MyST Markdown; the Python API is read from the docstrings by autodoc, which
imports the package from the checkout. Nothing here reaches the network (no intersphinx).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scrapy_cetd  # noqa: E402  (after the checkout is on the path)

project = "scrapy-cetd"
author = "scrapy-cetd developers"
copyright = "scrapy-cetd developers"
release = scrapy_cetd.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
]

source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]

myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}

html_theme = "furo"
html_title = f"scrapy-cetd {release}"
html_static_path: list[str] = []

"""Benchmarks of scrapy-cetd (run each module with ``python -m benchmarks.NAME``)."""

from __future__ import annotations

from pathlib import Path

from scrapy_cetd.evaluation.datasets import default_datasets_root

SHARED_DATASETS = Path("..", "shared", "datasets")
"""Where the shared datasets are when ``$CETD_DATASETS`` is not set, from the current directory:
the benchmarks run from the repository's root, beside which the datasets sit."""


def datasets_root() -> Path | None:
    """``$CETD_DATASETS``, else :data:`SHARED_DATASETS` when it is a folder, else ``None``."""
    configured = default_datasets_root()
    if configured is not None:
        return configured
    return SHARED_DATASETS.resolve() if SHARED_DATASETS.is_dir() else None

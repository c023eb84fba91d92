"""The files the commands read and write: whether a path can be written before a run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scrapy_cetd.cli import UsageError
from scrapy_cetd.cli.files import check_writable


def test_a_stats_file_that_exists_needs_only_itself_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stats = tmp_path / "s.json"
    stats.write_text("")
    # As a user who may write the file but not its folder (root may write anything).
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) == stats)
    check_writable(str(stats), "--stats")
    with pytest.raises(UsageError, match="cannot be written"):
        check_writable(str(tmp_path / "new.json"), "--stats")

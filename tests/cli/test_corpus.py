"""``scrapy-cetd corpus``: the command line's side (the runs are tested in
tests/corpus/test_run.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import scrapy_cetd
from scrapy_cetd.cli import main


def test_corpus_gets_the_options_converted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The corpus records its options in the digest that decides whether a run resumes: it
    gets the values the extractor gets, so ``0.90`` and ``0.9`` are the same run."""
    from scrapy_cetd import corpus

    seen: list[corpus.CorpusSettings] = []

    def run_corpus(inputs: Any, out: Any, settings: corpus.CorpusSettings, **kwargs: Any) -> Any:
        seen.append(settings)
        raise OSError("stop here")

    monkeypatch.setattr(corpus, "run_corpus", run_corpus)
    argv = ["corpus", "x.warc", "--out", str(tmp_path / "x.jsonl"), "-O", "include_comments=no"]
    assert main([*argv, "-O", "threshold_coefficient=0.90"]) == 1
    assert main([*argv, "-O", "threshold_coefficient=0.9"]) == 1
    assert "stop here" in capsys.readouterr().err
    assert seen[0].options == {"include_comments": False, "threshold_coefficient": 0.9}
    assert seen[0].digest() == seen[1].digest()


def test_corpus_without_its_extra_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delattr(scrapy_cetd, "corpus", raising=False)
    for name in [name for name in sys.modules if name.startswith("scrapy_cetd.corpus")]:
        monkeypatch.delitem(sys.modules, name)  # imported again, and fails
    monkeypatch.setitem(sys.modules, "fastwarc", None)  # as if it were not installed
    assert main(["corpus", "in.warc.gz", "--out", "rows.jsonl"]) == 1
    assert "pip install 'scrapy-cetd[corpus]'" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "scrapy_cetd.corpus", None)  # a fault of its own
    with pytest.raises(ImportError):
        main(["corpus", "in.warc.gz", "--out", "rows.jsonl"])

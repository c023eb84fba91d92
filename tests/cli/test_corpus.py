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


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["-a", "cetd-ds", "--page-types", "article"],
            "--page-types: 'article' would keep no row: algorithm 'cetd-ds' does not classify "
            "pages (cetd-plus does)",
        ),
        (
            ["-a", "cectd-ds", "--min-page-type-confidence", "0.6"],
            "--min-page-type-confidence: 0.6 would keep no row: algorithm 'cectd-ds' does not",
        ),
        (
            ["-O", "detect_page_type=false", "--page-types", "article"],
            "--page-types: 'article' would keep no row: algorithm 'cetd-plus' classifies no page "
            "with detect_page_type=False and no page_type",
        ),
        (
            ["-O", "page_type=forum", "--page-types", "article,listing"],
            "--page-types: 'article', 'listing' would keep no row: algorithm 'cetd-plus' gives "
            "every page the type forum (its page_type option)",
        ),
    ],
)
def test_corpus_refuses_a_page_type_filter_that_would_keep_no_row(
    options: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A usage error before any work, naming the option and the algorithm: the run would
    silently write an empty corpus."""
    out = str(tmp_path / "rows.jsonl")
    assert main(["corpus", "x.warc", "--out", out, *options]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "rows.jsonl").exists()


def test_corpus_takes_a_page_type_filter_that_a_forced_type_meets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scrapy_cetd import corpus

    seen: list[corpus.CorpusSettings] = []

    def run_corpus(inputs: Any, out: Any, settings: corpus.CorpusSettings, **kwargs: Any) -> Any:
        seen.append(settings)
        raise OSError("stop here")

    monkeypatch.setattr(corpus, "run_corpus", run_corpus)
    argv = ["corpus", "x.warc", "--out", str(tmp_path / "x.jsonl"), "-O", "page_type=forum"]
    assert main([*argv, "--page-types", "forum", "--min-page-type-confidence", "0.9"]) == 1
    assert "stop here" in capsys.readouterr().err
    assert seen[0].page_types == ("forum",)


def test_corpus_without_its_extra_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delattr(scrapy_cetd, "corpus", raising=False)
    for name in [name for name in sys.modules if name.startswith("scrapy_cetd.corpus")]:
        monkeypatch.delitem(sys.modules, name)  # imported again, and fails
    monkeypatch.setitem(sys.modules, "fastwarc", None)  # as if it were not installed
    assert main(["corpus", "in.warc.gz", "--out", "rows.jsonl"]) == 1
    assert "pip install -e '.[corpus]' in scrapy-cetd's checkout" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "scrapy_cetd.corpus", None)  # a fault of its own
    with pytest.raises(ImportError):
        main(["corpus", "in.warc.gz", "--out", "rows.jsonl"])

"""The command's top parser and main: the version, errors as one line, plain help, a reader
that stops early."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import scrapy_cetd
from scrapy_cetd.cli import main


def test_version_is_the_installed_distribution_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from importlib.metadata import version

    assert scrapy_cetd.__version__ == version("scrapy-cetd")
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"scrapy-cetd {version('scrapy-cetd')}\n"


@pytest.mark.parametrize(
    ("argv", "message", "status"),
    [
        (["extract", "missing.html"], "cannot read missing.html", 1),
        (["evaluate", "/no/such/dataset"], "is not a dataset folder", 1),
        (["extract", "-a", "nope", "x.html"], "unknown algorithm 'nope'", 2),
        (["extract", "-O", "nonsense", "x.html"], "is not NAME=VALUE", 2),
        (["extract", "-O", "bogus=1", "x.html"], "unknown option(s) bogus", 2),
        (
            ["extract", "-O", "threshold_coefficient=abc", "x.html"],
            "option threshold_coefficient='abc' is not a finite number (float)",
            2,
        ),
        (
            ["evaluate", "-O", "threshold_coefficient=abc", "/no/such/dataset"],
            "option threshold_coefficient='abc' is not a finite number (float)",
            2,
        ),
        (
            ["corpus", "-O", "include_comments=maybe", "x.warc", "--out", "x.jsonl"],
            "option include_comments='maybe' is not a bool",
            2,
        ),
    ],
)
def test_errors_are_one_line_and_exit_1_or_2_for_usage(
    argv: list[str], message: str, status: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == status
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_the_help_is_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ([], ["extract"], ["evaluate"], ["prune"], ["corpus"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        assert "``" not in capsys.readouterr().out  # no reStructuredText from a docstring


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path: Path) -> None:
    paragraphs = "".join(
        f"<p>Paragraph {i} of a very long article, told in full.</p>" for i in range(20_000)
    )
    path = tmp_path / "long.html"
    path.write_text(f"<html><body><article>{paragraphs}</article></body></html>", encoding="utf-8")
    command = [sys.executable, "-c", "from scrapy_cetd.cli import main; raise SystemExit(main())"]
    with subprocess.Popen(
        [*command, "extract", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith(b"Paragraph 0")
        process.stdout.close()
        err = process.stderr.read().decode()
        assert process.wait(timeout=60) == 1
    assert err == ""

"""The fuzz target (fuzz/extract.py) on its seeds and on damaged inputs, without atheris."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fuzz.extract import NAMES, check, seeds


def test_the_seeds_cover_every_algorithm_and_pass() -> None:
    found = seeds()
    assert {data[0] for data in found} == set(range(len(NAMES)))
    for data in found:
        check(data)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00",
        b"\x00\x1f",
        b"\x01\x1f%PDF-1.4\n",
        b"\x02\x0f<html><body><p>a</p></body>\x02tail<head><body><p>second body",
        b"\x03\x08" + b"<div>" * 3000 + b"deep",
        b'\x04\x04<body><div type="a><p style=" {1}x"=""><p>Article text.</p></div></body>',
        b"\x05\x1e\xff\xfe<\x00p\x00>\x00x\x00",
        b"\x06\x02<head><base href='https://a: b'></head><body><p>text</p></body>",
    ],
)
def test_damaged_inputs_pass(data: bytes) -> None:
    check(data)

"""The fuzz target (fuzz/extract.py) on its seeds and on damaged inputs, without atheris."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fuzz.extract import NAMES, check, outputs, seeds
from scrapy_cetd import PAGE_TYPES


def test_the_seeds_cover_every_algorithm_output_and_page_type_and_pass() -> None:
    found = seeds()
    assert {data[0] for data in found} == set(range(len(NAMES)))
    assert {data[2] & 15 for data in found} == set(range(16))
    forced = {outputs("cetd-plus", data[2]).get("page_type") for data in found}
    assert forced == {None, *PAGE_TYPES}
    for data in found:
        check(data)


def test_the_outputs_byte_asks_for_each_output_and_forces_types_on_cetd_plus_only() -> None:
    assert outputs("cetd-plus", 0) == {
        "metadata": False,
        "markdown": False,
        "clean_html": False,
        "url": None,
    }
    asked = outputs("cetd-plus", 0x1F)
    assert asked["metadata"] and asked["markdown"] and asked["clean_html"] and asked["url"]
    assert asked["page_type"] == PAGE_TYPES[0]
    assert outputs("cetd-plus", 0x70)["page_type"] == PAGE_TYPES[6]
    assert "page_type" not in outputs("cetd-plus", 0x80)
    assert "page_type" not in outputs("cetr", 0x10)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00",
        b"\x00\x1f",
        b"\x00\x1f\x0f",
        b"\x01\x1f\x00%PDF-1.4\n",
        b"\x02\x0f\x03<html><body><p>a</p></body>\x02tail<head><body><p>second body",
        b"\x03\x08\x0b" + b"<div>" * 3000 + b"deep",
        b'\x04\x04\x1f<body><div type="a><p style=" {1}x"=""><p>Article text.</p></div></body>',
        b"\x05\x1e\x0a\xff\xfe<\x00p\x00>\x00x\x00",
        b"\x06\x02\x0e<head><base href='https://a: b'></head><body><p>text</p></body>",
    ],
)
def test_damaged_inputs_pass(data: bytes) -> None:
    check(data)

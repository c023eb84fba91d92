"""The registry: every algorithm by name, and :func:`build_extractor` for names and import
paths (used by the pipeline, the commands, the corpus and the benchmarks)."""

from __future__ import annotations

import pytest
from conftest import STORM_PAGE, parse

import scrapy_cetd
from scrapy_cetd.extractors import DEFAULT_ALGORITHM
from scrapy_cetd.extractors.registry import ALGORITHMS, build_extractor, get_extractor


def test_the_default_algorithm_is_registered() -> None:
    assert DEFAULT_ALGORITHM in ALGORITHMS
    assert type(get_extractor()) is ALGORITHMS[DEFAULT_ALGORITHM]


def test_a_registered_name_builds_what_get_extractor_builds() -> None:
    for name in ALGORITHMS:
        assert repr(build_extractor(name)) == repr(get_extractor(name))
    built = build_extractor("cetd-ds", {"threshold_coefficient": 0.5})
    assert repr(built) == repr(get_extractor("cetd-ds", threshold_coefficient=0.5))


def test_an_import_path_builds_that_class_with_the_options() -> None:
    built = build_extractor("scrapy_cetd.CSetExtractor", {"remove_hidden": False})
    assert type(built) is scrapy_cetd.CSetExtractor
    assert built.extract(parse(STORM_PAGE)) == get_extractor("cset", remove_hidden=False).extract(
        parse(STORM_PAGE)
    )


@pytest.mark.parametrize(
    ("algorithm", "options", "message"),
    [
        ("nope", {}, r"unknown algorithm 'nope'; valid algorithms: .*cetd-plus.*import path"),
        ("cetd-ds", {"nope": 1}, r"unknown option\(s\) nope for algorithm 'cetd-ds'"),
        ("no_such_module.Extractor", {}, r"'no_such_module.Extractor' cannot be imported"),
        ("scrapy_cetd.extractors.registry.ALGORITHMS", {}, "is not a class"),
        ("scrapy_cetd.CSetExtractor", {"nope": 1}, "the options do not fit"),
        ("collections.OrderedDict", {}, r"has no extract\(tree, \*, url\) method"),
    ],
)
def test_what_cannot_be_built_is_a_value_error_that_says_why(
    algorithm: str, options: dict[str, int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        build_extractor(algorithm, options)

"""The registry: every algorithm by name, and :func:`build_extractor` for names and import
paths (used by the pipeline, the commands, the corpus and the benchmarks)."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from conftest import STORM_PAGE, parse

import scrapy_cetd
from scrapy_cetd import PAGE_TYPES
from scrapy_cetd.extractors import DEFAULT_ALGORITHM
from scrapy_cetd.extractors.registry import (
    ALGORITHMS,
    build_extractor,
    coerce_options,
    get_extractor,
    page_types_given,
)


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
        (
            "scrapy_cetd.CSetExtractor",
            {"nope": 1},
            r"unknown option\(s\) nope for algorithm 'scrapy_cetd.CSetExtractor'; valid "
            r"options: .*remove_hidden",
        ),
        ("collections.OrderedDict", {}, r"has no extract\(tree, \*, url\) method"),
    ],
)
def test_what_cannot_be_built_is_a_value_error_that_says_why(
    algorithm: str, options: dict[str, int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        build_extractor(algorithm, options)


class _Typed:
    """A user extractor class whose options are typed with ``Literal`` and ``X | None``."""

    def __init__(
        self,
        *,
        mode: Literal["fast", "exact"] = "fast",
        level: Literal[1, 2] = 1,
        limit: int | None = None,
        label: str = "x",
        anything: Any = None,
    ) -> None:
        self.mode, self.level, self.limit, self.label, self.anything = (
            mode,
            level,
            limit,
            label,
            anything,
        )

    def extract(self, tree: Any, *, url: str | None = None) -> Any:
        raise NotImplementedError


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (False, False),
        ("no", False),
        ("False", False),
        ("FALSE", False),
        ("0", False),
        ("off", False),
        ("yes", True),
        ("True", True),
        (" 1 ", True),
        ("on", True),
    ],
)
def test_a_bool_option_reads_the_usual_spellings(value: Any, expected: bool) -> None:
    extractor = get_extractor("cetd-plus", include_comments=value)
    assert extractor.options()["include_comments"] is expected
    built = build_extractor("cetd-plus", {"include_comments": value})
    assert built.options()["include_comments"] is expected  # type: ignore[attr-defined]


def test_number_options_accept_numbers_and_numeric_strings() -> None:
    options = get_extractor(
        "cetd-plus", threshold_coefficient="1.5", shell_prose_chars="12", listing_share=1
    ).options()
    assert options["threshold_coefficient"] == 1.5
    assert options["shell_prose_chars"] == 12
    assert type(options["shell_prose_chars"]) is int
    assert options["listing_share"] == 1.0
    assert type(options["listing_share"]) is float
    assert get_extractor("cset", c=4.0).options()["c"] == 4


@pytest.mark.parametrize("value", [None, "None", "none", "null", ""])
def test_an_optional_option_reads_none(value: Any) -> None:
    extractor = get_extractor("cetd-plus", whole_page_share=value, shell_prose_chars=value)
    assert extractor.options()["whole_page_share"] is None
    assert extractor.options()["shell_prose_chars"] is None


@pytest.mark.parametrize(
    ("algorithm", "options", "message"),
    [
        (
            "cetd-plus",
            {"threshold_coefficient": "high"},
            r"option threshold_coefficient='high' is not a finite number \(float\)",
        ),
        ("cetd-plus", {"include_comments": "maybe"}, r"include_comments='maybe' is not a bool"),
        ("cetd-plus", {"include_comments": 1}, r"include_comments=1 is not a bool"),
        ("cetd-plus", {"include_comments": None}, r"include_comments=None is not a bool"),
        ("cetd-plus", {"threshold_coefficient": True}, r"threshold_coefficient=True is not a"),
        ("cetd-plus", {"threshold_coefficient": "nan"}, r"threshold_coefficient='nan' is not"),
        ("cset", {"c": 2.5}, r"option c=2.5 is not a whole number \(int\)"),
        ("cset", {"c": "3.5"}, r"option c='3.5' is not a whole number"),
        ("cetd-plus", {"whole_page_share": "most"}, r"'most' is not a finite number .* or None"),
        ("cetd-plus", {"shell_prose_chars": [1]}, r"shell_prose_chars=\[1\] is not a whole"),
    ],
)
def test_an_option_of_the_wrong_type_is_a_value_error_naming_it(
    algorithm: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        get_extractor(algorithm, **options)
    with pytest.raises(ValueError, match=message):
        build_extractor(algorithm, options)
    with pytest.raises(ValueError, match=message):
        scrapy_cetd.extract(STORM_PAGE, algorithm=algorithm, **options)


def test_an_import_path_class_gets_its_options_converted_too() -> None:
    path = f"{__name__}._Typed"
    built = build_extractor(path, {"mode": "exact", "level": "2", "limit": "none", "label": "y"})
    assert isinstance(built, _Typed)
    assert (built.mode, built.level, built.limit, built.label) == ("exact", 2, None, "y")
    assert build_extractor(path, {"limit": "7", "anything": "as is"}).limit == 7  # type: ignore[attr-defined]
    assert build_extractor(path, {"anything": "as is"}).anything == "as is"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"option mode='slow' is not one of 'fast', 'exact'"):
        build_extractor(path, {"mode": "slow"})
    with pytest.raises(ValueError, match=r"option level=3 is not one of 1, 2"):
        build_extractor(path, {"level": 3})
    with pytest.raises(ValueError, match=r"option label=5 is not a string"):
        build_extractor(path, {"label": 5})


def test_coerce_options_leaves_unnamed_and_untyped_options_to_the_constructor() -> None:
    assert coerce_options(_Typed, {"other": "1", "anything": "2"}) == {
        "other": "1",
        "anything": "2",
    }
    assert coerce_options(lambda **kwargs: None, {"x": "no"}) == {"x": "no"}


class _Stepwise:
    """A user extractor of two steps that checks the time budget between them."""

    def extract(self, tree: Any, *, url: str | None = None) -> scrapy_cetd.ExtractionResult:
        left = scrapy_cetd.time_left()
        assert left is None or left >= 0
        scrapy_cetd.check_deadline("after the first step")
        return scrapy_cetd.ExtractionResult(text="some text", html="", algorithm="stepwise")


def test_an_import_path_class_can_keep_within_the_time_budget() -> None:
    """``scrapy_cetd.check_deadline`` in a class of one's own ends the extraction at its
    step, with a reason naming it, as the built-in extractors' checks do; its options are
    checked by name."""
    path = f"{__name__}._Stepwise"
    assert scrapy_cetd.extract(STORM_PAGE, algorithm=path).text == "some text"
    late = scrapy_cetd.extract(STORM_PAGE, algorithm=path, time_budget=1e-9)
    assert late.reason_code is scrapy_cetd.Reason.TIME_BUDGET
    assert late.reason is not None and "stopped after the first step" in late.reason
    with pytest.raises(ValueError, match=r"unknown option\(s\) nope .*; valid options: none"):
        scrapy_cetd.extract(STORM_PAGE, algorithm=path, nope=1)


def test_the_page_types_an_extractor_gives_are_told_where_they_are_known() -> None:
    """What a page-type filter is checked against before a corpus run: cetd-plus classifies
    every page unless told not to, a forced type is the only one, the other registered
    algorithms give none, and a class of one's own is not known."""
    assert page_types_given(build_extractor("cetd-plus")) == frozenset(PAGE_TYPES)
    forced = build_extractor("cetd-plus", {"page_type": "forum", "detect_page_type": False})
    assert page_types_given(forced) == frozenset({"forum"})
    assert page_types_given(build_extractor("cetd-plus", {"detect_page_type": "no"})) == frozenset()
    for name in set(ALGORITHMS) - {"cetd-plus"}:
        assert page_types_given(build_extractor(name)) == frozenset()
    assert page_types_given(build_extractor("scrapy_cetd.CetdPlusExtractor")) == frozenset(
        PAGE_TYPES
    )
    assert page_types_given(build_extractor(f"{__name__}._Stepwise")) is None

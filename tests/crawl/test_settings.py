"""The ``CETD_*`` settings as Scrapy gives them: from settings files, and as strings from
``scrapy crawl -s NAME=VALUE``."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import scrapy
from crawlkit import crawl, make_crawler, unit_crawler
from scrapy.settings import Settings
from scrapy.utils.misc import build_from_crawler

from scrapy_cetd import CETDPipeline
from scrapy_cetd.crawl.settings import read_settings

FIELD_SETTINGS = (
    *("CETD_HTML_FIELD", "CETD_TEXT_FIELD", "CETD_TITLE_FIELD", "CETD_SOURCE_FIELD"),
    *("CETD_PAGE_TYPE_FIELD", "CETD_PAGE_TYPE_CONFIDENCE_FIELD"),
)


def cmdline(**values: str) -> Settings:
    """Settings as ``-s NAME=VALUE`` leaves them: strings at the command line's priority."""
    settings = Settings()
    for name, value in values.items():
        settings.set(name, value, priority="cmdline")
    return settings


def test_cetd_options_reads_a_json_object_from_the_command_line() -> None:
    settings = cmdline(CETD_OPTIONS='{"include_comments": true, "threshold_coefficient": 0.5}')
    options = read_settings(settings).options
    assert options == {"include_comments": True, "threshold_coefficient": 0.5}


def test_cetd_options_as_a_dict_and_unset() -> None:
    assert read_settings(Settings({"CETD_OPTIONS": {"include_title": True}})).options == {
        "include_title": True
    }
    assert read_settings(Settings()).options == {}
    assert read_settings(Settings({"CETD_OPTIONS": None})).options == {}


@pytest.mark.parametrize("value", ["[1, 2]", "include_comments=true", "{'a': 1}", 3])
def test_cetd_options_that_is_no_dict_is_refused_naming_the_setting(value: Any) -> None:
    with pytest.raises(ValueError, match="CETD_OPTIONS must be a dict"):
        read_settings(Settings({"CETD_OPTIONS": value}))


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("CETD_CLEAN_HTML", "yes", "CETD_CLEAN_HTML must be True or False"),
        ("CETD_ENABLED", "maybe", "CETD_ENABLED must be True or False"),
        ("CETD_OVERWRITE", "on", "CETD_OVERWRITE must be True or False"),
        ("CETD_WORKERS", "many", "CETD_WORKERS must be a whole number, not 'many'"),
        ("CETD_LINK_TABLE_SIZE", "big", "CETD_LINK_TABLE_SIZE must be a whole number"),
        ("CETD_WORKERS", 1.5, "CETD_WORKERS must be a whole number, not 1.5"),  # not cut to 1
        ("CETD_MAX_BODY_SIZE", "1.5", "CETD_MAX_BODY_SIZE must be a positive whole number"),
        ("CETD_TIME_BUDGET", "nan", "CETD_TIME_BUDGET must be a positive number or None"),
    ],
)
def test_a_bool_or_int_setting_that_does_not_fit_is_refused_naming_it(
    name: str, value: str, message: str
) -> None:
    """Scrapy's own message ("Supported values for boolean settings are ...") names neither
    the setting nor the value."""
    with pytest.raises(ValueError, match=message):
        read_settings(Settings({name: value}))


@pytest.mark.parametrize("name", FIELD_SETTINGS)
@pytest.mark.parametrize("value", ["None", "none", "", " "])
def test_a_field_setting_of_none_on_the_command_line_switches_the_field_off(
    name: str, value: str
) -> None:
    settings = read_settings(cmdline(**{name: value}))
    attribute = name.removeprefix("CETD_").lower()
    assert getattr(settings, attribute) is None
    assert "None" not in settings.fields


def test_a_whole_number_may_be_written_as_a_float() -> None:
    read = read_settings(cmdline(CETD_MAX_BODY_SIZE="10e6", CETD_WORKERS="2.0"))
    assert (read.max_body_size, read.workers) == (10_000_000, 2)


def test_a_field_setting_keeps_a_real_field_name() -> None:
    assert read_settings(cmdline(CETD_HTML_FIELD="body_html")).html_field == "body_html"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"CETD_HTML_FIELD": "main_content_text"},
            "CETD_TEXT_FIELD and CETD_HTML_FIELD both name the item field 'main_content_text'",
        ),
        (
            {"CETD_SOURCE_FIELD": "raw", "CETD_TEXT_FIELD": "raw"},
            "CETD_TEXT_FIELD and CETD_SOURCE_FIELD both name the item field 'raw'",
        ),
        (
            {"CETD_METADATA_FIELDS": {"title": "main_content_text"}},
            "CETD_METADATA_FIELDS\\['title'\\] and CETD_TEXT_FIELD both name",
        ),
    ],
)
def test_two_settings_that_name_one_field_are_refused(
    settings: dict[str, Any], message: str
) -> None:
    """The pipeline would write one value over the other, or over the page it extracts."""
    with pytest.raises(ValueError, match=message):
        read_settings(Settings(settings))
    assert read_settings(Settings({"CETD_METADATA_FIELDS": True})).metadata_fields["title"] == (
        "title"
    )
    # the headline goes to the title field anyway: not two values
    headline = {"CETD_TITLE_FIELD": "title", "CETD_METADATA_FIELDS": True}
    assert read_settings(Settings(headline)).title_field == "title"


def test_string_options_are_converted_by_type_when_the_pipeline_starts() -> None:
    crawler = unit_crawler({"CETD_OPTIONS": {"include_comments": "no", "include_title": "yes"}})
    options = build_from_crawler(CETDPipeline, crawler).extractor.options()  # type: ignore[attr-defined]
    assert options["include_comments"] is False
    assert options["include_title"] is True


def test_an_option_of_the_wrong_type_stops_the_crawl_at_start_up() -> None:
    crawler = unit_crawler({"CETD_OPTIONS": {"threshold_coefficient": "high"}})
    with pytest.raises(ValueError, match=r"threshold_coefficient='high' is not a finite number"):
        build_from_crawler(CETDPipeline, crawler)


class _NoRequests(scrapy.Spider):
    name = "no_requests"

    async def start(self) -> Any:
        return
        yield


def test_cetd_enabled_false_is_one_info_line_not_warnings(
    caplog: pytest.LogCaptureFixture,
) -> None:
    crawler = make_crawler(
        _NoRequests, {"ADDONS": {"scrapy_cetd.Addon": 100}, "CETD_ENABLED": False}
    )
    with caplog.at_level(logging.DEBUG):
        crawl(crawler)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not [message for message in warnings if "CETD" in message or "cetd" in message]
    ours = [r for r in caplog.records if r.name.startswith("scrapy_cetd")]
    assert [(r.levelno, r.getMessage()) for r in ours] == [
        (logging.INFO, "scrapy-cetd is off (CETD_ENABLED is False)")
    ]


def test_a_misspelt_setting_name_is_warned_of_with_the_name_meant(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = {
        "ADDONS": {"scrapy_cetd.Addon": 100},
        "CETD_METADATA_FIELD": {"published": "date"},  # CETD_METADATA_FIELDS
        "cetd_overwrite": False,  # CETD_OVERWRITE
        "CETD_OVERWRITE": True,
    }
    with caplog.at_level(logging.DEBUG):
        crawl(make_crawler(_NoRequests, settings))
    ours = [r for r in caplog.records if r.name.startswith("scrapy_cetd")]
    assert [(r.levelno, r.getMessage()) for r in ours] == [
        (
            logging.WARNING,
            "scrapy-cetd: CETD_METADATA_FIELD is no setting of scrapy-cetd: ignored"
            " (did you mean CETD_METADATA_FIELDS?)",
        ),
        (
            logging.WARNING,
            "scrapy-cetd: cetd_overwrite is no setting of scrapy-cetd: ignored"
            " (did you mean CETD_OVERWRITE?)",
        ),
    ]


def test_metadata_fields_forms() -> None:
    every = read_settings(Settings({"CETD_METADATA_FIELDS": True})).metadata_fields
    assert every["published"] == "published" and every["authors"] == "authors"
    assert len(every) == 11
    assert read_settings(Settings()).metadata_fields == {}
    for off in (None, False, "None", "", "false"):
        assert read_settings(Settings({"CETD_METADATA_FIELDS": off})).metadata_fields == {}
    mapping = {"published": "date", "authors": "author"}
    assert read_settings(Settings({"CETD_METADATA_FIELDS": mapping})).metadata_fields == mapping
    assert read_settings(cmdline(CETD_METADATA_FIELDS='{"published": "date"}')).metadata_fields == {
        "published": "date"
    }
    assert read_settings(cmdline(CETD_METADATA_FIELDS="title,language")).metadata_fields == {
        "title": "title",
        "language": "language",
    }
    assert read_settings(cmdline(CETD_METADATA_FIELDS="True")).metadata_fields == every


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"publshed": "date"}, "'publshed' is no metadata name"),
        ({"published": ""}, "the field for 'published' must be a field name"),
        ({"published": 3}, "the field for 'published' must be a field name"),
        (42, "must be True, a list of metadata names or a dict"),
    ],
)
def test_metadata_fields_mistakes_stop_the_crawl_at_start_up(value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=f"CETD_METADATA_FIELDS.*{message}"):
        read_settings(Settings({"CETD_METADATA_FIELDS": value}))


def test_markdown_field_and_clean_html() -> None:
    settings = read_settings(cmdline(CETD_MARKDOWN_FIELD="markdown", CETD_CLEAN_HTML="true"))
    assert settings.markdown_field == "markdown" and settings.clean_html
    assert "markdown" in settings.fields[-2:]
    default = read_settings(Settings())
    assert default.markdown_field is None and not default.clean_html
    assert read_settings(cmdline(CETD_MARKDOWN_FIELD="None")).markdown_field is None


def test_workers_default_to_16_threads_or_a_process_per_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("scrapy_cetd.crawl.settings.usable_cores", lambda: 6)
    assert read_settings(Settings()).workers == 16
    assert read_settings(Settings({"CETD_ISOLATION": "process"})).workers == 6
    assert read_settings(Settings({"CETD_ISOLATION": "process", "CETD_WORKERS": None})).workers == 6
    monkeypatch.setattr("scrapy_cetd.crawl.settings.usable_cores", lambda: 1)
    assert read_settings(Settings({"CETD_ISOLATION": "process"})).workers == 2  # one slow page
    assert read_settings(cmdline(CETD_ISOLATION="process", CETD_WORKERS="5")).workers == 5
    for written in ("None", "none", "", " "):  # the default, as -s CETD_WORKERS=None writes it
        assert read_settings(cmdline(CETD_ISOLATION="process", CETD_WORKERS=written)).workers == 2
        assert read_settings(cmdline(CETD_WORKERS=written)).workers == 16
    assert read_settings(Settings({"CETD_WORKERS": 3})).workers == 3

"""What the pipeline writes into an item: which fields an item can hold, the values written
there, the values of the spider kept, and the fields cleared when there is no main content.

:class:`ItemFields` writes through :class:`~itemadapter.ItemAdapter`, so dicts,
:class:`scrapy.Item`, dataclass and attrs items all work: ``main_content_html`` /
``main_content_text`` / ``main_content_title`` / ``main_content_page_type`` (the
``CETD_*_FIELD`` settings), the Markdown, the page type's confidence and the metadata of
``CETD_METADATA_FIELDS``. A dict can hold every field; a declared item class gets the fields it
declares, and is told once of the content fields, the Markdown and confidence fields and the
metadata fields it lacks (a misspelt name shows there). With ``CETD_OVERWRITE`` off, a value
the spider gave a field (:func:`is_set`) is kept, on success and on failure alike.

Once an item is done, bytes in its ``CETD_SOURCE_FIELD`` become the text they decode to, so
that a JSON feed can export it; ``CETD_DROP_SOURCE`` removes the field instead.

Deciding what to extract from, running the extraction and reporting its outcome are the
pipeline's (:mod:`scrapy_cetd.crawl.pipeline`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, MutableMapping
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.http import TextResponse

from scrapy_cetd.page.decoding import html_response

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from scrapy_cetd.crawl.settings import CETDSettings
    from scrapy_cetd.result import ExtractionResult, Metadata, Reason

logger = logging.getLogger(__name__)


class NoContentError(Exception):
    """An item for which no main content could be written: ``stat`` is the stat to count,
    ``reason`` its short name, ``message`` the warning and, for ``stat == "empty"``, ``cause``
    the kind of emptiness (``cetd/item_empty_reason_count/<cause>``): the result's
    ``reason_code``. ``warn_key`` replaces the URL in the key the warning is given once for."""

    def __init__(
        self,
        stat: str,
        reason: str,
        message: str,
        *,
        warn_key: str | None = None,
        cause: Reason | None = None,
    ):
        super().__init__(message)
        self.stat = stat
        self.reason = reason
        self.message = message
        self.warn_key = warn_key
        self.cause = cause


class ItemFields:
    """Writes an extraction's result into items, by the crawl's ``CETD_*`` settings (see the
    module docstring), counting what it writes and keeps in the crawler's stats:
    ``cetd/field_kept_count/<field>``, ``cetd/metadata_count/<name>``,
    ``cetd/metadata_missing_count/<name>``, ``cetd/metadata_kept_count/<name>``,
    ``cetd/metadata_undeclared_count/<name>`` and ``cetd/field_undeclared_count/<field>``.

    ``first_time(key)`` says whether a message keyed ``key`` (an item class and what it
    lacks) is given for the first time: the pipeline's, so that one bounded set of keys serves
    every message given once.
    """

    def __init__(
        self,
        settings: CETDSettings,
        crawler: Crawler,
        *,
        first_time: Callable[[tuple[str, str]], bool],
    ) -> None:
        self.settings = settings
        self.crawler = crawler
        self._first_time = first_time

    def writable(self, adapter: ItemAdapter) -> tuple[str, ...]:
        """The fields of :attr:`CETDSettings.fields` this item can hold: every one for a dict,
        those its class declares for a declared item class, so that a class of the Markdown
        field and a headline alone, or of metadata alone, gets what it declares. Raises
        :class:`NoContentError` for a declared class with none of these fields and none of
        ``CETD_METADATA_FIELDS``'s; tells once per class, at INFO, of the HTML and text fields
        a class that gets others lacks, and warns of a field off by default that the settings
        name and the class lacks (a misspelt name shows there)."""
        settings = self.settings
        item_class = type(adapter.item)
        declared = ItemAdapter.get_field_names_from_class(item_class)
        if declared is None:
            return settings.fields
        writable = tuple(name for name in settings.fields if name in declared)
        if not (writable or self._metadata_targets(adapter)):
            every = settings.fields + tuple(settings.metadata_fields.values())
            raise NoContentError(
                "skipped",
                "missing_fields",
                f"{item_class.__name__} declares none of the fields scrapy-cetd writes"
                f" ({', '.join(every)}; see the CETD_*_FIELD settings and CETD_METADATA_FIELDS)",
                warn_key=item_class.__qualname__,
            )
        for chosen_by, name in settings.chosen_fields:
            if name not in declared:
                self._tell_undeclared(item_class, chosen_by, name)
        lacking = [name for name in settings.content_fields if name not in declared]
        if lacking and self._first_time((item_class.__qualname__, "content_fields")):
            setting = {
                settings.html_field: "CETD_HTML_FIELD",
                settings.text_field: "CETD_TEXT_FIELD",
            }
            logger.info(
                "scrapy-cetd: %s declares no field %s: it gets only the fields it declares"
                " (%s = None, if that is meant, says so)",
                item_class.__name__,
                ", ".join(lacking),
                " and ".join(setting[name] for name in lacking),
                extra={"crawler": self.crawler},
            )
        return writable

    def _tell_undeclared(self, item_class: type, setting: str, name: str) -> None:
        """Count in ``cetd/field_undeclared_count/<name>`` an item whose class lacks the field
        ``setting`` names (one of :attr:`CETDSettings.chosen_fields`), and warn of it once per
        class and field."""
        self.crawler.stats.inc_value(f"cetd/field_undeclared_count/{name}")
        if not self._first_time((item_class.__qualname__, f"field:{name}")):
            return
        logger.warning(
            "scrapy-cetd: %s declares no field %s for %s: not written (declare it, or set %s to"
            " a field it declares)",
            item_class.__name__,
            name,
            setting,
            setting,
            extra={"crawler": self.crawler},
        )

    def already_set(self, adapter: ItemAdapter, writable: tuple[str, ...]) -> bool:
        """Whether, with ``CETD_OVERWRITE`` off, the spider gave a value to every field the
        item can hold (``writable``, from :meth:`writable`, and the metadata fields): then
        there is nothing to extract for it."""
        targets = writable + self._metadata_targets(adapter)
        return not self.settings.overwrite and all(is_set(adapter, name) for name in targets)

    def write(
        self, adapter: ItemAdapter, writable: tuple[str, ...], result: ExtractionResult
    ) -> None:
        """Write ``result`` into the fields the item can hold (``writable``, from
        :meth:`writable`) and its metadata into the metadata fields. Without
        ``CETD_OVERWRITE`` a field the spider filled is kept (counted in
        ``cetd/field_kept_count/<field>``). Raises :class:`NoContentError` when the item
        refuses a value (a frozen dataclass)."""
        settings = self.settings
        values: dict[str | None, str | float | None] = {
            settings.html_field: result.html,
            settings.text_field: result.text,
            settings.title_field: result.title or "",
            settings.markdown_field: result.markdown or "",
            settings.page_type_field: result.page_type or "",
            settings.page_type_confidence_field: result.page_type_confidence,
        }
        try:
            for name in writable:
                if settings.overwrite or not is_set(adapter, name):
                    adapter[name] = values[name]
                else:
                    self.crawler.stats.inc_value(f"cetd/field_kept_count/{name}")
            self._write_metadata(adapter, result.metadata)
        except Exception as exc:
            raise NoContentError(
                "error", "error", f"cannot set the item's fields: {exc!r}"
            ) from exc

    def _metadata_targets(self, adapter: ItemAdapter) -> tuple[str, ...]:
        """The item fields of ``CETD_METADATA_FIELDS`` this item can hold (a declared item
        class gets those it declares)."""
        targets = tuple(self.settings.metadata_fields.values())
        declared = ItemAdapter.get_field_names_from_class(type(adapter.item))
        if declared is None:
            return targets
        return tuple(name for name in targets if name in declared)

    def _write_metadata(self, adapter: ItemAdapter, metadata: Metadata | None) -> None:
        """Write each metadata value the page gives into its field (a tuple as a list); a value
        the page does not give leaves the field as it is, and is counted in
        ``cetd/metadata_missing_count/<name>`` (a written one in
        ``cetd/metadata_count/<name>``, and one whose field a declared item class lacks in
        ``cetd/metadata_undeclared_count/<name>``: a misspelt field shows there). Without
        ``CETD_OVERWRITE`` a field the spider filled is kept, the page's value counted in
        ``cetd/metadata_kept_count/<name>``."""
        chosen = self.settings.metadata_fields
        if not chosen:
            return
        targets = set(self._metadata_targets(adapter))
        stats = self.crawler.stats
        for name, field_name in chosen.items():
            if field_name not in targets:
                stats.inc_value(f"cetd/metadata_undeclared_count/{name}")
                self._warn_undeclared(adapter, name, field_name)
                continue
            value = getattr(metadata, name) if metadata is not None else None
            if value is None or value == ():
                stats.inc_value(f"cetd/metadata_missing_count/{name}")
                continue
            if self.settings.overwrite or not is_set(adapter, field_name):
                adapter[field_name] = list(value) if isinstance(value, tuple) else value
                stats.inc_value(f"cetd/metadata_count/{name}")
            else:
                stats.inc_value(f"cetd/metadata_kept_count/{name}")

    def _warn_undeclared(self, adapter: ItemAdapter, name: str, field_name: str) -> None:
        """Warn once per item class and field that the class declares no field for a metadata
        value (a misspelt field name, as the content fields are warned of)."""
        item_class = type(adapter.item)
        if not self._first_time((item_class.__qualname__, f"metadata:{field_name}")):
            return
        logger.warning(
            "scrapy-cetd: %s declares no field %s for the metadata's %s: not written (declare"
            " it, or send %s to another field in CETD_METADATA_FIELDS)",
            item_class.__name__,
            field_name,
            name,
            name,
            extra={"crawler": self.crawler},
        )

    def clear(self, adapter: ItemAdapter) -> None:
        """Set the fields the item can hold to ``""`` (the confidence field, a number, to
        ``None``), sparing the spider's own values when ``CETD_OVERWRITE`` is off (counted in
        ``cetd/field_kept_count/<field>``)."""
        declared = ItemAdapter.get_field_names_from_class(type(adapter.item))
        confidence = self.settings.page_type_confidence_field
        for name in self.settings.fields:
            if declared is not None and name not in declared:
                continue
            if not self.settings.overwrite and is_set(adapter, name):
                self.crawler.stats.inc_value(f"cetd/field_kept_count/{name}")
                continue
            try:
                adapter[name] = None if name == confidence else ""
            except Exception:  # a frozen item: leave it as it is
                logger.debug("scrapy-cetd: cannot clear %s", name, exc_info=True)

    def settle_source(self, adapter: ItemAdapter, url: str | None, decoded: list[Response]) -> None:
        """The source field once the item is done with: removed with ``CETD_DROP_SOURCE``
        (set to ``None`` in an item class whose fields cannot be deleted), else bytes there
        become the text they decode to, so that a JSON, JSON Lines or XML feed can export the
        item. The text is the one of the response extracted from the field, or of the linked
        response when the field holds its body (decoded already), else decoded here, as the
        extraction would have."""
        field = self.settings.source_field
        if field is None or field not in adapter:
            return
        value = adapter[field]
        try:
            if self.settings.drop_source:
                if isinstance(adapter.item, MutableMapping):
                    del adapter[field]
                else:
                    adapter[field] = None
            elif isinstance(value, bytes | bytearray):
                adapter[field] = _text_of(bytes(value), decoded, url)
        except Exception:  # a frozen item: it goes on as it is
            logger.debug("scrapy-cetd: cannot change %s", field, exc_info=True)


def is_set(adapter: ItemAdapter, name: str) -> bool:
    """Whether the spider gave the field a value. ``None``, ``""`` and an empty collection
    (``[]``, ``()``, ``{}``, an empty set: what ``field(default_factory=list)`` gives a
    dataclass item) are no value; a number is one, ``0`` and ``0.0`` included, since the
    pipeline cannot tell a default from a reading (a number field the pipeline should fill
    defaults to ``None``)."""
    value = adapter.get(name)
    if value is None:
        return False
    return not isinstance(value, Collection) or len(value) > 0


def item_url(item: Any) -> str | None:
    """The item's own ``url`` field, for messages when no response is linked."""
    try:
        value = ItemAdapter(item).get("url")
    except TypeError:
        return None
    return value if isinstance(value, str) else None


def _text_of(body: bytes, decoded: list[Response], url: str | None) -> str:
    """``body`` as text: the text of a response in ``decoded`` with this body (decoded once
    already, by Scrapy's rules or by :func:`html_response`'s), else decoded by
    :func:`html_response`'s rules."""
    for response in decoded:
        if isinstance(response, TextResponse) and response.body == body:
            try:
                return response.text
            except LookupError:  # a charset label that names no text encoding
                break
    return html_response(body, url=url).text

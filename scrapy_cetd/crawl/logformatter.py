"""The item log lines, with long fields shortened: what keeps a crawl's log readable.

Scrapy logs every scraped item in full (``Scraped from <200 url>`` and the item, at DEBUG, the
default ``LOG_LEVEL``). With the main content of its page in ``main_content_html`` and
``main_content_text`` each item is thousands of characters, and the log grows with it: a crawl
of the bundled example site logs 44 times as much with the add-on as without it when the items
are logged in full, 1.8 times as much with this formatter (``tests/crawl/test_logformatter.py``).
:class:`CETDLogFormatter` logs the same lines with every text or bytes field
longer than ``CETD_LOG_FIELD_LENGTH`` characters cut there and followed by how much was left
out. Only the log line changes: the item, its export and its pipelines see the whole values.

The add-on sets ``LOG_FORMATTER`` to this class at the add-on's settings priority, below the
project's, so a ``LOG_FORMATTER`` of the user's own (in ``settings.py``, a spider's
``custom_settings`` or ``-s``) stays in place. ``CETD_LOG_FIELD_LENGTH = None`` logs the items
in full again.
"""

from __future__ import annotations

import dataclasses
from pprint import pformat
from typing import TYPE_CHECKING, Any

import scrapy
from itemadapter import ItemAdapter
from scrapy.logformatter import LogFormatter

from scrapy_cetd.crawl.settings import read_settings

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.logformatter import LogFormatterResult
    from twisted.python.failure import Failure


@dataclasses.dataclass(frozen=True)
class _Cut:
    """A text or bytes value cut to its first characters, shown with what was left out."""

    head: str | bytes
    left_out: int

    def __repr__(self) -> str:
        unit = "bytes" if isinstance(self.head, bytes) else "characters"
        return f"{self.head!r}... [{self.left_out:,} more {unit}]"


class _ShortItem:
    """An item as its log line shows it, its long fields cut: a dict or a ``scrapy.Item``
    prints as Scrapy prints it, any other item as ``ClassName(field=value, ...)``."""

    def __init__(self, item: Any, fields: dict[str, Any]) -> None:
        self._item = item
        self._fields = fields

    def __str__(self) -> str:
        if isinstance(self._item, dict):
            return repr(self._fields)
        if isinstance(self._item, scrapy.Item):
            return pformat(self._fields)
        shown = ", ".join(f"{name}={value!r}" for name, value in self._fields.items())
        return f"{type(self._item).__name__}({shown})"

    __repr__ = __str__


def shorten(item: Any, length: int | None) -> Any:
    """What the log line shows for ``item``: the item itself when no text or bytes field is
    longer than ``length`` (or ``length`` is ``None``, or it is no item), else a view of it
    with those fields cut to ``length``. The item is never modified."""
    if length is None:
        return item
    try:
        adapter = ItemAdapter(item)
    except TypeError:
        return item
    fields = dict(adapter.items())
    long = [
        name
        for name, value in fields.items()
        if isinstance(value, str | bytes) and len(value) > length
    ]
    if not long:
        return item
    for name in long:
        value = fields[name]
        fields[name] = _Cut(value[:length], len(value) - length)
    return _ShortItem(item, fields)


class CETDLogFormatter(LogFormatter):
    """Scrapy's log formatter, with the items of the ``Scraped from``, ``Dropped`` and
    ``Error processing`` lines shown by :func:`shorten` (see the module docstring)."""

    def __init__(self, field_length: int | None = None) -> None:
        self.field_length = field_length

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CETDLogFormatter:
        """The formatter of the crawler's ``CETD_LOG_FIELD_LENGTH``."""
        return cls(read_settings(crawler.settings).log_field_length)

    def _short(self, result: LogFormatterResult) -> LogFormatterResult:
        args = result.get("args")
        if isinstance(args, dict) and "item" in args:
            result["args"] = {**args, "item": shorten(args["item"], self.field_length)}
        return result

    def scraped(
        self, item: Any, response: Response | Failure | None, spider: Spider
    ) -> LogFormatterResult:
        """The ``Scraped from`` line, long fields cut."""
        return self._short(super().scraped(item, response, spider))

    def dropped(
        self,
        item: Any,
        exception: BaseException,
        response: Response | Failure | None,
        spider: Spider,
    ) -> LogFormatterResult:
        """The ``Dropped`` line, long fields cut."""
        return self._short(super().dropped(item, exception, response, spider))

    def item_error(
        self,
        item: Any,
        exception: BaseException,
        response: Response | Failure | None,
        spider: Spider,
    ) -> LogFormatterResult:
        """The ``Error processing`` line, long fields cut."""
        return self._short(super().item_error(item, exception, response, spider))

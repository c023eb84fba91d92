"""The value every extractor returns."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExtractionResult:
    """The main content of one page.

    An empty result is a valid result: ``text`` and ``html`` are then empty strings and
    ``reason`` says why (``"empty body"``, ``"frameset page"``, ...). A result with content has
    ``reason`` set to ``None``. Results hold only strings, so they pickle and cross process
    boundaries (scrapy-redis, Spark, Dask) freely.
    """

    text: str
    """Main content as plain text, one block (paragraph, heading, list item, row) per line."""
    html: str
    """Main content as an HTML fragment that keeps its structure (a ``<body>`` element)."""
    algorithm: str
    """Registered name of the algorithm that produced the result."""
    reason: str | None = None
    """Why the result is empty; ``None`` when content was found."""
    title: str | None = None
    """The page's headline, when the algorithm recovers one."""

    def __bool__(self) -> bool:
        return bool(self.text)

    @classmethod
    def empty(cls, algorithm: str, reason: str) -> ExtractionResult:
        """An empty result that says why nothing was extracted."""
        return cls(text="", html="", algorithm=algorithm, reason=reason)

"""What every extractor shares: finding the body, the visible view, rendering, empty results."""

from __future__ import annotations

import abc
import inspect
from collections.abc import Sequence
from typing import Any, ClassVar

from lxml import etree

from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.dom import DomView, build_view, require_element, viewed_body
from scrapy_cetd.page.output import Keep, render
from scrapy_cetd.result import EmptyReason, ExtractionResult, Reason

FRAMESET = EmptyReason("frameset page", Reason.FRAMESET)
"""Why a frameset page has no view: its content lives in other documents."""

NO_TEXT = EmptyReason("no visible text", Reason.NO_VISIBLE_TEXT)
"""Why a view without visible text has no selection."""

NO_TEXT_SELECTED = EmptyReason("no text in the selected content", Reason.NO_CONTENT)
"""Why a selection that holds no text gives an empty result."""


class Extractor(abc.ABC):
    """A main-content extractor: options in the constructor, one page per :meth:`extract` call.

    Instances hold only their options, so one instance may serve many threads at once and
    pickles for distributed engines. A subclass sets :attr:`name` and implements
    :meth:`select`, which says why it keeps nothing with an
    :class:`~scrapy_cetd.result.EmptyReason` (a sentence and a
    :class:`~scrapy_cetd.result.Reason`); a user's own extractor for the Scrapy pipeline only
    needs the same ``extract(tree, *, url=None) -> ExtractionResult`` method.
    """

    name: ClassVar[str] = ""

    def __init__(self, *, remove_hidden: bool = True) -> None:
        """``remove_hidden``: drop elements hidden by their own markup (``hidden``, a
        ``<dialog>`` without ``open``, ``input[type=hidden]``, inline ``display:none``) before
        scoring, as the CETD paper recommends for hidden disclaimers (§5.4, §6.1;
        ``docs/algorithms.md`` §0.2)."""
        self.remove_hidden = remove_hidden

    def __repr__(self) -> str:
        options = ", ".join(f"{key}={value!r}" for key, value in self.options().items())
        return f"{type(self).__name__}({options})"

    def options(self) -> dict[str, Any]:
        """The constructor options of this instance, by name."""
        names = inspect.signature(type(self)).parameters
        return {name: getattr(self, name) for name in names}

    def extract(self, tree: etree._Element, *, url: str | None = None) -> ExtractionResult:
        """Extract the main content below ``tree``'s ``<body>``; ``tree`` is left unchanged.

        ``tree`` is a document root (``<html>``) or any element taken as the root of a
        fragment. ``url`` is for messages and for algorithms that resolve links. Between its
        steps the extraction checks the time budget of :mod:`scrapy_cetd.limits`, if one is
        running. Raises :class:`ValueError` when ``tree`` is no element (a comment...).
        """
        require_element(tree)
        return self.extract_view(self.view(tree))

    def extract_view(self, view: DomView | EmptyReason) -> ExtractionResult:
        """The result of selecting and rendering ``view`` (:meth:`view`'s answer): the second
        half of :meth:`extract`, for a subclass that builds its view with more than the tree."""
        if isinstance(view, EmptyReason):
            return view.result(self.name)
        selection = self.select(view)
        if isinstance(selection, EmptyReason):
            return selection.result(self.name)
        check_deadline("after selecting the content")
        html, text = render(view, selection)
        check_deadline("after rendering the content")
        if not text:
            return NO_TEXT_SELECTED.result(self.name)
        return ExtractionResult(text=text, html=html, algorithm=self.name)

    def view(self, tree: etree._Element) -> DomView | EmptyReason:
        """The visible view of ``tree``'s body (:func:`~scrapy_cetd.page.dom.viewed_body`, maybe in
        a repaired copy of the document), or why there is none (a frameset page). The time
        budget is checked before and after the view is built."""
        check_deadline("before building the view")
        body = viewed_body(tree)
        if body is None:
            return FRAMESET
        view = build_view(body, remove_hidden=self.remove_hidden)
        check_deadline("after building the view")
        return view

    @abc.abstractmethod
    def select(self, view: DomView) -> Sequence[Keep] | EmptyReason:
        """What to keep of each element of ``view``, or why nothing is kept."""

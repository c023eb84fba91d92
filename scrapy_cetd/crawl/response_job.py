"""The job of one response, whichever worker runs it (a worker thread,
:mod:`scrapy_cetd.crawl.threads`, or a worker process, :mod:`scrapy_cetd.crawl.isolation`):
check that the body is a document, refuse markup the parser would choke on
(:mod:`scrapy_cetd.guard`), parse, then extract within the limits, the budget counted from the
response's arrival.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_cetd.api import CompletingExtractor, response_content_language
from scrapy_cetd.limits import LimitExceededError, Limits, TreeExtractor, check_deadline, deadline
from scrapy_cetd.page.decoding import readable_response
from scrapy_cetd.page.dom import count_elements
from scrapy_cetd.page.parse import NotADocumentError, document_problem, markup_reason, selector_root

if TYPE_CHECKING:
    from scrapy.http import TextResponse

    from scrapy_cetd.result import ExtractionResult


def extract_response(
    extractor: TreeExtractor,
    limits: Limits,
    response: TextResponse,
    *,
    url: str | None,
    start: float | None,
    cached: bool = True,
) -> ExtractionResult:
    """The main content of ``response`` within ``limits``, the budget counted from ``start``
    (a :func:`time.monotonic` time; now when ``None``). ``cached=False`` for a response rebuilt
    only for this job: its tree is then not stored on it (see
    :func:`~scrapy_cetd.page.parse.selector_root`).

    A job begun after its deadline returns at once, without parsing, and one whose parse ends
    after the deadline without extracting. Raises
    :class:`~scrapy_cetd.page.parse.NotADocumentError` for a body that is not a document. The tree
    is the response's own ``response.selector`` (parsed here when the spider has not parsed it
    yet), so a spider and this job share one parse; except when the response's charset label
    names no text encoding, which is ignored as a browser ignores it
    (:func:`~scrapy_cetd.page.decoding.readable_response`): then a copy decoded that way is
    parsed. A :class:`~scrapy_cetd.api.CompletingExtractor` is given the response's
    ``Content-Language`` header, as :func:`scrapy_cetd.extract` gives it for a response.
    """
    name = str(getattr(extractor, "name", "") or type(extractor).__name__)
    with deadline(limits.time_budget, start=start):
        try:
            check_deadline("before the job began")
            response = readable_response(response)
            problem = document_problem(response.body, response.text)
            if problem is not None:
                raise NotADocumentError(f"not an HTML document: {problem}")
            refused = markup_reason(response.text, limits.max_attributes)
            if refused is not None:
                return refused.result(name)
            tree = selector_root(response, cached=cached)
            check_deadline("after parsing")
        except LimitExceededError as exc:
            return exc.reason().result(name)
    elements = None if limits.max_nodes is None else count_elements(tree)
    if isinstance(extractor, CompletingExtractor):  # its metadata reads the header's language
        extractor = extractor.served_in(response_content_language(response))
    return limits.extract(extractor, tree, url=url, start=start, elements=elements)

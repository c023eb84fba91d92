"""The entry points :func:`extract` (one page in, its main content out, within the limits) and
:func:`classify_page_type`.

The algorithms and :func:`~scrapy_cetd.extractors.registry.get_extractor` are in
:mod:`scrapy_cetd.extractors.registry`.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, replace
from typing import Any

from lxml import etree
from parsel import Selector
from scrapy.http import Response, TextResponse

from scrapy_cetd.extractors.registry import DEFAULT_ALGORITHM, build_extractor
from scrapy_cetd.guard import DEFAULT_MAX_ATTRIBUTES
from scrapy_cetd.limits import (
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_MAX_NODES,
    LimitExceededError,
    Limits,
    TreeExtractor,
    check_deadline,
    deadline,
)
from scrapy_cetd.page.decoding import (
    BLANK_URL,
    decoding_notes,
    html_response,
    readable_response_notes,
    undecodable_note,
    utf8_page,
)
from scrapy_cetd.page.dom import count_elements, require_element
from scrapy_cetd.page.finish import document_base, finish_html, is_absolute_url
from scrapy_cetd.page.metadata import load_metadata_libraries, read_metadata
from scrapy_cetd.page.output import text_only
from scrapy_cetd.page.page_types import PageType, classify_tree
from scrapy_cetd.page.parse import (
    NotADocumentError,
    Source,
    document_problem,
    markup_reason,
    page_tree,
    selector_root,
)
from scrapy_cetd.result import (
    EmptyReason,
    ExtractionResult,
    Metadata,
    NoteKind,
    Reason,
    sanitize,
)

URL_META_KEY = "cetd_url"
"""``Request.meta`` key: the page's own URL, when the response's is another (a page fetched
from a mirror, a cache or a test server). :func:`extract` given the response and the crawl's
pipeline read the page as that URL's."""

Page = Source | bytearray | memoryview | etree._ElementTree | Selector | TextResponse
"""What :func:`extract` takes: a :data:`~scrapy_cetd.page.parse.Source` (``str``, ``bytes``,
an lxml element), or the same page as a crawl or lxml hands it over: other bytes-like
objects, a tree (``lxml.html.parse()``), a parsel or Scrapy ``Selector``, a Scrapy
response."""


@dataclass(frozen=True)
class Outputs:
    """What a result holds besides the text (each costs nothing when not asked for).

    The links and images of the HTML are always made absolute against the page's URL and its
    ``<base href>`` (when there is a URL to resolve them against)."""

    html: bool = True
    """Fill :attr:`~scrapy_cetd.result.ExtractionResult.html`; without it the HTML is left
    ``""``, and neither written (:func:`~scrapy_cetd.page.output.text_only`) nor finished,
    unless the Markdown needs it (the text is the same)."""
    metadata: bool = False
    """Fill :attr:`~scrapy_cetd.result.ExtractionResult.metadata`."""
    markdown: bool = False
    """Fill :attr:`~scrapy_cetd.result.ExtractionResult.markdown`."""
    clean_html: bool = False
    """Keep only the semantic attributes in the HTML
    (:data:`~scrapy_cetd.page.finish.SEMANTIC_ATTRIBUTES`)."""

    def __post_init__(self) -> None:
        for name in ("html", "metadata", "markdown", "clean_html"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be True or False, not {value!r:.80}")
        if self.clean_html and not self.html:
            raise ValueError("clean_html=True cleans the HTML, and html=False asks for none")


class CompletingExtractor:
    """An extractor whose results get their :class:`Outputs`: the extractor runs, then the
    page's metadata is read and the HTML finished (absolute links, the clean mode) and written
    as Markdown, within the time budget that is running. When the budget runs out during
    that, the extractor's own result is returned (relative links, no metadata, no Markdown).

    Holds only the extractor, the outputs and the HTTP ``Content-Language`` header of the
    page it is made for, if any (a language for the metadata, see
    :func:`~scrapy_cetd.page.metadata.read_metadata`), so it is picklable and thread-safe when
    the extractor is."""

    def __init__(
        self, extractor: TreeExtractor, outputs: Outputs, *, content_language: str | None = None
    ) -> None:
        self.extractor = extractor
        self.outputs = outputs
        self.content_language = content_language
        self.name = str(getattr(extractor, "name", "") or type(extractor).__name__)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.extractor!r}, {self.outputs!r})"

    def served_in(self, content_language: str | None) -> CompletingExtractor:
        """This extractor for a page served with the ``Content-Language`` header
        ``content_language``, or without one (``None``): itself when that is the header it
        was made for."""
        if content_language == self.content_language:
            return self
        return CompletingExtractor(self.extractor, self.outputs, content_language=content_language)

    def prepare(self) -> None:
        """Load now what the outputs need (the metadata's libraries and model, 3 to 4.5 s of
        CPU time, several times that in wall time on a loaded machine), rather than in the
        first page's time budget."""
        if self.outputs.metadata:
            load_metadata_libraries()

    def extract(self, tree: etree._Element, *, url: str | None = None) -> ExtractionResult:
        """``extractor.extract(tree, url=url)`` with the outputs added."""
        outputs = self.outputs
        if outputs.html or outputs.markdown:
            result = self.extractor.extract(tree, url=url)
        else:  # nothing reads the HTML: not written, and dropped if an extractor writes its own
            with text_only():
                result = self.extractor.extract(tree, url=url)
        if not isinstance(result, ExtractionResult):
            return result  # Limits.extract names the mistake
        if not (outputs.html or outputs.markdown):
            result = replace(result, html="")
        result = sanitize(result)
        base_url = document_base(tree, url)
        url_notes = _url_notes(outputs, url, base_url)
        try:
            found: Metadata | None = None
            cut_short: tuple[str, ...] = ()
            if outputs.metadata:
                found, cut_short = read_metadata(
                    tree,
                    url=url,
                    text=result.text,
                    page_type=result.page_type,
                    content_language=self.content_language,
                )
                check_deadline("after reading the metadata")  # htmldate's search never stops
            finished = finish_html(
                result.html,
                base_url=base_url,
                clean=outputs.clean_html,
                markdown=outputs.markdown,
            )
        except LimitExceededError as error:
            given_up = _given_up(outputs, absolute=bool(result.html and base_url))
            note: tuple[str, ...] = ()
            if given_up:
                note = (NoteKind.OUTPUTS_GIVEN_UP.note(f"{_listed(given_up)}: {error}"),)
            html = result.html if outputs.html else ""
            return replace(result, html=html, notes=result.notes + note)
        return replace(
            result,
            html=finished.html if outputs.html else "",
            metadata=found,
            markdown=finished.markdown,
            title=found.title if found is not None and found.title else result.title,
            notes=result.notes + url_notes + cut_short + finished.notes,
        )


def _url_notes(outputs: Outputs, url: str | None, base_url: str | None) -> tuple[str, ...]:
    """A :attr:`~scrapy_cetd.result.NoteKind.URL_NOT_ABSOLUTE` note when the page was given a
    ``url`` that is no absolute URL (a mistyped ``example.com/page``), no ``<base href>``
    gave the links one (``base_url``) and ``outputs`` write links (the HTML, the Markdown, the
    metadata's canonical URL and image): they stay relative, and the caller should know why."""
    writes_links = outputs.html or outputs.markdown or outputs.metadata
    if not (url and url.strip()) or url == BLANK_URL or not writes_links:
        return ()  # BLANK_URL: the address of a response built for a page given without one
    if base_url is not None or is_absolute_url(url):
        return ()
    return (NoteKind.URL_NOT_ABSOLUTE.note(f"{url:.80}"),)


def _given_up(outputs: Outputs, *, absolute: bool) -> list[str]:
    """What a result lacks that ``outputs`` asked for, when the budget ran out before they
    were written: the metadata, the Markdown, the clean HTML, the absolute links of the HTML
    (``absolute``: there was a URL to resolve them against)."""
    wanted = {
        "metadata": outputs.metadata,
        "markdown": outputs.markdown,
        "clean html": outputs.html and outputs.clean_html,
        "absolute links": outputs.html and absolute,
    }
    return [name for name, asked in wanted.items() if asked]


def _listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[-1] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def build_completing(
    algorithm: str, options: dict[str, Any], *, outputs: Outputs
) -> CompletingExtractor:
    """:func:`~scrapy_cetd.extractors.registry.build_extractor` with the ``outputs``: what a
    worker process builds its extractor with, before it takes a page (the libraries metadata
    needs are loaded then)."""
    completing = CompletingExtractor(build_extractor(algorithm, options), outputs)
    completing.prepare()
    return completing


def extract(
    source: Page,
    *,
    algorithm: str = DEFAULT_ALGORITHM,
    url: str | None = None,
    encoding: str | None = None,
    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    time_budget: float | None = None,
    max_attributes: int | None = DEFAULT_MAX_ATTRIBUTES,
    html: bool = True,
    metadata: bool = False,
    markdown: bool = False,
    clean_html: bool = False,
    **options: Any,
) -> ExtractionResult:
    """The main content of one page.

    ``source`` is the page as ``str``, as ``bytes`` (decoded as Scrapy decodes a response;
    ``encoding`` stands for the HTTP header's charset) or as a parsed lxml tree, which is used
    as it is and never modified; or as a crawl or lxml hands it over (:data:`Page`): a Scrapy
    response, whose own parse (the tree behind ``response.css()``) is shared, read as the page
    of its request's ``cetd_url`` meta value when there is one, as a crawl reads it, else of
    its URL, unless ``url`` is given (:func:`response_page_url`; decoded as Scrapy decoded it:
    ``encoding`` plays no part); a parsel or Scrapy ``Selector`` (its tree); an lxml
    ``ElementTree`` (its root); a ``bytearray`` or ``memoryview`` (as ``bytes``).
    ``algorithm`` is a registered name (:data:`ALGORITHMS`) or the import path of an extractor
    class; ``options`` go to its constructor.

    The limits (:mod:`scrapy_cetd.limits`; ``None`` switches one off): ``max_body_size``
    bytes of ``str`` or ``bytes`` input or of a response's body, ``max_attributes``
    attributes on one tag (checked in the text before it is parsed, see
    :mod:`scrapy_cetd.guard`), ``max_nodes`` elements in the parsed tree and ``time_budget``
    seconds from this call (decoding and parsing included), checked between and inside the
    extractor's steps in whatever thread calls this. Damage
    that leaves an HTML document (broken encodings, NUL and control characters, lone
    surrogates, no ``<body>``) is repaired and the content extracted. An empty result carries
    its ``reason``: a limit that was hit (named), nothing visible, a frameset page. A charset
    label that names no text encoding is ignored, as a browser ignores it, and noted in the
    result's ``notes``. Input that is not a document at all (empty, whitespace only, JSON, a
    PDF, an image, binary data) raises :class:`NotADocumentError`, a :class:`ValueError`.

    With ``metadata=True`` the result's ``metadata`` holds the page's headline, authors, dates,
    language and site (:func:`~scrapy_cetd.page.metadata.page_metadata`, its language
    identified from the extracted text; a response's ``Content-Language`` header declares it
    when the page's markup does not), read within what is left of ``time_budget``; it stays
    ``None`` when a limit refused the page or the budget ran out, and its ``published`` date
    is ``None`` with a ``date-search-cut-short`` note when the budget left was too short to
    search the page for it. Without it nothing is read. The first such call of a process
    loads the libraries the metadata needs before its budget starts (3 to 4.5 s of CPU
    time): :func:`load_metadata_libraries` loads them beforehand.
    With ``markdown=True`` the result's ``markdown`` holds the main content as Markdown
    (:mod:`scrapy_cetd.page.markdown`), under the same conditions. The links and images of
    ``html`` (and of the Markdown) are absolute against ``url`` and the page's ``<base href>``;
    ``clean_html=True`` keeps only the attributes that carry meaning (``href``, ``src``,
    ``alt``, ``colspan``, ``lang``...; no ``class``, ``style``, ``id`` or ``data-*``). With
    ``html=False`` the result's ``html`` is ``""``, and the HTML is neither written nor
    finished: for a text-only corpus, which would throw it away (``clean_html=True`` then
    raises :class:`ValueError`; ``markdown=True`` still writes the Markdown). The text is the
    same whatever these options.
    """
    extractor = CompletingExtractor(
        build_extractor(algorithm, options),
        Outputs(html=html, metadata=metadata, markdown=markdown, clean_html=clean_html),
    )
    limits = Limits(
        max_body_size=max_body_size,
        max_nodes=max_nodes,
        time_budget=time_budget,
        max_attributes=max_attributes,
    )
    return extract_with(extractor, limits, source, url=url, encoding=encoding)


def extract_with(
    extractor: CompletingExtractor,
    limits: Limits,
    source: Page,
    *,
    url: str | None = None,
    encoding: str | None = None,
    start: float | None = None,
) -> ExtractionResult:
    """:func:`extract` with its extractor and limits built beforehand, for a caller that
    extracts many pages with the same options (a corpus step): the same result. The time
    budget counts from ``start``, a :func:`time.monotonic` time (by default, from this call).
    The page is read by :func:`read_page`. What the outputs need is loaded before the budget
    starts (:meth:`CompletingExtractor.prepare`, once per process): the first page of a
    process asking for metadata would otherwise spend its budget on loading libraries."""
    if start is None:
        with contextlib.suppress(Exception):  # a library that fails to load fails where used
            extractor.prepare()
        start = time.monotonic()
    read = read_page(source, limits, url=url, encoding=encoding)
    if isinstance(read, EmptyReason):
        return read.result(extractor.name)
    result = limits.extract(
        extractor.served_in(read.content_language),
        read.tree,
        url=read.url,
        start=start,
        elements=read.elements,
    )
    return replace(result, notes=result.notes + read.notes) if read.notes else result


@dataclass(frozen=True)
class ReadPage:
    """A page as :func:`read_page` gives it to an extractor or the classifier."""

    tree: etree._Element
    """Its parse (shared with a Scrapy response's selector, or the caller's own tree)."""
    url: str | None
    """Its URL: the one given, else a response's (:func:`response_page_url`)."""
    notes: tuple[str, ...]
    """What decoding repaired (its :class:`~scrapy_cetd.result.NoteKind` notes)."""
    elements: int | None
    """Its number of elements, when ``max_nodes`` asks for it."""
    content_language: str | None
    """A response's HTTP ``Content-Language`` header, when it has one."""


def read_page(
    source: Page, limits: Limits, *, url: str | None = None, encoding: str | None = None
) -> ReadPage | EmptyReason:
    """``source`` parsed (or taken as it is) within the limits checked before the extraction
    (``max_body_size``, ``max_attributes``), with its element count for ``max_nodes``; the
    reason it is refused; :class:`ValueError` when it is no document, :class:`TypeError` when
    it is no page at all.

    A ``str`` page is read without the Scrapy response that a ``bytes`` page is given
    (:func:`~scrapy_cetd.page.decoding.utf8_page`, :func:`~scrapy_cetd.page.parse.page_tree`): it
    is encoded once, and parsed from those bytes, into the same tree."""
    for parameter, value in (("url", url), ("encoding", encoding)):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{parameter} must be a string or None, not {value!r:.80}")
    notes: tuple[str, ...] = ()  # what decoding repaired
    if isinstance(source, bytearray | memoryview):
        source = bytes(source)
    elif isinstance(source, etree._ElementTree):
        root = source.getroot()
        if root is None:
            raise ValueError("source is an empty ElementTree: it holds no document")
        source = root
    elif isinstance(source, Selector):
        if not isinstance(source.root, etree._Element):
            raise ValueError(f"source is a selector of {source.root!r:.40}, not of an element")
        source = source.root
    response: TextResponse | None = None
    content_language = None
    if isinstance(source, TextResponse):
        url = response_page_url(source) if url is None else url
        content_language = response_content_language(source)
        response, notes = readable_response_notes(source)
        shared = response is source  # the spider's own parse; a copy's is not cached on it
    elif isinstance(source, bytes):
        response = html_response(source, url=url, encoding=encoding)
        notes = decoding_notes(source, encoding, read_as=response.encoding)
        shared = False
    elif isinstance(source, etree._Element):
        require_element(source)
        tree = source
    elif isinstance(source, str):
        body, text = utf8_page(source)
        refused = limits.size_reason(len(body)) or markup_reason(text, limits.max_attributes)
        if refused is not None:
            return refused
        tree = page_tree(body, text, url)
        del body, text  # the tree holds the page from here on
    else:
        raise TypeError(
            "source must be str, bytes, an lxml element or tree, a Selector or a Scrapy "
            f"TextResponse, not {type(source).__name__}"
        )
    if response is not None:
        refused = limits.size_reason(len(response.body)) or markup_reason(
            response.text, limits.max_attributes
        )
        if refused is not None:
            return refused
        notes += _undecodable(response)
        tree = _response_root(response, cached=shared)
        del response  # its body and decoded text: the tree holds the page from here on
    elements = None if limits.max_nodes is None else count_elements(tree)
    return ReadPage(tree, url, notes, elements, content_language)


def requested_url(response: Response) -> object:
    """What the :data:`URL_META_KEY` meta key of ``response``'s request holds, ``None`` when
    it is not set or the response has no request (a response built by hand, whose
    ``response.meta`` raises :class:`AttributeError`)."""
    request = response.request
    return None if request is None else request.meta.get(URL_META_KEY)


def response_page_url(response: TextResponse) -> str:
    """The URL ``response``'s page is read as: its request's :data:`URL_META_KEY` meta value
    (the page's own address, when it was fetched from another), else ``response.url``; an
    empty string counts as no value. Any other type raises :class:`ValueError` naming the key
    and the type (the crawl's pipeline warns instead, and the item goes on)."""
    named = requested_url(response)
    if named is not None and not isinstance(named, str):
        raise ValueError(
            f"response.meta[{URL_META_KEY!r}] must be a string (the page's URL), not "
            f"{type(named).__name__} {named!r:.80}"
        )
    return named or response.url


def response_content_language(response: TextResponse) -> str | None:
    """``response``'s ``Content-Language`` header, ``None`` when it has none: the language a
    server declares for the page, which the metadata reads after the page's own markup. Header
    lines sent more than once are one list, in their order (``de`` then ``en``: ``de, en``),
    whose first tag counts, as of one line's list."""
    lines = [line for line in response.headers.getlist(b"Content-Language") if line.strip()]
    return b", ".join(lines).decode("latin-1") if lines else None


def _undecodable(response: TextResponse) -> tuple[str, ...]:
    """The note of :func:`~scrapy_cetd.page.decoding.undecodable_note`, if any."""
    note = undecodable_note(response)
    return () if note is None else (note,)


def _response_root(response: TextResponse, *, cached: bool) -> etree._Element:
    """The tree behind ``response.css()``, once its body is known to be a document
    (:func:`~scrapy_cetd.page.parse.document_problem`): the spider's own parse, shared, with
    ``cached``; else parsed without caching it on the response, whose body and text would
    stay alive with it until the garbage collector runs
    (:func:`~scrapy_cetd.page.parse.response_tree`)."""
    problem = document_problem(response.body, response.text)
    if problem is not None:
        raise NotADocumentError(f"not an HTML document: {problem}")
    return selector_root(response, cached=cached)


def classify_page_type(
    source: Page,
    url: str | None = None,
    *,
    encoding: str | None = None,
    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    time_budget: float | None = None,
    max_attributes: int | None = DEFAULT_MAX_ATTRIBUTES,
) -> PageType:
    """The type of a page given as :func:`extract` takes it (``str``, ``bytes`` decoded as
    Scrapy decodes a response, with ``encoding`` standing for the HTTP header's charset, an
    lxml element or tree, a ``Selector``, a Scrapy response), within the same limits.

    ``url`` adds the signals of its path and host (when not given, a response's page URL as
    :func:`extract` reads it: its request's ``cetd_url`` meta value, else its own URL).
    Input that is not a document raises :class:`ValueError`, as :func:`extract` does; so does
    a page a limit refuses, naming the limit.
    """
    start = time.monotonic()
    limits = Limits(
        max_body_size=max_body_size,
        max_nodes=max_nodes,
        time_budget=time_budget,
        max_attributes=max_attributes,
    )
    read = read_page(source, limits, url=url, encoding=encoding)
    if isinstance(read, EmptyReason):
        raise ValueError(f"page not classified: {read.sentence}")
    if read.elements is not None and max_nodes is not None and read.elements > max_nodes:
        detail = f"{read.elements:,} elements, more than {max_nodes:,}"
        raise ValueError(f"page not classified: {LimitExceededError(Reason.MAX_NODES, detail)}")
    try:
        with deadline(time_budget, start=start):
            return classify_tree(read.tree, read.url)
    except LimitExceededError as error:
        raise ValueError(f"page not classified: {error.reason().sentence}") from None

"""The value every extractor returns."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]+")
"""C0 control characters other than tab, newline and carriage return, DEL and the
noncharacters U+FFFE and U+FFFF: no page shows them, XML cannot hold them, and libxml2 keeps
them in the text of a damaged page."""

ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
"""Characters that take no room (zero-width space, non-joiner, joiner, word joiner, and the
byte-order mark read as a zero-width no-break space): inside a word they join or part its
letters, but a line of them alone is blank (a template's paragraph holding one joiner)."""


def blank(text: str) -> bool:
    """Whether ``text`` holds nothing but white space and :data:`ZERO_WIDTH` characters (read
    from its ends only: a line of text stops the strip at its first letter)."""
    return not text.strip(_BLANK)


_BLANK = "".join(chr(code) for code in range(0x3001) if chr(code).isspace()) + ZERO_WIDTH
"""The characters of :func:`blank`: every white-space character (``str.isspace``, all below
U+3001) and :data:`ZERO_WIDTH`."""

_KEPT_BYTES = bytes([0x09, 0x0A, 0x0D, *range(0x20, 0x7F), *range(0x80, 0x100)])
"""The UTF-8 bytes that are no part of a :data:`_CONTROL` character below U+FFFE."""

_SPACES = re.compile(r"\s+")


_CHUNK = 65_536
"""Characters of a text :func:`_has_control` encodes at a time."""


def _has_control(text: str) -> bool:
    """Whether ``text`` holds a :data:`_CONTROL` character, found as its UTF-8 bytes: the
    characters below U+0080 are the bytes below 0x80, which no other character's bytes are,
    and one pass of C code deletes all the others, where the regular expression would step
    through the text a character at a time (several times slower on an almost always clean
    text, which every result is checked for). A long text is encoded :data:`_CHUNK`
    characters at a time, so that its check holds no copy of the whole text."""
    return (
        any(
            text[start : start + _CHUNK]
            .encode("utf-8", "surrogatepass")
            .translate(None, _KEPT_BYTES)
            for start in range(0, len(text), _CHUNK)
        )
        or "\ufffe" in text
        or "\uffff" in text
    )


class Reason(str, Enum):
    """Why a result is empty, for programs: :attr:`ExtractionResult.reason_code`.

    :attr:`ExtractionResult.reason` says the same for people, with the details (which limit
    was hit by how much, which step ran out of time); the code is what a program counts or
    branches on, so nothing has to read the sentence. Each value is also the suffix of the
    Scrapy stat ``cetd/item_empty_reason_count/<code>``, and ``str()`` gives it.
    """

    MAX_BODY_SIZE = "max_body_size"
    """The page is larger than ``max_body_size`` bytes; nothing was decoded or parsed."""
    MAX_ATTRIBUTES = "max_attributes"
    """A tag of the page has more than ``max_attributes`` attributes; nothing was parsed."""
    MAX_NODES = "max_nodes"
    """The parsed page has more than ``max_nodes`` elements; nothing was extracted."""
    TIME_BUDGET = "time_budget"
    """The extraction ran out of its ``time_budget``."""
    NOT_A_DOCUMENT = "not_a_document"
    """The body is not an HTML document (empty, JSON, a PDF, an image, binary data). Only the
    Scrapy pipeline counts it: :func:`scrapy_cetd.extract` raises :class:`ValueError`."""
    FRAMESET = "frameset"
    """A frameset page: its content lives in other documents."""
    NO_VISIBLE_TEXT = "no_visible_text"
    """The page shows no text (only scripts, styles, images, hidden elements)."""
    TOO_DEEP = "too_deep"
    """Nothing visible before the depth at which the HTML parser stops reading the page
    (:data:`scrapy_cetd.limits.PARSER_MAX_DEPTH`)."""
    NO_CONTENT = "no_content"
    """The page has visible text but the algorithm selected none of it as main content; also
    the code of an empty result whose producer gave none (a user's extractor)."""

    def __str__(self) -> str:
        return self.value


class NoteKind(str, Enum):
    """The kind of a note of :attr:`ExtractionResult.notes`, for programs.

    A note says what was repaired or bounded on the way to a result, as
    ``"<kind>: <detail>"`` (:meth:`note`): the kind for programs, then the details for people.
    A program reads the kind before the first colon (``note.partition(":")[0]``) and compares
    it with a member, which equals its value; ``str()`` gives the value too. The same kinds
    open the notes of a corpus row's ``notes`` column, are counted in a corpus run's summary
    and are the suffix of the Scrapy stat ``cetd/note_count/<kind>``.

    The notes themselves stay strings: an extractor of one's own may add notes of kinds of
    its own, which travel and are counted as these are.
    """

    HTTP_CHARSET_IGNORED = "http-charset-ignored"
    """The HTTP charset was ignored, as a browser ignores it: it names no text encoding of
    the WHATWG Encoding Standard (``hex``, ``base64``, ``utf-7``...), or UTF-16 for bytes that
    are not UTF-16; the ``<meta>`` charset and detection decided. From decoding the page's
    bytes."""
    META_CHARSET_IGNORED = "meta-charset-ignored"
    """The ``<meta>`` charset was ignored, for the same reasons as an HTTP charset; detection
    decided. From decoding the page's bytes."""
    META_CHARSET_UTF16 = "meta-charset-utf-16"
    """The ``<meta>`` charset names UTF-16 and the page was read as UTF-8, as the HTML
    standard says (markup read from the bytes is not UTF-16). From decoding the page's
    bytes."""
    UNDECODABLE_BYTES = "undecodable-bytes"
    """Byte sequences of the body that its encoding does not read, each now U+FFFD in the
    text; the detail says how many. From decoding the page's bytes."""
    CHARSET_GUESSED = "charset-guessed"
    """Nothing declares the encoding and the body is not UTF-8: it was read in an encoding
    guessed from its bytes, which the detail names, and which may be wrong. From decoding the
    page's bytes."""
    LINKS_LEFT_RELATIVE = "links-left-relative"
    """Links of the HTML were left relative, as making them all absolute against the page's
    URL would have grown the HTML past its bound; the detail says how many. From finishing
    the HTML."""
    URL_NOT_ABSOLUTE = "url-not-absolute"
    """The URL given as the page's is no absolute URL (no scheme or no host, as a mistyped
    ``example.com/page``; a port that is no number; longer than the 8,192 characters a page URL
    is read to), and no ``<base href>`` gives one: the links of the HTML and the Markdown and
    the metadata's canonical URL and image stay as the page writes them. The detail is the
    URL's beginning. From :func:`scrapy_cetd.extract` (and a crawl's or a corpus's
    extraction)."""
    OUTPUTS_GIVEN_UP = "outputs-given-up"
    """The metadata, Markdown, clean HTML or absolute links asked for were given up, as the
    time budget ran out while they were written: the text stands, ``metadata`` or
    ``markdown`` is ``None`` and the HTML is the extractor's own; the detail names what was
    given up, and why. From :func:`scrapy_cetd.extract` (and a crawl's or a corpus's
    extraction)."""
    DATE_SEARCH_CUT_SHORT = "date-search-cut-short"
    """The search for a publication date in the page's text was cut short, as the time budget
    left did not allow it: the page is dated from what it declares, or not at all, where a
    longer budget may find its date; the detail says how much time was left for how many
    texts. From reading the metadata (``metadata=True``)."""
    PAYLOAD_TRUNCATED = "payload-truncated"
    """The WARC record says, in its ``WARC-Truncated`` header, that the crawler stored only
    part of the payload; the detail gives why: ``length`` (over the crawler's size limit),
    ``time``, ``disconnect`` or ``unspecified``. The page is extracted as far as it was
    stored. From reading a WARC record (``scrapy-cetd corpus``, the datatrove reader)."""
    CODING_ALREADY_UNDONE = "coding-already-undone"
    """The ``Content-Encoding`` says ``gzip`` (the detail), but the body was stored decoded: it
    begins as markup, where gzip data begins with its magic number, and is read as it stands.
    From reading a WARC record (``scrapy-cetd corpus``, the datatrove reader)."""

    def __str__(self) -> str:
        return self.value

    def note(self, detail: str) -> str:
        """The note of this kind that says ``detail``: ``"<kind>: <detail>"``."""
        return f"{self.value}: {detail}"


@dataclass(frozen=True)
class Metadata:
    """The metadata of one page, read by :func:`scrapy_cetd.page.metadata.page_metadata`; a
    field is ``None`` (or empty) when the page does not say.

    Holds only strings, so it pickles with the :class:`~scrapy_cetd.result.ExtractionResult`
    that carries it."""

    title: str | None = None
    """The headline, without the site's name that ``<title>`` often appends."""
    authors: tuple[str, ...] = ()
    """The authors' names, without "By", dates, e-mail addresses or handles."""
    published: str | None = None
    """When the page was first published, ISO 8601 (a date, or a date and time)."""
    modified: str | None = None
    """When the page was last modified, ISO 8601."""
    site_name: str | None = None
    """The name of the site or publication."""
    language: str | None = None
    """The language of the text as a BCP 47 tag (``en``, ``pt-BR``)."""
    description: str | None = None
    """The page's summary, as its markup gives it."""
    canonical_url: str | None = None
    """The page's canonical address (absolute when the page's URL is known)."""
    image: str | None = None
    """The page's lead image."""
    tags: tuple[str, ...] = ()
    """Keywords and tags the page declares."""
    categories: tuple[str, ...] = ()
    """Sections or categories the page declares."""


@dataclass(frozen=True)
class ExtractionResult:
    """The main content of one page.

    An empty result is a valid result: ``text`` and ``html`` are then empty strings,
    ``reason`` says why in a sentence (``"frameset page"``, ``"max_nodes exceeded: ..."``) and
    ``reason_code`` says it as a :class:`Reason`. A result with content has both set to
    ``None``. Results hold only strings, numbers and plain data, so they pickle and cross
    process boundaries (scrapy-redis, Spark, Dask) freely.
    """

    text: str
    """Main content as plain text, one block (paragraph, heading, list item, row) per line."""
    html: str
    """Main content as an HTML fragment that keeps its structure (a ``<body>`` element);
    ``""`` when it was not asked for (``extract(..., html=False)``)."""
    algorithm: str
    """Registered name of the algorithm that produced the result."""
    reason: str | None = None
    """Why the result is empty, for people; ``None`` when content was found."""
    reason_code: Reason | None = None
    """Why the result is empty, for programs; set whenever ``reason`` is
    (:attr:`Reason.NO_CONTENT` when a result is built with a ``reason`` and no code)."""
    title: str | None = None
    """The page's headline, when the algorithm recovers one. With the metadata
    (``extract(..., metadata=True)``) it is :attr:`Metadata.title`, the headline without the
    site's name; without, the extractor's own, which is cheaper: cetd-plus takes the first
    ``<h1>``, else ``og:title``, ``twitter:title`` or ``<title>`` as they stand."""
    page_type: str | None = None
    """The kind of page (one of :data:`scrapy_cetd.page.page_types.PAGE_TYPES`: ``article``,
    ``forum``, ``product``...), when the algorithm classifies pages (cetd-plus does)."""
    page_type_confidence: float | None = None
    """The classifier's probability for :attr:`page_type` (1.0 when the type was forced)."""
    notes: tuple[str, ...] = ()
    """What was repaired or bounded on the way, each ``"<kind>: <detail>"``, its kind a
    :class:`NoteKind` (a charset label ignored because it names no text encoding, bytes the
    encoding does not read, links left relative past the growth bound, outputs given up for the
    time budget, a date search it cut short) or one of an extractor of one's own."""
    metadata: Metadata | None = None
    """The page's headline, authors, dates, language... when asked for
    (``extract(..., metadata=True)``); ``None`` otherwise."""
    markdown: str | None = None
    """The main content as Markdown (CommonMark with GitHub's tables) when asked for
    (``extract(..., markdown=True)``; ``""`` for an empty result); ``None`` otherwise."""

    def __post_init__(self) -> None:
        if self.reason is not None and self.reason_code is None:
            object.__setattr__(self, "reason_code", Reason.NO_CONTENT)

    def __bool__(self) -> bool:
        return bool(self.text)

    @classmethod
    def empty(
        cls, algorithm: str, reason: str, code: Reason = Reason.NO_CONTENT
    ) -> ExtractionResult:
        """An empty result that says why nothing was extracted: ``reason`` in a sentence,
        ``code`` as a :class:`Reason`."""
        return cls(text="", html="", algorithm=algorithm, reason=reason, reason_code=code)


@dataclass(frozen=True)
class EmptyReason:
    """Why there is nothing to extract, before there is a result to say it: what
    :meth:`Extractor.view <scrapy_cetd.Extractor.view>` and
    :meth:`Extractor.select <scrapy_cetd.Extractor.select>` return instead of a view or a
    selection, and what the limits return for a page they refuse."""

    sentence: str
    """The :attr:`ExtractionResult.reason`."""
    code: Reason
    """The :attr:`ExtractionResult.reason_code`."""

    def result(self, algorithm: str) -> ExtractionResult:
        """The empty result of ``algorithm`` that says this."""
        return ExtractionResult.empty(algorithm, self.sentence, self.code)


def sanitize(result: ExtractionResult) -> ExtractionResult:
    """``result`` without control characters (:data:`_CONTROL`) in its text, HTML and title.

    A page with NUL bytes or stray control characters still has readable content: the
    characters are dropped (as parsel already drops NUL bytes from a body), the spaces around
    them collapse, lines of the text that held nothing else disappear, and a result left
    without text becomes empty. ``result`` itself is returned when it holds none, which is
    almost always.
    """
    title = result.title
    if not (
        _has_control(result.text)
        or _has_control(result.html)
        or (title is not None and _has_control(title))
    ):
        return result
    lines = (_SPACES.sub(" ", line).strip() for line in _CONTROL.sub("", result.text).split("\n"))
    text = "\n".join(line for line in lines if not blank(line))
    if not text:
        if result.reason is None:
            return ExtractionResult.empty(
                result.algorithm, "no visible text", Reason.NO_VISIBLE_TEXT
            )
        return ExtractionResult.empty(
            result.algorithm, result.reason, result.reason_code or Reason.NO_CONTENT
        )
    return replace(
        result,
        text=text,
        html=_CONTROL.sub("", result.html),
        title=None if title is None else _CONTROL.sub("", title).strip() or None,
    )

"""Types of the compiled accelerator ``scrapy_cetd.page._speedups`` (source: ``_speedups.pyx``).

Every function returns ``None`` for input it does not handle; :mod:`scrapy_cetd.page.accel` then
runs its pure-Python reference, registered with the same parameters (``@accel.twin``), which
these declarations must match: mypy checks each pair where it is registered.
"""

import re
from collections.abc import Callable, Iterator, Sequence
from typing import SupportsIndex, TypeVar, overload

from lxml import etree

from scrapy_cetd.page.dom import DomView

_Mode = TypeVar("_Mode")

LXML_VERSION_COMPILED: str
LXML_VERSION: tuple[int, int, int, int] | None
UNAVAILABLE_REASON: str | None
READY: bool

class NotHandledError(Exception): ...

class ElementNodes(Sequence[etree._Element]):
    """The elements of a view, each made into its lxml proxy when it is read."""

    root: etree._Element
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: SupportsIndex) -> etree._Element: ...
    @overload
    def __getitem__(self, index: slice) -> list[etree._Element]: ...
    def __iter__(self) -> Iterator[etree._Element]: ...
    def index(self, element: object, start: int = 0, stop: int = ...) -> int: ...

# scrapy_cetd.page.dom; the elements of a view it builds are an ElementNodes (declared as the
# reference's Sequence: a pass has one return type)
def build_view(
    root: etree._Element, remove_hidden: bool
) -> (
    tuple[
        Sequence[etree._Element],
        list[str],
        list[int],
        list[list[int]],
        list[list[str]],
        list[int],
        list[bool],
    ]
    | None
): ...
def attribute_owners(
    root: etree._Element, attributes: Sequence[tuple[str, str | None]]
) -> list[etree._Element] | None: ...
def count_elements(tree: etree._Element) -> int | None: ...
def hidden_elements(root: etree._Element) -> list[etree._Element] | None: ...
def hidden_text_length(root: etree._Element) -> int | None: ...

# scrapy_cetd.page.density
def count_nodes(
    runs: list[list[str]], in_link: list[bool], parent: list[int]
) -> tuple[list[int], list[int], list[int], list[int], list[list[int]]] | None: ...
def densities(
    chars: list[int],
    tags: list[int],
    link_chars: list[int],
    link_tags: list[int],
    ratio: float,
    composite: bool,
) -> list[float] | None: ...
def density_sums(
    children: list[list[int]],
    run_chars: list[list[int]],
    in_link: list[bool],
    density: list[float],
    ratio: float,
    composite: bool,
) -> list[float] | None: ...

# scrapy_cetd.page.flags
def ancestors_of(parent: list[int], content: Sequence[bool]) -> list[bool] | None: ...
def holding_tags(
    parent: list[int], tags: list[str], names: frozenset[str]
) -> list[bool] | None: ...

# scrapy_cetd.page.output: ``keep`` is (DROP, SHELL, TEXT), the modes in ``modes``
def content_modes(
    parent: list[int],
    content: Sequence[bool],
    shells: Sequence[bool],
    shell_text: bool,
    keep: tuple[_Mode, _Mode, _Mode],
) -> list[_Mode] | None: ...
def own_modes(
    parent: list[int], content: Sequence[bool], keep: tuple[_Mode, _Mode, _Mode]
) -> list[_Mode] | None: ...
def kept_elements(
    parent: list[int], modes: Sequence[_Mode], keep: tuple[_Mode, _Mode, _Mode]
) -> list[bool] | None: ...
def render(
    view: DomView,
    modes: Sequence[_Mode],
    keep: tuple[_Mode, _Mode, _Mode],
    block_tags: frozenset[str],
    clean: Callable[[etree._Element], None],
    html: bool = True,
) -> tuple[str, str] | None: ...

# scrapy_cetd.extractors.cetd
def subtree_argmax(parent: Sequence[int], values: Sequence[float]) -> list[int] | None: ...
def smooth_over_siblings(
    children: list[list[int]], values: Sequence[float]
) -> list[float] | None: ...

# scrapy_cetd.extractors.furniture
def boilerplate(
    elements: Sequence[etree._Element],
    tags: list[str],
    parent: list[int],
    chars: Sequence[int],
    structural: bool,
    comments: bool,
    forms: bool,
    footers: bool,
    half: float,
    most: float,
    furniture_tags: frozenset[str],
    furniture_roles: frozenset[str],
    footer_name: re.Pattern[str],
) -> list[bool] | None: ...
def without(
    elements: Sequence[etree._Element],
    tags: list[str],
    parent: list[int],
    children: list[list[int]],
    runs: list[list[str]],
    depth: list[int],
    drop: Sequence[bool],
    href_links: bool,
    link_tags: frozenset[str],
) -> (
    tuple[
        Sequence[etree._Element],
        list[str],
        list[int],
        list[list[int]],
        list[list[str]],
        list[int],
        list[bool],
    ]
    | None
): ...

# scrapy_cetd.extractors.cetd_plus
def outermost_chars(parent: list[int], content: Sequence[bool], chars: list[int]) -> int | None: ...
def kept_chars(
    parent: list[int], modes: Sequence[_Mode], chars: list[int], keep: tuple[_Mode, _Mode, _Mode]
) -> int | None: ...
def caption_counts(
    parent: list[int], small: Sequence[bool], runs: list[list[str]], images_of: dict[str, list[int]]
) -> tuple[list[int], list[int], list[int], dict[int, list[str]]] | None: ...
def drop_link_blocks(
    parent: list[int],
    tags: list[str],
    chars: list[int],
    link_chars: list[int],
    modes: list[_Mode],
    ratio: float,
    block_tags: frozenset[str],
    keep: tuple[_Mode, _Mode, _Mode],
    epsilon: float,
) -> int | None: ...

# scrapy_cetd.page.page_types
def body_counts(
    elements: Sequence[etree._Element],
    tags: list[str],
    parent: list[int],
    children: list[list[int]],
    runs: list[list[str]],
    chars: list[int],
    link_chars: list[int],
    subtree_tags: list[int],
    run_chars: list[list[int]],
) -> tuple[int, ...] | None: ...
def class_words(root: etree._Element) -> set[str] | None: ...
def weighted_sums(
    start: list[float], rows: list[tuple[float, ...]], values: list[float]
) -> list[float] | None: ...
def link_counts(
    elements: Sequence[etree._Element],
    tags: list[str],
    chars: list[int],
    link_chars: list[int],
    in_link: list[bool],
) -> tuple[int, ...] | None: ...
def tree_scores(
    read: list[float],
    nodes: tuple[tuple[int, ...], tuple[float, ...], tuple[int, ...], tuple[int, ...]],
    values: tuple[float, ...],
    roots: tuple[tuple[int, int], ...],
    baseline: tuple[float, ...],
) -> list[float] | None: ...

# scrapy_cetd.extractors.cetd_plus
def outermost_named(root: etree._Element, tag: str) -> list[etree._Element] | None: ...

# scrapy_cetd.page.markup
def title_text(tree: etree._Element) -> str | None: ...

# scrapy_cetd.page.parse
def markup_scan(text: str, max_attributes: int) -> str | None: ...

"""Types of the compiled accelerator ``scrapy_cetd.page._speedups`` (source: ``_speedups.pyx``).

Every function returns ``None`` for input it does not handle; the caller then runs the
pure-Python reference in :mod:`scrapy_cetd.page.dom`, :mod:`~scrapy_cetd.page.density`,
:mod:`~scrapy_cetd.page.output` or :mod:`~scrapy_cetd.extractors.cetd`.
"""

from collections.abc import Callable, Sequence
from typing import Any

from lxml import etree

LXML_VERSION_COMPILED: str
LXML_VERSION: tuple[int, int, int, int] | None
UNAVAILABLE_REASON: str | None
READY: bool

class NotHandledError(Exception): ...

def build_view(
    root: etree._Element, remove_hidden: bool
) -> (
    tuple[
        list[etree._Element],
        list[str],
        list[int],
        list[list[int]],
        list[list[str]],
        list[int],
        list[bool],
    ]
    | None
): ...
def count_nodes(
    runs: list[list[str]], in_link: list[bool], parent: list[int]
) -> tuple[list[int], list[int], list[int], list[int], list[list[int]]] | None: ...
def densities(
    chars: list[int],
    tags: list[int],
    link_chars: list[int],
    link_tags: list[int],
    ratio: float,
    composite_density: bool,
) -> list[float] | None: ...
def density_sums(
    children: list[list[int]],
    run_chars: list[list[int]],
    in_link: list[bool],
    density: list[float],
    ratio: float,
    composite_density: bool,
) -> list[float] | None: ...
def subtree_argmax(parent: list[int], values: list[float]) -> list[int] | None: ...
def smooth_over_siblings(children: list[list[int]], values: list[float]) -> list[float] | None: ...
def content_modes(
    parent: list[int],
    content: Sequence[bool],
    shells: Sequence[bool],
    shell_text: bool,
    keep: tuple[Any, Any, Any],
) -> list[Any] | None: ...
def own_modes(
    parent: list[int], content: Sequence[bool], keep: tuple[Any, Any, Any]
) -> list[Any] | None: ...
def render(
    elements: list[etree._Element],
    children: list[list[int]],
    parent: list[int],
    runs: list[list[str]],
    tags: list[str],
    modes: Sequence[int],
    keep: tuple[Any, Any, Any],
    block_tags: frozenset[str],
    clean: Callable[[etree._Element], None],
) -> tuple[str, str] | None: ...

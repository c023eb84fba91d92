"""The one switch between the compiled passes of ``scrapy_cetd.page._speedups`` and their
pure-Python references; the only module that imports the compiled module.

Every compiled function has a Python reference with the same parameters, which it reproduces
exactly. The reference is registered by one line beside it, which names the compiled twin
(checked by mypy against ``_speedups.pyi``)::

    @accel.twin(accel.compiled.count_nodes)
    def count_lists(runs: list[list[str]], in_link: list[bool], parent: list[int]) -> ...:
        ...  # the reference

The decorated name is then a :class:`Pass`, and callers call it: it runs the compiled function
and, when that declines the input (each returns ``None`` for input it does not handle, such as
a tuple where it reads a list), the reference. :data:`PASSES` lists every registered pass.

Whether the compiled module is used is decided once, at import: it is when it was built and
compiled against the installed lxml, unless the environment variable
:data:`PURE_PYTHON_VARIABLE` is set. :func:`reference_only` runs the references for a while (the
tests and benchmarks compare the two that way).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar

from lxml import etree

__all__ = [
    "COMPILED_LXML_VERSION",
    "PASSES",
    "PURE_PYTHON_VARIABLE",
    "Pass",
    "compiled",
    "load_compiled",
    "reference_only",
    "twin",
]

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

PURE_PYTHON_VARIABLE = "SCRAPY_CETD_PURE_PYTHON"
"""Set this environment variable to 1 before importing scrapy_cetd to run the pure-Python code."""


def load_compiled() -> ModuleType | None:
    """The compiled accelerator, or ``None`` when it is not built or is switched off by
    :data:`PURE_PYTHON_VARIABLE` (a debug message), or was compiled against another lxml (a
    warning): it reads lxml's element structs, whose layout may change with any lxml version.
    pip builds in an isolated environment with the newest lxml, so an older lxml installed
    beside it (pinned by the user) silently cost the speed: hence the warning."""
    if os.environ.get(PURE_PYTHON_VARIABLE, "0").strip() not in ("", "0"):
        logger.debug("%s is set: scrapy_cetd runs in pure Python", PURE_PYTHON_VARIABLE)
        return None
    try:
        from scrapy_cetd.page import _speedups  # noqa: PLC0415 - optional compiled module
    except Exception as error:  # not built, or built for an incompatible lxml C API
        logger.debug("scrapy_cetd.page._speedups not importable (%s): pure Python", error)
        return None
    if _speedups.LXML_VERSION != etree.LXML_VERSION:
        logger.warning(
            "scrapy_cetd.page._speedups was compiled against lxml %s, lxml %s is installed: "
            "scrapy-cetd runs in pure Python, several times slower (to compile it against the "
            "installed lxml, see 'The accelerator' in the quickstart)",
            _speedups.LXML_VERSION_COMPILED,
            etree.__version__,
        )
        return None
    if not _speedups.READY:
        logger.debug(
            "scrapy_cetd.page._speedups unusable (%s): pure Python", _speedups.UNAVAILABLE_REASON
        )
        return None
    return _speedups


class _Declines:
    """Stands in for a compiled function that is not used: it declines every input."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, *args: object, **kwargs: object) -> None:
        return None


class _NotCompiled:
    """Stands in for the compiled module when it is not used: each of its functions declines."""

    def __getattr__(self, name: str) -> _Declines:
        return _Declines(name)


_loaded = load_compiled()

if TYPE_CHECKING:
    from scrapy_cetd.page import _speedups as compiled
else:
    compiled = _NotCompiled() if _loaded is None else _loaded
    """The compiled module, or a stand-in whose functions decline every input."""

COMPILED_LXML_VERSION: str | None = None if _loaded is None else _loaded.LXML_VERSION_COMPILED
"""The lxml version the compiled passes in use were built against; ``None``: pure Python."""


class Pass(Generic[P, R]):
    """A compiled function and its pure-Python reference, called as one function."""

    def __init__(self, compiled: Callable[P, R | None], reference: Callable[P, R]) -> None:
        self.name: str = compiled.__name__
        """The compiled function's name in ``_speedups``."""
        self.compiled = compiled
        self.reference = reference
        functools.update_wrapper(self, reference)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """The compiled function's result, or the reference's when it declines the input."""
        result = self.compiled(*args, **kwargs)
        return self.reference(*args, **kwargs) if result is None else result

    def __repr__(self) -> str:
        return f"<Pass {self.name}: {self.reference.__module__}.{self.reference.__qualname__}>"


PASSES: dict[str, Pass[..., Any]] = {}
"""Every registered pass, by the name of its compiled function."""


def twin(compiled: Callable[P, R | None]) -> Callable[[Callable[P, R]], Pass[P, R]]:
    """Register the decorated function as the pure-Python reference of ``compiled``."""

    def register(reference: Callable[P, R]) -> Pass[P, R]:
        registered = Pass(compiled, reference)
        if registered.name in PASSES:
            raise ValueError(f"compiled function {registered.name!r} has two references")
        PASSES[registered.name] = registered
        return registered

    return register


@contextmanager
def reference_only() -> Iterator[None]:
    """Run every pass in its pure-Python reference inside the block, in every thread (so only
    where nothing else extracts meanwhile: the tests and the benchmarks use it)."""
    saved = {name: each.compiled for name, each in PASSES.items()}
    for name, each in PASSES.items():
        each.compiled = _Declines(name)
    try:
        yield
    finally:
        for name, each in PASSES.items():
            each.compiled = saved[name]

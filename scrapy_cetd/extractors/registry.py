"""The registry of algorithms: their names and classes, :func:`get_extractor`, and
:func:`build_extractor`, which every part of the package (the Scrapy pipeline, the commands, the
corpus) and the benchmarks build their extractor with."""

from __future__ import annotations

import functools
import inspect
import math
import pkgutil
import types
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Literal, Union, cast, get_args, get_origin, get_type_hints

from scrapy_cetd.extractors import DEFAULT_ALGORITHM
from scrapy_cetd.extractors.base import Extractor
from scrapy_cetd.extractors.cetd import (
    CompositeTextDensityExtractor,
    SmoothedCompositeTextDensityExtractor,
    TextDensityExtractor,
)
from scrapy_cetd.extractors.cetd_plus import CetdPlusExtractor
from scrapy_cetd.extractors.cetr import CetrExtractor, CetrThresholdExtractor
from scrapy_cetd.extractors.coreex import CoreExExtractor
from scrapy_cetd.extractors.cset import CSetExtractor
from scrapy_cetd.limits import TreeExtractor
from scrapy_cetd.page.page_types import PAGE_TYPES

__all__ = [
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "build_extractor",
    "coerce_options",
    "get_extractor",
    "page_types_given",
]

ALGORITHMS: Mapping[str, type[Extractor]] = MappingProxyType(
    {
        cls.name: cls
        for cls in (
            CetdPlusExtractor,
            TextDensityExtractor,
            CompositeTextDensityExtractor,
            SmoothedCompositeTextDensityExtractor,
            CetrExtractor,
            CetrThresholdExtractor,
            CoreExExtractor,
            CSetExtractor,
        )
    }
)
"""Registered algorithm names and their extractor classes (read-only)."""


def get_extractor(name: str = DEFAULT_ALGORITHM, **options: Any) -> Extractor:
    """A configured extractor for the algorithm ``name``.

    Each option is converted to the type the constructor declares (:func:`coerce_options`:
    ``include_comments="no"`` is ``False``, ``threshold_coefficient="0.5"`` is ``0.5``).
    Raises :class:`ValueError` naming the valid choices for an unknown algorithm or option, or
    naming the option and the value for a value of the wrong type or one the extractor
    rejects.
    """
    try:
        cls = ALGORITHMS[name]
    except KeyError:
        valid = ", ".join(sorted(ALGORITHMS))
        raise ValueError(f"unknown algorithm {name!r}; valid algorithms: {valid}") from None
    parameters = _parameters(cls)
    unknown = sorted(set(options) - set(parameters))
    if unknown:
        valid = ", ".join(parameters) or "none"
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} for algorithm {name!r}; valid options: {valid}"
        )
    return cls(**coerce_options(cls, options))


@functools.cache
def _parameters(cls: type[Extractor]) -> tuple[str, ...]:
    """The names of a registered class's constructor parameters, read once per class:
    :func:`extract` builds its extractor on every call, and reading a signature costs more than
    a small page's parse."""
    return tuple(inspect.signature(cls).parameters)


_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})
_NONE = frozenset({"none", "null", ""})


def coerce_options(cls: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` checked against the types ``cls``'s constructor declares, and converted.

    Settings files, ``-s`` on Scrapy's command line and ``-O`` on ours give strings where the
    constructor wants a ``bool`` or a number, and Python reads every non-empty string as true.
    So, for each option with an annotation:

    - ``bool`` accepts ``True``/``False`` and, from strings only, ``true``/``false``,
      ``yes``/``no``, ``on``/``off``, ``1``/``0`` (any case);
    - ``int`` and ``float`` accept numbers (not bools) and numeric strings; an ``int`` option
      takes a float only when it is a whole number; a ``float`` must be finite;
    - ``str`` accepts strings; ``Literal[...]`` one of its values (or its spelling as a string);
    - ``X | None`` also accepts ``None``, and the strings ``none``, ``null`` and ``""``.

    Options without an annotation, or with another type, pass through as given; options the
    constructor does not name are left to it. Raises :class:`ValueError` naming the option, the
    value and the type expected.
    """
    hints = _hints(cls)
    coerced: dict[str, Any] = {}
    for name, value in options.items():
        expected = hints.get(name)
        if expected is None:
            coerced[name] = value
            continue
        try:
            coerced[name] = _coerce(value, expected)
        except (TypeError, ValueError):
            raise ValueError(f"option {name}={value!r} is not {_describe(expected)}") from None
    return coerced


def _hints(cls: Callable[..., Any]) -> Mapping[str, Any]:
    """The resolved annotations of ``cls``'s constructor (empty when they do not resolve),
    cached per class when ``cls`` can be a key (resolving them evaluates every annotation)."""
    try:
        return _cached_hints(cls)
    except TypeError:  # an unhashable callable
        return _resolve_hints(cls)


@functools.lru_cache(maxsize=256)
def _cached_hints(cls: Callable[..., Any]) -> Mapping[str, Any]:
    return _resolve_hints(cls)


def _resolve_hints(cls: Callable[..., Any]) -> Mapping[str, Any]:
    try:
        return MappingProxyType(get_type_hints(getattr(cls, "__init__", cls)))
    except (NameError, TypeError):  # a user class's annotations that do not resolve
        return MappingProxyType({})


def _coerce(value: Any, expected: Any) -> Any:
    """``value`` as the type ``expected``; raises :class:`ValueError` when it does not fit."""
    origin = get_origin(expected)
    if origin is Union or origin is types.UnionType:
        members = get_args(expected)
        none = value is None or (isinstance(value, str) and value.strip().lower() in _NONE)
        if none and type(None) in members:
            return None
        for member in members:
            if member is type(None):
                continue
            try:
                return _coerce(value, member)
            except ValueError:
                pass
        raise ValueError(value)
    if origin is Literal:
        for choice in get_args(expected):
            if value == choice and type(value) is type(choice):
                return choice
            if isinstance(value, str) and value.strip() == str(choice):
                return choice
        raise ValueError(value)
    if expected is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            word = value.strip().lower()
            if word in _TRUE or word in _FALSE:
                return word in _TRUE
        raise ValueError(value)
    if expected is int or expected is float:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError(value)
        if expected is int and isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            return int(value)
        number = float(value) if isinstance(value, str) else value
        if not math.isfinite(number):
            raise ValueError(value)
        if expected is float:
            return float(number)
        if isinstance(number, float):
            if not number.is_integer():
                raise ValueError(value)
            return int(number)
        return number
    if expected is str:
        if isinstance(value, str):
            return value
        raise ValueError(value)
    return value


def _describe(expected: Any) -> str:
    """``expected`` in words, for an error message."""
    origin = get_origin(expected)
    if origin is Union or origin is types.UnionType:
        return " or ".join(_describe(member) for member in get_args(expected))
    if origin is Literal:
        return "one of " + ", ".join(repr(choice) for choice in get_args(expected))
    if expected is type(None):
        return "None"
    if expected is bool:
        return (
            'a bool (True or False, or the string "true"/"false", "yes"/"no", "on"/"off", "1"/"0")'
        )
    if expected is int:
        return "a whole number (int)"
    if expected is float:
        return "a finite number (float)"
    if expected is str:
        return "a string"
    return getattr(expected, "__name__", str(expected))


def _check_option_names(cls: type, algorithm: str, options: Mapping[str, Any]) -> None:
    """Refuse the options a class's constructor does not take, naming the ones it does (a
    constructor that takes ``**kwargs``, or whose signature cannot be read, takes any)."""
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return
    if any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters):
        return
    named = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    valid = [parameter.name for parameter in parameters if parameter.kind in named]
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} for algorithm {algorithm!r}; valid "
            f"options: {', '.join(valid) or 'none'}"
        )


def build_extractor(algorithm: str, options: Mapping[str, Any] | None = None) -> TreeExtractor:
    """The extractor ``algorithm`` names, configured with ``options``.

    ``algorithm`` is a registered name (:data:`ALGORITHMS`, built by :func:`get_extractor`) or
    the import path of a class whose instances have the same
    ``extract(tree, *, url=None) -> ExtractionResult`` method (``"myproject.MyExtractor"``);
    the class is called with ``options`` as keyword arguments, converted as
    :func:`coerce_options` does for the options it annotates. Raises :class:`ValueError` that
    says what is wrong otherwise.
    """
    options = dict(options or {})
    if not isinstance(algorithm, str):
        raise ValueError(f"algorithm must be a name or an import path, not {algorithm!r:.80}")
    if algorithm in ALGORITHMS:
        return get_extractor(algorithm, **options)
    if "." not in algorithm:
        valid = ", ".join(sorted(ALGORITHMS))
        raise ValueError(
            f"unknown algorithm {algorithm!r}; valid algorithms: {valid}, or the import path of "
            "an extractor class"
        )
    try:
        cls = pkgutil.resolve_name(algorithm)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ValueError(f"algorithm {algorithm!r} cannot be imported: {exc}") from exc
    if not isinstance(cls, type):
        raise ValueError(f"algorithm {algorithm!r} is not a class")
    _check_option_names(cls, algorithm, options)
    options = coerce_options(cls, options)
    try:
        extractor = cls(**options)
    except TypeError as exc:
        raise ValueError(f"the options do not fit {algorithm}: {exc}") from exc
    if not callable(getattr(extractor, "extract", None)):
        raise ValueError(f"algorithm {algorithm!r} has no extract(tree, *, url) method")
    return cast("TreeExtractor", extractor)


def page_types_given(extractor: TreeExtractor) -> frozenset[str] | None:
    """The page types the results of ``extractor`` can have in ``.page_type``, so that a filter
    on them can be checked before a run: every type of :data:`PAGE_TYPES` for cetd-plus, which
    classifies each page; the one type its ``page_type`` option forces on every page; none for
    cetd-plus with ``detect_page_type=False`` and no ``page_type``, and for every other
    registered algorithm, which does not classify pages. ``None`` when it cannot be told: a
    class of one's own (``"myproject.MyExtractor"``, or a subclass of a registered one) may
    give a type."""
    if type(extractor) is CetdPlusExtractor:
        if extractor.page_type is not None:
            return frozenset({extractor.page_type})
        return frozenset(PAGE_TYPES) if extractor.detect_page_type else frozenset()
    if type(extractor) in ALGORITHMS.values():
        return frozenset()
    return None

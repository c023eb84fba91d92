"""The tag path sequence (TPS) of a page [P Alg. 2]: each element of the body coded by its tag
path, the tags from ``<body>`` down to it with their style signatures [P Def. 3.2-3.3].
"""

from __future__ import annotations

from lxml import etree

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import DomView


def style_signature(element: etree._Element) -> tuple[tuple[str, ...], str]:
    """The style part of a tag path step (``docs/algorithms.md`` §5.1, S-2): the sorted
    ``class`` tokens and the ``style`` attribute without whitespace, property names in lower
    case, empty declarations (a trailing ``;``) dropped. ``id`` is not part of it."""
    classes = tuple(sorted(set((element.get("class") or "").split())))
    style = element.get("style")
    if not style:
        return classes, ""
    declarations = []
    for declaration in "".join(style.split()).split(";"):
        if not declaration:
            continue
        name, colon, value = declaration.partition(":")
        declarations.append(f"{name.lower()}{colon}{value}")
    return classes, ";".join(declarations)


def _step(tag: str, signature: tuple[tuple[str, ...], str]) -> str:
    classes, style = signature
    text = tag + "".join(f".{name}" for name in classes)
    return f"{text}[style={style}]" if style else text


def tag_path_sequence(view: DomView) -> tuple[list[int], list[str], list[int]]:
    """The TPS of ``view`` (codes from 1, in order of first appearance), each code's last step
    and the code of the path it extends (0 for the first step).

    Two elements share a code iff their parents do and their own tags and style signatures
    are equal, which is equality of the whole paths [P Def. 3.3] checked in O(1) per element:
    a path is interned as the pair (its parent path's code, its last step), never spelt out,
    so time and memory stay linear in the page however deep it nests.
    """
    codes: list[int] = []
    steps: list[str] = []
    parents: list[int] = []
    known: dict[tuple[int, str, tuple[str, ...], str], int] = {}
    tags, parent, elements = view.tags, view.parent, view.elements
    for i in range(len(view)):
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("coding the tag paths")
        up = codes[parent[i]] if i else 0
        signature = style_signature(elements[i])
        key = (up, tags[i], *signature)
        code = known.get(key)
        if code is None:
            code = known[key] = len(steps) + 1
            steps.append(_step(tags[i], signature))
            parents.append(up)
        codes.append(code)
    return codes, steps, parents

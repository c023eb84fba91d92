"""The compiled accelerator against the pure-Python reference: every registered pair of
:data:`scrapy_cetd.page.accel.PASSES` on generated pages, the registry against the compiled
module and its ``.pyi``, the same ExtractionResult on hand-made trees and on every page of the
shared datasets; plus its guarantees (input untouched, deep trees, threads) and its fallback."""

from __future__ import annotations

import ast
import inspect
import logging
import random
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import lxml.html
import pytest
from conftest import EXAMPLE_1, STORM_PAGE, deep_chain, parse, texts_from_threads
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from scrapy_cetd.evaluation.datasets import Page, default_datasets_root, find_datasets
from scrapy_cetd.extractors import cetd, furniture
from scrapy_cetd.extractors.cetd_plus import kept_text, link_blocks, media, narrowing
from scrapy_cetd.extractors.registry import get_extractor
from scrapy_cetd.limits import LimitExceededError, deadline
from scrapy_cetd.page import accel, density, dom, flags, markup, output, words
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import DomView, find_body
from scrapy_cetd.page.output import KEEP, Keep
from scrapy_cetd.page.page_types import body as type_body
from scrapy_cetd.page.page_types import features, model, tokens

ALGORITHMS = ("cetd-ds", "cectd-ds", "cectd-s", "cetd-plus")

COMPILED = accel.compiled
needs_speedups = pytest.mark.skipif(
    accel.COMPILED_LXML_VERSION is None,
    reason="scrapy_cetd.page._speedups is not built or not usable here",
)
pytestmark = needs_speedups

PAGES = {
    "example_1": EXAMPLE_1,
    "storm": STORM_PAGE,
    "removed_nodes": (
        "<body><div>a<!-- c -->b<script>x</script>c<?pi x?>d<style>s</style>e"
        "<noscript>n</noscript>f<template>t</template>g<p>kept</p>h</div></body>"
    ),
    "hidden": (
        '<body><div hidden>h</div><p style="DISPLAY : none">s</p><p style="visibility:hidden">'
        'v</p><input type=" HIDDEN "><input type="text"><span style="color:red">shown</span>'
        '<div style="">empty style</div><p>text <b hidden="">x</b> after</p></body>'
    ),
    "links": (
        "<body><div><a href='/'>one <b>bold <i>deep</i></b></a> and <button>press</button>"
        "<select><option>o</option></select><div><a>all</a><a>links</a></div></div>"
        "<p>plain words here and more words</p></body>"
    ),
    "whitespace": (
        "<body><div>\u00a0 a \u3000 b \t\n<p> \x0c spaced\u2028out\x85x\x1cy </p>\n\n</div>"
        "<p>\x0c<!-- x -->\x0cjoined\x0b<!-- y --> \x0c tails</p></body>"
    ),
    "blocks": (
        "<body><h1>Title</h1><p>First <br>line</p><ul><li>one</li><li>two<ul><li>in</li>"
        "</ul></li></ul><table><tr><td>c1</td><td>c2</td></tr></table><pre> keep\n  it</pre>"
        "<img src='i.png' alt='x'><p>Last paragraph with some text in it.</p></body>"
    ),
    "attributes": (
        '<body><div data-x class="a&amp;b" title="&quot;q&quot;"><p lang=fr>fran\u00e7ais'
        '</p><a href="/caf\u00e9?a=1&amp;b=2">link</a><input checked disabled></div></body>'
    ),
    "empty": "<body></body>",
    "blank": "<body>  \n  <div> </div></body>",
    "comment_only": "<body><!-- nothing --></body>",
    "widening": (
        "<body><div>caf\u00e9 <b>\u4e2d\u6587\u3000</b> \U0001f600\u3000 after<p>\u00e0 la"
        " ligne</p>\u3000\u2003<i>\u200d</i>wide\u4e2d<p>narrow again</p> \u00a0\u00e9</div>"
        "</body>"
    ),
    "furniture": (
        '<html><head><meta property="og:type" content="article"><script type="application/'
        'ld+json">{"@type": "NewsArticle"}</script></head><body><nav><a href="/">Home</a>'
        '<a>No link</a></nav><div role=" Navigation ">menu</div><main><article itemprop='
        '"articleBody"><h1>Title</h1><p>A long paragraph of the article body with words.</p>'
        '<form><input type="text"><button>Go</button></form><div class="Comments-List">'
        '<p>a reader writes</p></div><div id="DISQUS_thread">thread</div><div class="kommentar'
        ' \u0130comment">non-ASCII class</div><div class="caf\u00e9 comment">caf\u00e9</div>'
        '<div itemtype="http://schema.org/Comment">typed comment</div><div class="x&amp;'
        'comment">entity</div></article></main><aside>related<p hidden>'
        'hidden <span style="display:none">nested hidden</span> text</p></aside>'
        '<footer role="contentinfo">footer text</footer><div class="x-bar-footer">bar</div>'
        '<div id="siteFooter">site</div><div class="seofootercopy">copy</div><div class='
        '"caf\u00e9-footer">caf\u00e9 footer</div><div class="footers">plural</div>'
        '<div class="wsite-not-footer">negated</div><div class="x&amp;footer">entity footer</div>'
        '<div itemscope itemtype="https://schema.org/Person">author</div>'
        '<div hidden id="S:1f">streamed</div><div hidden id="S:x">hidden too</div>'
        '<span hidden id="S:2">span</span></body></html>'
    ),
    "records": (
        "<body><ul class=x><li>0123456789</li><li>abcdefghij</li><li>$ 12 cost</li></ul>"
        "<ol><li>123456789</li><li>abcdefghi</li><li>$12 price</li><li>more</li></ol>"
        f"<div><p>{'w' * 120}</p><p>{'v' * 119}</p><h2>Why? </h2><h3>What\uff1f<b> </b></h3>"
        "<input type=number><input type='Number'><ul><li><ol><li>in</li></ol></li></ul></div>"
        "<section class='Row'>12 \u20ac each</section><section class='Row'>a \u0e3f 3</section>"
        "<section class='Row'>4\u00a3 for two</section><p>5</p><p>$</p></body>"
    ),
    "preformatted": (
        "<body><pre><code>import os \n\t\u4e2d \u3000\n\n  x\u2028y\x0cz \n<b>a\nb</b> \n c<!-- k"
        " -->\nd<br>e</code></pre>tail\nafter<ul><li>Run:<listing>make\n  test</listing></li></ul>"
        "<textarea>one\n two</textarea> next\n<pre class='shiki'><span class='line'>\u00e9 = 1"
        "</span>\n<span class='line'></span>\n<span class='line'>f(\U0001f600)</span></pre></body>"
    ),
}


def tree(name: str) -> etree._Element:
    return parse(PAGES[name])


def body(root: etree._Element) -> etree._Element:
    found = find_body(root)
    assert found is not None
    return found


PurePython = Callable[[], AbstractContextManager[None]]
"""Makes a context in which every pass runs its Python reference."""


@pytest.fixture
def pure_python() -> PurePython:
    return accel.reference_only


def build_view_python(root: etree._Element, *, remove_hidden: bool = True) -> DomView:
    return DomView(*dom.view_fields.reference(root, remove_hidden))


def count_nodes_python(view: DomView) -> NodeCounts:
    with accel.reference_only():
        return density.count_nodes(view)


def render_python(view: DomView, modes: Sequence[Keep]) -> tuple[str, str]:
    with accel.reference_only():
        return output.render(view, modes)


def view_fields(view: DomView) -> tuple[Any, ...]:
    return (
        list(view.elements),
        view.tags,
        view.parent,
        view.children,
        view.runs,
        view.depth,
        view.in_link,
    )


def assert_same_view(root: etree._Element, *, both: bool = True) -> DomView:
    """Both builds of ``root``'s view, field by field (the very same element proxies), with
    hidden elements removed and, when ``both``, kept."""
    for remove_hidden in (False, True) if both else (True,):
        fast = dom.build_view(root, remove_hidden=remove_hidden)
        slow = build_view_python(root, remove_hidden=remove_hidden)
        assert view_fields(fast) == view_fields(slow)
    return fast


def assert_same_numbers(view: DomView) -> None:
    """Counts, densities, DensitySums, smoothing and argmax, bit for bit."""
    counts = density.count_nodes(view)
    reference = count_nodes_python(view)
    assert (counts.chars, counts.tags, counts.link_chars, counts.link_tags) == (
        reference.chars,
        reference.tags,
        reference.link_chars,
        reference.link_tags,
    )
    assert counts.run_chars == reference.run_chars
    for composite in (False, True):
        values = density.densities(counts, composite=composite)
        sums = density.density_sums(view, counts, values, composite=composite)
        with accel.reference_only():
            assert values == density.densities(counts, composite=composite)
            assert sums == density.density_sums(view, counts, values, composite=composite)
        assert cetd.smooth_over_siblings(view, values) == cetd.smooth_over_siblings(
            view, tuple(values)
        )
        assert cetd._subtree_argmax(view.parent, sums) == cetd._subtree_argmax(
            tuple(view.parent), sums
        )


def body_counts_arguments(view: DomView, counts: NodeCounts) -> tuple[Any, ...]:
    """The arguments of ``type_body.body_counts`` for ``view``, as the classifier makes them."""
    return (
        view.elements,
        view.tags,
        view.parent,
        view.children,
        view.runs,
        counts.chars,
        counts.link_chars,
        counts.tags,
        counts.run_chars,
    )


def assert_same_page_type_numbers(view: DomView) -> None:
    """The classifier's counts of the view and the words of its class names, both ways."""
    arguments = body_counts_arguments(view, density.count_nodes(view))
    fast = COMPILED.body_counts(*arguments)
    assert fast is not None
    assert fast == type_body.body_counts.reference(*arguments)
    root = view.elements[0]
    assert COMPILED.class_words(root) == tokens.class_words.reference(root)


def assert_same_rendering(view: DomView, modes: list[Keep]) -> None:
    """The compiled rendering is the reference's, and so is its text alone (no HTML built)."""
    rendered = output.render(view, modes)
    assert rendered == render_python(view, modes)
    with output.text_only():
        assert output.render(view, modes) == ("", rendered[1])
        assert render_python(view, modes) == ("", rendered[1])


def random_modes(view: DomView, rng: random.Random) -> list[Keep]:
    modes = [rng.choice((Keep.DROP, Keep.SHELL, Keep.TEXT, Keep.TEXT)) for _ in range(len(view))]
    modes[0] = rng.choice((Keep.SHELL, Keep.TEXT))
    return modes


def assert_same_results(
    root: etree._Element, pure_python: PurePython, algorithms: tuple[str, ...] = ALGORITHMS
) -> None:
    for algorithm in algorithms:
        extractor = get_extractor(algorithm)
        fast = extractor.extract(root)
        with pure_python():
            slow = extractor.extract(root)
        assert fast == slow, algorithm


@pytest.mark.parametrize("name", sorted(PAGES))
def test_hand_made_pages_match_the_reference(name: str, pure_python: PurePython) -> None:
    root = tree(name)
    view = assert_same_view(body(root))
    assert_same_numbers(view)
    assert_same_page_type_numbers(view)
    rng = random.Random(name)
    for _ in range(30):
        assert_same_rendering(view, random_modes(view, rng))
    assert_same_results(root, pure_python)


def test_counts_of_every_kind_of_whitespace_match_the_reference() -> None:
    spaces = "".join(chr(code) for code in range(0x3001) if chr(code).isspace())
    texts = [
        spaces,
        f"a{spaces}b",
        f"{spaces}caf\u00e9 \u00e0 la{spaces}",
        "\u4e2d\u6587\u3000\u6587\u5b57",
        "\U0001f600 x\u2029y\x85z",
        "",
    ]
    view = dom.build_view(body(parse("<body><p>x</p><p>y</p></body>")))
    view = DomView(
        view.elements,
        view.tags,
        view.parent,
        view.children,
        [texts[:1], texts[1:2], texts[2:]],
        view.depth,
        [False, True, False],
    )
    counts = density.count_nodes(view)
    reference = count_nodes_python(view)
    assert counts.run_chars == reference.run_chars
    assert counts.chars == reference.chars


def test_content_and_own_modes_match_the_reference(pure_python: PurePython) -> None:
    view = dom.build_view(body(tree("blocks")))
    rng = random.Random(7)
    for _ in range(20):
        content = [rng.random() < 0.3 for _ in range(len(view))]
        shells = [rng.random() < 0.5 for _ in range(len(view))]
        fast = [
            output.content_modes(view, content, shells, shell_text=True),
            output.content_modes(view, content, shells, shell_text=False),
            output.own_modes(view, content),
        ]
        with pure_python():
            slow = [
                output.content_modes(view, content, shells, shell_text=True),
                output.content_modes(view, content, shells, shell_text=False),
                output.own_modes(view, content),
            ]
        assert fast == slow


def test_element_nodes_read_as_a_sequence_of_proxies() -> None:
    root = tree("blocks")
    view = dom.build_view(body(root))
    reference = build_view_python(body(root))
    elements = view.elements
    assert type(elements).__name__ == "ElementNodes"
    assert len(elements) == len(reference.elements)
    assert list(elements) == reference.elements
    assert elements[-1] is reference.elements[-1]
    assert elements[1:3] == reference.elements[1:3]
    assert elements.index(reference.elements[4]) == 4
    with pytest.raises(ValueError, match="not in the view"):
        elements.index(root)
    with pytest.raises(IndexError):
        elements[len(elements)]
    not_an_index: Any = "1"
    with pytest.raises(TypeError):
        elements[not_an_index]


def cetd_plus_passes(root: etree._Element, rng: random.Random) -> list[Any]:
    """What cetd-plus's passes make of ``root``, with random selections drawn from ``rng``."""
    page_body = body(root)
    view = dom.build_view(page_body)
    counts = density.count_nodes(view)
    results: list[Any] = [
        dom.attribute_owners(root, markup._MARKUP_ATTRIBUTES),
        dom.hidden_elements(page_body),
        dom.hidden_text_length(page_body),
        markup.page_markup(root),
    ]
    for structural, comments, forms, footers in ((True, True, True, True), (True,) + (False,) * 3):
        drop = furniture.boilerplate(
            view,
            counts.chars,
            structural=structural,
            comments=comments,
            forms=forms,
            footers=footers,
        )
        results.append(drop)
        for href_links in (False, True):
            results.append(view_fields(furniture.without(view, drop, href_links=href_links)))
    content = [rng.random() < 0.3 for _ in range(len(view))]
    modes = random_modes(view, rng)
    results += [
        flags.ancestors_of(view, content),
        output.kept_elements(view, modes),
        kept_text.kept_chars(view, counts, modes),
        narrowing.selected_chars(view, counts, content),
    ]
    for ratio in (0.0, 0.5):
        changed = list(modes)
        link_blocks.drop_link_blocks(view, counts, changed, ratio)
        results.append(changed)
    return results


def test_cetd_plus_passes_match_the_reference(pure_python: PurePython) -> None:
    """Furniture, markup, hidden text, pruned views and what a selection keeps, both ways."""
    for name in sorted(PAGES):
        root = tree(name)
        fast = cetd_plus_passes(root, random.Random(name))
        with pure_python():
            slow = cetd_plus_passes(root, random.Random(name))
        assert fast == slow, name


def test_furniture_comments_and_hidden_text_on_a_hand_made_page() -> None:
    """What the passes compared above find, checked by hand once."""
    root = tree("furniture")
    page_body = body(root)
    view = dom.build_view(page_body)
    counts = density.count_nodes(view)
    drop = furniture.boilerplate(view, counts.chars, structural=True, comments=True, footers=True)
    dropped = {view.elements[i].get("class") or view.elements[i].get("id") or view.tags[i]
               for i in range(len(view)) if drop[i]}  # fmt: skip
    assert {"nav", "form", "Comments-List", "DISQUS_thread", "aside", "footer"} <= dropped
    assert {"x-bar-footer", "siteFooter", "caf\u00e9-footer", "x&footer"} <= dropped
    assert not {"seofootercopy", "footers"} & dropped  # the word inside a longer one
    assert "wsite-not-footer" not in dropped  # negated
    assert "kommentar \u0130comment" in dropped  # Python lower-cases the non-ASCII name
    assert {"caf\u00e9 comment", "x&comment"} <= dropped
    assert "article" not in dropped
    declared = markup.page_markup(root)
    assert {"article", "newsarticle", "person"} <= declared.types
    assert [element.tag for element in declared.article_bodies] == ["article"]
    # a <div hidden> React streams into its place is shown; other S: ids and tags are not
    assert dom.hidden_text_length(page_body) == len("hidden nested hidden texthidden toospan")


def test_filtered_views_render_like_the_reference() -> None:
    """A view built by another module from a subset of the elements (as cetd_plus does)."""
    view = dom.build_view(body(tree("links")))
    keep = [i for i in range(len(view)) if view.tags[i] not in ("b", "select")]
    index = {old: new for new, old in enumerate(keep)}
    filtered = DomView(
        [view.elements[i] for i in keep],
        [view.tags[i] for i in keep],
        [index.get(view.parent[i], -1) for i in keep],
        [[index[c] for c in view.children[i] if c in index] for i in keep],
        [view.runs[i][:1] + [""] * sum(c in index for c in view.children[i]) for i in keep],
        [view.depth[i] for i in keep],
        [view.in_link[i] for i in keep],
    )
    rng = random.Random(3)
    for _ in range(30):
        assert_same_rendering(filtered, random_modes(filtered, rng))


def test_cdata_entities_and_namespaces_match_the_reference(
    pure_python: PurePython,
) -> None:
    root = lxml.html.document_fromstring("<html><body><div>x</div></body></html>")
    div = root.find("body/div")
    assert div is not None
    paragraph = etree.SubElement(div, "p")
    paragraph.text = etree.CDATA("raw <text> in a CDATA section and more words")
    paragraph.append(etree.Entity("amp"))
    paragraph[-1].tail = "after the entity"
    etree.SubElement(div, "{http://example.com/ns}item").text = "namespaced element text"
    view = assert_same_view(body(root))
    assert_same_numbers(view)
    rng = random.Random(11)
    for _ in range(30):
        assert_same_rendering(view, random_modes(view, rng))
    assert_same_results(root, pure_python)


def test_compiled_functions_decline_what_they_do_not_handle() -> None:
    """Input the compiled code does not handle goes back to Python instead of failing. The
    wrong types are made on purpose, so they are ``Any`` here."""
    view = dom.build_view(body(tree("storm")))
    not_an_element: Any = "not an element"
    runs_as_tuple: Any = tuple(view.runs)
    keep_as_list: Any = list(KEEP)
    floats: Any = [1.5]
    numbered_value: Any = [("class", 1)]
    assert COMPILED.build_view(not_an_element, True) is None
    assert COMPILED.count_nodes(runs_as_tuple, view.in_link, view.parent) is None
    assert COMPILED.count_nodes(view.runs, view.in_link, [*view.parent[:-1], len(view)]) is None
    assert COMPILED.densities(floats, [0], [0], [0], 0.0, False) is None
    assert COMPILED.subtree_argmax([-1, 0], [1, 2]) is None
    assert COMPILED.smooth_over_siblings([[1], []], [0.5, 0.5]) is not None
    assert COMPILED.smooth_over_siblings([[2], []], [0.5, 0.5]) is None
    assert COMPILED.attribute_owners(view.elements[0], numbered_value) is None
    clean = output.drop_unsafe_attributes
    unknown = ["x"] * len(view)
    assert COMPILED.render(view, unknown, KEEP, dom.BLOCK_TAGS, clean) is None
    kept = [Keep.TEXT] * len(view)
    assert COMPILED.render(view, kept, keep_as_list, dom.BLOCK_TAGS, clean) is None
    modes = [Keep.TEXT] * len(view)
    short_tags = view.tags[:-1]
    ratio, tags = 0.5, link_blocks.LINK_BLOCK_TAGS
    assert COMPILED.drop_link_blocks(
        view.parent, short_tags, [1] * len(view), [1] * len(view), modes, ratio, tags, KEEP, 0.0
    ) is None  # fmt: skip
    assert modes == [Keep.TEXT] * len(view)
    counts = density.count_nodes(view)
    arguments = list(body_counts_arguments(view, counts))
    assert COMPILED.body_counts(*arguments) is not None
    for position, wrong in ((4, runs_as_tuple), (5, [1.5] * len(view)), (2, view.parent[:-1])):
        changed = arguments[:]
        changed[position] = wrong
        assert COMPILED.body_counts(*changed) is None, position
    assert COMPILED.class_words(not_an_element) is None
    assert COMPILED.weighted_sums([0.5], [(1.0,)], [2.0]) == [2.5]
    assert COMPILED.weighted_sums([0.5], [(1.0,)], [2]) is None
    assert COMPILED.weighted_sums([0.5], [(1.0, 2.0)], [2.0]) is None
    row_as_list: Any = [[1.0]]
    assert COMPILED.weighted_sums([0.5], row_as_list, [2.0]) is None


def test_input_tree_is_unchanged() -> None:
    root = tree("storm")
    before = etree.tostring(root)
    for algorithm in ALGORITHMS:
        get_extractor(algorithm).extract(root)
        get_extractor(algorithm, threshold_coefficient=0).extract(root)
    view = dom.build_view(body(root))
    rng = random.Random(5)
    for _ in range(10):
        output.render(view, random_modes(view, rng))
    assert etree.tostring(root) == before


def test_a_line_of_latin_1_text_is_held_one_byte_a_character() -> None:
    """The compiled text writer holds the line it writes in the narrowest kind the line's
    characters need (the hand-made page ``widening`` checks lines that widen half-way): a
    paragraph of a megabyte of Latin-1 text took five times its size (four bytes a character,
    then the line's string), where the buffer and the string now take two."""
    text = "caf\u00e9 au lait " * 70_000
    view = dom.build_view(body(parse(f"<body><p>{text}</p></body>")))
    with output.text_only():
        tracemalloc.start()
        written = output.render(view, [Keep.TEXT] * len(view))[1]
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert written == text.strip()
    assert peak < 3 * len(text)


def test_deep_nesting_matches_the_reference(pure_python: PurePython) -> None:
    """Every compiled walk keeps its own stack: a 100,000-deep page needs no C recursion."""
    root, chain = deep_chain(100_000)
    chain[50_000].tail = "tail in the middle"
    chain[-1].text = "deep content at the bottom"
    view = assert_same_view(chain[0], both=False)
    assert_same_numbers(view)
    modes = [Keep.SHELL] * len(view)
    modes[-1] = Keep.TEXT
    assert_same_rendering(view, modes)
    for algorithm in ALGORITHMS:
        assert "deep content at the bottom" in get_extractor(algorithm).extract(root).text
    assert_same_results(root, pure_python, ("cectd-ds", "cetd-plus"))


def test_threads_share_the_compiled_path() -> None:
    extractor = get_extractor("cectd-ds")
    pages = [parse(STORM_PAGE.replace("Storm", f"Storm {i}")) for i in range(8)]
    expected = [extractor.extract(page).text for page in pages]
    assert texts_from_threads(extractor, pages, rounds=20) == expected


@pytest.mark.parametrize(
    ("variable", "value", "usable"),
    [("SCRAPY_CETD_PURE_PYTHON", "1", False), ("SCRAPY_CETD_PURE_PYTHON", "0", True)],
)
def test_environment_variable_switches_to_pure_python(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, usable: bool
) -> None:
    monkeypatch.setenv(variable, value)
    assert (accel.load_compiled() is not None) is usable


def test_other_lxml_version_falls_back_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(COMPILED, "LXML_VERSION", (1, 0, 0, 0))
    with caplog.at_level(logging.WARNING, logger="scrapy_cetd.page.accel"):
        assert accel.load_compiled() is None
    assert [record.levelno for record in caplog.records] == [logging.WARNING]
    assert "compiled against lxml" in caplog.text
    assert "installed lxml" in caplog.text


def dataset_pages() -> Iterator[Any]:
    root = default_datasets_root()
    if root is None or not root.is_dir():
        yield pytest.param(None, marks=pytest.mark.skip(reason="no shared datasets"))
        return
    for dataset in find_datasets(root):
        yield pytest.param(dataset, id=dataset.name)


def parse_page(page: Page) -> etree._Element | None:
    parser = lxml.html.HTMLParser(recover=True, huge_tree=True)
    return etree.fromstring(page.html, parser=parser)


@pytest.mark.datasets
@pytest.mark.slow
@pytest.mark.parametrize("dataset", list(dataset_pages()))
def test_every_dataset_page_matches_the_reference(dataset: Any, pure_python: PurePython) -> None:
    rng = random.Random(dataset.name)
    for number, page in enumerate(dataset.pages()):
        root = parse_page(page)
        if root is None:
            continue
        page_body = find_body(root)
        if page_body is not None:
            view = assert_same_view(page_body, both=False)
            assert_same_numbers(view)
            assert_same_page_type_numbers(view)
            if number % 10 == 0 and len(view) > 1:
                assert_same_rendering(view, random_modes(view, rng))
        assert_same_results(root, pure_python)


def test_every_compiled_pass_and_its_python_twin_stop_at_the_deadline(
    pure_python: PurePython,
) -> None:
    """Each long loop checks the time budget every 4,096 iterations, compiled or not: past the
    deadline a pass raises LimitExceededError instead of running to its end."""
    page = "<body><div>" + "<p hidden>h</p><p class='a'>x <a href='/'>y</a></p>z" * 2_500
    root = parse(page + "</div></body>")
    view = dom.build_view(body(root))
    counts = density.count_nodes(view)
    values = [float(i) for i in range(len(view))]
    flags = [i % 3 == 0 for i in range(len(view))]
    modes = [Keep.TEXT] * len(view)
    keep = (Keep.DROP, Keep.SHELL, Keep.TEXT)
    compiled: dict[str, Callable[[], object]] = {
        "build_view": lambda: COMPILED.build_view(body(root), True),
        "hidden_elements": lambda: COMPILED.hidden_elements(body(root)),
        "hidden_text_length": lambda: COMPILED.hidden_text_length(body(root)),
        "attribute_owners": lambda: COMPILED.attribute_owners(body(root), (("class", None),)),
        "count_nodes": lambda: COMPILED.count_nodes(view.runs, view.in_link, view.parent),
        "densities": lambda: COMPILED.densities(
            counts.chars, counts.tags, counts.link_chars, counts.link_tags, 0.5, True
        ),
        "density_sums": lambda: COMPILED.density_sums(
            view.children, counts.run_chars, view.in_link, values, 0.5, True
        ),
        "subtree_argmax": lambda: COMPILED.subtree_argmax(view.parent, values),
        "smooth_over_siblings": lambda: COMPILED.smooth_over_siblings(view.children, values),
        "content_modes": lambda: COMPILED.content_modes(view.parent, flags, flags, False, keep),
        "own_modes": lambda: COMPILED.own_modes(view.parent, flags, keep),
        "ancestors_of": lambda: COMPILED.ancestors_of(view.parent, flags),
        "kept_elements": lambda: COMPILED.kept_elements(view.parent, modes, keep),
        "render": lambda: COMPILED.render(
            view, modes, keep, dom.BLOCK_TAGS, output.drop_unsafe_attributes
        ),
        "body_counts": lambda: COMPILED.body_counts(*body_counts_arguments(view, counts)),
        "class_words": lambda: COMPILED.class_words(body(root)),
    }
    python: dict[str, Callable[[], object]] = {
        "build_view": lambda: build_view_python(body(root)),
        "body_counts": lambda: type_body.body_counts(*body_counts_arguments(view, counts)),
        "hidden_text_length": lambda: dom.hidden_text_length(body(root)),
        "content_modes": lambda: output.content_modes(view, flags, flags, shell_text=False),
        "own_modes": lambda: output.own_modes(view, flags),
        "kept_elements": lambda: output.kept_elements(view, modes),
        "render": lambda: render_python(view, modes),
        "element_text": lambda: output.element_text(root),
    }
    for name, run in compiled.items():
        assert run() is not None, name
        with deadline(1e-9), pytest.raises(LimitExceededError):
            time.sleep(1e-3)
            run()
    with pure_python():
        for name, run in python.items():
            assert run() is not None, name
            with deadline(1e-9), pytest.raises(LimitExceededError, match="time_budget"):
                time.sleep(1e-3)
                run()


# --- the registry: every compiled function, its reference and its declaration ------------------


def compiled_functions() -> set[str]:
    """The functions the compiled module defines (its classes, constants and imports left
    out)."""
    return {
        name
        for name, value in vars(COMPILED).items()
        if not name.startswith("_")
        and callable(value)
        and not isinstance(value, type)
        and getattr(value, "__module__", None) == COMPILED.__name__
    }


def declared_functions() -> dict[str, list[str]]:
    """The functions ``_speedups.pyi`` declares, with their parameter names."""
    stub = Path(dom.__file__).with_name("_speedups.pyi")
    tree_ = ast.parse(stub.read_text(encoding="utf-8"))
    return {
        node.name: [argument.arg for argument in node.args.args]
        for node in tree_.body
        if isinstance(node, ast.FunctionDef)
    }


def test_every_compiled_function_has_a_reference_and_a_declaration() -> None:
    assert len(accel.PASSES) >= 19
    assert compiled_functions() == set(accel.PASSES)
    declared = declared_functions()
    assert set(declared) == set(accel.PASSES)
    for name, each in accel.PASSES.items():
        reference = list(inspect.signature(each.reference).parameters)
        assert declared[name] == reference, name


def test_a_second_reference_for_one_compiled_function_is_refused() -> None:
    with pytest.raises(ValueError, match="'count_nodes' has two references"):
        accel.twin(COMPILED.count_nodes)(density.count_lists.reference)
    assert accel.PASSES["count_nodes"] is density.count_lists


def test_reference_only_runs_the_references_and_restores_the_compiled_functions() -> None:
    calls: list[str] = []
    twin = dom.hidden_text_length
    original = twin.reference

    def counted(root: etree._Element) -> int:
        calls.append("reference")
        return original(root)

    root = body(tree("hidden"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(twin, "reference", counted)
        dom.hidden_text_length(root)
        assert calls == []
        with accel.reference_only():
            dom.hidden_text_length(root)
        assert calls == ["reference"]
        dom.hidden_text_length(root)
        assert calls == ["reference"]


# --- every pair on generated pages ------------------------------------------------------------

TAGS = (
    *("div", "p", "span", "b", "a", "li", "ul", "h1", "br", "td", "pre", "article", "main"),
    *("nav", "aside", "footer", "form", "button", "select", "script", "style", "noscript"),
    *("iframe", "dialog", "listing", "textarea"),
)
ATTRIBUTES = (
    *("", "", "", " hidden", ' style="Display: none"', ' style="color:red"', ' type=" hidden"'),
    " open",
    *(' class="comments"', ' id="disqus_thread"', ' role=" Navigation"', ' href="/x"'),
    *(' itemtype="http://schema.org/Comment"', ' itemprop="articleBody"', ' class="a b"'),
)
TEXT = st.text(alphabet="ab cd\u00a0\t\n\u00e9\u4e2d\u3000\u200d", max_size=12).map(escape)


def element(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda tag, attributes, content, tail: (
            f"<{tag}{attributes}>{''.join(content)}</{tag}>" + tail
        ),
        st.sampled_from(TAGS),
        st.sampled_from(ATTRIBUTES),
        st.lists(inner, max_size=4),
        TEXT,
    )


PAGES_ = st.lists(
    st.recursive(st.one_of(TEXT, st.just("<!-- c -->")), element, max_leaves=40), max_size=6
).map(lambda parts: f"<html><body>{''.join(parts)}</body></html>")


@dataclass
class Case:
    """A generated page, its view and counts, and random choices over its elements."""

    html: str
    root: etree._Element
    body: etree._Element
    view: DomView
    counts: NodeCounts
    switches: tuple[bool, bool, bool, bool]
    content: list[bool]
    shells: list[bool]
    modes: list[Keep]
    values: list[float]
    density: list[float]
    drop: list[bool]
    ratio: float

    @classmethod
    def of(cls, html: str, rng: random.Random) -> Case:
        root = parse(html)
        page_body = body(root)
        view = dom.build_view(page_body)
        counts = density.count_nodes(view)
        size = len(view)
        modes = [rng.choice((Keep.DROP, Keep.SHELL, Keep.TEXT, Keep.TEXT)) for _ in range(size)]
        switches = (rng.random() < 0.5, rng.random() < 0.5, rng.random() < 0.5, rng.random() < 0.5)
        return cls(
            html=html,
            root=root,
            body=page_body,
            view=view,
            counts=counts,
            switches=switches,
            content=[rng.random() < 0.3 for _ in range(size)],
            shells=[rng.random() < 0.5 for _ in range(size)],
            modes=modes,
            values=[rng.choice((0.0, 1.0, 2.5, rng.random())) for _ in range(size)],
            density=density.densities(counts, composite=switches[0]),
            drop=furniture.boilerplate(view, counts.chars, structural=True, comments=True),
            ratio=rng.choice((0.0, 0.3, 1.0)),
        )


TREES = model.BoostedTrees(
    (0.5, -0.25),
    (
        (model.Tree.from_json([["a", 0.5, 1, 2], ["b", 1.25, 3, 4], [1.5], [-2.0], [0.125]]),),
        (
            model.Tree.from_json([["b", 0.0, 1, 2], [0.75], [-0.5]]),
            model.Tree.from_json([[3.0]]),
        ),
    ),
)
"""Small boosted trees of two classes for ``tree_scores`` (the shipped model's are checked on
every dataset page)."""


def image_words(case: Case) -> dict[str, list[int]]:
    """Every other token of a generated page's text, as the words of two images for
    ``caption_counts``."""
    text = " ".join(run for runs in case.view.runs for run in runs)
    return {word: [0, 1][: 1 + n % 2] for n, word in enumerate(words.tokens(text)[::2])}


@given(text=st.text())
def test_caption_counts_split_text_as_tokens_does(text: str) -> None:
    """The compiled caption counts split a text into :func:`scrapy_cetd.page.words.tokens`'s
    tokens, whatever its characters (CJK alone, underscores, case that changes its length)."""
    arguments = ([-1, 0], [False, True], [[], [text, text[::-1]]], {"a": [0]})
    fast = COMPILED.caption_counts(*arguments)
    with accel.reference_only():
        assert fast == media._caption_counts(*arguments)


ARGUMENTS: dict[str, Callable[[Case], tuple[Any, ...]]] = {
    "build_view": lambda c: (c.body, c.switches[0]),
    "attribute_owners": lambda c: (
        c.root,
        (
            *markup._MARKUP_ATTRIBUTES,
            ("hidden", None),
            ("style", None),
            ("type", None),
            ("href", "/x"),
            ("class", "a b"),
        ),
    ),
    "hidden_elements": lambda c: (c.body,),
    "hidden_text_length": lambda c: (c.body,),
    "count_nodes": lambda c: (c.view.runs, c.view.in_link, c.view.parent),
    "densities": lambda c: (
        c.counts.chars,
        c.counts.tags,
        c.counts.link_chars,
        c.counts.link_tags,
        c.counts.link_ratio,
        c.switches[0],
    ),
    "density_sums": lambda c: (
        c.view.children,
        c.counts.run_chars,
        c.view.in_link,
        c.density,
        c.counts.link_ratio,
        c.switches[0],
    ),
    "ancestors_of": lambda c: (c.view.parent, c.content),
    "holding_tags": lambda c: (c.view.parent, c.view.tags, frozenset({"p", "a", "img"})),
    "content_modes": lambda c: (c.view.parent, c.content, c.shells, c.switches[0], KEEP),
    "own_modes": lambda c: (c.view.parent, c.content, KEEP),
    "kept_elements": lambda c: (c.view.parent, c.modes, KEEP),
    "render": lambda c: (c.view, c.modes, KEEP, dom.BLOCK_TAGS, output.drop_unsafe_attributes),
    "subtree_argmax": lambda c: (c.view.parent, c.values),
    "smooth_over_siblings": lambda c: (c.view.children, c.values),
    "boilerplate": lambda c: (
        c.view.elements,
        c.view.tags,
        c.view.parent,
        c.counts.chars,
        *c.switches,
        c.counts.chars[0] / 2,
        furniture.WRAPPER_SHARE * c.counts.chars[0],
        furniture.BOILERPLATE_TAGS,
        furniture.BOILERPLATE_ROLES,
        furniture.FOOTER_NAME,
    ),
    "without": lambda c: (
        c.view.elements,
        c.view.tags,
        c.view.parent,
        c.view.children,
        c.view.runs,
        c.view.depth,
        c.drop,
        c.switches[1],
        dom.LINK_TAGS,
    ),
    "outermost_chars": lambda c: (c.view.parent, c.content, c.counts.chars),
    "kept_chars": lambda c: (c.view.parent, c.modes, c.counts.chars, KEEP),
    "caption_counts": lambda c: (c.view.parent, c.content, c.view.runs, image_words(c)),
    "body_counts": lambda c: (
        c.view.elements,
        c.view.tags,
        c.view.parent,
        c.view.children,
        c.view.runs,
        c.counts.chars,
        c.counts.link_chars,
        c.counts.tags,
        c.counts.run_chars,
    ),
    "class_words": lambda c: (c.body,),
    "link_counts": lambda c: (
        c.view.elements,
        c.view.tags,
        c.counts.chars,
        c.counts.link_chars,
        c.view.in_link,
    ),
    "outermost_named": lambda c: (c.root, "div" if c.switches[1] else "p"),
    "count_elements": lambda c: (c.root if c.switches[1] else c.body,),
    "markup_scan": lambda c: (c.html, 1 + round(3 * c.ratio)),
    "title_text": lambda c: (c.root if c.switches[2] else c.body,),
    "tree_scores": lambda c: (
        [c.values[i % len(c.values)] - 1.0 for i in range(len(TREES._inputs))],
        TREES._nodes,
        TREES._values,
        TREES._roots,
        TREES.baseline,
    ),
    "weighted_sums": lambda c: (
        [0.5, -1.25, 3.0],
        [(value, -value / 3, value * 1e-9) for value in c.values],
        [c.ratio + value for value in c.values],
    ),
    "drop_link_blocks": lambda c: (
        c.view.parent,
        c.view.tags,
        c.counts.chars,
        c.counts.link_chars,
        list(c.modes),  # changed in place: each call gets its own copy
        c.ratio,
        link_blocks.LINK_BLOCK_TAGS,
        KEEP,
        density.EPSILON,
    ),
}
"""The arguments each pass gets from a generated page, as its callers make them."""


def plain(value: object) -> object:
    """``value`` with every sequence made a list (a view's elements come as ElementNodes from
    the compiled build, as a list from the reference)."""
    if isinstance(value, str | bytes | DomView) or not isinstance(value, Sequence):
        return value
    return [plain(item) for item in value]


def test_every_pass_has_generated_arguments() -> None:
    assert set(ARGUMENTS) == set(accel.PASSES)


@settings(max_examples=150, deadline=None)
@given(html=PAGES_, rng=st.randoms(use_true_random=False))
def test_every_compiled_function_matches_its_reference(html: str, rng: random.Random) -> None:
    """Each registered pair on the same arguments: the same result, and the same arguments
    afterwards (``drop_link_blocks`` changes its modes in place; nothing else changes)."""
    case = Case.of(html, rng)
    for name, each in accel.PASSES.items():
        fast_arguments, slow_arguments = ARGUMENTS[name](case), ARGUMENTS[name](case)
        fast = each.compiled(*fast_arguments)
        assert fast is not None, f"{name} declined a page it handles: {html!r}"
        with accel.reference_only():
            slow = each.reference(*slow_arguments)
        assert plain(fast) == plain(slow), name
        assert plain(fast_arguments) == plain(slow_arguments), name


# --- the page-type classifier's counts on generated pages --------------------------------------

PAGE_TYPE_TAGS = (
    *("div", "div", "p", "span", "a", "li", "li", "ul", "ol", "h1", "h2", "h6", "pre", "code"),
    "kbd",
    *("table", "tr", "td", "dl", "dd", "form", "input", "select", "textarea", "button"),
    *("time", "article", "section", "blockquote", "img", "svg", "nav", "aside", "main"),
)
PAGE_TYPE_ATTRIBUTES = (
    *("", "", "", ' class="card"', ' class="card"', ' class="productCard item-Row x"'),
    *(' class="caf\u00e9Menu"', ' class="abcdefghijklmnopqrstuvwxyzab"', ' type="number"'),
    *(' type="number "', " hidden", ' class="a&amp;bcd"'),
)
PRICED_TEXT = st.text(
    alphabet="ab 12\u0663\u00b2$\u20ac\u00a3\u0e3f\u20ba?\uff1f\u061f\u00a0\t\u4e2d", max_size=12
).map(escape)


def page_type_element(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """An element, or three or four of them in a row (records)."""
    return st.builds(
        lambda tag, attributes, content, tail, times: (
            f"<{tag}{attributes}>{''.join(content)}</{tag}>" * times + tail
        ),
        st.sampled_from(PAGE_TYPE_TAGS),
        st.sampled_from(PAGE_TYPE_ATTRIBUTES),
        st.lists(inner, max_size=5),
        PRICED_TEXT,
        st.sampled_from((1, 1, 3, 4)),
    )


PAGE_TYPE_PAGES = st.lists(
    st.recursive(PRICED_TEXT, page_type_element, max_leaves=60), max_size=6
).map(lambda parts: f"<html><body>{''.join(parts)}</body></html>")


@settings(max_examples=300, deadline=None)
@given(html=PAGE_TYPE_PAGES)
def test_page_type_counts_match_the_reference(html: str) -> None:
    """The classifier's counts on pages made of the tags, classes, digits, currency signs and
    question marks it reads (records of alike siblings, prices across text runs, headings,
    lists in list items, number inputs), and its features and type both ways."""
    root = parse(html)
    view = dom.build_view(body(root))
    assert_same_page_type_numbers(view)
    fast = features.page_features(root, "https://example.com/a/b")
    with accel.reference_only():
        slow = features.page_features(root, "https://example.com/a/b")
    assert fast == slow

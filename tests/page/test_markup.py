"""What a page says about itself: declared types, article bodies, reader texts, headline."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from conftest import STORM_PAGE, deep_chain, parse
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree
from ratios import TENFOLD, growth

from scrapy_cetd.page import accel
from scrapy_cetd.page.markup import (
    LINES_MAX_ELEMENTS,
    json_ld_json,
    json_ld_objects,
    lines_of,
    page_markup,
    page_title,
    title_text,
)


def test_page_markup_reads_json_ld_microdata_and_open_graph() -> None:
    tree = parse(
        "<html><head><script type='application/ld+json'>"
        '{"@context": "https://schema.org", "@graph": [{"@type": ["NewsArticle", "Thing"]},'
        ' {"@type": "Person"}]}</script>'
        "<meta property='og:type' content='article'></head>"
        "<body><div itemscope itemtype='https://schema.org/Comment'>x</div>"
        "<div itemprop='articleBody'>y</div></body></html>"
    )
    markup = page_markup(tree)
    assert markup.types == {"newsarticle", "thing", "person", "article", "comment"}
    assert not markup.discussion and not markup.not_an_article
    assert [element.text for element in markup.article_bodies] == ["y"]


def test_a_broken_json_ld_type_list_declares_nothing() -> None:
    tree = parse(
        "<html><head><script type='application/ld+json'>"
        '{"@type": [NewsArticle", "Thing"], "license": {"@type": "CreativeWork"}}'
        "</script></head><body><p>text</p></body></html>"
    )
    assert page_markup(tree).types == {"creativework"}


def test_json_ld_nested_deeper_than_python_reads_declares_nothing() -> None:
    deep_list = "[" * 5_000 + '"Article"]'
    deep_review = '{"@type": "Review", "reviewBody": ' + "[" * 5_000 + "]" * 5_000 + "}"
    for script in (f'{{"@type": {deep_list}}}', deep_review):
        tree = parse(f"<html><head><script type='application/ld+json'>{script}</script></head>")
        assert not page_markup(tree).user_texts


@pytest.mark.parametrize(
    ("opening", "closing"),
    [
        ("<![CDATA[", "]]>"),
        ("\n  //<![CDATA[\n", "\n//]]>\n"),
        ("/*<![CDATA[*/", "/*]]>*/"),
        ("<!--", "-->"),
        ("<!--//--><![CDATA[//><!--\n", "\n//--><!]]>"),  # Drupal's, both at once
    ],
)
def test_json_ld_wrapped_in_cdata_or_a_comment_is_read(opening: str, closing: str) -> None:
    script = opening + json.dumps({"@type": "Product", "name": "Lamp"}) + closing
    assert list(json_ld_objects(script)) == [{"@type": "Product", "name": "Lamp"}]
    in_page = f"<head><script type='application/ld+json'>{script}</script></head><p>x</p>"
    assert page_markup(parse(in_page)).types == {"product"}


WRAPPERS = (
    ("", ""),
    ("<![CDATA[", "]]>"),
    ("//<![CDATA[", "//]]>"),
    ("/*<![CDATA[*/", "/*]]>*/"),
    ("<!--", "-->"),
    ("<!--//--><![CDATA[//><!--", "//--><!]]>"),
)


@given(
    data=st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=4),
    wrapper=st.sampled_from(WRAPPERS),
    space=st.sampled_from(("", " ", "\n", "\n\t")),
)
def test_any_json_in_any_wrapper_reads_back(
    data: dict[str, str], wrapper: tuple[str, str], space: str
) -> None:
    opening, closing = wrapper
    inside = json.dumps(data)
    assert json_ld_json(space + opening + space + inside + space + closing + space).strip() == (
        inside
    )


def test_unwrapping_grows_linearly_on_scripts_that_almost_open_or_close_a_wrapper() -> None:
    """Near misses of every opening and closing, repeated to a 2 MB script: each is matched at
    the script's start or searched for in its last characters only."""
    near_misses = (
        "<!--//--><![CDATA[//><!-",
        "//--><!]]",
        "//--><!",
        "/*<![CDATA[",
        " \t\n",
    )

    def make(size: int) -> Callable[[], object]:
        scripts = [
            *(miss * (size // len(miss)) for miss in near_misses),
            "<!--//--><![CDATA[//><!--" + "//--><!" * (size // 7),
            " " * size + "<!--//--><![CDATA[//><!-",
        ]
        return lambda: [json_ld_json(script) for script in scripts]

    assert growth(make, 200_000, 2_000_000) < TENFOLD


def test_json_ld_with_a_raw_line_break_in_a_string_is_read() -> None:
    # CMSs paste a multi-line description into the JSON as it is; JSON forbids it, readers don't
    script = '{"@type": "Product", "description": "Warm light.\n\tDimmable."}'
    assert list(json_ld_objects(script)) == [
        {"@type": "Product", "description": "Warm light.\n\tDimmable."}
    ]


def test_only_a_wrapper_around_the_whole_script_is_removed() -> None:
    inside = json.dumps({"name": "a ]]> b"})
    assert json_ld_json(inside) == inside
    assert json_ld_json("<![CDATA[" + inside) == inside  # never closed: the rest is the JSON
    assert json_ld_json(" " * 100_000 + "{}") == " " * 100_000 + "{}"


def test_a_wrapper_closed_before_long_trailing_whitespace_is_removed() -> None:
    # a template's indentation after the closing can be longer than the end searched for it
    inside = json.dumps({"name": "Lamp"})
    assert json_ld_json("<![CDATA[" + inside + "]]>\n" + "\t" * 100) == inside


def test_declared_types_tell_discussions_and_pages_that_are_no_article() -> None:
    forum = page_markup(parse("<body><div itemscope itemtype='https://schema.org/QAPage'>q</div>"))
    assert forum.discussion and forum.not_an_article
    product = page_markup(parse("<head><meta property='og:type' content='product'></head><p>x"))
    assert product.types == {"product"} and product.not_an_article and not product.discussion
    assert not page_markup(parse("<body><p>nothing declared</p></body>")).not_an_article


def test_reader_texts_come_from_json_ld_reviews_comments_and_answers() -> None:
    data = {
        "@type": "Product",
        "review": [{"@type": "Review", "reviewBody": "Warm and dry."}],
        "comment": {"@type": "Comment", "text": "Nice."},
        "offers": {"@type": "Offer", "description": "Not a reader's text."},
    }
    tree = parse(
        f"<head><script type='application/ld+json'>{json.dumps(data)}</script>"
        "<script type='application/ld+json'>{not json</script></head><body>x</body>"
    )
    assert sorted(page_markup(tree).user_texts) == ["Nice.", "Warm and dry."]


def test_og_type_counts_only_in_the_head() -> None:
    tree = parse("<body><meta property='og:type' content='product'><p>x</p></body>")
    assert page_markup(tree).types == frozenset()


def test_page_title_falls_back_to_metadata() -> None:
    assert page_title(parse(STORM_PAGE)) == "Storm hits the coast"
    og = parse(
        "<html><head><meta property='og:title' content=' The  headline '><title>t</title>"
        "</head><body><p>x</p></body></html>"
    )
    assert page_title(og) == "The headline"
    assert page_title(parse("<html><head><title>Only </title></head><body>x</body></html>")) == (
        "Only"
    )
    assert page_title(parse("<body><p>no title</p></body>")) is None


def test_page_title_of_xhtml_read_as_xml() -> None:
    xhtml = (
        "<html xmlns='http://www.w3.org/1999/xhtml'><head><title>Storm | Daily</title></head>"
        "<body>{}<p>x</p></body></html>"
    )
    assert page_title(etree.fromstring(xhtml.format("<h1>Storm</h1>"))) == "Storm"
    assert page_title(etree.fromstring(xhtml.format(""))) == "Storm | Daily"


def json_ld_page(scripts: list[str]) -> str:
    head = "".join(f"<script type='application/ld+json'>{script}</script>" for script in scripts)
    return f"<html><head>{head}</head><body><p>text</p></body></html>"


def markup_of(page: Callable[[int], str]) -> Callable[[int], Callable[[], object]]:
    """For :func:`growth`: reading the markup of ``page(size)``."""

    def make(size: int) -> Callable[[], object]:
        tree = parse(page(size))
        return lambda: page_markup(tree)

    return make


def test_type_lists_that_never_close_are_read_in_linear_time() -> None:
    page = markup_of(lambda size: json_ld_page(['"@type": [ "Article", ' * (size // 24)]))
    assert growth(page, 20_000, 200_000) < TENFOLD
    tree = parse(json_ld_page(['{"@type": ["Review"], "x": ["@type": [ ' * 100 + "]"]))
    assert page_markup(tree).types == {"review"}


def test_type_keys_are_read_whatever_their_values() -> None:
    script = (
        '{"@type" : "NewsArticle", "a": {"@type":["Person", "Thing"]}, "b": {"@type": [1, 2]},'
        ' "c": {"@type": ["x" "y"]}, "d": {"@type": {"no": "list"}}, "e": "\\"@type\\": \\"Q\\"",'
        ' "f": ["@type": "Clip"], "g": {"@type": "Never closed'
    )
    assert page_markup(parse(json_ld_page([script]))).types == {
        "newsarticle", "person", "thing", "1", "2", "clip"
    }  # fmt: skip


def test_json_ld_of_every_shape_is_read_in_linear_time() -> None:
    review = '{"@type": "Review", "reviewBody": "warm and dry and light enough to carry"}'
    nested = '{"@type": "Review", "reviewBody": "text", "item": ' * 50 + "1" + "}" * 50
    shapes: dict[str, Callable[[int], str]] = {
        "many scripts": lambda size: json_ld_page([review] * (size // len(review))),
        "deep nesting": lambda size: json_ld_page(
            ["[" + ", ".join([nested] * (size // len(nested))) + "]"]
        ),
        "a large @graph": lambda size: json_ld_page(
            [json.dumps({"@graph": [json.loads(review)] * (size // len(review))})]
        ),
    }
    for name, page in shapes.items():
        # from 100 kB: below, the objects of one read fit the processor's caches
        assert growth(markup_of(page), 100_000, 1_000_000) < TENFOLD, name


def nested(tag: str, depth: int, text: str = " ") -> etree._Element:
    """An ``<html>`` whose body nests ``depth`` elements ``tag`` holding ``text`` each, and
    then a paragraph; built element by element, since :func:`parse` stops at 256 levels."""
    root, chain = deep_chain(0)
    for _ in range(depth):
        chain.append(etree.SubElement(chain[-1], tag))
        chain[-1].text = text
    etree.SubElement(chain[0], "p").text = "text"
    return root


def test_page_title_reads_each_heading_once() -> None:
    def title_of(page: Callable[[int], etree._Element]) -> Callable[[int], Callable[[], object]]:
        def make(size: int) -> Callable[[], object]:
            tree = page(size)
            return lambda: page_title(tree)

        return make

    assert growth(title_of(lambda depth: nested("h1", depth)), 200, 2_000) < TENFOLD
    siblings = title_of(lambda count: parse("<body>" + "<h1> <b> </b></h1>" * count))
    assert growth(siblings, 2_000, 20_000) < TENFOLD
    headings = nested("h1", 3)
    etree.SubElement(headings[0], "h1").text = "a "
    etree.SubElement(headings[0][-1], "b").text = "b"
    assert page_title(headings) == "a b"


TITLED_PAGES = [
    "<h1> </h1><h1>x <b>y</b></h1>",
    "<h1><h1>in</h1></h1><h1>b</h1>",
    "<h1></h1><meta property='og:title' content=' O  g '>",
    "<meta property='og:title'><meta name='twitter:title' content='T'><title> t </title>",
    "<title>a</title><meta property='og:title' content=''>",
    "<h1><!-- c -->a<!--x-->b</h1>",
    "<html><head><title>  </title><title>2</title></head></html>",
    "<p>none</p>",
    "<h1>\u00a0x\u2003y</h1>",
]
"""Pages whose headline comes from each source, past empty ones."""


def test_the_compiled_title_is_the_reference_s() -> None:
    """The compiled walk gives :func:`title_text`'s reference answer, from the document or
    from its body, on pages of HTML and on an XML tree (CDATA, nested titles)."""
    trees = [parse(page) for page in TITLED_PAGES]
    trees += [body for tree in trees if (body := tree.find("body")) is not None]
    xml = "<r><title>a<title>b</title></title><h1><![CDATA[c]]></h1></r>"
    trees.append(etree.fromstring(xml, etree.XMLParser(strip_cdata=False)))
    for tree in trees:
        expected = title_text.reference(tree)
        assert accel.compiled.title_text(tree) in (expected, None)
        assert page_title(tree) == (expected or None)
    assert [title_text(tree) for tree in trees[:5]] == ["x y", "in", "O g", "T", "a"]


def test_lines_of_breaks_the_text_at_blocks() -> None:
    byline = parse(
        "<div id='b'><div>Written By</div><div>Ana <b>Lima</b></div>Editor<!-- note -->"
        "<script>var x;</script><br>2024</div>"
    ).find(".//div[@id='b']")
    assert byline is not None
    lines = [line for line in lines_of(byline, 1000).splitlines() if line]
    assert lines == ["Written By", "Ana Lima", "Editor", "2024"]


def test_lines_of_apart_reads_each_element_s_text_as_words_of_its_own() -> None:
    """A byline's elements side by side (``<a>Jane Doe</a><span>Editor</span>``, a prefix
    before a comment) are read apart, with a space between their texts; by default a word
    may run across elements (``<b>J</b>ane``)."""
    byline = parse(
        "<p id='b'><b>By<!-- --> <a>Jane Doe</a></b><span>Editor</span><br><b>J</b>ane</p>"
    ).find(".//p[@id='b']")
    assert byline is not None
    lines = [" ".join(line.split()) for line in lines_of(byline, 1000, apart=True).splitlines()]
    lines = [line for line in lines if line]
    assert lines == ["By Jane Doe Editor", "J ane"]
    assert [line for line in lines_of(byline, 1000).splitlines() if line] == [
        "By Jane DoeEditor",
        "Jane",
    ]


def test_lines_of_reads_the_text_after_a_comment_or_a_processing_instruction() -> None:
    value = parse("<p id='v'>Light <!-- x --> shoe, <?php echo 1 ?> red <b>and</b> wide</p>")
    element = value.find(".//p[@id='v']")
    assert element is not None
    assert " ".join(lines_of(element, 1000).split()) == "Light shoe, red and wide"


def test_lines_of_stops_near_its_limit_and_grows_linearly() -> None:
    long = parse("<div id='l'>" + "<p>words and more words</p>" * 1000 + "</div>").find(".//div")
    assert long is not None
    assert len(lines_of(long, 100)) < 200

    def chain(depth: int) -> Callable[[], object]:
        root, elements = deep_chain(depth)
        elements[-1].text = "name"
        return lambda: lines_of(root, 1000)

    assert growth(chain, 1_000, 10_000) < TENFOLD


def test_lines_of_walks_a_bounded_number_of_elements() -> None:
    """Elements without text cost their walk too: past :data:`LINES_MAX_ELEMENTS` of them,
    the text after them is not read."""
    empty = "<i></i>" * LINES_MAX_ELEMENTS
    near = parse(f"<div id='n'>{empty[: -7 * 10]}Ana Lima</div>").find(".//div")
    far = parse(f"<div id='f'>{empty}<b></b>Ana Lima</div>").find(".//div")
    assert near is not None and far is not None
    assert lines_of(near, 1000).strip() == "Ana Lima"
    assert lines_of(far, 1000).strip() == ""

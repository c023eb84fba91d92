"""The view's own walks: a subtree's end, its collapsed text, an element's ancestors."""

from __future__ import annotations

from contextlib import nullcontext

from conftest import deep_chain, parse

from scrapy_cetd.page import accel
from scrapy_cetd.page.dom import (
    HOLD_DEPTH,
    DomView,
    build_view,
    child_positions,
    deep_proxies,
    find_body,
    has_depth,
    hidden_in_order,
    hidden_text_length,
    in_running_text,
    is_hidden,
)


def _view(html: str) -> DomView:
    body = find_body(parse(html))
    assert body is not None
    return build_view(body)


def test_a_phrase_is_in_running_text_and_a_control_beside_separators_is_not() -> None:
    view = _view(
        "<body><p>set <b>chain</b> first</p><p><b>alone</b></p>"
        "<div><a>Reply</a> · <a>Quote</a></div><p><i>x</i>2 <i>y</i></p></body>"
    )
    positions = child_positions(view)
    assert [view.tags[i] for i in range(len(view))] == [
        *("body", "p", "b", "p", "b", "div", "a", "a", "p", "i", "i"),
    ]
    assert [positions[i] for i in (2, 4, 6, 7, 9, 10)] == [0, 0, 0, 1, 0, 1]
    running = [in_running_text(view, positions, i) for i in range(len(view))]
    assert running == [False, False, True, False, False, False, False, False, False, True, True]


def test_a_dialog_is_hidden_until_it_is_open() -> None:
    """Browsers show a ``<dialog>`` only with ``open``: a closed one is hidden as a ``hidden``
    element is, compiled or not, and an open one hidden only by the usual markup."""
    page = (
        "<body><p>shown</p><dialog><p>closed</p></dialog><dialog class='x'>classed</dialog>"
        "<dialog open>open</dialog><dialog open hidden>open but hidden</dialog></body>"
    )
    body = find_body(parse(page))
    assert body is not None
    closed, classed, opened, opened_hidden = body.iter("dialog")
    assert [is_hidden(dialog) for dialog in (closed, classed, opened, opened_hidden)] == [
        *(True, True, False, True),
    ]
    for mode in (nullcontext, accel.reference_only):  # compiled when built, then the reference
        with mode():
            view = build_view(body)
            assert hidden_in_order(body) == [closed, classed, opened_hidden]
            assert hidden_text_length(body) == len("closedclassedopen but hidden")
        assert [view.tags[i] for i in range(len(view))] == ["body", "p", "dialog"]
        assert view.collapsed_runs(0, len(view)) == "shown open"


def test_a_subtree_ends_where_the_preorder_leaves_it() -> None:
    view = _view("<body><div><p>a <b>b</b></p><p>c</p></div><p>d</p></body>")
    div, first, bold, second, last = range(1, 6)
    assert view.tags[div] == "div" and view.tags[last] == "p"
    assert view.subtree_end(div) == last
    assert view.subtree_end(first) == second
    assert view.subtree_end(bold) == second
    assert view.subtree_end(last) == len(view)
    assert view.subtree_end(0) == len(view)
    assert list(view.ancestors(bold)) == [first, div, 0]


def test_collapsed_runs_join_each_elements_runs_with_single_spaces() -> None:
    view = _view(
        "<body><ul><li>Add  to\n cart</li></ul><ul><li> Add to <i>cart</i></li></ul></body>"
    )
    first, second = (i for i in range(len(view)) if view.tags[i] == "ul")
    assert view.collapsed_runs(first, view.subtree_end(first)) == "Add to cart"
    assert view.collapsed_runs(second, view.subtree_end(second)) == "Add to cart"
    assert view.collapsed_runs(first, first) == ""


def test_a_deep_subtree_is_walked_without_recursion() -> None:
    _root, chain = deep_chain(20_000)
    view = build_view(chain[0])
    assert len(view) == 20_001
    assert view.subtree_end(1) == len(view)
    assert view.subtree_end(len(view) - 1) == len(view)


def test_has_depth_reads_the_largest_power_of_two_within_the_levels() -> None:
    root, _ = deep_chain(100)  # html > body > 100 divs: 101 levels below html
    assert has_depth(root, 64)
    assert has_depth(root, 127)  # 64 levels, the shallow probe alone
    assert not has_depth(root, 128)  # past the shallow probe, the deeper one says no
    shallow, _ = deep_chain(3)
    assert not has_depth(shallow, 4096)
    assert has_depth(shallow, 4)
    assert has_depth(shallow, 0)


def test_deep_proxies_holds_every_node_of_a_deep_tree_only() -> None:
    shallow, _ = deep_chain(HOLD_DEPTH - 2)  # html and body above: HOLD_DEPTH - 1 levels
    assert deep_proxies(shallow) == []
    deep, chain = deep_chain(HOLD_DEPTH)
    held = deep_proxies(deep)
    assert held == [deep, *chain]

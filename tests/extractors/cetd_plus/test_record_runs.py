"""The runs of records: a list bounded by its records, and a list or a thread ending with its
last record or post.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from cetdpluskit import prose, text_as
from conftest import deep_chain
from lxml import etree
from ratios import TENFOLD, growth

from scrapy_cetd.extractors.cetd_plus.record_runs import (
    alike_siblings,
    drop_after_run,
    record_run,
)
from scrapy_cetd.page.density import count_nodes
from scrapy_cetd.page.dom import build_view
from scrapy_cetd.page.output import Keep
from scrapy_cetd.page.parse import to_tree


def test_listing_is_bounded_by_its_records_and_heading() -> None:
    records = "".join(
        f'<div class="card"><a href="/c/{n}">Course {n}</a><p>{prose(f"course {n}", 1)}</p></div>'
        for n in range(5)
    )
    page = (
        '<html><body><div class="content"><h1>Courses this autumn</h1>'
        f'<p>{prose("course catalogue", 1)}</p><div class="cards">{records}</div></div>'
        f'<div class="promo"><p>{prose("newsletter offer", 2)}</p></div></body></html>'
    )
    with_profile = text_as(page, "listing")
    assert "course 4" in with_profile
    assert "Courses this autumn" in with_profile
    assert "course catalogue" in with_profile
    assert "newsletter offer" not in with_profile
    assert "newsletter offer" in text_as(page, "listing", record_share=None)
    assert "newsletter offer" in text_as(page, "collection")


def _thread_followed_by(after: str, last: str = "", tag: str = "article", box: str = "div") -> str:
    posts = "".join(
        f'<{tag} class="post"><span>poster {n}</span><p>{prose(f"kettle answer {n}", 2)}</p>'
        f"</{tag}>"
        for n in range(3)
    )
    return (
        '<html><body><div class="thread"><h1>How do I descale a kettle?</h1>'
        f'<div class="posts">{posts}{last}<{box} class="reply-box">{after}</{box}></div></div>'
        "</body></html>"
    )


@pytest.mark.parametrize("tag", ["article", "div"])
def test_forum_ends_with_its_last_post(tag: str) -> None:
    """What follows the last post in the posts' region (the reply box, a "who is reading"
    panel) goes, also when it has the posts' tag (``<div>`` posts, a ``<div>`` reply box); a
    post the run of posts missed (the asker's, under a class of its own; the replies nested
    under the last post) and a text that holds more than ``after_posts_share`` of the posts'
    text stay."""
    reply = '<p>Sign in to reply to this thread.</p><a href="/join">Create an account</a>'
    short = _thread_followed_by(reply, tag=tag)
    assert "kettle answer 2" in text_as(short, "forum")
    assert "Sign in to reply" not in text_as(short, "forum")
    assert "Sign in to reply" in text_as(short, "forum", after_posts_share=None)
    asker = f'<{tag} class="asker"><span>asker</span><p>{prose("kettle thanks", 2)}</p></{tag}>'
    own = _thread_followed_by(reply, last=asker, tag=tag)
    assert "kettle thanks" in text_as(own, "forum")
    assert "Sign in to reply" not in text_as(own, "forum")
    nested = f'<section><{tag} class="post">{prose("kettle reply", 1)}</{tag}></section>'
    replies = _thread_followed_by(reply, last=nested, tag=tag)
    assert "kettle reply" in text_as(replies, "forum")
    assert "Sign in to reply" not in text_as(replies, "forum")
    # (a long <div> after <div> posts is taken for a post the run missed: a <section> here)
    long = _thread_followed_by(f"<p>{prose('kettle summary', 4)}</p>", tag=tag, box="section")
    assert "kettle summary" in text_as(long, "forum")
    assert "kettle summary" not in text_as(long, "forum", after_posts_share=1.0)


def _zebra_thread(classes: list[str]) -> str:
    """A thread in phpBB's markup: its posts, one of each of ``classes``, each a poster's pane
    and a text, a divider between them; the last a short reply."""
    texts = [prose(f"hull answer {n}", 2) for n in range(len(classes) - 1)]
    texts.append("Thanks all, it worked.")
    posts = "<hr class='divider'>".join(
        f'<div id="p{n}" class="{name}"><div class="inner"><dl class="postprofile">'
        f'<dt><a href="/u/{n}">poster {n}</a></dt><dd>Posts: {n + 10}</dd></dl>'
        f'<div class="postbody"><div class="content">{text}</div></div></div></div>'
        for n, (name, text) in enumerate(zip(classes, texts, strict=True))
    )
    return (
        '<html><body><div id="wrap"><div class="navbar"><a href="/">Board index</a></div>'
        f'<div id="page-body"><h2>How do I patch a hull?</h2>{posts}<hr class="divider">'
        '<div class="action-bar"><a href="/reply">Post Reply</a></div></div></div></body></html>'
    )


@pytest.mark.parametrize(
    "classes",
    [["post bg1", "post bg2"] * 2, ["post bg1", "post bg2"] * 2 + ["post bg1"], ["post bg1"] * 4],
)
def test_a_thread_whose_posts_take_turns_in_two_classes_keeps_its_short_reply(
    classes: list[str],
) -> None:
    """Posts shaded in turn (phpBB's ``bg1`` and ``bg2``) are one run of posts, as posts of
    one class are, so the thread's short last reply is kept whole with the others."""
    text = text_as(_zebra_thread(classes), "forum")
    assert "hull answer 0" in text
    assert "Thanks all, it worked." in text


def _groups(classes: list[str]) -> list[list[str]]:
    """The classes of the groups :func:`alike_siblings` makes of ``<div>`` siblings of those
    ``classes``."""
    siblings = "".join(f'<div class="{name}">record {n}</div>' for n, name in enumerate(classes))
    body = to_tree(f"<html><body>{siblings}</body></html>").find("body")
    assert body is not None
    view = build_view(body)
    return [
        [view.elements[c].get("class") or "" for c in group]
        for group in alike_siblings(view, view.children[0])
    ]


def test_siblings_whose_classes_take_turns_are_one_group() -> None:
    """Two classes whose siblings alternate are one group, also past a sibling of a third
    class between them; two that do not alternate (two of one in a row) stay apart, and so
    does a lone sibling between two of another class (a block's head, body and foot)."""
    assert _groups(["odd", "even", "odd", "even"]) == [["odd", "even", "odd", "even"]]
    assert _groups(["row", "row alt", "row", "banner", "row alt", "row"]) == [
        ["row", "row alt", "row", "row alt", "row"],
        ["banner"],
    ]
    assert _groups(["a", "a", "b", "b"]) == [["a", "a"], ["b", "b"]]
    assert _groups(["a", "b", "b", "a"]) == [["a", "a"], ["b", "b"]]
    assert _groups(["pod head", "pod body", "pod head"]) == [["pod head", "pod head"], ["pod body"]]


def test_siblings_are_grouped_in_linear_time() -> None:
    """Each class is tried with one other only: siblings of many classes, each following the
    others in turn, are read a bounded number of times, not once per pair of classes."""

    def make(n: int) -> Callable[[], object]:
        width = int(n**0.5)
        siblings = "".join(f'<div class="c{k % width}">record {k}</div>' for k in range(n))
        body = to_tree(f"<html><body>{siblings}</body></html>").find("body")
        assert body is not None
        view = build_view(body)
        return lambda: alike_siblings(view, view.children[0])

    assert growth(make, 2_000, 20_000) < TENFOLD


def _listing_followed_by(after: str, last: str = "", outside: str = "") -> str:
    records = "".join(
        f'<div class="card"><a href="/c/{n}">Course {n}</a><p>{prose(f"course {n}", 1)}</p></div>'
        for n in range(5)
    )
    return (
        '<html><body><div class="content"><h1>Courses this autumn</h1>'
        f'<div class="cards">{records}{last}</div><div class="pages">{after}</div></div>'
        f"{outside}</body></html>"
    )


def test_listing_ends_with_its_last_record() -> None:
    """What follows the last record in the records' region (pagination after the records'
    wrapper, a short "popular" list) goes, however long what lies outside the region; a
    record the run missed (a class of its own beside the records' own) and a text below the
    records that holds more than ``after_records_share`` of their text (a category's
    description) stay."""
    pager = '<a href="/p/2">Next page</a> <a href="/p/3">Page three</a>'
    promo = f'<div class="promo"><p>{prose("newsletter offer", 6)}</p></div>'
    short = _listing_followed_by(pager, outside=promo)
    assert "course 4" in text_as(short, "listing")
    assert "Next page" not in text_as(short, "listing")
    assert "Next page" in text_as(short, "listing", after_records_share=None)
    last = '<div class="card card--last"><a href="/c/9">Course 9, in short</a></div>'
    missed = _listing_followed_by(pager, last=last)
    assert "Course 9" in text_as(missed, "listing")
    assert "Next page" not in text_as(missed, "listing")
    long = _listing_followed_by(f"<p>{prose('category description', 3)}</p>")
    assert "category description" in text_as(long, "listing")
    assert "category description" not in text_as(long, "listing", after_records_share=1.0)


def test_a_run_in_turns_ends_past_a_record_of_either_class() -> None:
    """A record the run missed after records in two classes by turns (``odd`` and ``even``)
    stays when it shares a word with either class, not only the first record's."""
    records = "".join(
        f'<div class="{"odd" if n % 2 else "even"}"><a href="/c/{n}">Course {n}</a>'
        f"<p>{prose(f'course {n}', 1)}</p></div>"
        for n in range(6)
    )
    page = (
        '<html><body><div class="content"><h1>Courses this autumn</h1>'
        f'<div class="cards">{records}<div class="odd last"><a href="/c/9">Course 9</a></div>'
        '</div><div class="pages"><a href="/p/2">Next page</a></div></div></body></html>'
    )
    text = text_as(page, "listing")
    assert "Course 9" in text
    assert "Next page" not in text


def test_what_follows_a_run_is_read_in_linear_time() -> None:
    """Each element after the last record is asked whether it is one the run missed; the run is
    read once for all of them (reading it once per element took 14 s on a page of 20,000
    records followed by 20,000 siblings of their tag)."""

    def make(n: int) -> Callable[[], object]:
        cards = "".join(
            f'<div class="card"><a href="/c/{k}">Course number {k}</a></div>' for k in range(n)
        )
        tail = "".join(f'<div class="x">x{k}</div>' for k in range(n))
        root = to_tree(f'<html><body><div class="cards">{cards}{tail}</div></body></html>')
        body = root.find("body")
        assert body is not None
        view = build_view(body)
        chars = count_nodes(view).chars
        run = record_run(view, chars, 0.3)
        assert len(run) == n
        modes = [Keep.TEXT] * len(view)
        return lambda: drop_after_run(view, chars, modes, run, view.parent[run[0]], share=0.3)

    assert growth(make, 2_000, 20_000) < TENFOLD


def test_what_follows_a_deep_run_is_read_in_linear_time() -> None:
    """The elements after the last record of a run nested deep, and the subtree after the last
    post of a thread: the proxy of each element read for its class, freed alone, walked up to
    the closest ancestor that had one, the depth (95,000 siblings after records 95,000 levels
    deep took 42 s; a thread followed by a 100,000-deep chain, 15 s)."""

    def make(size: int, *, thread: bool) -> Callable[[], object]:
        root, chain = deep_chain(size)
        records = [etree.SubElement(chain[-1], "li", {"class": "card"}) for _ in range(3)]
        for record in records:
            record.text = prose("a record", 2)
        tail = etree.SubElement(chain[-1], "div")
        for _ in range(size):  # siblings of the records, or a chain below them
            etree.SubElement(chain[-1], "li", {"class": "other"})
            tail = etree.SubElement(tail, "li") if thread else tail
        del chain, records, tail  # freed deepest first: no proxy is held
        view = build_view(root)
        chars = count_nodes(view).chars
        run = record_run(view, chars, 0.3)
        assert len(run) == 3
        modes = [Keep.TEXT] * len(view)
        return lambda: drop_after_run(view, chars, modes, run, 0, share=0.3, thread=thread)

    assert growth(lambda size: make(size, thread=False), 1_000, 10_000) < TENFOLD
    assert growth(lambda size: make(size, thread=True), 1_000, 10_000) < TENFOLD

"""A forum thread's profile on a small hand-made thread, against the same page extracted
without each step.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from cetdpluskit import THREAD, prose, text_as


def test_forum_keeps_the_replies() -> None:
    with_profile = text_as(THREAD, "forum")
    assert "Vinegar and water" in with_profile
    assert "Citric acid works faster" in with_profile
    assert "kettle question" in with_profile
    without = text_as(THREAD, "forum", thread_posts=False)
    assert "Vinegar and water" not in without


@pytest.mark.parametrize(
    "signature",
    [
        '<div class="message-signature">{}</div>',
        '<div data-role="memberSignature">{}</div>',
        '<div id="msg_1_signature"><p>{}</p></div>',
    ],
)
def test_forum_drops_the_signatures(signature: str) -> None:
    signed = signature.format(prose("home workshop tools", 1))
    page = THREAD.replace("</p></div>", f"</p>{signed}</div>")
    assert "home workshop tools" not in text_as(page, "forum")
    assert "Citric acid works faster" in text_as(page, "forum")
    assert "home workshop tools" in text_as(page, "forum", signatures=False)


def _with_details(page: str, posters: Sequence[str]) -> str:
    """``page`` with a list of details (the date each poster joined) after each poster's
    name."""
    for n, poster in enumerate(posters):
        page = page.replace(
            f"<span>{poster}</span>",
            f'<span>{poster}</span><dl class="pairs"><dt>Joined</dt><dd>Mar 1{n}, 2016</dd></dl>',
        )
    return page


def test_forum_drops_the_posters_details_repeated_under_each_post() -> None:
    page = _with_details(THREAD, ["asker", "helper", "chemist"])
    with_profile = text_as(page, "forum")
    assert "Joined" not in with_profile
    assert "Mar 11, 2016" not in with_profile
    assert "Citric acid works faster" in with_profile
    assert "Mar 11, 2016" in text_as(page, "forum", detail_lists=False)
    assert "Mar 10, 2016" in text_as(_with_details(THREAD, ["asker"]), "forum")


def test_forum_drops_the_posters_panes_named_by_their_class() -> None:
    """A details pane whose term is the poster's name (phpBB's ``postprofile``: each list's
    terms differ) is one of the posters' details by its class, which the lists share; lists
    without a class are still compared by their terms."""
    page = THREAD
    for n, poster in enumerate(["asker", "helper", "chemist"]):
        page = page.replace(
            f"<span>{poster}</span>",
            f'<dl class="postprofile"><dt><a href="/u/{n}">{poster}</a></dt>'
            f"<dd>Posts: {n + 7}1</dd><dd>Location: Harbour {n}</dd></dl>",
        )
    with_profile = text_as(page, "forum")
    assert "Location: Harbour 1" not in with_profile
    assert "Citric acid works faster" in with_profile
    assert "Location: Harbour 1" in text_as(page, "forum", detail_lists=False)
    unnamed = page.replace(' class="postprofile"', "")
    assert "Location: Harbour 1" in text_as(unnamed, "forum")


def test_forum_drops_the_labels_repeated_under_each_post() -> None:
    page = THREAD.replace("</p></div>", '</p><a href="#">Quote</a></div>')
    assert page.count("Quote") == 3
    assert "Quote" not in text_as(page, "forum")
    assert "Citric acid works faster" in text_as(page, "forum")
    assert text_as(page, "forum", repeated_labels=False).count("Quote") == 3
    twice = page.replace('<a href="#">Quote</a>', "", 1)
    assert text_as(twice, "forum").count("Quote") == 2


def test_forum_keeps_a_term_repeated_inside_its_sentences() -> None:
    """A term each post writes in bold or as code is a phrase of a sentence, not a label:
    the sentence stays whole; controls beside separators alone still go."""
    page = THREAD.replace(
        "</p></div>",
        " Set the <strong>descale mode</strong> flag first.</p>"
        '<a href="#">Reply</a> · <a href="#">Quote</a></div>',
    )
    assert page.count("<strong>descale mode</strong>") == 3
    text = text_as(page, "forum")
    assert text.count("Set the descale mode flag first.") == 3
    assert "Reply" not in text
    assert "Quote" not in text


def test_forum_is_bounded_by_the_region_of_its_posts() -> None:
    posts = "".join(
        f'<div class="post"><span>poster {n}</span><p>{prose(f"kettle answer {n}", 2)}</p></div>'
        for n in range(3)
    )
    page = (
        f'<html><body><div class="thread"><h1>How do I descale a kettle?</h1>{posts}</div>'
        f'<div class="promo"><p>{prose("newsletter offer", 3)}</p></div></body></html>'
    )
    with_profile = text_as(page, "forum")
    assert "kettle answer 2" in with_profile
    assert "descale a kettle" in text_as(page, "forum", include_title=True)
    assert "newsletter offer" not in with_profile
    assert "newsletter offer" in text_as(page, "forum", post_region=None)


def test_forum_keeps_the_posts_in_a_form() -> None:
    page = THREAD.replace("<main>", '<main><form action="/moderate">').replace(
        "</main>", f'</form><div class="about"><p>{prose("forum rules", 12)}</p></div></main>'
    )
    with_profile = text_as(page, "forum")
    assert "Citric acid works faster" in with_profile
    assert "Citric acid works faster" not in text_as(page, "forum", post_forms=False)


def _post(poster: int, body: str) -> str:
    """A post of a thread: its poster's name and links to their pages, then its body."""
    links = "".join(
        f'<li><a href="/u/{poster}/{page}">{page}</a></li>'
        for page in ("profile", "messages", "follow")
    )
    return (
        f'<div class="post"><ul class="author"><li>poster {poster}</li>{links}</ul>'
        f'<div class="body">{body}</div></div>'
    )


def test_forum_keeps_every_post_whole() -> None:
    posts = "".join(_post(n, f"<p>{prose(f'kettle answer {n}', 3)}</p>") for n in range(3))
    page = (
        f'<html><body><div class="thread"><h1>How do I descale a kettle?</h1>{posts}'
        f"{_post(3, '<p>Thanks, that worked.</p>')}</div></body></html>"
    )
    assert "Thanks, that worked." in text_as(page, "forum")
    assert "kettle answer 2" in text_as(page, "forum")
    assert "Thanks, that worked." not in text_as(page, "forum", whole_posts=None)


def test_forum_drops_the_comments_nested_in_a_post() -> None:
    comments = (
        '<ul class="comments-list"><li class="comment">Could you post the model of your'
        " kettle? It matters for the descaling.</li></ul>"
    )
    posts = "".join(
        _post(n, f"<p>{prose(f'kettle answer {n}', 3)}</p>{comments if n == 1 else ''}")
        for n in range(3)
    )
    page = (
        f'<html><body><div class="thread"><h1>How do I descale a kettle?</h1>{posts}'
        "</div></body></html>"
    )
    assert "model of your kettle" not in text_as(page, "forum")
    assert "kettle answer 1" in text_as(page, "forum")
    assert "model of your kettle" in text_as(page, "forum", post_comments=None)


def test_a_post_named_a_comment_stays() -> None:
    posts = "".join(
        _post(n, f'<div class="comment-body"><p>{prose(f"kettle answer {n}", 3)}</p></div>')
        for n in range(3)
    )
    page = f'<html><body><div class="thread"><h1>Descaling</h1>{posts}</div></body></html>'
    assert "kettle answer 1" in text_as(page, "forum")


def test_forum_keeps_replies_indented_with_description_lists() -> None:
    """A ``<dl>`` without terms (a wiki's replies indented with ``<dd>``) is no list of details:
    three such replies are kept, though their lists share a class and have no terms alike."""
    replies = "".join(
        f'<dl class="indent"><dd><span>{name}</span><p>{prose(topic, 2)}</p></dd></dl>'
        for name, topic in (
            ("helper", "vinegar"),
            ("chemist", "citric acid"),
            ("plumber", "limescale"),
        )
    )
    page = THREAD.replace('<section class="comments">', f'<section class="comments">{replies}')
    with_profile = text_as(page, "forum")
    for topic in ("vinegar", "citric acid", "limescale"):
        assert f"The {topic} was discussed" in with_profile

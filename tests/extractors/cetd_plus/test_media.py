"""Steps 9 and 10: the galleries and the captions inside an article."""

from __future__ import annotations

import pytest
from cetdpluskit import ARTICLE, PARAGRAPHS, extraction, lines
from ratios import TENFOLD, growth


def _slides(count: int, caption: str) -> str:
    return "".join(
        f"<div class='slide'><img src='/{i}.jpg'><span class='caption'>Photo {i}: {caption}"
        "</span><span>Hide caption</span></div>"
        for i in range(count)
    )


def test_a_gallery_inside_the_article_goes() -> None:
    gallery = f"<div class='gallery'>{_slides(4, 'the sea wall at dawn')}</div>"
    page = f"<html><body><div>{ARTICLE.replace('</h1>', '</h1>' + gallery)}</div></body></html>"
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    assert "Photo 3: the sea wall at dawn" in "\n".join(lines(page, remove_galleries=False))


def test_two_pictures_are_not_a_gallery() -> None:
    gallery = f"<div class='gallery'>{_slides(2, 'the sea wall at dawn')}</div>"
    page = f"<html><body><div>{ARTICLE.replace('</h1>', '</h1>' + gallery)}</div></body></html>"
    assert "Photo 1: the sea wall at dawn" in "\n".join(lines(page))


def _columns(first: int, text: str) -> str:
    """A row of three columns, each a picture, a heading and a paragraph."""
    return (
        "<div class='row'>"
        + "".join(
            f"<div class='col'><img src='/{n}.jpg'><h3>Plant {n}</h3><p>Plant {n} {text}</p></div>"
            for n in range(first, first + 3)
        )
        + "</div>"
    )


SECTION = (
    "grows in the dim corner of a north-facing room, where little of the winter sun reaches "
    "it, and asks for water only when the top of its soil has dried out. Its leaves, long "
    "and marked with pale bands, turn towards whatever light there is, and a pot that is "
    "turned a quarter every week keeps it upright. Repotting can wait for years: it grows "
    "slowly and is happy when its roots fill the pot."
)


def test_headed_sections_laid_out_in_columns_are_not_a_gallery() -> None:
    """Two rows of three columns, each row under half the text: a listicle's sections."""
    rows = _columns(0, SECTION) + _columns(3, SECTION)
    page = f"<html><body><div>{ARTICLE.replace('</article>', rows + '</article>')}</div></body>"
    text = "\n".join(lines(page))
    assert f"Plant 0 {SECTION}" in text
    assert f"Plant 5 {SECTION}" in text


def test_headed_teasers_are_a_gallery() -> None:
    teaser = "grows in the dim corner of a north-facing room."
    rows = _columns(0, teaser) + _columns(3, teaser)
    page = f"<html><body><div>{ARTICLE.replace('</article>', rows + '</article>')}</div></body>"
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]


def test_tables_in_figures_are_not_a_gallery() -> None:
    tables = "".join(
        f"<figure class='table'><table><tr><th>Town {n}</th><td>{n * 40} homes left</td></tr>"
        f"<tr><th>Rain</th><td>{n + 80} mm</td></tr></table></figure>"
        for n in range(3)
    )
    page = f"<html><body><div>{ARTICLE.replace('</h1>', '</h1>' + tables)}</div></body></html>"
    assert "80 homes left" in "\n".join(lines(page))


def test_cards_that_hold_most_of_the_text_are_the_content() -> None:
    items = "".join(
        f"<div class='item'><img src='/{i}.jpg'><p>{text}</p></div>"
        for i, text in enumerate(PARAGRAPHS)
    )
    page = f"<html><body><article><h1>Three things</h1>{items}</article></body></html>"
    assert lines(page) == ["Three things", *PARAGRAPHS]


CAPTION = "Waves break over the sea wall at dawn, as seen from the harbour on Monday"


ARTICLE_TYPE = '<meta property="og:type" content="article">'


def _captioned(figure: str, declared: str = ARTICLE_TYPE) -> str:
    body = ARTICLE.replace("</h1>", "</h1>" + figure)
    return f"<html><head>{declared}</head><body><div>{body}</div></body></html>"


def test_a_caption_that_repeats_the_image_alt_goes() -> None:
    figure = f"<figure><img src='/wall.jpg' alt='{CAPTION}.'><figcaption>{CAPTION} (AP)"
    page = _captioned(figure + "</figcaption></figure>")
    assert lines(page) == ["Storm hits the coast", *PARAGRAPHS]
    assert f"{CAPTION} (AP)" in lines(page, remove_captions=False)


def test_a_phrase_of_a_sentence_that_repeats_an_alt_is_no_caption() -> None:
    """A sentence that links or stresses words an image's alternative text also holds keeps
    them: the phrase has words of its sentence beside it, a caption stands alone."""
    sentence = f"Readers sent this photo: <em>{CAPTION}</em>, and many more like it."
    figure = f"<img src='/wall.jpg' alt='{CAPTION}'><p>{sentence}</p>"
    assert f"Readers sent this photo: {CAPTION}, and many more like it." in lines(
        _captioned(figure)
    )


def test_captions_kept_apart_from_their_slides_go() -> None:
    slides = f"<ul><li><img src='/1.jpg' alt='{CAPTION}'></li></ul>"
    captions = f"<div class='captions'><p>Image 1 of 1</p><p>{CAPTION} more</p></div>"
    assert lines(_captioned(slides + captions)) == [
        "Storm hits the coast",
        "Image 1 of 1",
        *PARAGRAPHS,
    ]


@pytest.mark.parametrize(
    ("figure", "kept"),
    [
        (f"<img src='/wall.jpg' alt='{CAPTION}'><h2>{CAPTION}</h2>", CAPTION),  # a heading
        (f"<div><img alt='{CAPTION}'><h2>{CAPTION}</h2><p>By AP</p></div>", CAPTION),
        (f"<img src='/wall.jpg' alt='Waves break'><p>{CAPTION}</p>", CAPTION),  # alt says less
        (f"<img src='/wall.jpg' alt='{CAPTION}'><p>Waves break over it</p>", "Waves break over it"),
    ],
)
def test_headings_and_texts_that_do_not_repeat_the_alt_stay(figure: str, kept: str) -> None:
    assert kept in lines(_captioned(figure))


def test_captions_stay_on_pages_that_declare_no_article() -> None:
    figure = f"<img src='/wall.jpg' alt='{CAPTION}'><p>{CAPTION}</p>"
    assert CAPTION in lines(_captioned(figure, declared=""))
    product = '<meta property="og:type" content="product">'
    assert CAPTION in lines(_captioned(figure, declared=product))


def test_captions_are_found_in_linear_time_on_deep_chains() -> None:
    """A chain of small blocks whose words are all images' words, none of them one image's:
    each block of the chain is a candidate caption."""
    images = "".join(f"<img alt='w{i} x{i} y{i}'>" for i in range(50))
    images += f"<img alt='{CAPTION} {'and more ' * 1_000}'>"  # every block is small beside it

    def page(depth: int) -> str:
        chain = "".join(f"<div>w{i % 50} " for i in range(depth)) + "</div>" * depth
        return _captioned(images + chain).replace("<p>", "<p>" + " ".join(PARAGRAPHS) * 3)

    assert growth(extraction(page), 150, 1_500) < TENFOLD
    assert {"w1", "w2"} <= set(lines(page(150)))

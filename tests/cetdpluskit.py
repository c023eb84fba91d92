"""Hand-made pages for the cetd-plus tests (a news article with its furniture, a page of
each type that has a profile) and the helpers that extract them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict

from lxml import etree

from scrapy_cetd import CetdPlusExtractor, extract
from scrapy_cetd.page.parse import to_tree

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11


PARAGRAPHS = [
    "Heavy rain and strong winds battered the coastal towns on Monday, forcing hundreds of "
    "residents to leave their homes before the river burst its banks in the evening.",
    "Officials said the damage was severe, and that the clean-up would take weeks, according "
    "to the regional emergency service that coordinated the evacuation overnight.",
    "Schools stay closed until Friday while engineers inspect the bridges and the sea wall, "
    "which was built in the nineteen-sixties and partly gave way under the waves.",
]


ARTICLE = (
    "<article><h1>Storm hits the coast</h1>"
    + "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
    + "</article>"
)


COMMENTS = (
    "<div id='comments'>"
    + "".join(
        f"<div class='comment'>Reader {i} wrote a long comment about the storm and the "
        "response of the council, which they found slow and badly organised this time.</div>"
        for i in range(2)
    )
    + "</div>"
)


NEWS_PAGE = (
    "<html><head><title>Storm | Example News</title></head><body>"
    "<nav><ul><li><a href='/'>Home</a></li><li><a href='/world'>World</a></li></ul></nav>"
    "<div id='main'>" + ARTICLE + COMMENTS + "</div>"
    "<aside><h3>Most read</h3><p>Other stories that readers liked a lot this week, picked "
    "by the editors for you to read next, in a long sentence.</p></aside>"
    "<footer><p>Copyright Example News. All rights reserved, in a long footer line.</p></footer>"
    "</body></html>"
)


class Options(TypedDict, total=False):
    """The keyword options of :class:`CetdPlusExtractor`."""

    include_comments: bool
    include_title: bool
    remove_boilerplate: bool
    footer_names: bool
    fallback_content: bool
    href_links: bool
    article_body: bool
    single_block_share: float
    link_block_ratio: float
    listing_share: float
    remove_galleries: bool
    remove_captions: bool
    content_forms: bool
    whole_page_share: float | None
    same_path_blocks: bool
    shell_prose_chars: int | None
    threshold_coefficient: float
    remove_hidden: bool
    page_type: str | None
    detect_page_type: bool


def lines(html: str, **options: Unpack[Options]) -> list[str]:
    return extract(html, algorithm="cetd-plus", **options).text.splitlines()


SECTIONS = "".join(f"<li><a href='/{name}'>{name} news</a></li>" for name in ("world", "sport"))


FURNITURE = (
    f"<nav><ul>{SECTIONS * 4}</ul></nav>",
    "<footer><p>Copyright Example News. All rights reserved, in a long footer line.</p></footer>",
)


def extraction(
    page: Callable[[int], str | etree._Element], **options: Any
) -> Callable[[int], Callable[[], object]]:
    """For :func:`growth`: cetd-plus on ``page(size)``, parsed as a crawl parses it (up to
    2,048 levels deep) before the clock starts."""

    def make(size: int) -> Callable[[], object]:
        built = page(size)
        tree = to_tree(built) if isinstance(built, str) else built
        extractor = CetdPlusExtractor(**options)
        return lambda: extractor.extract(tree)

    return make


def prose(topic: str, n: int = 3) -> str:
    """A paragraph of ``n`` sentences about ``topic``."""
    sentence = (
        f"The {topic} was discussed at length by everyone who took part in the meeting, "
        "and several of them wrote down what they had learned for the others to read later. "
    )
    return sentence * n


THREAD = f"""<html><body>
<header><a href="/">Forum home</a></header>
<main>
<h1>How do I descale a kettle?</h1>
<div class="post"><span>asker</span><p>{prose("kettle question", 4)}</p></div>
<section class="comments">
<div class="reply"><span>helper</span>
<p>Vinegar and water, boiled twice. {prose("vinegar", 2)}</p></div>
<div class="reply"><span>chemist</span>
<p>Citric acid works faster. {prose("citric acid", 2)}</p></div>
</section>
</main>
</body></html>"""


LISTING = f"""<html><body>
<main>
<h1>Courses this autumn</h1>
<p class="intro">{prose("course catalogue", 4)}</p>
<ul class="courses">
<li><a href="/c/1">Pottery for beginners, Tuesdays</a></li>
<li><a href="/c/2">Watercolour landscapes, Thursdays</a></li>
<li><a href="/c/3">Bookbinding by hand, Saturdays</a></li>
<li><a href="/c/4">Furniture restoration, Mondays</a></li>
</ul>
</main>
</body></html>"""


DOCUMENTATION = f"""<html><body>
<nav><a href="/docs/a">Install</a><a href="/docs/b">Configure</a></nav>
<main>
<h1>Configuration</h1>
<div class="intro"><p>{prose("configuration file", 10)}</p></div>
<div class="options"><h2>Options</h2>
<pre><code>timeout = 30
retries = 5</code></pre>
<ul><li><a href="#timeout"><code>timeout</code></a></li>
<li><a href="#retries"><code>retries</code></a></li>
<li><a href="#backoff"><code>backoff</code></a></li>
<li><a href="#verbose"><code>verbose</code></a></li></ul>
</div>
</main>
<div class="pager"><a href="/docs/a">Previous: Install</a> <a href="/docs/c">Next: Deploy</a>
<p>{prose("edit this page", 2)}</p></div>
</body></html>"""


SERVICE = f"""<html><body>
<section class="hero"><h1>Garden design</h1><p>{prose("garden plan", 4)}</p></section>
<section class="features"><h2>What we do</h2>
<ul><li>Planting plans for every season</li><li>Paths, terraces and walls</li></ul></section>
<section class="pricing"><h2>Pricing</h2><p>A first visit costs 90 euros.</p></section>
<section class="faq"><h2>Questions</h2><p>Do you work in winter? Yes, on the plans.</p></section>
</body></html>"""


PRODUCT = f"""<html><body>
<main>
<h1>White speckle mug</h1>
<p class="price">$60.00</p>
<div class="description desktop"><p>A wheel thrown mug. {prose("glaze", 3)}</p>
<p>Handmade stoneware, about 350 ml.</p></div>
<div class="description mobile"><p>A wheel thrown mug. {prose("glaze", 3)}</p>
<p>Handmade stoneware, about 350 ml.</p></div>
<div class="tab" style="display: none"><h2>Care</h2>
<p>Dishwasher safe; avoid sudden changes of temperature when it is hot.</p></div>
</main>
</body></html>"""


def text_as(page: str, page_type: str | None, **options: Any) -> str:
    return extract(page, page_type=page_type, **options).text

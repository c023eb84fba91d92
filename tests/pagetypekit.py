"""Hand-made pages of four page types, with the URLs a site would give them, for the page-type
tests and the crawl's page-type field."""

from __future__ import annotations

HEAD = (
    "<head><meta charset='utf-8'><title>{title}</title>"
    "<link rel='stylesheet' href='/static/site.css'></head>"
)

MENU = "<header><nav><ul>{}</ul></nav></header>".format(
    "".join(f"<li><a href='/section-{k}'>Section {k}</a></li>" for k in range(6))
)
FOOTER = "<footer><p>Contact us · Privacy · Terms</p></footer>"


def page(title: str, body: str) -> str:
    return f"<html>{HEAD.format(title=title)}<body>{MENU}{body}{FOOTER}</body></html>"


FORUM = page(
    "Boiler keeps losing pressure",
    "<main class='topic' itemscope itemtype='https://schema.org/DiscussionForumPosting'>"
    "<h1 class='topic-title' itemprop='headline'>Boiler keeps losing pressure after the "
    "annual service</h1><div class='topic-posts'>"
    + "".join(
        f"<div class='topic-post'><div class='post-author'><img class='avatar' "
        f"src='/avatar/{k}.png' alt=''><a class='username' href='/u/user{k}'>user{k}</a>"
        f"</div><time class='post-date' datetime='2025-03-0{k + 1}T10:00'>March {k + 1}</time>"
        f"<div class='post-body'><p>{sentence} I checked the valve twice and the gauge still "
        "drops by half a bar overnight, so I am wondering whether the expansion vessel "
        "needs recharging before I call the engineer again.</p></div>"
        f"<a class='reply-button' href='/reply?to={k}'>Reply</a></div>"
        for k, sentence in enumerate(
            [
                "Since the service the pressure falls every night.",
                "Same here last winter.",
                "Check the pressure relief valve for drips.",
                "It was the vessel in my case.",
                "Thanks, recharging it fixed the problem.",
            ]
        )
    )
    + "</div><form class='reply-form' action='/reply'><textarea name='body'></textarea>"
    "<button>Post reply</button></form></main>",
)

PRODUCT = page(
    "Trail runner 3 shoe",
    '<script type=\'application/ld+json\'>{"@type": "Product", "name": "Trail runner 3",'
    ' "offers": {"@type": "Offer", "price": "129.00"}}</script>'
    "<main class='product'><div class='product-gallery'><img src='/a.jpg' alt=''>"
    "<img src='/b.jpg' alt=''><img src='/c.jpg' alt=''></div><div class='product-info'>"
    "<h1 class='product-title'>Trail runner 3</h1><p class='product-price'>$129.00</p>"
    "<form class='product-form' action='/cart/add' method='post'>"
    "<select class='variant-select' name='size'><option>42</option><option>43</option>"
    "</select><input class='quantity' type='number' name='quantity' value='1'>"
    "<button class='add-to-cart' type='submit'>Add to cart</button></form></div>"
    "<div class='product-description'><h2>Description</h2><p>A light shoe for rocky "
    "trails with a grippy sole and a breathable upper.</p><h2>Specifications</h2><table>"
    "<tr><th>Weight</th><td>280 g</td></tr><tr><th>Drop</th><td>6 mm</td></tr></table>"
    "</div></main>",
)

DOCS = page(
    "Configuration reference",
    "<div class='layout'><aside class='sidebar'><ul class='toc'>"
    + "".join(
        f"<li><a href='/docs/{k}/'>Chapter {k}</a><ul>"
        + "".join(f"<li><a href='/docs/{k}/{j}/'>Topic {k}.{j}</a></li>" for j in range(4))
        + "</ul></li>"
        for k in range(5)
    )
    + "</ul></aside><main class='content'><h1>Configuration reference</h1><p>Settings are "
    "read from the "
    "file <code>app.toml</code> at start-up.</p>"
    + "".join(
        f"<h2>Option <code>option_{k}</code></h2><p>Sets the value of option {k}; the "
        f"default is <code>{k}</code>.</p><pre class='highlight'><code>[server]\n"
        f"option_{k} = {k}\n</code></pre>"
        for k in range(6)
    )
    + "</main></div>",
)

LISTING = page(
    "Latest stories",
    "<main><h1>Latest stories</h1><ul class='stories'>"
    + "".join(
        f"<li class='card'><img class='card-image' src='/thumb/{k}.jpg' alt=''><h3 "
        f"class='card-title'><a href='/stories/{k}'>Story number {k} about the town council"
        f"</a></h3><time class='date' datetime='2025-01-{k + 10}'>January {k + 10}</time>"
        f"<p class='excerpt'>A short teaser of story {k}.</p></li>"
        for k in range(12)
    )
    + "</ul><nav class='pagination'><a href='?page=2' rel='next'>Next page</a></nav></main>",
)

HAND_MADE = {
    "forum": (FORUM, "https://community.example.org/t/boiler-losing-pressure/48213"),
    "product": (PRODUCT, "https://shop.example.com/products/trail-runner-3"),
    "documentation": (DOCS, "https://example.dev/docs/reference/configuration/"),
    "listing": (LISTING, "https://news.example.net/stories/"),
}

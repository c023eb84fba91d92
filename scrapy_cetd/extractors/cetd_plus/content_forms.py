"""Step 2's content forms: a ``<form>`` that holds the page's best block is no furniture."""

from __future__ import annotations

from scrapy_cetd.extractors.cetd import density_sum_scores
from scrapy_cetd.extractors.furniture import boilerplate
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.flags import within


def sparing_content_form(
    view: DomView, counts: NodeCounts, drop: list[bool], *, comments: bool
) -> list[bool]:
    """``drop`` without the forms that hold the page's best block, when step 2 drops forms:
    ``<form>`` says how a page is used, not what its text is, and pages wrap their main content
    in one (a list of results to tick, an order form around the product)."""
    parent, tags = view.parent, view.tags
    if "form" not in tags:
        return drop
    forms = [
        i for i, tag in enumerate(tags) if tag == "form" and i and drop[i] and not drop[parent[i]]
    ]
    if not forms:
        return drop
    holds_best = set(
        density_sum_scores(view, counts, composite=True, threshold_coefficient=1.0).path
    )
    if holds_best.isdisjoint(forms):
        return drop
    chars = counts.chars
    spared = boilerplate(view, chars, structural=True, comments=comments, forms=False)
    half = chars[0] / 2
    for i in range(1, len(view)):
        if tags[i] == "form" and chars[i] < half and i not in holds_best:
            spared[i] = True
    return within(view, spared)

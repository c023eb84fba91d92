"""Pages for the metadata tests: a page from its head and body, a JSON-LD script, and texts of
two languages."""

from __future__ import annotations

import json

from conftest import parse
from lxml import etree

ENGLISH = (
    "The council approved the new budget on Tuesday after a long debate about schools, roads "
    "and the future of the public library, which many residents had asked to keep open. "
) * 4
FRENCH = (
    "Le conseil municipal a adopté mardi le nouveau budget après un long débat sur les écoles, "
    "les routes et l'avenir de la bibliothèque publique, que beaucoup d'habitants voulaient "
    "garder ouverte. "
) * 4


def page(head: str = "", body: str = "", lang: str = "") -> etree._Element:
    """A parsed page of ``head`` and ``body``, its ``<html>`` declaring ``lang`` if given."""
    lang_attribute = f" lang='{lang}'" if lang else ""
    return parse(f"<html{lang_attribute}><head>{head}</head><body>{body}</body></html>")


def json_ld(data: object) -> str:
    """A JSON-LD script holding ``data``."""
    return f"<script type='application/ld+json'>{json.dumps(data)}</script>"

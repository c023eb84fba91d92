"""``scrapy-cetd prune``: the pruned page, its node counts and the TPS options."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from scrapy_cetd.cli import main


def _list_page() -> str:
    items = "".join(
        f'<li class="product"><a href="/p/{n}">Jacket {n}</a> <span>{n}0 EUR</span></li>'
        for n in range(8)
    )
    return (
        '<html><head><meta charset="iso-8859-1"><title>Shop</title></head><body>'
        '<div class="nav"><a href="/">Home</a> <a href="/about">About</a></div>'
        f'<ul class="products">{items}</ul><div class="footer"><p>Copyright</p></div>'
        "</body></html>"
    )


def test_prune_writes_html_and_prints_node_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "list.html"
    page.write_text(_list_page(), encoding="iso-8859-1")
    out = tmp_path / "pruned.html"
    assert main(["prune", str(page), "-o", str(out), "--paper"]) == 0
    summary = capsys.readouterr().out
    assert summary.startswith(
        f"{page}: 31 of the body's elements before, 26 after (16.1% removed); region "
    )
    html = out.read_text(encoding="utf-8")
    assert html.count('class="product"') == 8
    assert "Copyright" not in html
    assert 'charset="utf-8"' in html


def test_prune_keeps_the_main_content_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    intro = (
        "<p class='intro'>Our winter jackets are made from recycled wool and lined with organic "
        "cotton; every one of them is tested in the mountains before it reaches the shop.</p>"
    )
    page = tmp_path / "list.html"
    page.write_text(_list_page().replace('<ul class="products">', intro + '<ul class="products">'))
    out = tmp_path / "pruned.html"
    assert main(["prune", str(page), "-o", str(out), "--paper"]) == 0
    assert "Our winter jackets" not in out.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["prune", str(page), "-o", str(out), "--paper", "--keep-main-content"]) == 0
    assert "Our winter jackets" in out.read_text(encoding="utf-8")
    kept = int(capsys.readouterr().out.split(" after ")[0].rsplit(" ", 1)[1])
    assert main(["prune", str(page), "-o", str(out)]) == 0  # the defaults: both on
    assert "Our winter jackets" in out.read_text(encoding="utf-8")
    assert int(capsys.readouterr().out.split(" after ")[0].rsplit(" ", 1)[1]) <= kept


def test_prune_makes_the_links_absolute_against_the_url(tmp_path: Path) -> None:
    page = tmp_path / "list.html"
    page.write_text(_list_page(), encoding="iso-8859-1")
    out = tmp_path / "pruned.html"
    assert main(["prune", str(page), "-o", str(out)]) == 0
    assert 'href="/p/3"' in out.read_text(encoding="utf-8")
    assert main(["prune", str(page), "-o", str(out), "--url", "https://shop.example/c/"]) == 0
    pruned = out.read_text(encoding="utf-8")
    assert 'href="https://shop.example/p/3"' in pruned
    assert 'href="/p/' not in pruned


def test_prune_keeps_links_relative_past_the_growth_bound_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "list.html"
    links = "".join(f' <a href="size-{k}">size {k}</a>' for k in range(40)) + "</li>"
    page.write_text(_list_page().replace("</li>", links), encoding="iso-8859-1")
    out = tmp_path / "pruned.html"
    long_url = "https://shop" + "c" * 8_000 + ".example/c/"  # each link grows by it
    assert main(["prune", str(page), "-o", str(out), "--url", long_url]) == 0
    assert len(out.read_text(encoding="utf-8")) < 2_000_000
    assert "links kept relative" in capsys.readouterr().err


def test_prune_removes_widgets_on_request(tmp_path: Path) -> None:
    page = tmp_path / "list.html"
    icon = '<svg class="cart"><path d="M0 0"/></svg></li>'
    page.write_text(_list_page().replace("</li>", icon), encoding="iso-8859-1")
    out = tmp_path / "pruned.html"
    assert main(["prune", str(page), "-o", str(out), "--no-remove-widgets"]) == 0
    assert out.read_text(encoding="utf-8").count("<svg") == 8
    assert main(["prune", str(page), "-o", str(out)]) == 0
    pruned = out.read_text(encoding="utf-8")
    assert "<svg" not in pruned
    assert pruned.count('class="product"') == 8


def test_prune_to_stdout_with_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "list.html.gz"
    page.write_bytes(gzip.compress(_list_page().encode("iso-8859-1")))
    assert main(["prune", str(page), "--paper", "--invert", "--min-size-gap", "0.3"]) == 0
    captured = capsys.readouterr()
    assert "Copyright" in captured.out
    assert 'class="product"' not in captured.out
    assert "inverted" in captured.err


def test_prune_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prune", str(tmp_path / "missing.html")]) == 1
    assert capsys.readouterr().err.startswith("scrapy-cetd: error: cannot read")
    empty = tmp_path / "empty.html"
    empty.write_text("  ")
    assert main(["prune", str(empty)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"scrapy-cetd: error: {empty}: not an HTML document")
    assert err.count("\n") == 1
    page = tmp_path / "list.html"
    page.write_text(_list_page())
    assert main(["prune", str(page), "--min-size-gap", "2"]) == 2  # a usage error
    assert "option min_size_gap=2.0 is not in [0, 1)" in capsys.readouterr().err
    assert main(["prune", str(page), "-o", str(tmp_path / "no" / "such" / "dir.html")]) == 1
    assert capsys.readouterr().err.startswith("scrapy-cetd: error: cannot write")


def test_prune_refuses_a_tag_with_too_many_attributes_before_parsing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """libxml2 parses the attributes of one tag in quadratic time and cannot be stopped: the
    command checks the text first, as extract() does, and names the limit."""
    attributes = " ".join(f"a{n}=1" for n in range(5_000))
    page = tmp_path / "attributes.html"
    page.write_text(f"<html><body><div {attributes}>x</div>{_list_page()}</body></html>")
    assert main(["prune", str(page)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"scrapy-cetd: error: {page}: not pruned: max_attributes exceeded")

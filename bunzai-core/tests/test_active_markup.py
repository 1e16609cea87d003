"""The markup scanner reads text as a browser would, and reports only what runs or loads."""

from __future__ import annotations

import pytest

from bunzai.active.markup import css_findings, is_remote, remove, scan


def kinds(text: str, html: bool = False) -> set[str]:
    return {h.kind for h in scan(text, html=html)}


@pytest.mark.parametrize(("text", "kind"), [
    ("<ScRiPt>go()</sCrIpT>", "script"),
    ("<script\n>go()</script\n>", "script"),
    ("<img src=x oNeRrOr = go()>", "handler"),
    ("<svg/onload=go()>", "handler"),
    ("<img/src/onerror=go()>", "handler"),
    ("<details open ontoggle=go()>", "handler"),
    ('<a href=" java&#x09;script&colon;go()">x</a>', "script"),
    ("<a href='&#106;avascript:go()'>x</a>", "script"),
    ('<IMG SRC="jav\tascript:go()">', "script"),
    ("[x](javascript:go())", "script"),
    ('<iframe src="data:text/html,<b>x</b>"></iframe>', "iframe"),
    ('<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>', "script"),
    ("<embed src=x.swf>", "iframe"),
    ('<p title="<img src=x onerror=go()>">', "handler"),
    ("<!--><img src=x onerror=go()>-->", "handler"),
    ("<style>.a{color:red}</style>", "css"),
    ('<img src="https://h.example/p.gif">', "remote"),
    ("<img src=//h.example/p.gif>", "remote"),
    ("<img src=\\\\h.example\\p.gif>", "remote"),
    ('<div style="background:u\\72l( https://h.example/b.png )">', "remote"),
    ("<style>@import url('https://h.example/s.css');</style>", "remote"),
    ("![](https://h.example/p.png)", "remote"),
    ("![a][r]\n\n[r]: https://h.example/p.png", "remote"),
    ('<meta http-equiv="refresh" content="0;url=https://h.example/">', "remote"),
    ('<div risu-trigger="open">x</div>', "command"),
    ("{{button::Open::open}}", "command"),
    ("```\n<html><body>x</body></html>\n```", "iframe"),
])
def test_what_a_browser_runs_or_loads_is_found(text: str, kind: str) -> None:
    assert kind in kinds(text)


@pytest.mark.parametrize("text", [
    "The script was long and the onclick= idea was discussed.",
    "javascript: the language; data: the plural of datum.",
    "a < b > c, <3, <START>, <user>, <bot>, {{user}} and {{char}}",
    "https://example.org/p.png written as text, and //not-a-url here",
    '<b>bold</b> <i>it</i> <span style="color:red">red</span> <div class="x">y</div>',
    "[a link](https://example.org/) is followed only when clicked",
    '<a href="https://example.org/">also a link</a>',
    '<img src="data:image/png;base64,iVBORw0KGgo=">',
    '<img src="/local.png"> <img src="{{raw::portrait}}">',
    "<x one=1 onion=2 online>",
    "&lt;script&gt;go()&lt;/script&gt;",
])
def test_text_that_runs_nothing_is_not_reported(text: str) -> None:
    assert kinds(text) == set()


def test_html_mode_reports_any_element_once_but_not_made_up_tags() -> None:
    assert kinds("<div>$1</div>", html=True) == {"html"}
    assert kinds("<START> and <user>", html=True) == set()


def test_each_hit_spans_what_removing_it_takes_out() -> None:
    text = 'Hi <b onclick="go()">there</b><script>x()</script>! ![p](https://h.example/p.png)'
    assert remove(text, scan(text)) == "Hi <b >there</b>! "
    assert scan(remove(text, scan(text))) == []


def test_the_excerpt_is_one_line_of_text_and_shows_the_attribute() -> None:
    long = '<img class="' + "a " * 80 + '" onerror="go()">'
    (hit,) = scan(long)
    assert "onerror" in hit.excerpt and "\n" not in hit.excerpt
    (hit,) = scan("<script>\u202egone\u0000\n</script>")
    assert "\u202e" not in hit.excerpt and "\u0000" not in hit.excerpt


def test_css_escapes_and_comments_do_not_hide_a_load() -> None:
    assert css_findings("a{background:u/**/rl(https://h.example/x)}") == []  # not a url()
    assert css_findings("a{b:\\75 rl(//h.example/x)}")[0][0] == "remote"
    assert css_findings("a{width:expression(go())}")[0][0] == "script"


@pytest.mark.parametrize(("url", "remote"), [
    ("https://h.example/x", True), ("HTTP://h", True), ("//h/x", True), ("\\\\h\\x", True),
    (" \thttps://h/x", True), ("/x.png", False), ("x.png", False), ("data:image/png,x", False),
    ("blob:abc", False),
])
def test_remote_addresses(url: str, remote: bool) -> None:
    assert is_remote(url) is remote


def test_a_large_text_is_scanned_quickly() -> None:
    import time

    entry = "The harbour at dawn. <b>Fog</b> rolls in over the slate cliffs. " * 40
    text = "\n".join(entry for _ in range(1000))  # about 2.6 MB
    start = time.perf_counter()
    assert scan(text) == []
    assert time.perf_counter() - start < 10

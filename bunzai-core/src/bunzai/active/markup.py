"""Active markup in text: what a browser would run or load if an app showed the text as HTML.

The scanner reads markup as a browser does (:mod:`html.parser`: any case, whitespace and
slashes between attributes, character references decoded in attribute values, script and
style contents as raw text), then looks at the raw text again for what a parser that differs
from the browser's could miss (markup inside an attribute value or a comment).  Each
:class:`Hit` carries the span of text that removing it takes out, so the same scan both
reports and strips (:mod:`bunzai.active.strip`).  It never runs, fetches or renders anything.

Markup that only formats (``<b>``, ``<div style="color:red">``) is a hit only when asked for
(``html=True``: a regex script's replacement, a background, which put markup into the chat by
themselves); a plain link loads nothing until followed and is never a hit; words such as
"script" or "onclick" in prose are text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from urllib.parse import urlsplit

HIT_KINDS = ("script", "handler", "iframe", "css", "remote", "command", "html")
"""What a hit in text can be (see docs/active-content.md)."""

JS_SLASH_RUNNER = "JS-Slash-Runner"
RISUAI = "RisuAI"

_MAYBE = re.compile(r"<|\]\s*[(\[]|\{\{|^[ ]{0,3}\[[^\]\n]+\]:", re.M)
"""Text without any of these holds no markup worth parsing (the fast path)."""

FRAMES = frozenset({"iframe", "frame", "frameset", "object", "embed", "applet", "portal",
                    "fencedframe"})
_VOID_LOADERS = frozenset({"img", "image", "source", "track", "input", "link", "meta", "base",
                           "embed", "use", "feimage", "audio", "video", "bgsound"})
"""Elements removed whole when they load something remote (their start tag is all of them, or
all that matters)."""
_IMAGE_CONTEXT = frozenset({"img", "image", "source", "picture", "video", "audio", "track",
                            "input", "feimage"})
"""Where a ``data:`` URL is shown as a picture (never run), whatever its type."""
_URL_ATTRS = frozenset({"href", "src", "action", "formaction", "data", "poster", "background",
                        "xlink:href", "lowsrc", "dynsrc", "codebase", "archive", "classid",
                        "to", "values", "from", "by", "srcdoc", "content", "ping", "srcset",
                        "imagesrcset", "longdesc", "manifest", "icon", "profile", "usemap"})
_LOADS = {
    "src": None, "srcset": None, "imagesrcset": None, "poster": None, "background": None,
    "lowsrc": None, "dynsrc": None, "data": frozenset({"object"}),
    "href": frozenset({"link", "image", "use", "feimage", "base"}),
    "xlink:href": frozenset({"image", "use", "feimage"}),
}
"""Attributes whose URL is fetched as soon as the element is shown (None: on any element)."""
_SCRIPT_SCHEMES = ("javascript:", "vbscript:", "livescript:", "mocha:")
_ACTIVE_DATA = re.compile(r"data:\s*(?:text/html|application/xhtml|image/svg|text/xml|"
                          r"application/xml|[a-z]+/(?:x-)?(?:java|ecma)script)", re.I)
_REMOTE = re.compile(r"^(?:(?:https?|ftp|wss?):|[\\/]{2})", re.I)
_CONTROL = re.compile("[\x00-\x20\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]+")
_EVENT_NAMES = """
abort activate afterprint afterscriptexecute animationcancel animationend animationiteration
animationstart auxclick beforeactivate beforecopy beforecut beforedeactivate beforeinput
beforematch beforepaste beforeprint beforescriptexecute beforetoggle beforeunload begin blur
bounce cancel canplay canplaythrough change click close contentvisibilityautostatechange
contextlost contextmenu contextrestored copy cuechange cut dataavailable datasetchanged dblclick
deactivate drag dragend dragenter dragexit dragleave dragover dragstart drop durationchange
emptied end ended error finish focus focusin focusout formdata fullscreenchange fullscreenerror
gotpointercapture hashchange help input invalid keydown keypress keyup languagechange load
loadeddata loadedmetadata loadend loadstart losecapture lostpointercapture message messageerror
mousedown mouseenter mouseleave mousemove mouseout mouseover mouseup mousewheel
mozfullscreenchange offline online overflow pagehide pagereveal pageshow pageswap paste pause
play playing pointercancel pointerdown pointerenter pointerleave pointermove pointerout
pointerover pointerrawupdate pointerup popstate progress propertychange ratechange
readystatechange rejectionhandled repeat reset resize scroll scrollend scrollsnapchange
scrollsnapchanging search securitypolicyviolation seeked seeking select selectionchange
selectstart show slotchange stalled start storage submit suspend timeupdate toggle touchcancel
touchend touchmove touchstart transitioncancel transitionend transitionrun transitionstart
underflow unhandledrejection unload volumechange waiting webkitanimationend
webkitanimationiteration webkitanimationstart webkitfullscreenchange webkittransitionend wheel
zoom
"""
EVENT_HANDLERS = frozenset("on" + name for name in _EVENT_NAMES.split())
"""Every event handler attribute a browser runs (``onclick``, ``onerror``, SVG's ``onbegin``),
so an attribute such as ``one`` in stray text is not taken for one."""

_ELEMENT_NAMES = """
a abbr address area article aside audio b bdi bdo big blink blockquote body br button canvas
caption center cite code col colgroup data datalist dd del details dfn dialog dir div dl dt em
embed fieldset figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header
hgroup hr html i iframe img input ins kbd label legend li link main map mark marquee menu meta
meter nav nobr noscript object ol optgroup option output p param picture pre progress q rp rt
ruby s samp script search section select slot small source span strike strong style sub summary
sup table tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr
svg path circle rect line polyline polygon ellipse g defs use symbol text tspan image
lineargradient radialgradient stop filter animate animatetransform set mask clippath pattern
foreignobject math
"""
HTML_ELEMENTS = frozenset(_ELEMENT_NAMES.split())
"""Element names a browser renders as HTML or SVG (not ``<START>``, ``<user>``, ``<bot>``)."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One active element in a text: what it is, the span that removing it takes out, and a
    short excerpt of the markup (shown as text, never rendered)."""

    kind: str
    start: int
    end: int
    detail: str
    excerpt: str
    app: str | None = None
    """The one app this markup is for (a JS-Slash-Runner page, a RisuAI button), if any."""
    when: str | None = None
    """When it runs, when that is not the field's (``on a click``)."""


def excerpt(text: str, limit: int = 100) -> str:
    """``text`` on one line, control characters out, cut to ``limit`` characters."""
    one = " ".join(_CONTROL.sub(" ", text).split())
    return one if len(one) <= limit else one[:limit - 1] + "…"


def url_of(value: str) -> str:
    """A URL as a browser resolves it: character references decoded already, spaces and
    control characters at the ends and tabs and newlines inside taken out."""
    return re.sub(r"[\t\n\r]", "", value.strip("\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n"
                                                "\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14"
                                                "\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e"
                                                "\x1f "))


def is_remote(url: str) -> bool:
    """Whether a browser fetches ``url`` from another host (``https:``, ``//host``)."""
    return _REMOTE.match(url_of(url)) is not None


def host_of(url: str) -> str:
    """The host a URL names, for a finding's detail (``files.catbox.moe``)."""
    u = url_of(url).replace("\\", "/")
    if u.startswith("//"):
        u = "https:" + u
    try:
        return urlsplit(u).hostname or u[:60]
    except ValueError:
        return u[:60]


def is_script_url(url: str) -> bool:
    """A ``javascript:`` (or ``vbscript:``) URL, whatever its case and spacing."""
    return url_of(url).lower().startswith(_SCRIPT_SCHEMES)


# -- CSS ------------------------------------------------------------------------------------------

_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.S)
_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?|\\(.)", re.S)
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.I | re.S)
_CSS_IMPORT = re.compile(r"@import\s+(?:url\(\s*)?(['\"]?)([^'\")\s;]+)", re.I)
_CSS_STRING_URL = re.compile(r"(?:image-set|src)\s*\(\s*(['\"])(.*?)\1", re.I | re.S)
_CSS_SCRIPT = re.compile(r"expression\s*\(|-moz-binding\s*:|behavior\s*:", re.I)


def _css_plain(css: str) -> str:
    def char(m: re.Match[str]) -> str:
        if m.group(1):
            code = int(m.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF else "\ufffd"
        return m.group(2)
    return _CSS_ESCAPE.sub(char, _CSS_COMMENT.sub(" ", css))


def css_findings(css: str) -> list[tuple[str, str]]:
    """(kind, detail) for what CSS loads from other hosts or runs (``expression()``,
    ``-moz-binding``), escapes and comments taken out first."""
    plain = _css_plain(css)
    out: list[tuple[str, str]] = []
    for m in _CSS_URL.finditer(plain):
        url = m.group(2)
        if is_script_url(url):
            out.append(("script", "a javascript: URL in CSS"))
        elif is_remote(url):
            out.append(("remote", f"CSS loads a file from {host_of(url)}"))
    for pattern in (_CSS_IMPORT, _CSS_STRING_URL):
        for m in pattern.finditer(plain):
            if is_remote(m.group(2)):
                out.append(("remote", f"CSS loads a file from {host_of(m.group(2))}"))
    if _CSS_SCRIPT.search(plain):
        out.append(("script", "CSS that runs script (expression, binding or behavior)"))
    return out


# -- HTML -----------------------------------------------------------------------------------------

_ATTR = re.compile(r"((?<=['\"\s/])[^\s/>][^\s/=>]*)(\s*=+\s*('[^']*'|\"[^\"]*\"|"
                   r"(?!['\"])[^>\s]*))?(?:\s|/(?!>))*")
"""An attribute in a start tag, as :mod:`html.parser` finds them (so spans line up)."""
_TAG_NAME = re.compile(r"<[a-zA-Z][^\t\n\r\f />\x00]*(?:\s|/(?!>))*")


def _attr_spans(raw: str) -> list[tuple[str, int, int]]:
    """(name lower-cased, start, end) of every attribute of a raw start tag."""
    m = _TAG_NAME.match(raw)
    if m is None:
        return []
    out = []
    pos = m.end()
    while pos < len(raw):
        a = _ATTR.match(raw, pos)
        if a is None or a.end() == pos:
            break
        out.append((a.group(1).lower(), a.start(), a.end()))
        pos = a.end()
    return out


def _around(raw: str, start: int, end: int, limit: int = 100) -> str:
    """A start tag shown around one of its attributes: the tag's name, then the attribute,
    when the whole tag is too long to show it."""
    if len(raw) <= limit or end <= limit - 10:
        return raw
    head = _TAG_NAME.match(raw)
    name = head.group(0).rstrip() if head else raw[:12]
    return f"{name} \u2026 {raw[start:end].strip()}"


class _Scanner(HTMLParser):
    def __init__(self, text: str, base: int, html: bool) -> None:
        super().__init__(convert_charrefs=True)
        self._text = text
        self.base = base
        self.html = html
        self.hits: list[Hit] = []
        self._line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.open: dict[str, list[tuple[int, str]]] = {}
        self.style_text: list[str] = []
        self.in_style = False
        self.elements = False

    def _at(self) -> int:
        line, col = self.getpos()
        return self._line_starts[line - 1] + col

    def add(self, kind: str, start: int, end: int, detail: str, shown: str,
            app: str | None = None, when: str | None = None) -> None:
        self.hits.append(Hit(kind, self.base + start, self.base + end, detail, excerpt(shown),
                             app, when))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, closed=True)

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], closed: bool) -> None:
        raw = self.get_starttag_text() or ""
        start = self._at()
        end = start + len(raw)
        if tag in HTML_ELEMENTS:
            self.elements = True
        if tag in ("script", "style") or (tag in FRAMES and not closed):
            self.open.setdefault(tag, []).append((start, raw))
            if tag == "style":
                self.in_style = True
                self.style_text = []
        elif tag in FRAMES:
            self.add("iframe", start, end, f"<{tag}>", raw)
        spans = _attr_spans(raw)
        for i, (name, value) in enumerate(attrs):
            a_start, a_end = (start + spans[i][1], start + spans[i][2]) if i < len(spans) \
                else (start, end)
            shown = _around(raw, a_start - start, a_end - start)
            value = value or ""
            if name in EVENT_HANDLERS:
                self.add("handler", a_start, a_end, f"{name} handler", shown)
                continue
            if name in ("risu-trigger", "risu-btn"):
                self.add("command", a_start, a_end, f"{name}: runs a RisuAI trigger", shown,
                         RISUAI, "on a click")
                continue
            if name == "style":
                for kind, detail in css_findings(value):
                    self.add(kind, a_start, a_end, detail, shown)
                continue
            if name not in _URL_ATTRS:
                continue
            urls = ([u.strip().split(" ")[0] for u in value.split(",")]
                    if name in ("srcset", "imagesrcset") else [value])
            if name == "content":  # <meta http-equiv=refresh content="0;url=…">
                if tag != "meta":
                    continue
                urls = [re.sub(r"^[\d.\s;,]*(?:url\s*=\s*)?['\"]?", "", value, flags=re.I)]
            for url in urls:
                if is_script_url(url):
                    self.add("script", a_start, a_end, f"a javascript: URL in {name}", shown)
                elif _ACTIVE_DATA.match(url_of(url)) and tag not in _IMAGE_CONTEXT:
                    self.add("script", a_start, a_end, f"a scriptable data: URL in {name}",
                             shown)
                elif name == "srcdoc":
                    continue
                elif is_remote(url) and (self._loads(tag, name) or tag == "meta"):
                    if tag in _VOID_LOADERS:
                        self.add("remote", start, end,
                                 f"<{tag}> loads a file from {host_of(url)}", shown)
                    else:
                        self.add("remote", a_start, a_end,
                                 f"<{tag} {name}> loads a file from {host_of(url)}", shown)
                    break

    @staticmethod
    def _loads(tag: str, attr: str) -> bool:
        if attr not in _LOADS:
            return False
        on = _LOADS[attr]
        return on is None or tag in on

    def handle_endtag(self, tag: str) -> None:
        stack = self.open.get(tag)
        if not stack:
            return
        start, raw = stack.pop()
        end = self._tag_end(self._at())
        if tag == "script":
            self.add("script", start, end, "<script>", self._text[start:end])
        elif tag == "style":
            self.in_style = False
            css = "".join(self.style_text)
            self.add("css", start, end, "<style>", self._text[start:end])
            for kind, detail in css_findings(css):
                self.add(kind, start, end, detail, self._text[start:end])
        else:
            self.add("iframe", start, end, f"<{tag}>", raw)

    def _tag_end(self, at: int) -> int:
        close = self._text.find(">", at)
        return len(self._text) if close < 0 else close + 1

    def handle_data(self, data: str) -> None:
        if self.in_style:
            self.style_text.append(data)

    def handle_comment(self, data: str) -> None:
        # inert in a browser, but a comment a browser ends sooner than a parser would hide
        # live markup: its inside is scanned too
        at = self._at() + 4
        self.hits.extend(scan(data, base=self.base + at, parsed_only=True))

    def unknown_decl(self, data: str) -> None:
        at = self._at() + 3
        self.hits.extend(scan(data, base=self.base + at, parsed_only=True))

    def finish(self) -> None:
        for tag, stack in self.open.items():  # never closed: up to the end of the text
            for start, raw in stack:
                kind = {"script": "script", "style": "css"}.get(tag, "iframe")
                self.add(kind, start, len(self._text), f"<{tag}>", raw)
                if tag == "style":
                    for k, detail in css_findings("".join(self.style_text)):
                        self.add(k, start, len(self._text), detail, raw)


# -- what a parser might not see ------------------------------------------------------------------

_RAW = (
    ("script", re.compile(r"<script[\s/>]", re.I), "<script>"),
    ("iframe", re.compile(r"<(?:iframe|frame|object|embed|applet)[\s/>]", re.I), "a frame"),
    ("handler", re.compile(r"<[a-z][^<>]*?[\s/\"'](on[a-z]+)\s*=", re.I), "an event handler"),
    ("script", re.compile(r"<[a-z][^<>]*?=\s*[\"']?\s*(?:java|vb)script:", re.I),
     "a javascript: URL"),
)


def _raw_hits(text: str, base: int, found: list[Hit]) -> Iterator[Hit]:
    """Markup a plain parser did not report (inside an attribute value, in a raw-text element):
    conservative, since a browser's parser or a sanitizer's second pass may see it."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for h in found:
        spans.setdefault(h.kind, []).append((h.start - base, h.end - base))
    for kind, pattern, detail in _RAW:
        for m in pattern.finditer(text):
            at = m.end() - 1
            if kind == "handler" and m.group(1).lower() not in EVENT_HANDLERS:
                continue
            if any(s <= at < e for s, e in spans.get(kind, ())):
                continue
            end = text.find(">", m.end())
            end = len(text) if end < 0 else end + 1
            start = m.start()
            if kind == "script" and detail == "<script>":
                close = re.compile(r"</script\s*>", re.I).search(text, m.end())
                end = close.end() if close else len(text)
            yield Hit(kind, base + start, base + end, f"{detail} hidden in other markup",
                      excerpt(text[start:end]))


# -- markdown, RisuAI buttons, JS-Slash-Runner pages ----------------------------------------------

_MD_IMAGE = re.compile(r"!\[[^\]\n]*\]\(\s*<?([^)\s>]+)[^)\n]*\)")
_MD_LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)[^)\n]*\)")
_MD_REF_IMAGE = re.compile(r"!\[([^\]\n]*)\]\s?\[([^\]\n]*)\]")
_MD_REF_DEF = re.compile(r"^[ ]{0,3}\[([^\]\n]+)\]:\s*<?(\S+?)>?(?:[ \t]|$)", re.M)
_BUTTON = re.compile(r"\{\{\s*button\s*::.*?\}\}", re.I | re.S)
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})[^\n]*\n(.*?)(?:^[ ]{0,3}\1[ \t]*$|\Z)",
                    re.M | re.S)
_PRE = re.compile(r"<pre\b[^>]*>(.*?)(?:</pre\s*>|\Z)", re.I | re.S)
_PAGE_MARKS = ("html>", "<head>", "<body")


def _markdown_hits(text: str, base: int) -> Iterator[Hit]:
    for m in _MD_IMAGE.finditer(text):
        if is_remote(m.group(1)):
            yield Hit("remote", base + m.start(), base + m.end(),
                      f"a markdown image from {host_of(m.group(1))}", excerpt(m.group(0)))
    for m in _MD_LINK.finditer(text):
        url = unescape(m.group(1))
        if is_script_url(url) or _ACTIVE_DATA.match(url_of(url)):
            yield Hit("script", base + m.start(1), base + m.end(1),
                      "a javascript: URL in a markdown link", excerpt(m.group(0)))
    if "![" in text:
        defs = {k.lower(): (v, d.start(), d.end()) for d in _MD_REF_DEF.finditer(text)
                for k, v in [(d.group(1), d.group(2))]}
        for m in _MD_REF_IMAGE.finditer(text):
            ref = (m.group(2) or m.group(1)).lower()
            if ref in defs and is_remote(defs[ref][0]):
                yield Hit("remote", base + defs[ref][1], base + defs[ref][2],
                          f"a markdown image from {host_of(defs[ref][0])}",
                          excerpt(m.group(0) + " " + defs[ref][0]))


def _special_hits(text: str, base: int) -> Iterator[Hit]:
    for m in _BUTTON.finditer(text):
        yield Hit("command", base + m.start(), base + m.end(),
                  "a RisuAI button that runs a trigger", excerpt(m.group(0)), RISUAI,
                  "on a click")
    if "```" in text or "~~~" in text or "<pre" in text.lower():
        for pattern in (_FENCE, _PRE):
            for m in pattern.finditer(text):
                body = m.group(pattern.groups).lower()
                if any(mark in body for mark in _PAGE_MARKS):
                    yield Hit("iframe", base + m.start(), base + m.end(),
                              "a page JS-Slash-Runner shows in a frame, scripts included",
                              excerpt(m.group(0)), JS_SLASH_RUNNER)


# -- the scan -------------------------------------------------------------------------------------


def maybe_active(text: str) -> bool:
    """False when ``text`` cannot hold a hit (no ``<``, no markdown link, no ``{{``)."""
    return _MAYBE.search(text) is not None


def scan(text: str, *, html: bool = False, base: int = 0, parsed_only: bool = False
         ) -> list[Hit]:
    """Every active element of ``text`` in order; with ``html``, any HTML element at all is
    one more hit (kind ``html``, the whole text)."""
    if not text or not maybe_active(text):
        return []
    hits: list[Hit] = []
    elements = False
    if "<" in text:
        parser = _Scanner(text, base, html)
        try:
            parser.feed(text)
            parser.close()
        except Exception:  # a parser bug must not hide the rest: the raw pass still runs
            pass
        parser.finish()
        hits = parser.hits
        elements = parser.elements
        if not parsed_only:
            hits += list(_raw_hits(text, base, hits))
    hits += _markdown_hits(text, base)
    hits += _special_hits(text, base)
    pages = [(h.start, h.end) for h in hits if h.app == JS_SLASH_RUNNER]
    if pages:
        hits = [h if h.app is not None or not any(s <= h.start < e for s, e in pages)
                else Hit(h.kind, h.start, h.end, h.detail, h.excerpt, JS_SLASH_RUNNER, h.when)
                for h in hits]
    if html and elements:
        hits.append(Hit("html", base, base + len(text), "", excerpt(text)))
    hits.sort(key=lambda h: (h.start, -h.end))
    return hits


def remove(text: str, hits: list[Hit]) -> str:
    """``text`` without the spans of ``hits`` (overlapping spans merged)."""
    spans = sorted((h.start, h.end) for h in hits)
    out: list[str] = []
    pos = 0
    for start, end in spans:
        if end <= pos:
            continue
        out.append(text[pos:max(pos, start)])
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)

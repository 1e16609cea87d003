"""Hostile active content: files that hide scripts, handlers, frames and remote loads in every
place an app runs or shows, with the tricks a browser still honours.  Each case names what
``bunzai audit`` must find in it (a path prefix, the kind, and where it matters the app).

Every case is built here from code, as the apps lay their files out; the text is our own.
``python -m tests.hostile.generate OUT_DIR`` writes them beside the other hostile cases, and
the fuzzer seeds from them (``fuzz/seeds.py``).
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from dataclasses import dataclass, field

from bunzai.io.containers.png import minimal_png

from .cases import card_v2, png_card


@dataclass(frozen=True)
class Expect:
    """One finding a case must produce: its path starts with ``path``, it is ``kind``, and
    (when given) its app contains ``app`` and it runs ``when``."""

    path: str
    kind: str
    app: str | None = None
    when: str | None = None


@dataclass(frozen=True)
class ActiveCase:
    name: str
    filename: str
    data: bytes
    expect: tuple[Expect, ...]
    kinds: frozenset[str] = field(default_factory=frozenset)
    """Extra kinds the case may also produce (a frame holding a script is both)."""


ST = "SillyTavern"
TH = "JS-Slash-Runner"
RISU = "RisuAI"

TRICKS: list[tuple[str, str, str]] = [
    # (name, text, kind) : markup a browser runs, written to slip past a careless look
    ("script-mixed-case", "The tide turns. <ScRiPt >steal()</sCrIpT>", "script"),
    ("script-newline-in-tag", "Ahoy.<script\n type='module'>steal()</script\n>", "script"),
    ("handler-spaced", '<img src=x oNeRrOr  =  "steal()">', "handler"),
    ("handler-slash-separated", "<svg/onload=steal()>", "handler"),
    ("handler-newlines", "<img\nsrc=x\nonerror\n=\nsteal()>", "handler"),
    ("handler-svg-animation", '<svg><animate onbegin="steal()" attributeName="x" dur="1s"/>'
                              "</svg>", "handler"),
    ("handler-details-toggle", "<details open ontoggle=steal()><summary>map</summary></details>",
     "handler"),
    ("js-url-entity-tab", '<a href=" jav&#x09;ascript&colon;steal()">the chart</a>', "script"),
    ("js-url-decimal-entities", "<a href='&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;"
                                "&#116;&#58;steal()'>log</a>", "script"),
    ("js-url-markdown", "Read [the logbook](javascript:steal()) first.", "script"),
    ("js-url-meta-refresh", '<meta http-equiv="refresh" content="0;url=javascript:steal()">',
     "script"),
    ("data-html-frame", '<iframe src="data:text/html;base64,PHNjcmlwdD4=" width=1></iframe>',
     "iframe"),
    ("srcdoc-frame", '<iframe srcdoc="<script>steal()</script>"></iframe>', "iframe"),
    ("object-embed", '<object data="https://lure.example/deck.swf"></object>', "iframe"),
    ("hidden-in-attribute", '<p title="</p><img src=x onerror=steal()>">quiet</p>', "handler"),
    ("comment-closed-early", "<!--><img src=x onerror=steal()>-->", "handler"),
    ("remote-protocol-relative", '<img src="//pixel.example/p.gif" width=1 height=1>', "remote"),
    ("remote-upper-scheme", "<IMG SRC=HTTPS://pixel.example/p.gif>", "remote"),
    ("remote-srcset", '<img srcset="https://pixel.example/a.png 1x, b.png 2x" alt="">', "remote"),
    ("remote-css-escape", '<div style="background:u\\72l(https://pixel.example/b.png)">'
                          "fog</div>", "remote"),
    ("remote-style-import", "<style>@import 'https://pixel.example/s.css'; .x{color:red}"
                            "</style>", "remote"),
    ("remote-markdown-image", "The harbour at dawn. ![](https://pixel.example/dawn.png)",
     "remote"),
    ("remote-markdown-reference", "![harbour][h]\n\n[h]: https://pixel.example/h.png", "remote"),
    ("remote-video-poster", '<video poster="https://pixel.example/p.jpg"></video>', "remote"),
    ("remote-stylesheet", '<link rel="stylesheet" href="https://pixel.example/theme.css">',
     "remote"),
    ("css-block", "<style>.mes_text { display: none }</style>The lights go out.", "css"),
    ("page-in-fence", "```html\n<html><body><button onclick=\"steal()\">sail</button></body>"
                      "</html>\n```", "iframe"),
]
"""Texts each of which must be found wherever an app shows or sends it."""

BENIGN = [
    "She read the script for the play twice; nobody clicked anything.",
    "The onclick handler idea came up in class, and javascript: was written on the board.",
    "a < b and c > d, <3 to the crew, <START> {{user}}: hi <user> <bot>",
    "See https://example.org/map.png for the map (a plain address, never loaded).",
    "<b>Bold</b>, <i>italic</i> and <span style=\"color:#c33\">red</span> text.",
    "[the harbour guide](https://example.org/guide) is a link, followed only on a click.",
    "```\nfunction steal() { return 1 }\n```",
    "He wrote <one two=three> on the wall and &lt;script&gt; on the door.",
]
"""Texts that must never be reported: prose about scripts, formatting, links, code shown."""


def _png(card: dict[str, object]) -> bytes:
    return png_card(base64.b64encode(json.dumps(card).encode()))


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    """A zip with fixed times, so a case is the same bytes whenever it is built."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(zipfile.ZipInfo(name, (2025, 1, 1, 0, 0, 0)), data,
                        zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def _tricks_in_st_card() -> list[ActiveCase]:
    out = []
    for name, text, kind in TRICKS:
        app = TH if name == "page-in-fence" else ST
        card = card_v2(first_mes=text, alternate_greetings=["Calm seas.", text])
        out.append(ActiveCase(f"st-card-{name}", f"{name}.png", _png(card),
                              (Expect("first_mes", kind, app, "on chat start"),
                               Expect("alternate_greetings[1]", kind, app)),
                              frozenset(HIDDEN_KINDS.get(name, ()))))
    return out


HIDDEN_KINDS = {
    "srcdoc-frame": ("script",), "data-html-frame": ("script",), "object-embed": ("remote",),
    "page-in-fence": ("handler",), "remote-style-import": ("css",),
    "hidden-in-attribute": (), "comment-closed-early": (),
}


def _st_cases() -> list[ActiveCase]:
    pixel = '<img src="https://pixel.example/t.gif" width="1" height="1">'
    helper_old = card_v2(extensions={"TavernHelper_scripts": [
        {"id": "a1", "name": "tide clock", "content": "eventOn('x', () => fetch('/steal'))",
         "info": "", "buttons": [], "enabled": True}]})
    helper_tree = card_v2(extensions={"tavern_helper": {"scripts": [
        {"type": "script", "name": "bell", "id": "b1", "enabled": True,
         "content": "console.log('bell')"},
        {"type": "folder", "name": "tools", "id": "f1", "scripts": [
            {"type": "script", "name": "winch", "id": "w1", "content": "alert('winch')"}]}],
        "variables": {}}})
    helper_pairs = card_v2(extensions={"tavern_helper": [
        ["scripts", [{"type": "script", "name": "lamp", "id": "l1", "content": "lamp()"}]],
        ["variables", {}]]})
    regex_card = card_v2(extensions={"regex_scripts": [
        {"id": "r1", "scriptName": "status bar", "findRegex": "/\\[STATUS\\]/g",
         "replaceString": '<div class="bar"><button onclick="go()">go</button></div>',
         "trimStrings": [], "placement": [2], "disabled": False, "markdownOnly": True,
         "promptOnly": False, "runOnEdit": True, "substituteRegex": 0},
        {"id": "r2", "scriptName": "plain", "findRegex": "/\\bteh\\b/g",
         "replaceString": "the", "trimStrings": [], "placement": [2], "disabled": False,
         "markdownOnly": False, "promptOnly": False, "runOnEdit": True, "substituteRegex": 0}]})
    book_card = card_v2(character_book={"entries": [
        {"keys": ["harbour"], "content": "The harbour is cold.", "enabled": True,
         "insertion_order": 0, "extensions": {}},
        {"keys": ["pixel"], "content": f"Show this: {pixel}", "enabled": True,
         "insertion_order": 1, "extensions": {}, "comment": "tracker"}], "extensions": {}})
    notes_card = card_v2(creator_notes='Made by us. <a href="javascript:steal()">support</a>')
    world = {"entries": {"0": {"uid": 0, "key": ["fog"], "keysecondary": [], "comment": "fog",
                               "content": "<script>steal()</script> Fog rolls in.",
                               "constant": False, "selective": True, "order": 100,
                               "position": 0, "disable": False, "probability": 100,
                               "useProbability": True, "depth": 4}}}
    regex_file = [{"id": "x1", "scriptName": "frame", "findRegex": "/\\[MAP\\]/g",
                   "replaceString": '<iframe src="https://lure.example/map"></iframe>',
                   "trimStrings": [], "placement": [2], "disabled": False,
                   "markdownOnly": True, "promptOnly": False, "runOnEdit": True,
                   "substituteRegex": 0},
                  {"id": "x2", "scriptName": "tidy", "findRegex": "/  +/g",
                   "replaceString": " ", "trimStrings": [], "placement": [2],
                   "disabled": False, "markdownOnly": False, "promptOnly": False,
                   "runOnEdit": True, "substituteRegex": 0}]
    chat = "\n".join(json.dumps(line) for line in [
        {"user_name": "You", "character_name": "Tidewatcher", "create_date": "2025-1-1@10h00m00s",
         "chat_metadata": {}},
        {"name": "Tidewatcher", "is_user": False, "is_system": False,
         "send_date": "January 1, 2025 10:00am", "mes": f"The lamp is lit. {pixel}",
         "extra": {}},
        {"name": "You", "is_user": True, "is_system": False,
         "send_date": "January 1, 2025 10:01am", "mes": "<script>steal()</script>",
         "extra": {}}]).encode()
    return [
        ActiveCase("st-tavernhelper-old", "helper.png", _png(helper_old),
                   (Expect("extensions.TavernHelper_scripts[0]", "javascript", TH,
                           "on chat start"),)),
        ActiveCase("st-tavernhelper-tree", "helper-tree.json",
                   json.dumps(helper_tree).encode(),
                   (Expect("extensions.tavern_helper.scripts[0]", "javascript", TH),
                    Expect("extensions.tavern_helper.scripts[1].scripts[0]", "javascript",
                           TH))),
        ActiveCase("st-tavernhelper-pairs", "helper-pairs.json",
                   json.dumps(helper_pairs).encode(),
                   (Expect("extensions.tavern_helper[0][1][0]", "javascript", TH),)),
        ActiveCase("st-regex-in-card", "regex-card.png", _png(regex_card),
                   (Expect("regex_scripts[0]", "handler", ST, "on display"),
                    Expect("regex_scripts[0]", "html", ST, "on display")),
                   ),
        ActiveCase("st-book-pixel", "book.png", _png(book_card),
                   (Expect("lorebook.entries[1].content", "remote", ST, "on every message"),)),
        ActiveCase("st-creator-notes", "notes.json", json.dumps(notes_card).encode(),
                   (Expect("creator_notes", "script", ST, "on display"),)),
        ActiveCase("st-world-info", "world.json", json.dumps(world).encode(),
                   (Expect("entries[0].content", "script", ST, "on every message"),)),
        ActiveCase("st-regex-file", "regex.json", json.dumps(regex_file).encode(),
                   (Expect("[0].replace", "iframe", ST), Expect("[0].replace", "html", ST)),
                   frozenset({"remote"})),
        ActiveCase("st-chat", "chat.jsonl", chat,
                   (Expect("messages[0].text", "remote", ST, "on display"),
                    Expect("messages[1].text", "script", ST, "on display"))),
    ]


def _risu_cases() -> list[ActiveCase]:
    background = ('<style>body{background:url(https://pixel.example/bg.png)}</style>'
                  '<div class="sky"></div>')
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        **card_v2()["data"],  # type: ignore[dict-item]
        "first_mes": '<div risu-trigger="open_hatch">Open the hatch</div>',
        "alternate_greetings": ["{{button::Ring the bell::bell}}"],
        "group_only_greetings": [], "assets": [],
        "extensions": {"risuai": {
            "backgroundHTML": background,
            "triggerscript": [
                {"comment": "lua brain", "type": "start", "conditions": [],
                 "effect": [{"type": "triggerlua", "code": "function onOutput(id) end"}]},
                {"comment": "bell", "type": "manual", "conditions": [],
                 "effect": [{"type": "setvar", "var": "bell", "value": "1",
                             "operator": "="}]}],
            "customScripts": [{"comment": "shout", "in": "!!", "out": "<b onmouseover=x()>!</b>",
                               "type": "editdisplay", "flag": "g", "ableFlag": True}]}}}}
    return [
        ActiveCase("risu-card", "risu.json", json.dumps(card).encode(), (
            Expect("first_mes", "command", RISU, "on a click"),
            Expect("alternate_greetings[0]", "command", RISU, "on a click"),
            Expect("extensions.risuai.backgroundHTML", "css", RISU, "on display"),
            Expect("extensions.risuai.backgroundHTML", "remote", RISU),
            Expect("triggers[0]", "lua", RISU, "on every message"),
            Expect("triggers[1]", "command", RISU, "on a click"),
            Expect("regex_scripts[0].replace", "handler", RISU, "on display")),
            frozenset({"html"})),
    ]


def _charx_case() -> ActiveCase:
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        **card_v2()["data"],  # type: ignore[dict-item]
        "group_only_greetings": [],
        "assets": [
            {"type": "icon", "uri": "embeded://assets/icon/main.png", "name": "main",
             "ext": "png"},
            {"type": "x-risu-asset", "uri": "embeded://assets/other/map.svg", "name": "map",
             "ext": "svg"},
            {"type": "x-risu-asset", "uri": "embeded://assets/other/page.html", "name": "page",
             "ext": "html"},
            {"type": "x-risu-asset", "uri": "embeded://assets/other/tool.js", "name": "tool",
             "ext": "js"}]}}
    svg = (b'<svg xmlns="http://www.w3.org/2000/svg"><script>steal()</script>'
           b'<rect width="4" height="4"/></svg>')
    page = b"<html><body><img src=x onerror=steal()>Harbour map</body></html>"
    return ActiveCase("charx-files", "files.charx", _zip([
        ("card.json", json.dumps(card).encode()),
        ("assets/icon/main.png", minimal_png(2, 2)),
        ("assets/other/map.svg", svg),
        ("assets/other/page.html", page),
        ("assets/other/tool.js", b"export function steal() { return document.cookie }"),
    ]), (Expect("assets[1]", "script"), Expect("assets[2]", "handler"),
         Expect("assets[3]", "javascript")))


def _module_case() -> ActiveCase:
    import bunzai
    from bunzai.model import Lorebook, LorebookEntry, Module, RegexScript

    module = Module(
        id="3f1c2b7a-0d4e-4c55-9a7e-1b2c3d4e5f60", name="Harbour tools",
        description="Our own module.",
        lorebook=Lorebook(entries=[LorebookEntry(
            keys=["gate"], content="@@depth 2\n<iframe src=https://lure.example/x></iframe>")]),
        regex_scripts=[RegexScript(name="ping", pattern="x", replace="<img src=//p.example/x>",
                                   placement=["ai_output"], markdown_only=True)],
        triggers=[{"comment": "", "type": "output", "conditions": [],
                   "effect": [{"type": "triggerlua", "code": "print('x')"}]}],
        app_data={"risu-module": {"backgroundEmbedding": "<style>*{color:red}</style>",
                                  "mcp": {"url": "https://tools.example/mcp"}}})
    data = bunzai.write(module, "risu-module").data
    return ActiveCase("risu-module", "tools.risum", data, (
        Expect("lorebook.entries[0].content", "iframe", RISU),
        Expect("regex_scripts[0]", "remote", RISU, "on display"),
        Expect("triggers[0]", "lua", RISU),
        Expect("app_data.risu-module.backgroundEmbedding", "css", RISU),
        Expect("app_data.risu-module.mcp.url", "remote", RISU)), frozenset({"html"}))


def _voxta_case() -> ActiveCase:
    cid, sid = "11111111-2222-4333-8444-555555555555", "66666666-7777-4888-8999-000000000000"
    character = {"$type": "character", "Name": "Ilse", "Profile": "Runs the ferry.",
                 "Scripts": [{"Name": "index", "Content": "import { chat } from \"@voxta\";\n"
                                                          "chat.addEventListener('start', "
                                                          "() => chat.appTrigger('x'));"}],
                 "Id": cid}
    scenario = {"$type": "scenario", "Name": "Crossing", "SharedScripts": [],
                "Events": [{"Name": "arrive", "Effect": {"Script": "export function trigger(e)"
                                                                   " { chat.note('x') }"}}],
                "Roles": [{"Name": "main", "DefaultCharacterId": cid}], "Id": sid}
    package = {"$type": "package", "Name": "Ferry", "Version": "1.0.0",
               "EntryResource": {"Kind": 1, "Id": cid}, "Id": "p1"}
    return ActiveCase("voxta-package", "ferry.voxpkg", _zip([
        ("package.json", json.dumps(package).encode()),
        (f"Characters/{cid}/character.json", json.dumps(character).encode()),
        (f"Scenarios/{sid}/scenario.json", json.dumps(scenario).encode()),
    ]), (Expect("extensions.voxta.scripts[0]", "javascript", "Voxta", "on chat start"),
         Expect("app_data.voxta.Scenarios/", "javascript", "Voxta", "on every message")))


def _agnai_case() -> ActiveCase:
    char = {"kind": "character", "name": "Ilse", "persona": {"kind": "text", "attributes": {
        "text": ["Runs the ferry."]}}, "greeting": "<script>steal()</script>Welcome aboard.",
        "scenario": "", "sampleChat": ""}
    return ActiveCase("agnai-character", "agnai.json", json.dumps(char).encode(),
                      (Expect("first_mes", "script", "Agnai", "on chat start"),))


def all_active_cases() -> list[ActiveCase]:
    cases = [*_tricks_in_st_card(), *_st_cases(), *_risu_cases(), _charx_case(),
             _module_case(), _voxta_case(), _agnai_case()]
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases

"""The studio's HTTP API, in-process: every endpoint, bad input, the size cap, and agreement
with the CLI (same messages, same detection) because both run core's code."""

from __future__ import annotations

import base64
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import bunzai
from bunzai.cli import app as cli_app
from bunzai.host.registry import Registry, set_registry
from bunzai.io.containers.png import minimal_png
from bunzai.model import Asset, Character, Lorebook, LorebookEntry
from bunzai_studio.app import CSP
from bunzai_studio.openapi import openapi_schema
from bunzai_studio.uploads import DEFAULT_MAX_UPLOAD, parse_size
from bunzai_studio.view import PreviewBudget, entity_view

PNG = minimal_png(2, 2, (200, 30, 30, 255))
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'


def vaud(entity: Any) -> bytes:
    return bunzai.write(entity, "vaud-json", registry=Registry.load(autoload=False)).data


def card(**kw: Any) -> Character:
    base: dict[str, Any] = dict(
        name="Wren", description="A cartographer.", first_mes="Hello.",
        alternate_greetings=["Back again?"],
        lorebook=Lorebook(entries=[LorebookEntry(keys=["map"], content="Old maps.",
                                                 position="before_char")]),
        assets=[Asset(type="icon", name="main", data=PNG)],
        extensions={"acme": {"colour": "teal"}})
    base.update(kw)
    return Character(**base)


def upload(data: bytes, name: str = "wren.vaud.json") -> dict[str, Any]:
    return {"file": (name, data, "application/octet-stream")}


def cli_error(reg: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
              data: bytes, *args: str) -> str:
    """The message the CLI prints after ``bunzai: error:`` for the same file name."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(data)
    set_registry(reg)
    try:
        res = CliRunner().invoke(cli_app, [*args, name])
    finally:
        set_registry(None)
    line = res.stderr.strip().splitlines()[-1]
    assert line.startswith("bunzai: error: ")
    return line[len("bunzai: error: "):]


# -- inspect --------------------------------------------------------------------------------------


def test_inspect_shows_detection_entity_issues_label_and_same_kind_targets(client: Any) -> None:
    r = client.post("/api/inspect", files=upload(vaud(card())))
    assert r.status_code == 200
    body = r.json()
    assert (body["format"], body["kind"], body["confidence"], body["status"]) == (
        "vaud-json", "character", 1.0, "ok")
    assert body["candidates"][0]["reason"].startswith("canonical character")
    assert body["faults"] == [] and body["valid"] is True
    assert body["label"]["apps"] == []
    view = body["entities"][0]["view"]
    assert view["name"] == "Wren" and view["alternate_greetings"] == ["Back again?"]
    entry = view["lorebook"]["entries"][0]
    assert (entry["keys"], entry["content"], entry["enabled"], entry["position"]) == (
        ["map"], "Old maps.", True, "before_char")
    assert view["extensions"] == {"acme": {"colour": "teal"}}
    assert view["assets"][0]["preview"] == "data:image/png;base64," + base64.b64encode(
        PNG).decode()
    assert body["entities"][0]["summary"]["lorebook_entries"] == 1
    # Only formats that can hold a character are offered (the ribbon and the native format).
    assert [t["format"] for t in body["targets"]] == ["test-ribbon", "vaud-json"]
    assert body["output_stem"] == "wren"  # core's naming rule: after the uploaded file


def test_inspect_lists_validation_issues_with_paths(client: Any) -> None:
    book = Lorebook(entries=[LorebookEntry(keys=[], content="never fires")])
    body = client.post("/api/inspect", files=upload(vaud(card(name="", lorebook=book)))).json()
    assert {"path": "canonical.name", "message": "name is empty", "severity": "warning"} \
        in body["issues"]
    assert any(i["path"] == "canonical.lorebook.entries[0]" for i in body["issues"])


def test_lorebook_file_is_not_offered_character_targets(client: Any) -> None:
    book = Lorebook(name="Atlas", entries=[LorebookEntry(keys=["k"], content="c")])
    body = client.post("/api/inspect", files=upload(vaud(book), "atlas.json")).json()
    assert body["kind"] == "lorebook"
    assert [t["format"] for t in body["targets"]] == ["vaud-json"]


@pytest.mark.parametrize(("name", "data"), [
    ("photo.png", PNG),
    ("broken.json", b'{"name": '),
    ("truncated.png", PNG[:30]),
    ("empty.bin", b""),
])
def test_bad_files_get_the_clis_one_line_message(
        client: Any, registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        name: str, data: bytes) -> None:
    r = client.post("/api/inspect", files=upload(data, name))
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == cli_error(registry, tmp_path, monkeypatch, name, data, "inspect")
    assert body["exit_code"] in (3, 4) and "\n" not in body["error"]
    assert "Traceback" not in r.text


def test_ambiguous_file_names_the_tie_and_from_resolves_it(
        make_client: Callable[..., Any], twin_registry: Registry, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    client = make_client(twin_registry)
    data = b'{"ribbon": "Ann", "text": "t"}'
    r = client.post("/api/inspect", files=upload(data, "ann.json"))
    assert r.status_code == 422
    body = r.json()
    assert body["status"] == "ambiguous" and body["tied"] == ["test-ribbon", "test-twin"]
    assert body["error"] == cli_error(twin_registry, tmp_path, monkeypatch, "ann.json", data,
                                      "inspect")
    r = client.post("/api/inspect", files=upload(data, "ann.json"), data={"from": "test-twin"})
    assert r.status_code == 200
    assert (r.json()["format"], r.json()["read_as"]) == ("test-twin", "test-twin")


def test_inspect_unknown_from_format_is_a_usage_error(client: Any) -> None:
    r = client.post("/api/inspect", files=upload(vaud(card())), data={"from": "nope"})
    assert r.status_code == 400
    assert "unknown format 'nope'" in r.json()["error"]


# -- convert --------------------------------------------------------------------------------------


def test_convert_returns_the_loss_report_and_the_file(client: Any, registry: Registry) -> None:
    r = client.post("/api/convert", files=upload(vaud(card())), data={"to": "ribbon"})
    assert r.status_code == 200
    body = r.json()
    assert (body["format"], body["to"]) == ("vaud-json", "test-ribbon")
    assert {(e["path"], e["action"]) for e in body["loss"]} >= {
        ("lorebook", "dropped"), ("first_mes", "dropped")}
    [f] = body["files"]
    assert f["name"] == "wren.ribbon.json" and f["media_type"] == "application/json"
    out = base64.b64decode(f["data"])
    assert f["size"] == len(out)
    assert bunzai.read(out, registry=registry).name == "Wren"


def test_convert_passes_writer_options(client: Any) -> None:
    r = client.post("/api/convert", files=upload(vaud(card())),
                    data={"to": "ribbon", "option": "shout=true"})
    out = base64.b64decode(r.json()["files"][0]["data"])
    assert b'"ribbon":"WREN"' in out


@pytest.mark.parametrize(("option", "words"), [
    ("shout=maybe", "option shout of test-ribbon takes true or false, not 'maybe'"),
    ("shuot=true", "did you mean 'shout'?"),
])
def test_a_mistyped_writer_option_is_refused_as_by_the_cli(client: Any, option: str,
                                                          words: str) -> None:
    r = client.post("/api/convert", files=upload(vaud(card())),
                    data={"to": "ribbon", "option": option})
    assert r.status_code == 400 and r.json()["exit_code"] == 2
    assert words in r.json()["error"]


def test_the_loss_report_comes_with_its_summary_and_groups(client: Any) -> None:
    body = client.post("/api/convert", files=upload(vaud(card())), data={"to": "ribbon"}).json()
    # the ribbon names two losses itself; declaring nothing it carries, core reads its output
    # back and names the other three
    assert body["loss_summary"] == "5 dropped"
    assert [(g["action"], g["path"], g["count"]) for g in body["loss_groups"]] == [
        ("dropped", "lorebook", 1), ("dropped", "first_mes", 1),
        ("dropped", "extensions.acme", 1), ("dropped", "alternate_greetings[0]", 1),
        ("dropped", "assets[0]", 1)]


def test_output_name_comes_from_the_uploaded_name_made_safe(client: Any) -> None:
    """Downloads are named as ``bunzai convert`` names its outputs: after the source file."""
    data = vaud(card())
    for name, expected in (("c?.vaud.json", "c_"), ("CON.vaud.json", "_CON"),
                           ("..vaud.json", "untitled"), ("my card.vaud.json", "my card")):
        body = client.post("/api/convert", files=upload(data, name),
                           data={"to": "vaud-json"}).json()
        assert body["files"][0]["name"] == expected + ".vaud.json", name


def test_download_answers_with_the_file_itself(client: Any) -> None:
    data = vaud(card(name="Zoë"))
    r = client.post("/api/convert", files=upload(data, "Zoë.vaud.json"),
                    data={"to": "test-ribbon", "download": "true"})
    assert r.status_code == 200
    assert r.headers["content-disposition"] == (
        "attachment; filename=\"Zo?.ribbon.json\"; filename*=UTF-8''Zo%C3%AB.ribbon.json")
    assert r.headers["x-bunzai-loss-entries"] == "5"
    assert r.content.startswith(b'{"ribbon":"Zo')


def test_cross_kind_conversion_is_refused_like_the_cli(
        client: Any, registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = vaud(Lorebook(name="Atlas", entries=[LorebookEntry(keys=["k"], content="c")]))
    r = client.post("/api/convert", files=upload(data, "atlas.json"), data={"to": "ribbon"})
    assert r.status_code == 409
    assert "cross-kind" in r.json()["error"]
    assert r.json()["error"] == cli_error(registry, tmp_path, monkeypatch, "atlas.json", data,
                                          "convert", "--to", "ribbon")


@pytest.mark.parametrize(("fields", "message"), [
    ({}, "convert needs the target format in the field 'to'"),
    ({"to": "nope"}, "unknown format 'nope'"),
    ({"to": "ribbon", "option": "shout"}, "--option takes KEY=VALUE"),
    ({"to": ["ribbon", "vaud-json"]}, "field 'to' was sent 2 times"),
])
def test_convert_usage_errors(client: Any, fields: dict[str, Any], message: str) -> None:
    r = client.post("/api/convert", files=upload(vaud(card())), data=fields)
    assert r.status_code == 400
    assert message in r.json()["error"]


def test_convert_of_an_unrecognized_file_fails_with_422(client: Any) -> None:
    r = client.post("/api/convert", files=upload(PNG, "photo.png"), data={"to": "ribbon"})
    assert r.status_code == 422
    assert r.json()["error"].startswith("photo.png: unrecognized:")


# -- malformed requests ---------------------------------------------------------------------------


def test_missing_or_repeated_file_and_non_multipart_bodies(client: Any) -> None:
    r = client.post("/api/inspect", files={"upload": ("a.json", b"{}")})
    assert r.status_code == 400 and "no file uploaded" in r.json()["error"]
    two = [("file", ("a.json", b"{}")), ("file", ("b.json", b"{}"))]
    r = client.post("/api/inspect", files=two)
    assert r.status_code == 400 and "send one per request" in r.json()["error"]
    r = client.post("/api/inspect", content=b'{"name": "x"}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and "multipart/form-data" in r.json()["error"]
    r = client.post("/api/inspect", content=b"--xyz\r\nContent-Disposition: form-data; "
                    b'name="file"; filename="a"\r\n\r\nabc',
                    headers={"content-type": "multipart/form-data; boundary=xyz"})
    assert r.status_code == 400 and "closing boundary" in r.json()["error"]


def test_upload_file_name_is_reduced_to_its_base_name(client: Any) -> None:
    body = (b'--b\r\nContent-Disposition: form-data; name="file"; '
            b'filename="C:\\Users\\me\\..\\pho\x07to.png"\r\n\r\n' + PNG + b"\r\n--b--\r\n")
    r = client.post("/api/inspect", content=body,
                    headers={"content-type": "multipart/form-data; boundary=b"})
    assert r.json()["file"] == "photo.png"
    assert r.json()["error"].startswith("photo.png: unrecognized")


# -- the size cap ---------------------------------------------------------------------------------


def test_upload_over_the_cap_is_refused_with_the_knob_named(make_client: Any) -> None:
    client = make_client(max_upload=1000)
    ok = client.post("/api/inspect", files=upload(b"x" * 1000, "a.bin"))
    assert ok.status_code == 422  # read (and unrecognized), not refused for size
    r = client.post("/api/inspect", files=upload(b"x" * 1001, "a.bin"))
    assert r.status_code == 413
    assert r.json()["error"] == ("a.bin: upload is 1,001 bytes, over the limit of 1,000 (raise "
                                 "it with --max-upload or BUNZAI_STUDIO_MAX_UPLOAD)")


def test_declared_length_over_the_cap_is_refused_before_reading(make_client: Any) -> None:
    client = make_client(max_upload=1000)
    read: list[int] = []

    async def body() -> AsyncIterator[bytes]:
        read.append(1)
        yield b"x"

    r = client.post("/api/convert", content=body(), headers={
        "content-type": "multipart/form-data; boundary=b", "content-length": "999999999"})
    assert r.status_code == 413
    assert "999,999,999 bytes, over the limit of 1,000" in r.json()["error"]


def test_streamed_body_without_length_is_counted_while_reading(make_client: Any) -> None:
    client = make_client(max_upload=1000)
    sent: list[int] = []

    async def body() -> AsyncIterator[bytes]:
        for _ in range(1000):  # 64 MiB if nobody stopped reading
            sent.append(1)
            yield b"y" * 65536

    r = client.post("/api/inspect", content=body(),
                    headers={"content-type": "multipart/form-data; boundary=b"})
    assert r.status_code == 413
    assert "larger than the limit of 1,000 bytes" in r.json()["error"]
    assert len(sent) < 1000


def test_cap_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                        make_client: Any) -> None:
    monkeypatch.setenv("BUNZAI_STUDIO_MAX_UPLOAD", "2KiB")
    assert make_client().get("/api/info").json()["max_upload"] == 2048
    monkeypatch.setenv("BUNZAI_STUDIO_MAX_UPLOAD", "lots")
    with pytest.raises(bunzai.UsageError, match="'lots' is not a size"):
        make_client()
    monkeypatch.delenv("BUNZAI_STUDIO_MAX_UPLOAD")
    assert make_client().get("/api/info").json()["max_upload"] == DEFAULT_MAX_UPLOAD \
        == 64 * 1024 * 1024


def test_parse_size_units() -> None:
    assert parse_size("1000") == 1000
    assert parse_size("64MiB") == 64 * 1024 * 1024
    assert parse_size("2 k") == 2000
    assert parse_size("1G") == 10**9
    for bad in ("", "-1", "12 parsecs", "0", "1.5M"):
        with pytest.raises(bunzai.UsageError):
            parse_size(bad)


# -- formats, info, openapi, the page -------------------------------------------------------------


def test_formats_is_the_roster(client: Any, registry: Registry) -> None:
    from bunzai.engine.roster import roster_json

    assert client.get("/api/formats").json() == roster_json(registry)
    chars = client.get("/api/formats", params={"kind": "character"}).json()
    assert [r["format"] for r in chars] == ["vaud-json", "test-ribbon"]
    r = client.get("/api/formats", params={"kind": "spaceship"})
    assert r.status_code == 400 and "unknown kind" in r.json()["error"]


def test_info(client: Any) -> None:
    body = client.get("/api/info").json()
    assert body["core_version"] == bunzai.__version__
    assert body["formats"] == 2 and body["max_upload"] == DEFAULT_MAX_UPLOAD


def test_openapi_describes_every_route_and_resolves_every_ref(client: Any) -> None:
    from starlette.routing import Route

    doc = client.get("/openapi.json").json()
    assert doc["openapi"].startswith("3.1") and doc == openapi_schema(DEFAULT_MAX_UPLOAD)
    routes = {(r.path, m.lower()) for r in client.app.routes if isinstance(r, Route)
              for m in (r.methods or ()) if m != "HEAD"}
    documented = {(p, m) for p, ops in doc["paths"].items() for m in ops}
    assert routes == documented
    refs = re.findall(r'"\$ref": "#/components/schemas/(\w+)"', str(doc).replace("'", '"'))
    assert refs and set(refs) <= set(doc["components"]["schemas"])


def test_every_response_carries_the_security_headers(client: Any) -> None:
    for r in (client.get("/"), client.get("/static/studio.js"), client.get("/api/info"),
              client.get("/nowhere"), client.post("/api/inspect")):
        assert r.headers["content-security-policy"] == CSP
        assert r.headers["x-content-type-options"] == "nosniff"
    assert "script-src 'self';" in CSP and "connect-src 'self'" in CSP
    assert "img-src 'self' data:;" in CSP and "object-src 'none'" in CSP


def test_foreign_host_header_is_refused(client: Any) -> None:
    assert client.get("/", headers={"host": "attacker.example"}).status_code == 400
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "LOCALHOST"):
        assert client.get("/api/info", headers={"host": host}).status_code == 200


def test_page_has_no_inline_script_or_style_and_the_script_never_parses_html(
        client: Any) -> None:
    page = client.get("/").text
    assert re.findall(r"<script\b[^>]*>", page) == [
        '<script src="/static/studio.js" defer>']
    assert "<style" not in page and " style=" not in page
    assert not re.search(r"\son[a-z]+\s*=", page)  # no inline event handlers
    js = client.get("/static/studio.js").text
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function", "setAttribute(\"on"):
        assert sink not in js, sink
    assert client.get("/static/studio.css").status_code == 200


def test_internal_errors_are_one_json_line_without_traceback(
        client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from bunzai_studio import engine

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("adapter exploded")

    monkeypatch.setattr(engine, "inspect", boom)
    r = client.post("/api/inspect", files=upload(vaud(card())))
    assert r.status_code == 500
    assert r.json()["error"] == ("internal error: RuntimeError: adapter exploded (please "
                                 "report it)")


# -- the entity view ------------------------------------------------------------------------------


def test_only_sniffed_raster_images_become_previews() -> None:
    ent = card(assets=[
        Asset(type="icon", name="main", ext="png", data=PNG),
        Asset(type="x-risu-asset", name="svg", ext="png", media_type="image/png", data=SVG),
        Asset(type="background", name="page", ext="png", data=b"<html><script>1</script>"),
        Asset(type="emotion", name="remote", uri="https://example.invalid/a.png"),
    ])
    views = entity_view(ent)["assets"]
    assert views[0]["preview"].startswith("data:image/png;base64,")
    assert views[1]["preview"] is None and views[1]["sniffed_type"] == "image/svg+xml"
    assert views[1]["preview_note"] == "not previewed (image/svg+xml can carry scripts)"
    assert views[2]["preview"] is None and views[2]["preview_note"].startswith("not an image")
    assert views[3]["preview"] is None and "never fetched" in views[3]["preview_note"]
    assert "data" not in views[0]  # raw bytes never travel


def test_preview_budget_and_passthrough_are_named_not_dumped() -> None:
    ent = card(assets=[Asset(name=str(i), data=PNG) for i in range(3)],
               passthrough={"sillytavern": {"huge": "x" * 10}})
    view = entity_view(ent, PreviewBudget(total=2 * len(PNG)))
    assert [a["preview"] is not None for a in view["assets"]] == [True, True, False]
    assert view["assets"][2]["preview_note"].endswith("budget of this file spent")
    assert view["passthrough_formats"] == ["sillytavern"] and "passthrough" not in view


# -- one engine -----------------------------------------------------------------------------------


def _corpus_sample() -> list[Path]:
    from bunzai.testing import corpus_files, manifest

    classes = sorted({row["class"] for row in manifest()})
    return [corpus_files(c)[0] for c in classes if corpus_files(c)]


@pytest.mark.parametrize("path", _corpus_sample(), ids=lambda p: p.parent.name)
def test_inspect_agrees_with_the_cli_on_real_files(
        path: Path, installed: Registry, make_client: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One file of every corpus class: same detection, summaries and error as the CLI."""
    import json

    monkeypatch.chdir(path.parent)
    set_registry(installed)
    try:
        res = CliRunner().invoke(cli_app, ["inspect", "--json", path.name])
    finally:
        set_registry(None)
    cli = json.loads(res.stdout)
    body = make_client(installed).post("/api/inspect", files=upload(path.read_bytes(),
                                                                    path.name)).json()
    for key in ("container", "format", "kind", "confidence", "candidates", "faults"):
        assert body.get(key) == cli.get(key), key
    # The CLI's JSON carries the bare message; its stderr line and the studio name the file.
    assert body.get("error") == (f"{path.name}: {cli['error']}" if "error" in cli else None)
    assert [e["summary"] for e in body.get("entities", [])] == cli.get("entities", [])


@pytest.fixture(scope="module")
def installed() -> Registry:
    from bunzai.testing import require_corpus

    require_corpus()
    return Registry.load()


# -- chats --------------------------------------------------------------------------------------


def test_a_chat_shows_as_a_transcript_and_converts_to_chat_formats_only(
        make_client: Callable[..., Any], installed: Registry) -> None:
    chat = (b'{"user_name":"Ada","character_name":"Wren","chat_metadata":{}}\n'
            b'{"name":"Wren","is_user":false,"is_system":false,'
            b'"send_date":"June 19, 2023 2:20pm","mes":"<b>Hello</b>","extra":{}}\n'
            b'{"name":"Ada","is_user":true,"is_system":true,'
            b'"send_date":"June 19, 2023 2:21pm","mes":"hi","extra":{}}')
    client = make_client(installed)
    body = client.post("/api/inspect", files=upload(chat, "storm.jsonl")).json()
    assert (body["format"], body["kind"]) == ("sillytavern-chat", "chat")
    view = body["entities"][0]["view"]
    assert [(m["speaker"], m["text"], m["hidden"]) for m in view["messages"]] == [
        ("Wren", "<b>Hello</b>", False), ("Ada", "hi", True)]
    assert body["entities"][0]["summary"]["messages"] == 2
    targets = {t["format"] for t in body["targets"]}
    assert "sillytavern-chat" in targets and "sillytavern" not in targets
    r = client.post("/api/convert", data={"to": "agnai-chat"},
                    files=upload(chat, "storm.jsonl"))
    assert r.status_code == 200
    assert any(e["path"] == "messages[1].time" for e in r.json()["loss"])


# -- active content -------------------------------------------------------------------------------


def test_inspect_lists_the_active_content_in_the_clis_words(
        make_client: Callable[..., Any], installed: Registry, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit panel's data is core's: the same findings and the same summary line as
    ``bunzai audit``, each excerpt plain text for the page to show as text."""
    import json

    doc = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Wren", "description": "", "personality": "", "scenario": "",
        "first_mes": '<img src=x onerror="window.__pwned=1">Hello.', "mes_example": "",
        "extensions": {"TavernHelper_scripts": [{"name": "bell", "content": "ring()"}]}}}
    data = json.dumps(doc).encode()
    body = make_client(installed).post("/api/inspect", files=upload(data, "wren.json")).json()
    audit = body["audit"]
    assert audit["summary"] == body["active_content"] == \
        "1 TavernHelper script, 1 greeting with event handlers"
    (path := tmp_path / "wren.json").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    set_registry(installed)
    try:
        res = CliRunner().invoke(cli_app, ["audit", "--json", path.name])
    finally:
        set_registry(None)
    cli = json.loads(res.stdout)
    assert [{k: v for k, v in f.items() if k != "line"} for f in audit["findings"]] \
        == cli["findings"]
    handler = next(f for f in audit["findings"] if f["kind"] == "handler")
    assert handler["excerpt"] == '<img src=x onerror="window.__pwned=1">'
    assert handler["line"].startswith("first_mes: HTML event handler")

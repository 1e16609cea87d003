"""risu-charx: CharX and JPEG-wrapped CharX, module.risum, assets, orphans, hostile archives."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest

from bunzai.sdk import (
    AdapterInput,
    Asset,
    Character,
    Lorebook,
    LorebookEntry,
    MalformedInput,
    RegexScript,
)
from bunzai.sdk.png import minimal_png
from bunzai.sdk.zip import write_zip
from bunzai.testing import corpus_files, hand_laid, load_registry, rezipped, samples_dir
from bunzai_risu._common import risum
from bunzai_risu._common.images import TINY_JPEG

SAMPLE = samples_dir() / "risu" / "gen_risu_export.charx"
TAVERNKIT = next(iter(corpus_files("charx")), None)
needs_sample = pytest.mark.skipif(not SAMPLE.exists(), reason="samples not available")


@pytest.fixture(scope="module")
def reg() -> Any:
    return load_registry()


def _read(reg: Any, data: bytes, name: str = "c.charx") -> Character:
    _, result, _ = reg.read(AdapterInput(data, name))
    (ch,) = result.entities
    assert isinstance(ch, Character)
    return ch


def _zip(data: bytes) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(data))


def _card(**data: object) -> bytes:
    body = {"name": "Ivy", "description": "", "personality": "", "scenario": "",
            "first_mes": "Hi", "mes_example": "", "creator_notes": "", "system_prompt": "",
            "post_history_instructions": "", "alternate_greetings": [], "tags": [],
            "creator": "", "character_version": "", "extensions": {},
            "group_only_greetings": []}
    body.update(data)
    return json.dumps({"spec": "chara_card_v3", "spec_version": "3.0", "data": body}).encode()


@needs_sample
def test_module_parts_become_part_of_the_character(reg: Any) -> None:
    ch = _read(reg, SAMPLE.read_bytes())
    assert [s.name for s in ch.regex_scripts] == ["Strip OOC", "Bold names"]
    assert ch.triggers is not None and len(ch.triggers) == 2
    assert ch.lorebook is not None
    assert ch.lorebook.extensions == {"risu_fullWordMatching": False}  # book from card.json
    assert ch.lorebook.entries[1].depth == 4  # entries from the module, decorators lifted
    happy = next(a for a in ch.assets if a.name == "happy")
    assert happy.ext == "png" and happy.media_type == "image/jpeg"  # sniffed, not trusted


@needs_sample
def test_same_format_round_trip(reg: Any) -> None:
    ch = _read(reg, SAMPLE.read_bytes())
    out = reg.write([ch], "risu-charx")
    assert not out.loss
    a, b = _zip(SAMPLE.read_bytes()), _zip(out.data)
    assert a.namelist() == b.namelist()
    assert json.loads(a.read("card.json")) == json.loads(b.read("card.json"))
    for name in a.namelist():
        if name.startswith("assets/"):
            assert a.read(name) == b.read(name), name
    ma, mb = risum.decode(a.read("module.risum")), risum.decode(b.read("module.risum"))
    assert ma.main == mb.main and ma.assets == mb.assets
    again = _read(reg, out.data)
    assert again.model_dump(exclude={"passthrough"}) == ch.model_dump(exclude={"passthrough"})


@needs_sample
def test_edited_lorebook_rewrites_module_and_projection(reg: Any) -> None:
    ch = _read(reg, SAMPLE.read_bytes())
    assert ch.lorebook is not None
    ch.lorebook.entries[2].keys = ["lamp", "light"]
    z = _zip(reg.write([ch], "risu-charx").data)
    module = risum.decode(z.read("module.risum")).main["module"]
    assert module["lorebook"][2]["key"] == "lamp, light"
    card = json.loads(z.read("card.json"))
    projected = card["data"]["character_book"]["entries"][2]
    assert projected["keys"] == ["lamp", "light"] and projected["mode"] == "normal"
    assert card["data"]["character_book"]["entries"][1]["folder"] == \
        "\uf000folder:6f1d1b0e-0000-4000-8000-000000000001"


@pytest.mark.skipif(TAVERNKIT is None, reason="corpus not available")
def test_third_party_charx_keeps_its_orphan(reg: Any) -> None:
    assert TAVERNKIT is not None
    _, result, _ = reg.read(AdapterInput.from_path(TAVERNKIT))
    (ch,) = result.entities
    orphan = [a for a in ch.assets if a.orphan]
    assert [a.origin for a in orphan] == ["zip:assets/emotions/happy.png"]
    assert any("orphan" in w.message for w in result.warnings)
    out = reg.write([ch], "risu-charx")
    z, src = _zip(out.data), _zip(TAVERNKIT.read_bytes())
    assert z.read("assets/emotions/happy.png") == src.read("assets/emotions/happy.png")
    assert "module.risum" not in z.namelist()  # none in the source, none added
    card = json.loads(z.read("card.json"))
    assert card["data"]["extensions"] == {}  # RisuAI's importer needs the object


@needs_sample
def test_jpeg_wrapped_charx(reg: Any) -> None:
    wrapped = TINY_JPEG + SAMPLE.read_bytes()  # RisuAI's layout: zip-relative offsets
    rep = reg.detect(AdapterInput(wrapped, "card.jpeg"))
    assert rep.container == "jpeg+zip"
    assert rep.winner is not None and rep.winner.format == "risu-charx"
    ch = _read(reg, wrapped, "card.jpeg")
    out = reg.write([ch], "risu-charx")
    assert out.suffix == ".jpeg" and out.data.startswith(TINY_JPEG)
    plain = reg.write([ch], "risu-charx", {"jpeg": False})
    assert plain.suffix == ".charx" and plain.data.startswith(b"PK")
    fresh = _read(reg, plain.data)
    jpeg = reg.write([fresh], "risu-charx", {"jpeg": True})
    assert jpeg.data[:3] == b"\xff\xd8\xff"
    back = _read(reg, jpeg.data, "x.jpeg")
    assert [a.data for a in back.assets] == [a.data for a in fresh.assets]


def test_new_charx_is_importable(reg: Any) -> None:
    ch = Character(
        name="Ivy", first_mes="Hi",
        regex_scripts=[RegexScript(name="r", pattern="a", replace="b", flags="g",
                                   placement=["ai_output"])],
        triggers=[{"comment": "", "type": "start", "conditions": [], "effect": []}],
        lorebook=Lorebook(entries=[LorebookEntry(keys=["k"], content="c")]),
        assets=[Asset(type="icon", name="main", data=minimal_png()),
                Asset(type="emotion", name="joy", data=minimal_png(2, 2)),
                Asset(type="emotion", name="joy", data=minimal_png(3, 3)),
                Asset(type="background", name="far", uri="https://example.com/bg.png")])
    z = _zip(reg.write([ch], "risu-charx").data)
    card = json.loads(z.read("card.json"))["data"]
    assert card["extensions"] == {}
    uris = [a["uri"] for a in card["assets"]]
    embedded = [u[len("embeded://"):] for u in uris if u.startswith("embeded://")]
    assert len(set(embedded)) == 3 and all(p in z.namelist() for p in embedded)
    assert "https://example.com/bg.png" in uris
    module = risum.decode(z.read("module.risum")).main["module"]
    assert module["regex"][0]["in"] == "a" and module["trigger"] == ch.triggers
    assert "lorebook" not in module  # the book stays in card.json for every reader
    back = _read(reg, reg.write([ch], "risu-charx").data)
    assert back.regex_scripts[0].pattern == "a" and back.triggers == ch.triggers


def test_embedded_asset_without_bytes_is_dropped_and_reported(reg: Any) -> None:
    data = write_zip([("card.json", _card(assets=[
        {"type": "icon", "uri": "embeded://assets/missing.png", "name": "main",
         "ext": "png"}]))])
    _, result, _ = reg.read(AdapterInput(data, "c.charx"))
    assert any("not in the archive" in w.message for w in result.warnings)
    out = reg.write(result.entities, "risu-charx")
    assert "assets[0]" in {e.path for e in out.loss}
    assets = json.loads(_zip(out.data).read("card.json"))["data"].get("assets", [])
    # nothing points at the missing file; the generated default image is the main icon
    assert [a["uri"] for a in assets] == ["embeded://assets/icon/image/main.png"]
    assert "assets/icon/image/main.png" in _zip(out.data).namelist()


@pytest.mark.parametrize(("entries", "message"), [
    ([("card.json", _card()), ("../evil.png", b"x")], "unsafe zip entry name"),
    ([("card.json", _card()), ("assets/bomb.bin", b"\0" * (8 * 1024 * 1024))], "ratio"),
])
def test_hostile_archives_are_refused_clearly(reg: Any, entries: list, message: str
                                              ) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, payload in entries:
            zf.writestr(name, payload)
    data = buf.getvalue()
    rep = reg.detect(AdapterInput(data, "evil.charx"))
    assert rep.winner is not None and rep.winner.format == "risu-charx"
    with pytest.raises(MalformedInput, match=message) as err:
        reg.read(AdapterInput(data, "evil.charx"))
    assert err.value.exit_code == 4
    assert "CharX" in err.value.message


def test_card_json_that_is_not_a_card(reg: Any) -> None:
    data = write_zip([("card.json", b'{"a": 1}')])
    with pytest.raises(MalformedInput, match="not a character card"):
        reg.read(AdapterInput(data, "c.charx"))


def test_corrupt_module_is_kept_and_reported(reg: Any) -> None:
    data = write_zip([("card.json", _card()), ("module.risum", b"\x6f\x00\xff\xff")])
    _, result, _ = reg.read(AdapterInput(data, "c.charx"))
    assert any(w.path == "module.risum" for w in result.warnings)
    out = reg.write(result.entities, "risu-charx")
    assert _zip(out.data).read("module.risum") == b"\x6f\x00\xff\xff"


@needs_sample
def test_charx_to_sillytavern_png_and_back(reg: Any) -> None:
    if "sillytavern" not in reg.adapters:
        pytest.skip("sillytavern is not installed")
    ch = _read(reg, SAMPLE.read_bytes())
    png = reg.write([ch], "sillytavern")
    _, result, _ = reg.read(AdapterInput(png.data, "c.png"), format="sillytavern")
    back_charx = reg.write(result.entities, "risu-charx")
    again = _read(reg, back_charx.data)
    for field in ("name", "description", "scenario", "first_mes", "mes_example",
                  "alternate_greetings", "tags", "creator", "creation_date"):
        assert getattr(again, field) == getattr(ch, field), field
    assert [a.data for a in again.assets] == [a.data for a in ch.assets]
    assert [(s.name, s.pattern, s.replace, s.flags) for s in again.regex_scripts] == [
        (s.name, s.pattern, s.replace, s.flags) for s in ch.regex_scripts]
    assert again.lorebook is not None and ch.lorebook is not None
    assert [(e.keys, e.content, e.depth, e.is_folder, e.folder)
            for e in again.lorebook.entries] == [
        (e.keys, e.content, e.depth, e.is_folder, e.folder) for e in ch.lorebook.entries]
    reported = {e.path for e in png.loss}
    assert "triggers" in reported  # a PNG card has no place for RisuAI's triggers


def test_risu_renamed_duplicates_are_read_and_repaired(reg: Any) -> None:
    """RisuAI's exporter renames a second ``happy.png`` and an unsafe ``sad:1.png`` in the zip
    but not in card.json; bunzai reads the renamed files and writes URIs that resolve."""
    a, b, c = minimal_png(1, 1), minimal_png(2, 2), minimal_png(3, 3)
    uri = "embeded://assets/emotion/image/"
    assets = [{"type": "emotion", "uri": uri + "happy.png", "name": "happy", "ext": "png"},
              {"type": "emotion", "uri": uri + "happy.png", "name": "happy", "ext": "png"},
              {"type": "emotion", "uri": uri + "sad:1.png", "name": "sad:1", "ext": "png"}]
    data = write_zip([("assets/emotion/image/happy.png", a),
                      ("assets/emotion/image/happy_1.png", b),
                      ("assets/emotion/image/sad_1.png", c),
                      ("card.json", _card(assets=assets))])
    ch = _read(reg, data)
    assert [x.data for x in ch.assets] == [a, b, c] and not any(x.orphan for x in ch.assets)
    out = reg.write([ch], "risu-charx")
    # each URI that now points to another name is named, with the name it points to;
    # assets[3] is the generated main icon, as the character has no avatar
    reasons = {e.path: e.reason for e in out.loss}
    assert set(reasons) == {"assets[1].uri", "assets[2].uri", "assets[3]"}
    assert "'assets/emotion/image/happy_1.png'" in reasons["assets[1].uri"]
    assert "'assets/emotion/image/sad_1.png'" in reasons["assets[2].uri"]
    z = _zip(out.data)
    uris = [x["uri"] for x in json.loads(z.read("card.json"))["data"]["assets"]][:3]
    assert len(set(uris)) == 3
    assert [z.read(u[len("embeded://"):]) for u in uris] == [a, b, c]


def test_a_disabled_entry_says_so_in_card_json_next_to_the_module(reg: Any) -> None:
    # a character with regex scripts is written with a module.risum holding RisuAI's own
    # lorebook; card.json carries RisuAI's projection of it, where the field must agree
    ch = Character(name="Ivy", first_mes="Hi", regex_scripts=[
        RegexScript(name="Bold names", pattern="Ivy", replace="**Ivy**")],
        lorebook=Lorebook(entries=[
            LorebookEntry(keys=["lamp"], content="The lamp is lit at dusk."),
            LorebookEntry(keys=["cellar"], content="Nobody goes down there.", enabled=False)]))
    first = reg.write([ch], "risu-charx")
    again = reg.write([_read(reg, first.data)], "risu-charx")  # now with a module lorebook
    for data in (first.data, again.data):
        entries = json.loads(_zip(data).read("card.json"))["data"]["character_book"]["entries"]
        assert [e["enabled"] for e in entries] == [True, False]
        assert entries[1]["content"].startswith("@@dont_activate")
        back = _read(reg, data)
        assert back.lorebook is not None
        assert [e.enabled for e in back.lorebook.entries] == [True, False]


@pytest.mark.parametrize("container", ["zip", "jpeg"])
def test_every_charx_carries_a_main_icon(reg: Any, container: str) -> None:
    from bunzai.sdk.png import default_avatar

    # RisuAI finishes importing a CharX only after it saved an image: one without assets
    # hangs on "Loading..." forever
    bare = Character(name="Ivy", first_mes="Hi")
    out = reg.write([bare], "risu-charx", {"container": container})
    card = json.loads(_zip(out.data).read("card.json"))
    icons = [a for a in card["data"]["assets"] if a["type"] == "icon" and a["name"] == "main"]
    assert len(icons) == 1 and icons[0]["uri"].startswith("embeded://")
    path = icons[0]["uri"][len("embeded://"):]
    assert _zip(out.data).read(path) == default_avatar()
    assert [(e.path, e.action) for e in out.loss] == [("assets[0]", "approximated")]
    back = _read(reg, out.data, f"c.{'charx' if container == 'zip' else 'jpeg'}")
    assert [(a.type, a.name, a.media_type) for a in back.assets] == [
        ("icon", "main", "image/png")]
    # a character with its own avatar gets no placeholder
    own = Character(name="Ivy", first_mes="Hi", assets=[Asset(
        type="icon", name="main", ext="png", data=minimal_png(3, 4), media_type="image/png")])
    out = reg.write([own], "risu-charx", {"container": container})
    names = [n for n in _zip(out.data).namelist() if n.startswith("assets/")]
    assert [_zip(out.data).read(n) for n in names] == [minimal_png(3, 4)]
    assert not out.loss.covers("assets[0]") or all(
        "placeholder" not in e.reason and "default image" not in e.reason for e in out.loss)


def test_the_placeholder_does_not_move_orphan_files_silently(reg: Any) -> None:
    ch = Character(name="Ivy", first_mes="Hi", assets=[Asset(
        type="x-risu-asset", name="note", ext="txt", data=b"plain text", orphan=True)])
    out = reg.write([ch], "risu-charx")
    back = _read(reg, out.data)
    assert back.assets[0].type == "icon" and back.assets[1].data == b"plain text"
    assert out.loss.covers("assets[0]")  # the orphan now reads back second: reported


def _other_tool_charx(with_module: bool) -> tuple[bytes, bytes, bytes | None]:
    """A CharX as another tool writes it: V3 card.json without the optional fields, keys in
    its own order, 2-space indented; with or without a module of its own making."""
    card = {"data": {
        "name": "Odile", "first_mes": "The tide turns at six.", "description": "Tide tables.",
        "personality": "", "scenario": "", "mes_example": "", "creator_notes": "",
        "system_prompt": "", "post_history_instructions": "", "alternate_greetings": [],
        "tags": ["harbour"], "creator": "", "character_version": "1",
        "group_only_greetings": [], "extensions": {"other_tool": {"seen": True}},
        "assets": [{"type": "icon", "uri": "embeded://assets/icon/image/main.png",
                    "name": "main", "ext": "png"}],
    }, "spec_version": "3.0", "spec": "chara_card_v3"}
    text = json.dumps(card, indent=2).encode()
    files = [("card.json", text), ("assets/icon/image/main.png", minimal_png(2, 2))]
    main = None
    if with_module:
        module = {"name": "Odile", "id": "odile-1", "lorebook": [
            {"key": "quay", "comment": "Quay", "content": "Stone steps.", "mode": "normal",
             "insertorder": 100, "alwaysActive": False, "secondkey": "", "selective": False}],
            "regex": [{"comment": "c", "in": "a", "out": "b", "type": "editoutput"}]}
        main = json.dumps({"module": module, "type": "risuModule"}, indent=2).encode()
        files.append(("module.risum", risum.encode(main, [])))
    return write_zip(files), text, main


@pytest.mark.parametrize("with_module", [False, True], ids=["card-only", "with-module"])
def test_a_charx_from_another_tool_keeps_its_card_json(reg: Any, with_module: bool) -> None:
    """A same-format rewrite keeps card.json as it was: no optional key added, none moved."""
    data, text, main = _other_tool_charx(with_module)
    ch = _read(reg, data)
    out = reg.write([ch], "risu-charx")
    assert not out.loss
    z = _zip(out.data)
    assert z.read("card.json") == text
    assert sorted(z.namelist()) == sorted(_zip(data).namelist())
    if main is not None:
        assert risum.decode(z.read("module.risum")).text == main
    back = _read(reg, out.data)
    assert back.model_dump(exclude={"passthrough"}) == ch.model_dump(exclude={"passthrough"})


def test_a_charx_another_tool_zipped_is_written_back_byte_for_byte(reg: Any) -> None:
    """Its card.json laid out by hand (short arrays on one line, a blank line at the end),
    the archive zipped with other timestamps and compression: an unchanged rewrite is the
    file; a changed one carries the change and keeps every other member's bytes."""
    data, text, _ = _other_tool_charx(with_module=True)
    card = json.loads(text)
    card["data"]["tags"] = ["harbour", "tides"]
    members = [(n, hand_laid(card) if n == "card.json" else _zip(data).read(n))
               for n in _zip(data).namelist()]
    source = rezipped(write_zip(members))
    assert b'"tags": ["harbour", "tides"]' in _zip(source).read("card.json")
    ch = _read(reg, source)
    assert reg.write([ch], "risu-charx").data == source
    ch.description = "Tide tables, corrected."
    out = reg.write([ch], "risu-charx").data
    before, after = _zip(source), _zip(out)
    assert [n for n in after.namelist() if after.read(n) != before.read(n)] == ["card.json"]
    assert json.loads(after.read("card.json"))["data"]["description"] == "Tide tables, corrected."


def test_validate_says_each_problem_once_with_risuais_severity(reg: Any) -> None:
    from bunzai.testing import validate

    card = json.loads(_card(assets=[
        {"type": "icon", "name": "main", "uri": "embeded://assets/icon/main.png", "ext": "png"},
        {"type": "emotion", "name": "sad", "uri": "embeded://assets/emotion/sad.png",
         "ext": "png"}]))
    del card["data"]["extensions"]
    data = write_zip([("card.json", json.dumps(card).encode()),
                      ("assets/icon/main.png", minimal_png(2, 2)),
                      ("assets/other/loose.png", minimal_png(3, 3))])
    found = [(i.severity, i.path, i.message) for i in validate(reg, data, "odile.charx")]
    assert found == [
        ("error", "$.data.assets[1].uri", "embeded://assets/emotion/sad.png is not in the "
                                          "archive: RisuAI refuses to import this card"),
        ("warning", "zip:assets/other/loose.png", "file in the archive that no asset refers "
                                                  "to; kept as an orphan asset"),
        ("error", "$.data.extensions", "missing: RisuAI's importer fails without "
                                       "data.extensions")]


def test_a_main_icon_without_bytes_gives_its_place_to_the_default_image(reg: Any) -> None:
    from bunzai import validate_file

    # a JSON card names its picture ccdefault: (the container's own image), with no bytes
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Ivy", "first_mes": "Hi", "description": "", "personality": "",
        "scenario": "", "mes_example": "", "creator_notes": "", "system_prompt": "",
        "post_history_instructions": "", "alternate_greetings": [], "tags": [],
        "creator": "", "character_version": "", "group_only_greetings": [],
        "extensions": {}, "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main",
                                      "ext": "png"}]}}
    _, src, _ = reg.read(AdapterInput(json.dumps(card).encode(), "ivy.json"),
                         format="sillytavern")
    out = reg.write(src.entities, "risu-charx")
    listed = json.loads(_zip(out.data).read("card.json"))["data"]["assets"]
    assert [(a["type"], a["name"]) for a in listed] == [("icon", "main")]
    found = validate_file(out.data, filename="ivy.charx", from_format="risu-charx",
                          strict=True, registry=reg)
    assert found.valid, [i.to_dict() for i in found.issues]


def test_a_charx_written_again_keeps_every_uri(reg: Any) -> None:
    a, b = minimal_png(1, 1), minimal_png(2, 2)
    uri = "embeded://assets/emotion/image/"
    assets = [{"type": "icon", "uri": uri + "main.png", "name": "main", "ext": "png"},
              {"type": "emotion", "uri": uri + "Happy.png", "name": "happy", "ext": "png"},
              {"type": "emotion", "uri": uri + "Happy.png", "name": "glad", "ext": "png"},
              {"type": "emotion", "uri": uri + "calm.png", "name": "calm", "ext": "png"}]
    data = write_zip([("assets/emotion/image/main.png", a),
                      ("assets/emotion/image/Happy.png", b),
                      ("assets/emotion/image/calm.png", b),
                      ("card.json", _card(assets=assets))])
    out = reg.write([_read(reg, data)], "risu-charx")
    written = json.loads(_zip(out.data).read("card.json"))["data"]["assets"]
    # two entries naming one file, and two files with the same bytes, keep their URIs
    assert [x["uri"] for x in written] == [x["uri"] for x in assets]
    assert not out.loss, [str(e) for e in out.loss]


def test_an_extension_that_lies_about_the_bytes_is_written_as_the_bytes_are(reg: Any) -> None:
    from bunzai import validate_file

    ch = Character(name="Ivy", first_mes="Hi", assets=[
        Asset(type="icon", name="main", ext="png", data=minimal_png(3, 4),
              media_type="image/png"),
        Asset(type="emotion", name="happy", ext="png", data=TINY_JPEG,
              media_type="image/jpeg")])
    out = reg.write([ch], "risu-charx")
    written = json.loads(_zip(out.data).read("card.json"))["data"]["assets"]
    assert [x["ext"] for x in written] == ["png", "jpg"]
    found = validate_file(out.data, filename="ivy.charx", from_format="risu-charx",
                          strict=True, registry=reg)
    assert found.valid, [i.to_dict() for i in found.issues]

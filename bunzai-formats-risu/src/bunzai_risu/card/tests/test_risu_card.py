"""risu: RisuAI cards in PNG and JSON, legacy and encrypted variants, detection gradient."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from bunzai.sdk import AdapterInput, Asset, Character, UnsupportedInput
from bunzai.sdk.cards import COMPLETED_KEYS
from bunzai.sdk.png import PngFile, make_text_chunk, minimal_png, splice
from bunzai.testing import load_registry, samples_dir, without_completed

SAMPLE = samples_dir() / "risu" / "gen_risu_card_v3.png"
CHARX = samples_dir() / "risu" / "gen_risu_export.charx"
needs_sample = pytest.mark.skipif(not SAMPLE.exists(), reason="samples not available")


@pytest.fixture(scope="module")
def reg() -> Any:
    return load_registry()


def _card(spec: str = "chara_card_v3", **data: object) -> dict:
    body: dict = {"name": "Ivy", "description": "d", "personality": "", "scenario": "",
                  "first_mes": "Hi", "mes_example": "", "creator_notes": "",
                  "system_prompt": "", "post_history_instructions": "",
                  "alternate_greetings": [], "tags": [], "creator": "",
                  "character_version": "", "extensions": {}}
    body.update(data)
    return {"spec": spec, "spec_version": "3.0" if spec.endswith("v3") else "2.0",
            "data": body}


def _png(*chunks: tuple[str, bytes | str]) -> bytes:
    made = [make_text_chunk(k, v) for k, v in chunks]
    return splice(PngFile.parse(minimal_png(2, 2)), insert_before_iend=made)


def _b64(obj: object) -> bytes:
    return base64.b64encode(json.dumps(obj).encode())


def _read(reg: Any, data: bytes, name: str = "c.png") -> Character:
    _, result, _ = reg.read(AdapterInput(data, name))
    (ch,) = result.entities
    assert isinstance(ch, Character)
    return ch


@needs_sample
def test_risu_png_outranks_sillytavern_and_round_trips(reg: Any) -> None:
    rep = reg.detect(AdapterInput.from_path(SAMPLE))
    assert rep.winner is not None and (rep.winner.format, rep.winner.score) == ("risu", 0.95)
    ch = _read(reg, SAMPLE.read_bytes())
    assert [s.name for s in ch.regex_scripts] == ["Strip OOC", "Bold names"]
    assert "customScripts" not in ch.extensions["risuai"]
    assert ch.triggers is not None and len(ch.triggers) == 2
    room, happy, icon = ch.assets
    assert (room.uri, room.media_type, happy.media_type) == ("__asset:1", "image/png",
                                                            "image/jpeg")
    assert icon.uri == "ccdefault:" and icon.origin == "png:container"
    out = reg.write([ch], "risu")
    assert not out.loss and out.data == SAMPLE.read_bytes()


def test_plain_card_is_left_to_sillytavern(reg: Any) -> None:
    data = _png(("ccv3", _b64(_card())))
    scores = {c.format: c.score for c in reg.detect(AdapterInput(data, "p.png")).candidates}
    assert "risu" not in scores
    json_scores = {c.format: c.score for c in reg.detect(
        AdapterInput(json.dumps(_card()).encode(), "p.json")).candidates}
    assert "risu" not in json_scores


def test_json_card_scripts_and_assets(reg: Any) -> None:
    pic = base64.b64encode(minimal_png()).decode()
    card = _card(extensions={"risuai": {"customScripts": [
        {"comment": "c", "in": "x", "out": "y", "type": "editinput"}],
        "triggerscript": [], "utilityBot": False}},
        assets=[{"type": "icon", "uri": f"data:application/octet-stream;base64,{pic}",
                 "name": "main", "ext": "png"}])
    data = json.dumps(card, indent=4).encode()
    ch = _read(reg, data, "c.json")
    assert ch.regex_scripts[0].placement == ["user_input"]
    assert ch.triggers == [] and ch.assets[0].data == minimal_png()
    out = reg.write([ch], "risu")
    assert out.suffix == ".json" and not out.loss
    # as it was, but for the keys CCv3 requires (group_only_greetings)
    assert without_completed(card, json.loads(out.data), COMPLETED_KEYS) == card


def test_png_write_from_a_charx_character(reg: Any) -> None:
    if not CHARX.exists():
        pytest.skip("samples not available")
    ch = _read(reg, CHARX.read_bytes(), "c.charx")
    out = reg.write([ch], "risu")
    png = PngFile.parse(out.data)
    keywords = [t.keyword for t in png.text_chunks()]
    assert keywords == ["chara-ext-asset_:1", "chara-ext-asset_:2", "ccv3"]
    back = _read(reg, out.data)
    assert [a.data for a in back.assets] == [a.data for a in ch.assets]
    assert back.regex_scripts[1].extensions == ch.regex_scripts[1].extensions
    assert back.triggers == ch.triggers
    # the assets now live in PNG chunks: a new address inside the file is not a loss
    assert not [e for e in out.loss if e.action != "stashed"]


def test_encrypted_card_is_refused_clearly(reg: Any) -> None:
    data = _png(("chara", "rcc||rccv1||AAAA||00||e30="))
    rep = reg.detect(AdapterInput(data, "e.png"))
    assert rep.winner is not None and rep.winner.format == "risu"
    with pytest.raises(UnsupportedInput, match=r"encrypted RisuAI card \(rcc\)") as err:
        reg.read(AdapterInput(data, "e.png"))
    assert err.value.exit_code == 4


def _legacy_png(msgpack: Any) -> bytes:
    """A RisuAI 0.6 PNG: a V1 card in ``chara`` and the app's own character in ``risuai``."""
    v1 = {"name": "Yuzu", "description": "d", "personality": "p", "scenario": "s",
          "first_mes": "Hi", "mes_example": "", "avatar": "none", "chat": "Yuzu - 2023-6-1",
          "create_date": "2023-6-1", "talkativeness": "0.5"}
    internal = {"type": 101, "data": {
        "name": "Yuzu", "viewScreen": "emotion", "bias": [],
        "emotionImages": [["smile", minimal_png(3, 3)], ["cry", minimal_png(4, 4)]],
        "customscript": [{"comment": "c", "in": "a", "out": "b", "type": "editoutput"}],
        "globalLore": [{"key": "k", "content": "v", "comment": "", "insertorder": 1,
                        "mode": "normal", "alwaysActive": False, "secondkey": "",
                        "selective": False}],
        "chats": [{"message": []}]}}
    text = json.dumps(v1, separators=(",", ":")).encode()
    return _png(("chara", base64.b64encode(text)),
                ("risuai", base64.b64encode(msgpack.packb(internal))))


def test_legacy_messagepack_card(reg: Any) -> None:
    msgpack = pytest.importorskip("msgpack")
    data = _legacy_png(msgpack)
    rep = reg.detect(AdapterInput(data, "yuzu.png"))
    assert rep.winner is not None and rep.winner.format == "risu"
    _, result, _ = reg.read(AdapterInput(data, "yuzu.png"))
    (ch,) = result.entities
    assert ch.name == "Yuzu" and ch.extensions["risuai"]["viewScreen"] == "emotion"
    emotions = [a for a in ch.assets if a.type == "emotion"]
    assert [(a.name, a.media_type) for a in emotions] == [("smile", "image/png"),
                                                          ("cry", "image/png")]
    assert ch.regex_scripts[0].pattern == "a"
    assert ch.lorebook is not None and ch.lorebook.entries[0].keys == ["k"]
    assert any("chat history" in w.message for w in result.warnings)


def test_legacy_card_is_rewritten_as_it_was(reg: Any) -> None:
    """A same-format rewrite of a RisuAI 0.6 PNG adds nothing: no asset gains a URI or an
    extension, and the file is the same file."""
    data = _legacy_png(pytest.importorskip("msgpack"))
    ch = _read(reg, data, "yuzu.png")
    out = reg.write([ch], "risu")
    assert not out.loss and not out.warnings
    assert out.data == data
    back = _read(reg, out.data)
    assert [a.model_dump() for a in back.assets] == [a.model_dump() for a in ch.assets]
    assert all(a.uri is None and a.ext is None for a in back.assets if a.type == "emotion")


def test_an_edited_legacy_card_is_written_as_risu_writes_cards_today(reg: Any) -> None:
    data = _legacy_png(pytest.importorskip("msgpack"))
    ch = _read(reg, data, "yuzu.png")
    ch.assets[0].data = minimal_png(5, 5)  # a new emotion image
    out = reg.write([ch], "risu")
    assert [t.keyword for t in PngFile.parse(out.data).text_chunks()] == [
        "chara-ext-asset_:1", "chara-ext-asset_:2", "ccv3"]
    assert any("chat history" in w for w in out.warnings)
    back = _read(reg, out.data)
    assert [a.data for a in back.assets if a.type == "emotion"] == [
        minimal_png(5, 5), minimal_png(4, 4)]


def test_v2_card_emotions_come_from_asset_chunks(reg: Any) -> None:
    card = _card("chara_card_v2", extensions={"risuai": {
        "emotions": [["happy", "__asset:0"]],
        "additionalAssets": [["bg", "__asset:1", "png"]]}})
    data = _png(("chara", _b64(card)),
                ("chara-ext-asset_:0", base64.b64encode(minimal_png(5, 5))),
                ("chara-ext-asset_:1", base64.b64encode(minimal_png(6, 6))))
    ch = _read(reg, data)
    by_type = {a.type: a for a in ch.assets}
    assert by_type["emotion"].data == minimal_png(5, 5)
    assert by_type["x-risu-asset"].data == minimal_png(6, 6)
    assert "emotions" not in ch.extensions["risuai"]
    out = reg.write([ch], "risu")
    back = _read(reg, out.data)
    assert sorted(a.data for a in back.assets if a.data) == sorted(
        a.data for a in ch.assets if a.data)


def test_icon_in_another_format_becomes_the_png(reg: Any) -> None:
    pil = pytest.importorskip("PIL.Image")
    import io
    buf = io.BytesIO()
    pil.new("RGB", (4, 3)).save(buf, "WEBP")
    ch = Character(name="W", extensions={"risuai": {}},
                   assets=[Asset(type="icon", name="main", uri="ccdefault:", data=buf.getvalue())])
    out = reg.write([ch], "risu")
    png = PngFile.parse(out.data)
    assert (png.width, png.height) == (4, 3)
    assert [e.path for e in out.loss] == ["assets[0].data"]  # converted to PNG


def test_v2_vits_files_keep_their_chunk_keys(reg: Any) -> None:
    card = _card("chara_card_v2", extensions={"risuai": {"vits": {"voice.onnx": "__asset:3"}}})
    data = _png(("chara", _b64(card)), ("chara-ext-asset_:3", base64.b64encode(b"onnx-bytes")))
    _, result, _ = reg.read(AdapterInput(data, "v.png"))
    (ch,) = result.entities
    assert not any("orphan" in w.message for w in result.warnings)
    (vits,) = [a for a in ch.assets if a.type == "x-risu-vits"]
    assert (vits.name, vits.data) == ("voice.onnx", b"onnx-bytes")
    out = reg.write([ch], "risu")
    assert not out.loss
    keywords = [t.keyword for t in PngFile.parse(out.data).text_chunks()]
    assert "chara-ext-asset_:3" in keywords


def _book_with_a_disabled_entry() -> Character:
    from bunzai.sdk import Lorebook, LorebookEntry

    return Character(name="Ivy", first_mes="Hi", lorebook=Lorebook(entries=[
        LorebookEntry(keys=["lamp"], content="The lamp is lit at dusk."),
        LorebookEntry(keys=["cellar"], content="Nobody goes down there.", enabled=False),
    ]))


@pytest.mark.parametrize("container", ["png", "json"])
def test_a_disabled_entry_says_so_to_every_reader(reg: Any, container: str) -> None:
    out = reg.write([_book_with_a_disabled_entry()], "risu", {"container": container})
    inp = AdapterInput(out.data, f"out.{container}")
    card = inp.json if container == "json" else inp.png_json("ccv3")[0].value
    entries = card["data"]["character_book"]["entries"]
    # RisuAI goes by the decorator, SillyTavern and Character Foundry by the field
    assert entries[1]["enabled"] is False
    assert entries[1]["content"].startswith("@@dont_activate\n")
    assert entries[0]["enabled"] is True and not entries[0]["content"].startswith("@@")
    back = _read(reg, out.data, f"out.{container}")
    assert back.lorebook is not None
    assert [e.enabled for e in back.lorebook.entries] == [True, False]
    assert back.lorebook.entries[1].content == "Nobody goes down there."
    assert not out.loss.covers("lorebook.entries[1].enabled")

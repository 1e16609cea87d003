"""voxta: the corpus packages, our own packages, the field mapping, the writer and bad input."""

from __future__ import annotations

import base64
import io
import json
import re
import struct
import subprocess
import sys
import uuid
import zipfile
from pathlib import Path
from typing import Any

import pytest

from bunzai.sdk import (
    Asset,
    BunzaiError,
    Character,
    Lorebook,
    LorebookEntry,
    MalformedInput,
    UnsupportedInput,
)
from bunzai.sdk.png import minimal_png
from bunzai.sdk.zip import SafeZip
from bunzai.testing import (
    as_input,
    conversion_problems,
    corpus_files,
    rezipped,
    route,
    uncovered_differences,
)
from bunzai.testing.damage import damaged

from ..._common.jsonfmt import dumps_dotnet
from ..._common.package import build_zip
from . import fixtures as fx

FMT = "voxta"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def corpus(stem: str) -> Path:
    found = [p for p in corpus_files("voxpkg") if stem in p.name]
    if not found:
        pytest.skip(f"corpus file *{stem}* not found")
    return found[0]


def read(reg: Any, data: bytes | Path, fmt: str | None = FMT) -> tuple[list[Any], list[Any]]:
    _, result, _ = reg.read(as_input(data, None if isinstance(data, Path) else "x.voxpkg"),
                            format=fmt)
    return list(result.entities), result.warnings


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def infos(data: bytes) -> list[zipfile.ZipInfo]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.infolist()


def comment(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.comment


# -- the corpus ------------------------------------------------------------------------------


def test_every_corpus_package_reads_or_is_refused_with_its_reason(registry: Any) -> None:
    files = corpus_files("voxpkg")
    assert files, "no voxpkg in the corpus"
    for path in files:
        assert route(registry, path) == FMT, path.name
        try:
            entities, _ = read(registry, path)
        except UnsupportedInput as exc:
            assert "scenario-only Voxta package" in exc.message
            assert exc.exit_code == 4
            continue
        assert entities and all(isinstance(e, Character) and e.name for e in entities)


def test_scenario_only_package_is_refused_naming_its_missing_characters(
        registry: Any) -> None:
    path = corpus("Desktop_Critics")
    with pytest.raises(UnsupportedInput) as info:
        read(registry, path)
    message = info.value.message
    assert "scenario-only Voxta package" in message
    assert "'Desktop Critics: Real-Time Commentary Edition'" in message
    assert "35c74d75-e3e4-44af-9389-faade99cc419" in message  # the roles' characters
    assert "4f57d1cd-d448-5b43-6cc0-b4d3a87719db" in message
    cli = Path(sys.executable).with_name("bunzai")  # the command a user runs
    res = subprocess.run([str(cli), "inspect", str(path)], capture_output=True, text=True,
                         check=False)
    assert res.returncode == 4
    assert "Traceback" not in res.stderr and path.name in res.stderr
    assert res.stderr.strip().count("\n") == 0
    assert "unrecognized" not in res.stderr and "no format scored" not in res.stderr


def test_our_scenario_export_is_refused_too(registry: Any) -> None:
    with pytest.raises(UnsupportedInput, match=fx.KEEPER):
        read(registry, fx.scenario_export())


def test_purrsephone_field_mapping(registry: Any) -> None:
    (ch,), _ = read(registry, corpus("Purrsephone"))
    assert ch.name == "Purrsephone"
    assert ch.description.startswith("|cache|\n{{char}}\nAge: 22")  # Profile, macros read
    assert "{{ char }}" not in ch.description and "{{ user }}" not in ch.description
    assert ch.extensions["visual_description"].startswith("|cache|\nA beautiful synthetic")
    assert ch.character_version == "1.0.8"  # the character's, not the package's 1.0.1
    assert ch.creator == "Vega" and ch.creator_notes == "Purrsephone"
    assert "cat girl" in ch.tags
    assert ch.creation_date == 1731915611  # 2024-11-18T07:40:11.929+00:00
    assert ch.lorebook is not None and ch.lorebook.name == "Purrsephone"
    first = ch.lorebook.entries[0]
    assert first.keys == ["memory"] and first.priority == 6 and first.enabled
    assert first.content.startswith("Vega maintains memories of Purrsephone's")
    assert [a.name for a in ch.assets] == ["main"] and ch.assets[0].media_type == "image/png"
    assert ch.nickname == "Purrsephone Alpha 0.8"  # Label
    # the Voxta settings, where Character Foundry keeps them in a card
    data = ch.extensions[FMT]
    assert len(data["textToSpeech"]) == 4 and data["chatSettings"]["chatStyle"] == 3
    assert data["chatSettings"]["useMemory"] is True
    assert [s["Name"] for s in data["scripts"]] == ["index", "lib"]
    assert "vision" in data["augmentations"]
    assert data["id"] == "cf0a06ea-5b6c-9a4d-945a-1c32ad4349bd"
    assert data["packageId"] == "111cf329-c052-671b-e247-351f6f7ea8e5"
    assert data["original"] == {"DateCreated": "2024-11-18T07:40:11.929+00:00",
                                "DateModified": "2025-10-22T22:54:06.0064021+00:00"}
    assert FMT not in ch.app_data
    for layout in ("$type", "Id", "PackageId", "MemoryBooks", "Thumbnail"):
        assert layout in ch.passthrough[FMT]["rest"]


def test_lady_voxta_reports_only_the_settings_that_are_not_voxta_defaults(
        registry: Any) -> None:
    (ch,), _ = read(registry, corpus("Lady_Voxta"))
    data = ch.extensions[FMT]
    assert data["textToSpeech"] == [] and data["scripts"] == []
    assert data["original"]["UseVision"] is False and data["original"]["ScenarioOnly"] is False
    # another format drops every Voxta setting, but reports them only when a user set one
    out = registry.write([ch], "backyard-byaf")
    assert [e.path for e in out.loss if FMT in e.path] == [f"extensions.{FMT}"]
    chat = data["chatSettings"]
    assert (chat["chatStyle"], chat["notifyUserAwayReturn"], chat["timeAware"]) == (1, True, True)
    chat["chatStyle"] = 0
    del chat["notifyUserAwayReturn"], chat["timeAware"]
    out = registry.write([ch], "backyard-byaf")
    assert not [e.path for e in out.loss if FMT in e.path]  # defaults, ids and dates
    assert ch.lorebook is None and ch.tags == [] and ch.creator_notes == ""


@pytest.mark.parametrize("stem", ["Lady_Voxta", "Purrsephone"])
def test_corpus_rewrite_is_byte_faithful_for_every_member(registry: Any, stem: str) -> None:
    path = corpus(stem)
    entities, _ = read(registry, path)
    out = registry.write(entities, FMT)
    assert not out.loss
    source, written = path.read_bytes(), out.files[0].data
    assert list(members(written)) == list(members(source))
    assert members(written) == members(source)
    assert comment(written) == b"Voxta Package"
    assert all(i.compress_type == zipfile.ZIP_DEFLATED and not i.is_dir()
               for i in infos(written))
    assert written == source  # the archive itself: its timestamps, compression and order


@pytest.mark.parametrize("level", [9, 0])
def test_a_package_another_tool_zipped_is_written_back_byte_for_byte(registry: Any,
                                                                     level: int) -> None:
    data = rezipped(fx.full_package(), level=level, folders=True)
    entities, _ = read(registry, data)
    assert registry.write(entities, FMT).files[0].data == data
    entities[1].description = "Ilse keeps the last ferry running."
    out = registry.write(entities, FMT).files[0].data
    assert out != data
    before, after = members(data), members(out)
    assert [n for n in after if after[n] != before.get(n)] == [
        f"Characters/{fx.FERRY}/character.json"]
    assert "the last ferry" in after[f"Characters/{fx.FERRY}/character.json"].decode()


@pytest.mark.parametrize("name", sorted(fx.SAMPLE_BUILDERS))
def test_committed_samples_are_what_the_builders_make(name: str) -> None:
    assert (fx.SAMPLES / name).read_bytes() == fx.SAMPLE_BUILDERS[name](), \
        "run python -m bunzai_voxta.voxta.tests.fixtures"


# -- our own packages ------------------------------------------------------------------------


def test_full_package_reads_two_characters_and_writes_them_back_together(
        registry: Any) -> None:
    data = fx.full_package()
    entities, warnings = read(registry, data)
    keeper, ferry = entities
    assert (keeper.name, ferry.name) == ("Mara", "Ilse")
    assert keeper.lorebook is not None and ferry.lorebook is not None
    # Mara links Tides then Harbour; Ilse links Harbour and a book the package lacks
    assert [e.keys for e in keeper.lorebook.entries] == [["tide", "tides"], ["gale"],
                                                         ["harbour", "quay"]]
    assert keeper.lorebook.name == "Tides"
    assert keeper.lorebook.app_data[FMT][f"Books[{fx.HARBOUR}]"]["Name"] == "Harbour"
    assert [e.keys for e in ferry.lorebook.entries] == [["harbour", "quay"]]
    assert any(fx.MISSING_BOOK in w.message and "not in the package" in w.message
               for w in warnings)
    assert [a.type for a in keeper.assets] == ["icon", "emotion", "other"]
    assert [a.name for a in keeper.assets] == ["main", "happy", "hello"]
    # the scenario, its thumbnail and the book nobody links are user data of the first one
    kept = keeper.app_data[FMT]
    assert kept[f"Scenarios/{fx.SCENARIO}/scenario.json"]["Name"] == "Storm Night"
    assert f"Scenarios/{fx.SCENARIO}/thumbnail.png" in kept
    assert kept[f"Books/{fx.LOOSE}/book.json"]["Name"] == "Loose notes"
    assert not any(k.startswith(("Scenarios/", "Books/")) for k in ferry.app_data.get(FMT, {}))
    out = registry.write(entities, FMT)
    assert not out.loss
    assert members(out.files[0].data) == members(data)
    assert list(members(out.files[0].data)) == list(members(data))


def test_one_character_of_a_package_written_alone(registry: Any) -> None:
    entities, _ = read(registry, fx.full_package())
    out = registry.write([entities[1]], FMT)
    files = members(out.files[0].data)
    assert f"Characters/{fx.FERRY}/character.json" in files
    assert f"Characters/{fx.KEEPER}/character.json" not in files
    assert f"Books/{fx.HARBOUR}/book.json" in files and f"Books/{fx.TIDES}/book.json" not in files
    (back,), _ = read(registry, out.files[0].data)
    assert not uncovered_differences(entities[1], back, out.loss)
    links = json.loads(files[f"Characters/{fx.FERRY}/character.json"])["MemoryBooks"]
    assert links == [fx.HARBOUR, fx.MISSING_BOOK]  # the missing book's link is kept


def test_edits_win_and_the_rest_stays_byte_identical(registry: Any) -> None:
    data = fx.character_export()
    (ch,), _ = read(registry, data)
    ch.description = "{{char}} keeps the light; {{user}} keeps the log."
    ch.lorebook = Lorebook(entries=[LorebookEntry(keys=["lamp"], content="Trim it at dusk.",
                                                  priority=4)])
    out = registry.write([ch], FMT)
    assert [(e.path, e.action) for e in out.loss] == [("lorebook.name", "approximated")]
    files = members(out.files[0].data)
    obj = json.loads(files[f"Characters/{fx.KEEPER}/character.json"])
    assert obj["Profile"] == "{{ char }} keeps the light; {{ user }} keeps the log."
    (book_id,) = obj["MemoryBooks"]
    assert UUID.match(book_id)
    book = json.loads(files[f"Books/{book_id}/book.json"])
    assert book["Items"][0]["Keywords"] == ["lamp"] and book["Items"][0]["Weight"] == 4
    source = json.loads(members(data)[f"Characters/{fx.KEEPER}/character.json"])
    assert list(obj) == list(source)  # same key order, the new link where it was
    for key, value in source.items():
        if key not in ("Profile", "MemoryBooks"):
            assert obj[key] == value, key


def test_differing_copies_of_a_shared_book_are_both_kept(registry: Any) -> None:
    entities, _ = read(registry, fx.full_package())
    ferry = entities[1]
    assert ferry.lorebook is not None
    ferry.lorebook.entries[0].content = "The harbour master retired."
    out = registry.write(entities, FMT)
    assert any("copies differ" in w for w in out.warnings)
    back, _ = read(registry, out.files[0].data)
    assert not conversion_problems(registry, entities, FMT)
    assert back[1].lorebook is not None
    assert back[1].lorebook.entries[0].content == "The harbour master retired."
    assert back[0].lorebook is not None
    assert back[0].lorebook.entries[2].content == "The harbour master owes {{char}} a favour."


def test_foundry_export_reads_its_card_fields(registry: Any) -> None:
    (ch,), _ = read(registry, fx.foundry_export())
    assert ch.alternate_greetings == ["Last crossing tonight, {{user}}."]
    assert ch.system_prompt == "Write {{char}} briefly."
    assert ch.post_history_instructions == "Stay in character."
    assert ch.lorebook is not None
    assert [e.enabled for e in ch.lorebook.entries] == [True, False]  # Deleted: true
    assert ch.creation_date == 1735862400
    out = registry.write([ch], FMT)
    assert not out.loss and members(out.files[0].data) == members(fx.foundry_export())
    assert comment(out.files[0].data) == b""  # it had none: the rewrite adds none


# -- cards converted to Voxta ----------------------------------------------------------------


def st_card() -> dict[str, Any]:
    """A SillyTavern V2 card of our own, with the fields Voxta cannot hold set."""
    entries = [
        {"id": 0, "keys": ["lamp"], "secondary_keys": ["oil"], "content": "{{char}} trims it.",
         "comment": "Lamp", "enabled": True, "insertion_order": 10, "constant": False,
         "selective": True, "position": "before_char", "priority": 7,
         "extensions": {"probability": 50, "useProbability": True}},
        {"id": 1, "keys": ["ferry"], "secondary_keys": [], "content": "It runs at night.",
         "comment": "", "enabled": False, "insertion_order": 20, "constant": True,
         "selective": False, "position": "after_char", "extensions": {}},
    ]
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Mara", "nickname": "Keeper",
        "description": "{{char}} keeps the Slate Light. <USER> visits.",
        "personality": "Patient.", "scenario": "A gale.",
        "first_mes": "You're late, {{user}}.",
        "mes_example": "<START>\n{{user}}: Hi\n{{char}}: Hm.",
        "creator_notes": "Ours.", "system_prompt": "Be brief, {{char}}.",
        "post_history_instructions": "", "alternate_greetings": ["Storm's up, {{User}}."],
        "group_only_greetings": ["All of you, inside."],
        "tags": ["lighthouse", "NSFW"], "creator": "slatewright", "character_version": "3",
        "extensions": {"talkativeness": "0.5", "fav": False, "world": "",
                       "depth_prompt": {"prompt": "Stay grim.", "depth": 4, "role": "system"},
                       "visual_description": "A grey coat."},
        "character_book": {"name": "Coast", "entries": entries}}}


def test_sillytavern_card_to_voxta_reads_back_with_an_exact_loss_report(
        registry: Any) -> None:
    card = json.dumps(st_card()).encode()
    handle, result, _ = registry.read(as_input(card, "mara.json"))
    assert handle.id == "sillytavern"
    (ch,) = result.entities
    assert isinstance(ch, Character)
    out = registry.write([ch], FMT)
    data = out.files[0].data
    assert route(registry, data) == FMT
    (back,), _ = read(registry, data)
    assert back.kind == "character" and back.name == "Mara"
    assert not uncovered_differences(ch, back, out.loss, registry)
    # both ways: what changed is reported, and what is reported changed
    assert not conversion_problems(registry, [ch], FMT)
    reported = {e.path for e in out.loss}
    assert back.nickname == "Keeper"  # as Label
    assert {"group_only_greetings", "description", "alternate_greetings",
            "mes_example", "extensions.depth_prompt",
            "lorebook.entries[0].secondary_keys", "lorebook.entries[0].comment",
            "lorebook.entries[0].insertion_order", "lorebook.entries[1].insertion_order",
            "lorebook.entries[1].constant"} <= reported
    # layout, ids and values that ask nothing of Voxta are not losses
    assert not [p for p in reported if "passthrough" in p]
    assert not {"nickname", "extensions.world", "lorebook.entries[0].id", "lorebook.entries[1].id",
                "lorebook.entries[0].constant", "lorebook.entries[0].position",
                "lorebook.entries[0].content", "lorebook.entries[1].enabled"} & reported


def _card_json(png: bytes) -> dict[str, Any]:
    """The card a PNG carries (its ``ccv3`` chunk, else ``chara``), as a card reader sees it."""
    pos, found = 8, {}
    while pos < len(png):
        size, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if kind == b"tEXt":
            key, _, text = png[pos + 8:pos + 8 + size].partition(b"\0")
            found[key] = json.loads(base64.b64decode(text))
        pos += size + 12
    card: dict[str, Any] = found.get(b"ccv3") or found[b"chara"]
    return card


VOICE_AND_CHAT = ("Label", "Culture", "TextToSpeech", "Scripts", "ChatStyle",
                  "EnableThinkingSpeech", "NotifyUserAwayReturn", "TimeAware", "UseMemory",
                  "MaxTokens", "MaxSentences", "Augmentations", "SystemPromptOverrideType",
                  "ScenarioOnly", "Description", "DateCreated", "DateModified")


def test_a_voxta_character_through_a_sillytavern_png_keeps_its_voice_and_settings(
        registry: Any) -> None:
    (ch,), _ = read(registry, fx.character_export())
    png = registry.write([ch], "sillytavern")
    assert png.files[0].suffix == ".png"
    # the card holds the Voxta settings: nothing lost; its script is kept, but SillyTavern
    # does not run it (docs/active-content.md), which the report says
    assert [(e.path, e.action) for e in png.loss] == [("extensions.voxta.scripts[0]",
                                                      "stashed")]
    assert "does not run it" in png.loss.entries[0].reason
    assert not conversion_problems(registry, [ch], "sillytavern")
    ext = _card_json(png.files[0].data)["data"]["extensions"]["voxta"]  # where Character
    assert ext["textToSpeech"][0]["Voice"]["label"] == "Female"  # Foundry looks for them
    assert ext["chatSettings"]["chatStyle"] == 2 and ext["id"] == fx.KEEPER

    handle, result, _ = registry.read(as_input(png.files[0].data, "mara.png"))
    assert handle.id == "sillytavern"
    (card,) = result.entities
    out = registry.write([card], FMT)
    assert not out.loss and not conversion_problems(registry, [card], FMT)
    written = json.loads(members(out.files[0].data)[f"Characters/{fx.KEEPER}/character.json"])
    source = fx.keeper([])
    assert {k: written.get(k) for k in VOICE_AND_CHAT} == {k: source[k] for k in VOICE_AND_CHAT}

    # a setting the user removes from the card is gone from the package, not reported
    del card.extensions[FMT]["textToSpeech"]
    card.extensions[FMT]["chatSettings"]["speakingRate"] = 1.2  # no such Voxta setting
    out = registry.write([card], FMT)
    assert [(e.path, e.action) for e in out.loss] == [
        ("extensions.voxta.chatSettings.speakingRate", "dropped")]
    assert "TextToSpeech" not in json.loads(
        members(out.files[0].data)[f"Characters/{fx.KEEPER}/character.json"])
    assert not conversion_problems(registry, [card], FMT)


def foundry_card() -> dict[str, Any]:
    """A CCv3 card as Character Foundry's ``voxtaToCCv3`` writes one (our own character)."""
    voxta = {
        "id": "0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a",
        "packageId": "1e2d3c4b-5a69-4877-8695-a4b3c2d1e0f9", "label": "The Pilot",
        "appearance": "Oilskin coat, salt in her hair.", "culture": "nl-NL",
        "textToSpeech": [{"Voice": {"parameters": {"VoiceId": "pilot-01"}, "label": "Pilot"},
                          "Service": {"ServiceName": "Example TTS",
                                      "ServiceId": "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"}}],
        "chatSettings": {"chatStyle": 3, "enableThinkingSpeech": True, "useMemory": True,
                         "maxSentences": 4},
        "simulationSettings": {"climaxSensitivity": 0.5},
        "scripts": [{"Name": "index", "Content": "// ferry bell\n"}],
        "augmentations": ["vision"], "voiceSampleUrl": "https://example.invalid/pilot.wav",
        "original": {"DateCreated": "2025-02-03T04:05:06.789+00:00",
                     "DateModified": "2025-02-04T00:00:00+00:00"},
    }
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Ilse", "nickname": "The Pilot", "description": "{{char}} runs the ferry.",
        "personality": "", "scenario": "", "first_mes": "Ticket, {{user}}?", "mes_example": "",
        "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
        "alternate_greetings": [], "group_only_greetings": [], "tags": [], "creator": "",
        "character_version": "1.0", "creation_date": 1738555506,
        "modification_date": 1738627200,
        "extensions": {"voxta": voxta, "visual_description": "Oilskin coat, salt in her hair."}}}


def test_a_character_foundry_card_brings_its_voxta_settings_back(registry: Any) -> None:
    handle, result, _ = registry.read(as_input(json.dumps(foundry_card()).encode(), "i.json"))
    assert handle.id != FMT
    (card,) = result.entities
    out = registry.write([card], FMT)
    # the key Voxta has no place for, by its path; the two that repeat card fields read back
    # as those fields
    assert sorted((e.path, e.action) for e in out.loss) == [
        ("extensions.voxta.appearance", "approximated"),
        ("extensions.voxta.label", "approximated"),
        ("extensions.voxta.voiceSampleUrl", "dropped")]
    assert not conversion_problems(registry, [card], FMT)
    files = members(out.files[0].data)
    ext = foundry_card()["data"]["extensions"]["voxta"]
    obj = json.loads(files[f"Characters/{ext['id']}/character.json"])  # its Voxta id
    assert obj["PackageId"] == ext["packageId"]
    assert obj["Label"] == "The Pilot" and obj["Culture"] == "nl-NL"
    assert obj["Description"] == ext["appearance"]
    assert obj["TextToSpeech"] == ext["textToSpeech"] and obj["Scripts"] == ext["scripts"]
    assert (obj["ChatStyle"], obj["EnableThinkingSpeech"], obj["UseMemory"],
            obj["MaxSentences"], obj["ClimaxSensitivity"]) == (3, True, True, 4, 0.5)
    assert obj["Augmentations"] == ["vision"]
    # the dates' own text, while it says what the card's dates say
    assert obj["DateCreated"] == "2025-02-03T04:05:06.789+00:00"
    assert obj["DateModified"] == "2025-02-04T00:00:00+00:00"
    (back,), _ = read(registry, out.files[0].data)
    assert back.nickname == "The Pilot"
    assert back.extensions[FMT]["chatSettings"] == ext["chatSettings"]

    # Character Foundry's label and appearance repeat card fields; the card fields win
    card.nickname = "Ilse of the ferry"
    out = registry.write([card], FMT)
    assert ("extensions.voxta.label", "dropped") in {(e.path, e.action) for e in out.loss}
    assert json.loads(members(out.files[0].data)[
        f"Characters/{ext['id']}/character.json"])["Label"] == "Ilse of the ferry"


def test_a_converted_card_is_a_server_style_package_with_fresh_ids(registry: Any) -> None:
    card = json.dumps(st_card()).encode()
    _, result, _ = registry.read(as_input(card, "mara.json"))
    first = registry.write(result.entities, FMT).files[0].data
    second = registry.write(result.entities, FMT).files[0].data
    assert comment(first) == b"Voxta Package"
    files = members(first)
    names = list(files)
    assert names[0] == "package.json"  # a character with a book lives in a package
    (char_path,) = [n for n in names if n.endswith("character.json")]
    (book_path,) = [n for n in names if n.endswith("book.json")]
    pkg = json.loads(files["package.json"])
    obj = json.loads(files[char_path])
    book = json.loads(files[book_path])
    for value in (pkg["Id"], obj["Id"], book["Id"], *(i["Id"] for i in book["Items"])):
        assert UUID.match(value), value
    assert char_path == f"Characters/{obj['Id']}/character.json"
    assert pkg["EntryResource"] == {"Kind": 1, "Id": obj["Id"]}
    assert obj["PackageId"] == pkg["Id"] == book["PackageId"]
    assert obj["MemoryBooks"] == [book["Id"]]
    assert [*obj][::len(obj) - 1] == ["$type", "Id"] and obj["$type"] == "character"
    assert [*book][::len(book) - 1] == ["$type", "Id"]
    assert obj["Profile"] == "{{ char }} keeps the Slate Light. {{ user }} visits."
    assert obj["Description"] == "A grey coat."
    assert obj["ExplicitContent"] is True  # the nsfw tag
    assert obj["AlternativeFirstMessages"] == ["Storm's up, {{ user }}."]
    assert obj["MessageExamples"] == "{{ user }}: Hi\n{{ char }}: Hm."  # no <START> in Voxta
    assert book["Items"][1]["Deleted"] is True
    for raw in (files[char_path], files[book_path], files["package.json"]):
        assert raw == dumps_dotnet(json.loads(raw))  # the server's dialect
    assert b"\\u0027" in files[char_path]  # Storm's
    ids_first = {json.loads(v)["Id"] for k, v in files.items() if k.endswith(".json")}
    ids_second = {json.loads(v)["Id"] for k, v in members(second).items()
                  if k.endswith(".json")}
    assert not ids_first & ids_second  # fresh ids every time


def test_a_card_without_book_is_a_character_export(registry: Any) -> None:
    ch = Character(name="Ilse", description="{{char}} pilots.", first_mes="Hi {{user}}.",
                   assets=[Asset(type="icon", name="main", data=minimal_png(2, 2),
                                 media_type="image/png")])
    out = registry.write([ch], FMT)
    files = members(out.files[0].data)
    # the avatar now has a place in the package and a file extension: layout, not a loss
    assert not out.loss
    (char_path, thumb) = list(files)
    assert char_path.startswith("Characters/") and thumb == char_path.replace(
        "character.json", "thumbnail.png")
    obj = json.loads(files[char_path])
    assert "PackageId" not in obj and obj["Thumbnail"] == {"ETag": 1, "ContentType": "image/png"}
    assert obj["ExplicitContent"] is False
    (back,), _ = read(registry, out.files[0].data)
    assert back.description == "{{char}} pilots." and back.assets[0].data == ch.assets[0].data


def test_assets_voxta_cannot_take_are_reported(registry: Any) -> None:
    png = minimal_png(2, 2)
    ch = Character(name="Ilse", assets=[
        Asset(type="icon", name="main", data=png, media_type="image/png"),
        Asset(type="emotion", name="joy", data=fx.WEBP, ext="webp"),
        Asset(type="emotion", name="wave", data=fx.GIF, ext="gif"),
        Asset(type="background", name="sea", uri="https://example.invalid/sea.png"),
    ])
    out = registry.write([ch], FMT)
    by_path = {e.path: e for e in out.loss}
    assert by_path["assets[2]"].action == "dropped" and "image/gif" in by_path["assets[2]"].reason
    assert by_path["assets[3]"].action == "dropped"
    (back,), _ = read(registry, out.files[0].data)
    assert [a.name for a in back.assets] == ["main", "joy"]
    assert not uncovered_differences(ch, back, out.loss)


def test_macros_the_card_spells_differently_are_reported(registry: Any) -> None:
    ch = Character(name="Mara", description="{{Char}} and <BOT> and {{char}}.",
                   first_mes="Already {{ user }} here.")
    out = registry.write([ch], FMT)
    (back,), _ = read(registry, out.files[0].data)
    assert back.description == "{{char}} and {{char}} and {{char}}."
    assert back.first_mes == "Already {{user}} here."
    assert {e.path for e in out.loss} == {"description", "first_mes"}


# -- bad input -------------------------------------------------------------------------------


def _json_members(data: bytes) -> list[tuple[str, Any]]:
    return [(n, json.loads(v) if n.endswith(".json") else v) for n, v in members(data).items()]


@pytest.mark.parametrize("builder", ["character_export", "full_package", "foundry_export"])
def test_damaged_members_fail_cleanly_or_read_and_write(registry: Any,
                                                        builder: str) -> None:
    source = _json_members(getattr(fx, builder)())
    docs = [dict(source)]
    for i, doc in enumerate(damaged(docs, 60, seed=11)):
        data = build_zip([(n, v if isinstance(v, bytes) else dumps_dotnet(v))
                          for n, v in doc.items()])
        try:
            entities, _ = read(registry, data)
        except BunzaiError:
            continue
        problems = conversion_problems(registry, entities, FMT)
        assert not problems, (i, problems)


@pytest.mark.parametrize("cut", [0, 10, 100, 0.5, -1])
def test_truncated_packages_are_refused(registry: Any, cut: float) -> None:
    data = fx.full_package()
    end = int(len(data) * cut) if isinstance(cut, float) else (cut if cut >= 0 else len(data) - 1)
    with pytest.raises(BunzaiError):
        read(registry, data[:end])


def test_broken_character_json_names_the_member(registry: Any) -> None:
    whole = dumps_dotnet(fx.keeper([]))
    data = build_zip([(f"Characters/{fx.KEEPER}/character.json", whole[:-9])])
    with pytest.raises(MalformedInput, match=f"Characters/{fx.KEEPER}/character.json"):
        read(registry, data)


def test_byaf_like_lower_case_folders_are_not_voxta(registry: Any) -> None:
    data = build_zip([("characters/x/character.json",
                       dumps_dotnet({"$type": "character", "Name": "x"}))])
    assert route(registry, data) != FMT


def test_packages_carry_voxtas_zip_comment() -> None:
    from ..._common.package import zip_comment

    data = build_zip([("a.json", b"{}")])
    assert zip_comment(SafeZip.open(data)) == "Voxta Package"
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.testzip() is None and zf.comment == b"Voxta Package"
    assert zip_comment(SafeZip.open(build_zip([("a.json", b"{}")], comment=None))) is None


def test_fresh_ids_are_random_uuids() -> None:
    from ..._common.util import new_id

    ids = {new_id() for _ in range(50)}
    assert len(ids) == 50 and all(uuid.UUID(i).version == 4 for i in ids)


# -- labels ----------------------------------------------------------------------------------


def _evidence(registry: Any, data: bytes | Path) -> dict[str, list[str]]:
    """What each of the package's label rules finds, by rule name."""
    inp = as_input(data, None if isinstance(data, Path) else "x.voxpkg")
    entities, _ = read(registry, data)
    return {rule.name: rule.test(inp, entities) for owner, rule in registry.label_rules()
            if owner == FMT}


def test_labels_name_the_voxta_server_for_its_exports(registry: Any) -> None:
    for path in (corpus("Lady_Voxta"), corpus("Purrsephone")):
        found = _evidence(registry, path)
        assert any("zip comment" in e for e in found["voxta-server-package"]), path.name
        assert not found["character-foundry-voxpkg"]


def test_labels_name_character_foundry_for_its_exports(registry: Any) -> None:
    found = _evidence(registry, fx.foundry_export())
    assert found["character-foundry-voxpkg"] and not found["voxta-server-package"]


def test_a_memorybooks_folder_is_read_like_books(registry: Any) -> None:
    data = fx.server_package([
        (f"Characters/{fx.KEEPER}/character.json", fx.keeper([fx.TIDES])),
        (f"MemoryBooks/{fx.TIDES}/book.json", fx.book(fx.TIDES, "Tides", fx.TIDES_ITEMS))])
    (ch,), warnings = read(registry, data)
    assert ch.lorebook is not None and len(ch.lorebook.entries) == 2 and not warnings
    out = registry.write([ch], FMT)
    assert not out.loss and members(out.files[0].data) == members(data)

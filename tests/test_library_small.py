"""``bunzai library`` on small libraries of our own, for what the shared one lacks: groups,
secrets, identical cards, extra books, chats without a card, an interrupted move, and a folder
of other apps' exports moved into SillyTavern."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bunzai import read_file, write
from bunzai.model import Character, Chat, ChatMessage, Lorebook, LorebookEntry, Participant, Persona

BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
SECRET = "sk-live-NEVER-COPY-4242"


def bunzai(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def _chat(char: str, *texts: str) -> Chat:
    t = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
    return Chat(participants=[Participant(name="Wren", role="user"), Participant(name=char)],
                messages=[ChatMessage(role="user" if i % 2 == 0 else "character",
                                      speaker="Wren" if i % 2 == 0 else char, text=x, time=t)
                          for i, x in enumerate(texts)])


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _book(*pairs: tuple[str, str]) -> Lorebook:
    return Lorebook(entries=[LorebookEntry(keys=[k], content=c) for k, c in pairs])


def make_library(root: Path) -> Path:
    """A SillyTavern user folder: two characters (one also saved twice under another name),
    a linked world and an extra book, a group of both, personas, global regex, secrets."""
    alma = Character(name="Alma", description="Keeps the lighthouse.", first_mes="The lamp "
                     "is lit.", extensions={"world": "Coast"})
    bran = Character(name="Bran", description="Rows the ferry.", first_mes="All aboard.")
    alma_png = write(alma, "sillytavern").data
    _put(root / "characters/Alma.png", alma_png)
    _put(root / "characters/Alma1.png", alma_png)  # imported twice: the very same bytes
    _put(root / "characters/Bran.png", write(bran, "sillytavern").data)
    _put(root / "characters/notes.txt", b"not a card")
    _put(root / "characters/Bran/joy.png", write(Persona(name="joy"), "risu-persona").data)
    _put(root / "chats/Alma/Alma - first.jsonl",
         write(_chat("Alma", "Is the lamp lit?", "Always."), "sillytavern-chat").data)
    _put(root / "chats/Alma1/Alma - second.jsonl",
         write(_chat("Alma", "Fog tonight?", "Thick as wool."), "sillytavern-chat").data)
    _put(root / "chats/Bran/Bran - crossing.jsonl",
         write(_chat("Bran", "How long is the crossing?", "An hour."), "sillytavern-chat").data)
    _put(root / "chats/Gone/Gone - old.jsonl",
         write(_chat("Gone", "Hello?", "..."), "sillytavern-chat").data)
    _put(root / "worlds/Coast.json", write(_book(("fog", "Fog comes at dusk."),
                                                 ("reef", "A reef lies north.")),
                                           "sillytavern-lorebook").data)
    _put(root / "worlds/Tides.json", write(_book(("tide", "High tide at noon.")),
                                           "sillytavern-lorebook").data)
    _put(root / "worlds/Town.json", write(_book(("market", "Market on Fridays.")),
                                          "sillytavern-lorebook").data)
    _put(root / "groups/1700000000000.json", json.dumps({
        "id": "1700000000000", "name": "Harbour", "members": ["Alma.png", "Bran.png"],
        "chats": ["1700000000001"], "chat_id": "1700000000001"}).encode())
    _put(root / "group chats/1700000000001.jsonl",
         write(_chat("Alma", "Both of you here?", "Yes."), "sillytavern-chat").data)
    _put(root / "User Avatars/wren.png", write(Persona(name="Wren"), "risu-persona").data)
    settings = {
        "username": "Wren", "user_avatar": "wren.png", "main_api": "openai",
        "power_user": {"personas": {"wren.png": "Wren"},
                       "persona_descriptions": {"wren.png": {"description": "A traveller.",
                                                             "position": 0}},
                       "default_persona": "wren.png"},
        "world_info_settings": {"world_info": {
            "globalSelect": ["Town"], "charLore": [{"name": "Alma", "extraBooks": ["Tides"]}]}},
        "extension_settings": {
            "apiKey": SECRET,
            "regex": [{"id": "1", "scriptName": "Trim", "findRegex": "/ +$/g",
                       "replaceString": "", "placement": [2], "disabled": False}]},
        "oai_settings": {"proxy_password": SECRET},
        "proxies": [{"name": "mine", "url": "http://proxy", "password": SECRET}],
    }
    _put(root / "settings.json", json.dumps(settings).encode())
    _put(root / "secrets.json", json.dumps({"api_key_openai": SECRET}).encode())
    _put(root / "QuickReplies/Default.json", b'{"name": "Default", "qrList": []}')
    _put(root / "instruct/Plain.json", b'{"name": "Plain"}')
    _put(root / "OpenAI Settings/Keeper.json", json.dumps({  # the connection saved with it
        "name": "Keeper", "temperature": 1, "prompts": [], "prompt_order": [],
        "proxy_password": SECRET, "reverse_proxy": f"https://wren:{SECRET}@proxy.example"}
    ).encode())
    _put(root / "stray.bin", b"\x00\x01")
    return root


@pytest.fixture
def library(tmp_path: Path) -> Path:
    return make_library(tmp_path / "data" / "default-user")


def _items(res: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in res.stdout.splitlines()][:-1]


def _all_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_inspect_names_every_problem_and_no_secret(library: Path) -> None:
    res = bunzai("library", "inspect", library, "--json")
    assert res.returncode == 1  # the library has problems
    doc = json.loads(res.stdout)
    assert doc["counts"]["characters"] == 3 and doc["counts"]["groups"] == 1
    assert doc["counts"]["group_chats"] == 1 and doc["counts"]["chats"] == 4
    kinds = {(p["kind"], p["path"]) for p in doc["problems"]}
    assert ("missing-character", "chats/Gone") in kinds
    assert ("duplicate", "characters/Alma1.png") in kinds
    assert ("unknown-file", "characters/notes.txt") in kinds
    assert ("unknown-file", "stray.bin") in kinds
    coast = next(w for w in doc["worlds"] if w["name"] == "Coast")
    assert coast["characters"] == ["characters/Alma.png", "characters/Alma1.png"]
    assert next(w for w in doc["worlds"] if w["name"] == "Town")["global"]
    assert "secrets.json" in doc["secrets"]
    assert "settings.json: extension_settings.apiKey" in doc["secrets"]
    assert "OpenAI Settings/Keeper.json: proxy_password" in doc["secrets"]
    assert SECRET not in res.stdout
    assert bunzai("library", "inspect", library.parent).returncode == 2  # the data folder


def test_risu_carries_links_groups_and_never_a_secret(library: Path, tmp_path: Path) -> None:
    out = tmp_path / "risu"
    res = bunzai("library", "convert", library, "--to", "risu", "--out-dir", out, "--json")
    assert res.returncode == 0, res.stderr
    items = {i["id"]: i for i in _items(res)}
    alma = items["character:characters/Alma.png"]
    assert "character:characters/Alma1.png" not in items  # identical: written once
    assert {"chats/Alma/Alma - first.jsonl", "chats/Alma1/Alma - second.jsonl",
            "characters/Alma1.png"} <= set(alma["sources"])
    assert sorted(alma["worlds"]) == ["Coast", "Tides"]
    charx = out / "characters/Alma/Alma.charx"
    card = read_file(charx).entities[0]
    assert [e.keys for e in card.lorebook.entries] == [["fog"], ["reef"]]
    extra = read_file(out / "characters/Alma/lorebooks/Tides.json")
    assert extra.format == "risu-lorebook" and extra.entities[0].entries[0].keys == ["tide"]
    assert len(list((out / "characters/Alma/chats").iterdir())) == 2
    assert read_file(out / "lorebooks/Town.json").format == "risu-lorebook"
    bran = read_file(out / "characters/Bran/Bran.charx").entities[0]  # its expression sprite
    assert [(a.type, a.name) for a in bran.assets if a.type == "emotion"] == [("emotion", "joy")]
    assert "Coast" not in {i["name"] for i in items.values() if i["kind"] == "world"}
    group = items["group:groups/1700000000000.json"]
    assert group["status"] in ("written", "approximated") and "RisuAI" in group["notes"][0]
    assert read_file(out / "personas/Wren.png").format == "risu-persona"
    assert read_file(out / "regex/regex.json").format == "risu-regex"
    secrets = [i for i in items.values() if i["kind"] == "secret"]
    assert {s["name"] for s in secrets} >= {"secrets.json",
                                            "settings.json: extension_settings.apiKey"}
    assert all(s["status"] == "dropped" for s in secrets)
    assert SECRET.encode() not in _all_bytes(out) and SECRET not in res.stdout
    keeper = items["preset:OpenAI Settings/Keeper.json"]  # carried, its secrets left out
    assert read_file(out / "presets/Keeper.json").format == "sillytavern-openai"
    assert {g["path"] for g in keeper["loss"]["groups"] if g["action"] == "dropped"} >= {
        "app_data.sillytavern-openai.proxy_password",
        "app_data.sillytavern-openai.reverse_proxy"}
    dropped = {i["kind"] for i in items.values() if i["status"] == "dropped"}
    assert {"quick_replies", "presets", "file"} <= dropped
    assert items["chats:chats/Gone"]["outputs"]


def test_voxta_writes_a_group_as_one_package_casting_its_members(library: Path,
                                                                  tmp_path: Path) -> None:
    import zipfile

    out = tmp_path / "voxta"
    res = bunzai("library", "convert", library, "--to", "voxta", "--out-dir", out, "--json")
    assert res.returncode == 0, res.stderr
    package = next((out / "groups").glob("*.voxpkg"))
    found = read_file(package)
    assert sorted(c.name for c in found.entities) == ["Alma", "Bran"]
    with zipfile.ZipFile(package) as z:
        scenario = json.loads(z.read(next(n for n in z.namelist() if n.startswith("Scenarios/"))))
        chars = {json.loads(z.read(n))["Id"] for n in z.namelist()
                 if n.endswith("character.json")}
    assert scenario["Name"] == "Harbour"
    assert {r["DefaultCharacterId"] for r in scenario["Roles"]} == chars
    alma = read_file(out / "characters/Alma/Alma.voxpkg").entities[0]
    assert sorted(k for e in alma.lorebook.entries for k in e.keys) == ["fog", "reef", "tide"]
    items = {i["id"]: i for i in _items(res)}
    assert items["personas"]["status"] == "dropped"


def test_an_interrupted_move_continues_and_force_redoes(library: Path, tmp_path: Path) -> None:
    from bunzai import convert_library

    out = tmp_path / "agnai"
    move = convert_library(library, "agnai", out_dir=out)
    first = []
    for item in move.run():
        first.append(item)
        if len(first) == 2:
            break  # the process stops here: two items done, the rest never started
    assert (out / ".bunzai-library.journal").is_file()
    assert not (out / "manifest.json").exists()
    res = bunzai("library", "convert", library, "--to", "agnai", "--out-dir", out, "--json")
    assert res.returncode == 0, res.stderr
    items = _items(res)
    unchanged = {i["id"] for i in items if i["status"] == "unchanged"}
    assert unchanged == {i.id for i in first if i.status in ("written", "approximated")}
    assert not (out / ".bunzai-library.journal").exists()
    assert json.loads((out / "manifest.json").read_bytes())["target"] == "agnai"
    res = bunzai("library", "convert", library, "--to", "agnai", "--out-dir", out, "--json",
                 "--force")
    assert res.returncode == 0 and not any(i["status"] == "unchanged" for i in _items(res))


def test_a_file_in_the_way_is_kept_and_its_item_refused(library: Path, tmp_path: Path) -> None:
    out = tmp_path / "risu"
    _put(out / "characters/Bran/Bran.charx", b"mine")
    res = bunzai("library", "convert", library, "--to", "risu", "--out-dir", out, "--json")
    assert res.returncode == 5
    bran = next(i for i in _items(res) if i["id"] == "character:characters/Bran.png")
    assert bran["status"] == "failed" and "exists" in bran["error"]
    assert (out / "characters/Bran/Bran.charx").read_bytes() == b"mine"


def make_exports(folder: Path) -> Path:
    """Exports of several apps: a CharX with a book, a Backyard archive carrying a chat, an
    Agnai character, a Voxta package of two characters, chats of RisuAI and Agnai, a persona,
    a lorebook, a regex file and a file that is none of these."""
    from bunzai import with_chat

    book = _book(("fog", "Fog comes at dusk."))
    _put(folder / "Alma.charx", write(Character(name="Alma", description="Keeps the lamp.",
                                                lorebook=book), "risu-charx").data)
    byaf = write(Character(name="Bran", description="Rows the ferry.",
                           first_mes="All aboard."), "backyard-byaf").data
    _put(folder / "Bran.byaf", byaf)
    bran = read_file(folder / "Bran.byaf").entities[0]
    carrying, _ = with_chat(bran, _chat("Bran", "Is it far?", "An hour."))
    _put(folder / "Bran.byaf", write(carrying, "backyard-byaf").data)
    _put(folder / "cira.json", write(Character(name="Cira", description="Sells maps."),
                                     "agnai").data)
    _put(folder / "duo.voxpkg", write([Character(name="Dov", description="Twin one."),
                                       Character(name="Eda", description="Twin two.")],
                                      "voxta").data)
    _put(folder / "chats/Alma_chat.json", write(_chat("Alma", "Lamp?", "Lit."), "risu-chat").data)
    _put(folder / "cira-chat.json", write(_chat("Cira", "A map?", "Two coins."),
                                          "agnai-chat").data)
    _put(folder / "Wren.png", write(Persona(name="Wren", description="A traveller."),
                                    "risu-persona").data)
    _put(folder / "Town.json", write(_book(("market", "Fridays.")), "sillytavern-lorebook").data)
    _put(folder / "trim.json", write(read_file(_regex(folder)).entities[0],
                                     "sillytavern-regex").data)
    _put(folder / "readme.txt", b"just notes")
    return folder


def _regex(folder: Path) -> Path:
    path = folder.parent / "src-regex.json"
    path.write_text(json.dumps({"id": "1", "scriptName": "Trim", "findRegex": "/ +$/g",
                                "replaceString": "", "placement": [2]}))
    return path


def test_a_folder_of_exports_becomes_a_sillytavern_data_folder(tmp_path: Path) -> None:
    src = make_exports(tmp_path / "exports")
    out = tmp_path / "st"
    res = bunzai("library", "convert", src, "--to", "sillytavern", "--out-dir", out, "--json")
    assert res.returncode == 3, res.stderr  # the worst item: readme.txt is no format
    cards = {p.stem: read_file(p) for p in (out / "characters").glob("*.png")}
    assert sorted(cards) == ["Alma", "Bran", "Cira", "Dov", "Eda"]
    assert all(r.format == "sillytavern" for r in cards.values())
    alma = cards["Alma"].entities[0]
    world = alma.extensions["world"]
    assert read_file(out / "worlds" / f"{world}.json").format == "sillytavern-lorebook"
    # every chat under the folder of its card, read back as a SillyTavern chat; a Backyard
    # archive's scenarios (its own first one and the chat it carries) become chats, as
    # SillyTavern's BYAF import makes them
    for stem, n in (("Alma", 1), ("Bran", 2), ("Cira", 1)):
        chats = list((out / "chats" / stem).glob("*.jsonl"))
        assert len(chats) == n, stem
        assert read_file(chats[0]).format == "sillytavern-chat"
    assert not (out / "settings.json").exists()
    personas = read_file(out / "personas.json", from_format="sillytavern-persona")
    assert [p.name for p in personas.entities] == ["Wren"]
    backup = json.loads((out / "personas.json").read_bytes())
    assert set(backup) >= {"personas", "persona_descriptions"}  # what Restore requires
    assert (out / "User Avatars" / next(iter(backup["personas"]))).is_file()
    assert read_file(out / "worlds/Town.json").format == "sillytavern-lorebook"
    assert read_file(out / "regex/Trim.json").format == "sillytavern-regex"
    items = _items(res)
    assert any(i["status"] == "failed" and i["name"] == "readme.txt" for i in items)
    res = bunzai("library", "inspect", src, "--json")
    assert json.loads(res.stdout)["counts"]["character"] == 5


def test_a_preset_that_does_not_read_is_named_and_fails_alone(library: Path,
                                                              tmp_path: Path) -> None:
    from bunzai.model import Preset

    _put(library / "instruct/Broken.json", b'{"name": "Broken", "input_sequence": ')
    _put(library / "OpenAI Settings/Harbour.json",
         write(Preset(name="Harbour", sampling={"temperature": 0.8},
                      system_prompt={"content": "Speak of the sea."}), "sillytavern-openai").data)
    _put(library / "OpenAI Settings/Cracked.json", b"[1, 2]")
    res = bunzai("library", "inspect", library, "--json")
    doc = json.loads(res.stdout)
    assert doc["presets"]["instruct"]["count"] == 2
    assert doc["presets"]["instruct"]["unreadable"] == ["instruct/Broken.json"]
    assert doc["presets"]["openai"]["unreadable"] == ["OpenAI Settings/Cracked.json"]
    unreadable = {p["path"] for p in doc["problems"] if p["kind"] == "unreadable"}
    assert {"instruct/Broken.json", "OpenAI Settings/Cracked.json"} <= unreadable
    out = tmp_path / "risu"
    res = bunzai("library", "convert", library, "--to", "risu", "--out-dir", out, "--json")
    assert res.returncode == 4  # the worst item: a preset that does not read
    items = {i["id"]: i for i in _items(res)}
    assert items["preset:OpenAI Settings/Cracked.json"]["status"] == "failed"
    harbour = items["preset:OpenAI Settings/Harbour.json"]
    assert harbour["status"] in ("written", "approximated")
    assert read_file(out / "presets/Harbour.json").format == "sillytavern-openai"
    assert items["presets:instruct"]["status"] == "dropped"  # RisuAI imports no template
    assert set(items["presets:instruct"]["sources"]) == {"instruct/Plain.json",
                                                         "instruct/Broken.json"}


def test_presets_of_other_apps_land_in_sillytavern_folders(tmp_path: Path) -> None:
    from bunzai.model import Preset

    src = tmp_path / "exports"
    bundle = Preset(name="Lamp", sampling={"temperature": 0.7, "top_p": 0.9},
                    instruct={"user_prefix": "### Q:\n", "assistant_prefix": "### A:\n"},
                    context={"story_string": "{{description}}\n"},
                    system_prompt={"content": "Keep the lamp lit."},
                    names={"context": "Lamp story"})
    _put(src / "lamp.json", write(bundle, "sillytavern-master").data)
    _put(src / "warm.yaml", write(Preset(sampling={"temperature": 1.1, "min_p": 0.05}),
                                  "oobabooga-preset").data)
    _put(src / "chatml.yaml", write(Preset(instruct={
        "user_prefix": "<|im_start|>user\n", "user_suffix": "<|im_end|>\n",
        "assistant_prefix": "<|im_start|>assistant\n", "assistant_suffix": "<|im_end|>\n"}),
        "oobabooga-instruct").data)
    _put(src / "cc.json", write(Preset(name="Harbour", sampling={"temperature": 0.9}),
                                "sillytavern-openai").data)
    _put(src / "Lamp-instruct.json", write(Preset(name="Lamp", instruct={
        "user_prefix": "Q: "}), "sillytavern-instruct").data)
    out = tmp_path / "st"
    res = bunzai("library", "convert", src, "--to", "sillytavern", "--out-dir", out, "--json")
    assert res.returncode == 0, res.stderr
    found = {p.relative_to(out).as_posix(): read_file(p).format
             for p in out.rglob("*.json") if p.parent != out}
    assert found == {
        "TextGen Settings/Lamp.json": "sillytavern-textgen",  # the bundle, part by part
        "instruct/Lamp.json": "sillytavern-instruct",  # two instruct templates named Lamp:
        "context/Lamp story.json": "sillytavern-context",
        "sysprompt/Lamp.json": "sillytavern-sysprompt",
        "instruct/Lamp (2).json": "sillytavern-instruct",  # the second is numbered
        "TextGen Settings/warm.json": "sillytavern-textgen",
        "instruct/chatml.json": "sillytavern-instruct",
        "OpenAI Settings/Harbour.json": "sillytavern-openai"}
    items = _items(res)
    assert {i["kind"] for i in items} == {"presets"} and len(items) == 5


"""backyard-byaf: detection, the corpus archive, our own archives, macros and hostile input."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from bunzai.sdk import Asset, BunzaiError, Character, Lorebook, LorebookEntry, MalformedInput
from bunzai.testing import as_input, rezipped, route, uncovered_differences
from bunzai.testing.damage import JUNK, damage

FMT = "backyard-byaf"


def read(reg: Any, data: bytes | Path, **options: Any) -> list[Character]:
    return read_all(reg, data, options)[0]


def read_all(reg: Any, data: bytes | Path, options: dict[str, Any] | None = None,
             fmt: str | None = FMT) -> tuple[list[Character], list[Any]]:
    """(characters, warnings) read from an archive."""
    _, result, _ = reg.read(as_input(data, None if isinstance(data, Path) else "x.byaf"),
                            format=fmt, options=options or {})
    return [e for e in result.entities if isinstance(e, Character)], result.warnings


KIT: Any = None


@pytest.fixture(autouse=True)
def _kit(kit: Any) -> None:
    global KIT
    KIT = kit


def write(reg: Any, entities: list[Character], *, valid: bool = True,
          **options: Any) -> Any:
    """Write BYAF; every archive is checked against the official schemas unless ``valid`` is
    False (a faithful copy of a source that broke them itself)."""
    out = reg.write(entities, FMT, options)
    if valid:
        many = len(entities) > 1 and not options.get("separate")
        for f in out.files:
            assert KIT.schema_problems(f.data, many=many) == []
    return out


def assert_same_archive(kit: Any, before: bytes, after: bytes) -> None:
    """Equal manifest, character and scenario JSON (key order aside), identical other bytes."""
    a, b = kit.members(before), kit.members(after)
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name] == b[name], name


# -- the corpus ----------------------------------------------------------------------------------


def test_corpus_archives_route_here(registry: Any, corpus_byaf: list[Path]) -> None:
    assert corpus_byaf, "no byaf file in the corpus"
    for path in corpus_byaf:
        assert route(registry, path) == FMT, path.name


def test_corpus_archive_round_trip_is_lossless(registry: Any, corpus_byaf: list[Path],
                                               kit: Any) -> None:
    for path in corpus_byaf:
        original = path.read_bytes()
        entities = read(registry, path)
        out = write(registry, entities)
        assert not out.loss, [str(e) for e in out.loss]
        assert_same_archive(kit, original, out.data)
        with zipfile.ZipFile(io.BytesIO(out.data)) as zf:
            infos = zf.infolist()
        assert infos[0].filename == "manifest.json"
        assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)
        assert {"characters/", "scenarios/"} <= {i.filename for i in infos if i.is_dir()}
        assert kit.schema_problems(out.data) == []
        assert out.data == original  # the archive itself, timestamps and all


@pytest.mark.parametrize("folders", [True, False])
def test_an_archive_another_tool_zipped_is_written_back_byte_for_byte(registry: Any, kit: Any,
                                                                      folders: bool) -> None:
    # deflated where Backyard stores, with its own timestamps, with or without folder entries
    data = rezipped(kit.rich_archive(), folders=folders)
    entities = read(registry, data)
    assert write(registry, entities).data == data
    entities[0].lorebook.entries[1].content = "The gales come from the north."
    out = write(registry, entities).data
    before, after = kit.members(data), kit.members(out)
    assert [n for n in after if after[n] != before.get(n)] == [
        "characters/keeper-01/character.json"]
    assert after["characters/keeper-01/character.json"]["loreItems"][1]["value"] == (
        "The gales come from the north.")


def test_corpus_archive_maps_card_fields(registry: Any, corpus_byaf: list[Path]) -> None:
    path = next(p for p in corpus_byaf if "__1__" in p.name)
    (ch,), warnings = read_all(registry, path)
    assert (ch.name, ch.extensions["display_name"]) == ("TestBot", "Test Bot")
    assert ch.description == "A test character"
    assert ch.scenario == "A test scenario"
    assert ch.first_mes == "Hello, I am a test bot!"
    assert ch.system_prompt == "You are a test bot"
    assert ch.tags == []
    assert ch.lorebook is not None and ch.lorebook.entries[0].keys == ["test"]
    assert [(a.type, a.name, a.media_type) for a in ch.assets] == [("icon", "main",
                                                                     "image/jpeg")]
    assert any("chat message" in w.message for w in warnings)


# -- our own archives ----------------------------------------------------------------------------


def test_rich_archive_maps_every_card_field(registry: Any, kit: Any) -> None:
    (ch,) = read(registry, kit.rich_archive())
    assert ch.name == "Mara"
    assert ch.extensions == {"display_name": "Mara of the Slate Light"}
    assert ch.description.startswith("{{char}} keeps the light")
    assert ch.scenario == "{{user}} climbs to the lighthouse."
    assert ch.system_prompt == "Write {{char}}'s replies in the past tense."
    assert ch.first_mes == "*{{char}} looks up.* You came, {{user}}."
    assert ch.alternate_greetings == ["The storm broke the glass, {{user}}."]
    assert ch.mes_example == ("<START>\n{{user}}: Cold night?\n{{char}}: The coldest.\n"
                              "<START>\n{{user}}: Any ships?\n{{char}}: One, far out.")
    assert ch.creator == "slatewright"
    assert ch.tags == ["nsfw"]
    assert ch.creation_date == 1741064767
    assert ch.lorebook is not None
    assert [e.keys for e in ch.lorebook.entries] == [["lighthouse", "lamp"], ["storm", "gale"],
                                                     ["harbour"]]
    assert ch.lorebook.entries[0].content == "{{char}} trims the wick at dusk."
    kinds = [(a.type, a.name, a.media_type, a.origin) for a in ch.assets]
    assert kinds == [
        ("icon", "main", "image/jpeg", "characters/keeper-01/images/portrait.jpg"),
        ("icon", "On the cliff", "image/png", "characters/keeper-01/images/cliff.png"),
        ("icon", "lamp", "image/webp", "characters/keeper-01/images/lamp.webp"),
        ("background", "main", "image/jpeg", "scenarios/scenario1-background.jpg"),
        ("background", "scenario3-background", "image/png",
         "scenarios/scenario3-background.png"),
    ]
    assert ch.assets[0].data == kit.JPEG


def test_rich_archive_round_trip_is_lossless(registry: Any, kit: Any) -> None:
    data = kit.rich_archive()
    out = write(registry, read(registry, data))
    assert not out.loss, [str(e) for e in out.loss]
    assert_same_archive(kit, data, out.data)
    assert kit.schema_problems(out.data) == []


def test_round_trip_through_the_canonical_json_is_lossless(registry: Any,
                                                           kit: Any) -> None:
    data = kit.rich_archive()
    native = registry.write(read(registry, data), "vaud-json")
    _, back, _ = registry.read(as_input(native.data, "x.vaud.json"))
    out = write(registry, [e for e in back.entities if isinstance(e, Character)])
    assert not out.loss
    assert_same_archive(kit, data, out.data)


def test_edits_win_over_the_kept_raw_text(registry: Any, kit: Any) -> None:
    (ch,) = read(registry, kit.rich_archive())
    ch.description = "{{char}} rebuilt the lamp."
    ch.alternate_greetings = ["The glass holds, {{user}}.", "A new day, {{user}}."]
    ch.lorebook.entries[1].keys = ["storm", "squall"]  # type: ignore[union-attr]
    out = write(registry, [ch])
    files = kit.members(out.data)
    char = files["characters/keeper-01/character.json"]
    assert char["persona"] == "{character} rebuilt the lamp."
    assert char["loreItems"][1]["key"] == "storm, squall"
    assert char["loreItems"][0]["key"] == "lighthouse, lamp"
    scen = [files[p] for p in files["manifest.json"]["scenarios"]]
    assert len(scen) == 4
    assert scen[2]["firstMessages"][0]["text"] == "The glass holds, {user}."
    assert scen[3]["firstMessages"][0]["text"] == "A new day, {user}."
    assert scen[3]["messages"] == [] and "title" not in scen[3]
    assert scen[3]["model"] == "slate-13b.Q4_K_M.gguf"
    assert kit.schema_problems(out.data) == []
    (back,) = read(registry, out.data)
    assert back.alternate_greetings == ch.alternate_greetings


def test_macros_in_the_other_convention_round_trip_exactly(registry: Any,
                                                           kit: Any) -> None:
    odd = kit.character("odd", "Odd", "Odd", persona="{{char}} and {Character} and {{user}}")
    s = kit.scenario("odd", greeting="#{USER}: hi\n{{char}}: hey", narrative="{user}{user}",
                     examples=["#{character}: {{user}}?"])
    data = kit.archive({"schemaVersion": 1, "createdAt": kit.STAMP,
                        "characters": ["characters/odd/character.json"],
                        "scenarios": ["scenarios/s.json"]},
                       {"characters/odd/character.json": odd, "scenarios/s.json": s})
    (ch,) = read(registry, data)
    assert ch.description == "{{char}} and {{char}} and {{user}}"
    assert ch.first_mes == "{{user}}: hi\n{{char}}: hey"
    out = write(registry, [ch])
    assert not out.loss
    assert_same_archive(kit, data, out.data)


def test_card_text_that_spells_backyard_macros_is_reported(registry: Any) -> None:
    ch = Character(name="Lit", description="Say {character} literally.",
                   first_mes="Hi {{user}}")
    out = write(registry, [ch])
    assert out.loss.covers("description")
    (back,) = read(registry, out.data)
    assert back.first_mes == "Hi {{user}}"
    assert uncovered_differences(ch, back, out.loss) == []


def test_wrong_types_are_read_with_warnings_and_kept(registry: Any, kit: Any) -> None:
    odd = kit.character("n", "x", "Numbered")
    odd["name"] = 42
    odd["isNSFW"] = "yes"
    odd["loreItems"] = [{"key": 7, "value": "seven"}, "junk"]
    data = kit.archive({"schemaVersion": 1, "createdAt": "2025-03-04T05:06:07+02:00",
                        "characters": ["characters/n/character.json"],
                        "scenarios": ["scenarios/s.json"]},
                       {"characters/n/character.json": odd,
                        "scenarios/s.json": kit.scenario("n", greeting="hi")})
    (ch,), warnings = read_all(registry, data)
    assert ch.name == "42"
    assert ch.lorebook is not None and ch.lorebook.entries[0].keys == ["7"]
    paths = {w.path for w in warnings}
    assert '$["characters/n/character.json"].name' in paths
    out = write(registry, [ch], valid=False)
    assert not out.loss
    assert_same_archive(kit, data, out.data)


def test_chats_drop_option_empties_the_logs(registry: Any, kit: Any) -> None:
    out = write(registry, read(registry, kit.rich_archive()), chats="drop")
    files = kit.members(out.data)
    assert all(files[p]["messages"] == [] for p in files["manifest.json"]["scenarios"])
    assert [(e.path, e.action) for e in out.loss] == [
        (f"app_data.{FMT}.scenarios[0].messages", "dropped")]


# -- user data and layout --------------------------------------------------------------------


def test_what_a_card_cannot_hold_is_app_data_and_the_rest_layout(registry: Any,
                                                                 kit: Any) -> None:
    (ch,) = read(registry, kit.rich_archive())
    data = ch.app_data[FMT]
    chats = data["scenarios"]
    assert [c.get("title") for c in chats] == ["Arrival", "Quiet watch", None]
    assert chats[0]["model"] == "slate-13b.Q4_K_M.gguf" and len(chats[0]["messages"]) == 2
    assert chats[2]["topK"] == 5 and chats[2]["narrative"] == "A storm has hit the light."
    assert "narrative" not in chats[1]  # the first scenario's, so the card's scenario
    assert data["author.backyardURL"] == "https://backyard.ai/hub/user/slatewright"
    assert data["images[0].label"] == "portrait"  # the portrait is the main icon
    assert "images[1].label" not in data  # that label is the asset's name
    layout = ch.passthrough[FMT]
    assert layout["cid"] == "keeper-01" and layout["keep"]["id"] == "keeper-01"
    assert "Is the lamp lit?" not in json.dumps(layout)  # the chat log is user data


def test_another_format_reports_backyard_data_by_key_and_no_defaults(registry: Any,
                                                                     kit: Any) -> None:
    (rich,) = read(registry, kit.rich_archive())
    (plain,) = read(registry, kit.archive(
        {"schemaVersion": 1, "createdAt": kit.STAMP, "characters": ["characters/a/character.json"],
         "scenarios": ["scenarios/s.json"]},
        {"characters/a/character.json": kit.character("a", "A", "A"),
         "scenarios/s.json": {**kit.scenario("a", greeting="Hi."), "temperature": 1.2,
                              "topK": 30, "topP": 0.9, "minP": 0.1, "minPEnabled": True,
                              "repeatPenalty": 1.05, "repeatLastN": 256}}))
    # vaud-json carries everything; a target that carries no Backyard data reports it
    target = "voxta" if "voxta" in registry.adapters else None
    if target is None:
        pytest.skip("no other character format installed")
    reported = {e.path for e in registry.write([rich], target).loss}
    assert {f"app_data.{FMT}.scenarios", f"app_data.{FMT}.author.backyardURL",
            f"app_data.{FMT}.images[0].label"} <= reported
    # a chat with Backyard's settings for a new character and no log asks nothing
    assert not [p for p in (e.path for e in registry.write([plain], target).loss)
                if p.startswith("app_data.")]


def test_each_scenario_keeps_its_own_data_when_greetings_change(registry: Any,
                                                                kit: Any) -> None:
    (ch,) = read(registry, kit.rich_archive())
    ch.alternate_greetings = []  # the storm scenario goes with its greeting
    out = write(registry, [ch])
    assert f"app_data.{FMT}.scenarios[2]" in {e.path for e in out.loss}
    (back,) = read(registry, out.data)
    assert [c.get("title") for c in back.app_data[FMT]["scenarios"]] == ["Arrival",
                                                                          "Quiet watch"]
    assert uncovered_differences(ch, back, out.loss, registry) == []


def test_a_second_character_without_a_greeting_keeps_its_scenario(registry: Any) -> None:
    a = Character(name="Ash", first_mes="Hello.", creation_date=1, modification_date=1)
    b = Character(name="Birch", scenario="A birch wood at dusk.",  # no greeting, no examples
                  creation_date=1, modification_date=1)
    out = write(registry, [a, b], valid=False)
    back = read(registry, out.data)
    assert back[1].scenario == "A birch wood at dusk." and back[0].scenario == ""
    assert not out.loss


def test_an_empty_alternate_greeting_keeps_its_place(registry: Any) -> None:
    ch = Character(name="Ash", first_mes="Hello.", alternate_greetings=["Hi.", "", "Yo."],
                   creation_date=1, modification_date=1)
    out = write(registry, [ch])
    (back,) = read(registry, out.data)
    assert back.alternate_greetings == ["Hi.", "", "Yo."] and not out.loss


# -- canonical -> BYAF ---------------------------------------------------------------------------


def rich_card() -> Character:
    book = Lorebook(name="Coast", entries=[
        LorebookEntry(keys=["reef"], content="Sharp reef near {{char}}'s light.",
                      insertion_order=10),
        LorebookEntry(keys=["ghost"], content="hidden", enabled=False),
        LorebookEntry(keys=["tide", "moon"], secondary_keys=["night"], content="High tide.",
                      constant=True),
    ])
    return Character(
        name="Isolde Varn", nickname="Isa", description="{{char}} sails alone.",
        personality="stubborn", scenario="{{user}} boards the boat.",
        first_mes="Welcome aboard, {{user}}.",
        mes_example="<START>\n{{user}}: Where to?\n{{char}}: Out past the reef.",
        system_prompt="Stay in character.", post_history_instructions="Be brief.",
        alternate_greetings=["Cast off!", "Storm ahead, {{user}}."],
        tags=["NSFW", "sailing"], creator="deckhand", creator_notes="made for tests",
        character_version="2", creation_date=1700000000, lorebook=book,
        extensions={"depth_prompt": {"prompt": "x", "depth": 4}},
        assets=[Asset(type="icon", name="main", data=b"\x89PNG\r\n\x1a\n" + b"0" * 20,
                      media_type="image/png", ext="png"),
                Asset(type="emotion", name="joy", data=b"GIF89a" + b"1" * 10),
                Asset(type="background", name="main", data=b"\xff\xd8\xff" + b"2" * 10),
                Asset(type="icon", name="remote", uri="https://example.invalid/a.png")],
    )


def test_a_card_becomes_a_valid_archive_with_an_honest_report(registry: Any,
                                                              kit: Any) -> None:
    ch = rich_card()
    out = write(registry, [ch])
    assert kit.schema_problems(out.data) == []
    (back,) = read(registry, out.data)
    assert uncovered_differences(ch, back, out.loss) == []
    for path in ("personality", "post_history_instructions", "creator_notes", "tags",
                 "lorebook.entries[1]", "lorebook.entries[2].secondary_keys", "assets[1]",
                 "assets[3]", "extensions.depth_prompt", "nickname", "lorebook.name"):
        assert out.loss.covers(path), path
    files = kit.members(out.data)
    manifest = files["manifest.json"]
    assert len(manifest["scenarios"]) == 3
    # a creator without a Backyard profile URL: no author rather than an invented URL
    assert "author" not in manifest
    assert [(e.path, e.action) for e in out.loss if e.path == "creator"] == [
        ("creator", "dropped")]
    char = files[manifest["characters"][0]]
    assert (char["name"], char["displayName"], char["isNSFW"]) == ("Isa", "Isolde Varn", True)
    assert char["persona"] == "{character} sails alone.\n\nstubborn"
    assert [i["key"] for i in char["loreItems"]] == ["reef", "tide, moon"]
    s1 = files[manifest["scenarios"][0]]
    assert s1["exampleMessages"][0]["text"] == "#{user}: Where to?\n#{character}: Out past " \
                                               "the reef."
    assert s1["backgroundImage"].startswith("scenarios/")
    assert (s1["temperature"], s1["topK"], s1["promptTemplate"]) == (1.2, 30, None)
    greetings = [files[p]["firstMessages"][0]["text"] for p in manifest["scenarios"]]
    assert greetings == ["Welcome aboard, {user}.", "Cast off!", "Storm ahead, {user}."]
    assert back.first_mes == ch.first_mes and back.alternate_greetings == \
        ch.alternate_greetings


def test_an_empty_card_is_still_a_valid_archive(registry: Any, kit: Any) -> None:
    out = write(registry, [Character(name="")])
    assert kit.schema_problems(out.data) == []
    (back,) = read(registry, out.data)
    assert back.name == "" and back.assets == []


# -- several characters ------------------------------------------------------------------------


def test_a_multi_character_archive_gives_one_card_each(registry: Any, kit: Any) -> None:
    (ryn, tove), warnings = read_all(registry, kit.ginger_archive(), fmt=None)
    assert (ryn.name, tove.name) == ("Ryn", "Tove")
    assert ryn.first_mes == "We make camp here, {{user}}."
    assert ryn.alternate_greetings == ["Morning. Pack up."]
    assert ryn.lorebook is not None and tove.lorebook is None
    assert tove.first_mes == "The map ends here." and tove.scenario == "Uncharted hills."
    assert [a.media_type for a in tove.assets] == ["image/gif"]
    ryn_paths = [r["path"] for r in ryn.passthrough[FMT]["scenarios"]]
    tove_paths = [r["path"] for r in tove.passthrough[FMT]["scenarios"]]
    assert ryn_paths == ["scenarios/scenario1.json", "scenarios/scenario2.json",
                         "scenarios/scenario4.json"]
    assert tove_paths == ["scenarios/scenario3.json", "scenarios/scenario4.json"]
    assert any("2 characters" in w.message for w in warnings)


def test_a_multi_character_archive_round_trips(registry: Any, kit: Any) -> None:
    data = kit.ginger_archive()
    out = write(registry, read(registry, data))
    assert not out.loss, [str(e) for e in out.loss]
    assert_same_archive(kit, data, out.data)
    assert kit.schema_problems(out.data, many=True) == []
    assert any("characters" in p for p in kit.schema_problems(out.data))
    assert any("separate" in w for w in out.warnings)


def test_separate_writes_one_valid_archive_per_character(registry: Any,
                                                         kit: Any) -> None:
    entities = read(registry, kit.ginger_archive())
    out = write(registry, entities, separate=True)
    assert [f.name for f in out.files] == ["Ryn", "Tove"]
    for i, (f, before) in enumerate(zip(out.files, entities, strict=True)):
        assert kit.schema_problems(f.data) == []
        (back,) = read(registry, f.data)
        assert back.name == before.name
        assert [p for p in uncovered_differences(before, back, out.loss, registry)
                if not out.loss.covers(f"[{i}].{p}")] == []


def test_unrelated_cards_share_one_archive(registry: Any, kit: Any) -> None:
    a = Character(name="Ash", first_mes="Hello.", description="a")
    b = Character(name="Ash", first_mes="Hi.", scenario="b's place")
    out = write(registry, [a, b])
    files = kit.members(out.data)
    assert files["manifest.json"]["characters"] == ["characters/Ash/character.json",
                                                    "characters/Ash-2/character.json"]
    back = read(registry, out.data)
    assert [c.first_mes for c in back] == ["Hello.", "Hi."]
    assert back[1].scenario == "b's place"


# -- detection and hostile archives --------------------------------------------------------------


def test_detection_scores(registry: Any, kit: Any) -> None:
    def score(data: bytes) -> float:
        rep = registry.detect(as_input(data, "x.zip"))
        return next((c.score for c in rep.candidates if c.format == FMT), 0.0)

    assert score(kit.rich_archive()) == 0.95
    loose = kit.archive({"schemaVersion": 2, "characters": ["characters/a/character.json"],
                         "scenarios": "nope"}, {})
    assert score(loose) == 0.6
    outside = kit.archive({"schemaVersion": 1, "characters": ["../x/character.json"],
                           "scenarios": []}, {})
    assert score(outside) == 0.6  # claimed, so that reading can say what is wrong
    assert score(kit.archive({"name": "some other app", "version": 3}, {})) == 0.0
    assert score(kit.raw_zip([("card.json", b"{}")])) == 0.0
    broken = kit.raw_zip([("manifest.json", b"{oops"),
                          ("characters/a/character.json", b"{}")])
    assert score(broken) == 0.55


def _manifest(chars: list[str], scens: list[str]) -> bytes:
    return json.dumps({"schemaVersion": 1, "createdAt": "2025-01-01T00:00:00Z",
                       "characters": chars, "scenarios": scens}).encode()


HOSTILE = {
    "manifest-points-outside": (
        [("manifest.json", _manifest(["characters/../../evil/character.json"],
                                     ["scenarios/s.json"]))], "points outside"),
    "manifest-absolute": (
        [("manifest.json", _manifest(["/etc/character.json"], ["scenarios/s.json"]))],
        "absolute"),
    "missing-character": (
        [("manifest.json", _manifest(["characters/a/character.json"], ["scenarios/s.json"]))],
        "missing from the archive"),
    "missing-scenario": (
        [("manifest.json", _manifest(["characters/a/character.json"], ["scenarios/s.json"])),
         ("characters/a/character.json", b'{"id": "a"}')], "missing from the archive"),
    "entry-path-traversal": (
        [("manifest.json", _manifest(["characters/a/character.json"], [])),
         ("../evil.txt", b"x")], "unsafe zip entry name"),
    "image-traversal": (
        [("manifest.json", _manifest(["characters/a/character.json"], ["scenarios/s.json"])),
         ("characters/a/character.json",
          b'{"id": "a", "images": [{"path": "../../../x.png", "label": ""}]}'),
         ("scenarios/s.json", b"{}")], "leaves the character folder"),
    "background-traversal": (
        [("manifest.json", _manifest(["characters/a/character.json"], ["scenarios/s.json"])),
         ("characters/a/character.json", b'{"id": "a"}'),
         ("scenarios/s.json", b'{"backgroundImage": "scenarios/../../x.jpg"}')],
        "points outside"),
    "manifest-not-json": ([("manifest.json", b"{nope"),
                           ("characters/a/character.json", b"{}")], "manifest.json"),
    "characters-a-string": (
        [("manifest.json", b'{"schemaVersion": 1, "characters": "characters/a/character.json",'
                           b' "scenarios": []}')], "array of paths"),
    "character-an-array": (
        [("manifest.json", _manifest(["characters/a/character.json"], ["scenarios/s.json"])),
         ("characters/a/character.json", b"[1, 2]"), ("scenarios/s.json", b"{}")],
        "JSON object"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archives_are_refused_clearly(registry: Any, kit: Any,
                                              case: str) -> None:
    entries, message = HOSTILE[case]
    data = kit.raw_zip(entries)
    with pytest.raises(MalformedInput, match=message):
        registry.read(as_input(data, "evil.byaf"), format=FMT)
    with pytest.raises(BunzaiError):  # detection never lets anything else escape
        registry.read(as_input(data, "evil.byaf"))


def test_a_listed_image_that_is_missing_is_skipped_with_a_warning(registry: Any,
                                                                   kit: Any) -> None:
    c = kit.character("a", "A", "A", images=[{"path": "images/gone.png", "label": "x"}])
    data = kit.archive({"schemaVersion": 1, "createdAt": kit.STAMP,
                        "characters": ["characters/a/character.json"],
                        "scenarios": ["scenarios/s.json"]},
                       {"characters/a/character.json": c,
                        "scenarios/s.json": kit.scenario("a")})
    (ch,), warnings = read_all(registry, data)
    assert ch.assets == []
    assert any("missing" in w.message for w in warnings)


# -- validation and labels -----------------------------------------------------------------------


def test_validate_reports_schema_breaks_with_paths(registry: Any, kit: Any) -> None:
    c = kit.character("a", "A", "A")
    c["mood"] = "grumpy"
    c["createdAt"] = "2025-03-04 05:06:07"
    s = kit.scenario("a")
    del s["topK"]
    data = kit.archive({"schemaVersion": 1, "createdAt": kit.STAMP,
                        "characters": ["characters/a/character.json"],
                        "scenarios": ["scenarios/s.json"]},
                       {"characters/a/character.json": c, "scenarios/s.json": s})
    handle = registry.get(FMT)
    inp = as_input(data, "x.byaf")
    issues = registry.validate(handle, inp, read(registry, data))
    found = {(i.path, i.severity) for i in issues}
    assert ('$["characters/a/character.json"].mood', "warning") in found
    assert ('$["characters/a/character.json"].createdAt', "error") in found
    assert ('$["scenarios/s.json"]', "error") in found
    assert registry.validate(handle, as_input(kit.rich_archive(), "r.byaf"), []) == []
    assert registry.validate(handle, as_input(kit.ginger_archive(), "g.byaf"), []) == []


def evidence(registry: Any, data: bytes, name: str) -> dict[str, list[str]]:
    """What each of this distribution's label rules finds in a file, by rule name."""
    inp = as_input(data, name)
    return {rule.name: rule.test(inp, []) for owner, rule in registry.label_rules()
            if owner == FMT}


def test_label_rules_name_backyard_and_ginger(registry: Any, kit: Any) -> None:
    rich = evidence(registry, kit.rich_archive(), "r.byaf")
    assert rich["byaf-author-url"] and rich["byaf-manifest"] and not rich["ginger-byaf"]
    ginger = evidence(registry, kit.ginger_archive(), "g.byaf")
    assert ginger["ginger-byaf"] and not ginger["byaf-author-url"]


# -- any readable archive round-trips ------------------------------------------------------------

ODD_VALUES: tuple[Any, ...] = (*JUNK, -2.5, "{{char}}", [{"characterID": 5}], [{"key": 1}],
                               "2025-01-01")
"""Junk of every JSON type plus values that mean something to Backyard."""


def test_damaged_archives_round_trip_exactly(registry: Any, kit: Any) -> None:
    """Odd values anywhere in the JSON: reading never crashes, and whatever was read is
    written back unchanged (references to missing files aside, which reading skips, and
    files that nothing refers to)."""
    import random

    sources = [kit.members(kit.rich_archive()), kit.members(kit.ginger_archive())]
    checked = 0
    for seed in range(120):
        rnd = random.Random(seed)
        files = json.loads(json.dumps({k: v for k, v in sources[seed % 2].items()
                                       if k.endswith(".json")}))
        blobs = {k: v for k, v in sources[seed % 2].items() if not k.endswith(".json")}
        for _ in range(rnd.randint(1, 3)):
            damage(rnd, files[rnd.choice(sorted(k for k in files if k != "manifest.json"))],
                   ODD_VALUES)
        data = kit.archive(files.pop("manifest.json"), {**files, **blobs})
        try:
            entities, warnings = read_all(registry, data)
        except MalformedInput:
            continue
        out = write(registry, entities, valid=False)
        if any("skipped" in w.message or "ignored" in w.message for w in warnings):
            continue
        assert not out.loss, (seed, [str(e) for e in out.loss])
        before, after = kit.members(data), kit.members(out.data)
        assert {k: v for k, v in before.items() if k.endswith(".json")} == \
            {k: v for k, v in after.items() if k.endswith(".json")}, seed
        # files nothing refers to any more (a deleted image list) are not carried
        assert all(before.get(k) == v for k, v in after.items()), seed
        checked += 1
    assert checked > 80


def test_no_author_url_is_invented(registry: Any, kit: Any) -> None:
    """A creator without a Backyard profile URL: Backyard's reader takes an author only with
    both, and a made-up URL would show up in SillyTavern as the creator notes."""
    ch = Character(name="Isa", description="Sails alone.", first_mes="Cast off!",
                   creator="deckhand")
    out = write(registry, [ch])
    manifest = kit.members(out.data)["manifest.json"]
    assert "author" not in manifest
    assert "backyard.ai/hub" not in out.data.decode("latin-1")
    assert [(e.path, e.action) for e in out.loss if e.path == "creator"] == [
        ("creator", "dropped")]
    # a creator that came with its URL keeps both
    source = read(registry, kit.rich_archive())[0]
    again = kit.members(write(registry, [source]).data)["manifest.json"]
    assert again["author"]["name"] == source.creator
    assert again["author"]["backyardURL"].startswith("https://backyard.ai/hub/user/")

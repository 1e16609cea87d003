"""risu-lorebook: exports and bare arrays, folders and decorators both ways."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bunzai.sdk import AdapterInput, Lorebook, LorebookEntry
from bunzai.testing import corpus_dir, hand_laid, load_registry, samples_dir

EXPORT = samples_dir() / "risu" / "gen_risu_lorebook_export.json"
TAMMY = corpus_dir() / "other" / "other__tammy3211_RisuAI_bot_test__lorebook__9b1a73126e.json"


@pytest.fixture(scope="module")
def reg() -> Any:
    return load_registry()


def _read(reg: Any, data: bytes) -> Lorebook:
    _, result, _ = reg.read(AdapterInput(data, "book.json"))
    (book,) = result.entities
    assert isinstance(book, Lorebook)
    return book


def _export(entries: list[dict]) -> bytes:
    return json.dumps({"type": "risu", "ver": 1, "data": entries}).encode()


def _entry(**kw: object) -> dict:
    base = {"key": "k", "comment": "c", "content": "x", "mode": "normal", "insertorder": 100,
            "alwaysActive": False, "secondkey": "", "selective": False}
    base.update(kw)
    return base


@pytest.mark.skipif(not TAMMY.exists(), reason="corpus not available")
def test_real_entry_array_round_trips_with_folders(reg: Any) -> None:
    rep = reg.detect(AdapterInput.from_path(TAMMY))
    assert rep.winner is not None and rep.winner.format == "risu-lorebook"
    book = _read(reg, TAMMY.read_bytes())
    folders = [e for e in book.entries if e.is_folder]
    assert [f.id for f in folders] == ["world_info", "characters"]
    assert all(not f.keys for f in folders)
    assert [e.folder for e in book.entries if not e.is_folder] == [
        "world_info", "world_info", "characters", "characters", None]
    assert book.entries[1].keys == ["세계", "세계관", "world", "setting"]
    assert book.entries[1].secondary_keys == ["세계관 상세", "설정", "배경"]
    out = reg.write([book], "risu-lorebook", {"array": True})
    assert not out.loss and not out.warnings
    assert json.loads(out.data) == json.loads(TAMMY.read_bytes())
    assert out.data.startswith(b"[\n  {")  # the bare array and its indentation are kept


@pytest.mark.skipif(not TAMMY.exists(), reason="corpus not available")
def test_a_bare_array_is_written_in_the_envelope_risu_imports(reg: Any) -> None:
    book = _read(reg, TAMMY.read_bytes())
    out = reg.write([book], "risu-lorebook")
    doc = json.loads(out.data)
    assert (doc["type"], doc["ver"]) == ("risu", 1)
    assert doc["data"] == json.loads(TAMMY.read_bytes())
    assert not out.loss and any("bare JSON array" in w for w in out.warnings)
    assert _read(reg, out.data).entries == book.entries


def test_books_from_other_formats_are_written_in_the_envelope(reg: Any) -> None:
    from bunzai.sdk import Lorebook, LorebookEntry

    book = Lorebook(entries=[LorebookEntry(keys=["lamp"], content="Lit at dusk.")])
    doc = json.loads(reg.write([book], "risu-lorebook").data)
    assert doc["type"] == "risu" and doc["data"][0]["content"] == "Lit at dusk."
    assert isinstance(json.loads(reg.write([book], "risu-lorebook", {"array": "true"}).data),
                      list)


@pytest.mark.skipif(not EXPORT.exists(), reason="samples not available")
def test_export_envelope_round_trips_byte_for_byte(reg: Any) -> None:
    book = _read(reg, EXPORT.read_bytes())
    out = reg.write([book], "risu-lorebook")
    assert not out.loss
    assert out.data == EXPORT.read_bytes()


def test_hypav3_preset_is_not_a_lorebook(reg: Any) -> None:
    data = json.dumps({"type": "risu", "ver": 1, "data": {"summaries": []}}).encode()
    rep = reg.detect(AdapterInput(data, "hypa.json"))
    assert "risu-lorebook" not in {c.format for c in rep.candidates}


def test_decorators_become_fields_and_come_back(reg: Any) -> None:
    content = ("@@depth 2\n@@role user\n@@probability 35\n@@activate_only_after 3\n"
               "@@match_full_word\n@@dont_activate\n@@position after_desc\nBody text.")
    book = _read(reg, _export([_entry(content=content)]))
    e = book.entries[0]
    assert (e.position, e.depth, e.role, e.probability, e.use_probability) == (
        "at_depth", 2, "user", 35, True)
    assert (e.delay, e.match_whole_words, e.enabled) == (3, True, False)
    assert e.content == "@@position after_desc\nBody text."  # no canonical field: stays
    out = reg.write([book], "risu-lorebook")
    assert json.loads(out.data)["data"][0]["content"] == content


def test_key_logic_decorators(reg: Any) -> None:
    content = "@@exclude_keys a\n@@exclude_keys b\nText"
    book = _read(reg, _export([_entry(content=content)]))
    e = book.entries[0]
    assert (e.selective_logic, e.secondary_keys, e.selective) == ("not_any", ["a", "b"], True)
    e.secondary_keys = ["a", "b", "c"]
    written = json.loads(reg.write([book], "risu-lorebook").data)["data"][0]
    assert written["content"].splitlines()[:3] == ["@@exclude_keys a", "@@exclude_keys b",
                                                   "@@exclude_keys c"]
    assert written["selective"] is False and written["secondkey"] == ""


def test_fallback_and_unknown_decorators_stay_in_content(reg: Any) -> None:
    content = "@@depth 4\n@@@depth 2\n@@inject_lore x\nText"
    book = _read(reg, _export([_entry(content=content)]))
    assert book.entries[0].depth is None and book.entries[0].content == content


def test_decorator_lines_other_apps_show_as_text_are_one_report_line(reg: Any) -> None:
    from bunzai.testing import conversion_problems

    data = _export([_entry(content="@@position after_desc\n@@depth 3\nThe quay floods."),
                    _entry(content="The lamp is lit at dusk."),
                    _entry(content="@@inject_lore harbour\nGulls everywhere.")])
    _, result, _ = reg.read(AdapterInput(data, "book.json"))
    assert result.warnings == []  # RisuAI acts on them: nothing to say when reading
    assert reg.write(result.entities, "risu-lorebook").loss.lines() == ["nothing lost"]
    for target in ("sillytavern-lorebook", "agnai-memory"):
        lines = reg.write(result.entities, target).loss.lines()
        assert ("stashed entries[*].content (2 entries): only RisuAI acts on @@ decorator "
                "lines (where and how the entry is put in the prompt); other apps show them "
                "as text") in lines, lines
        assert conversion_problems(reg, result.entities, target) == []
    # the same text from an app that already shows it as text changes nothing
    plain = reg.write(result.entities, "sillytavern-lorebook").files[0].data
    _, st, _ = reg.read(AdapterInput(plain, "world.json"))
    assert not [x for x in reg.write(st.entities, "agnai-memory").loss.lines() if "@@" in x]


def test_sillytavern_style_entry_reports_what_risu_cannot_hold(reg: Any) -> None:
    book = Lorebook(name="World", entries=[
        LorebookEntry(keys=["a, b"], content="x", enabled=False, sticky=2, position="at_depth",
                      depth=1, role="assistant", insertion_order=5)])
    out = reg.write([book], "risu-lorebook")
    paths = {e.path for e in out.loss}
    assert {"name", "entries[0].sticky"} <= paths
    assert any(p.startswith("entries[0].keys") for p in paths)  # "a, b" splits into two
    back = _read(reg, out.data)
    e = back.entries[0]
    assert (e.enabled, e.depth, e.role, e.position) == (False, 1, "assistant", "at_depth")


def test_folder_written_for_risu_has_the_marker_key(reg: Any) -> None:
    book = Lorebook(entries=[LorebookEntry(id="places", is_folder=True, comment="Places"),
                             LorebookEntry(keys=["dock"], content="x", folder="places")])
    data = json.loads(reg.write([book], "risu-lorebook").data)["data"]
    assert data[0]["key"] == "\uf000folder:places" and data[0]["mode"] == "folder"
    assert data[1]["folder"] == "\uf000folder:places"


def test_wrong_types_read_with_warnings(reg: Any) -> None:
    data = _export([_entry(key=5, insertorder="7", alwaysActive="true", extentions=[1])])
    _, result, _ = reg.read(AdapterInput(data, "b.json"))
    (book,) = result.entities
    e = book.entries[0]
    assert (e.keys, e.insertion_order, e.constant) == (["5"], 7, True)
    assert len(result.warnings) == 4


def test_sillytavern_lorebook_round_trip_keeps_risu_settings(reg: Any) -> None:
    if "sillytavern-lorebook" not in reg.adapters:
        pytest.skip("sillytavern-lorebook is not installed")
    book = _read(reg, _export([_entry(content="@@depth 3\n@@role system\nText",
                                      secondkey="b", selective=True)]))
    st = reg.write([book], "sillytavern-lorebook")
    _, result, _ = reg.read(AdapterInput(st.data, "st.json"), format="sillytavern-lorebook")
    e = result.entities[0].entries[0]
    assert (e.depth, e.role, e.position, e.content) == (3, "system", "at_depth", "Text")
    back = reg.write(result.entities, "risu-lorebook")
    assert json.loads(back.data)["data"][0]["content"] == "@@depth 3\n@@role system\nText"


def _escaped_bare_array() -> bytes:
    """A bare entry array as a tool wrote it: the folder marker U+F000 as a ``\\u`` escape
    while the Korean and the emoji stay as they are, a blank line at the end."""
    entries = [_entry(key="\uf000folder:sea", comment="🌊 바다", mode="folder", content=""),
               _entry(key="바다, sea", comment="바다", content="The sea is cold.",
                      folder="\uf000folder:sea")]
    return hand_laid(entries).replace("\uf000".encode(), b"\\uf000")


def test_an_unchanged_bare_array_with_escapes_is_rewritten_byte_for_byte(reg: Any) -> None:
    source = _escaped_bare_array()
    assert b'"\\uf000folder:sea"' in source and "🌊".encode() in source
    book = _read(reg, source)
    assert reg.write([book], "risu-lorebook", {"array": True}).files[0].data == source
    book.entries[1].content = "The sea is colder."
    out = reg.write([book], "risu-lorebook", {"array": True}).files[0].data
    assert out != source and json.loads(out)[1]["content"] == "The sea is colder."


def test_an_entry_without_keys_is_written_without_keys(reg: Any) -> None:
    """A World Info entry with no keys (an always-on one, or one only a folder named) gets no
    key in RisuAI: a key is never made up from a folder or a placeholder."""
    wi = {"entries": {
        "0": {"uid": 0, "key": [], "keysecondary": [], "comment": "Always", "content": "Green sky.",
              "constant": True, "order": 100, "position": 0, "disable": False},
        "1": {"uid": 1, "key": [], "keysecondary": [], "comment": "Idle", "content": "Unused.",
              "constant": False, "order": 100, "position": 0, "disable": False}}}
    _, result, _ = reg.read(AdapterInput(json.dumps(wi).encode(), "world.json"))
    out = reg.write(result.entities, "risu-lorebook")
    written = json.loads(out.data)["data"]
    assert [(e["key"], e["secondkey"], e["alwaysActive"]) for e in written] == [
        ("", "", True), ("", "", False)]
    assert [e.keys for e in _read(reg, out.data).entries] == [[], []]


@pytest.mark.skipif(not TAMMY.exists(), reason="corpus not available")
def test_folders_through_world_info_come_back_with_no_made_up_keys(reg: Any) -> None:
    """RisuAI folders have no place in World Info: written there they are keyless entries
    (reported), and written back to RisuAI every entry has the keys World Info gave it."""
    book = _read(reg, TAMMY.read_bytes())
    st = reg.write([book], "sillytavern-lorebook")
    assert any(lo.path.endswith("is_folder") for lo in st.loss)
    _, through, _ = reg.read(AdapterInput(st.data, "world.json"))
    back = json.loads(reg.write(through.entities, "risu-lorebook").data)["data"]
    assert [e["key"] for e in back] == [", ".join(e.keys) for e in book.entries]
    assert not any("folder" in e["key"] for e in back)

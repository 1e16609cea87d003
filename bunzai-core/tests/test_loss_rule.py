"""The one loss rule: declared carried paths, neutral values, app data by path, verification."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import bunzai
from bunzai.sdk import (
    Character,
    Detection,
    FormatAdapter,
    Lorebook,
    LorebookEntry,
    OutputFile,
    ReadResult,
    WriteResult,
    dumps,
    loads,
)
from bunzai.testing import Registry


class _Tiny(FormatAdapter):
    """A card format that holds a name and a lorebook's keys and content, nothing else."""

    format_id = "tiny"
    kind = "character"
    carries = ("name", "lorebook.entries[*].keys", "lorebook.entries[*].content")
    reasons = (("lorebook", "tiny books hold only keys and text"),)

    def detect(self, input: Any) -> Detection:
        return Detection(1.0 if input.data.startswith(b'{"tiny"') else 0.0)

    def read(self, input: Any, options: Mapping[str, Any]) -> ReadResult:
        doc = loads(input.data)
        book = Lorebook(entries=[LorebookEntry(keys=e[0], content=e[1]) for e in doc["book"]]) \
            if doc["book"] else None
        return ReadResult([Character(name=doc["tiny"], lorebook=book,
                                     app_data={"tiny": doc["more"]} if doc["more"] else {})])

    def write(self, entity: Any, options: Mapping[str, Any]) -> WriteResult:
        book = [[e.keys, e.content] for e in entity.lorebook.entries] if entity.lorebook else []
        doc = {"tiny": entity.name, "book": book, "more": entity.app_data.get("tiny", {})}
        return WriteResult([OutputFile(dumps(doc), ".json")])


class _Overclaiming(_Tiny):
    """Declares that it holds everything; it does not."""

    format_id = "overclaiming"
    carries = ("*",)


@pytest.fixture
def reg() -> Registry:
    return Registry.load(extra=[("tiny", _Tiny()), ("overclaiming", _Overclaiming())])


def entry(**values: Any) -> LorebookEntry:
    return LorebookEntry(keys=["harbour"], content="Fog every morning.", **values)


def test_only_non_neutral_values_outside_the_carried_paths_are_reported(reg: Registry) -> None:
    ch = Character(name="Mara", description="A pilot.", lorebook=Lorebook(entries=[
        entry(constant=False, use_regex=False, probability=100, insertion_order=100,
              display_index=7, id=3),
        entry(constant=True, depth=4, role="system", position="before_char"),
    ]), app_data={"other-app": {"chat": "Mara - 2024", "fav": True}})
    got = {(e.path, e.action, e.reason) for e in reg.write([ch], "tiny").loss}
    assert got == {
        ("description", "dropped", "tiny has no place for it"),
        ("lorebook.entries[1].constant", "dropped", "tiny books hold only keys and text"),
        ("app_data.other-app.chat", "dropped",
         "kept only for other-app; tiny has no place for it"),
        ("app_data.other-app.fav", "dropped",
         "kept only for other-app; tiny has no place for it"),
    }


def test_a_format_keeps_its_own_app_data(reg: Registry) -> None:
    ch = Character(name="Mara", app_data={"tiny": {"colour": "teal"}})
    out = reg.write([ch], "tiny")
    assert not out.loss
    back = reg.read(bunzai.sdk.AdapterInput(out.data, "x.json"), format="tiny")[1].entities[0]
    assert back.app_data == {"tiny": {"colour": "teal"}}


def test_verify_finds_what_a_wrong_declaration_hides(reg: Registry) -> None:
    ch = Character(name="Mara", description="A pilot.")
    assert not reg.write([ch], "overclaiming").loss  # it says it holds everything
    out = reg.write([ch], "overclaiming", verify=True)
    assert [(e.path, e.action) for e in out.loss] == [("description", "dropped")]
    assert any("found only by reading the output back" in w for w in out.warnings)


def test_the_api_and_the_cli_verify_too(reg: Registry) -> None:
    ch = Character(name="Mara", description="A pilot.")
    out = bunzai.write(ch, "overclaiming", registry=reg, verify=True)
    assert out.loss.covers("description")


def test_convert_verify_on_the_command_line(reg: Registry, tmp_path: Any) -> None:
    import json

    from bunzai.cli import invoke as run_cli

    src = tmp_path / "mara.vaud.json"
    src.write_bytes(bunzai.write(Character(name="Mara", description="A pilot."), "vaud-json",
                                 registry=reg).data)
    plain = run_cli("convert", str(src), "--to", "overclaiming", "-o",
                    str(tmp_path / "a.json"), "--json", registry=reg)
    checked = run_cli("convert", str(src), "--to", "overclaiming", "-o",
                      str(tmp_path / "b.json"), "--json", "--verify", registry=reg)
    assert plain.exit_code == 0 and checked.exit_code == 0, checked.output
    assert json.loads(plain.stdout)["loss"] == []
    assert [e["path"] for e in json.loads(checked.stdout)["loss"]] == ["description"]


def test_a_date_stamped_where_there_was_none_is_not_a_change() -> None:
    from bunzai.loss.neutral import Neutrality
    from bunzai.loss.rule import changes

    rules = Neutrality()
    assert changes(Character(name="A"), Character(name="A", creation_date=1700000000),
                   rules) == []
    assert changes(Character(name="A", creation_date=1), Character(name="A", creation_date=2),
                   rules) == ["creation_date"]
    assert changes(Character(name="A", modification_date=1), Character(name="A"),
                   rules) == ["modification_date"]


def test_an_assets_place_in_the_list_is_layout() -> None:
    from bunzai.loss.neutral import Neutrality
    from bunzai.loss.rule import changes
    from bunzai.sdk import Asset

    rules = Neutrality()
    icon = Asset(type="icon", name="main", data=b"\x89PNG icon")
    sky = Asset(type="background", name="sky", data=b"\x89PNG sky")
    sad = Asset(type="emotion", name="sad", uri="https://example.invalid/sad.png")
    before = Character(name="A", assets=[sky, sad, icon])
    assert changes(before, Character(name="A", assets=[icon, sky, sad]), rules) == []
    # the same file renamed is a change to its name, named by its place in the source
    renamed = sky.model_copy(update={"name": "dusk"})
    assert changes(before, Character(name="A", assets=[icon, renamed, sad]),
                   rules) == ["assets[0].name"]
    # an asset gone is named by its own index, whatever moved up after it
    assert changes(before, Character(name="A", assets=[sad, icon]), rules) == ["assets[0]"]


def test_a_list_with_items_left_out_of_the_middle_is_reported_once() -> None:
    from bunzai.sdk import LossReport

    tail = LossReport()
    tail.left_out("messages", {3: "empty", 4: "empty"}, 5)
    assert [(e.path, e.action) for e in tail] == [("messages[3]", "dropped"),
                                                 ("messages[4]", "dropped")]
    middle = LossReport()
    middle.left_out("lorebook.entries", {1: "disabled"}, 4)
    assert middle.lines(verbose=True) == [
        "1 dropped, 1 approximated",
        "dropped lorebook.entries[1]: disabled",
        "approximated lorebook.entries: the entries after a left-out one move up"]
    # the later entries moved: a comparison by place finds them changed, the list names it
    assert middle.covers("lorebook.entries[2].content")
    # but what a kept entry loses is still said by its own path
    assert not middle.covers("lorebook.entries[2].comment", stashed=True, items=False)
    assert middle.covers("lorebook.entries[1].comment", stashed=True, items=False)


def _bang(text: Any) -> bool:
    return isinstance(text, str) and text.startswith("!")


class _Marked(_Tiny):
    """A format whose app acts on lines starting with ``!``."""

    format_id = "marked"
    acts_on = (("lorebook.entries[*].content", _bang, "only Marked acts on ! lines"),)


def test_text_only_the_source_app_acts_on_is_stashed_elsewhere() -> None:
    reg = Registry.load(extra=[("tiny", _Tiny()), ("marked", _Marked())])
    book = Lorebook(entries=[LorebookEntry(keys=["fog"], content="!weather fog"), entry(),
                             LorebookEntry(keys=["x"], content="!x")])
    mine = Character(name="Mara", lorebook=book, passthrough={"marked": {}})
    assert reg.write([mine], "tiny").loss.lines() == [
        "2 stashed", "stashed lorebook.entries[*].content (2 entries): only Marked acts on ! "
                     "lines"]
    assert not reg.write([mine], "marked").loss  # its own app acts on them
    # from an app that shows them as text already, nothing changes
    theirs = mine.model_copy(update={"passthrough": {}})
    assert not reg.write([theirs], "tiny").loss


def test_a_pattern_carries_every_field_under_it_and_bang_takes_one_back() -> None:
    """``*`` and a path carry every canonical field under them (the model names them, so a
    format keeps no list of its own); ``!path`` takes one path back out of a ``*`` beside it."""
    from bunzai.sdk import Carried, Neutrality, RegexScript, unheld

    ch = Character(name="Mara", description="A pilot.", triggers=[{"type": "start"}],
                   lorebook=Lorebook(name="Coast", entries=[entry(depth=4)]),
                   regex_scripts=[RegexScript(name="r", pattern="a", extensions={"x": 1})],
                   app_data={"other-app": {"chat": "Mara"}})
    neutral = Neutrality()
    assert unheld(ch, Carried.of(["*"]), neutral) == ["app_data.other-app.chat"]
    got = unheld(ch, Carried.of(["*", "!triggers", "regex_scripts[*].*",
                                 "!regex_scripts[*].extensions"]), neutral)
    assert sorted(got) == ["app_data.other-app.chat", "regex_scripts[0].extensions.x", "triggers"]
    whole = unheld(ch, Carried.of(["lorebook", "name"]), neutral)
    assert "description" in whole and not any(p.startswith("lorebook") for p in whole)


@pytest.mark.parametrize("patterns", [
    ["!triggers"],  # nothing beside it to take it out of
    ["lorebook", "!lorebook.name"],  # inside a path carried whole
    ["*", "!name", "name"],  # named both ways
    ["*", "!lorebook", "lorebook.name"],
])
def test_a_bang_pattern_that_cannot_take_effect_is_refused(patterns: list[str]) -> None:
    from bunzai.sdk import Carried

    with pytest.raises(ValueError, match="'!' pattern"):
        Carried.of(patterns)


def test_verify_says_that_it_ran_and_what_it_found(reg: Registry, tmp_path: Any) -> None:
    import json

    from bunzai.cli import invoke as run_cli

    src = tmp_path / "mara.vaud.json"
    src.write_bytes(bunzai.write(Character(name="Mara", description="A pilot."), "vaud-json",
                                 registry=reg).data)
    text = run_cli("convert", str(src), "--to", "overclaiming", "-o", str(tmp_path / "a.json"),
                   "--verify", registry=reg)
    assert text.exit_code == 0, text.output
    assert ("verified: reading the output back found 1 change(s) the report did not name, now "
            "in it: description") in text.stdout
    doc = json.loads(run_cli("convert", str(src), "--to", "overclaiming", "-o",
                             str(tmp_path / "b.json"), "--json", "--verify",
                             registry=reg).stdout)
    assert doc["verified"]["found"] == ["description"] and doc["verified"]["asked"] is True
    plain = run_cli("convert", str(src), "--to", "overclaiming", "-o", str(tmp_path / "c.json"),
                    registry=reg)
    assert "verified:" not in plain.stdout

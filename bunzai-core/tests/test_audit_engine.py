"""The audit over canonical entities, driven by what each format declares (``FormatInfo.runs``),
and the strip that removes what it finds.  Two small formats stand in for apps: a format's
declaration is all the audit knows of its app."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import bunzai
from bunzai.active.findings import GENERIC_APP, audit_entity, summary
from bunzai.active.strip import strip_entity
from bunzai.sdk import (
    Character,
    Detection,
    FormatAdapter,
    Lorebook,
    LorebookEntry,
    OutputFile,
    ReadResult,
    RegexScript,
    Runs,
    WriteResult,
    dumps,
    loads,
)
from bunzai.testing import Registry


def _when(value: Any, script: Any) -> str:
    return "on display" if getattr(script, "markdown_only", None) else "on every message"


class _Stage(FormatAdapter):
    """A card format whose app runs ``extensions.stage.scripts`` and renders regex output."""

    format_id = "stage"
    kind = "character"
    carries = ("*",)
    runs = (
        Runs("extensions.stage.scripts[*].code", "Stage", "javascript", "on chat start",
             carrier="stage script"),
        Runs("regex_scripts[*].replace", "Stage", "html", _when, carrier="regex script",
             removes=("script",)),
        Runs("first_mes", "Stage", "text", "on chat start"),
        Runs("lorebook.entries[*].content", "Stage", "prompt", "on every message"),
    )

    def detect(self, input: Any) -> Detection:
        return Detection(1.0 if input.data.startswith(b'{"stage"') else 0.0)

    def read(self, input: Any, options: Mapping[str, Any]) -> ReadResult:
        ch = Character.model_validate(loads(input.data)["stage"])
        ch.passthrough = {"stage": {}}
        return ReadResult([ch])

    def write(self, entity: Any, options: Mapping[str, Any]) -> WriteResult:
        body = entity.model_dump(mode="json", exclude={"passthrough"})
        return WriteResult([OutputFile(dumps({"stage": body}), ".json")])


class _Plain(_Stage):
    """Another card format, whose app renders regex output too but runs no stage scripts."""

    format_id = "plain"
    runs = (Runs("regex_scripts[*].replace", "Plain", "html", "on display",
                 carrier="regex script"),)

    def detect(self, input: Any) -> Detection:
        return Detection(0.0)


@pytest.fixture
def reg() -> Registry:
    return Registry.load(extra=[("stage", _Stage()), ("plain", _Plain())])


def card(**kw: Any) -> Character:
    base: dict[str, Any] = {
        "name": "Wren", "first_mes": "Hello.", "passthrough": {"stage": {}},
        "extensions": {"stage": {"scripts": [{"name": "bell", "code": "ring()"},
                                             {"name": "empty", "code": "  "}]}},
        "regex_scripts": [
            RegexScript(name="bar", pattern="x", replace='<div onclick="go()">$1</div>',
                        markdown_only=True),
            RegexScript(name="typo", pattern="teh", replace="the"),
            RegexScript(name="box", pattern="y", replace="<b>$1</b>"),
        ],
        "lorebook": Lorebook(entries=[
            LorebookEntry(keys=["a"], content="<style>.x{}</style> Styling for the model."),
            LorebookEntry(keys=["b"], content='<img src="https://h.example/p.gif"> pixel'),
        ]),
    }
    base.update(kw)
    return Character(**base)


def test_each_finding_says_where_which_app_what_and_when(reg: Registry) -> None:
    got = {(f.path, f.kind): f for f in audit_entity(card(), registry=reg)}
    script = got[("extensions.stage.scripts[0].code", "javascript")]
    assert (script.app, script.when, script.carrier, script.name, script.excerpt) == (
        "Stage", "on chat start", "stage script", "bell", "ring()")
    handler = got[("regex_scripts[0].replace", "handler")]
    assert (handler.app, handler.when, handler.name) == ("Stage", "on display", "bar")
    assert got[("regex_scripts[2].replace", "html")].when == "on every message"
    assert ("regex_scripts[1].replace", "html") not in got  # plain text in, plain text out
    assert ("extensions.stage.scripts[1].code", "javascript") not in got  # nothing in it
    # prompt text: CSS runs nowhere, a remote image would load if a reply repeats it
    assert ("lorebook.entries[0].content", "css") not in got
    assert got[("lorebook.entries[1].content", "remote")].when == "on every message"


def test_text_no_format_declares_is_scanned_for_any_app(reg: Registry) -> None:
    (f,) = audit_entity(Character(name="A", scenario="<script>x()</script>"), registry=reg)
    assert (f.path, f.kind, f.app, f.when) == ("scenario", "script", GENERIC_APP, "on display")


def test_code_another_format_declares_is_judged_by_that_format(reg: Registry) -> None:
    mine = card(passthrough={"plain": {}})
    got = {(f.path, f.kind): f for f in audit_entity(mine, registry=reg)}
    assert got[("extensions.stage.scripts[0].code", "javascript")].app == "Stage"
    assert got[("regex_scripts[0].replace", "html")].app == "Plain"  # the reader's own word


def test_the_summary_counts_what_holds_active_content(reg: Registry) -> None:
    assert summary(audit_entity(card(), registry=reg)) == (
        "1 stage script, 1 lorebook entry with remote files, 1 regex script with event "
        "handlers, 1 regex script with HTML")


def test_strip_takes_out_what_was_found_and_nothing_else(reg: Registry) -> None:
    before = card()
    snapshot = before.model_dump()
    after, loss = strip_entity(before, registry=reg)
    assert before.model_dump() == snapshot  # the given entity is never changed
    assert audit_entity(after, registry=reg) == []
    assert [s["name"] for s in after.extensions["stage"]["scripts"]] == ["empty"]
    assert [s.name for s in after.regex_scripts] == ["typo"]
    assert after.lorebook.entries[1].content == " pixel"
    assert after.lorebook.entries[0] == before.lorebook.entries[0]
    assert {(e.path, e.action) for e in loss} == {
        ("extensions.stage.scripts[0]", "dropped"), ("extensions.stage.scripts", "approximated"),
        ("regex_scripts[0]", "dropped"), ("regex_scripts[2]", "dropped"),
        ("regex_scripts", "approximated"), ("lorebook.entries[1].content", "dropped")}
    same, nothing = strip_entity(after, registry=reg)
    assert same is after and not nothing


def test_markup_a_removal_makes_is_removed_too(reg: Registry) -> None:
    tricky = Character(name="A", first_mes="<scr<script>x</script>ipt>go()</script>.",
                       passthrough={"stage": {}})
    after, loss = strip_entity(tricky, registry=reg)
    assert audit_entity(after, registry=reg) == []
    assert [e.path for e in loss] == ["first_mes"]


def test_write_strips_on_request_and_says_so(reg: Registry) -> None:
    out = bunzai.write([card()], "stage", registry=reg, strip_active=True)
    removed = [e for e in out.loss if e.reason.startswith("active content removed")]
    assert {e.path for e in removed} >= {"extensions.stage.scripts[0]", "regex_scripts[0]"}
    assert not reg.write([card()], "stage").loss


def test_active_content_kept_for_an_app_that_runs_it_otherwise_is_stashed(
        reg: Registry) -> None:
    loss = reg.write([card()], "plain").loss
    stashed = {e.path: e.reason for e in loss if e.action == "stashed"}
    assert "does not run it" in stashed["extensions.stage.scripts[0]"]
    assert stashed["regex_scripts[0]"].startswith("Stage runs this HTML on display")
    assert "Plain runs it on display" in stashed["regex_scripts[0]"]
    # code the target's app runs the same way is not reported
    assert "regex_scripts[1]" not in stashed


def test_format_info_carries_the_declaration() -> None:
    info = _Stage.info()
    assert info.runs == _Stage.runs and info.runs[0].app == "Stage"

"""risu-regex: RisuAI custom scripts, field by field against SillyTavern's regex."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bunzai.sdk import AdapterInput, RegexScript
from bunzai.testing import corpus_dir, load_registry, samples_dir

EXPORT = samples_dir() / "risu" / "gen_risu_regex_export.json"
TAMMY = corpus_dir() / "other" / "other__tammy3211_RisuAI_bot_test__regex__14900b8990.json"


@pytest.fixture(scope="module")
def reg() -> Any:
    return load_registry()


def _read(reg: Any, data: bytes, fmt: str | None = None) -> list[RegexScript]:
    _, result, _ = reg.read(AdapterInput(data, "r.json"), format=fmt)
    return list(result.entities)  # type: ignore[arg-type]


def _script(**kw: object) -> dict:
    base = {"comment": "c", "in": "a", "out": "b", "type": "editoutput", "flag": "g",
            "ableFlag": True}
    base.update(kw)
    return base


@pytest.mark.skipif(not EXPORT.exists(), reason="samples not available")
def test_export_round_trips_byte_for_byte(reg: Any) -> None:
    scripts = _read(reg, EXPORT.read_bytes())
    assert [s.name for s in scripts] == ["Strip OOC", "Bold names"]
    out = reg.write(scripts, "risu-regex")
    assert not out.loss and out.data == EXPORT.read_bytes()


@pytest.mark.skipif(not TAMMY.exists(), reason="corpus not available")
def test_real_array_keeps_unknown_keys(reg: Any) -> None:
    assert reg.detect(AdapterInput.from_path(TAMMY)).winner.format == "risu-regex"  # type: ignore[union-attr]
    scripts = _read(reg, TAMMY.read_bytes())
    assert len(scripts) == 8 and scripts[2].flags == "gi"
    out = reg.write(scripts, "risu-regex", {"array": True})
    assert not out.loss and not out.warnings
    assert json.loads(out.data) == json.loads(TAMMY.read_bytes())  # outFile included
    # by default the envelope RisuAI imports, with a warning
    out = reg.write(scripts, "risu-regex")
    doc = json.loads(out.data)
    assert doc["type"] == "regex" and doc["data"] == json.loads(TAMMY.read_bytes())
    assert any("bare JSON array" in w for w in out.warnings)


@pytest.mark.parametrize(("rtype", "placement", "markdown", "prompt"), [
    ("editinput", ["user_input"], False, False),
    ("editoutput", ["ai_output"], False, False),
    ("editprocess", ["user_input", "ai_output"], False, True),
    ("editdisplay", ["user_input", "ai_output"], True, False),
    ("edittrans", ["user_input", "ai_output"], True, False),
])
def test_types_map_to_placements(reg: Any, rtype: str, placement: list[str],
                                 markdown: bool, prompt: bool) -> None:
    data = json.dumps({"type": "regex", "data": [_script(type=rtype)]}).encode()
    (s,) = _read(reg, data)
    assert (s.placement, s.markdown_only, s.prompt_only) == (placement, markdown, prompt)
    s.passthrough = {}
    back = json.loads(reg.write([s], "risu-regex").data)["data"][0]
    assert back["type"] == rtype


def test_flags_as_risu_applies_them(reg: Any) -> None:
    data = json.dumps({"type": "regex", "data": [
        _script(flag="gig<order 5><cbs>"), _script(flag="i", ableFlag=False),
        _script(flag="<move_top>")]}).encode()
    a, b, c = _read(reg, data)
    assert (a.flags, a.extensions["risuai"]["meta_flags"]) == ("gi", "<order 5><cbs>")
    assert b.flags == "g"  # ableFlag off: RisuAI uses g
    assert c.flags == "u"  # nothing enabled: RisuAI uses u
    out = reg.write([a, b, c], "risu-regex")
    assert not out.loss and json.loads(out.data) == json.loads(data)


def test_disabled_script(reg: Any) -> None:
    s = RegexScript(name="off", pattern="x", placement=["ai_output"], disabled=True)
    out = reg.write([s], "risu-regex")
    assert json.loads(out.data)["data"][0]["type"] == "disabled"
    assert any(e.path.startswith("placement") for e in out.loss)


def test_sillytavern_regex_field_by_field(reg: Any) -> None:
    if "sillytavern-regex" not in reg.adapters:
        pytest.skip("sillytavern-regex is not installed")
    st = {"id": "1", "scriptName": "Bold", "findRegex": "/Mira/gi", "replaceString": "**$0**",
          "trimStrings": [], "placement": [2], "disabled": False, "markdownOnly": True,
          "promptOnly": False, "runOnEdit": True, "substituteRegex": 0, "minDepth": None,
          "maxDepth": None}
    (s,) = _read(reg, json.dumps(st).encode(), "sillytavern-regex")
    out = reg.write([s], "risu-regex")
    risu = json.loads(out.data)["data"][0]
    assert risu == {"comment": "Bold", "in": "Mira", "out": "**$0**", "type": "editdisplay",
                    "flag": "gi", "ableFlag": True}
    paths = {e.path for e in out.loss}
    # an id and run-on-edit true ask nothing of RisuAI, which has neither: not losses
    assert not {"id", "run_on_edit"} & paths
    assert any(p.startswith("placement") for p in paths)  # display runs on every message
    (back,) = _read(reg, out.data)
    st_again = json.loads(reg.write([back], "sillytavern-regex").data)
    st_again = st_again[0] if isinstance(st_again, list) else st_again
    assert (st_again["scriptName"], st_again["findRegex"], st_again["replaceString"],
            st_again["markdownOnly"], st_again["disabled"]) == (
        "Bold", "/Mira/gi", "**$0**", True, False)

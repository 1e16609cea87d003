"""Active content across every installed format: what ``bunzai audit`` finds in real files and
in our hostile set, what it never reports, and ``--strip-active`` (the output audits clean and
loses nothing the report does not name).  See docs/active-content.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import bunzai
from bunzai.active.findings import Finding, audit_entities
from bunzai.api import as_input, set_registry
from bunzai.cli import invoke as run_cli
from bunzai.engine.reading import read_file
from bunzai.host.registry import Registry
from bunzai.loss.rule import changes
from bunzai.testing import corpus_dir, shared_dir

from .hostile.active import BENIGN, TRICKS, ActiveCase, all_active_cases

CASES = all_active_cases()
CORPUS = corpus_dir()
LIBRARY = shared_dir() / "libraries" / "st-user-2208096" / "default-user"

SCOUT = CORPUS / "png-both" / "png-both__scout306_cloud_save__x__6be6d94d58.png"
AOT = (CORPUS / "st-regex" /
       "st-regex__DesZiDesu_sillytavern_card__AOT_Confirm_Regex__55da40a4d1.json")
NAMEPLATE = (CORPUS / "st-regex" /
             "st-regex__DesZiDesu_sillytavern_card__DB_Header_B_KiNameplate_Regex__d61a761385.json")
STEPMOTHER = LIBRARY / "characters" / "和继母与继母闺蜜的禁忌之旅.png"
HUGGSTORY = CORPUS / "png-both" / "png-both__amnesiavon_huggstory__3_0__2389ad6f32.png"
KONOSUBA = (CORPUS / "ccv3-json" /
            "ccv3-json__DesZiDesu_sillytavern_card__Konosuba_RPG__5d28b38f95.json")

CLEAN = {
    # family: (file, why it must give no finding)
    "agnai": ("agnai__ossirytk_llama_cpp_chat_memory__main_hogwarts_legacy_lore_b819ccba_agnai"
              "__d801f18c01.json", "an Agnai character: plain prose"),
    "byaf": ("byaf__ahoylabs_byaf__1__2af4a49b72.byaf", "a Backyard archive: plain text"),
    "ccv1-json": ("ccv1-json__SillyTavern_SillyTavern__Megumin__f9c34a1be5.json",
                  "a V1 card: plain prose and <START> separators, which are not HTML"),
    "ccv2-json": ("ccv2-json__MultihogAurelius_SillyTavern_M__vaelmarch__2b3f9e7b55.json",
                  "a V2 card with a book: plain text"),
    "ccv3-json": (KONOSUBA.name, "a V3 card whose tavern_helper.scripts is empty: an empty "
                                 "key runs nothing"),
    "charx": ("charx__jasl_tavern_kit__test_character__2886f90832.charx", "a CharX: plain text"),
    "nai-lorebook": ("nai-lorebook__grahamwaters_lorebook_generator_for_novelai__lorebook_example"
                     "__2ed754ebcf.lorebook", "a NovelAI book of scanned text whose stray "
                                              "'<TMfWO« … one …' is no element and no handler"),
    "png-both": (HUGGSTORY.name, "a card whose TavernHelper_scripts is empty and whose book "
                                 "entries hold <style> blocks sent to the model, where CSS "
                                 "runs nowhere"),
    "png-ccv3": ("png-ccv3__wobufetmaster_choral__Roxanne__a426548f0e.png", "plain text"),
    "png-chara-v1": ("png-chara-v1__Hukasx0_character_factory__Lily_Harper_card__a6c87cf3c1.png",
                     "web addresses written as text, which nothing loads"),
    "png-chara-v2": ("png-chara-v2__SillyTavern_SillyTavern__default_CodingSensei__04de892518"
                     ".png", "prose about JavaScript, which is a word, not a script"),
    "pygmalion": ("pygmalion__oobabooga_text_generation_webu__Example__b8cb3d9ea8.json",
                  "plain text"),
    "st-persona": ("st-persona__SillyTavern_SillyTavern__settings__84ae96b9a1.json",
                   "personas: plain text"),
    "st-worldbook": ("st-worldbook__Mersidler_silly__x__279f1ea649.json",
                     "entries with <details>, <summary> and made-up tags: formatting, no script"),
    "voxpkg": ("voxpkg__axAilotl_card_architect__Lady_Voxta_1_0_0__9240c547fa.voxpkg",
               "a Voxta character whose Scripts list is empty"),
    "wyvern-png": ("wyvern-png__character_foundry_character_foundry__Aira_Sweet_Hydromancer_Friend"
                   "__b0be2c34c4.png", "a web address written as text"),
}
CLEAN_CHATS = {
    "st-chat": ("st-chat__glxiang369_sillytavern_saves__2025_04_28_23h18m07s__9dc74d050",
                "messages with <details>/<summary> status blocks: formatting, no script"),
    "kobold-lite-save": ("kobold-lite-save__intothenether_KoboldcppExjobb__saved_story__eb94cdad",
                         "web addresses in the story text, which nothing loads"),
    "tavernai-chat": ("tavernai-chat__aldozulhaq_TavernAI__1689442566015__fc228e2f28.jsonl",
                      "plain messages"),
}
"""A sample of plain files of every family, each with the reason it must audit clean."""


def where(f: Finding) -> str:
    return f.path if f.entity is None else f"[{f.entity}].{f.path}"


def found(findings: list[Finding], path: str, kind: str, app: str | None = None,
          when: str | None = None) -> bool:
    return any(where(f).startswith(path) and f.kind == kind and (app is None or app in f.app)
               and (when is None or f.when == when) for f in findings)


@pytest.fixture
def cli(registry: Registry) -> Any:
    set_registry(registry)
    try:
        yield lambda *args: run_cli(*args, registry=registry)
    finally:
        set_registry(None)


# -- the shared files named in the issue -----------------------------------------------------------


def test_script_tags_and_onclick_handlers_in_a_cards_regex_pages_are_found(
        registry: Registry) -> None:
    got = bunzai.audit(SCOUT, registry=registry)
    assert got.exit_code == 1 and got.format == "sillytavern"
    # the pages are fenced code blocks: JS-Slash-Runner turns them into frames and runs them
    for kind in ("iframe", "script", "handler"):
        assert found(got.findings, "regex_scripts[0].replace", kind, "JS-Slash-Runner",
                     "on display"), kind
    handlers = next(f for f in got.findings if f.kind == "handler"
                    and f.path == "regex_scripts[0].replace")
    assert handlers.count > 1 and "onclick" in handlers.excerpt
    # the plain HTML ones SillyTavern renders itself, once the user allows the card's scripts
    assert found(got.findings, "regex_scripts[3].replace", "css", "SillyTavern")
    assert got.summary() == ("2 regex scripts with scripts, 10 regex scripts with CSS, "
                             "3 regex scripts with HTML")


def test_a_script_in_a_regex_replacement_is_found(registry: Registry) -> None:
    got = bunzai.audit(AOT, registry=registry)
    assert got.exit_code == 1 and got.kind == "regex"
    assert found(got.findings, "replace", "script", "JS-Slash-Runner", "on display")
    assert found(got.findings, "replace", "remote")  # its fonts come from another host
    assert {f.carrier for f in got.findings} == {"regex script"}


def test_an_onerror_handler_in_a_regex_replacement_is_found(registry: Registry) -> None:
    got = bunzai.audit(NAMEPLATE, registry=registry)
    handler = next(f for f in got.findings if f.kind == "handler")
    assert (handler.path, handler.app, handler.when) == ("replace", "SillyTavern", "on display")
    assert "onerror" in handler.excerpt
    assert "SillyTavern removes it" in handler.note  # still listed: other apps keep it


def test_a_tavernhelper_script_and_script_tags_are_found(registry: Registry) -> None:
    got = bunzai.audit(STEPMOTHER, registry=registry)
    scripts = [f for f in got.findings if f.kind == "javascript"]
    assert [(f.path, f.app, f.when, f.carrier) for f in scripts] == [
        (f"extensions.TavernHelper_scripts[{i}].content", "JS-Slash-Runner", "on chat start",
         "TavernHelper script") for i in (0, 1)]
    assert [f.name for f in scripts] == ["var update", "日替"]
    assert found(got.findings, "regex_scripts[4].replace", "script")
    assert got.summary() == "2 TavernHelper scripts, 1 regex script with scripts"


@pytest.mark.parametrize("path", [HUGGSTORY, KONOSUBA], ids=["huggstory", "konosuba"])
def test_keys_with_nothing_in_them_are_not_findings(registry: Registry, path: Path) -> None:
    entity = bunzai.read(path, registry=registry)
    assert "TavernHelper_scripts" in entity.extensions or "tavern_helper" in entity.extensions
    assert bunzai.audit(path, registry=registry).findings == []


# -- what is never reported ------------------------------------------------------------------------


@pytest.mark.parametrize("family", sorted(CLEAN))
def test_plain_files_of_every_family_give_no_finding(cli: Any, family: str) -> None:
    name, why = CLEAN[family]
    res = cli("audit", str(CORPUS / family / name))
    assert res.exit_code == 0, f"{why}: {res.stdout}"
    assert "no active content" in res.stdout


@pytest.mark.parametrize("family", sorted(CLEAN_CHATS))
def test_plain_chats_give_no_finding(registry: Registry, family: str) -> None:
    prefix, why = CLEAN_CHATS[family]
    (path,) = [p for p in (shared_dir() / "corpus-chats" / family).iterdir()
               if p.name.startswith(prefix)]
    assert bunzai.audit(path, registry=registry).findings == [], why


@pytest.mark.parametrize("text", BENIGN)
def test_prose_about_scripts_formatting_and_links_is_not_reported(
        registry: Registry, text: str) -> None:
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Quay", "description": text, "first_mes": text, "alternate_greetings": [text],
        "creator_notes": text, "personality": "", "scenario": "", "mes_example": "",
        "character_book": {"entries": [{"keys": ["k"], "content": text, "enabled": True,
                                        "insertion_order": 0, "extensions": {}}]}}}
    got = bunzai.audit(json.dumps(card).encode(), filename="quay.json", registry=registry)
    assert got.ok and got.findings == []


# -- the hostile set -------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_hostile_case_is_found(registry: Registry, case: ActiveCase) -> None:
    got = bunzai.audit(case.data, filename=case.filename, registry=registry)
    assert got.ok, got.error
    assert got.exit_code == 1
    for e in case.expect:
        assert found(got.findings, e.path, e.kind, e.app, e.when), (
            e, [(where(f), f.kind, f.app, f.when) for f in got.findings])


def test_every_trick_is_in_the_hostile_set_and_in_the_fuzz_seeds() -> None:
    from fuzz.seeds import _hostile

    names = {c.name for c in CASES}
    assert {f"st-card-{name}" for name, _, _ in TRICKS} <= names
    seeds = set(_hostile())
    assert all(c.data in seeds for c in CASES)


def _write_back(registry: Registry, entities: list[Any], fmt: str, *, strip: bool
                ) -> tuple[Any, list[Any]]:
    written = bunzai.write(entities, fmt, registry=registry, strip_active=strip)
    back: list[Any] = []
    for f in written.files:
        back.extend(registry.read(as_input(f.data, f"out{f.suffix}"), format=fmt)[1].entities)
    return written, back


def _silent(registry: Registry, before: list[Any], after: list[Any], loss: Any) -> list[str]:
    """Changes between what was read and what the output reads back as that the loss report
    does not name (entities left out whole are taken out of ``before`` first)."""
    gone = {int(e.path[1:-1]) for e in loss if e.action == "dropped"
            and e.path.startswith("[") and e.path.endswith("]") and e.path[1:-1].isdigit()}
    kept = [e for i, e in enumerate(before) if i not in gone]
    assert len(kept) == len(after)
    many = len(after) > 1
    out = []
    for j, (a, b) in enumerate(zip(kept, after, strict=True)):
        for p in changes(a, b, registry.neutrality):
            shown = f"[{j}].{p}" if many else p
            if not (loss.covers(shown) or loss.covers(p)):
                out.append(shown)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_strip_active_audits_clean_and_loses_nothing_else(registry: Registry,
                                                          case: ActiveCase) -> None:
    reading = read_file(case.data, filename=case.filename, registry=registry)
    assert reading.ok, reading.error
    fmt = reading.format
    assert fmt is not None
    written, back = _write_back(registry, reading.entities, fmt, strip=True)
    assert audit_entities(back, format=fmt, registry=registry) == []
    assert _silent(registry, reading.entities, back, written.loss) == []
    removals = [e for e in written.loss if e.reason.startswith("active content removed")]
    assert removals and all(e.action == "dropped" for e in removals)


@pytest.mark.parametrize("path", [SCOUT, STEPMOTHER, NAMEPLATE.parent / AOT.name],
                         ids=["scout306", "stepmother", "aot"])
@pytest.mark.parametrize("to", ["same", "risu-charx", "vaud-json"])
def test_strip_active_on_the_shared_files(registry: Registry, path: Path, to: str) -> None:
    reading = read_file(path, registry=registry)
    fmt = reading.format if to == "same" else to
    assert fmt is not None
    if reading.kind != "character" and to == "risu-charx":
        fmt = "risu-regex"
    try:
        written, back = _write_back(registry, reading.entities, fmt, strip=True)
    except bunzai.ConversionRefused as exc:  # a regex file that is nothing but HTML
        assert "nothing left to write" in str(exc) and reading.kind == "regex"
        return
    assert audit_entities(back, format=fmt, registry=registry) == []
    assert _silent(registry, reading.entities, back, written.loss) == []


def test_strip_active_through_the_cli(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "clean.png"
    res = cli("--verbose", "convert", str(STEPMOTHER), "--to", "png", "-o", str(out),
              "--strip-active")
    assert res.exit_code == 0, res.stderr
    assert "dropped extensions.TavernHelper_scripts[0]: active content removed" in res.stdout
    assert cli("audit", str(out)).exit_code == 0
    assert cli("audit", str(STEPMOTHER)).exit_code == 1
    book = tmp_path / "book.json"
    res = cli("lorebook", "extract", str(CASES_BY_NAME["st-book-pixel"]), "-o", str(book),
              "--strip-active")
    assert res.exit_code == 0, res.stderr
    assert cli("audit", str(book)).exit_code == 0


CASES_BY_NAME: dict[str, Any] = {}


@pytest.fixture(autouse=True)
def _case_files(tmp_path_factory: pytest.TempPathFactory) -> None:
    if CASES_BY_NAME:
        return
    folder = tmp_path_factory.mktemp("active")
    for c in CASES:
        p = folder / c.filename
        p.write_bytes(c.data)
        CASES_BY_NAME[c.name] = p


# -- conversions without the flag ------------------------------------------------------------------


def test_a_conversion_to_an_app_that_runs_it_differently_says_so(registry: Registry) -> None:
    out = bunzai.convert(STEPMOTHER, to="risu-charx", registry=registry)
    stashed = {e.path: e.reason for e in out.loss if e.action == "stashed"}
    assert "RisuAI" not in stashed["extensions.TavernHelper_scripts[0]"].split(";")[0]
    assert "does not run it" in stashed["extensions.TavernHelper_scripts[0]"]
    assert "without asking" in stashed["regex_scripts[4]"]
    same = bunzai.convert(STEPMOTHER, to="sillytavern", registry=registry)
    assert not [e for e in same.loss if e.action == "stashed"]


# -- inspect, the API, the studio's words ----------------------------------------------------------


def test_inspect_counts_active_content_on_one_line(cli: Any) -> None:
    res = cli("inspect", str(STEPMOTHER))
    assert "  active content: 2 TavernHelper scripts, 1 regex script with scripts\n" \
        in res.stdout
    plain = cli("inspect", str(CORPUS / "charx" / CLEAN["charx"][0]))
    assert "  active content: none\n" in plain.stdout


def test_audit_json_is_one_line_per_file_and_exit_codes(cli: Any, tmp_path: Path) -> None:
    clean = CORPUS / "charx" / CLEAN["charx"][0]
    res = cli("audit", "--json", str(STEPMOTHER), str(clean))
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert [d["active"] for d in lines] == [True, False] and res.exit_code == 1
    first = lines[0]["findings"][0]
    assert {"path", "app", "kind", "what", "when", "excerpt"} <= set(first)
    assert cli("audit", str(clean)).exit_code == 0
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    bad = cli("audit", str(tmp_path / "bad.json"))
    assert bad.exit_code == 4 and "bad.json" in bad.stderr


def test_audit_of_a_folder_ends_with_a_count_per_folder(cli: Any) -> None:
    res = cli("audit", str(CORPUS / "st-regex"), str(CORPUS / "voxpkg"))
    tail = res.stdout.strip().splitlines()[-3:]
    assert tail[0].endswith("st-regex/: 10 file(s): 10 with active content, 0 clean")
    assert tail[1].endswith("voxpkg/: 3 file(s): 1 with active content, 2 clean")
    assert tail[2] == "13 file(s): 11 with active content, 2 clean"


def test_the_python_api_returns_typed_findings(registry: Registry) -> None:
    got = bunzai.audit(str(STEPMOTHER), registry=registry)
    assert all(isinstance(f, Finding) for f in got.findings)
    assert got.to_dict()["summary"] == got.summary()
    assert "audit" in bunzai.__all__


def test_a_voxta_scenario_without_its_characters_is_audited_member_by_member(
        registry: Registry) -> None:
    import io
    import zipfile

    src = CORPUS / "voxpkg" / ("voxpkg__axAilotl_card_architect__Desktop_Critics_Real_Time_"
                               "Commentary_Edi__e4b2ed1a92.voxpkg")
    with zipfile.ZipFile(src) as z:
        (name,) = z.namelist()
        scenario = json.loads(z.read(name))
    scenario["Actions"] = [{"Name": "wave", "Effect": {"Script": "export function trigger(e) "
                                                                 "{ chat.event('waves') }"}}]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(name, json.dumps(scenario))
    got = bunzai.audit(buf.getvalue(), filename="scene.voxpkg", registry=registry)
    assert got.ok and got.unread is not None and "scenario-only" in got.unread
    assert found(got.findings, "app_data.voxta.Scenarios/", "javascript", "Voxta")
    assert bunzai.audit(src, registry=registry).findings == []


def test_a_third_party_format_says_what_its_app_runs(registry: Registry) -> None:
    """The worked NovelAI example declares its entries as text NovelAI only sends to the model:
    its findings carry NovelAI's name, and CSS (which runs nowhere there) is not one."""
    if "novelai-lorebook" not in registry.adapters:
        pytest.skip("the NovelAI example is not installed")
    book = {"lorebookVersion": 5, "entries": [
        {"text": "<style>.x{}</style><img src=https://p.example/x.gif> Fog.", "keys": ["fog"]}]}
    got = bunzai.audit(json.dumps(book).encode(), filename="fog.lorebook", registry=registry)
    assert [(f.path, f.kind, f.app, f.when) for f in got.findings] == [
        ("entries[0].content", "remote", "NovelAI", "on every message")]


def test_batch_conversion_strips_every_file(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = cli("convert", str(CASES_BY_NAME["st-tavernhelper-old"]),
              str(CASES_BY_NAME["st-book-pixel"]), "--to", "json", "--out-dir", str(out),
              "--strip-active")
    assert res.exit_code == 0, res.stderr
    assert cli("audit", str(out)).exit_code == 0

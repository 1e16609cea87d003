"""The conformance kit, tested the way an author meets it: a real distribution (a dist-info on a
temporary sys.path), a test module subclassing ``AdapterConformance``, and pytest run on it.

A well-behaved toy adapter must pass every standard check; toy adapters with one planted bug
each must fail the check that exists for that bug, with a message that says how to fix it.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from bunzai.kinds import KINDS
from bunzai.testing.generated import FIXTURE_FORMAT, VARIANTS, canonical_examples
from bunzai.testing.kit import STANDARD_CHECKS, AdapterConformance, waive

pytest_plugins = ["pytester"]

TOY = '''
from collections.abc import Mapping, Sequence

from bunzai.sdk import Detection, FormatAdapter, MalformedInput, OutputFile, WriteResult
{heavy}
MARK = "{mark}"
BUG = "{bug}"
KNOWN = ("keys", "text", "title", "on")
HELD = ("name", "entries[*].keys", "entries[*].content", "entries[*].comment",
        "entries[*].enabled")


def _strings(value):
    return isinstance(value, list) and all(isinstance(k, str) for k in value)


class Notes(FormatAdapter):
    """A toy lorebook format for the kit's own tests."""

    format_id = "{fid}"
    kind = "lorebook"
    label = "Kit toy notes"
    suffix = ".notes.json"
    detection = (("JSON object with the marker and a notes list", 0.95),
                 ("the marker without a notes list", 0.6))
    losses = (("everything but keys, content, comment, enabled and name", "dropped"),)
    carries = ("*",) if BUG == "dishonest" else HELD
    reasons = (("entries[*]", "notes hold keys, text, a title and on/off"),
               ("", "notes files have no such field"))

    def detect(self, input):
        data = input.json
        if BUG == "greedy":
            return 0.97 if data is not None else 0.0
        if not isinstance(data, Mapping) or data.get(MARK) != 1:
            return 0.0
        if BUG == "low":
            return Detection(0.4, "too shy")
        notes = data.get("notes")
        if isinstance(notes, Sequence) and not isinstance(notes, str):
            return Detection(0.95, "marker and notes list")
        return Detection(0.6, "marker only")

    def read(self, input, options):
        from bunzai.sdk import Lorebook, LorebookEntry

        data = input.json_mutable()
        if BUG == "crash":
            [note["text"] for note in data["notes"]]
        if not isinstance(data, dict) or data.get(MARK) != 1:
            raise MalformedInput("not a notes file")
        notes = data.get("notes", [])
        if not isinstance(notes, list):
            raise MalformedInput("$.notes: expected a list")
        if "title" in data and not isinstance(data["title"], str):
            raise MalformedInput("$.title: expected a string")
        entries = []
        for i, note in enumerate(notes):
            if not isinstance(note, dict):
                raise MalformedInput(f"$.notes[{{i}}]: expected an object")
            keys, text, on = note.get("keys", []), note.get("text", ""), note.get("on", True)
            title = note.get("title")
            if not _strings(keys) or not isinstance(text, str) or not isinstance(on, bool) \\
                    or ("title" in note and not isinstance(title, str)):
                raise MalformedInput(f"$.notes[{{i}}]: a field has the wrong type")
            extra = {{k: v for k, v in note.items() if k not in KNOWN}}
            absent = [k for k in ("keys", "text", "on") if k not in note]
            entries.append(LorebookEntry(
                keys=keys, content=text, comment=title, enabled=on,
                app_data={{self.format_id: extra}} if extra else {{}},
                passthrough={{self.format_id: {{"absent": absent}}}} if absent else {{}}))
        extra = {{k: v for k, v in data.items() if k not in (MARK, "title", "notes")}}
        return Lorebook(name=data.get("title"), entries=entries,
                        app_data={{self.format_id: extra}} if extra else {{}})

    def write(self, entity, options):
        from bunzai.sdk import dumps

        doc = {{MARK: 1}}
        if entity.name is not None:
            doc["title"] = entity.name
        notes = []
        for e in entity.entries:
            absent = e.passthrough.get(self.format_id, {{}}).get("absent", [])
            note = {{}}
            if e.keys or "keys" not in absent:
                note["keys"] = list(e.keys)
            if e.content or "text" not in absent:
                note["text"] = e.content
            if e.comment is not None:
                note["title"] = e.comment
            if not e.enabled or "on" not in absent:
                note["on"] = e.enabled
            if BUG != "lossy":
                note.update(e.app_data.get(self.format_id, {{}}))
            notes.append(note)
        doc["notes"] = notes
        doc.update(entity.app_data.get(self.format_id, {{}}))
        return WriteResult([OutputFile(dumps(doc, indent=2), self.suffix)])
'''


CONFORMANCE = '''
from pathlib import Path

import pytest

from bunzai.testing.kit import AdapterConformance, waive

pytest_plugins = ["bunzai.testing.plugin"]
SAMPLES = Path({samples!r})
'''


def toy_source(fid: str, mark: str, bug: str = "", heavy: bool = False) -> str:
    return textwrap.dedent(TOY).format(fid=fid, mark=mark, bug=bug,
                                       heavy="import bunzai.model\n" if heavy else "")


def make_dist(site: Path, dist: str, module: str, source: str, eps: dict[str, str]) -> None:
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "\n".join(f"{k} = {v}" for k, v in eps.items())
    (info / "entry_points.txt").write_text(f"[bunzai.formats]\n{lines}\n")


def write_samples(folder: Path, mark: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    rich = {mark: 1, "title": "Harbour notes", "colour": "teal",
            "notes": [{"keys": ["tide"], "text": "High tide at six.", "title": "Tide",
                       "pinned": True},
                      {"keys": ["gull", "gulls"], "text": "Gulls steal chips.", "on": False},
                      {"text": "No keys, no title."}]}
    minimal = {mark: 1, "notes": []}
    broken = {mark: 1, "notes": "one, two"}
    paths = []
    for name, doc in (("rich", rich), ("minimal", minimal), ("broken", broken)):
        path = folder / f"{mark}-{name}.json"
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        paths.append(path)
    return paths


def conformance_class(name: str, fid: str, mark: str, body: str = "") -> str:
    return textwrap.dedent(f'''
        class {name}(AdapterConformance):
            format_id = "{fid}"
            samples = [SAMPLES / "{mark}-rich.json", SAMPLES / "{mark}-minimal.json"]
            malformed_samples = [SAMPLES / "{mark}-broken.json"]
    ''') + textwrap.indent(textwrap.dedent(body), "    ")


class Kit:
    """A pytester project with toy distributions installed on a temporary sys.path."""

    def __init__(self, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pytester = pytester
        self.monkeypatch = monkeypatch
        self.site = pytester.path / "site"
        self.site.mkdir()
        self.samples = pytester.path / "samples"
        self.dists: list[str] = []
        monkeypatch.syspath_prepend(str(self.site))

    def toy(self, fid: str, mark: str, bug: str = "", heavy: bool = False,
            entry_point: str | None = None) -> None:
        module = mark
        make_dist(self.site, fid, module, toy_source(fid, mark, bug, heavy),
                  {entry_point or fid: f"{module}:Notes"})
        write_samples(self.samples, mark)
        self.dists.append(fid)

    def run(self, classes: str, *args: str, extra: str = "") -> pytest.RunResult:
        # Only the toys and core: the outcome must not depend on what else is installed.
        self.monkeypatch.setenv("BUNZAI_LOAD_PLUGINS", ",".join(self.dists))
        self.monkeypatch.setenv("PYTHONPATH", str(self.site))  # for the import-light subprocess
        source = CONFORMANCE.format(samples=str(self.samples)) + extra + classes
        self.pytester.makepyfile(test_conformance=source)
        return self.pytester.runpytest("-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                                       "-v", "-rs", *args)


@pytest.fixture
def kit(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Kit]:
    yield Kit(pytester, monkeypatch)
    for name in [m for m in sys.modules if m.startswith("bzk")]:
        del sys.modules[name]


def outcomes_by_check(result: pytest.RunResult, cls: str) -> dict[str, set[str]]:
    """check name -> the set of outcomes its parametrized runs had, for one class."""
    got: dict[str, set[str]] = {}
    pattern = re.compile(rf"::{cls}::(test_\w+)(?:\[[^\]]*\])? (PASSED|FAILED|SKIPPED|XFAIL|"
                         r"ERROR|XPASS)")
    for line in result.outlines:
        m = pattern.search(line)
        if m:
            got.setdefault(m.group(1), set()).add(m.group(2))
    return got


def test_a_conforming_adapter_passes_every_standard_check(kit: Kit) -> None:
    kit.toy("bzk-notes", "bzk_notes")
    kit.toy("bzk-memo", "bzk_memo")
    classes = (conformance_class("TestNotes", "bzk-notes", "bzk_notes")
               + conformance_class("TestMemo", "bzk-memo", "bzk_memo"))
    result = kit.run(classes, "-p", "bunzai.testing.plugin")  # -p: the header is printed
    outcomes = outcomes_by_check(result, "TestNotes")
    assert result.ret == 0, result.stdout.str()[-4000:]
    not_passed = {name: got for name, got in outcomes.items() if got != {"PASSED"}}
    # JSON-only toy: every standard check runs and passes; none was skipped on the way.
    assert not not_passed, not_passed
    assert set(outcomes) == {*STANDARD_CHECKS, "test_standard_checks_are_not_removed"}
    result.stdout.fnmatch_lines(["*bunzai *: * formats installed (bzk-memo, bzk-notes, "
                                 "vaud-json)*"])


def test_planted_bugs_fail_their_checks_with_a_fix(kit: Kit) -> None:
    kit.toy("bzk-low", "bzk_low", bug="low")
    kit.toy("bzk-crash", "bzk_crash", bug="crash")
    kit.toy("bzk-dishonest", "bzk_dishonest", bug="dishonest")
    kit.toy("bzk-lossy", "bzk_lossy", bug="lossy")
    kit.toy("bzk-heavy", "bzk_heavy", heavy=True)
    classes = "".join(conformance_class(f"Test{name.title()}", f"bzk-{name}", f"bzk_{name}")
                      for name in ("low", "crash", "dishonest", "lossy", "heavy"))
    result = kit.run(classes)
    expected = {
        "TestLow": {"test_detect_scores_own_sample", "test_own_sample_routes_here",
                    "test_own_sample_score_is_documented", "test_written_files_route_back"},
        "TestCrash": {"test_wrong_json_types_raise_bunzai_errors_only",
                      "test_malformed_samples_are_refused"},
        "TestDishonest": {"test_loss_report_is_honest_from_vaud_json"},
        "TestLossy": {"test_same_format_round_trip_is_lossless",
                      "test_same_format_round_trip_keeps_the_file",
                      "test_passthrough_is_layout_only"},
        "TestHeavy": {"test_adapter_module_is_import_light"},
    }
    for cls, checks in expected.items():
        outcomes = outcomes_by_check(result, cls)
        failed = {name for name, got in outcomes.items() if "FAILED" in got}
        assert failed == checks, (cls, failed)
    text = result.stdout.str()
    assert text.count("How to fix:") >= sum(map(len, expected.values()))
    assert "KeyError" in text or "TypeError" in text  # the crash is named, not hidden
    assert "entries[0].sticky" in text  # the dishonest writer's unreported field is named
    assert "bunzai.model" in text  # what the heavy module imported


def test_a_greedy_detector_is_caught_stealing(kit: Kit) -> None:
    kit.toy("bzk-greedy", "bzk_greedy", bug="greedy")
    result = kit.run(conformance_class("TestGreedy", "bzk-greedy", "bzk_greedy"),
                     "-k", "foreign")
    failed = [line for line in result.outlines if "FAILED" in line and "foreign" in line]
    # Other kinds' files (vaud-json character, persona, regex, module) would be stolen.
    for kind in ("character", "persona", "regex", "module"):
        assert any(f"vaud-json:{kind}-rich" in line for line in failed), failed
    assert "would steal it whenever the owner is not installed" in result.stdout.str()


def test_a_misnamed_entry_point_is_reported_with_the_fix(kit: Kit) -> None:
    kit.toy("bzk-misnamed", "bzk_misnamed", entry_point="bzk-other-name")
    result = kit.run(conformance_class("TestMisnamed", "bzk-misnamed", "bzk_misnamed"),
                     "-k", "entry_point")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no installed adapter has the format id 'bzk-misnamed'*",
                                 "*How to fix: declare the entry point*"])


def test_guard_catches_silently_replaced_or_removed_checks(kit: Kit) -> None:
    kit.toy("bzk-notes", "bzk_notes")
    bodies = {
        "TestSilent": "def test_own_sample_routes_here(self, bunzai_subject, sample):\n"
                      "    pass\n",
        "TestRemoved": "test_wrong_json_types_raise_bunzai_errors_only = None\n",
        "TestWaived": "@waive('the toy routes through a side door')\n"
                      "def test_own_sample_routes_here(self, bunzai_subject, sample):\n"
                      "    pass\n",
        "TestXfail": "@pytest.mark.xfail(reason='detector fix pending')\n"
                     "def test_own_sample_routes_here(self, bunzai_subject, sample):\n"
                     "    super().test_own_sample_routes_here(bunzai_subject, sample)\n"
                     "    raise AssertionError('still broken')\n",
    }
    bodies["TestOneSampleWaived"] = (
        "sample_waivers = {'test_own_sample_routes_here': {'*minimal*': 'an empty book'}}\n")
    bodies["TestStaleSampleWaiver"] = (
        "sample_waivers = {'test_own_sample_routes_here': {'*gone*': 'no such file'}}\n")
    classes = "".join(conformance_class(name, "bzk-notes", "bzk_notes", body)
                      for name, body in bodies.items())
    result = kit.run(classes, "-k", "standard_checks or own_sample_routes_here or declares")
    guard = "test_standard_checks_are_not_removed"
    assert outcomes_by_check(result, "TestSilent")[guard] == {"FAILED"}
    assert outcomes_by_check(result, "TestRemoved")[guard] == {"FAILED"}
    assert outcomes_by_check(result, "TestWaived")[guard] == {"PASSED"}
    assert outcomes_by_check(result, "TestWaived")["test_own_sample_routes_here"] == {"SKIPPED"}
    assert outcomes_by_check(result, "TestXfail")[guard] == {"PASSED"}
    assert outcomes_by_check(result, "TestXfail")["test_own_sample_routes_here"] == {"XFAIL"}
    one = [line for line in result.outlines if "TestOneSampleWaived::test_own_sample_routes"
           in line]
    assert sorted(line.split()[1] for line in one) == ["PASSED", "SKIPPED"], one
    assert outcomes_by_check(result, "TestStaleSampleWaiver")[
        "test_declares_format_and_samples"] == {"FAILED"}
    text = result.stdout.str()
    assert "waived for bzk_notes-minimal.json: an empty book" in text
    assert "matches no sample" in text
    assert "test_own_sample_routes_here is overridden without @waive(reason)" in text
    assert "test_wrong_json_types_raise_bunzai_errors_only was removed" in text
    assert "waived: the toy routes through a side door" in text


def test_the_guard_itself_cannot_be_overridden() -> None:
    with pytest.raises(TypeError, match="overrides the conformance guard"):
        type("TestSneaky", (AdapterConformance,),
             {"test_standard_checks_are_not_removed": lambda self: None})


def test_waive_needs_a_reason() -> None:
    with pytest.raises(ValueError):
        waive("  ")


def test_without_the_plugin_the_failure_says_how_to_enable_it(kit: Kit) -> None:
    kit.toy("bzk-notes", "bzk_notes")
    classes = conformance_class("TestNotes", "bzk-notes", "bzk_notes")
    kit.pytester.makepyfile(test_conformance=CONFORMANCE.format(
        samples=str(kit.samples)).replace('pytest_plugins = ["bunzai.testing.plugin"]', "")
        + classes)
    kit.monkeypatch.setenv("BUNZAI_LOAD_PLUGINS", "bzk-notes")
    result = kit.pytester.runpytest("-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                                    "-k", "entry_point")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*plugin is not enabled*",
                                 "How to fix: add `pytest_plugins = *bunzai.testing.plugin*"])
    assert "During handling" not in result.stdout.str()


def test_an_absent_adapter_fails_or_skips_with_the_reason(kit: Kit) -> None:
    kit.toy("bzk-notes", "bzk_notes")
    classes = (conformance_class("TestAbsent", "bzk-absent", "bzk_notes")
               + conformance_class("TestPending", "bzk-pending", "bzk_notes",
                                   "skip_if_not_installed = True\n"))
    result = kit.run(classes, "-k", "entry_point")
    result.assert_outcomes(errors=1, skipped=1)
    result.stdout.fnmatch_lines(["*bzk-pending is not installed yet*"])


def test_plugin_fixtures_serve_isolated_registries_inputs_and_examples(kit: Kit) -> None:
    kit.toy("bzk-notes", "bzk_notes")
    extra = textwrap.dedent('''
        def test_fixtures(bunzai_registry, bunzai_isolated_registry, bunzai_input,
                          bunzai_examples):
            from bzk_notes import Notes
            assert "bzk-notes" in bunzai_registry.adapters
            reg = bunzai_isolated_registry(Notes)
            assert sorted(reg.adapters) == ["bzk-notes", "vaud-json"]
            inp = bunzai_input(b'{"bzk_notes": 1, "notes": []}', "x.json")
            assert reg.detect(inp).winner.format == "bzk-notes"
            assert bunzai_examples("lorebook")[0].entries
    ''')
    result = kit.run("", extra=extra)
    result.assert_outcomes(passed=1)


# -- the generated examples the honesty and firewall checks rely on ------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_rich_examples_set_every_canonical_field(kind: str) -> None:
    """A field added to the model later must be added to the examples, or honesty goes unchecked.
    """
    from bunzai.model import MODELS, LorebookEntry

    entities = canonical_examples(kind, "rich")
    blank = MODELS[kind]()
    unset = [f for f in type(blank).model_fields if f not in ("kind", "schema_version")
             and all(getattr(e, f) == getattr(blank, f) for e in entities)]
    assert not unset, f"rich {kind} example leaves {unset} at their defaults"
    books = [e for e in entities if kind == "lorebook"] + [
        e.lorebook for e in entities if getattr(e, "lorebook", None) is not None
        and not isinstance(e.lorebook, str)]
    for book in books:
        fields = [f for f in LorebookEntry.model_fields
                  if all(getattr(x, f) == getattr(LorebookEntry(), f) for x in book.entries)]
        assert not fields, f"rich lorebook entries leave {fields} at their defaults"


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("kind", KINDS)
def test_examples_survive_vaud_json_and_carry_fixture_passthrough(kind: str,
                                                                  variant: str) -> None:
    from bunzai.io.input import as_input
    from bunzai.testing import load_registry
    from bunzai.testing.generated import vaud_json_bytes

    reg = load_registry(autoload=False)
    data = vaud_json_bytes(kind, variant)
    _, result, _ = reg.read(as_input(data, "x.vaud.json"))
    before = canonical_examples(kind, variant)
    assert [e.model_dump() for e in result.entities] == [e.model_dump() for e in before]
    if variant == "rich":
        assert FIXTURE_FORMAT in before[0].passthrough


# -- the routing-table feed used by bunzai's own distributions -----------------------------------


def test_routes_split_own_malformed_and_foreign_files(tmp_path: Path) -> None:
    from bunzai.testing.routes import Routes, load_routes

    a, b, bad, neg = (tmp_path / n for n in ("a.json", "b.png", "bad.risum", "neg.json"))
    routes = Routes(files=[(a, "fmt-a"), (b, "fmt-a"), (bad, "fmt-a"), (neg, None)],
                    unreadable={"bad.risum"})
    assert routes.samples_of("fmt-a") == [a, b]
    assert routes.malformed_of("fmt-a") == [bad]
    assert routes.foreign_to("fmt-a") == {neg: None}
    assert routes.foreign_to("fmt-b") == {a: "fmt-a", b: "fmt-a", bad: "fmt-a", neg: None}
    assert load_routes(tmp_path / "no-such-table.py").files == []


def test_spread_covers_every_file_type_before_repeating_one(tmp_path: Path) -> None:
    from bunzai.testing.routes import spread

    files = []
    for name, size in (("a.json", 30), ("b.json", 10), ("c.json", 20), ("d.png", 50),
                       ("e.webp", 40)):
        (tmp_path / name).write_bytes(b"x" * size)
        files.append(tmp_path / name)
    assert [p.name for p in spread(files, 3)] == ["b.json", "d.png", "e.webp"]
    assert [p.name for p in spread(files, 4)] == ["b.json", "c.json", "d.png", "e.webp"]
    assert len(spread(files, 10)) == 5

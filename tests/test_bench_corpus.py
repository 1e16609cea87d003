"""The benchmark's corpus figure and its Node peer column do what the report says they do.

Figure 8 sorts a folder into classes and compares bunzai with its floor and with Character
Foundry through a Node worker.  If a file landed in the wrong class, if a ratio were taken over
the wrong files, or if a missing ``node`` crashed the run instead of being noted, the figures
the performance targets are judged by would be wrong without anyone noticing.  The Node side is
exercised with a stand-in package of the same shape (no network); nothing here asserts a time.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import stat
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bunzai.host.registry import Registry

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _load(name: str, file: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # the bench modules import each other by name
    spec = importlib.util.spec_from_file_location(name, BENCH / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


run = _load("bunzai_bench_run", "run.py")
corpus, peers, timing, fx = run.corpus, run.peers, run.timing, run.fixtures
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH")


def _tiny(subjects: Any) -> dict[str, Any]:
    """One short batch of each subject: enough to exercise the plumbing, not to measure."""
    result: dict[str, Any] = timing.time_set(subjects, repeats=1, batch_seconds=0.001)
    return result


def _need(registry: Registry, *formats: str) -> None:
    missing = [f for f in formats if f not in registry.adapters]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")


def make_corpus(root: Path) -> dict[str, str | None]:
    """A folder with one file of every class, one unknown file and a hidden one."""
    img = fx.image_png(1, 24, 24, idat_size=400)
    v2 = fx.card_v2(2, size=3_000, entries=2)
    files: dict[str, tuple[bytes, str | None]] = {
        "png/v1.png": (fx.png_card(img, fx.card_v1(3), ccv3=False), "PNG V1"),
        "png/v2.png": (fx.png_card(img, v2, ccv3=False), "PNG V2"),
        "png/both.png": (fx.png_card(img, fx.card_v2(4, size=3_000, entries=1)), "PNG V3"),
        "json/v1.json": (fx.json_bytes(fx.card_v1(5)), "JSON V1"),
        "json/v2.json": (fx.json_bytes(v2, indent=4), "JSON V2"),
        "json/v3.json": (fx.json_bytes(fx.card_v3(v2)), "JSON V3"),
        "card.charx": (fx.charx(6, asset_sizes=(1_500, 1_200), card_size=2_000), "CharX"),
        "world-small.json": (fx.json_bytes(fx.world_book(7, entries=2), indent=4),
                             "World Info"),
        "world-large.json": (fx.json_bytes(fx.world_book(8, entries=9)), "World Info"),
        "notes.txt": (b"not a card at all\n", None),
    }
    for name, (data, _) in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / ".cache").mkdir()
    (root / ".cache" / "ignored.json").write_bytes(fx.json_bytes(v2))
    return {name: cls for name, (_, cls) in files.items()}


def test_every_file_lands_in_its_class(registry: Registry, tmp_path: Path) -> None:
    _need(registry, "sillytavern", "sillytavern-lorebook", "risu-charx")
    expected = make_corpus(tmp_path)
    samples = corpus.collect(tmp_path, registry)
    assert {s.name: s.cls for s in samples} == expected  # the hidden folder is not walked
    by_name = {s.name: s for s in samples}
    assert "not recognised" in by_name["notes.txt"].why
    # the write is timed exactly where there is an image to splice the card into
    assert {s.name for s in samples if s.writes} == {
        "png/v1.png", "png/v2.png", "png/both.png", "card.charx"}
    # the floors return what they stand for: the card JSON as stored
    assert by_name["json/v2.json"].read_floor() == json.loads((tmp_path / "json/v2.json")
                                                              .read_bytes())
    chunks = by_name["png/both.png"].read_floor()
    assert set(chunks) == {b"chara", b"ccv3"}


def test_max_per_class_keeps_the_first_files_and_says_why(registry: Registry,
                                                          tmp_path: Path) -> None:
    _need(registry, "sillytavern-lorebook")
    make_corpus(tmp_path)
    samples = corpus.collect(tmp_path, registry, per_class=1)
    books = [s for s in samples if s.name.startswith("world")]
    assert [s.cls for s in books] == ["World Info", None]
    assert "max-per-class" in books[1].why


def _result(cls: str, read: dict[str, float], write: dict[str, float] | None = None,
            size: int = 100, name: str = "f") -> Any:
    sample = corpus.Sample(Path(name), name, size, b"", cls=cls, format="x", container="json")
    return corpus.Result(sample, read=read, write=write or {})


def test_targets_are_medians_of_per_file_ratios() -> None:
    results = [
        # auto/cf 0.5, 3.0, 0.9 -> median 0.9: overall passes although the mean would not
        _result("JSON V2", {"auto": 1.0, "given": 1.0, "floor": 0.1, "cf": 2.0}),
        _result("JSON V2", {"auto": 3.0, "given": 2.0, "floor": 0.1, "cf": 1.0}),
        _result("PNG V2", {"auto": 9.0, "given": 5.0, "floor": 1.0, "cf": 10.0},
                {"bunzai": 4.0, "floor": 1.0, "cf": 2.0}),
        # the peer refused this file: it counts nowhere the peer is compared
        _result("World Info", {"auto": 8.0, "given": 7.0, "floor": 1.0}, size=500,
                name="big.json"),
        _result("World Info", {"auto": 3.0, "given": 3.0, "floor": 2.0}, size=50),
    ]
    groups = corpus.groups(results)
    assert [g.name for g in groups] == ["PNG V2", "JSON V2", "World Info", "all"]
    rows = {r.case: r for r in run._corpus_rows(groups, results, "")}
    overall = rows["read auto-detected vs Character Foundry, all 5 files"]
    assert overall.ratio == pytest.approx(0.9) and overall.result == "PASS"
    assert "2 of 5 files without a ratio" in overall.note
    json_v2 = rows["read auto-detected vs Character Foundry, JSON V2 (2)"]
    assert json_v2.ratio == pytest.approx(1.75) and json_v2.result == "FAIL"  # > 1.5x
    assert rows["read auto-detected vs Character Foundry, World Info (2)"].result == "n/a"
    write = rows["write SillyTavern PNG vs CF exportCard, 1 files"]
    assert write.ratio == pytest.approx(2.0) and write.result == "FAIL"
    # detection: JSON takes the cards and the World Info; PNG the PNG classes
    assert rows["read auto-detected vs format given, JSON (4 files)"].ratio == pytest.approx(
        (1.0 + 8 / 7) / 2)
    assert rows["read auto-detected vs format given, PNG (1 files)"].ratio == pytest.approx(1.8)
    big = next(r for c, r in rows.items() if c.startswith("largest World Info"))
    assert big.ratio == pytest.approx(8.0) and big.result == "FAIL"  # the 500-byte one
    assert big.note.startswith("big.json")


def test_without_the_peer_its_rows_say_why_and_the_rest_still_count() -> None:
    results = [_result("JSON V1", {"auto": 1.1, "given": 1.0, "floor": 0.5})]
    rows = run._corpus_rows(corpus.groups(results), results, "Character Foundry skipped: x")
    peer_rows = [r for r in rows if "Character Foundry" in r.case or "CF" in r.case]
    assert peer_rows and all(r.result == "n/a" and "skipped" in r.note for r in peer_rows)
    detect = next(r for r in rows if r.case.startswith("read auto-detected vs format given, J"))
    assert detect.result == "PASS"


def test_a_run_without_node_notes_it_and_finishes(registry: Registry, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _need(registry, "sillytavern", "sillytavern-lorebook")
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "card.png").write_bytes(
        fx.png_card(fx.image_png(1, 16, 16), fx.card_v2(1, size=2_000, entries=1)))
    (folder / "world.json").write_bytes(fx.json_bytes(fx.world_book(2, entries=2)))
    out = tmp_path / "report.json"
    code = run.main(["--only", "8", "--quick", "--corpus", str(folder), "--json", str(out),
                     "--node", str(tmp_path / "no-such-node")])
    assert code == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert "skipped" in report["corpus"]["peer"]
    assert [f["class"] for f in report["corpus"]["files"]] == ["PNG V3", "World Info"]
    rows = {r["case"]: r for r in report["rows"]}
    assert rows["read auto-detected vs Character Foundry, all 2 files"]["result"] == "n/a"
    assert rows["read auto-detected vs format given, PNG (1 files)"]["ratio"] > 0
    printed = capsys.readouterr().out
    assert "PNG V3" in printed and "World Info" in printed and "node does not run" in printed
    # a saved report prints the same class table again
    run.main(["--show", str(out)])
    assert "World Info" in capsys.readouterr().out


# -- the Node side, with a stand-in for the package ------------------------------------------

FAKE_INDEX = """
const text = (d) => Buffer.from(d).toString("utf8");
const PNG = [0x89, 0x50, 0x4e, 0x47];
export function parseCard(data) {
  if (PNG.every((b, i) => data[i] === b)) {
    return { card: { data: { name: "as the stand-in saw it" } }, containerFormat: "png",
             spec: "v3", assets: [{ type: "icon", isMain: true, data }] };
  }
  const card = JSON.parse(text(data));
  if (!card.spec) throw new Error("JSON does not appear to be a valid character card");
  const body = card.data ?? card;
  return { card: { data: { name: body.name } }, containerFormat: "json", spec: "v2",
           assets: [] };
}
export function exportCard(card, assets, options) {
  if (!assets.length) throw new Error("PNG export requires at least one icon asset");
  return { buffer: assets[0].data, format: options.format };
}
"""
FAKE_LOADER = """
export function parse(data) {
  const book = JSON.parse(Buffer.from(data).toString("utf8"));
  return { type: "lorebook", lorebookFormat: "sillytavern",
           book: { name: null, entries: Object.values(book.entries) } };
}
"""


def _fake_package(root: Path) -> None:
    pkg = root / "node_modules" / "@character-foundry" / "character-foundry"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text(json.dumps({
        "name": "@character-foundry/character-foundry", "version": "0.0.0-stand-in",
        "type": "module", "exports": {".": "./index.js", "./loader": "./loader.js"}}))
    (pkg / "index.js").write_text(FAKE_INDEX)
    (pkg / "loader.js").write_text(FAKE_LOADER)


def _fake_npm(tmp_path: Path, *, fail: bool = False) -> Path:
    """An ``npm`` that logs each call and "installs" the stand-in into its working folder."""
    template = tmp_path / "template"
    if not template.exists():
        _fake_package(template)
    log = tmp_path / "npm.log"
    script = tmp_path / "npm"
    body = (f'echo "$@" >> "{log}"\n'
            + ('echo "npm error 404 Not Found - GET https://registry.example" >&2\nexit 1\n'
               if fail else f'cp -R "{template}/node_modules" .\n'))
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@needs_node
def test_setup_installs_once_from_the_lock_file_and_reuses_it(tmp_path: Path) -> None:
    npm = _fake_npm(tmp_path)
    first = peers.setup(tmp_path / "cache", npm=str(npm))
    assert first.versions == {"@character-foundry/character-foundry": "0.0.0-stand-in"}
    assert (first.home / "worker.mjs").read_bytes() == (BENCH / "node" / "worker.mjs").read_bytes()
    assert (first.home / "package-lock.json").read_bytes() == (
        BENCH / "node" / "package-lock.json").read_bytes()
    second = peers.setup(tmp_path / "cache", npm=str(npm))
    assert second.home == first.home
    calls = (tmp_path / "npm.log").read_text().splitlines()
    assert len(calls) == 1 and calls[0].startswith("ci ")  # npm ci, once


@needs_node
def test_a_failed_install_is_a_one_line_reason(tmp_path: Path) -> None:
    with pytest.raises(peers.Unavailable, match=r"npm ci failed \(exit 1\): npm error 404"):
        peers.setup(tmp_path / "cache", npm=str(_fake_npm(tmp_path, fail=True)))
    assert not list((tmp_path / "cache" / "node").glob("*/.complete"))


def test_missing_node_is_unavailable_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(peers.Unavailable, match="node does not run"):
        peers.setup(tmp_path, node=str(tmp_path / "no-such-node"))


@needs_node
def test_worker_times_the_peer_and_survives_its_errors(registry: Registry,
                                                      tmp_path: Path) -> None:
    _need(registry, "sillytavern", "sillytavern-lorebook")
    node = peers.setup(tmp_path / "cache", npm=str(_fake_npm(tmp_path)))
    make_corpus(tmp_path / "corpus")
    samples = {s.name: s for s in corpus.collect(tmp_path / "corpus", registry)}
    with node.worker() as worker:
        assert worker.versions["@character-foundry/character-foundry"] == "0.0.0-stand-in"
        png = corpus.measure(samples["png/v2.png"], registry, worker, _tiny)
        assert set(png.read) == {"auto", "given", "floor", "cf"}
        assert set(png.write) == {"bunzai", "floor", "cf"}
        assert all(v > 0 for v in (*png.read.values(), *png.write.values()))
        assert any("names differ" in n for n in png.notes)  # the stand-in misreads the name
        card = corpus.measure(samples["json/v3.json"], registry, worker, _tiny)
        assert "cf" in card.read and not card.write and not card.notes
        book = corpus.measure(samples["world-small.json"], registry, worker, _tiny)
        assert book.peer == {"type": "lorebook", "format": "sillytavern", "name": None,
                             "entries": 2}
        with pytest.raises(peers.WorkerError, match="no such file"):
            worker.open(tmp_path / "missing.png", "read")
        # the library's refusal of one file is a note on that file, and the worker goes on
        refused = corpus.measure(samples["json/v1.json"], registry, worker, _tiny)
        assert set(refused.read) == {"auto", "given", "floor"}
        assert refused.notes == ["Character Foundry read: JSON does not appear to be a valid "
                                 "character card"]
        assert worker.alive
        again = corpus.measure(samples["json/v2.json"], registry, worker, _tiny)
        assert "cf" in again.read
    assert not worker.alive


@needs_node
def test_cold_script_imports_the_package_and_prints_the_name(tmp_path: Path) -> None:
    node = peers.setup(tmp_path / "cache", npm=str(_fake_npm(tmp_path)))
    card = tmp_path / "card.json"
    card.write_bytes(fx.json_bytes(fx.card_v2(3, size=1_500, entries=0)))
    got = timing.spawn(node.cold_argv(card), stdout=str(tmp_path / "out.txt"))
    assert got.status == 0
    assert (tmp_path / "out.txt").read_text().strip() == fx.card_v2(3, size=1_500,
                                                                    entries=0)["name"]


@needs_node
def test_a_worker_that_cannot_load_the_package_says_why(tmp_path: Path) -> None:
    node = peers.setup(tmp_path / "cache", npm=str(_fake_npm(tmp_path)))
    index = node.home / "node_modules" / "@character-foundry" / "character-foundry" / "index.js"
    index.write_text("export function parseCard() {}\nexport function exportCard() {}\n"
                     'throw new Error("half-installed package");\n')
    with pytest.raises(peers.WorkerError, match="half-installed package"):
        node.worker()

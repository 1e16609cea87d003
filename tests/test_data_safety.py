"""Data safety: the source is never touched, an output is complete or absent, nothing is
overwritten unasked, and output names are valid and distinct on Windows, macOS and Linux.

The interrupted-write tests run the real CLI in a subprocess whose file writes are slowed down,
and kill it with SIGKILL half way through; the full-disk tests make the write (or the flush,
or the rename) fail with the error a full or read-only disk gives.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import bunzai
from bunzai.cli import app
from bunzai.engine import batch
from bunzai.engine.batch import plan
from bunzai.errors import ConversionRefused, OutputError
from bunzai.host.registry import Registry, set_registry
from bunzai.io import outputs
from bunzai.io.outputs import OutputFile, output_names, safe_name, write_atomic
from bunzai.model import Character
from bunzai.testing import corpus_files, corpus_rows, samples_dir

from .hostile.cases import card_v2, png_card

ROOT = Path(__file__).resolve().parents[1]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _cli(registry: Registry, *args: str | Path) -> Any:
    set_registry(registry)
    try:
        return CliRunner().invoke(app, [str(a) for a in args])
    finally:
        set_registry(None)


def _card_json(name: str = "Tidewatcher", **data: Any) -> bytes:
    return json.dumps(card_v2(name=name, **data)).encode()


def _leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


# -- the source is never touched -------------------------------------------------------------------


def _one_file_per_class() -> list[Any]:
    smallest: dict[str, Path] = {}
    for _, row in corpus_rows():
        p = corpus_files(row["class"])
        if p:
            smallest.setdefault(row["class"], min(p, key=lambda q: q.stat().st_size))
    cases = [pytest.param(p, id=f"corpus-{cls}") for cls, p in sorted(smallest.items())]
    root = samples_dir()
    if root.is_dir():
        cases += [pytest.param(p, id=f"sample-{p.name}") for p in sorted(root.rglob("*"))
                  if p.is_file()]
    return cases


@pytest.mark.parametrize("source", _one_file_per_class())
def test_convert_never_touches_the_source(registry: Registry, tmp_path: Path,
                                          source: Path) -> None:
    """A writable copy (so a bug could change it), converted with the default output path."""
    src = tmp_path / source.name
    shutil.copyfile(source, src)
    src.chmod(0o644)
    before, mtime = _sha(src), src.stat().st_mtime_ns
    res = _cli(registry, "convert", src, "--to", "vaud-json")
    assert res.exit_code in (0, 3, 4, 5), res.output
    assert _sha(src) == before and src.stat().st_mtime_ns == mtime
    made = _leftovers(tmp_path, {src.name})
    assert len(made) == (1 if res.exit_code == 0 else 0), made
    assert not [m for m in made if m.endswith(".tmp")]


def test_an_output_path_equal_to_the_source_is_refused_even_with_force(
        registry: Registry, tmp_path: Path) -> None:
    src = tmp_path / "card.json"
    src.write_bytes(_card_json())
    before = _sha(src)
    res = _cli(registry, "convert", src, "--to", "json", "-o", src, "--force")
    assert res.exit_code == 5 and "replace the source" in res.stderr
    assert _sha(src) == before


def test_a_batch_never_writes_over_one_of_its_sources(registry: Registry,
                                                      tmp_path: Path) -> None:
    """``a.json`` -> ``a.png`` must not replace the source ``a.png`` in the same batch."""
    (tmp_path / "a.json").write_bytes(_card_json("From JSON"))
    (tmp_path / "a.png").write_bytes(png_card())
    hashes = {p.name: _sha(p) for p in tmp_path.iterdir()}
    res = _cli(registry, "convert", tmp_path, "--to", "png", "-d", tmp_path, "--force")
    assert res.exit_code == 0, res.output
    assert {p: _sha(tmp_path / p) for p in hashes} == hashes
    # a.json's own name is the source a.png: named after the target, as for a single file
    assert sorted(p.name for p in tmp_path.glob("a[.-]*.png")) == ["a-2.png",
                                                                   "a.sillytavern.png"]


def test_plan_keeps_outputs_off_every_source(tmp_path: Path) -> None:
    sources = [tmp_path / "a.json", tmp_path / "a.png", tmp_path / "A-2.PNG"]
    outs = plan(sources, tmp_path, ".png")
    keys = {str(p).casefold() for p in sources}
    assert not [o for o in outs if str(o).casefold() in keys]
    assert len({str(o).casefold() for o in outs}) == len(outs)


def test_batch_paths_resolve_as_the_file_system_does(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch resolves each folder once and each file by one lstat; it must still agree
    with a full realpath, links included, or a source reached through a link could be
    overwritten by an output planned over it."""
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (real / "card.png").write_bytes(b"x")
    (tmp_path / "linked").symlink_to(real, target_is_directory=True)
    (tmp_path / "alias.png").symlink_to(real / "card.png")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    monkeypatch.chdir(tmp_path)
    paths = [tmp_path / "linked" / "card.png", tmp_path / "alias.png", Path("alias.png"),
             Path("linked/sub/../card.png"), Path("linked/sub/.."), Path("."), Path("missing.png"),
             tmp_path / "linked" / "new.png", Path("loop"), Path("real/sub")]
    resolve = batch.RealPaths()
    for p in paths:
        assert resolve(p) == os.path.realpath(p), p
    # a source named through a linked folder is the file an output planned in the real folder
    # would replace: the plan moves the output aside
    assert plan([tmp_path / "linked" / "card.png"], real, ".png") == [real / "card-2.png"]


# -- atomic writes ---------------------------------------------------------------------------------


@pytest.fixture(params=["unnamed", "named"])
def temp_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways to an atomic write: Linux's unnamed file, and the hidden temporary file used
    where there is none (forced here by hiding ``O_TMPFILE``)."""
    if request.param == "named":
        monkeypatch.setattr(outputs, "_unnamed_file", lambda folder: None)
    elif outputs._unnamed_file(Path(".")) is None:
        pytest.skip("no O_TMPFILE on this system")
    return str(request.param)


def test_output_goes_through_a_flushed_temp_file_in_the_target_folder(
        registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        temp_kind: str) -> None:
    src = tmp_path / "card.json"
    src.write_bytes(_card_json())
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "card.vaud.json"
    events: list[tuple[str, str]] = []
    real_fsync, real_link = os.fsync, os.link

    def fsync(fd: int) -> None:
        events.append(("fsync", ""))
        real_fsync(fd)

    def link(a: str, b: str, **kw: Any) -> None:
        assert not (out_dir / Path(b).name).exists(), "the output must not exist before the end"
        events.append(("link", str(a)))
        real_link(a, b, **kw)

    monkeypatch.setattr(outputs.os, "fsync", fsync)
    monkeypatch.setattr(outputs.os, "link", link)
    res = _cli(registry, "convert", src, "--to", "vaud-json", "-o", target)
    assert res.exit_code == 0, res.output
    assert [e[0] for e in events] == ["fsync", "link"]
    if temp_kind == "unnamed":  # the complete file is linked straight to its name
        assert events[1][1].startswith("/proc/self/fd/")
    else:
        tmp = Path(events[1][1])
        assert tmp.parent == out_dir and tmp.name.startswith(".card.vaud.json.")
        assert tmp.name.endswith(".tmp") and not tmp.exists()
    assert _leftovers(out_dir, set()) == ["card.vaud.json"]
    assert json.loads(target.read_bytes())["name"] == "Tidewatcher"


_SLOW_WRITER = r"""
import os, sys, time
import bunzai.io.outputs as outputs

real_write = os.write
written = [0]

def slow_write(fd, data):
    n = real_write(fd, memoryview(data)[:65536])
    written[0] += 1
    if written[0] == 4:
        print("HALFWAY", flush=True)
    time.sleep(0.02)
    return n

outputs.os.write = slow_write
if os.environ.get("BUNZAI_TEST_NAMED_TEMP"):
    outputs._unnamed_file = lambda folder: None
from bunzai.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("existing", [False, True], ids=["new-output", "old-output-kept"])
@pytest.mark.parametrize("named", [False, True], ids=["unnamed-temp", "named-temp"])
def test_kill_9_during_a_large_write_leaves_no_partial_output(tmp_path: Path, existing: bool,
                                                              named: bool) -> None:
    src = tmp_path / "big.json"
    src.write_bytes(_card_json(description="The tide tables, again. " * 200_000))  # ~5 MB
    target = tmp_path / "out" / "big.vaud.json"
    target.parent.mkdir()
    old = b'{"an": "older output that must survive"}'
    if existing:
        target.write_bytes(old)
    args = ["convert", str(src), "--to", "vaud-json", "-o", str(target)]
    if existing:
        args.append("--force")
    env = {**os.environ, "BUNZAI_TEST_NAMED_TEMP": "1" if named else ""}
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "HALFWAY", (line, proc.stderr.read() if proc.stderr else "")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    if existing:
        assert target.read_bytes() == old
    else:
        assert not target.exists()
    stray = _leftovers(target.parent, {target.name})
    if named or outputs._unnamed_file(tmp_path) is None:
        # Where there is no unnamed file, the killed process leaves its hidden temporary file.
        assert all(s.startswith(".big.vaud.json.") and s.endswith(".tmp") for s in stray), stray
    else:
        assert stray == []
    assert len(json.loads(src.read_bytes())["data"]["description"]) > 4_000_000


def _break_disk(monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    if stage == "write":
        real_write = os.write

        def write(fd: int, data: Any) -> int:
            real_write(fd, bytes(data)[:1000])  # some bytes reach the disk before it fills up
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        monkeypatch.setattr(outputs.os, "write", write)
    elif stage == "fsync":
        def fsync(fd: int) -> None:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        monkeypatch.setattr(outputs.os, "fsync", fsync)
    elif stage == "rename":
        def fail(*a: Any, **k: Any) -> None:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        monkeypatch.setattr(outputs.os, "replace", fail)
        monkeypatch.setattr(outputs.os, "link", fail)
    else:  # no file at all can be created in the folder
        real_open = os.open

        def open_(path: Any, flags: int, *a: Any, **k: Any) -> int:
            if flags & (os.O_CREAT | getattr(os, "O_TMPFILE", 0)):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
            return real_open(path, flags, *a, **k)
        monkeypatch.setattr(outputs.os, "open", open_)


@pytest.mark.parametrize("existing", [False, True], ids=["new-output", "old-output-kept"])
@pytest.mark.parametrize("stage", ["write", "fsync", "rename", "create"])
def test_a_full_or_failing_disk_is_one_clean_error(registry: Registry, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch, stage: str,
                                                   existing: bool, temp_kind: str) -> None:
    src = tmp_path / "card.json"
    src.write_bytes(_card_json(description="x" * 50_000))
    target = tmp_path / "card.vaud.json"
    if existing:
        target.write_bytes(b"old output")
    _break_disk(monkeypatch, stage)
    args: list[str | Path] = ["convert", src, "--to", "vaud-json", "-o", target]
    res = _cli(registry, *args, *(["--force"] if existing else []))
    assert isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == OutputError.exit_code == 5
    err = res.stderr.strip()
    assert err.count("\n") == 0 and "Traceback" not in err and "internal error" not in err
    assert str(target) in err and "cannot write the output" in err
    reason = {"write": "No space left", "fsync": "Input/output error",
              "rename": "Read-only file system", "create": "Permission denied"}[stage]
    assert reason in err
    assert ("existing file is unchanged" if existing else "nothing was written") in err
    if existing:
        assert target.read_bytes() == b"old output"
    else:
        assert not target.exists()
    assert _leftovers(tmp_path, {"card.json", "card.vaud.json"}) == []


def test_a_full_disk_in_a_batch_fails_that_file_only(registry: Registry, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for n in ("a", "b"):
        (tmp_path / f"{n}.json").write_bytes(_card_json(n))
    _break_disk(monkeypatch, "write")
    res = _cli(registry, "convert", tmp_path, "--to", "vaud-json", "-d", tmp_path / "out",
               "--json")
    assert res.exit_code == 5, res.output
    records = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["status"] for r in records] == ["failed", "failed"]
    assert all("No space left" in r["error"] for r in records)
    assert list((tmp_path / "out").iterdir()) == []


def test_an_unwritable_output_folder_is_a_clean_error(registry: Registry, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(_card_json())
    blocker = tmp_path / "file"
    blocker.write_bytes(b"a file where the output folder should go")
    res = _cli(registry, "convert", tmp_path / "a.json", tmp_path / "a.json", "--to",
               "vaud-json", "-d", blocker / "sub")
    assert res.exit_code == 5 and "cannot create the output folder" in res.stderr
    assert res.stderr.strip().count("\n") == 0


# -- never overwrite without --force ---------------------------------------------------------------


def test_an_existing_output_is_kept_without_force(registry: Registry, tmp_path: Path) -> None:
    src = tmp_path / "card.json"
    src.write_bytes(_card_json())
    target = tmp_path / "card.png"
    target.write_bytes(b"precious")
    res = _cli(registry, "convert", src, "--to", "png", "-o", target)
    assert res.exit_code == 5 and "--force" in res.stderr
    assert target.read_bytes() == b"precious"
    res = _cli(registry, "convert", src, "--to", "png", "-o", target, "--force")
    assert res.exit_code == 0 and target.read_bytes().startswith(b"\x89PNG")


def test_a_batch_skips_existing_outputs_without_force(registry: Registry,
                                                      tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_bytes(_card_json())
    out = tmp_path / "out"
    out.mkdir()
    earlier = bunzai.write(Character(name="Earlier"), "vaud-json", registry=registry).data
    (out / "a.vaud.json").write_bytes(earlier)
    res = _cli(registry, "convert", tmp_path / "in", "--to", "vaud-json", "-d", out, "--json")
    assert json.loads(res.stdout.splitlines()[0])["status"] == "skipped"
    assert (out / "a.vaud.json").read_bytes() == earlier


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["keep", "force"])
def test_a_file_bunzai_does_not_read_is_never_replaced(registry: Registry, tmp_path: Path,
                                                       force: list[str]) -> None:
    """--force replaces only an earlier output of the same target; a file in the way that is
    not one stays, and the output is named after its target beside it."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_bytes(_card_json())
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.vaud.json").write_bytes(b"precious")
    res = _cli(registry, "convert", tmp_path / "in", "--to", "vaud-json", "-d", out, "--json",
               *force)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout.splitlines()[0])["output"] == str(
        out / "a.vaud-json.vaud.json")
    assert (out / "a.vaud.json").read_bytes() == b"precious"


def test_an_output_that_appears_during_the_write_is_not_replaced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, temp_kind: str) -> None:
    target = tmp_path / "card.png"
    real_fsync = os.fsync

    def racing_fsync(fd: int) -> None:  # someone else writes the file while we flush ours
        real_fsync(fd)
        target.write_bytes(b"written by someone else meanwhile")

    monkeypatch.setattr(outputs.os, "fsync", racing_fsync)
    with pytest.raises(ConversionRefused, match="pass force=True to overwrite"):
        write_atomic(target, b"ours")
    assert target.read_bytes() == b"written by someone else meanwhile"
    assert _leftovers(tmp_path, {"card.png"}) == []


# -- names -----------------------------------------------------------------------------------------

_RESERVED = {"con", "prn", "aux", "nul", "conin$", "conout$",
             *(f"{d}{i}" for d in ("com", "lpt") for i in "123456789¹²³")}


def _portable_problem(name: str) -> str | None:
    """Why ``name`` is not a safe file name on Windows, macOS and Linux, or None."""
    if not name or name in (".", ".."):
        return "empty"
    if any(c in '<>:"/\\|?*' or ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in name):
        return "forbidden character"
    if any(0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069 for c in name):
        return "bidirectional override"
    if name[-1] in ". ":
        return "ends in a dot or space"
    if name.split(".")[0].rstrip(" ").casefold() in _RESERVED:
        return "Windows device name"
    if unicodedata.normalize("NFC", name) != name:
        return "not NFC"
    if len(name.encode("utf-8")) > 255 or len(name.encode("utf-16-le")) // 2 > 255:
        return "too long"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in name):
        return "lone surrogate"
    return None


HOSTILE_NAMES = [
    "CON", "con.png", "Aux", "nul.tar.gz", "COM1", "lpt9.json", "COM¹", "CONIN$", "NUL ",
    'what?|:*"<>', "a/b\\c", "trailing dots...", "trailing space ", ". . .", "..", ".", "",
    "   ", "\x00\x01\x1f", "caf\u00e9", "cafe\u0301", "🧜‍♀️ Mermaid 🌊", "日本語のキャラクター",
    "한국어 캐릭터", "x" * 300, "é" * 200, "😀" * 100, "." * 119 + "é" * 10,
    "evil\u202egnp.exe", "tab\there", "new\nline", "\u0085next line", "con .png",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=[repr(n)[:30] for n in HOSTILE_NAMES])
def test_safe_name_is_portable(name: str) -> None:
    out = safe_name(name)
    assert _portable_problem(out) is None, (name, out, _portable_problem(out))
    assert _portable_problem(out + ".vaud.json") is None
    assert len(out.encode("utf-8")) <= 121  # 120 plus the "_" a device name gets


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(st.characters(codec="utf-8"), max_size=200))
def test_safe_name_is_portable_for_any_text(name: str) -> None:
    out = safe_name(name)
    assert _portable_problem(out) is None, (name, out)
    assert safe_name(out) == out  # stable: a safe name stays as it is


def test_nfc_and_nfd_spellings_give_the_same_name() -> None:
    assert safe_name("cafe\u0301") == safe_name("caf\u00e9") == "caf\u00e9"


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from([*HOSTILE_NAMES[:-1], "Card", "card", "CARD", "Straße",
                                 "STRASSE", "strasse"]),
                min_size=2, max_size=8))
def test_batch_names_never_collide(names: list[str]) -> None:
    """Distinct sources always get distinct outputs, also on case-insensitive, normalizing file
    systems (Windows, macOS): compared after NFC and case folding."""
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        sources = [folder / f"s{i}" / (n.replace("/", "_").replace("\x00", "_") + ".json")
                   for i, n in enumerate(names)]  # names a POSIX file can have
        outs = plan(sources, folder / "out", ".png")
    keys = [unicodedata.normalize("NFC", o.name).casefold() for o in outs]
    assert len(set(keys)) == len(keys), keys
    for o in outs:
        assert _portable_problem(o.name) is None, o.name


def test_fanned_out_output_names_never_collide() -> None:
    files = [OutputFile(b"", ".json", n) for n in
             ["Ann", "ann", "ANN", "Straße", "strasse", "caf\u00e9", "cafe\u0301", "", "CON",
              "a?b", "a_b", "x" * 300, "x" * 301]]
    names = output_names("backup", files)
    keys = [unicodedata.normalize("NFC", n).casefold() for n in names]
    assert len(set(keys)) == len(keys), names
    for n in names:
        assert _portable_problem(n) is None, n


def test_a_long_source_name_and_long_persona_names_stay_under_255_bytes(tmp_path: Path) -> None:
    """Room is left for the counters a batch may add (``-2``, ``_2``) under the 255-byte limit."""
    stem = safe_name("Überlieferung der Gezeiten " * 10)
    files = [OutputFile(b"", ".json", n) for n in ["海" * 120, "海" * 120, "x" * 300]]
    names = output_names(stem, files)
    assert len({n.casefold() for n in names}) == 3
    for n in names:
        assert len(n.encode("utf-8")) <= 240, (len(n.encode("utf-8")), n)
        assert _portable_problem(n) is None, n
        (tmp_path / n).write_bytes(b"")  # the file system takes it


def test_default_output_names_from_odd_source_names(registry: Registry, tmp_path: Path) -> None:
    """The CLI derives the default output from the source name; a batch renames unsafe ones."""
    src_dir = tmp_path / "in"
    src_dir.mkdir()
    for n in ["CON", "lpt1.card", "emoji 🌊 card", "日本語"]:
        (src_dir / f"{n}.json").write_bytes(_card_json())
    res = _cli(registry, "convert", src_dir, "--to", "vaud-json", "-d", tmp_path / "out")
    assert res.exit_code == 0, res.output
    made = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert len(made) == 4
    assert all(_portable_problem(n) is None for n in made), made


# -- a source fanned out into several files in a batch -------------------------------------------


def _personas(registry: Registry, folder: Path, name: str, people: list[str],
              to: str = "sillytavern-persona") -> list[str]:
    """A persona file (a SillyTavern backup holds them all in one file)."""
    from bunzai.api import write
    from bunzai.model import Persona

    written = write([Persona(name=p, description=f"{p} from {name}") for p in people], to,
                    registry=registry)
    (folder / name).write_bytes(written.files[0].data)
    return people


def _batch_records(res: Any, code: int = 0) -> list[dict[str, Any]]:
    assert res.exit_code == code, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


def _who(registry: Registry, path: str) -> str:
    from bunzai.api import read

    return read(path, registry=registry).name


@pytest.mark.parametrize("force", [False, True], ids=["keep", "force"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_fanned_out_files_never_meet_another_output_or_source(
        registry: Registry, tmp_path: Path, force: bool, jobs: str) -> None:
    """A persona backup fans out into one file per persona next to sources whose own outputs
    (or fanned-out files) have those very names, case aside, and a source that has one: every
    file lands under its own name, and each output holds its own source's persona."""
    folder = tmp_path / "in"
    folder.mkdir()
    people = {
        "bk.json": _personas(registry, folder, "bk.json", ["Ann", "Bob", "Cy", "ann"]),
        "bk-2.json": _personas(registry, folder, "bk-2.json", ["Two"]),
        "bk-Ann.json": _personas(registry, folder, "bk-Ann.json", ["Solo"]),
        "bk-BOB.json": _personas(registry, folder, "bk-BOB.json", ["Upper"]),
        "bk-Cy.png": _personas(registry, folder, "bk-Cy.png", ["Picture"], "risu-persona"),
        "x.json": _personas(registry, folder, "x.json", ["a-b", "c"]),
        "x-a.json": _personas(registry, folder, "x-a.json", ["b", "d"]),
    }
    hashes = {p.name: _sha(p) for p in folder.iterdir()}
    args = ["-j", jobs, "--json"] + (["--force"] if force else [])
    records = _batch_records(_cli(registry, "convert", folder, "--to", "risu-persona", "-d",
                                  folder, *args))
    assert {p: _sha(folder / p) for p in hashes} == hashes
    assert [r["status"] for r in records] == ["converted"] * len(people), records
    made = [o for r in records for o in r["outputs"]]
    keys = [unicodedata.normalize("NFC", Path(o).name).casefold() for o in made]
    assert len(set(keys)) == len(keys) == sum(map(len, people.values())), made
    assert not set(keys) & {n.casefold() for n in hashes}
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*hashes, *(Path(o).name for o in made)])
    for r in records:
        src = Path(r["path"])
        assert [_who(registry, o) for o in r["outputs"]] == people[src.name], r
        assert r["output"] == r["outputs"][0]
        if len(r["outputs"]) > 1:  # STEM-<name>, or named after the target when that is taken
            assert all(Path(o).name.startswith((f"{src.stem}-", f"{src.stem}.risu-persona-"))
                       for o in r["outputs"]), r
    # Names nothing else in the batch wants stay as a single conversion gives them.
    fanned = {Path(r["path"]).name: [Path(o).name for o in r["outputs"]] for r in records}
    assert fanned["x-a.json"] == output_names("x-a", [OutputFile(b"", ".png", n)
                                                      for n in people["x-a.json"]])
    assert output_names("bk", [OutputFile(b"", ".png", "Cy")])[0] not in fanned["bk.json"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_fanned_out_file_replaces_only_what_was_there_before_and_only_with_force(
        registry: Registry, tmp_path: Path, jobs: str) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    _personas(registry, folder, "bk.json", ["Ann", "Bob"])
    _personas(registry, folder, "bk-Ann.json", ["Solo"])
    out = tmp_path / "out"
    out.mkdir()
    # bk.json's names are taken (bk-Ann is planned for bk-Ann.json): they are named after
    # the target, and Bob's holds an earlier output of it
    bob = out / output_names("bk.risu-persona",
                             [OutputFile(b"", ".png", n) for n in ["Ann", "Bob"]])[1]
    _personas(registry, out, bob.name, ["Earlier"], "risu-persona")
    before = bob.read_bytes()

    records = _batch_records(_cli(registry, "convert", folder, "--to", "risu-persona", "-d",
                                  out, "-j", jobs, "--json"), code=5)  # a refused output
    status = {Path(r["path"]).name: r for r in records}
    assert status["bk.json"]["status"] == "skipped" and bob.name in status["bk.json"]["reason"]
    assert status["bk-Ann.json"]["status"] == "converted"
    assert bob.read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [bob.name, Path(status["bk-Ann.json"]["output"]).name])  # no half of bk.json

    records = _batch_records(_cli(registry, "convert", folder, "--to", "risu-persona", "-d",
                                  out, "-j", jobs, "--json", "--force"))
    outputs = {Path(r["path"]).name: r["outputs"] for r in records}
    assert str(bob) in outputs["bk.json"]
    assert [_who(registry, o) for o in outputs["bk.json"]] == ["Ann", "Bob"]
    assert [_who(registry, o) for o in outputs["bk-Ann.json"]] == ["Solo"]
    made = [o for r in records for o in r["outputs"]]
    assert len({o.casefold() for o in made}) == len(made) == 3

"""The CLI as people use it (issue 17), through the installed ``bunzai`` script on real files:
many files at once, quiet scripts, pipes, typos, forced formats, differences, missing plugins."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bunzai.testing import corpus_files, require_corpus

from .hostile.cases import card_v2, png_card
from .plugin_env import PluginEnv, plugin_env

require_corpus()

BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
CORPUS = Path(corpus_files("st-regex")[0]).parent.parent
PNG = next(p for p in corpus_files("png-chara-v2") if "default_Seraphina" in p.name)
WORLD = next(p for p in corpus_files("st-worldbook") if "Eldoria" in p.name)
CHARX = corpus_files("charx")[0]
REGEX = corpus_files("st-regex")
NEGATIVE = next(p for p in corpus_files("negative") if p.suffix == ".json")


def bunzai(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


# -- 1. every reading command takes files, folders and globs ---------------------------------------


def test_validate_takes_a_glob_and_a_folder_and_ends_with_a_summary(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copyfile(WORLD, folder / "world.json")
    shutil.copyfile(NEGATIVE, folder / "not-a-card.json")
    res = bunzai("validate", str(CORPUS / "st-regex" / "*.json"), folder)
    n = len(REGEX) + 2
    assert res.returncode == 3, res.stderr  # the worst file: unrecognized
    assert sum(1 for line in res.stdout.splitlines() if ": valid - " in line) == n - 1
    assert res.stdout.splitlines()[-1].startswith(f"{n} file(s): ")
    assert "1 unreadable" in res.stdout.splitlines()[-1]
    assert res.stderr.count("\n") == 1 and "not-a-card.json: unrecognized" in res.stderr
    res = bunzai("validate", str(CORPUS / "st-regex" / "*.json"), "--json")
    records = lines(res.stdout)
    assert res.returncode == 0 and len(records) == len(REGEX)
    assert all(r["valid"] is True and r["format"] == "sillytavern-regex" for r in records)


@pytest.mark.parametrize("command", ["inspect", "label"])
def test_inspect_and_label_read_many_files_and_go_on_past_bad_ones(command: str) -> None:
    res = bunzai(command, PNG, NEGATIVE, WORLD)
    assert res.returncode == 3
    assert str(PNG) in res.stdout and str(WORLD) in res.stdout
    assert str(NEGATIVE) in res.stderr and "Traceback" not in res.stderr
    res = bunzai(command, PNG, NEGATIVE, WORLD, "--json")
    records = lines(res.stdout)
    assert [r["path"] for r in records] == [str(PNG), str(NEGATIVE), str(WORLD)]
    assert records[1]["exit_code"] == 3 and "error" in records[1]
    assert "error" not in records[0] and "error" not in records[2]


def test_diff_compares_two_folders_file_by_file(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    shutil.copyfile(PNG, old / "seraphina.png")
    shutil.copyfile(WORLD, old / "eldoria.json")
    assert bunzai("convert", old / "seraphina.png", "--to", "charx",
                  "-o", new / "seraphina.charx").returncode == 0
    res = bunzai("diff", old, new, "--json")
    records = {Path(str(r["path"])).name: r for r in lines(res.stdout)}
    assert res.returncode == 1
    assert records["eldoria.json"]["only_in"] == "a"
    assert records["seraphina.png"]["other"] == str(new / "seraphina.charx")


# -- 2-4. batch convert says what happened ---------------------------------------------------------


def test_a_batch_names_every_skip_and_failure_and_sums_up_each_loss(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    shutil.copyfile(PNG, src / "sera.png")
    shutil.copyfile(NEGATIVE, src / "junk.json")
    out = tmp_path / "out"
    res = bunzai("convert", src, "--to", "backyard", "-d", out)
    assert res.returncode == 3  # the junk file
    converted = [line for line in res.stdout.splitlines() if line.startswith("converted ")]
    assert len(converted) == 1 and " dropped" in converted[0]  # one grouped loss line
    assert f"{src / 'junk.json'}: unrecognized" in res.stderr
    res = bunzai("convert", src, "--to", "backyard", "-d", out)
    assert res.returncode == 5  # a refused output, as with -o
    assert f"{src / 'sera.png'}: skipped: {out / 'sera.png'} exists (use --force" in res.stderr
    assert "0 converted, 1 skipped, 1 failed" in res.stdout
    one = bunzai("convert", src / "sera.png", "--to", "backyard", "-o", out / "sera.png")
    assert one.returncode == 5
    res = bunzai("-v", "convert", src / "sera.png", "--to", "backyard", "-d", tmp_path / "v")
    assert res.returncode == 0
    full = bunzai("convert", src / "sera.png", "--to", "backyard", "-o", tmp_path / "j.png",
                  "--json")
    every = json.loads(full.stdout)["loss"]
    assert len(every) > 5  # a real card loses its creator, notes, version, world link ...
    listed = [line.split(":")[0].split(maxsplit=1) for line in res.stdout.splitlines()
              if line.startswith("    ")]
    assert listed == [[e["action"], e["path"]] for e in every]  # -v lists each entry, in order


def test_to_json_in_a_batch_picks_each_kinds_json_format(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    shutil.copyfile(PNG, src / "card.png")
    shutil.copyfile(WORLD, src / "book.json")
    res = bunzai("convert", src, "--to", "json", "-d", tmp_path / "out", "--json")
    assert res.returncode == 0, res.stderr
    got = {Path(str(r["path"])).name: r for r in lines(res.stdout)}
    assert got["card.png"]["to"] == "sillytavern"
    assert got["book.json"]["to"] == "sillytavern-lorebook"
    card_out = Path(str(got["card.png"]["output"]))
    assert card_out.name == "card.json"  # the written file's suffix, not the format's default
    assert json.loads(card_out.read_text())["data"]["name"] == "Seraphina"


def _formats(folder: Path) -> dict[str, object]:
    """What each file in ``folder`` reads as."""
    res = bunzai("inspect", folder, "--json")
    return {Path(str(r["path"])).name: r.get("format") for r in lines(res.stdout)}


def test_a_second_target_in_the_same_folder_keeps_both_outputs(tmp_path: Path) -> None:
    """Pygmalion and Agnai both write ``.json``, RisuAI and RoleCall ``.png``: a second --to
    into the same --out-dir writes its own files, named after the target (``STEM.TARGET``, as
    for a single file), and the first target's files stay as they were, even with --force."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "pier.png").write_bytes(png_card(json.dumps(card_v2(name="Pier")).encode()))
    (src / "slate.json").write_text(json.dumps(card_v2(name="Slate")))
    out = tmp_path / "out"
    assert bunzai("convert", src, "--to", "pygmalion", "-d", out).returncode == 0
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    res = bunzai("convert", src, "--to", "agnai", "-d", out, "--json")
    assert res.returncode == 0, res.stderr
    assert sorted(Path(str(r["output"])).name for r in lines(res.stdout)) == [
        "pier.agnai.json", "slate.agnai.json"]
    assert {p: (out / p).read_bytes() for p in first} == first
    assert _formats(out) == {"pier.json": "pygmalion", "slate.json": "pygmalion",
                             "pier.agnai.json": "agnai", "slate.agnai.json": "agnai"}
    res = bunzai("convert", src, "--to", "agnai", "-d", out)  # the same target again
    assert res.returncode == 5 and "0 converted, 2 skipped" in res.stdout
    assert f"skipped: {out / 'pier.agnai.json'} exists (use --force" in res.stderr

    pngs = tmp_path / "pngs"
    assert bunzai("convert", src / "pier.png", "--to", "risu", "-d", pngs).returncode == 0
    risu = (pngs / "pier.png").read_bytes()
    res = bunzai("convert", src / "pier.png", "--to", "rolecall", "-d", pngs, "--force")
    assert res.returncode == 0 and f"-> {pngs / 'pier.rolecall.png'} " in res.stdout
    assert (pngs / "pier.png").read_bytes() == risu
    assert _formats(pngs) == {"pier.png": "risu", "pier.rolecall.png": "rolecall"}


# -- 5-6. quiet scripts and pipes ------------------------------------------------------------------


@pytest.mark.parametrize("args", [["inspect", PNG], ["label", PNG], ["validate", WORLD],
                                  ["diff", PNG, PNG], ["formats"]])
def test_quiet_prints_nothing_but_errors(args: list[object]) -> None:
    res = bunzai("-q", *args)
    assert res.returncode == 0 and res.stdout == "" and res.stderr == ""


def test_quiet_still_prints_errors_and_json(tmp_path: Path) -> None:
    res = bunzai("-q", "convert", PNG, "--to", "charx", "-o", tmp_path / "c.charx")
    assert res.returncode == 0 and res.stdout == "" and (tmp_path / "c.charx").exists()
    res = bunzai("-q", "convert", PNG, "--to", "charx", "-o", tmp_path / "c.charx")
    assert res.returncode == 5 and res.stdout == "" and "--force" in res.stderr
    res = bunzai("-q", "inspect", PNG, "--json")
    assert json.loads(res.stdout)["format"] == "sillytavern"


@pytest.mark.parametrize("args", [["inspect", CORPUS, "--json"], ["label", *REGEX], ["--help"]],
                         ids=["inspect-corpus", "label", "help"])
def test_a_closed_pipe_ends_quietly_with_the_usual_status(args: list[object]) -> None:
    """``bunzai ... | head -2``: the output (over 64 KiB for the corpus, more than a pipe holds)
    goes nowhere once the reader has gone; the status and stderr are those of a normal run."""
    usual = bunzai(*args)
    for _ in range(3):
        proc = subprocess.Popen([BUNZAI, *map(str, args)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.readline()
        proc.stdout.close()  # what `| head -2` does
        err = proc.stderr.read()
        assert proc.wait(timeout=300) == usual.returncode
        assert err == usual.stderr and "BrokenPipe" not in err


# -- 7. typos --------------------------------------------------------------------------------------


def test_a_mistyped_option_name_or_value_is_a_usage_error(tmp_path: Path) -> None:
    res = bunzai("convert", PNG, "--to", "json", "-o", tmp_path / "x.json", "-O", "indnt=2")
    assert res.returncode == 2 and res.stdout == ""
    assert "no writer option 'indnt'; did you mean 'indent'?" in res.stderr
    assert "container, chunks, spec, indent" in res.stderr
    res = bunzai("convert", REGEX[0], "--to", "sillytavern-regex", "-o", tmp_path / "r.json",
                 "-O", "split=maybe")
    assert res.returncode == 2 and "takes true or false, not 'maybe'" in res.stderr
    assert not list(tmp_path.iterdir())
    res = bunzai("convert", PNG, "--to", "json", "-O", "indent=2", "-o", tmp_path / "ok.json")
    assert res.returncode == 0 and (tmp_path / "ok.json").read_text().startswith('{\n  "')


# -- 9. arguments before detection, forced formats -------------------------------------------------


def test_an_unknown_from_is_refused_before_detection() -> None:
    res = bunzai("inspect", PNG, "--from", "nosuch")
    assert res.returncode == 2 and res.stdout == "" and "unknown format 'nosuch'" in res.stderr


def test_a_forced_format_is_said_to_be_forced() -> None:
    res = bunzai("inspect", PNG, "--from", "risu")
    assert res.returncode == 0
    assert "read as risu: forced with --from (detection found sillytavern 0.90)" in res.stdout
    doc = json.loads(bunzai("inspect", PNG, "--from", "risu", "--json").stdout)
    assert (doc["format"], doc["forced"], doc["detected"]) == ("risu", True, "sillytavern")


# -- 10. help --------------------------------------------------------------------------------------


def test_help_lists_plugin_commands_and_readable_metavars() -> None:
    res = bunzai("--help")
    assert res.returncode == 0 and "studio" in res.stdout and "[bunzai-studio]" in res.stdout
    res = bunzai("validate", "--help")
    assert "Usage: bunzai validate [OPTIONS] FILE…" in res.stdout
    assert "--from FORMAT" in res.stdout and "<" not in res.stdout


# -- 11. differences with their values -------------------------------------------------------------


def test_diff_shows_old_and_new_values(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    assert bunzai("convert", PNG, "--to", "json", "-o", a).returncode == 0
    doc = json.loads(a.read_text())
    doc["data"]["creator_notes"] = "Rewritten notes."
    doc["data"]["description"] = doc["data"]["description"].replace("forest", "woods", 1)
    b = tmp_path / "b.json"
    b.write_text(json.dumps(doc))
    res = bunzai("diff", a, b)
    assert res.returncode == 1
    assert '-> "Rewritten notes."' in res.stdout
    assert '"…' in res.stdout and "woods" in res.stdout  # a long text cut around the change
    res = bunzai("-v", "diff", a, b)
    assert any(line.strip().startswith("+") and "woods" in line
               for line in res.stdout.splitlines())
    change = {c["path"]: c for c in json.loads(bunzai("-v", "diff", a, b, "--json").stdout)
              ["changes"]}
    assert change["creator_notes"]["b"] == "Rewritten notes."
    assert any("woods" in line for line in change["description"]["unified"])


# -- 8. a missing plugin is not a dead end ---------------------------------------------------------


@pytest.fixture(scope="module")
def tavern_only() -> PluginEnv:
    env = plugin_env()
    if "bunzai-formats-risu" in env.run("python", "-m", "pip", "list").stdout:
        pytest.skip("the plugin test environment has the RisuAI formats")
    return env


def test_without_the_risu_formats_bunzai_says_which_distribution_reads_a_charx(
        tavern_only: PluginEnv, tmp_path: Path) -> None:
    both_ways = ("bunzai-formats-risu: pip install bunzai-formats-risu (from a package index) "
                 "or pip install ./bunzai-formats-risu (from a bunzai checkout)")
    res = tavern_only.run("bunzai", "inspect", CHARX)
    assert res.returncode == 3
    assert f"this looks like a RisuAI CharX, read by {both_ways}" in res.stderr
    res = tavern_only.run("bunzai", "convert", PNG, "--to", "risu-charx", "-o", tmp_path / "x")
    assert res.returncode == 2
    assert f"risu-charx comes with {both_ways}" in res.stderr
    res = tavern_only.run("bunzai", "studio")
    assert res.returncode == 2
    assert "it comes with bunzai-studio: pip install bunzai-studio (from a package index) or " \
           "pip install ./bunzai-studio (from a bunzai checkout)" in res.stdout + res.stderr


def test_an_unknown_name_in_load_plugins_is_warned_about(tavern_only: PluginEnv) -> None:
    env = tavern_only.env()
    env["BUNZAI_LOAD_PLUGINS"] = "tavern"
    res = subprocess.run([str(tavern_only.bin / "bunzai"), "formats"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0
    assert "BUNZAI_LOAD_PLUGINS names 'tavern', which is no installed plugin distribution; " \
           "did you mean 'bunzai-formats-tavern'?" in res.stderr

"""The CLI behaves like the tools people already use: everyday options anywhere, typo'd format
names answered, a verification that says what it did, extract over many files, merge reports
grouped, labels that never credit another app with bunzai's own output, chats summarised in
words; and the Python API speaking Python."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bunzai.testing import corpus_files, require_corpus

require_corpus()

BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
PNG = next(p for p in corpus_files("png-chara-v2") if "default_Seraphina" in p.name)
SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cards" / "bunzai-sample.png"


def bunzai(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def every_command() -> list[list[str]]:
    """Every command and subcommand path, the plugins' included."""
    import typer.main

    from bunzai.cli import app
    from bunzai.cli.group import CORE

    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    found: list[list[str]] = []

    def walk(command: Any, path: list[str]) -> None:
        subs = getattr(command, "commands", None)
        if isinstance(subs, dict) and subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
        else:
            found.append(path)

    for name in root.list_commands(ctx):
        walk(root.get_command(ctx, name), [name])
    assert {p[0] for p in found} >= set(CORE)
    return found


# -- -q and -v after the command -----------------------------------------------------------------


def test_every_command_takes_quiet_and_verbose_after_its_name() -> None:
    from bunzai.cli import invoke

    for path in every_command():
        res = invoke(*path, "--help")
        assert res.exit_code == 0, path
        assert "-q, --quiet" in res.stdout and "-v, --verbose" in res.stdout, path


def test_quiet_and_verbose_work_after_the_command(tmp_path: Path) -> None:
    res = bunzai("convert", PNG, "--to", "charx", "-o", tmp_path / "c.charx", "-q")
    assert res.returncode == 0 and res.stdout == "" and (tmp_path / "c.charx").exists()
    res = bunzai("inspect", PNG, "-q")
    assert res.returncode == 0 and res.stdout == ""
    grouped = bunzai("convert", PNG, "--to", "pygmalion", "-o", tmp_path / "p.json")
    every = bunzai("convert", PNG, "--to", "pygmalion", "-o", tmp_path / "q.json", "-v")
    assert grouped.returncode == every.returncode == 0
    assert len(every.stdout.splitlines()) > len(grouped.stdout.splitlines())


# -- format names get "did you mean" --------------------------------------------------------------


def test_a_typo_in_a_format_name_gets_did_you_mean_and_its_kind_listed_first(
        tmp_path: Path) -> None:
    res = bunzai("convert", PNG, "--to", "sillytavrn", "-o", tmp_path / "x.png")
    assert res.returncode == 2 and not list(tmp_path.iterdir())
    assert "unknown format 'sillytavrn'; did you mean 'sillytavern'?" in res.stderr
    listed = res.stderr.split("(installed character formats: ", 1)[1]
    same, other = listed.split("; other formats: ")
    assert "risu-charx" in same and "sillytavern-lorebook" not in same
    assert "sillytavern-lorebook" in other
    res = bunzai("lorebook", "extract", PNG, "--to", "sillytavern-lorebok",
                 "-o", tmp_path / "b.json")
    assert res.returncode == 2 and "did you mean 'sillytavern-lorebook'?" in res.stderr
    assert "(installed lorebook formats: " in res.stderr
    res = bunzai("inspect", PNG, "--from", "risu-charxx")
    assert res.returncode == 2 and "did you mean 'risu-charx'?" in res.stderr


# -- a chat's speakers in words -------------------------------------------------------------------


def test_an_oobabooga_chat_counts_its_speakers_by_role(tmp_path: Path) -> None:
    """oobabooga's history names nobody: its speakers are the user and the character."""
    chat = corpus_files("st-chat")[0]
    ooba = tmp_path / "history.json"
    assert bunzai("convert", chat, "--to", "oobabooga-chat", "-o", ooba).returncode == 0
    res = bunzai("inspect", ooba)
    assert res.returncode == 0
    line = next(x.strip() for x in res.stdout.splitlines() if "speakers:" in x)
    counts = dict(part.split(": ") for part in line.removeprefix("speakers: ").split(", "))
    assert set(counts) == {"user", "character"}, line
    total = next(x for x in res.stdout.splitlines() if "messages:" in x)
    assert sum(map(int, counts.values())) == int(total.split(": ")[1])


# -- the Python API speaks Python ----------------------------------------------------------------


def test_reading_a_missing_file_raises_file_not_found(tmp_path: Path) -> None:
    import bunzai

    with pytest.raises(FileNotFoundError) as caught:
        bunzai.read(tmp_path / "missing.png")
    assert isinstance(caught.value, bunzai.BunzaiError)
    assert not isinstance(caught.value, bunzai.MalformedInput)
    assert caught.value.filename == str(tmp_path / "missing.png")
    res = bunzai_in_process("inspect", tmp_path / "missing.png")
    assert res.exit_code == 4 and "missing.png: no such file" in res.stderr


def bunzai_in_process(*args: object) -> Any:
    from bunzai.cli import invoke
    return invoke(*map(str, args))


def test_errors_say_what_to_do_in_the_words_of_whoever_called(tmp_path: Path) -> None:
    """The same refusals from Python and from the command line: each names its own way out."""
    import bunzai

    out = tmp_path / "card.charx"
    bunzai.convert(SAMPLE, to="charx").save(out)
    with pytest.raises(bunzai.ConversionRefused) as caught:
        bunzai.convert(SAMPLE, to="charx").save(out)
    assert "pass force=True to overwrite" in str(caught.value)
    assert "--force" not in str(caught.value)
    res = bunzai_in_process("convert", SAMPLE, "--to", "charx", "-o", out)
    assert res.exit_code == 5 and "pass --force to overwrite" in res.stderr
    res = bunzai_in_process("convert", SAMPLE, "--to", "charx", "-o", out, "--json")
    assert "pass --force to overwrite" in json.loads(res.stdout)["error"]

    book = tmp_path / "book.json"
    bunzai.extract_lorebook(SAMPLE).save(book)
    found = bunzai.embed_lorebook(SAMPLE, book)
    assert found.error is not None
    assert "replace it (replace=True) or merge the two books (merge=True)" in found.error.message
    res = bunzai_in_process("lorebook", "embed", SAMPLE, book, "-o", tmp_path / "new.png")
    assert res.exit_code == 5
    assert "replace it (--replace) or merge the two books (--merge)" in res.stderr
    with pytest.raises(bunzai.ConversionRefused, match="force=True"):  # not the CLI's words
        bunzai.convert(SAMPLE, to="charx").save(out)


def test_every_setting_a_remedy_may_name_has_command_line_words() -> None:
    from bunzai.cli.output import CLI_WORDS
    from bunzai.errors import API_WORDS, BunzaiError

    assert set(CLI_WORDS) == set(API_WORDS)
    with pytest.raises(ValueError, match="no words"):
        BunzaiError("output exists", remedy="pass {overwrite} to overwrite")


# -- the demo's first warning is a sentence --------------------------------------------------------


def test_the_demos_warning_reads_as_a_sentence(tmp_path: Path) -> None:
    """What ``python3 dev.py demo`` runs: the warning names no JSON path and no jargon."""
    res = bunzai("convert", SAMPLE, "--to", "risu-charx", "-o", tmp_path / "s.charx")
    assert res.returncode == 0
    warning = next(x.strip() for x in res.stdout.splitlines() if "warning:" in x)
    assert warning.startswith("warning: 1 lorebook entry now starts with RisuAI @@ lines"), warning
    assert "$" not in warning and "decorator" not in warning
    assert warning.endswith("other apps show them as part of the text")


# -- merge reports grouped like the loss report ----------------------------------------------------

WORLD = next(p for p in corpus_files("st-worldbook") if "Eldoria" in p.name)
GROUPED = "4 entries of book 2 equal entries of book 1"


def test_merge_groups_its_duplicates_by_book_and_lists_them_with_verbose(tmp_path: Path) -> None:
    """Seraphina's embedded book is SillyTavern's Eldoria world, entry for entry."""
    res = bunzai("lorebook", "merge", WORLD, PNG, "-o", tmp_path / "m.json")
    dups = [x.strip() for x in res.stdout.splitlines() if "duplicate:" in x]
    assert res.returncode == 0 and dups == [f"duplicate: {GROUPED}"]
    res = bunzai("lorebook", "merge", WORLD, PNG, "-o", tmp_path / "v.json", "--verbose")
    dups = [x.strip() for x in res.stdout.splitlines() if "duplicate:" in x]
    assert dups == [f"duplicate: book 2 entry {i} equals book 1 entry {i}" for i in range(1, 5)]
    doc = json.loads(bunzai("lorebook", "merge", WORLD, PNG, "-o", tmp_path / "j.json",
                            "--json").stdout)
    assert len(doc["duplicates"]) == 4
    assert doc["duplicate_groups"] == [{"book": 2, "equals_book": 1, "count": 4,
                                        "line": GROUPED}]
    res = bunzai("lorebook", "embed", PNG, WORLD, "--merge", "-o", tmp_path / "e.png")
    dups = [x.strip() for x in res.stdout.splitlines() if "duplicate:" in x]
    assert res.returncode == 0 and dups == [f"duplicate: {GROUPED}"]


# -- --verify says what it did ------------------------------------------------------------------


def test_verify_says_that_it_ran_in_text_json_and_batches(tmp_path: Path) -> None:
    res = bunzai("convert", PNG, "--to", "charx", "-o", tmp_path / "c.charx", "--verify")
    assert res.returncode == 0
    assert "  verified: the output reads back as the loss report says" in res.stdout
    doc = json.loads(bunzai("convert", PNG, "--to", "charx", "-o", tmp_path / "d.charx",
                            "--verify", "--json").stdout)
    assert doc["verified"]["asked"] is True and doc["verified"]["read_back"] is True
    assert doc["verified"]["found"] == [] and doc["verified"]["problems"] == []
    assert "verified" not in json.loads(bunzai("convert", PNG, "--to", "charx", "-o",
                                               tmp_path / "e.charx", "--json").stdout)
    res = bunzai("convert", PNG, WORLD, "--to", "json", "-d", tmp_path / "out", "--verify")
    assert res.returncode == 0
    assert res.stdout.count("verified: the output reads back as the loss report says") == 2


# -- extract reads many files; lorebook and chat extract share their defaults ----------------------


def test_extract_takes_many_files_one_folder_each(tmp_path: Path) -> None:
    bad = tmp_path / "bad.png"
    bad.write_text("not a card")
    res = bunzai("extract", PNG, SAMPLE, bad, "--assets", tmp_path / "assets")
    assert res.returncode == 3 and "bad.png: unrecognized" in res.stderr
    for card in (PNG, SAMPLE):
        manifest = tmp_path / "assets" / card.stem / "manifest.json"
        assert json.loads(manifest.read_text())[0]["file"] == "main.png"
    lines_ = bunzai("extract", PNG, SAMPLE, "--assets", tmp_path / "j", "--json").stdout
    assert [json.loads(x)["output"] for x in lines_.splitlines()] == [
        str(tmp_path / "j" / PNG.stem), str(tmp_path / "j" / SAMPLE.stem)]


def test_lorebook_and_chat_extract_write_next_to_the_source_unless_told(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    for card in (PNG, SAMPLE):
        shutil.copyfile(card, cards / card.name)
    res = bunzai("lorebook", "extract", cards)
    assert res.returncode == 0, res.stderr
    assert {p.name for p in cards.glob("*.json")} == {f"{PNG.stem}.json", f"{SAMPLE.stem}.json"}
    res = bunzai("lorebook", "extract", PNG, SAMPLE, "--out-dir", tmp_path / "books")
    assert res.returncode == 0 and len(list((tmp_path / "books").iterdir())) == 2
    res = bunzai("lorebook", "extract", PNG, SAMPLE, "-o", tmp_path / "one.json")
    assert res.returncode == 2 and "use --out-dir for several cards" in res.stderr
    byaf = next(iter(corpus_files("byaf")))
    res = bunzai("chat", "extract", byaf, "--out-dir", tmp_path / "chats")
    assert res.returncode == 0, res.stderr
    assert list((tmp_path / "chats").iterdir())
    res = bunzai("chat", "extract", byaf, PNG, "--out-dir", tmp_path / "more")
    assert res.returncode == 2 and "holds no chats" in res.stderr  # the other card still went
    assert list((tmp_path / "more").iterdir())


# -- label never credits another app with bunzai's output ------------------------------------------


def test_label_never_says_another_app_saved_what_bunzai_wrote(tmp_path: Path) -> None:
    """A CharX bunzai made of a SillyTavern card carries SillyTavern's signs: the label says the
    last writer is unknown and shows them, where the card SillyTavern saved names it."""
    st_saved = next(p for p in corpus_files("png-chara-v2") if "Kopkeee" in p.name)
    doc = json.loads(bunzai("label", st_saved, "--json").stdout)
    assert doc["last_writer"]["app"] == "SillyTavern"
    for to, name in (("risu-charx", "c.charx"), ("sillytavern", "s.png")):
        out = tmp_path / name
        assert bunzai("convert", st_saved, "--to", to, "-o", out).returncode == 0
        res = bunzai("label", out)
        assert res.returncode == 0
        assert "last_writer: unknown" in res.stdout and "SillyTavern (0.90)" not in res.stdout
        assert "bunzai may have written it" in res.stdout
        assert "SillyTavern: data.extensions talkativeness + fav + world" in res.stdout
        doc = json.loads(bunzai("label", out, "--json").stdout)
        assert doc["last_writer"]["app"] == "unknown" and doc["last_writer"]["confidence"] == 0
        assert doc["app"] != "SillyTavern"

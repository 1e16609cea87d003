"""docs/troubleshooting.md quotes what bunzai prints: every example on the page is run on small
files of our own, and each line it shows (``…`` standing for any text) and its exit code must
be what the command gives."""

from __future__ import annotations

import base64
import json
import random
import re
import shlex
import shutil
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bunzai.cli import invoke
from bunzai.host.adapter import FormatAdapter
from bunzai.host.registry import Registry
from bunzai.io.input import AdapterInput
from bunzai.io.limits import get_limits, set_limits

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "troubleshooting.md"
EXAMPLE = re.compile(r"^```\n\$ (bunzai [^\n]+)\n(.*?)^\[exit (\d)\]\n```$", re.M | re.S)


def _examples() -> list[Any]:
    return [pytest.param(cmd, out.splitlines(), int(code), id=cmd)
            for cmd, out, code in EXAMPLE.findall(PAGE.read_text(encoding="utf-8"))]


def _png_card(name: str, picture: bytes) -> bytes:
    """A SillyTavern PNG card of our own: its card chunk, then ``picture`` as image data."""
    from bunzai.sdk.png import PNG_SIGNATURE, make_chunk, make_text_chunk

    card = {"spec": "chara_card_v2", "spec_version": "2.0",
            "data": {"name": name, "description": "A lamplighter who keeps the harbour lit. "
                     * 20, "first_mes": "Hello."}}
    return b"".join([
        PNG_SIGNATURE,
        make_chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 48, 8, 2, 0, 0, 0)),
        make_text_chunk("chara", base64.b64encode(json.dumps(card).encode())),
        make_chunk(b"IDAT", picture), make_chunk(b"IEND", b"")])


def _files(here: Path) -> None:
    """The files the page's examples name, made in ``here`` (the current folder)."""
    shutil.copyfile(ROOT / "examples" / "cards" / "bunzai-sample.png", here / "card.png")
    (here / "card.charx").write_bytes(b"an earlier output")
    (here / "cards").mkdir()
    shutil.copyfile(here / "card.png", here / "cards" / "card.png")
    (here / "notes.txt").write_text("Things to pack for the trip.\n", encoding="utf-8")
    (here / "empty.json").write_bytes(b"")
    (here / "twin.json").write_text('{"name": "Mira"}', encoding="utf-8")
    (here / "cut.json").write_text('{"spec": "chara_card_v2", "data": {"name": "Mira"',
                                   encoding="utf-8")
    whole = _png_card("Mira", zlib.compress(b"\x00" * (48 * 3 + 1) * 48))
    chunk = whole.index(b"chara")
    (here / "cut.png").write_bytes(whole[:chunk + 500])
    noise = random.Random(7)  # noise does not compress: the image data is sizeable
    picture = zlib.compress(b"".join(b"\x00" + noise.randbytes(48 * 3) for _ in range(48)))
    damaged = _png_card("Mira", picture)
    (here / "damaged-picture.png").write_bytes(damaged[:len(damaged) - 12 - len(picture) // 2])
    for args in (("convert", "card.png", "--to", "risu-charx", "-o", "story.charx"),
                 ("convert", "cards", "--to", "risu-charx", "-d", "out"),  # an earlier batch
                 ("lorebook", "extract", "card.png", "-o", "book.json")):
        done = invoke(*args)
        assert done.exit_code == 0, done.output
    from bunzai.api import get_registry
    from bunzai.model import Asset, Character

    undecodable = b"RIFF\x20\x00\x00\x00WEBPVP8 " + b"\x00" * 24  # a WebP header over nothing
    mira = Character(name="Mira", description="A lamplighter.", first_mes="Hello.",
                     assets=[Asset(type="icon", name="main", ext="webp",
                                   media_type="image/webp", data=undecodable)])
    out = get_registry().write([mira], "vaud-json")
    (here / "mira.json").write_bytes(out.files[0].data)


def _claims(fid: str) -> FormatAdapter:
    class Claims(FormatAdapter):
        format_id = fid
        kind = "character"

        def detect(self, input: AdapterInput) -> Any:
            return 0.8

    return Claims()


def _without_risu(monkeypatch: pytest.MonkeyPatch) -> Registry:
    """What a user sees without bunzai-formats-risu: its plugin not loaded, and not installed."""
    monkeypatch.setattr("bunzai.host.hints._installed", lambda name: False)
    return Registry.load(allow=["bunzai-formats-tavern"])


def _twins(monkeypatch: pytest.MonkeyPatch) -> Registry:
    """Two formats that claim the same file equally."""
    return Registry.load(autoload=False, defaults=False,
                         extra=[(f, _claims(f)) for f in ("first-json", "second-json")])


REGISTRIES: dict[str, Callable[[pytest.MonkeyPatch], Registry]] = {
    "story.charx": _without_risu, "twin.json": _twins}
"""The examples that need another installation than the test's, by the file they name."""


@pytest.fixture(autouse=True)
def _limits_kept() -> Iterator[None]:
    """``--max-size`` sets the process's limits: in-process runs give them back after."""
    before = get_limits()
    yield
    set_limits(before)


def _shows(output: str, expected: list[str]) -> str | None:
    """The first expected line ``output`` does not show (in order), or None."""
    pos = 0
    for line in expected:
        for part in line.split("…"):
            found = output.find(part, pos)
            if found < 0:
                return line
            pos = found + len(part)
    return None


def test_the_page_has_an_example_of_every_refusal_it_explains() -> None:
    codes = {example.values[2] for example in _examples()}
    assert len(_examples()) >= 12 and codes >= {0, 2, 3, 4, 5}, codes


@pytest.mark.parametrize("command, expected, code", _examples())
def test_each_example_prints_what_the_page_quotes(
        command: str, expected: list[str], code: int, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    args = shlex.split(command)[1:]
    registry = next((make(monkeypatch) for name, make in REGISTRIES.items() if name in args),
                    None)
    result = invoke(*args, registry=registry)
    assert result.exit_code == code, result.output
    missing = _shows(result.output, expected)
    assert missing is None, f"docs/troubleshooting.md quotes {missing!r}; bunzai printed:\n" \
                            f"{result.output}"

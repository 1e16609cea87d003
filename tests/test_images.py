"""Images a card carries are converted, never swapped for a placeholder in silence.

Pillow is a dependency of every distribution that converts images, so a WebP or JPEG avatar
always becomes the PNG a card is written onto; only an image Pillow cannot decode gives way to
a placeholder, and the loss report says it was dropped and why.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from bunzai.model import Asset, Character
from bunzai.testing import load_registry

ROOT = Path(__file__).resolve().parents[1]
MEMBERS = ["bunzai-core", "bunzai-formats-tavern", "bunzai-formats-risu",
           "bunzai-formats-backyard", "bunzai-formats-voxta", "examples/bunzai-formats-novelai"]
_IMPORTS_PIL = re.compile(r"^\s*(from PIL\b|import PIL\b)", re.M)


def _converts_images(member: Path) -> bool:
    """Whether the distribution's shipped code (its tests aside) imports Pillow."""
    return any(_IMPORTS_PIL.search(p.read_text(encoding="utf-8"))
               for p in (member / "src").rglob("*.py") if "tests" not in p.parts)


def _depends_on_pillow(member: Path) -> bool:
    project = tomllib.loads((member / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return "pillow" in [re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower()
                        for d in project.get("dependencies", [])]


def test_a_distribution_that_converts_images_depends_on_pillow() -> None:
    converting = [m for m in MEMBERS if _converts_images(ROOT / m)]
    # both card families convert avatars: the rule below checks something
    assert {"bunzai-formats-tavern", "bunzai-formats-risu"} <= set(converting)
    missing = [m for m in converting if not _depends_on_pillow(ROOT / m)]
    assert not missing, f"these import Pillow without depending on it: {missing}"


_NOT_AN_IMAGE = b"RIFF\x20\x00\x00\x00WEBPVP8 " + b"\x00" * 24
"""A WebP header over nothing: sniffed as WebP, decoded by nobody."""


def _character(avatar: bytes) -> Character:
    return Character(name="Mira", description="A lamplighter.", first_mes="Hello.",
                     assets=[Asset(type="icon", name="main", ext="webp",
                                   media_type="image/webp", data=avatar)])


def _webp() -> bytes:
    from io import BytesIO

    from PIL import Image

    out = BytesIO()
    Image.new("RGB", (3, 2), (200, 40, 40)).save(out, format="WEBP")
    return out.getvalue()


@pytest.mark.parametrize("target", ["sillytavern", "rolecall", "risu"])
def test_a_webp_avatar_becomes_the_png_the_card_is_written_on(target: str) -> None:
    from io import BytesIO

    from PIL import Image

    out = load_registry().write([_character(_webp())], target)
    assert out.files[0].suffix == ".png"
    with Image.open(BytesIO(out.files[0].data)) as im:
        assert im.size == (3, 2)
    assert not [e for e in out.loss if e.action == "dropped" and e.path.startswith("assets")]


@pytest.mark.parametrize("target", ["sillytavern", "rolecall", "risu"])
def test_an_avatar_that_does_not_decode_is_reported_dropped_with_the_reason(target: str
                                                                             ) -> None:
    out = load_registry().write([_character(_NOT_AN_IMAGE)], target)
    dropped = [e for e in out.loss if e.action == "dropped" and e.path.startswith("assets[0]")]
    assert dropped, [str(e) for e in out.loss]
    reason = dropped[0].reason
    assert "decode" in reason and "installed" not in reason, reason


def _card_with_a_cut_picture(idats: int) -> bytes:
    """A SillyTavern PNG card (our own) whose card chunk is whole and whose picture, split in
    ``idats`` image-data chunks, is cut short inside the last of them."""
    import base64
    import json
    import random
    import struct
    import zlib

    from bunzai.sdk.png import PNG_SIGNATURE, make_chunk, make_text_chunk

    width, height = 48, 48
    noise = random.Random(idats)  # noise does not compress: the image data is sizeable
    rows = b"".join(b"\x00" + noise.randbytes(width * 3) for _ in range(height))
    packed = zlib.compress(rows)
    step = -(-len(packed) // idats)
    card = {"spec": "chara_card_v2", "spec_version": "2.0",
            "data": {"name": "Mira", "description": "A lamplighter.", "first_mes": "Hello."}}
    whole = b"".join([
        PNG_SIGNATURE,
        make_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)),
        make_text_chunk("chara", base64.b64encode(json.dumps(card).encode())),
        *(make_chunk(b"IDAT", packed[k:k + step]) for k in range(0, len(packed), step)),
        make_chunk(b"IEND", b"")])
    return whole[:len(whole) - 12 - step // 2]  # half of the last image-data chunk is gone


@pytest.mark.parametrize("idats", [1, 3])
def test_a_card_whose_picture_is_cut_short_says_so_on_read_and_write(idats: int) -> None:
    from bunzai.api import as_input

    reg = load_registry()
    data = _card_with_a_cut_picture(idats)
    _, read, _ = reg.read(as_input(data, "mira.png"), format="sillytavern")
    assert read.entities[0].name == "Mira"  # the card itself is whole
    assert any("picture is damaged" in w.message for w in read.warnings), read.warnings
    for target, app in (("risu-charx", "SillyTavern"), ("backyard-byaf", "Backyard")):
        out = reg.write(read.entities, target)
        said = [e for e in out.loss if e.path == "assets[0]" and "damaged" in e.reason]
        assert said and app in said[0].reason, (target, [str(e) for e in out.loss])


def test_a_whole_picture_is_not_called_damaged() -> None:
    from bunzai.api import as_input
    from bunzai.sdk.png import image_damage

    reg = load_registry()
    out = reg.write([_character(_webp())], "sillytavern")
    assert image_damage(out.files[0].data) is None
    _, read, _ = reg.read(as_input(out.files[0].data, "c.png"), format="sillytavern")
    assert not any("damaged" in w.message for w in read.warnings)
    for target in ("risu-charx", "backyard-byaf"):
        assert not [e for e in reg.write(read.entities, target).loss if "damaged" in e.reason]

"""risu-persona: RisuAI persona PNGs."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest

from bunzai.sdk import AdapterInput, Asset, Persona
from bunzai.sdk.png import PngFile, make_text_chunk, minimal_png, splice
from bunzai.testing import load_registry, samples_dir

SAMPLE = samples_dir() / "risu" / "gen_risu_persona.png"


@pytest.fixture(scope="module")
def reg() -> Any:
    return load_registry()


def _persona_png(obj: object, extra: list[bytes] | None = None) -> bytes:
    chunk = make_text_chunk("persona", base64.b64encode(json.dumps(obj).encode()))
    return splice(PngFile.parse(minimal_png()), insert_before_iend=[*(extra or []), chunk])


@pytest.mark.skipif(not SAMPLE.exists(), reason="samples not available")
def test_sample_round_trips_byte_for_byte(reg: Any) -> None:
    _, result, _ = reg.read(AdapterInput.from_path(SAMPLE))
    (p,) = result.entities
    assert isinstance(p, Persona)
    assert (p.name, p.description, p.note) == ("Sam", "Sam is a sailor.", None)
    assert p.avatar is not None and p.avatar.media_type == "image/png"
    out = reg.write([p], "risu-persona")
    assert not out.loss and out.data == SAMPLE.read_bytes()


def test_extra_keys_and_note_survive(reg: Any) -> None:
    obj = {"name": "Ana", "personaPrompt": "A pilot.", "note": "likes tea", "largePortrait": 1}
    _, result, _ = reg.read(AdapterInput(_persona_png(obj), "p.png"))
    out = reg.write(result.entities, "risu-persona")
    text = PngFile.parse(out.data).find_text("persona")[0].value_bytes()
    assert json.loads(base64.b64decode(text)) == obj


def test_a_character_png_with_a_persona_chunk_is_left_to_the_card_readers(reg: Any
                                                                          ) -> None:
    card = make_text_chunk("chara", base64.b64encode(json.dumps(
        {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "X"}}).encode()))
    data = _persona_png({"name": "A", "personaPrompt": "B"}, [card])
    scores = {c.format: c.score for c in reg.detect(AdapterInput(data, "x.png")).candidates}
    assert scores["risu-persona"] == 0.5


def test_writing_without_avatar_or_from_jpeg(reg: Any) -> None:
    out = reg.write([Persona(name="N", description="D")], "risu-persona")
    assert PngFile.parse(out.data).find_text("persona")
    pil = pytest.importorskip("PIL.Image")
    buf = io.BytesIO()
    pil.new("RGB", (3, 2), (200, 10, 10)).save(buf, "JPEG")
    p = Persona(name="N", description="D", avatar=Asset(type="user_icon", data=buf.getvalue()))
    out = reg.write([p], "risu-persona")
    assert {e.path for e in out.loss} >= {"avatar.data"}
    png = PngFile.parse(out.data)
    assert (png.width, png.height) == (3, 2)


def test_undecodable_persona_chunk_is_a_clear_error(reg: Any) -> None:
    bad = splice(PngFile.parse(minimal_png()),
                 insert_before_iend=[make_text_chunk("persona", "!!!not base64!!!")])
    rep = reg.detect(AdapterInput(bad, "p.png"))
    assert rep.winner is not None and rep.winner.format == "risu-persona"
    from bunzai.sdk import MalformedInput
    with pytest.raises(MalformedInput, match="persona chunk does not decode"):
        reg.read(AdapterInput(bad, "p.png"))

"""sillytavern: Character Card V1/V2/V3 in JSON, PNG/APNG and TavernAI WebP/JPEG."""

from __future__ import annotations

import base64
import dataclasses
import json
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest

from bunzai.sdk import (
    AdapterInput,
    Asset,
    Character,
    ConversionRefused,
    Lorebook,
    LorebookEntry,
    MalformedInput,
    UsageError,
)
from bunzai.sdk.base64 import decode_base64
from bunzai.sdk.cards import COMPLETED_KEYS
from bunzai.sdk.png import PngFile, make_chunk
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    corpus_files,
    diff_paths,
    get_limits,
    hand_laid,
    ids,
    label,
    load_registry,
    samples_dir,
    set_limits,
    uncovered_differences,
    validate,
    without_completed,
)
from bunzai_tavern._common.cards.avatar import default_avatar
from bunzai_tavern.sillytavern.tests.fixtures import (
    card_chunk,
    exif_image,
    image_png,
    png_with,
    sample_card,
)

FID = "sillytavern"
MINE = ("sillytavern", "rolecall", "rolecall-persona", "pygmalion")
JSON_CARDS = corpus_files("ccv1-json", "ccv2-json", "ccv3-json")
PNG_CARDS = corpus_files("png-both", "png-ccv3", "png-chara-v1", "png-chara-v2")
WEBP = [p for p in corpus_files("other") if p.suffix == ".webp"]
NEGATIVE = corpus_files("negative")
NOT_CARDS = corpus_files("st-worldbook", "st-regex", "st-persona", "agnai", "charx", "byaf")


@cache
def reg() -> Registry:
    return load_registry()


def scores(data: bytes | Path, name: str = "x") -> dict[str, float]:
    rep = reg().detect(as_input(data, name) if isinstance(data, bytes) else as_input(data))
    return {c.format: c.score for c in rep.candidates}


def read(data: bytes | Path, name: str = "card.png", fmt: str | None = FID) -> Any:
    src = as_input(data, name) if isinstance(data, bytes) else as_input(data)
    _, res, _ = reg().read(src, format=fmt)
    return res


def write(entity: Any, **options: Any) -> Any:
    return reg().write([entity], FID, options)


def chunks(data: bytes) -> list[tuple[str, str, bytes]]:
    """(type, keyword or '', raw chunk bytes) in file order."""
    png = PngFile.parse(data)
    out = []
    for c in png.chunks:
        kw = ""
        if c.type in ("tEXt", "zTXt", "iTXt"):
            kw = bytes(c.data[:80]).split(b"\x00", 1)[0].decode("latin-1")
        out.append((c.type, kw, bytes(c.raw)))
    return out


def card_json(data: bytes, keyword: str) -> Any:
    payloads = AdapterInput(data, "x.png").png_json(keyword)
    assert payloads, f"no {keyword} chunk"
    return payloads[0].mutable()


def rewritten_faithfully(original: bytes, out: bytes) -> bool:
    """The PNG came back as it was, but for the keys its cards' spec requires that they lacked
    (which a rewrite adds): other chunks byte for byte in their places, the same card chunks,
    each card's JSON otherwise equal; and byte for byte when nothing had to be added."""
    before, after = chunks(original), chunks(out)
    if [(t, k) for t, k, _ in before] != [(t, k) for t, k, _ in after]:
        return False
    if [r for _, k, r in before if k.lower() not in ("chara", "ccv3")] != [
            r for _, k, r in after if k.lower() not in ("chara", "ccv3")]:
        return False
    complete = True
    for kw in {k for _, k, _ in before if k.lower() in ("chara", "ccv3")}:
        was, now = card_json(original, kw), card_json(out, kw)
        if without_completed(was, now, COMPLETED_KEYS) != was:
            return False
        complete = complete and now == was
    return out == original if complete else True


# -- the corpus ----------------------------------------------------------------------------


@pytest.mark.skipif(not JSON_CARDS, reason="corpus not available")
@pytest.mark.parametrize("path", JSON_CARDS, ids=ids(JSON_CARDS))
def test_json_card_round_trip_is_json_equal(path: Path) -> None:
    assert scores(path)[FID] == 0.9
    res = read(path)
    out = write(res.entities[0])
    assert not out.loss, [str(e) for e in out.loss]
    assert out.suffix == ".json"
    was = json.loads(path.read_bytes())
    assert without_completed(was, json.loads(out.data), COMPLETED_KEYS) == was


@pytest.mark.skipif(not PNG_CARDS, reason="corpus not available")
@pytest.mark.parametrize("path", PNG_CARDS, ids=ids(PNG_CARDS))
def test_png_card_round_trip_keeps_every_chunk(path: Path) -> None:
    assert scores(path)[FID] == 0.9
    original = path.read_bytes()
    res = read(path)
    out = write(res.entities[0])
    assert not out.loss, [str(e) for e in out.loss]
    # unchanged card and image: the original file comes back as it was (byte for byte when
    # the cards had every key their spec requires)
    assert rewritten_faithfully(original, out.data)


@pytest.mark.skipif(not PNG_CARDS, reason="corpus not available")
@pytest.mark.parametrize("path", PNG_CARDS, ids=ids(PNG_CARDS))
def test_the_recorded_image_is_the_avatar_kept(path: Path) -> None:
    """What the reader records of the image (to tell "unchanged" on re-write) is what the
    writer computes from the avatar asset the reader kept."""
    from bunzai_tavern._common.cards.container import main_icon
    from bunzai_tavern._common.cards.fingerprint import image_unchanged

    character = read(path).entities[0]
    icon = main_icon(character.assets)
    assert icon is not None
    recorded = character.passthrough[FID]["png"]["image"]
    assert image_unchanged(recorded, character.assets[icon].data)


@pytest.mark.skipif(not WEBP, reason="corpus not available")
@pytest.mark.parametrize("path", WEBP, ids=ids(WEBP))
def test_tavernai_webp_reads_and_unchanged_round_trip_is_the_same_file(path: Path) -> None:
    assert scores(path)[FID] == 0.9
    ch = read(path).entities[0]
    assert ch.name and ch.first_mes
    assert ch.assets[0].media_type == "image/webp"
    out = write(ch)
    assert out.data == path.read_bytes() and out.suffix == ".webp" and not out.loss


@pytest.mark.skipif(not NEGATIVE, reason="corpus not available")
@pytest.mark.parametrize("path", NEGATIVE + NOT_CARDS, ids=ids(NEGATIVE + NOT_CARDS))
def test_not_claimed(path: Path) -> None:
    got = scores(path)
    assert all(got.get(f, 0) == 0 for f in MINE), got


def test_samples_of_other_kinds_are_not_claimed() -> None:
    tavern = samples_dir() / "tavern"
    if not tavern.exists():
        pytest.skip("samples not available")
    for path in sorted(tavern.glob("*.json")):
        got = scores(path)
        assert all(got.get(f, 0) == 0 for f in MINE), (path.name, got)


# -- detection of shapes -------------------------------------------------------------------


@pytest.mark.parametrize(("obj", "expected"), [
    ({"name": "A", "first_mes": "hi"}, 0.9),
    ({"name": "World", "entries": {"0": {"key": ["a"], "content": "x", "uid": 0}}}, 0),
    ({"name": "Book", "description": "d", "entries": []}, 0),
    ({"spec": "lorebook_v3", "data": {"name": "B", "entries": []}}, 0),
    ({"kind": "character", "name": "A", "description": "d", "persona": {}}, 0),
    ({"char_name": "A", "char_persona": "p", "char_greeting": "g"}, 0),
    ({"personas": {"a.png": "A"}, "persona_descriptions": {}}, 0),
    ({"spec": "chara_card_v2", "spec_version": "2.0",
      "data": {"name": "P", "extensions": {"rolecall": {"type": "persona"}}}}, 0),
    ({"character": {"spec": "chara_card_v2", "data": {"name": "A"}}}, 0),
    ({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "A"}}, 0.9),
])
def test_json_detection(obj: Any, expected: float) -> None:
    assert scores(json.dumps(obj).encode(), "x.json").get(FID, 0) == expected


# -- PNG variants --------------------------------------------------------------------------


V2 = sample_card()
V3_REAL = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Wren", "description": "Real V3", "nickname": "W", "group_only_greetings": [],
    "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
    "extensions": {}}}


@pytest.mark.parametrize("kind", ["tEXt", "zTXt", "iTXt"])
def test_every_text_chunk_kind_and_keyword_case(kind: str) -> None:
    data = png_with(before_iend=[card_chunk("Chara", V2, kind), card_chunk("CCV3", V3_REAL, kind)])
    assert scores(data)[FID] == 0.9
    ch = read(data).entities[0]
    assert ch.description == "Real V3"  # ccv3 preferred
    out = write(ch)
    assert rewritten_faithfully(data, out.data)  # kinds, keyword spelling, positions restored


def test_raw_json_in_itxt() -> None:
    data = png_with(before_iend=[card_chunk("chara", V2, "iTXt", raw=True)])
    ch = read(data).entities[0]
    assert ch.name == "Wren"
    assert rewritten_faithfully(data, write(ch).data)


def test_card_chunk_before_idat_stays_there() -> None:
    data = png_with(before_idat=[card_chunk("chara", V2)])
    assert [t for t, _, _ in chunks(data)][:3] == ["IHDR", "tEXt", "IDAT"]
    assert write(read(data).entities[0]).data == data


def test_broken_ccv3_falls_back_to_chara_and_says_so() -> None:
    broken = make_chunk(b"tEXt", b"ccv3\x00" + base64.b64encode(b'{"spec": "chara_card_v3", '))
    data = png_with(before_iend=[card_chunk("chara", V2), broken])
    res = read(data)
    assert res.entities[0].name == "Wren"
    assert any("ccv3" in w.message and "cannot be read" in w.message for w in res.warnings)
    out = write(res.entities[0])
    assert [k for _, k, _ in chunks(out.data) if k] == ["chara"]


def test_disagreeing_chunks_warn_and_the_loser_survives_the_round_trip() -> None:
    data = png_with(before_iend=[card_chunk("chara", V2), card_chunk("ccv3", V3_REAL)])
    res = read(data)
    assert res.entities[0].nickname == "W"
    assert any("disagree" in w.message for w in res.warnings)
    out = write(res.entities[0])
    assert without_completed(V2, card_json(out.data, "chara"), COMPLETED_KEYS) == V2
    assert without_completed(V3_REAL, card_json(out.data, "ccv3"), COMPLETED_KEYS) == V3_REAL


def test_two_different_chara_chunks_first_wins_other_kept() -> None:
    other = sample_card(name="Other")
    data = png_with(before_iend=[card_chunk("chara", V2), card_chunk("chara", other)])
    res = read(data)
    assert res.entities[0].name == "Wren"
    assert any("two different" in w.message for w in res.warnings)
    assert write(res.entities[0]).data == data


def test_edited_card_is_rewritten_chara_then_ccv3_before_the_first_text_chunk() -> None:
    data = png_with(before_idat=[make_chunk(b"tEXt", b"Title\x00x"),
                                 card_chunk("chara", V2)])
    ch = read(data).entities[0]
    ch.first_mes = "Changed."
    out = write(ch)
    types = [(t, k) for t, k, _ in chunks(out.data)]
    # Agnai and TavernAI read the first text chunk: the card, not the picture's title
    assert types[1:4] == [("tEXt", "chara"), ("tEXt", "ccv3"), ("tEXt", "Title")]
    assert card_json(out.data, "chara")["data"]["first_mes"] == "Changed."
    assert card_json(out.data, "chara")["first_mes"] == "Changed."  # root duplicate regenerated
    assert card_json(out.data, "ccv3")["spec"] == "chara_card_v3"
    # every other chunk byte for byte
    kept = [r for _, k, r in chunks(data) if k != "chara"]
    assert [r for _, k, r in chunks(out.data) if k not in ("chara", "ccv3")] == kept


def test_bad_crc_is_read_with_a_warning_and_fixed() -> None:
    good = card_chunk("chara", V2)
    bad = good[:-4] + bytes(4)
    res = read(png_with(before_iend=[bad]))
    assert any("CRC" in w.message for w in res.warnings)
    out = write(res.entities[0])
    assert all(PngFile.parse(out.data).chunks[i].crc_ok()
               for i in range(len(PngFile.parse(out.data).chunks)))


def test_apng_frames_survive_a_rewrite() -> None:
    data = png_with(before_iend=[card_chunk("chara", V2)], apng=True)
    assert as_input(data).container == "apng"
    ch = read(data).entities[0]
    ch.name = "Renamed"
    out = write(ch)
    anim = [r for t, _, r in chunks(data) if t in ("acTL", "fcTL", "fdAT", "IDAT")]
    assert [r for t, _, r in chunks(out.data) if t in ("acTL", "fcTL", "fdAT", "IDAT")] == anim


def test_asset_chunks_become_assets_and_come_back() -> None:
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Mira", "group_only_greetings": [], "extensions": {},
        "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"},
                   {"type": "emotion", "uri": "__asset:1", "name": "happy", "ext": "png"}]}}
    happy = image_png(2, 2, (0, 255, 0))
    spare = b"not referenced"
    data = png_with(before_iend=[
        make_chunk(b"tEXt", b"chara-ext-asset_:1\x00" + base64.b64encode(happy)),
        make_chunk(b"tEXt", b"chara-ext-asset_2\x00" + base64.b64encode(spare)),
        card_chunk("ccv3", card)])
    ch = read(data).entities[0]
    by_name = {a.name: a for a in ch.assets}
    assert by_name["happy"].data == happy and by_name["happy"].media_type == "image/png"
    assert by_name["main"].data is not None and by_name["main"].origin == "png"
    assert by_name["2"].orphan and by_name["2"].data == spare
    assert rewritten_faithfully(data, write(ch).data)


def test_a_named_avatar_keeps_its_name_in_v3_and_a_v2_card_says_it_is_lost() -> None:
    pic = image_png(2, 2, (0, 0, 255))
    ch = Character(name="Mira", first_mes="hi", assets=[Asset(type="icon", name="portrait",
                                                              data=pic)])
    res = reg().write([ch], FID)
    assert not res.loss
    back = read(res.files[0].data).entities[0]
    assert [(a.type, a.name, a.data) for a in back.assets] == [("icon", "portrait", pic)]
    res = reg().write([ch], FID, {"spec": "v2", "chunks": "chara"})
    assert [(e.path, e.action) for e in res.loss.entries] == [("assets[0].name", "dropped")]
    assert read(res.files[0].data).entities[0].assets[0].data == pic  # the picture stays


def _with_big_assets() -> Character:
    blob = bytes(range(256)) * 5000  # 1.28 MB: more than one piece of base64
    return Character(name="Mira", first_mes="hi", assets=[
        Asset(type="icon", name="main", ext="png", data=image_png(3, 3, (9, 9, 9))),
        Asset(type="emotion", name="happy", ext="bin", data=blob),
        Asset(type="emotion", name="sad", ext="bin", data=blob[::-1], uri="__asset:7")])


def test_large_assets_are_written_piece_by_piece_and_reported_as_the_file_reads() -> None:
    ch = _with_big_assets()
    res = write(ch)
    parts = list(res.files[0].parts)
    assert max(len(p) for p in parts) < len(ch.assets[1].data or b"")  # never one base64 copy
    data = res.files[0].data
    assert b"".join(parts) == data
    back = read(data).entities[0]
    assert [a.data for a in back.assets] == [a.data for a in ch.assets]
    assert uncovered_differences(ch, back, res.loss) == []


def test_an_asset_over_the_base64_limit_is_reported_lost_as_reading_the_file_would() -> None:
    ch = _with_big_assets()
    before = get_limits()
    set_limits(dataclasses.replace(before, max_base64=1_000_000))
    try:
        res = write(ch)
    finally:
        set_limits(before)
    assert res.loss.covers("assets[1].data") and res.loss.covers("assets[2].data")
    assert not res.loss.covers("assets[0].data")


def test_unreadable_card_chunk_is_claimed_weakly_and_refused_clearly() -> None:
    data = png_with(before_iend=[make_chunk(b"tEXt", b"chara\x00!!not base64!!")])
    assert scores(data)[FID] == 0.5
    with pytest.raises(MalformedInput, match="chara"):
        read(data)
    rcc = png_with(before_iend=[make_chunk(b"tEXt", b"chara\x00rcc||rccv1||x||y||z")])
    with pytest.raises(MalformedInput, match="password-protected"):
        read(rcc, fmt=FID)


# -- writing from canonical ----------------------------------------------------------------


def test_no_avatar_gets_the_generated_placeholder_and_reads_back_without_one() -> None:
    ch = Character(name="Nobody", first_mes="Hello.")
    out = write(ch)
    assert out.suffix == ".png" and not out.loss
    assert [t for t, _, _ in chunks(out.data)][:2] == ["IHDR", "IDAT"]
    again = read(out.data).entities[0]
    assert again.assets == [] and again.name == "Nobody"
    stripped = [r for t, k, r in chunks(out.data) if k not in ("chara", "ccv3")]
    assert b"".join([default_avatar()[:8], *stripped]) == default_avatar()


def test_jpeg_avatar_is_transcoded_once_and_reported() -> None:
    pil = pytest.importorskip("PIL.Image")
    buf = BytesIO()
    pil.new("RGB", (6, 4), (10, 200, 30)).save(buf, format="JPEG")
    ch = Character(name="J", assets=[Asset(type="icon", name="main", data=buf.getvalue(),
                                           media_type="image/jpeg", ext="jpg")])
    out = write(ch)
    assert out.data.startswith(b"\x89PNG") and out.loss.covers("assets[0]")
    assert [e.action for e in out.loss if e.path == "assets[0]"] == ["approximated"]
    back = read(out.data).entities[0]
    assert back.assets[0].media_type == "image/png"


def test_fresh_write_layout_chara_first_with_root_duplicates() -> None:
    ch = Character(name="Fresh", description="d", nickname="F",
                   lorebook=Lorebook(entries=[LorebookEntry(keys=["k"], content="c",
                                                            insertion_order=1,
                                                            use_regex=False)]))
    out = write(ch)
    assert not out.loss
    png = PngFile.parse(out.data)
    texts = [tc.keyword for tc in png.text_chunks()]
    assert texts == ["chara", "ccv3"]
    chara, ccv3 = card_json(out.data, "chara"), card_json(out.data, "ccv3")
    assert chara["spec"] == "chara_card_v2" and chara["name"] == "Fresh"
    assert "nickname" not in chara["data"] and ccv3["data"]["nickname"] == "F"
    assert "name" not in ccv3  # the ccv3 chunk is real V3: no root duplicates
    assert not read(out.data).warnings  # chara is ccv3's V2 backfill: not a disagreement


def test_chunks_option() -> None:
    ch = Character(name="Opt", nickname="O")
    only_chara = write(ch, chunks="chara")
    assert [tc.keyword for tc in PngFile.parse(only_chara.data).text_chunks()] == ["chara"]
    assert only_chara.loss.covers("nickname")
    only_ccv3 = write(ch, chunks="ccv3")
    assert [tc.keyword for tc in PngFile.parse(only_ccv3.data).text_chunks()] == ["ccv3"]
    assert not only_ccv3.loss
    with pytest.raises(UsageError):
        write(ch, chunks="all")
    with pytest.raises(UsageError):
        write(ch, container="json", chunks="chara")


def test_json_output_spec_and_indent() -> None:
    ch = Character(name="J", description="d", nickname="n")
    v2 = write(ch, container="json", spec="v2")
    assert v2.suffix == ".json" and v2.data.startswith(b'{\n    "spec": "chara_card_v2"')
    assert json.loads(v2.data)["name"] == "J"  # root duplicates for V1-only readers
    assert v2.loss.covers("nickname")
    v3 = write(ch, container="json")
    assert json.loads(v3.data)["data"]["nickname"] == "n" and not v3.loss
    compact = write(ch, container="json", indent=0)
    assert b"\n" not in compact.data


def _hand_laid_card() -> bytes:
    """A complete V3 card as a person or another tool lays it out: two-space indent, tags and
    greetings on one line, a blank line at the end (bunzai's writer does none of these)."""
    ch = Character(name="Wren", description="Keeps the bees.", tags=["bees", "meadow"],
                   alternate_greetings=["Mind the hives.", "Honey?"],
                   lorebook=Lorebook(entries=[LorebookEntry(keys=["hive", "comb"],
                                                            content="Seven hives.")]))
    return hand_laid(json.loads(write(ch, container="json", spec="v3").data))


def test_a_hand_laid_json_card_is_rewritten_byte_for_byte() -> None:
    source = _hand_laid_card()
    assert b'"tags": ["bees", "meadow"]' in source and source.endswith(b"}\n\n")
    ch = read(source, "wren.json").entities[0]
    out = write(ch)
    assert out.data == source and not out.loss


def test_a_changed_hand_laid_card_is_written_in_the_recorded_layout() -> None:
    source = _hand_laid_card()
    ch = read(source, "wren.json").entities[0]
    ch.description = "Keeps the bees, and the bees keep her."
    out = write(ch).data
    value = json.loads(out)
    assert value["data"]["description"] == "Keeps the bees, and the bees keep her."
    # the indent and final newline recorded on read; arrays spread as bunzai writes them
    assert out == json.dumps(value, indent=2, ensure_ascii=False).encode() + b"\n"


def test_an_explicit_indent_is_obeyed_on_an_unchanged_card() -> None:
    source = _hand_laid_card()
    ch = read(source, "wren.json").entities[0]
    for indent in (2, 4):
        out = write(ch, indent=indent).data
        assert out == json.dumps(json.loads(source), indent=indent,
                                 ensure_ascii=False).encode() + b"\n"


def test_a_png_card_with_hand_laid_chunk_json_is_rewritten_byte_for_byte() -> None:
    card = json.loads(_hand_laid_card())
    source = png_with(before_iend=[card_chunk("ccv3", hand_laid(card))])
    ch = read(source).entities[0]
    out = write(ch)
    assert out.data == source and not out.loss
    ch.tags = ["bees"]
    changed = write(ch).data
    assert changed != source
    assert read(changed).entities[0].tags == ["bees"]


def test_png_card_converted_to_json_reports_the_avatar() -> None:
    data = png_with(before_iend=[card_chunk("chara", V2)])
    ch = read(data).entities[0]
    out = write(ch, container="json")
    assert out.loss.covers("assets[0]")
    assert json.loads(out.data)["data"]["name"] == "Wren"


def test_v1_json_stays_v1() -> None:
    v1 = {"name": "Old", "description": "d", "first_mes": "hi", "chat": "1677261616514"}
    res = read(json.dumps(v1).encode(), "old.json")
    out = write(res.entities[0])
    assert without_completed(v1, json.loads(out.data), COMPLETED_KEYS) == v1
    assert "spec" not in json.loads(out.data)  # still a flat V1 card


# -- EXIF cards ----------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "encoding"), [("WEBP", "bytes"), ("JPEG", "json")])
def test_exif_cards(fmt: str, encoding: str) -> None:
    pytest.importorskip("PIL.Image")
    card = {"name": "Exif", "description": "d", "first_mes": "hi"}
    raw = json.dumps(card).encode()
    payload = b",".join(str(b).encode() for b in raw) if encoding == "bytes" else raw
    data = exif_image(fmt, payload)
    assert scores(data)[FID] == 0.9
    ch = read(data, "card.img").entities[0]
    assert ch.name == "Exif"
    assert write(ch).data == data
    ch.first_mes = "changed"
    out = write(ch)  # bunzai does not rewrite EXIF: a changed card becomes a PNG card
    assert out.suffix == ".png" and out.loss.covers("assets[0]")
    assert card_json(out.data, "chara")["data"]["first_mes"] == "changed"


@pytest.mark.parametrize(("fmt", "suffix"), [("WEBP", ".webp"), ("JPEG", ".jpg")])
def test_an_exif_card_is_never_saved_under_a_png_name(fmt: str, suffix: str,
                                                      tmp_path: Path) -> None:
    card = {"name": "Exif", "description": "d", "first_mes": "hi"}
    ch = read(exif_image(fmt, json.dumps(card).encode()), "card.img").entities[0]
    out = write(ch)  # unchanged: kept as the image it was
    assert out.suffix == suffix
    with pytest.raises(ConversionRefused) as err:
        out.save(tmp_path / "card.png")
    assert f"card{suffix}" in err.value.message and not (tmp_path / "card.png").exists()
    assert out.save(tmp_path / f"card{suffix}") == [tmp_path / f"card{suffix}"]
    # asked for a PNG container, the image is re-encoded, and the report says so
    png = write(ch, container="png")
    assert png.data.startswith(b"\x89PNG") and png.loss.covers("assets[0]")
    assert [e.action for e in png.loss if e.path == "assets[0]"] == ["approximated"]
    assert png.save(tmp_path / "card.png") == [tmp_path / "card.png"]


# -- validation and labels -----------------------------------------------------------------


def test_validate_reports_spec_violations_and_container_issues() -> None:
    bad = {"spec": "chara_card_v2", "spec_version": "2.0",
           "data": {"name": "A", "alternate_greetings": "hi", "character_book": None}}
    data = png_with(before_iend=[card_chunk("chara", bad, "zTXt")])
    issues = validate(reg(), data, "x.png")  # what `bunzai validate` shows
    paths = [i.path for i in issues]
    assert {"$.data.alternate_greetings", "$.data.character_book", "$.data.extensions"} <= set(
        paths)
    assert paths.count("$.data.alternate_greetings") == 1  # each problem said once
    assert any("zTXt" in i.message for i in issues)
    assert all(i.severity == "warning" for i in issues)


def _labels(data: bytes | Path, name: str = "x.png") -> dict[tuple[str, str], list[str]]:
    got = label(reg(), data, name if isinstance(data, bytes) else None)
    return {(g.app, g.role): g.evidence for g in got.guesses}


def test_labels_on_synthetic_cards() -> None:
    ext = {"chub": {"id": 1, "full_path": "someone/wren"}, "risuai": {"bias": []},
           "cc_extractor/v3": {"nickname": "W"},
           "agnai": {"voice": {}}, "ginger": {"version": 1}, "voxta": {"id": "x"},
           "pygmalion_id": "abc", "tavern_helper": {"scripts": []},
           "visual_description": "tall", "talkativeness": "0.5", "fav": False, "world": ""}
    book = {"entries": [{"keys": ["a"], "content": "b", "entry_id": "e1"}], "lexicon": []}
    card = sample_card(extensions=ext, character_book=book)
    card["data"]["avatar"] = "https://avatars.charhub.io/avatars/someone/wren.webp"
    card["metadata"] = {"tool": {"name": "AI Character Editor"}}
    data = png_with(before_iend=[card_chunk("chara", card, "zTXt")])
    got = _labels(data)
    for app in ("Chub", "RisuAI", "Agnai", "Ginger", "Voxta", "Pygmalion", "TavernHelper",
                "Wyvern", "AI Character Editor (ZoltanAI)", "Character Tavern"):
        assert (app, "origin") in got, app
    assert ("SillyTavern", "last_writer") in got
    assert ("cc_extractor (unidentified tool)", "last_writer") in got
    assert any("charhub.io" in e for e in got[("Chub", "origin")])
    assert any("creatorcomment" in e for e in got[("SillyTavern", "last_writer")])


@pytest.mark.skipif(not PNG_CARDS, reason="corpus not available")
def test_labels_on_real_cards() -> None:
    cass = next(p for p in PNG_CARDS if "Cass1" in p.name)
    got = _labels(cass)
    assert ("Chub", "origin") in got and ("SillyTavern", "last_writer") in got
    seraphina = next(p for p in PNG_CARDS if "Oyyouri" in p.name)
    assert any("relabelled" in e for e in _labels(seraphina)[("SillyTavern", "last_writer")])
    if WEBP:
        assert ("TavernAI", "origin") in _labels(WEBP[0])


def test_a_written_card_decodes_as_plain_base64_json() -> None:
    out = write(Character(name="Ünïcødé", description="日本語"))
    png = PngFile.parse(out.data)
    tc = png.find_text("chara")[0]
    body = json.loads(decode_base64(tc.value_bytes()))
    assert body["data"]["name"] == "Ünïcødé"
    assert tc.value_bytes().isascii()


def test_round_trip_through_canonical_json_is_lossless() -> None:
    data = png_with(before_iend=[card_chunk("chara", V2), card_chunk("ccv3", V3_REAL)])
    ch = read(data).entities[0]
    via_vaud = Character.model_validate_json(ch.model_dump_json())
    assert diff_paths(ch, via_vaud) == []
    assert write(via_vaud).data == write(ch).data
    assert rewritten_faithfully(data, write(via_vaud).data)


def test_image_fingerprint_tells_a_changed_image_and_accepts_older_sha256_records() -> None:
    import hashlib

    from bunzai_tavern._common.cards.fingerprint import image_fingerprint, image_unchanged

    data = png_with(before_iend=[card_chunk("chara", V2), card_chunk("ccv3", V3_REAL)])
    ch = read(data).entities[0]
    recorded = ch.passthrough[FID]["png"]["image"]
    image = image_png()
    other = image_png(colour=(10, 80, 40))
    assert recorded == image_fingerprint(image) and image_unchanged(recorded, image)
    assert not image_unchanged(recorded, other)
    assert not image_unchanged(recorded, image + b"trailing")
    assert image_unchanged(hashlib.sha256(image).hexdigest(), image)  # written by 0.1 readers
    assert not image_unchanged(hashlib.sha256(image).hexdigest(), other)
    # a record from an older version still restores the original layout byte for byte
    ch.passthrough[FID]["png"]["image"] = hashlib.sha256(image).hexdigest()
    assert rewritten_faithfully(data, write(ch).data)
    # a changed avatar gets a fresh layout
    ch.passthrough[FID]["png"]["image"] = recorded
    ch.assets[0].data = other
    assert write(ch).data != data


# -- the project's sample card -----------------------------------------------------------------

SAMPLE = Path(__file__).resolve().parents[5] / "examples" / "cards" / "bunzai-sample.png"


@pytest.mark.skipif(not SAMPLE.exists(), reason="not run from a checkout")
def test_the_bundled_sample_card() -> None:
    data = SAMPLE.read_bytes()
    assert reg().detect(as_input(data, "s.png")).winner.format == FID  # type: ignore[union-attr]
    res = read(data)
    ch = res.entities[0]
    assert not res.warnings
    assert ch.name == "Pell Ashdown" and ch.lorebook is not None
    assert len(ch.lorebook.entries) == 3 and ch.lorebook.entries[2].position == "at_depth"
    assert rewritten_faithfully(data, write(ch).data)
    for target in ("risu-charx", "vaud-json", "pygmalion"):
        if target in reg().adapters:
            assert conversion_problems(reg(), [ch], target) == [], target


def test_png_and_json_aliases_choose_the_container() -> None:
    ch = read(png_with(before_iend=[card_chunk("chara", V2)])).entities[0]
    as_json = reg().write([ch], "json")
    assert as_json.suffix == ".json" and json.loads(as_json.data)["data"]["name"] == "Wren"
    from_json = read(as_json.data, "c.json").entities[0]
    assert reg().write([from_json], "png").suffix == ".png"
    assert reg().write([from_json], FID).suffix == ".json"  # the id keeps the source's container


def test_a_v3_json_card_never_points_at_bytes_it_does_not_carry() -> None:
    from bunzai.sdk.cards import resolve_data_uri
    from bunzai.sdk.png import minimal_png

    icon, happy = minimal_png(3, 5), minimal_png(2, 2)
    ch = Character(name="Ivy", first_mes="Hi", assets=[
        Asset(type="icon", name="main", ext="png", uri="embeded://assets/icon/image/main.png",
              data=icon, media_type="image/png"),
        Asset(type="emotion", name="happy", ext="png", uri="__asset:3", data=happy,
              media_type="image/png"),
        Asset(type="emotion", name="sad", ext="png", uri="embeded://assets/sad.png"),
        Asset(type="background", name="sea", ext="png", uri="https://example.org/sea.png"),
    ])
    for target in ("sillytavern", "rolecall"):
        out = reg().write([ch], target, {"container": "json", "spec": "v3"})
        listed = json.loads(out.data)["data"]["assets"]
        uris = [a["uri"] for a in listed]
        # the bytes travel inline; the file that is not there is not pointed at
        assert [resolve_data_uri(u) for u in uris[:2]] == [icon, happy]
        assert uris[2:] == ["https://example.org/sea.png"]
        # inline bytes are the same bytes: only the file with nothing behind it is lost
        assert {(e.path, e.action) for e in out.loss} == {("assets[2]", "dropped")}
        back = reg().read(as_input(out.data, "c.json"), format=target)[1].entities[0]
        assert [a.data for a in back.assets[:2]] == [icon, happy]
        assert not any((a.uri or "").startswith(("embeded://", "__asset:")) for a in back.assets)


@pytest.mark.parametrize("keyword", ["chara", "ccv3"])
def test_a_png_cut_inside_its_card_chunk_says_so(keyword: str) -> None:
    whole = png_with([card_chunk(keyword, sample_card())])
    start = whole.index(keyword.encode() + b"\x00")  # the chunk's data, after its type
    declared = int.from_bytes(whole[start - 8:start - 4], "big")
    cut = whole[:start + 100]
    with pytest.raises(MalformedInput) as err:
        load_registry().read(as_input(cut, filename="card.png"))
    assert err.value.exit_code == 4
    assert err.value.message == (f"truncated PNG: the {keyword} chunk is cut at byte 100 of "
                                 f"{declared}")
    with pytest.raises(MalformedInput) as err:  # the data whole, its checksum cut
        load_registry().read(as_input(whole[:start + declared + 2], filename="card.png"))
    assert err.value.message == (f"truncated PNG: the {keyword} chunk is cut in its checksum, "
                                 f"after all {declared} bytes of it")


def test_a_second_card_chunk_cut_short_is_named_and_the_whole_one_read() -> None:
    whole = png_with(before_iend=[card_chunk("chara", sample_card()),
                                  card_chunk("ccv3", sample_card())])
    start = whole.index(b"ccv3\x00")
    res = read(whole[:start + 40])
    assert res.entities[0].name == "Wren"
    assert any(w.message.startswith("truncated PNG: the ccv3 chunk is cut at byte 40 of ")
               and "read from the 'chara' chunk" in w.message for w in res.warnings)



# -- what bunzai writes, its own validator accepts -------------------------------------------


def _own_findings(data: bytes, fmt: str) -> list[str]:
    from bunzai import validate_file

    v = validate_file(data, filename="card.png", from_format=fmt, strict=True, registry=reg())
    assert v.ok, v.error
    return [f"{i.path}: {i.message}" for i in v.issues]


def test_an_avatar_with_its_own_text_chunks_does_not_push_the_card_chunk_back() -> None:
    from bunzai.sdk.png import make_text_chunk

    avatar = image_png(extra=[make_text_chunk("Title", b"Portrait"),
                              make_text_chunk("Author", b"Someone")])
    ch = Character(name="Mira", description="d", first_mes="hi",
                   assets=[Asset(type="icon", name="main", ext="png", media_type="image/png",
                                 data=avatar)])
    for fmt in ("sillytavern", "rolecall"):
        out = reg().write([ch], fmt).files[0].data
        texts = [t.keyword for t in PngFile.parse(out).text_chunks()]
        assert texts[0] == "chara" and {"Title", "Author"} <= set(texts), texts
        assert not _own_findings(out, fmt)


@pytest.mark.parametrize(("fmt", "options"), [("sillytavern", {}),
                                              ("sillytavern", {"chunks": "both"}),
                                              ("rolecall", {})])
def test_the_two_card_chunks_bunzai_writes_agree(fmt: str, options: dict[str, Any]) -> None:
    # an entry that leaves use_regex unset: V3 must say false, and the V2 copy must agree
    book = Lorebook(entries=[LorebookEntry(keys=["tide"], content="The tide turns.")])
    ch = Character(name="Mira", description="d", first_mes="hi", lorebook=book)
    out = reg().write([ch], fmt, options).files[0].data
    assert {"chara", "ccv3"} <= {t.keyword for t in PngFile.parse(out).text_chunks()}
    assert not _own_findings(out, fmt)


def test_a_v1_card_given_a_book_is_written_with_chunks_that_agree() -> None:
    v1 = png_with(before_iend=[card_chunk("chara", {"name": "Old", "description": "d",
                                                    "first_mes": "hi"})])
    ch = read(v1).entities[0]
    ch.lorebook = Lorebook(entries=[LorebookEntry(keys=["tide"], content="The tide turns.")])
    out = write(ch)
    assert not _own_findings(out.data, FID)

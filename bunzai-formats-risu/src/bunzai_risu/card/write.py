"""Writing RisuAI cards: RisuAI's V3 PNG layout (asset chunks, then ``ccv3``) or its JSON.

A card read from RisuAI 0.6's PNG (a V1 ``chara`` chunk beside a ``risuai`` MessagePack chunk)
is written back in that layout while what the ``risuai`` chunk gave it is unchanged; any other
card is written as RisuAI writes one today.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import (
    Asset,
    Character,
    LossReport,
    OutputFile,
    WriteResult,
    dumps,
    dumps_layout,
)
from bunzai.sdk.base64 import encode_base64
from bunzai.sdk.cards import (
    ASSET_PREFIX,
    ASSET_URI_PREFIX,
    CARD_KEYWORDS,
    asset_key,
    asset_keyword,
    build_card,
    digest_matches,
    resolve_data_uri,
)
from bunzai.sdk.png import PngFile, make_text_chunk

from .._common.assets import data_uri
from .._common.card import CARD, build_risu_card
from .._common.images import as_png, report_image, strip_chunks
from .read import LEGACY_ORIGIN, fingerprint, legacy_fingerprint, vits_refs

_EMBEDDED = (ASSET_URI_PREFIX, "embeded://", "embedded://")
_NO_BYTES = "no bytes to embed: RisuAI refuses a card whose embedded asset is missing"
_LEGACY_GONE = ("written as RisuAI writes cards today, without the RisuAI 0.6 risuai chunk "
                "(and the chat history it holds, which bunzai does not read): what was read "
                "from it changed, or the card is not written as a PNG")


def write(entity: Character, options: Mapping[str, Any], format_id: str) -> WriteResult:
    raw = entity.passthrough.get(format_id)
    record: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    container = str(options.get("container") or record.get("container") or "png")
    legacy = record.get("legacy")
    if container == "png" and isinstance(legacy, Mapping) and "spec" in record and \
            record["spec"] is None and _legacy_assets_only(entity) and \
            legacy.get("fp") == legacy_fingerprint(entity):
        return _write_legacy(entity, record, legacy)
    result = _write_json(entity, record) if container == "json" else _write_png(entity, record)
    if isinstance(legacy, Mapping):
        result.warnings.append(_LEGACY_GONE)
    return result


def _ensure_risuai(ch: Character) -> Character:
    """RisuAI-ness survives a round trip only with the marker block; add an empty one."""
    if isinstance(ch.extensions.get("risuai"), Mapping):
        return ch
    out = ch.model_copy()
    out.extensions = {**ch.extensions, "risuai": {}}
    return out


def _unwritable(i: int, a: Asset, loss: LossReport) -> bool:
    """Report an asset that has nothing a card can hold; True when it was reported."""
    if a.data is not None:
        return False
    if a.orphan:
        loss.dropped(f"assets[{i}]", "an asset no card refers to, without bytes, has nothing "
                                     "to write")
    elif a.uri is None:
        loss.dropped(f"assets[{i}]", "neither bytes nor a URI to write")
    elif a.uri.startswith((*_EMBEDDED, "ccdefault:")):
        loss.dropped(f"assets[{i}]", _NO_BYTES)
    else:
        return False  # a remote asset: its URI is written as it is
    return True


def _same_data_uri(a: Asset) -> bool:
    if a.uri and a.uri.startswith("data:") and a.data is not None:
        return resolve_data_uri(a.uri) == a.data
    return False


def _write_json(ch: Character, record: Mapping[str, Any]) -> WriteResult:
    loss = LossReport()
    warnings: list[str] = []
    placed: list[tuple[int, Asset]] = []
    for i, a in enumerate(ch.assets):
        if a.orphan:
            loss.dropped(f"assets[{i}]", "a card JSON lists only the assets the card refers "
                                         "to: this file would be left out")
            continue
        if _unwritable(i, a, loss):
            continue
        if a.data is None or _same_data_uri(a):
            placed.append((i, a))
            continue
        assert a.data is not None
        placed.append((i, a.model_copy(update={"uri": data_uri(a.data)})))
    card = build_risu_card(_ensure_risuai(ch), loss, warnings, scripts_in_card=True,
                           assets=[a for _, a in placed])
    layout = record.get("layout") if isinstance(record.get("layout"), Mapping) else None
    return WriteResult([OutputFile(dumps_layout(card, layout, 4), ".json")],
                       loss, warnings)


def _write_png(ch: Character, record: Mapping[str, Any]) -> WriteResult:
    loss = LossReport()
    warnings: list[str] = []
    icon_index = _icon(ch)
    icon = ch.assets[icon_index] if icon_index is not None else None
    picture, why = _picture(icon)
    if icon is not None and (why or picture != icon.data):
        report_image(loss, f"assets[{icon_index}].data", why or _PICTURE)
    chunks: list[bytes] = []
    placed: list[tuple[int, Asset]] = []
    taken: set[str] = set()
    plan: list[tuple[int, Asset, str | None]] = []
    for i, a in enumerate(ch.assets):
        wanted = a.uri[len(ASSET_URI_PREFIX):] if a.uri and a.uri.startswith(
            ASSET_URI_PREFIX) else None
        if a.orphan and a.origin and a.origin.startswith(f"png:{ASSET_PREFIX}"):
            wanted = asset_key(a.origin[4:])  # unlisted chunks (VITS files) keep their key
        if wanted is not None and (wanted in taken or a.data is None or i == icon_index
                                   or not _safe_key(wanted)):
            wanted = None  # a duplicate or unusable key: a fresh one is given below
        if wanted is not None:
            taken.add(wanted)
        plan.append((i, a, wanted))
    counter = 0

    def next_key() -> str:
        nonlocal counter
        while True:
            counter += 1
            if str(counter) not in taken:
                taken.add(str(counter))
                return str(counter)

    implicit = bool(record.get("implicit_icon"))
    vits = vits_refs(ch)
    for i, a, wanted in plan:
        if i == icon_index:
            if implicit and a.uri is None:  # the reader adds the unlisted picture itself
                if a.name != "main":
                    loss.approximated(f"assets[{i}].name", "a PNG card's own picture is its "
                                                           "main icon")
            else:
                placed.append((i, a.model_copy(update={"uri": "ccdefault:"})))
            continue
        if _unwritable(i, a, loss):
            continue
        if a.data is None or (_same_data_uri(a) and not a.orphan):
            placed.append((i, a))
            continue
        key = wanted if wanted is not None else next_key()
        keyword = _keyword_for(a, key)
        chunks.append(make_text_chunk(keyword, encode_base64(a.data)))
        if a.orphan:
            # read back as an unlisted chunk: a VITS file or a loose asset named by its chunk
            back = ("x-risu-vits", vits[key]) if key in vits else ("other", keyword)
            if a.type != back[0]:
                loss.approximated(f"assets[{i}].type", "kept as an asset chunk no asset "
                                                       "refers to")
            if a.name != back[1]:
                loss.approximated(f"assets[{i}].name", "kept as an asset chunk no asset "
                                                       "refers to, named by its chunk")
            continue
        placed.append((i, a.model_copy(update={"uri": f"{ASSET_URI_PREFIX}{key}"})))
    if icon_index is None:
        # the reader takes the picture for the character's icon, listed or not
        loss.approximated(f"assets[{len(placed)}]", f"{why or 'the card has no picture'}: "
                                                     "a RisuAI PNG card is a picture, which "
                                                     "becomes the character's icon")
    target = _ensure_risuai(ch)
    card = build_risu_card(target, loss, warnings, scripts_in_card=True,
                           assets=[a for _, a in placed])
    written = card.get("spec")
    keyword = "ccv3" if written == "chara_card_v3" else "chara"
    if written == record.get("spec") and isinstance(record.get("chunk"), str):
        keyword = record["chunk"]  # a card of the spec it was read as stays in its chunk
    card_chunk = make_text_chunk(keyword, encode_base64(dumps(card)))
    order = [card_chunk]
    backfill = record.get("backfill")
    if isinstance(backfill, Mapping) and digest_matches(fingerprint(ch), backfill.get("fp")):
        extra = make_text_chunk(str(backfill.get("keyword")), str(backfill.get("text")))
        first = _first_card_keyword(record)
        order = [extra, card_chunk] if first and first.lower() != keyword else [card_chunk,
                                                                               extra]
    out = strip_chunks(PngFile.parse(picture), chunks + order)
    return WriteResult([OutputFile(out, ".png")], loss, warnings)


_PICTURE = "a RisuAI PNG card's picture keeps no card or asset text of its own"


def _picture(icon: Asset | None) -> tuple[bytes, str | None]:
    """The PNG a card is written into (card and asset chunks removed), and why it is not the
    icon's own bytes when it is not (converted, or generated for a card without one)."""
    image, why = as_png(icon.data if icon is not None else None)
    return strip_chunks(PngFile.parse(image)), why


def _first_card_keyword(record: Mapping[str, Any]) -> str | None:
    keywords = record.get("keywords")
    return next((k for k in keywords if isinstance(k, str) and k.lower() in CARD_KEYWORDS),
                None) if isinstance(keywords, list) else None


def _legacy_assets_only(ch: Character) -> bool:
    """Whether the assets are those RisuAI 0.6's PNG held: its picture, then emotion images."""
    pictures = [a for a in ch.assets if a.origin == "png:container"]
    return len(pictures) == 1 and ch.assets[-1] is pictures[0] and all(
        a is pictures[0] or (a.origin or "").startswith(LEGACY_ORIGIN) for a in ch.assets)


def _write_legacy(ch: Character, record: Mapping[str, Any], legacy: Mapping[str, Any]
                  ) -> WriteResult:
    """RisuAI 0.6's layout: the V1 card in ``chara``, the ``risuai`` chunk as it was read."""
    loss = LossReport()
    view = ch.model_copy(update={
        "extensions": {k: v for k, v in ch.extensions.items() if k != "risuai"},
        "regex_scripts": [], "lorebook": None, "assets": []})
    card = build_card(view, spec="v1", format_id=CARD, loss=loss)
    icon = next((a for a in ch.assets if a.origin == "png:container"), None)
    picture, why = _picture(icon)
    if icon is not None and (why or picture != icon.data):
        report_image(loss, f"assets[{ch.assets.index(icon)}].data", why or _PICTURE)
    chunks = {"chara": make_text_chunk("chara", encode_base64(dumps(card))),
              "risuai": make_text_chunk("risuai", str(legacy.get("text", "")))}
    keywords = record.get("keywords")
    ranked = [str(k).lower() for k in keywords] if isinstance(keywords, list) else []
    names = sorted(chunks, key=lambda k: ranked.index(k) if k in ranked else len(ranked))
    out = strip_chunks(PngFile.parse(picture), [chunks[k] for k in names])
    return WriteResult([OutputFile(out, ".png")], loss)


def _safe_key(key: str) -> bool:
    """A chunk key that fits a PNG keyword (79 Latin-1 bytes, no NUL)."""
    try:
        raw = asset_keyword(key).encode("latin-1")
    except UnicodeEncodeError:
        return False
    return bool(key) and len(raw) <= 79 and b"\x00" not in raw


def _keyword_for(a: Asset, key: str) -> str:
    if a.origin and a.origin.startswith(f"png:{ASSET_PREFIX}"):
        kw = a.origin[4:]
        if kw.endswith(key):
            return kw
    return asset_keyword(key)


def _icon(ch: Character) -> int | None:
    """The asset that becomes the PNG image: the card's ccdefault: icon, else its main icon."""
    best: int | None = None
    for i, a in enumerate(ch.assets):
        if a.orphan or a.data is None or a.type != "icon":
            continue
        if a.uri == "ccdefault:" or a.origin == "png:container":
            return i
        if best is None or a.name == "main":
            best = i if best is None or ch.assets[best].name != "main" else best
    return best

"""Writing RisuAI cards: RisuAI's V3 PNG layout (asset chunks, then ``ccv3``) or its JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.cardspec import digest_matches
from bunzai.containers.base64util import encode_base64
from bunzai.containers.png import PngFile, make_text_chunk
from bunzai.errors import UsageError
from bunzai.jsonio import dumps
from bunzai.limits import get_limits
from bunzai.loss import LossReport
from bunzai.model import Asset, Character
from bunzai.types import OutputFile, WriteResult

from .._common import jsonfmt
from .._common.assets import data_uri, report_moves, try_data_uri
from .._common.card import build_risu_card
from .._common.images import as_png
from .._common.pngtext import ASSET_PREFIX, asset_key, strip_risu_chunks
from . import FORMAT_ID
from .read import _fingerprint

if TYPE_CHECKING:
    from bunzai.model import Entity


def write(entity: Entity, options: Mapping[str, Any]) -> WriteResult:
    if not isinstance(entity, Character):
        raise UsageError(f"{FORMAT_ID} writes characters, not a {entity.kind}")
    pt_raw = entity.passthrough.get(FORMAT_ID)
    pt: Mapping[str, Any] = pt_raw if isinstance(pt_raw, Mapping) else {}
    container = str(options.get("container") or pt.get("container") or "png")
    if container == "json":
        return _write_json(entity, pt)
    return _write_png(entity, pt)


def _ensure_risuai(ch: Character) -> Character:
    """RisuAI-ness survives a round trip only with the marker block; add an empty one."""
    if isinstance(ch.extensions.get("risuai"), Mapping):
        return ch
    out = ch.model_copy()
    out.extensions = {**ch.extensions, "risuai": {}}
    return out


def _write_json(ch: Character, pt: Mapping[str, Any]) -> WriteResult:
    loss = LossReport()
    placed: list[tuple[int, Asset]] = []
    for i, a in enumerate(ch.assets):
        if a.orphan:
            loss.dropped(f"assets[{i}]", "a card JSON lists only assets the card refers to")
            continue
        if a.data is None:
            if a.uri is None:
                loss.dropped(f"assets[{i}]", "neither bytes nor a URI to write")
            elif a.uri.startswith(("__asset:", "embeded://", "embedded://")):
                loss.dropped(f"assets[{i}]", "no bytes to inline")
            else:
                placed.append((i, a))
            continue
        if a.uri and a.uri.startswith("data:"):
            data, _ = try_data_uri(a.uri, get_limits())
            if data == a.data:
                placed.append((i, a))
                continue
        uri = data_uri(a.data)
        loss.approximated(f"assets[{i}].uri", "inlined as a data: URI, as RisuAI's JSON "
                                             "export does")
        if a.origin != "data-uri":
            loss.approximated(f"assets[{i}].origin", "the bytes now come from the URI")
        placed.append((i, a.model_copy(update={"uri": uri})))
    card = build_risu_card(_ensure_risuai(ch), FORMAT_ID, loss, scripts_in_card=True,
                           assets=[a for _, a in placed])
    report_moves(loss, [i for i, _ in placed])
    if not isinstance(ch.extensions.get("risuai"), Mapping):
        loss.approximated("extensions.risuai", "added (empty) to mark the card as RisuAI's")
    fmt = pt.get("layout") if isinstance(pt.get("layout"), Mapping) else None
    return WriteResult([OutputFile(jsonfmt.dump(card, fmt, default_indent=4), ".json")], loss)


def _write_png(ch: Character, pt: Mapping[str, Any]) -> WriteResult:
    loss = LossReport()
    icon_index = _icon(ch)
    base: bytes | None = None
    if icon_index is not None:
        icon = ch.assets[icon_index]
        base, why = as_png(icon.data)
        if why:
            loss.approximated(f"assets[{icon_index}]", why)
    image, why = as_png(base)
    if base is None and why:
        loss.approximated("assets", f"{why} (the card has no picture)")
    chunks: list[bytes] = []
    placed: list[tuple[int, Asset]] = []
    later: list[int] = []  # assets a reader appends after the listed ones, in order
    taken: set[str] = set()
    plan: list[tuple[int, Asset, str | None]] = []
    for i, a in enumerate(ch.assets):
        wanted = a.uri[len("__asset:"):] if a.uri and a.uri.startswith("__asset:") else None
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

    implicit = bool(pt.get("implicit_icon"))
    for i, a, wanted in plan:
        if i == icon_index:
            if implicit and a.uri is None:
                later.insert(0, i)  # the reader adds the unlisted picture before orphans
            else:
                placed.append((i, a.model_copy(update={"uri": "ccdefault:"})))
                if a.uri != "ccdefault:":
                    loss.approximated(f"assets[{i}].uri", "the PNG image itself (ccdefault:)")
            if a.origin != "png:container":
                loss.approximated(f"assets[{i}].origin", "the PNG image itself")
            continue
        if a.data is None:
            if a.orphan:
                loss.dropped(f"assets[{i}]", "an orphan asset without bytes has nothing to "
                                             "write")
            elif a.uri is None:
                loss.dropped(f"assets[{i}]", "neither bytes nor a URI to write")
            elif a.uri.startswith(("__asset:", "embeded://", "embedded://", "ccdefault:")):
                loss.dropped(f"assets[{i}]", "no bytes to embed")
            else:
                placed.append((i, a))
            continue
        if a.uri and a.uri.startswith("data:") and not a.orphan:
            data, _ = try_data_uri(a.uri, get_limits())
            if data == a.data:
                placed.append((i, a))
                continue
        key = wanted if wanted is not None else next_key()
        keyword = _keyword_for(a, key)
        chunks.append(make_text_chunk(keyword, encode_base64(a.data)))
        if a.origin != f"png:{keyword}":
            loss.approximated(f"assets[{i}].origin", "the bytes now come from a PNG chunk")
        if a.orphan:
            if a.origin != f"png:{keyword}":
                loss.approximated(f"assets[{i}]", "kept as an asset chunk no asset refers to")
            later.append(i)
            continue
        uri = f"__asset:{key}"
        if a.uri != uri:
            loss.approximated(f"assets[{i}].uri", "embedded as a chara-ext-asset_ PNG chunk")
        placed.append((i, a.model_copy(update={"uri": uri})))
    target = _ensure_risuai(ch)
    card = build_risu_card(target, FORMAT_ID, loss, scripts_in_card=True,
                           assets=[a for _, a in placed])
    report_moves(loss, [i for i, _ in placed] + later)
    if target is not ch:
        loss.approximated("extensions.risuai", "added (empty) to mark the card as RisuAI's")
    keyword = str(pt.get("chunk") or "ccv3")
    if card.get("spec") != "chara_card_v3":
        keyword = "chara"
    card_chunk = make_text_chunk(keyword, encode_base64(dumps(card)))
    order = [card_chunk]
    backfill = pt.get("backfill")
    if isinstance(backfill, Mapping) and digest_matches(_fingerprint(ch), backfill.get("fp")):
        extra = make_text_chunk(str(backfill.get("keyword")), str(backfill.get("text")))
        raw_keywords = pt.get("keywords")
        keywords: list[str] = raw_keywords if isinstance(raw_keywords, list) else []
        first = next((k for k in keywords if k.lower() in ("chara", "ccv3")), None)
        order = [extra, card_chunk] if first and first.lower() != keyword else [card_chunk,
                                                                               extra]
    out = strip_risu_chunks(PngFile.parse(image), chunks + order)
    return WriteResult([OutputFile(out, ".png")], loss)


def _safe_key(key: str) -> bool:
    """A chunk key that fits a PNG keyword (79 Latin-1 bytes, no NUL)."""
    try:
        raw = f"{ASSET_PREFIX}:{key}".encode("latin-1")
    except UnicodeEncodeError:
        return False
    return bool(key) and len(raw) <= 79 and b"\x00" not in raw


def _keyword_for(a: Asset, key: str) -> str:
    if a.origin and a.origin.startswith(f"png:{ASSET_PREFIX}"):
        kw = a.origin[4:]
        if kw.endswith(key):
            return kw
    return f"{ASSET_PREFIX}:{key}"


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

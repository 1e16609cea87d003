"""Writing CharX archives RisuAI's importer accepts (and JPEG-wrapped ones on request).

RisuAI aborts a whole import when an ``embeded://`` URI has no file, when ``data.extensions``
is missing or when ``module.risum`` is corrupt, so the writer gives every embedded asset a
unique, safe entry name and points its URI at exactly that name, always writes
``extensions``, and writes a module built by the same code that reads one.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from bunzai.sdk import (
    Asset,
    Character,
    LossReport,
    OutputFile,
    WriteResult,
    dumps_layout,
    loads,
    sniff_media,
)
from bunzai.sdk.cards import ASSET_URI_PREFIX, resolve_data_uri
from bunzai.sdk.png import default_avatar, image_damage
from bunzai.sdk.zip import entry_name_problem, write_zip

from .._common import risum
from .._common.assets import (
    charx_path,
    dedupe,
    embedded_path,
    ext_for,
    sanitize,
)
from .._common.card import CARD, build_risu_card
from .._common.images import as_jpeg
from . import module

_STORED = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif", "image/avif",
                     "audio/mpeg", "audio/ogg", "video/mp4", "video/webm", "font/woff2"})


def _wants_module(ch: Character, record: Mapping[str, Any]) -> bool:
    if isinstance(record.get("module"), Mapping):
        return True
    if "zip_order" in record:
        return False  # read from a CharX that had no module: keep it that way
    return bool(ch.regex_scripts) or ch.triggers is not None


def write(entity: Character, options: Mapping[str, Any], format_id: str) -> WriteResult:
    ch = entity
    raw = ch.passthrough.get(format_id)
    record: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    jpeg: bool | None = options.get("jpeg")
    container = options.get("container")
    if container is not None:
        jpeg = container == "jpeg"
    if jpeg is None:
        jpeg = "cover" in record
    loss = LossReport()
    warnings: list[str] = []
    files: dict[str, bytes] = {}
    taken: set[str] = {"card.json", "module.risum"}
    listed: list[Asset] = []
    for n, name_b64 in (record.get("x_meta") or []):
        files[str(n)] = base64.b64decode(name_b64)
        taken.add(str(n).casefold())
    orphans: list[tuple[int, Asset]] = []
    for i, a in enumerate(ch.assets):
        if a.orphan:
            orphans.append((i, a))
            continue
        placed = _place(i, a, files, taken, loss)
        if placed is not None:
            listed.append(placed)
    placeholder = _main_icon(listed, files, taken)
    if placeholder is not None:
        # a main icon without bytes (``ccdefault:``, the container's image, of a card read
        # from JSON) gives its place to the generated one: a card has one main icon
        at = next((k for k, a in enumerate(listed)
                   if a.type == "icon" and a.name == "main" and not a.data), None)
        if at is None:
            listed.append(placeholder)
            at = len(listed) - 1
        else:
            listed[at] = placeholder
        loss.approximated(f"assets[{at}]",
                          "the character has no avatar and RisuAI finishes importing a CharX "
                          "only once it has saved an image: the generated default image is "
                          "its main icon")
    for i, a in orphans:
        if not a.data:
            loss.dropped(f"assets[{i}]", "an asset no card refers to, without bytes, has "
                                         "nothing to write")
            continue
        origin = a.origin[4:] if a.origin and a.origin.startswith("zip:") else None
        path = origin if origin and not entry_name_problem(origin) else charx_path(
            "other", a.name, ext_for(a))
        path = dedupe(path, taken)
        taken.add(path.casefold())
        files[path] = a.data
        _report_orphan(i, a, path, loss)

    info = record.get("module") if isinstance(record.get("module"), Mapping) else None
    with_module = _wants_module(ch, record)
    module_book = module.holds_book(info)
    card = build_risu_card(ch, loss, warnings, scripts_in_card=not with_module,
                           assets=listed, book_in_card=not module_book)
    data = card.get("data")
    if module_book and info is not None and isinstance(data, dict):
        if module.projection_wanted(ch, info):
            data["character_book"] = module.projection(ch, info, format_id)
        card_record = ch.passthrough.get(CARD, {}).get("data")
        order = card_record.get("order") if isinstance(card_record, Mapping) else None
        if isinstance(order, list):
            ranked = {k: i for i, k in enumerate(order)}
            card["data"] = {k: data[k] for k in sorted(
                data, key=lambda k: ranked.get(k, len(ranked)))}
    layout = record.get("layout") if isinstance(record.get("layout"), Mapping) else None
    files["card.json"] = dumps_layout(card, layout, 4)
    if with_module:
        built = module.build(ch, info or {}, format_id, loss)
        text = risum.dump_main(built)
        saved_text = (info or {}).get("text")
        if isinstance(saved_text, str) and loads(saved_text) == loads(text):
            text = saved_text.encode("utf-8")
        files["module.risum"] = risum.encode(text, module.records(info or {}))
    elif isinstance(record.get("bad_module"), str):
        files["module.risum"] = base64.b64decode(record["bad_module"])

    order = record.get("zip_order")
    names = list(files)
    risu_tail: list[str] = [n for n in ("module.risum", "card.json") if n in files]
    body = [n for n in names if n not in risu_tail]
    if isinstance(order, list):
        ranked = {n: i for i, n in enumerate(order)}
        names = sorted(names, key=lambda n: ranked.get(n, len(ranked)))
    else:
        names = body + risu_tail
    stored = {n for n, b in files.items() if _is_media(b)}
    prefix = _cover(ch, record) if jpeg else b""
    out = write_zip([(n, files[n]) for n in names], compress=lambda n: n not in stored,
                    prefix=prefix, like=entity)
    suffix = ".jpeg" if jpeg else ".charx"
    return WriteResult([OutputFile(out, suffix)], loss, warnings)


def _report_orphan(i: int, a: Asset, path: str, loss: LossReport) -> None:
    """A file no card entry refers to reads back named by its file name, of type ``other``."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if a.type != "other":
        loss.approximated(f"assets[{i}].type", "kept as a file in the archive that no asset "
                                               "refers to")
    if a.name != stem:
        loss.approximated(f"assets[{i}].name", "kept as a file in the archive that no asset "
                                               "refers to, named by its file name")


def _is_media(data: bytes) -> bool:
    return sniff_media(data[:64])[0] in _STORED


def _cover(ch: Character, record: Mapping[str, Any]) -> bytes:
    saved = record.get("cover")
    if isinstance(saved, str):
        return base64.b64decode(saved)
    icon = next((a for a in ch.assets if a.type == "icon" and a.name == "main" and a.data),
                next((a for a in ch.assets if a.type == "icon" and a.data), None))
    image, _why = as_jpeg(icon.data if icon else None)
    return image


def _main_icon(listed: list[Asset], files: dict[str, bytes], taken: set[str]) -> Asset | None:
    """The generated default image as the main icon, when no listed icon has bytes."""
    if any(a.type == "icon" and a.data for a in listed):
        return None
    path = dedupe(charx_path("icon", "main", "png"), taken)
    taken.add(path.casefold())
    files[path] = default_avatar()
    return Asset(type="icon", name="main", ext="png", uri=f"embeded://{path}",
                 media_type="image/png", data=files[path])


def _place(i: int, a: Asset, files: dict[str, bytes], taken: set[str],
           loss: LossReport) -> Asset | None:
    """Give an asset its entry in the archive and a URI that resolves to exactly it (None:
    the asset has nothing to write)."""
    uri = a.uri
    if a.data is None:
        path = embedded_path(uri) if uri else None
        if uri is None or path is not None or uri.startswith(ASSET_URI_PREFIX):
            loss.dropped(f"assets[{i}]", "no bytes to embed: RisuAI refuses a CharX whose "
                                         "embedded asset is missing")
            return None
        return a  # remote, ccdefault: or another scheme: kept as written
    if uri and uri.startswith("data:") and resolve_data_uri(uri) == a.data:
        return a
    media, sniffed = sniff_media(a.data)
    if (a.ext and media != "application/octet-stream" and not (a.origin or "").startswith(
            "zip:") and a.ext.lower() not in (media.split("/")[-1], sniffed)):
        # an extension that lies about the bytes (a JPEG declared "png") is the bytes' own
        # (no loss: an extension says nothing the bytes do not); one read from a CharX is
        # kept as the archive had it
        a = a.model_copy(update={"ext": sniffed})
    wanted = path = embedded_path(uri) if uri else None
    why = ""
    if path is not None:
        # RisuAI's own writer renames unsafe names (``sad:1``) but not their URIs; an entry
        # name must be safe everywhere, so such a URI is pointed at the sanitised name.
        path = "/".join(sanitize(part) for part in path.split("/"))
        if path != wanted:
            why = "a name that is not safe in a zip on every system"
    if path is not None and path.casefold() in taken:
        same = next((n for n in files if n.casefold() == path.casefold()), None)
        if same is not None and files[same] == a.data:
            path = same  # the same file twice: both entries point to it
        else:
            path, why = None, "a name another file of the archive already has"
    elif path is not None and (entry_name_problem(path) or path in ("card.json",
                                                                    "module.risum")):
        path, why = None, "a name the archive cannot hold"
    scheme = uri[:uri.index("://") + 3] if uri and path is not None else "embeded://"
    if path is None:
        path = dedupe(charx_path(a.type, a.name, ext_for(a)), taken)
    taken.add(path.casefold())
    files[path] = a.data
    if media == "image/png" and (damage := image_damage(a.data)) is not None:
        loss.stashed(f"assets[{i}]", f"the picture is damaged: {damage}; the CharX carries it "
                                     "as it is, and RisuAI and SillyTavern show it broken or "
                                     "their placeholder instead")
    if wanted is not None and path != wanted:
        loss.approximated(f"assets[{i}].uri", f"{wanted!r} is {why}: the file is stored as "
                                              f"{path!r} and the card points there")
    return a.model_copy(update={"uri": scheme + path})

"""Writing CharX archives RisuAI's importer accepts (and JPEG-wrapped ones on request).

RisuAI aborts a whole import when an ``embeded://`` URI has no file, when ``data.extensions``
is missing or when ``module.risum`` is corrupt, so the writer gives every embedded asset a
unique, safe entry name and points its URI at exactly that name, always writes
``extensions``, and writes a module built by the same code that reads one.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.containers.zipsafe import entry_name_problem, write_zip
from bunzai.errors import UsageError
from bunzai.jsonio import loads
from bunzai.loss import LossReport
from bunzai.model import Asset, Character
from bunzai.types import OutputFile, WriteResult

from .._common import jsonfmt, lore, regex, risum
from .._common.assets import (
    charx_path,
    dedupe,
    ext_for,
    report_moves,
    sanitize,
    try_data_uri,
)
from .._common.card import build_risu_card, lorebook_fingerprint
from .._common.images import as_jpeg
from . import FORMAT_ID

if TYPE_CHECKING:
    from bunzai.model import Entity

_MODULE_NS = uuid.UUID("9c3b8e0a-4f1d-4d2e-8b6a-2e7f1c5d3a90")
_STORED = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif", "image/avif",
                     "audio/mpeg", "audio/ogg", "video/mp4", "video/webm", "font/woff2"})


def _module_dict(ch: Character, info: Mapping[str, Any], loss: LossReport | None
                 ) -> dict[str, Any]:
    """The module object of the CharX's ``module.risum``."""
    pt = ch.passthrough.get(FORMAT_ID)
    risu = pt.get("risu") if isinstance(pt, Mapping) else None
    split = risu.get("scripts") if isinstance(risu, Mapping) else None
    n_st = int(split[0]) if isinstance(split, list) and len(split) == 2 and split[1] == len(
        ch.regex_scripts) else 0
    rest = info.get("rest")
    out: dict[str, Any] = dict(rest) if isinstance(rest, Mapping) else {
        "name": f"{ch.name} Module", "description": f"Module for {ch.name}",
        "id": str(uuid.uuid5(_MODULE_NS, ch.name)),
    }
    has = info.get("has")
    parts = set(has) if isinstance(has, list) else set()
    if ch.triggers is not None or "trigger" in parts:
        out["trigger"] = list(ch.triggers or [])
    if ch.regex_scripts[n_st:] or "regex" in parts:
        out["regex"] = [regex.write_script(s, FORMAT_ID, loss, f"regex_scripts[{n_st + i}].")
                        for i, s in enumerate(ch.regex_scripts[n_st:])]
    if "card_book" in info and ch.lorebook is not None:
        out["lorebook"] = lore.write_entries(ch.lorebook.entries, FORMAT_ID, loss,
                                             "lorebook.entries")
    if "assets" not in out:
        out["assets"] = []
    order = info.get("order")
    if isinstance(order, list):
        ranked = {k: i for i, k in enumerate(order)}
        out = {k: out[k] for k in sorted(out, key=lambda k: ranked.get(k, len(ranked)))}
    else:
        first = ("name", "description", "id", "trigger", "regex", "lorebook", "assets")
        out = {k: out[k] for k in sorted(out, key=lambda k: first.index(k) if k in first
                                         else len(first))}
    return out


def module_text(ch: Character, info: Mapping[str, Any]) -> bytes:
    """The main-block JSON text this writer would produce (compared on read)."""
    return risum.dump_main(_module_dict(ch, info, None))


def _wants_module(ch: Character, info: Mapping[str, Any] | None) -> bool:
    if info is not None:
        return True
    pt = ch.passthrough.get(FORMAT_ID)
    if isinstance(pt, Mapping) and "zip_order" in pt:
        return False  # read from a CharX that had no module: keep it that way
    return bool(ch.regex_scripts) or ch.triggers is not None


def _projection(ch: Character, info: Mapping[str, Any]) -> Any:
    """card.json's character_book next to a module lorebook (RisuAI's projection)."""
    saved = info.get("card_book")
    if info.get("card_book_fp") == lorebook_fingerprint(ch) and isinstance(saved, Mapping):
        return saved.get("value")
    book = ch.lorebook
    if book is None:
        return None
    entries = [lore.project_entry(lore.write_entry(e, FORMAT_ID, i), e.enabled)
               for i, e in enumerate(book.entries)]
    out: dict[str, Any] = {}
    for key in ("name", "description", "scan_depth", "token_budget", "recursive_scanning"):
        value = getattr(book, key)
        if value is not None:
            out[key] = value
    out["extensions"] = dict(book.extensions)
    out["entries"] = entries
    return out


def write(entity: Entity, options: Mapping[str, Any]) -> WriteResult:
    if not isinstance(entity, Character):
        raise UsageError(f"{FORMAT_ID} writes characters, not a {entity.kind}")
    ch = entity
    pt_raw = ch.passthrough.get(FORMAT_ID)
    pt: Mapping[str, Any] = pt_raw if isinstance(pt_raw, Mapping) else {}
    jpeg: bool | None = options.get("jpeg")
    container = options.get("container")
    if container is not None:
        jpeg = container == "jpeg"
    if jpeg is None:
        jpeg = "cover" in pt
    loss = LossReport()
    files: dict[str, bytes] = {}
    taken: set[str] = {"card.json", "module.risum"}
    listed: list[Asset] = []
    for n, name_b64 in (pt.get("x_meta") or []):
        files[str(n)] = base64.b64decode(name_b64)
        taken.add(str(n).casefold())
    orphans: list[tuple[int, Asset]] = []
    listed_at: list[int] = []
    for i, a in enumerate(ch.assets):
        if a.orphan:
            orphans.append((i, a))
            continue
        listed.append(_place(i, a, files, taken, loss))
        listed_at.append(i)
    placeholder = _main_icon(listed, files, taken)
    if placeholder is not None:
        listed.append(placeholder)
        loss.approximated(f"assets[{len(listed) - 1}]",
                          "the character has no avatar and RisuAI finishes importing a CharX "
                          "only once it has saved an image: the generated default image is "
                          "its main icon")
    orphan_at: dict[str, int] = {}
    for i, a in orphans:
        if not a.data:
            loss.dropped(f"assets[{i}]", "an orphan asset without bytes has nothing to write")
            continue
        origin = a.origin[4:] if a.origin and a.origin.startswith("zip:") else None
        path = origin if origin and not entry_name_problem(origin) else charx_path(
            "other", a.name, ext_for(a))
        path = dedupe(path, taken)
        taken.add(path.casefold())
        files[path] = a.data
        orphan_at[path] = i

    info = pt.get("module") if isinstance(pt.get("module"), Mapping) else None
    with_module = _wants_module(ch, info)
    module_book = info is not None and "card_book" in info
    card = build_risu_card(ch, FORMAT_ID, loss, scripts_in_card=not with_module,
                           assets=listed, book_in_card=not module_book)
    data = card.get("data")
    if module_book and info is not None and isinstance(data, dict):
        book = _projection(ch, info)
        saved = info.get("card_book")
        if saved is not None or ch.lorebook is not None:
            data["character_book"] = book
        cs_pt = ch.passthrough.get(FORMAT_ID, {}).get("data")
        order = cs_pt.get("order") if isinstance(cs_pt, Mapping) else None
        if isinstance(order, list):
            ranked = {k: i for i, k in enumerate(order)}
            card["data"] = {k: data[k] for k in sorted(
                data, key=lambda k: ranked.get(k, len(ranked)))}
    if not with_module and ch.triggers and "triggerscript" not in str(
            card.get("data", {}).get("extensions", {}).get("risuai", {}).keys()):
        loss.dropped("triggers", "no module to hold them")
    fmt = pt.get("layout") if isinstance(pt.get("layout"), Mapping) else None
    files["card.json"] = jsonfmt.dump(card, fmt, default_indent=4)
    if with_module:
        module = _module_dict(ch, info or {}, loss)
        text = risum.dump_main(module)
        saved_text = (info or {}).get("text")
        if isinstance(saved_text, str) and loads(saved_text) == loads(text):
            text = saved_text.encode("utf-8")
        records = [base64.b64decode(r) for r in (info or {}).get("records") or []]
        files["module.risum"] = risum.encode(text, records)
    elif isinstance(pt.get("bad_module"), str):
        files["module.risum"] = base64.b64decode(pt["bad_module"])

    order = pt.get("zip_order")
    names = list(files)
    risu_tail: list[str] = [n for n in ("module.risum", "card.json") if n in files]
    body = [n for n in names if n not in risu_tail]
    if isinstance(order, list):
        ranked = {n: i for i, n in enumerate(order)}
        names = sorted(names, key=lambda n: ranked.get(n, len(ranked)))
    else:
        names = body + risu_tail
    # a reader lists card.json's assets first, then the unreferenced files in archive order
    report_moves(loss, [*listed_at, *([None] if placeholder is not None else []),
                        *[orphan_at[n] for n in names if n in orphan_at]])
    stored = {n for n, b in files.items() if _is_media(b)}
    prefix = b""
    if jpeg:
        prefix = _cover(ch, pt, loss)
    out = write_zip([(n, files[n]) for n in names], compress=lambda n: n not in stored,
                    prefix=prefix)
    suffix = ".jpeg" if jpeg else ".charx"
    return WriteResult([OutputFile(out, suffix)], loss)


def _is_media(data: bytes) -> bool:
    from bunzai.containers.media import sniff_media
    return sniff_media(data[:64])[0] in _STORED


def _cover(ch: Character, pt: Mapping[str, Any], loss: LossReport) -> bytes:
    saved = pt.get("cover")
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
    from bunzai.containers.placeholder import default_avatar

    path = dedupe(charx_path("icon", "main", "png"), taken)
    taken.add(path.casefold())
    files[path] = default_avatar()
    return Asset(type="icon", name="main", ext="png", uri=f"embeded://{path}",
                 media_type="image/png", data=files[path])


def _place(i: int, a: Asset, files: dict[str, bytes], taken: set[str],
           loss: LossReport) -> Asset:
    """Give an asset its entry in the archive and a URI that resolves to exactly it."""
    from .read import zip_path

    uri = a.uri
    if a.data is None:
        path = zip_path(uri) if uri else None
        if uri is None or path is not None or uri.startswith("__asset:"):
            loss.dropped(f"assets[{i}]", "no bytes to embed (RisuAI refuses an embedded URI "
                                         "without a file)")
            return a.model_copy(update={"uri": None})
        return a  # remote, ccdefault: or another scheme: kept as written
    if uri and uri.startswith("data:"):
        data, _ = try_data_uri(uri, _limits())
        if data == a.data:
            return a
    path = zip_path(uri) if uri else None
    if path is not None:
        # RisuAI's own writer renames unsafe names (``sad:1``) but not their URIs; an entry
        # name must be safe everywhere, so such a URI is pointed at the sanitised name.
        path = "/".join(sanitize(part) for part in path.split("/"))
    if path is not None and (entry_name_problem(path) or path.casefold() in taken
                             or path in ("card.json", "module.risum")):
        path = None
    scheme = uri[:uri.index("://") + 3] if uri and path is not None else "embeded://"
    if path is None:
        path = dedupe(charx_path(a.type, a.name, ext_for(a)), taken)
    taken.add(path.casefold())
    files[path] = a.data
    new_uri = scheme + path
    if new_uri != uri:
        loss.approximated(f"assets[{i}].uri", "now names its file in the archive")
    if a.origin != f"zip:{path}":
        loss.approximated(f"assets[{i}].origin", "the bytes now come from the archive")
    return a.model_copy(update={"uri": new_uri})


def _limits() -> Any:
    from bunzai.limits import get_limits
    return get_limits()


"""RisuAI's semantics layered over the shared Character Card codec (``bunzai.cardspec``).

``cardspec`` maps the CCv3 body; this module adds what RisuAI keeps elsewhere:

* ``extensions.risuai.customScripts`` -> ``Character.regex_scripts`` (after any SillyTavern
  ``extensions.regex_scripts``, which cardspec already lifted) and
  ``extensions.risuai.triggerscript`` -> ``Character.triggers``;
* V2 cards' ``risuai.emotions`` / ``risuai.additionalAssets`` -> assets (``emotion`` and
  ``x-risu-asset``), their bytes resolved by the container (PNG asset chunks, base64);
* lorebook entries: RisuAI's ``mode``/``folder`` and ``@@decorators`` -> canonical fields
  (see :mod:`.lore` and :mod:`.decorators`).

Writing reverses each step on a copy (the "RisuAI view") and hands that to ``build_card``, so
the codec's recorded shape still applies and an unchanged card comes back byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bunzai.cardspec import build_card, card_digest, parse_card
from bunzai.loss import LossReport
from bunzai.model import Asset, Character, LorebookEntry

from . import decorators, lore, regex
from .assets import make_asset
from .module import read_triggers
from .values import Notes

Resolver = Callable[[str], tuple[bytes | None, str | None]]
"""``uri -> (bytes, origin)``; ``(None, None)`` when the container has nothing for it."""

_RISU = "risu"


def card_body(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    data = obj.get("data")
    return data if isinstance(data, Mapping) and "spec" in obj else obj


def _raw_entries(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    book = body.get("character_book")
    if not isinstance(book, Mapping):
        return []
    entries = book.get("entries")
    if isinstance(entries, Mapping):
        entries = list(entries.values())
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, Mapping)]


def _apply_entry(entry: LorebookEntry, raw: Mapping[str, Any], path: str, notes: Notes,
                 fid: str) -> None:
    note: dict[str, Any] = {}
    mode = raw.get("mode")
    if entry.is_folder or mode == "folder":
        entry.is_folder = True
        fkey = entry.keys[0] if entry.keys else ""
        note["fkey"] = fkey
        entry.keys = []
        if entry.id is None:
            entry.id = lore.folder_id(fkey)
            note["id_derived"] = True
    elif isinstance(mode, str) and mode not in ("normal", ""):
        entry.extensions["risu_mode"] = mode
        note["mode"] = True
    if entry.folder is not None:
        note["parent"] = entry.folder
        entry.folder = lore.folder_id(entry.folder)
    rcs = entry.extensions.get("risu_case_sensitive")
    if isinstance(rcs, bool) and entry.case_sensitive in (None, rcs):
        note["rcs"] = "eq" if entry.case_sensitive is not None else "only"
        entry.case_sensitive = rcs
        del entry.extensions["risu_case_sensitive"]
    decorators.extract(entry, fid)
    if note:
        pt = entry.passthrough.setdefault(fid, {})
        pt[_RISU] = note


def _entry_view(entry: LorebookEntry, fid: str) -> LorebookEntry:
    """The entry as cardspec read it: decorators back in content, folder keys restored."""
    view = decorators.risu_view(entry, fid)
    pt = entry.passthrough.get(fid)
    note = pt.get(_RISU) if isinstance(pt, Mapping) else None
    note = note if isinstance(note, Mapping) else {}
    if view.is_folder:
        ident = "" if view.id is None else str(view.id)
        fkey = note.get("fkey")
        view.keys = [fkey if isinstance(fkey, str) and lore.folder_id(fkey) == ident
                     else lore.folder_key(ident)]
        if note.get("id_derived") and lore.folder_id(view.keys[0]) == ident:
            view.id = None
    mode = view.extensions.pop("risu_mode", None)
    if isinstance(mode, str) and not note.get("mode"):
        view.passthrough = {**view.passthrough, "\x00mode": mode}
    if view.folder is not None:
        parent = note.get("parent")
        view.folder = parent if isinstance(parent, str) and lore.folder_id(
            parent) == view.folder else lore.folder_key(str(view.folder))
    rcs = note.get("rcs")
    if rcs and view.case_sensitive is not None:
        view.extensions["risu_case_sensitive"] = view.case_sensitive
        if rcs == "only":
            view.case_sensitive = None
    return view


def _v2_assets(risuai: dict[str, Any], resolve: Resolver, notes: Notes) -> list[Asset]:
    """V2 cards keep emotion images and additional assets inside ``risuai``."""
    from .assets import try_data_uri

    out: list[Asset] = []
    for key, atype in (("emotions", "emotion"), ("additionalAssets", "x-risu-asset")):
        items = risuai.get(key)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            path = f"$.data.extensions.risuai.{key}[{i}]"
            if not (isinstance(item, list) and len(item) >= 2 and isinstance(item[0], str)
                    and isinstance(item[1], str)):
                notes.warn(path, "expected [name, asset]; skipped")
                continue
            ref = item[1]
            data, origin = resolve(ref) if ref.startswith("__asset:") else (None, None)
            if data is None and not ref.startswith(("__asset:", "http:", "https:")):
                data, _why = try_data_uri(ref if ref.startswith("data:") else
                                          "data:;base64," + ref, notes_limits())
                origin = "base64" if data is not None else None
            if data is None:
                notes.warn(path, f"asset {item[0]!r} ({ref[:40]}) could not be resolved")
            ext = item[2] if len(item) > 2 and isinstance(item[2], str) else None
            out.append(make_asset(type=atype, name=item[0], uri=ref if ref.startswith(
                ("__asset:", "http:", "https:")) else None, ext=ext, data=data, origin=origin))
    return out


def notes_limits() -> Any:
    from bunzai.limits import get_limits
    return get_limits()


def read_card(obj: Mapping[str, Any], fid: str, notes: Notes, resolve: Resolver, *,
              lift_scripts: bool = True) -> Character:
    """A canonical character from a RisuAI card object; ``resolve`` fetches asset bytes.

    ``lift_scripts`` False leaves ``customScripts``/``triggerscript`` where they are (a CharX
    whose ``module.risum`` supplies the scripts RisuAI actually runs).
    """
    ch = parse_card(obj, format_id=fid, warnings=notes.warnings)
    body = card_body(obj)
    base = "$.data" if body is not obj else "$"
    info: dict[str, Any] = {}
    risuai = ch.extensions.get("risuai")
    if isinstance(risuai, dict):
        order = list(risuai)
        moved = False
        scripts = risuai.get("customScripts")
        if isinstance(scripts, list) and lift_scripts:
            info["scripts"] = [len(ch.regex_scripts)]
            ch.regex_scripts += regex.read_scripts(
                risuai.pop("customScripts"), f"{base}.extensions.risuai.customScripts", notes,
                fid)
            info["scripts"].append(len(ch.regex_scripts))
            moved = True
        triggers = risuai.get("triggerscript")
        if lift_scripts and isinstance(triggers, list) and all(
                isinstance(t, dict) for t in triggers):
            ch.triggers = read_triggers(risuai.pop("triggerscript"),
                                        f"{base}.extensions.risuai.triggerscript", notes)
            moved = True
        if obj.get("spec") != "chara_card_v3":
            v2 = _v2_assets(risuai, resolve, notes)
            if v2:
                info["v2"] = {k: risuai.pop(k) for k in ("emotions", "additionalAssets")
                              if k in risuai}
                info["v2"]["n"] = len(v2)
                ch.assets += v2
                moved = True
        if moved:
            info["order"] = order
    for asset in ch.assets:
        if asset.data is None and asset.uri is not None and asset.origin is None:
            data, origin = resolve(asset.uri)
            if data is not None:
                asset.data = data
                asset.origin = origin
                from .assets import media_type
                asset.media_type = media_type(data)
    if ch.lorebook is not None:
        raws = _raw_entries(body)
        if len(raws) == len(ch.lorebook.entries):
            for i, (entry, raw) in enumerate(zip(ch.lorebook.entries, raws, strict=True)):
                _apply_entry(entry, raw, f"{base}.character_book.entries[{i}]", notes, fid)
    if info:
        ch.passthrough.setdefault(fid, {})[_RISU] = info
    return ch


def lorebook_fingerprint(ch: Character) -> str | None:
    """A digest of the canonical lorebook, to tell whether it changed since it was read."""
    if ch.lorebook is None:
        return None
    return card_digest(ch.lorebook.model_dump(
        mode="json", exclude={"passthrough": True, "entries": {"__all__": {"passthrough"}}}))


def card_view(ch: Character, fid: str, *, scripts_in_card: bool,
              assets: Sequence[Asset] | None = None) -> Character:
    """A copy of ``ch`` laid out as RisuAI's card JSON holds it (for ``build_card``)."""
    pt = ch.passthrough.get(fid)
    info = pt.get(_RISU) if isinstance(pt, Mapping) else None
    info = info if isinstance(info, Mapping) else {}
    view = ch.model_copy()
    view.extensions = dict(ch.extensions)
    risuai = dict(view.extensions["risuai"]) if isinstance(
        view.extensions.get("risuai"), Mapping) else None
    split = info.get("scripts")
    st_count = 0
    if isinstance(split, list) and len(split) == 2 and split[1] == len(ch.regex_scripts):
        st_count = int(split[0])
    st_scripts = list(ch.regex_scripts[:st_count])
    risu_scripts = list(ch.regex_scripts[st_count:])
    view.regex_scripts = st_scripts
    view.triggers = None
    if scripts_in_card and (risu_scripts or ch.triggers is not None
                            or isinstance(split, list)):
        if risuai is None:
            risuai = {}
        if risu_scripts or isinstance(split, list):
            risuai["customScripts"] = regex.write_scripts(risu_scripts, fid, None, "")
        if ch.triggers is not None:
            risuai["triggerscript"] = list(ch.triggers)
    v2 = info.get("v2")
    if isinstance(v2, Mapping) and risuai is not None:
        for k in ("emotions", "additionalAssets"):
            if k in v2:
                risuai[k] = v2[k]
    if risuai is not None:
        order = info.get("order")
        if isinstance(order, list):
            ranked = {k: i for i, k in enumerate(order)}
            risuai = {k: risuai[k] for k in sorted(
                risuai, key=lambda k: ranked.get(k, len(ranked)))}
        view.extensions["risuai"] = risuai
    if ch.lorebook is not None:
        book = ch.lorebook.model_copy()
        book.entries = [_entry_view(e, fid) for e in ch.lorebook.entries]
        view.lorebook = book
    if assets is not None:
        view.assets = list(assets)
    if isinstance(v2, Mapping):
        n = v2.get("n")
        if isinstance(n, int) and n <= len(view.assets):
            view.assets = view.assets[:len(view.assets) - n]
    return view


def build_risu_card(ch: Character, fid: str, loss: LossReport, *, scripts_in_card: bool,
                    assets: Sequence[Asset] | None = None, spec: str | None = None,
                    book_in_card: bool = True) -> dict[str, Any]:
    """The card JSON RisuAI reads for ``ch``; ``assets`` carry the URIs the container chose.

    ``book_in_card`` False leaves ``character_book`` to the caller (a CharX whose module holds
    RisuAI's own lorebook writes RisuAI's projection of it instead).
    """
    view = card_view(ch, fid, scripts_in_card=scripts_in_card, assets=assets)
    if not book_in_card:
        view.lorebook = None
    elif ch.lorebook is not None and view.lorebook is not None:
        for i, (entry, seen) in enumerate(zip(ch.lorebook.entries, view.lorebook.entries,
                                              strict=True)):
            decorators.report_loss(entry, seen, loss, f"lorebook.entries[{i}].")
    pt = ch.passthrough.get(fid)
    source = pt.get("spec") if isinstance(pt, Mapping) else None
    chosen = spec or ("v2" if source == "chara_card_v2" else "v3")
    card = build_card(view, spec=chosen, format_id=fid, loss=loss)  # type: ignore[arg-type]
    data = card.get("data")
    if isinstance(data, dict):
        if not isinstance(data.get("extensions"), dict):
            data["extensions"] = {}  # RisuAI's importer crashes without it
        book = data.get("character_book")
        if isinstance(book, dict) and view.lorebook is not None:
            entries = book.get("entries")
            if isinstance(entries, list):
                for built, e in zip(entries, view.lorebook.entries, strict=False):
                    mode = e.passthrough.get("\x00mode")
                    if isinstance(built, dict) and isinstance(mode, str) and "mode" not in built:
                        built["mode"] = mode
    if scripts_in_card:
        for i, s in enumerate(ch.regex_scripts[len(view.regex_scripts):]):
            regex.write_script(s, fid, loss, f"regex_scripts[{i + len(view.regex_scripts)}].")
    return card

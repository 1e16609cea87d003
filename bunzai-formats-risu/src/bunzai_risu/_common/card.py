"""RisuAI's semantics layered over the shared Character Card codec (``bunzai.sdk.cards``).

The codec maps the CCv3 body; this module adds what RisuAI keeps elsewhere:

* ``extensions.risuai.customScripts`` -> ``Character.regex_scripts`` (after any SillyTavern
  ``extensions.regex_scripts``, which the codec already lifted) and
  ``extensions.risuai.triggerscript`` -> ``Character.triggers``;
* V2 cards' ``risuai.emotions`` / ``risuai.additionalAssets`` -> assets (``emotion`` and
  ``x-risu-asset``), their bytes resolved by the container (PNG asset chunks, base64);
* lorebook entries: RisuAI's folders and ``@@decorators`` -> canonical fields (see :mod:`.lore`
  and :mod:`.decorators`).

A PNG card and a CharX's ``card.json`` are the same JSON, so every RisuAI container reads and
writes it under one format id, :data:`CARD`: its layout and its app data travel between them.
Writing reverses each step on a copy (the "RisuAI view") and hands that to ``build_card``, so
the codec's recorded layout still applies and an unchanged card comes back byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bunzai.sdk import (
    Asset,
    Carried,
    Character,
    Issue,
    Lorebook,
    LorebookEntry,
    LossReport,
    reason_for,
    unheld,
)
from bunzai.sdk.cards import (
    build_card,
    card_body,
    card_digest,
    parse_card,
    resolve_data_uri,
)
from bunzai.sdk.fields import reorder

from . import decorators, lore, regex
from .assets import make_asset, media_type
from .declared import CARD, SCRIPT_CARRIED, SCRIPT_REASONS
from .loss import neutral_values
from .module import read_triggers

Resolver = Callable[[str], tuple[bytes | None, str | None]]
"""``uri -> (bytes, origin)``; ``(None, None)`` when the container has nothing for it."""

_RISU = "risu"
"""The record of RisuAI's additions inside the card's layout."""
_SCRIPT_RULE = Carried.of((*SCRIPT_CARRIED, f"app_data.{CARD}"))
_DECORATED = ("{n} lorebook {entries} with RisuAI @@ lines that hold {its} settings "
              "({fields}): RisuAI reads them as settings, other apps show them as part of the "
              "text")


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


# -- reading --------------------------------------------------------------------------------------


def _apply_entry(entry: LorebookEntry, raw: Mapping[str, Any]) -> None:
    """RisuAI's folders, case sensitivity and decorators on a card-book entry (in place)."""
    note: dict[str, Any] = {}
    if entry.is_folder or raw.get("mode") == "folder":
        entry.is_folder = True
        fkey = entry.keys[0] if entry.keys else ""
        note["fkey"] = fkey
        entry.keys = []
        if entry.id is None:
            entry.id = lore.folder_id(fkey)
            note["id_derived"] = True
    if entry.folder is not None:
        note["parent"] = entry.folder
        entry.folder = lore.folder_id(entry.folder)
    rcs = entry.extensions.get("risu_case_sensitive")
    if isinstance(rcs, bool) and entry.case_sensitive in (None, rcs):
        note["rcs"] = "eq" if entry.case_sensitive is not None else "only"
        entry.case_sensitive = rcs
        del entry.extensions["risu_case_sensitive"]
    decorators.extract(entry, CARD)
    if note:
        entry.passthrough.setdefault(CARD, {})[_RISU] = note


def _v2_assets(risuai: dict[str, Any], resolve: Resolver, warnings: list[Issue]
               ) -> list[Asset]:
    """V2 cards keep emotion images and additional assets inside ``risuai``."""
    out: list[Asset] = []
    for key, atype in (("emotions", "emotion"), ("additionalAssets", "x-risu-asset")):
        items = risuai.get(key)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            path = f"$.data.extensions.risuai.{key}[{i}]"
            if not (isinstance(item, list) and len(item) >= 2 and isinstance(item[0], str)
                    and isinstance(item[1], str)):
                warnings.append(Issue(path, "expected [name, asset]; skipped"))
                continue
            ref = item[1]
            data, origin = resolve(ref) if ref.startswith("__asset:") else (None, None)
            if data is None and not ref.startswith(("__asset:", "http:", "https:")):
                data = resolve_data_uri(ref if ref.startswith("data:") else
                                        "data:;base64," + ref)
                origin = "base64" if data is not None else None
            if data is None:
                warnings.append(Issue(path, f"asset {item[0]!r} ({ref[:40]}) could not be "
                                            "resolved"))
            ext = item[2] if len(item) > 2 and isinstance(item[2], str) else None
            out.append(make_asset(type=atype, name=item[0], uri=ref if ref.startswith(
                ("__asset:", "http:", "https:")) else None, ext=ext, data=data, origin=origin))
    return out


def read_card(obj: Mapping[str, Any], warnings: list[Issue], resolve: Resolver, *,
              lift_scripts: bool = True) -> Character:
    """A canonical character from a RisuAI card object; ``resolve`` fetches asset bytes.

    ``lift_scripts`` False leaves ``customScripts``/``triggerscript`` where they are (a CharX
    whose ``module.risum`` supplies the scripts RisuAI actually runs).
    """
    ch = parse_card(obj, format_id=CARD, warnings=warnings)
    body = card_body(obj) or obj
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
                risuai.pop("customScripts"), f"{base}.extensions.risuai.customScripts",
                warnings, CARD, owned=True)
            info["scripts"].append(len(ch.regex_scripts))
            moved = True
        triggers = risuai.get("triggerscript")
        if lift_scripts and isinstance(triggers, list) and all(
                isinstance(t, dict) for t in triggers):
            ch.triggers = read_triggers(risuai.pop("triggerscript"),
                                        f"{base}.extensions.risuai.triggerscript", warnings)
            moved = True
        if obj.get("spec") != "chara_card_v3":
            v2 = _v2_assets(risuai, resolve, warnings)
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
                asset.media_type = media_type(data)
    if ch.lorebook is not None:
        raws = _raw_entries(body)
        if len(raws) == len(ch.lorebook.entries):
            for entry, raw in zip(ch.lorebook.entries, raws, strict=True):
                _apply_entry(entry, raw)
    if info:
        ch.passthrough.setdefault(CARD, {})[_RISU] = info
    return ch


def lorebook_fingerprint(ch: Character) -> str | None:
    """A digest of the canonical lorebook, to tell whether it changed since it was read."""
    if ch.lorebook is None:
        return None
    return card_digest(ch.lorebook.model_dump(
        mode="json", exclude={"passthrough": True, "entries": {"__all__": {"passthrough"}}}))


# -- writing --------------------------------------------------------------------------------------


def _entry_view(entry: LorebookEntry) -> tuple[LorebookEntry, bool]:
    """The entry as the codec wrote it: decorators back in content, folder keys restored (and
    whether the content is the text that was read)."""
    view, original = decorators.risu_view(entry, CARD)
    record = entry.passthrough.get(CARD)
    note = record.get(_RISU) if isinstance(record, Mapping) else None
    note = note if isinstance(note, Mapping) else {}
    if view.is_folder:
        ident = "" if view.id is None else str(view.id)
        fkey = note.get("fkey")
        view.keys = [fkey if isinstance(fkey, str) and lore.folder_id(fkey) == ident
                     else lore.folder_key(ident)]
        if note.get("id_derived") and lore.folder_id(view.keys[0]) == ident:
            view.id = None
    if view.folder is not None:
        parent = note.get("parent")
        view.folder = parent if isinstance(parent, str) and lore.folder_id(
            parent) == view.folder else lore.folder_key(str(view.folder))
    rcs = note.get("rcs")
    if rcs and view.case_sensitive is not None:
        view.extensions["risu_case_sensitive"] = view.case_sensitive
        if rcs == "only":
            view.case_sensitive = None
    return view, original


def script_split(ch: Character) -> int:
    """How many of ``ch``'s scripts came from SillyTavern's ``extensions.regex_scripts`` (the
    rest are RisuAI custom scripts)."""
    record = ch.passthrough.get(CARD)
    info = record.get(_RISU) if isinstance(record, Mapping) else None
    split = info.get("scripts") if isinstance(info, Mapping) else None
    if isinstance(split, list) and len(split) == 2 and split[1] == len(ch.regex_scripts):
        return int(split[0])
    return 0


def write_custom_scripts(ch: Character, first: int, format_id: str, loss: LossReport
                         ) -> list[dict[str, Any]]:
    """``ch``'s scripts from index ``first`` on as RisuAI custom scripts (``format_id``: where
    their layout is kept), with what a custom script cannot hold reported."""
    out = []
    neutral = neutral_values()
    for i, s in enumerate(ch.regex_scripts[first:], first):
        path = f"regex_scripts[{i}]."
        out.append(regex.write_script(s, format_id, data_id=CARD, loss=loss, path=path))
        for p in unheld(s, _SCRIPT_RULE, neutral, own=CARD):
            if not loss.covers(path + p):
                loss.dropped(path + p, reason_for(p, SCRIPT_REASONS,
                                                  "RisuAI custom scripts have no place for it"))
    return out



def _book_view(ch: Character, loss: LossReport, warnings: list[str]) -> Lorebook | None:
    """``ch``'s lorebook as RisuAI's card holds it, with what its decorators cannot carry
    reported and a warning when decorator lines (text to other apps) are written."""
    if ch.lorebook is None:
        return None
    book = ch.lorebook.model_copy()
    book.entries = []
    decorated: dict[str, None] = {}
    count = 0
    neutral = neutral_values()
    for i, entry in enumerate(ch.lorebook.entries):
        seen, original = _entry_view(entry)
        book.entries.append(seen)
        if seen.content.startswith("@@") and seen.content != entry.content:
            count += 1
            decorated.update(dict.fromkeys(f for f in decorators.DECOR_FIELDS
                                           if getattr(seen, f) != getattr(entry, f)))
        if not original:
            held = {f: getattr(seen, f) for f in decorators.DECOR_FIELDS}
            for f in decorators.drift(entry, seen.content, held, neutral):
                loss.approximated(f"lorebook.entries[{i}].{f}", decorators.REASONS.get(
                    f, decorators.DEFAULT_REASON))
    if count:
        warnings.append(_DECORATED.format(
            n=count, entries="entry now starts" if count == 1 else "entries now start",
            its="its" if count == 1 else "their",
            fields=", ".join(decorated) or "settings"))
    return book


def build_risu_card(ch: Character, loss: LossReport, warnings: list[str], *,
                    scripts_in_card: bool, assets: Sequence[Asset] | None = None,
                    book_in_card: bool = True) -> dict[str, Any]:
    """The card JSON RisuAI reads for ``ch``; ``assets`` carry the URIs the container chose.

    ``book_in_card`` False leaves ``character_book`` to the caller (a CharX whose module holds
    RisuAI's own lorebook writes RisuAI's projection of it instead).
    """
    record = ch.passthrough.get(CARD)
    info = record.get(_RISU) if isinstance(record, Mapping) else None
    info = info if isinstance(info, Mapping) else {}
    view = ch.model_copy()
    view.extensions = dict(ch.extensions)
    risuai = dict(view.extensions["risuai"]) if isinstance(
        view.extensions.get("risuai"), Mapping) else None
    first = script_split(ch)
    view.regex_scripts = list(ch.regex_scripts[:first])
    view.triggers = None
    if scripts_in_card and (len(ch.regex_scripts) > first or ch.triggers is not None
                            or "scripts" in info):
        risuai = {} if risuai is None else risuai
        if len(ch.regex_scripts) > first or "scripts" in info:
            risuai["customScripts"] = write_custom_scripts(ch, first, CARD, loss)
        if ch.triggers is not None:
            risuai["triggerscript"] = list(ch.triggers)
    v2 = info.get("v2")
    if isinstance(v2, Mapping) and risuai is not None:
        for k in ("emotions", "additionalAssets"):
            if k in v2:
                risuai[k] = v2[k]
    if risuai is not None:
        view.extensions["risuai"] = reorder(risuai, info.get("order"))
    if assets is not None:
        view.assets = list(assets)
    if isinstance(v2, Mapping):
        n = v2.get("n")
        if isinstance(n, int) and n <= len(view.assets):
            view.assets = view.assets[:len(view.assets) - n]
    view.lorebook = _book_view(ch, loss, warnings) if book_in_card else None
    source = record.get("spec") if isinstance(record, Mapping) else None
    return build_card(view, spec="v2" if source == "chara_card_v2" else "v3", format_id=CARD,
                      loss=loss)

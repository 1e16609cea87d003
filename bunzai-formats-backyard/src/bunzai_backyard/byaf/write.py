"""Writing canonical characters as a Backyard Archive (BYAF v1).

Output follows the reference writer: every entry STORE, directory entries present, the manifest
first, JSON indented with two spaces, UTC ``Z`` timestamps and no key the official schemas do not
define (unless the source archive had it: a BYAF rewrite restores what it read).

A card becomes one scenario holding narrative, instructions, examples and the greeting, plus one
scenario per alternate greeting (how Backyard models several greetings).  New scenarios use
Backyard's settings for a new character's chat.  A character read from BYAF gets its scenarios,
samplers, chat logs and backgrounds back from its app data and layout, with the card fields
taken from the canonical model so edits win.

Several characters go into one archive (``characters/<id>/`` each, as Ginger writes them) unless
the ``separate`` option asks for one archive per character.  Characters read from the same
archive are put back together, sharing their scenarios.

The loss report names what reads back differently.  The writer knows it from what it built: the
reader's own mapping functions (greetings, examples, image names, the scenario split) applied to
the objects written, never by reading the archive back.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult, dumps, sniff_media
from bunzai.sdk.fields import kept, reorder, same
from bunzai.sdk.png import image_damage
from bunzai.sdk.zip import write_zip

from .._common.character import (
    MACRO_CLASH,
    character_values,
    report_character,
    write_lore,
)
from .._common.tables import BYAF_KEYS, SCENARIO, character_table
from .._common.util import (
    ABSENT,
    format_time,
    put,
    record,
    records,
    slug,
)
from .chats import sillytavern_misreads
from .read import (
    CHARACTER_LAYOUT,
    SCENARIO_FIELDS,
    SCENARIOS,
    background_asset,
    example_messages,
    examples_of,
    first_messages,
    greeting_of,
    image_data,
    image_names,
    is_character_key,
    owners_of,
    split_scenario,
)

if TYPE_CHECKING:
    from bunzai.sdk import Asset, Character, Neutrality

SUFFIX = ".byaf"
MANIFEST_ORDER = ("schemaVersion", "createdAt", "author", "characters", "scenarios")
CHARACTER_ORDER = ("schemaVersion", "id", "name", "displayName", "isNSFW", "persona",
                   "createdAt", "updatedAt", "loreItems", "images")
SCENARIO_ORDER = ("schemaVersion", "title", "model", "formattingInstructions", "minP",
                  "minPEnabled", "temperature", "repeatPenalty", "repeatLastN", "topK", "topP",
                  "backgroundImage", "exampleMessages", "canDeleteExampleMessages",
                  "firstMessages", "narrative", "promptTemplate", "grammar", "messages")
NEW_CHAT: dict[str, Any] = {
    "minP": 0.1,
    "minPEnabled": True,
    "temperature": 1.2,
    "repeatPenalty": 1.05,
    "repeatLastN": 256,
    "topK": 30,
    "topP": 0.9,
    "canDeleteExampleMessages": True,
    "promptTemplate": None,
    "grammar": None,
    "messages": [],
}
"""Backyard's settings for a new character's chat (as Ginger mirrors them), declared neutral."""
NEW_SCENARIO = {"schemaVersion": 1, **NEW_CHAT}
IMAGE_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}
_CLONE_DROPS = ("messages", "title")
"""Keys of the first scenario a new greeting scenario does not inherit (its own chat)."""


def write_archive(entities: Sequence[Character], options: Mapping[str, Any], format_id: str
                  ) -> WriteResult:
    separate = bool(options.get("separate"))
    settings = {"chats": options.get("chats", "keep"),
                "personality": options.get("personality", "append")}
    groups = [[e] for e in entities] if separate else [list(entities)]
    loss = LossReport()
    warnings: list[str] = []
    files: list[OutputFile] = []
    many = len(entities) > 1
    for gi, group in enumerate(groups):
        data, group_losses = _Builder(group, format_id, settings, warnings).build()
        for offset, report in enumerate(group_losses):
            index = gi if separate else offset
            loss.extend(report, f"[{index}]." if many else "")
        name = (group[0].name or None) if separate and many else None
        files.append(OutputFile(data, SUFFIX, name))
    return WriteResult(files, loss, warnings)


def _both_neutral(asset: Asset, name: str) -> bool:
    """Whether ``asset``'s name and the name it reads back with both say nothing (an icon
    with no name reads back as ``main``)."""
    neutral = neutral_values()
    return (neutral.neutral("assets[*].name", asset.name, asset)
            and neutral.neutral("assets[*].name", name, asset))


@cache
def neutral_values() -> Neutrality:
    """Core's neutral values and this format's own (Backyard's settings for a new chat)."""
    from bunzai.sdk import Neutrality

    from . import BackyardArchiveAdapter
    return Neutrality(BackyardArchiveAdapter.neutral)


class _Builder:
    """One archive from one or more characters."""

    def __init__(self, entities: list[Character], fmt: str, settings: dict[str, Any],
                 warnings: list[str]) -> None:
        self.entities = entities
        self.fmt = fmt
        self.settings = settings
        self.warnings = warnings
        self.losses = [LossReport() for _ in entities]
        pairs = [kept(e, fmt) for e in entities]
        self.layouts = [p[0] or {} for p in pairs]
        self.datas = [p[1] or {} for p in pairs]
        archives = [record(layout, "archive") for layout in self.layouts]
        first = archives[0]
        self.source = first if first is not None and all(
            a is not None and same(a, first) for a in archives) else None
        self.ids: list[str] = []
        self.members: dict[str, bytes] = {}
        self.scenario_paths: list[str] = []
        self.scenarios: dict[str, dict[str, Any]] = {}
        self.images: list[list[tuple[int, int, dict[str, Any]]]] = [[] for _ in entities]
        """Per character: (asset index, final item index, item) of each image written."""
        self.dropped: list[set[int]] = [set() for _ in entities]
        """Per character: asset indexes the writer dropped (and reported)."""

    # -- the archive ---------------------------------------------------------------------------

    def build(self) -> tuple[bytes, list[LossReport]]:
        char_paths: list[str] = []
        char_entries: list[tuple[str, bytes]] = []
        self.ids = self._ids()
        for i, (ch, cid) in enumerate(zip(self.entities, self.ids, strict=True)):
            path = self._character_path(i, cid, char_paths)
            char_paths.append(path)
            obj, images = self._character(i, ch, cid, path)
            char_entries.extend(images)
            char_entries.append((path, _json(obj)))
        for i, (ch, cid) in enumerate(zip(self.entities, self.ids, strict=True)):
            self._scenarios(i, ch, cid)
        manifest = self._manifest(char_paths)
        entries = [("manifest.json", _json(manifest)), *char_entries]
        entries.extend((p, _json(self.scenarios[p])) for p in self._ordered_scenarios())
        entries.extend((p, d) for p, d in self.members.items())
        data = write_zip(entries, compress=False, dirs=True, like=self.entities)
        if len(char_paths) > 1:
            self.warnings.append(f"the archive holds {len(char_paths)} characters, as Ginger "
                                 "writes them; the BYAF schema (and Backyard) accept one "
                                 "(use the separate option for one archive each)")
        for i, ch in enumerate(self.entities):
            self._report(i, ch, manifest)
        return data, self.losses

    def _ids(self) -> list[str]:
        out: list[str] = []
        for n, (ch, layout) in enumerate(zip(self.entities, self.layouts, strict=True), 1):
            raw = layout.get("cid")
            base = raw if isinstance(raw, str) and raw else slug(ch.name, f"character{n}")
            cid = base
            k = 2
            while cid in out:
                cid = f"{base}-{k}"
                k += 1
            out.append(cid)
        return out

    def _character_path(self, i: int, cid: str, taken: list[str]) -> str:
        layout = self.layouts[i]
        stored = layout.get("path")
        if isinstance(stored, str) and stored not in taken and (
                layout.get("cid") == cid or stored.split("/")[-2:-1] == [cid]):
            return stored
        return f"characters/{slug(cid, 'character')}/character.json"

    def _manifest(self, char_paths: list[str]) -> dict[str, Any]:
        src = self.source
        data = self.datas[0]
        keep = record(src, "keep") or {}
        out: dict[str, Any] = dict(keep) if src else {"schemaVersion": 1,
                                                      "createdAt": format_time(None)}
        out.update((k[len("manifest."):], v) for k, v in data.items()
                   if k.startswith("manifest."))
        put(out, "author", self._author())
        out["characters"] = char_paths
        out["scenarios"] = self._ordered_scenarios()
        order = src.get("order") if src else None
        return reorder(out, order if isinstance(order, list) else MANIFEST_ORDER)

    def _author(self) -> Any:
        """The manifest author: the source's object with the creator as its name, or for a new
        archive the creator with the author's Backyard URL.  Backyard's reader takes an author
        only with both a name and a URL, and a URL the source did not have would be an invented
        value (SillyTavern shows it as the creator notes), so without one there is no author."""
        creator = self.entities[0].creator
        data = self.datas[0]
        order = self.source.get("author") if self.source else None
        junk = data.get("author", ABSENT)
        if junk is not ABSENT and not creator:
            return junk
        extra = {k[len("author."):]: v for k, v in data.items() if k.startswith("author.")}
        if creator:
            extra["name"] = creator
        elif isinstance(order, list) and "name" in order and "name" not in extra:
            extra["name"] = ""
        if isinstance(order, list):
            return reorder(extra, order)
        url = extra.get("backyardURL")
        if not creator or not (isinstance(url, str) and url):
            return ABSENT
        return reorder(extra, ("name", "backyardURL"))

    def _ordered_scenarios(self) -> list[str]:
        if not self.source:
            return list(self.scenario_paths)
        listed = record(self.source, "keep") or {}
        stored = [p for p in listed.get("scenarios") or [] if p in self.scenarios]
        return stored + [p for p in self.scenario_paths if p not in stored]

    # -- one character -------------------------------------------------------------------------

    def _character(self, i: int, ch: Character, cid: str, path: str
                   ) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
        layout, data = self.layouts[i], self.datas[i]
        loss = self.losses[i]
        table = character_table(BYAF_KEYS)
        own = {k: v for k, v in data.items() if is_character_key(k)}
        values = character_values(ch, table, layout, own, self.settings["personality"])
        keep = record(layout, "keep") or {}
        missing = layout.get("missing") if isinstance(layout.get("missing"), list) else []
        tail: dict[str, Any] = {}
        for key in CHARACTER_LAYOUT:
            if key in keep:
                tail[key] = keep[key]
            elif not layout:
                tail[key] = {"schemaVersion": 1, "id": cid}.get(key, ABSENT)
        if layout and layout.get("cid") != cid:
            tail["id"] = cid
        tail = {k: v for k, v in tail.items() if v is not ABSENT}
        lore = write_lore(ch.lorebook, self.fmt, loss, neutral_values())
        if ch.lorebook is not None or not ("loreItems" in own or "loreItems" in missing):
            tail["loreItems"] = lore
        items, entries = self._images(i, ch, path)
        if items or not ("images" in own or "images" in missing):
            tail["images"] = items
        obj = table.write(values.get, layout, own, tail=tail)
        if not layout:
            obj = reorder(obj, CHARACTER_ORDER)
        report_character(ch, table, BYAF_KEYS, obj, loss, self.settings["personality"])
        return obj, entries

    def _images(self, i: int, ch: Character, path: str
                ) -> tuple[list[Any], list[tuple[str, bytes]]]:
        """The character's images: the main icon first, then the other icons (PNG, JPEG, WebP
        or GIF), each at its source path and with its source label where it had one."""
        loss = self.losses[i]
        data = self.datas[i]
        folder = path.rsplit("/", 1)[0] + "/"
        known = {r.get("origin"): r for r in records(self.layouts[i], "images")}
        chosen: list[tuple[int, Asset, str]] = []
        for ai in _icon_order(ch.assets):
            asset = ch.assets[ai]
            ext = _image_ext(asset)
            if asset.data is None:
                loss.dropped(f"assets[{ai}]", "a remote image; BYAF embeds its images")
                self.dropped[i].add(ai)
            elif ext is None:
                loss.dropped(f"assets[{ai}]", "BYAF images must be PNG, JPEG, WebP or GIF")
                self.dropped[i].add(ai)
            else:
                _note_damage(loss, ai, asset.data)
                chosen.append((ai, asset, ext))
        for ai, asset in enumerate(ch.assets):
            if asset.type not in ("icon", "background"):
                loss.dropped(f"assets[{ai}]", f"its type is {asset.type!r}; BYAF holds images "
                             "of the character and scenario backgrounds only")
                self.dropped[i].add(ai)
        junk = {_item_index(k): v for k, v in data.items() if _item_index(k) >= 0}
        slots = _slots(len(chosen), junk)
        items: list[Any] = []
        entries: list[tuple[str, bytes]] = []
        used: set[str] = set()
        for k, ((ai, asset, ext), index) in enumerate(zip(chosen, slots, strict=True)):
            rec = known.get(asset.origin)
            rel = rec.get("path") if rec else None
            if not isinstance(rel, str) or not rel or folder + rel in used:
                stem = slug(asset.name, f"image{k}")
                rel = f"images/{stem}.{ext}"
                n = 2
                while folder + rel in used:
                    rel = f"images/{stem}-{n}.{ext}"
                    n += 1
            used.add(folder + rel)
            item: dict[str, Any] = {"path": rel}
            label = self._label(data, index, k, asset, rec, rel)
            put(item, "label", label)
            prefix = f"images[{index}]."
            item.update((key[len(prefix):], v) for key, v in data.items()
                        if key.startswith(prefix) and key != prefix + "label")
            items.append(reorder(item, rec.get("order") if rec else None))
            entries.append((folder + rel, asset.data or b""))
            self.images[i].append((ai, index, item))
        for index in sorted(junk):
            items.insert(min(index, len(items)), junk[index])
        return items, entries

    @staticmethod
    def _label(data: Mapping[str, Any], index: int, k: int, asset: Asset,
               rec: Mapping[str, Any] | None, rel: str) -> Any:
        key = f"images[{index}].label"
        if key in data:
            return data[key]
        if rec is not None and "label" not in (rec.get("order") or ("label",)):
            return ABSENT
        stem = rel.rsplit("/", 1)[-1].rpartition(".")[0]
        if rec is not None and rec.get("label") == "" and k and asset.name == stem:
            return ""
        return "" if k == 0 else asset.name

    # -- scenarios -----------------------------------------------------------------------------

    def _scenarios(self, i: int, ch: Character, cid: str) -> None:
        layout, data = self.layouts[i], self.datas[i]
        recs = records(layout, "scenarios")
        raw_chats = data.get(SCENARIOS)
        chats = [c if isinstance(c, dict) else {} for c in raw_chats] \
            if isinstance(raw_chats, list) else []
        if layout and not recs and not chats and not _has_scenario_fields(ch) \
                and self.scenario_paths:
            return  # a party member without chats of its own (Ginger)
        others = {c for j, c in enumerate(self.ids) if j != i}
        count = max(len(recs), len(chats), 1)
        pairs = [(recs[k] if k < len(recs) else None, chats[k] if k < len(chats) else None)
                 for k in range(count)]
        primary = self._primary(i, ch, cid, others, *pairs[0])
        built: list[tuple[dict[str, Any] | None, dict[str, Any]]] = [(pairs[0][0], primary)]
        alternates = list(ch.alternate_greetings)
        for rec, chat in pairs[1:]:
            alternate = rec.get("alternate") if rec else chat is not None and \
                "firstMessages" not in chat
            obj = self._later(rec, chat, primary)
            if alternate:
                if not alternates:
                    self.warnings.append(f"{ch.name}: scenario {(rec or {}).get('path', '')} "
                                         "left out: its greeting is no longer among the "
                                         "alternate greetings")
                    continue
                greeting = alternates.pop(0)
                raw = record(rec, "raw") or {}
                if "firstMessages" in raw and greeting_of(raw["firstMessages"], others) == \
                        greeting:
                    obj["firstMessages"] = raw["firstMessages"]
                else:
                    obj["firstMessages"] = first_messages(greeting, cid, keep_empty=True)
            built.append((rec, reorder(obj, (rec or {}).get("order") or SCENARIO_ORDER)))
        for greeting in alternates:
            obj = {k: copy.deepcopy(v) for k, v in primary.items() if k not in _CLONE_DROPS}
            obj["firstMessages"] = first_messages(greeting, cid, keep_empty=True)
            obj["messages"] = []
            built.append((None, reorder(obj, SCENARIO_ORDER)))
        self._place_backgrounds(i, built, ch)
        for source, scen in built:
            if self.settings["chats"] == "drop" and "messages" in scen:
                scen["messages"] = []
            log = scen.get("messages")
            why = sillytavern_misreads(log) if isinstance(log, list) else None
            if why:
                title = scen.get("title")
                name = f"the chat {title!r}" if isinstance(title, str) and title else "a chat"
                self.warnings.append(f"{ch.name}: {name} ({len(log)} messages): {why}")
            stored = source.get("path") if source else None
            if self.source is not None and isinstance(stored, str):
                if stored in self.scenarios:
                    continue  # shared with a character already written
                spath = stored
            elif isinstance(stored, str) and stored not in self.scenarios:
                spath = stored
            else:
                spath = self._free_scenario_path()
            self.scenarios[spath] = scen
            self.scenario_paths.append(spath)

    def _primary(self, i: int, ch: Character, cid: str, others: set[str],
                 rec: dict[str, Any] | None, chat: dict[str, Any] | None) -> dict[str, Any]:
        obj: dict[str, Any] = {} if rec else dict(NEW_SCENARIO)
        obj.update(copy.deepcopy(record(rec, "keep") or {}))
        obj.update(copy.deepcopy(chat or {}))
        mapped = {n: obj[n] for f in SCENARIO.fields for n, _ in f.names if n in obj}
        obj.update(SCENARIO.write(lambda attr: getattr(ch, attr), record(rec, "table"),
                                  mapped))
        order = rec.get("order") if rec else None
        raw = record(rec, "raw") or {}
        for key, value, read, build in (
                ("firstMessages", ch.first_mes, greeting_of, first_messages),
                ("exampleMessages", ch.mes_example, examples_of, example_messages)):
            if key in raw and (read(raw[key], others) or "") == value:
                obj[key] = raw[key]
            elif key in obj and not isinstance(obj[key], list) and not value:
                pass  # a value no list holds, kept as it was
            elif isinstance(order, list) and key not in order and not value:
                obj.pop(key, None)
            else:
                obj[key] = build(value, cid)
        if i and not rec and not obj.get("firstMessages") and not obj.get("exampleMessages"):
            # a scenario naming no character goes with the archive's first one when read
            obj["firstMessages"] = first_messages("", cid, keep_empty=True)
        return reorder(obj, order if isinstance(order, list) else SCENARIO_ORDER)

    @staticmethod
    def _later(rec: dict[str, Any] | None, chat: dict[str, Any] | None,
               primary: dict[str, Any]) -> dict[str, Any]:
        """A later scenario: its own data, its layout keys, and the first scenario's narrative,
        instructions and examples where it had them too (or, new, where it has none)."""
        obj: dict[str, Any] = {} if rec else dict(NEW_SCENARIO)
        obj.update(copy.deepcopy(record(rec, "keep") or {}))
        obj.update(copy.deepcopy(chat or {}))
        order = rec.get("order") if rec else None
        for key in SCENARIO_FIELDS:
            if key not in obj and key in primary and (
                    not isinstance(order, list) or key in order):
                obj[key] = copy.deepcopy(primary[key])
        if "firstMessages" not in obj and (not isinstance(order, list)
                                           or "firstMessages" in order):
            obj["firstMessages"] = []
        return obj

    def _free_scenario_path(self) -> str:
        n = len(self.scenarios) + 1
        while f"scenarios/scenario{n}.json" in self.scenarios:
            n += 1
        return f"scenarios/scenario{n}.json"

    def _place_backgrounds(self, i: int, built: list[tuple[dict[str, Any] | None,
                                                           dict[str, Any]]],
                           ch: Character) -> None:
        """Put background bytes where scenarios point; attach unplaced ones to new scenarios."""
        loss = self.losses[i]
        backgrounds = [(k, a) for k, a in enumerate(ch.assets) if a.type == "background"]
        by_origin = {a.origin: (k, a) for k, a in backgrounds if a.origin}
        placed: set[int] = set()
        for _, obj in built:
            ref = obj.get("backgroundImage")
            if not isinstance(ref, str) or not ref:
                continue
            hit = by_origin.get(ref)
            if hit is None or hit[1].data is None:
                del obj["backgroundImage"]
                continue
            placed.add(hit[0])
            self.members.setdefault(ref, hit[1].data)
        usable: list[tuple[int, bytes, str, str]] = []
        for k, asset in backgrounds:
            if k in placed:
                continue
            ext = _image_ext(asset)
            if asset.data is None or ext is None:
                loss.dropped(f"assets[{k}]", "BYAF backgrounds must be embedded PNG, JPEG, "
                             "WebP or GIF images")
                self.dropped[i].add(k)
            else:
                _note_damage(loss, k, asset.data)
                usable.append((k, asset.data, ext, asset.name))
        free = [obj for _, obj in built if not obj.get("backgroundImage")]
        for j, (k, _, _, _) in enumerate(usable):
            if j >= len(free):
                loss.dropped(f"assets[{k}]", "each BYAF scenario holds one background")
                self.dropped[i].add(k)
        refs: list[str] = []
        for _, body, ext, name in usable[:len(free)]:
            # a later background is read back under its file name, so name the file after it
            stem = (slug(name, "background") if refs and name != "main" else
                    f"scenario{len(self.scenarios) + len(refs) + 1}-background")
            ref = f"scenarios/{stem}.{ext}"
            n = 2
            while ref in self.members:
                ref = f"scenarios/background{n}.{ext}"
                n += 1
            self.members[ref] = body
            refs.append(ref)
        if not refs:
            return
        for j, obj in enumerate(free):
            if j < len(refs):
                obj["backgroundImage"] = refs[j]
            elif not any(r is not None for r, _ in built):
                obj["backgroundImage"] = refs[0]  # new greeting scenarios share the main one

    # -- what reads back differently -----------------------------------------------------------

    def _report(self, i: int, ch: Character, manifest: Mapping[str, Any]) -> None:
        """Report what reading the archive gives differently for character ``i``, from the
        objects written (the reader's mapping functions, no archive read)."""
        loss = self.losses[i]
        others = {c for j, c in enumerate(self.ids) if j != i}
        owned = [(p, self.scenarios[p]) for p in self._ordered_scenarios()
                 if i in owners_of(self.scenarios[p], self.ids)]
        card = {"scenario": "", "system_prompt": "", "first_mes": "", "mes_example": ""}
        alternates: list[str] = []
        chats: list[dict[str, Any]] = []
        backgrounds: list[Asset] = []
        primary: dict[str, Any] | None = None
        for _path, scen in owned:
            values, chat, _ = split_scenario(scen, primary, others)
            chats.append(chat)
            if primary is None:
                primary = scen
                card.update((k, v) for k, v in values.items() if k in card)
            elif "greeting" in values:
                alternates.append(values["greeting"])
            ref = scen.get("backgroundImage")
            if isinstance(ref, str) and ref in self.members and \
                    all(a.origin != ref for a in backgrounds):
                body = self.members[ref]
                backgrounds.append(background_asset(ref, body, sniff_media(body)[0],
                                                    first=not backgrounds))
        for field, value in card.items():
            if value != getattr(ch, field):
                loss.approximated(field, MACRO_CLASH if field != "mes_example" else
                                  "BYAF keeps example dialogues as blocks headed by <START>, "
                                  "in Backyard's macro spelling")
        if alternates != ch.alternate_greetings:
            loss.approximated("alternate_greetings", "each greeting is a Backyard chat of its "
                              "own, read back in the archive's order and Backyard's macro "
                              "spelling")
        self._report_chats(i, chats)
        self._report_assets(i, ch, backgrounds)
        self._report_author(i, ch, manifest)

    def _report_chats(self, i: int, chats: list[dict[str, Any]]) -> None:
        loss = self.losses[i]
        raw = self.datas[i].get(SCENARIOS)
        before = [c if isinstance(c, dict) else {} for c in raw] if isinstance(raw, list) \
            else []
        base = f"app_data.{self.fmt}.{SCENARIOS}"
        neutral = neutral_values()

        def empty(key: str, value: Any) -> bool:
            return neutral.neutral(f"{base}[*].{key}", value)

        for k in range(max(len(before), len(chats))):
            a = before[k] if k < len(before) else None
            b = chats[k] if k < len(chats) else None
            if a is None or b is None:
                present = a if b is None else b
                if present is not None and not neutral.neutral(f"{base}[*]", present):
                    if b is None:
                        loss.dropped(f"{base}[{k}]", "its greeting is no longer among the "
                                     "alternate greetings, so its Backyard chat is left out")
                    else:
                        loss.approximated(f"{base}[{k}]", "a new greeting gets a Backyard chat "
                                          "of its own, with the first chat's settings")
                continue
            for key in sorted(set(a) | set(b)):
                x, y = a.get(key, ABSENT), b.get(key, ABSENT)
                if x is ABSENT or y is ABSENT:
                    if empty(key, y if x is ABSENT else x):
                        continue
                elif same(x, y) or (empty(key, x) and empty(key, y)):
                    continue
                if key == "messages" and self.settings["chats"] == "drop":
                    loss.dropped(f"{base}[{k}].{key}", "chats=drop empties the chat logs")
                else:
                    loss.approximated(f"{base}[{k}].{key}", "the chats were rebuilt around the "
                                      "character's greetings")

    def _report_assets(self, i: int, ch: Character, backgrounds: list[Asset]) -> None:
        loss = self.losses[i]
        written = self.images[i]
        labels = [item.get("label") for _, _, item in written]
        names = image_names(labels, [item["path"] for _, _, item in written])
        after: list[tuple[int | None, str, str, bytes | None]] = [
            (ai, "icon", name, ch.assets[ai].data)
            for (ai, _, _), name in zip(written, names, strict=True)]
        after += [(next((k for k, a in enumerate(ch.assets) if a.type == "background"
                         and a.data == b.data and k not in self.dropped[i]), None),
                   "background", b.name, b.data) for b in backgrounds]
        before = ch.assets
        for k, asset in enumerate(before):
            if k in self.dropped[i]:
                continue
            # where it reads back is layout (the portrait first, then the other images, then
            # the backgrounds): what it reads back as is not
            got = next((a for a in after if a[0] == k), None)
            if got is None:
                loss.approximated(f"assets[{k}]", "each BYAF scenario holds one background")
            elif (got[1], got[3]) != (asset.type, asset.data):
                loss.approximated(f"assets[{k}]", "Backyard holds images of the character and "
                                  "scenario backgrounds: it reads back as " + (
                                      "an image of the character" if got[1] == "icon"
                                      else "a background"))
            elif got[2] != asset.name and not _both_neutral(asset, got[2]):
                loss.approximated(f"assets[{k}].name", "Backyard names images by their label "
                                  "(the first is the portrait) and backgrounds by file name")
        before_data = {key: v for key, v in self.datas[i].items() if key.startswith("images[")}
        after_data: dict[str, Any] = {}
        for k, ((_, index, item), name) in enumerate(zip(written, names, strict=True)):
            after_data.update(image_data(index, item, name, k == 0))
        after_data.update((key, v) for key, v in before_data.items() if _item_index(key) >= 0)
        self._report_data(i, before_data, after_data, "an image's label follows its place "
                          "among the character's images")

    def _report_author(self, i: int, ch: Character, manifest: Mapping[str, Any]) -> None:
        loss = self.losses[i]
        author = manifest.get("author", ABSENT)
        name = author.get("name") if isinstance(author, Mapping) else None
        creator = name if isinstance(name, str) else ""
        if creator != ch.creator:
            if not creator:
                loss.dropped("creator", "a BYAF author needs a Backyard profile URL next to the "
                             "name and the source has none; bunzai does not invent one")
            else:
                loss.approximated("creator", "an archive has one author, the first "
                                  "character's creator")
        after: dict[str, Any] = {}
        if isinstance(author, Mapping):
            after.update((f"author.{k}", v) for k, v in author.items()
                         if k != "name" or not isinstance(v, str))
        elif author is not ABSENT:
            after["author"] = author
        after.update((f"manifest.{k}", v) for k, v in manifest.items()
                     if k not in ("schemaVersion", "$schema", "createdAt", "characters",
                                  "scenarios", "author"))
        before = {k: v for k, v in self.datas[i].items()
                  if k == "author" or k.startswith(("author.", "manifest."))}
        self._report_data(i, before, after, "an archive has one author and one manifest, the "
                          "first character's")

    def _report_data(self, i: int, before: Mapping[str, Any], after: Mapping[str, Any],
                     why: str) -> None:
        """App data keys of character ``i`` that read back otherwise (``after``)."""
        for key in sorted(set(before) | set(after)):
            x, y = before.get(key, ABSENT), after.get(key, ABSENT)
            if x is ABSENT and y in ("", None):
                continue
            if x is ABSENT or y is ABSENT or not same(x, y):
                self.losses[i].approximated(f"app_data.{self.fmt}.{key}", why)


def _note_damage(loss: LossReport, index: int, data: bytes) -> None:
    """Say what Backyard gets of a damaged PNG picture (it goes along as it is)."""
    if sniff_media(data[:64])[0] != "image/png":
        return
    damage = image_damage(data)
    if damage is not None:
        loss.stashed(f"assets[{index}]", f"the picture is damaged: {damage}; the archive "
                                         "carries it as it is, and Backyard shows it broken or "
                                         "not at all")


def _json(obj: Any) -> bytes:
    return dumps(obj, indent=2)


def _item_index(key: str) -> int:
    """``images[3]`` -> 3 (an image item no asset holds); -1 for any other key."""
    if not key.startswith("images[") or not key.endswith("]"):
        return -1
    digits = key[len("images["):-1]
    return int(digits) if digits.isdigit() else -1


def _slots(count: int, junk: Mapping[int, Any]) -> list[int]:
    """The item indexes of ``count`` images written around items kept at ``junk``'s indexes."""
    out: list[int] = []
    index = 0
    while len(out) < count:
        if index not in junk:
            out.append(index)
        index += 1
    return out


def _icon_order(assets: list[Asset]) -> list[int]:
    icons = [i for i, a in enumerate(assets) if a.type == "icon"]
    main = [i for i in icons if assets[i].name == "main"][:1]
    return main + [i for i in icons if i not in main]


def _image_ext(asset: Asset) -> str | None:
    media = asset.media_type
    if asset.data is not None and (media is None or media not in IMAGE_EXT):
        media, _ = sniff_media(asset.data)
    ext = IMAGE_EXT.get(media or "")
    if ext == "jpg" and asset.ext in ("jpg", "jpeg", "JPG", "JPEG"):
        return asset.ext.lower()
    return ext


def _has_scenario_fields(ch: Character) -> bool:
    return bool(ch.scenario or ch.system_prompt or ch.first_mes or ch.mes_example
                or ch.alternate_greetings)

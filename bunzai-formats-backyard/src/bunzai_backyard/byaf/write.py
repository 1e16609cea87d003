"""Writing canonical characters as a Backyard Archive (BYAF v1).

Output follows the reference writer: every entry STORE, directory entries present, the manifest
first, JSON indented with two spaces, UTC ``Z`` timestamps and no key the official schemas do not
define (unless the source archive had it: a BYAF round trip restores what it read).

A card becomes one scenario holding narrative, instructions, examples and the greeting, plus one
scenario per alternate greeting (how Backyard models several greetings).  New scenarios use
Backyard's defaults for a new character's samplers.  A character read from BYAF gets its
scenarios, samplers, chat logs and backgrounds back from passthrough, with the card fields taken
from the canonical model so edits win.

Several characters go into one archive (``characters/<id>/`` each, as Ginger writes them) unless
the ``separate`` option asks for one archive per character.  Characters read from the same
archive are put back together, sharing their scenarios.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.containers.media import sniff_media
from bunzai.containers.zipsafe import write_zip
from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._common.character import BYAF_KEYS, MACRO_CLASH, report_card_only, write_fields
from .._common.macros import card_survives, split_examples, to_backyard
from .._common.util import (
    ABSENT,
    digest,
    format_time,
    lookup,
    ordered,
    put,
    slug,
)
from .read import FMT, SCENARIO_FIELDS, example_messages, first_messages

if TYPE_CHECKING:
    from bunzai.model import Asset, Character

SUFFIX = ".byaf"
MANIFEST_ORDER = ("schemaVersion", "createdAt", "author", "characters", "scenarios")
CHARACTER_ORDER = ("schemaVersion", "id", "name", "displayName", "isNSFW", "persona",
                   "createdAt", "updatedAt", "loreItems", "images")
SCENARIO_ORDER = ("schemaVersion", "title", "model", "formattingInstructions", "minP",
                  "minPEnabled", "temperature", "repeatPenalty", "repeatLastN", "topK", "topP",
                  "backgroundImage", "exampleMessages", "canDeleteExampleMessages",
                  "firstMessages", "narrative", "promptTemplate", "grammar", "messages")
NEW_SCENARIO: dict[str, Any] = {
    "schemaVersion": 1,
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
"""Backyard's settings for a new character's chat (as Ginger mirrors them)."""
IMAGE_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}
_CLONE_DROPS = ("messages", "title")
"""Keys of the first scenario a new greeting scenario does not inherit (its own chat)."""


def _pt(ch: Character) -> dict[str, Any]:
    value = ch.passthrough.get(FMT)
    return value if isinstance(value, dict) else {}


def write_archive(entities: Sequence[Character], options: Mapping[str, Any]) -> WriteResult:
    separate = bool(options.get("separate"))
    settings = {"chats": options.get("chats", "keep"),
                "personality": options.get("personality", "append")}
    groups = [[e] for e in entities] if separate else [list(entities)]
    loss = LossReport()
    warnings: list[str] = []
    files: list[OutputFile] = []
    many = len(entities) > 1
    for gi, group in enumerate(groups):
        data, group_losses = _Builder(group, settings, warnings).build()
        for offset, report in enumerate(group_losses):
            index = gi if separate else offset
            loss.extend(report, f"[{index}]." if many else "")
        name = (group[0].name or None) if separate and many else None
        files.append(OutputFile(data, SUFFIX, name))
    return WriteResult(files, loss, warnings)


class _Builder:
    """One archive from one or more characters."""

    def __init__(self, entities: list[Character], settings: dict[str, Any],
                 warnings: list[str]) -> None:
        self.entities = entities
        self.settings = settings
        self.warnings = warnings
        self.losses = [LossReport() for _ in entities]
        manifests = [_pt(e).get("manifest") for e in entities]
        first = manifests[0]
        self.reassemble = isinstance(first, dict) and all(
            isinstance(m, dict) and digest(m) == digest(first) for m in manifests)
        self.source = first if isinstance(first, dict) else None
        self.entries: list[tuple[str, bytes]] = []
        self.members: set[str] = set()
        self.scenario_paths: list[str] = []
        self.scenarios: dict[str, dict[str, Any]] = {}
        self.backgrounds: list[tuple[str, bytes]] = []

    # -- the archive ---------------------------------------------------------------------------

    def build(self) -> tuple[bytes, list[LossReport]]:
        char_paths: list[str] = []
        char_entries: list[tuple[str, bytes]] = []
        ids = self._ids()
        for i, (ch, cid) in enumerate(zip(self.entities, ids, strict=True)):
            path = self._character_path(ch, cid, char_paths)
            char_paths.append(path)
            obj, images = self._character(ch, cid, path, self.losses[i])
            char_entries.extend(images)
            char_entries.append((path, _json(obj)))
            self._scenarios(ch, cid, self.losses[i])
        manifest = self._manifest(char_paths)
        entries = [("manifest.json", _json(manifest)), *char_entries]
        entries.extend((p, _json(self.scenarios[p])) for p in self._ordered_scenarios())
        entries.extend(self.backgrounds)
        data = write_zip(entries, compress=False, dirs=True)
        if len(char_paths) > 1:
            self.warnings.append(f"the archive holds {len(char_paths)} characters, as Ginger "
                                 "writes them; the BYAF schema (and Backyard) accept one "
                                 "(use the separate option for one archive each)")
        self._check(data)
        return data, self.losses

    def _check(self, data: bytes) -> None:
        """Read the archive back and report every canonical difference not yet reported."""
        from bunzai.compare import diff_paths
        from bunzai.input import AdapterInput

        from .read import read_archive

        back = read_archive(AdapterInput(data, "check.byaf"), {}).entities
        for i, ch in enumerate(self.entities):
            loss = self.losses[i]
            if i >= len(back):
                loss.dropped("$", "the character could not be written")
                continue
            for path in diff_paths(ch, back[i]):
                if loss.covers(path):
                    continue
                if path.endswith(".origin"):
                    loss.approximated(path, "now names the asset's place in the archive")
                elif path.endswith(".uri"):
                    loss.approximated(path, "BYAF refers to files by archive path, not URI")
                elif path.endswith(".ext"):
                    loss.approximated(path, "the file name's extension follows the bytes")
                else:
                    loss.approximated(path, "BYAF cannot hold this value exactly")

    def _ids(self) -> list[str]:
        out: list[str] = []
        for n, ch in enumerate(self.entities, 1):
            raw = _pt(ch).get("cid")
            base = raw if isinstance(raw, str) and raw else slug(ch.name, f"character{n}")
            cid = base
            k = 2
            while cid in out:
                cid = f"{base}-{k}"
                k += 1
            out.append(cid)
        return out

    def _character_path(self, ch: Character, cid: str, taken: list[str]) -> str:
        pt = _pt(ch)
        stored = pt.get("path")
        if isinstance(stored, str) and stored not in taken and (
                pt.get("cid") == cid or stored.split("/")[-2:-1] == [cid]):
            return stored
        return f"characters/{slug(cid, 'character')}/character.json"

    def _manifest(self, char_paths: list[str]) -> dict[str, Any]:
        src = self.source if self.reassemble else None
        rest = dict(src.get("rest", {})) if src else {}
        out: dict[str, Any] = {"schemaVersion": 1, "createdAt": format_time(None), **rest}
        creator = self.entities[0].creator
        author = _author(creator, src.get("author", ABSENT) if src else ABSENT)
        if creator and author is ABSENT:
            self.losses[0].dropped("creator", "a BYAF author needs a Backyard profile URL "
                                   "next to the name and the source has none; bunzai does not "
                                   "invent one")
        put(out, "author", author)
        out["characters"] = char_paths
        out["scenarios"] = self._ordered_scenarios()
        return ordered(out, src.get("order") if src else MANIFEST_ORDER)

    def _ordered_scenarios(self) -> list[str]:
        if not self.reassemble or not self.source:
            return list(self.scenario_paths)
        stored = [p for p in self.source.get("scenarios", []) if p in self.scenarios]
        return stored + [p for p in self.scenario_paths if p not in stored]

    # -- one character -------------------------------------------------------------------------

    def _character(self, ch: Character, cid: str, path: str, loss: LossReport
                   ) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
        pt = _pt(ch)
        guards = pt.get("guards") if isinstance(pt.get("guards"), dict) else None
        rest = pt.get("rest")
        obj: dict[str, Any] = dict(rest) if isinstance(rest, dict) else {"schemaVersion": 1}
        if pt.get("cid") != cid or not isinstance(rest, dict):
            obj["id"] = cid  # the source's own id (or its absence) stays when it is unchanged
        obj.update(write_fields(ch, BYAF_KEYS, FMT, guards, loss,
                                personality=self.settings["personality"]))
        images, entries = self._images(ch, path, pt, loss)
        if images or not pt.get("no_images"):
            obj["images"] = images
        report_card_only(ch, loss, extensions_why="BYAF has no place for app extension data")
        return ordered(obj, pt.get("order") or CHARACTER_ORDER), entries

    def _images(self, ch: Character, path: str, pt: dict[str, Any], loss: LossReport
                ) -> tuple[list[dict[str, Any]], list[tuple[str, bytes]]]:
        folder = path.rsplit("/", 1)[0] + "/"
        stored = {s.get("origin"): s for s in pt.get("images", []) if isinstance(s, dict)}
        order = _icon_order(ch.assets)
        items: list[dict[str, Any]] = []
        entries: list[tuple[str, bytes]] = []
        used: set[str] = set()
        for ai in order:
            asset = ch.assets[ai]
            ext = _image_ext(asset)
            if asset.data is None:
                loss.dropped(f"assets[{ai}]", "a remote image; BYAF embeds its images")
                continue
            if ext is None:
                loss.dropped(f"assets[{ai}]", "BYAF images must be PNG, JPEG, WebP or GIF")
                continue
            known = stored.get(asset.origin)
            item: dict[str, Any] | None = None
            if known is not None and isinstance(known.get("item"), dict):
                item = dict(known["item"])
                rel = item.get("path")
                if not isinstance(rel, str) or folder + rel in used:
                    item = None
                elif known.get("name") != asset.name and asset.name != "main":
                    item["label"] = asset.name
            if item is None:
                stem = slug(asset.name, f"image{len(items)}")
                rel = f"images/{stem}.{ext}"
                k = 2
                while folder + rel in used:
                    rel = f"images/{stem}-{k}.{ext}"
                    k += 1
                item = {"path": rel, "label": asset.name}
            used.add(folder + item["path"])
            items.append(item)
            entries.append((folder + item["path"], asset.data))
        for ai, asset in enumerate(ch.assets):
            if asset.type not in ("icon", "background"):
                loss.dropped(f"assets[{ai}]", f"a {asset.type} asset; BYAF holds character "
                             "images and scenario backgrounds only")
        return items, entries

    # -- scenarios -----------------------------------------------------------------------------

    def _scenarios(self, ch: Character, cid: str, loss: LossReport) -> None:
        pt = _pt(ch)
        records = [r for r in pt.get("scenarios", []) if isinstance(r, dict)]
        if pt and not records and not _has_scenario_fields(ch) and self.scenario_paths:
            return  # a party member without chats of its own (Ginger)
        primary_record = records[0] if records else None
        primary = self._primary(ch, cid, primary_record, loss)
        backgrounds = self._background_assets(ch)
        built: list[tuple[dict[str, Any] | None, dict[str, Any]]] = [(primary_record, primary)]
        alternates = list(ch.alternate_greetings)
        for record in records[1:]:
            role = record.get("role")
            obj = self._from_record(record, primary)
            if role == "alternate":
                if not alternates:
                    self.warnings.append(f"{ch.name}: scenario {record.get('path')} left out: "
                                         "its greeting is no longer among the alternate "
                                         "greetings")
                    continue
                greeting = alternates.pop(0)
                g = record.get("guards") if isinstance(record.get("guards"), dict) else None
                hit, first = lookup(g, "firstMessages", greeting)
                obj["firstMessages"] = first if hit else first_messages(greeting, cid)
                if not hit and not card_survives(greeting, True):
                    loss.approximated("alternate_greetings", MACRO_CLASH)
            built.append((record, ordered(obj, record.get("order") or SCENARIO_ORDER)))
        for greeting in alternates:
            obj = {k: copy.deepcopy(v) for k, v in primary.items() if k not in _CLONE_DROPS}
            obj["firstMessages"] = first_messages(greeting, cid)
            obj["messages"] = []
            if not card_survives(greeting, True):
                loss.approximated("alternate_greetings", MACRO_CLASH)
            built.append((None, ordered(obj, SCENARIO_ORDER)))
        self._place_backgrounds(built, backgrounds, ch, loss)
        for source, scen in built:
            if self.settings["chats"] == "drop":
                scen["messages"] = []
            stored = source.get("path") if source else None
            if self.reassemble and isinstance(stored, str):
                if stored in self.scenarios:
                    continue  # shared with a character already written
                spath = stored
            elif isinstance(stored, str) and stored not in self.scenarios:
                spath = stored
            else:
                spath = self._free_scenario_path()
            self.scenarios[spath] = scen
            self.scenario_paths.append(spath)

    def _primary(self, ch: Character, cid: str, record: dict[str, Any] | None,
                 loss: LossReport) -> dict[str, Any]:
        g = record.get("guards") if record and isinstance(record.get("guards"), dict) else None
        base = record.get("rest") if record and isinstance(record.get("rest"), dict) else None
        obj: dict[str, Any] = copy.deepcopy(base) if base is not None else dict(NEW_SCENARIO)
        if base is None:
            obj["messages"] = []
        for key, value, field in (("narrative", ch.scenario, "scenario"),
                                  ("formattingInstructions", ch.system_prompt, "system_prompt")):
            hit, raw = lookup(g, key, value)
            if not hit:
                raw = to_backyard(value)
                if not card_survives(value):
                    loss.approximated(field, MACRO_CLASH)
            put(obj, key, raw)
        hit, raw = lookup(g, "firstMessages", ch.first_mes)
        if not hit:
            raw = first_messages(ch.first_mes, cid)
            if not card_survives(ch.first_mes, True):
                loss.approximated("first_mes", MACRO_CLASH)
        put(obj, "firstMessages", raw)
        hit, raw = lookup(g, "exampleMessages", ch.mes_example)
        if not hit:
            blocks = split_examples(ch.mes_example)
            raw = example_messages(blocks, cid)
            if "\n".join("<START>\n" + b for b in blocks) != ch.mes_example or any(
                    not card_survives(b, True) for b in blocks):
                loss.approximated("mes_example", "BYAF keeps example dialogues as blocks "
                                  "headed by <START>, in Backyard's macro spelling")
        put(obj, "exampleMessages", raw)
        return ordered(obj, record.get("order") if record else SCENARIO_ORDER)

    def _from_record(self, record: dict[str, Any], primary: dict[str, Any]) -> dict[str, Any]:
        rest = record.get("rest")
        obj: dict[str, Any] = copy.deepcopy(rest) if isinstance(rest, dict) else {}
        for key in record.get("inherit", []):
            if key in SCENARIO_FIELDS and key in primary:
                obj[key] = copy.deepcopy(primary[key])
        return obj

    def _free_scenario_path(self) -> str:
        n = len(self.scenarios) + 1
        while f"scenarios/scenario{n}.json" in self.scenarios:
            n += 1
        return f"scenarios/scenario{n}.json"

    def _background_assets(self, ch: Character) -> list[tuple[int, Asset]]:
        return [(i, a) for i, a in enumerate(ch.assets) if a.type == "background"]

    def _place_backgrounds(self, built: list[tuple[dict[str, Any] | None, dict[str, Any]]],
                           backgrounds: list[tuple[int, Asset]], ch: Character,
                           loss: LossReport) -> None:
        """Put background bytes where scenarios point; attach unplaced ones to new scenarios."""
        by_origin = {a.origin: (i, a) for i, a in backgrounds if a.origin}
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
            self._add_member(ref, hit[1].data)
        usable: list[tuple[int, bytes, str, str]] = []
        for i, asset in backgrounds:
            if i in placed:
                continue
            ext = _image_ext(asset)
            if asset.data is None or ext is None:
                loss.dropped(f"assets[{i}]", "BYAF backgrounds must be embedded PNG, JPEG, "
                             "WebP or GIF images")
            else:
                usable.append((i, asset.data, ext, asset.name))
        free = [obj for _, obj in built if not obj.get("backgroundImage")]
        for j, (i, _, _, _) in enumerate(usable):
            if j >= len(free):
                loss.dropped(f"assets[{i}]", "each BYAF scenario holds one background")
        refs: list[str] = []
        for i, data, ext, name in usable[:len(free)]:
            # a later background is read back under its file name, so name the file after it
            stem = (slug(name, "background") if refs and name != "main" else
                    f"scenario{len(self.scenarios) + len(refs) + 1}-background")
            ref = f"scenarios/{stem}.{ext}"
            k = 2
            while ref in self.members:
                ref = f"scenarios/background{k}.{ext}"
                k += 1
            self._add_member(ref, data)
            refs.append(ref)
            placed.add(i)
        if not refs:
            return
        for j, obj in enumerate(free):
            if j < len(refs):
                obj["backgroundImage"] = refs[j]
            elif not any(r is not None for r, _ in built):
                obj["backgroundImage"] = refs[0]  # new greeting scenarios share the main one

    def _add_member(self, path: str, data: bytes) -> None:
        if path not in self.members:
            self.members.add(path)
            self.backgrounds.append((path, data))


def _author(creator: str, stored: Any) -> Any:
    """The manifest author: the source's as it was while its name is the creator, else the
    creator with the source's profile URL.  Backyard's reader wants both or no author at all,
    and a URL the source did not have would be an invented value (SillyTavern shows it as the
    creator notes), so without one there is no author."""
    name = stored.get("name") if isinstance(stored, Mapping) else None
    if stored is not ABSENT and (name if isinstance(name, str) else "") == creator:
        return stored
    url = stored.get("backyardURL") if isinstance(stored, Mapping) else None
    if not creator or not (isinstance(url, str) and url):
        return ABSENT
    return {"name": creator, "backyardURL": url}


def _json(obj: Any) -> bytes:
    return dumps(obj, indent=2)


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

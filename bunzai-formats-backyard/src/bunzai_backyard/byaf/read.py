"""Reading a Backyard Archive (BYAF v1) into canonical characters.

Layout: ``manifest.json`` lists ``characters/<id>/character.json`` and ``scenarios/*.json``.
Character images are relative to the character's folder, scenario backgrounds to the archive
root.  Every path the archive names is checked before use and only ever looked up as a zip
member (core's :class:`~bunzai.containers.zipsafe.SafeZip` has already refused unsafe entry
names, bombs and corrupt directories).

Each scenario is one Backyard chat: the first scenario of a character gives the card fields
(narrative -> scenario, formattingInstructions -> system_prompt, exampleMessages -> mes_example,
its greeting -> first_mes), later scenarios' greetings become alternate greetings.  Everything a
card cannot hold (samplers, model, prompt template, grammar, chat log, backgrounds' placement,
per-scenario differences) is kept in ``passthrough["backyard-byaf"]`` for BYAF round trips.

Several characters (Ginger writes such archives) give one Character each.  A scenario goes with
every character it references through ``firstMessages[].characterID`` or
``exampleMessages[].characterID``; a scenario that references no character of the archive goes
with the first character.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.containers.media import sniff_media
from bunzai.containers.zipsafe import entry_name_problem
from bunzai.errors import MalformedInput
from bunzai.frozen import thaw
from bunzai.types import Issue, ReadResult

from .._common.character import BYAF_KEYS, read_fields
from .._common.macros import join_examples, split_examples, to_backyard, to_card
from .._common.util import ABSENT, guard, same, text_field, type_name

if TYPE_CHECKING:
    from bunzai.containers.zipsafe import SafeZip
    from bunzai.input import AdapterInput
    from bunzai.model import Asset, Character

FMT = "backyard-byaf"
CHARACTER_PATH = re.compile(r"^characters/[^/]+/character\.json$")
SCENARIO_PATH = re.compile(r"^scenarios/[^/]+\.json$")
IMAGE_PATH = re.compile(r"^images/[^/]+\.(png|jpe?g|webp|gif)$")
SCENARIO_FIELDS = ("narrative", "formattingInstructions", "exampleMessages")
"""Scenario fields the first scenario maps to card fields and later ones may share."""


def where(path: str) -> str:
    """JSON-path prefix for a finding inside one archive member."""
    return f'$["{path}"]'


def open_archive(input: AdapterInput) -> SafeZip:
    z = input.zip
    if z is None:
        if input.zip_error:
            raise MalformedInput(f"refusing this BYAF archive: {input.zip_error}")
        raise MalformedInput("not a BYAF archive: not a zip file")
    return z


def member_problem(path: str) -> str | None:
    """Why ``path`` (as written in a BYAF JSON file) cannot name a member of this archive."""
    problem = entry_name_problem(path)
    if problem:
        return problem
    if posixpath.normpath(path) != path.rstrip("/") or path.endswith("/"):
        return "is not a plain archive path"
    return None


def load_member(input: AdapterInput, z: SafeZip, path: str, what: str) -> dict[str, Any]:
    """A JSON object member named by the manifest; clear errors for missing or broken ones."""
    if not z.has(path):
        raise MalformedInput(f"manifest.json lists {what} {path!r}, which is missing from the "
                             "archive")
    value = input.zip_json(path)
    error = input.zip_json_error(path)
    if error is not None:
        raise MalformedInput(f"{path}: {error}")
    if not isinstance(value, Mapping):
        raise MalformedInput(f"{path} must hold a JSON object, not {type_name(value)}")
    out: dict[str, Any] = thaw(value)
    return out


def manifest_paths(manifest: Mapping[str, Any], key: str, pattern: re.Pattern[str],
                   warnings: list[Issue]) -> list[str]:
    raw = manifest.get(key)
    if isinstance(raw, str) or not isinstance(raw, Sequence):
        raise MalformedInput(f"manifest.json: {key} must be an array of paths, "
                             f"not {type_name(raw)}")
    out: list[str] = []
    for i, path in enumerate(raw):
        if not isinstance(path, str):
            raise MalformedInput(f"manifest.json: {key}[{i}] must be a path string, "
                                 f"not {type_name(path)}")
        problem = member_problem(path)
        if problem:
            raise MalformedInput(f"manifest.json: {key}[{i}] {path!r} {problem}; refusing a "
                                 "path that points outside the archive")
        if not pattern.match(path):
            warnings.append(Issue(f'{where("manifest.json")}.{key}[{i}]',
                                  f"{path!r} does not follow the BYAF layout "
                                  f"({pattern.pattern})"))
        if path in out:
            warnings.append(Issue(f'{where("manifest.json")}.{key}[{i}]',
                                  f"{path!r} is listed twice; read once"))
            continue
        out.append(path)
    return out


def read_archive(input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
    z = open_archive(input)
    if not z.has("manifest.json"):
        raise MalformedInput("not a BYAF archive: manifest.json is missing")
    warnings: list[Issue] = []
    manifest = load_member(input, z, "manifest.json", "the manifest")
    if manifest.get("schemaVersion") != 1:
        warnings.append(Issue(f'{where("manifest.json")}.schemaVersion',
                              f"schemaVersion is {manifest.get('schemaVersion')!r}; this "
                              "reader knows version 1"))
    char_paths = manifest_paths(manifest, "characters", CHARACTER_PATH, warnings)
    scen_paths = manifest_paths(manifest, "scenarios", SCENARIO_PATH, warnings)
    if not char_paths:
        raise MalformedInput("manifest.json lists no character")
    if not scen_paths:
        warnings.append(Issue(f'{where("manifest.json")}.scenarios',
                              "no scenario listed (BYAF requires at least one)"))

    characters = [load_member(input, z, p, "character") for p in char_paths]
    scenarios = [load_member(input, z, p, "scenario") for p in scen_paths]
    ids: list[str] = []
    for path, obj in zip(char_paths, characters, strict=True):
        cid = obj.get("id")
        folder = path.split("/")[-2] if path.count("/") >= 2 else path
        if not isinstance(cid, str) or not cid:
            warnings.append(Issue(f"{where(path)}.id", f"no string id; using the folder name "
                                  f"{folder!r}"))
            cid = folder
        elif cid != folder:
            warnings.append(Issue(f"{where(path)}.id", f"id {cid!r} differs from its folder "
                                  f"{folder!r}"))
        ids.append(cid)

    owners = [_owners(s, ids) for s in scenarios]
    shared = _manifest_passthrough(manifest, char_paths, scen_paths)
    creator = _creator(manifest, warnings)
    entities: list[Character] = []
    for index, (path, obj, cid) in enumerate(zip(char_paths, characters, ids, strict=True)):
        owned = [(p, s) for p, s, o in zip(scen_paths, scenarios, owners, strict=True)
                 if index in o]
        others = {c for i, c in enumerate(ids) if i != index}
        entities.append(_character(input, z, index, path, obj, cid, others, owned, shared,
                                   creator, warnings))
    if len(entities) > 1:
        warnings.append(Issue(f'{where("manifest.json")}.characters',
                              f"{len(entities)} characters in one archive (a Ginger export; "
                              "the BYAF schema allows one and Backyard reads the first): read "
                              "as one card each"))
    return ReadResult(list(entities), warnings)


def _owners(scenario: Mapping[str, Any], ids: list[str]) -> set[int]:
    """Indexes of the characters a scenario belongs to (see the module docstring)."""
    if len(ids) == 1:
        return {0}
    refs: set[int] = set()
    for key in ("firstMessages", "exampleMessages"):
        items = scenario.get(key)
        if isinstance(items, list):
            for item in items:
                if isinstance(item, Mapping) and item.get("characterID") in ids:
                    refs.add(ids.index(item["characterID"]))
    return refs or {0}


def _manifest_passthrough(manifest: dict[str, Any], chars: list[str],
                          scens: list[str]) -> dict[str, Any]:
    rest = {k: v for k, v in manifest.items() if k not in ("characters", "scenarios", "author")}
    out: dict[str, Any] = {"rest": rest, "order": list(manifest), "characters": chars,
                           "scenarios": scens}
    if "author" in manifest:
        out["author"] = manifest["author"]
    return out


def _creator(manifest: Mapping[str, Any], warnings: list[Issue]) -> str:
    author = manifest.get("author")
    if author is None:
        return ""
    if not isinstance(author, Mapping):
        warnings.append(Issue(f'{where("manifest.json")}.author',
                              f"author is a {type_name(author)}, not an object; ignored"))
        return ""
    return text_field(author, "name", f'{where("manifest.json")}.author', warnings)


def _is_mine(item: Any, cid: str, others: set[str]) -> bool:
    owner = item.get("characterID") if isinstance(item, Mapping) else None
    return isinstance(item, Mapping) and not (isinstance(owner, str) and owner in others)


def first_messages(greeting: str, cid: str) -> list[dict[str, str]]:
    """A greeting as BYAF ``firstMessages`` (none when there is no greeting)."""
    return [{"characterID": cid, "text": to_backyard(greeting, True)}] if greeting else []


def example_messages(texts: list[str], cid: str) -> list[dict[str, str]]:
    return [{"characterID": cid, "text": to_backyard(t, True)} for t in texts]


def _greeting(scenario: Mapping[str, Any], cid: str, others: set[str], w: str,
              warnings: list[Issue]) -> str | None:
    """This character's greeting in a scenario, or None when it has none there."""
    items = scenario.get("firstMessages")
    if not isinstance(items, list) or not items:
        return None
    if len(items) > 1:
        warnings.append(Issue(f"{w}.firstMessages", f"{len(items)} first messages (BYAF allows "
                              "one); the first is the greeting"))
    first = items[0]
    if not _is_mine(first, cid, others):
        return None
    raw = first.get("text")
    if not isinstance(raw, str):
        warnings.append(Issue(f"{w}.firstMessages[0].text", "greeting text is not a string"))
        return None
    return to_card(raw, True)


def _text(scenario: Mapping[str, Any], key: str, w: str, warnings: list[Issue],
          guards: dict[str, Any]) -> str:
    raw = scenario.get(key, ABSENT)
    value = to_card(text_field(scenario, key, w, warnings))
    guard(guards, key, raw, value, to_backyard(value))
    return value


def _examples(scenario: Mapping[str, Any], cid: str, others: set[str], w: str,
              warnings: list[Issue], guards: dict[str, Any]) -> str:
    raw = scenario.get("exampleMessages", ABSENT)
    texts: list[str] = []
    if isinstance(raw, list):
        for i, item in enumerate(raw):
            if _is_mine(item, cid, others):
                text = item.get("text")
                if isinstance(text, str):
                    texts.append(to_card(text, True))
                else:
                    warnings.append(Issue(f"{w}.exampleMessages[{i}].text",
                                          "example text is not a string; ignored"))
    elif raw is not ABSENT:
        warnings.append(Issue(f"{w}.exampleMessages", f"exampleMessages is a {type_name(raw)}, "
                              "not an array; ignored"))
    mes = join_examples(texts)
    guard(guards, "exampleMessages", raw, mes, example_messages(split_examples(mes), cid))
    return mes


def _character(input: AdapterInput, z: SafeZip, index: int, path: str, obj: dict[str, Any],
               cid: str, others: set[str], owned: list[tuple[str, dict[str, Any]]],
               shared: dict[str, Any], creator: str, warnings: list[Issue]) -> Character:
    from bunzai.model import Character

    w = where(path)
    guards: dict[str, Any] = {}
    fields = read_fields(obj, BYAF_KEYS, FMT, w, warnings, guards)
    rest = {k: v for k, v in obj.items() if k not in BYAF_KEYS.mapped and k != "images"}
    assets, images = _images(z, path, obj.get("images", ABSENT), w, warnings)

    pt: dict[str, Any] = {"manifest": shared, "index": index, "path": path, "cid": cid,
                          "rest": rest, "order": list(obj), "images": images}
    if guards:
        pt["guards"] = guards
    if "images" not in obj:
        pt["no_images"] = True

    card: dict[str, Any] = {"scenario": "", "system_prompt": "", "first_mes": "",
                            "mes_example": "", "alternate_greetings": []}
    records: list[dict[str, Any]] = []
    backgrounds: dict[str, Asset] = {}
    chats = 0
    primary: dict[str, Any] | None = None
    for spath, scen in owned:
        sw = where(spath)
        sg: dict[str, Any] = {}
        record: dict[str, Any] = {"path": spath, "order": list(scen)}
        greeting = _greeting(scen, cid, others, sw, warnings)
        if primary is None:
            primary = scen
            record["role"] = "primary"
            card["scenario"] = _text(scen, "narrative", sw, warnings, sg)
            card["system_prompt"] = _text(scen, "formattingInstructions", sw, warnings, sg)
            card["mes_example"] = _examples(scen, cid, others, sw, warnings, sg)
            card["first_mes"] = greeting or ""
            guard(sg, "firstMessages", scen.get("firstMessages", ABSENT), card["first_mes"],
                  first_messages(card["first_mes"], cid))
            mapped = {"firstMessages", *SCENARIO_FIELDS}
        else:
            inherit = [k for k in SCENARIO_FIELDS
                       if k in scen and k in primary and same(scen[k], primary[k])]
            if inherit:
                record["inherit"] = inherit
            mapped = set(inherit)
            if greeting is not None:
                record["role"] = "alternate"
                card["alternate_greetings"].append(greeting)
                guard(sg, "firstMessages", scen["firstMessages"], greeting,
                      first_messages(greeting, cid))
                mapped.add("firstMessages")
            else:
                record["role"] = "other"
        record["rest"] = {k: v for k, v in scen.items() if k not in mapped}
        if sg:
            record["guards"] = sg
        records.append(record)
        messages = scen.get("messages")
        if isinstance(messages, list):
            chats += len(messages)
        _background(z, spath, scen, backgrounds, warnings)
    pt["scenarios"] = records
    if chats:
        warnings.append(Issue(w, f"{chats} chat message(s) in this character's scenarios: "
                              "private data, kept only for BYAF round trips"))

    card_assets = assets + list(backgrounds.values())
    return Character(**fields, **card, creator=creator, assets=card_assets,
                     passthrough={FMT: pt})


def _images(z: SafeZip, path: str, raw: Any, w: str, warnings: list[Issue]
            ) -> tuple[list[Asset], list[dict[str, Any]]]:
    """Character images as icon assets; the raw list (with each member path) for passthrough."""
    from bunzai.model import Asset

    if raw is ABSENT:
        return [], []
    if isinstance(raw, str) or not isinstance(raw, Sequence):
        warnings.append(Issue(f"{w}.images", f"images is a {type_name(raw)}, not an array; "
                              "ignored"))
        return [], []
    folder = path.rsplit("/", 1)[0] + "/"
    assets: list[Asset] = []
    kept: list[dict[str, Any]] = []
    names: set[str] = set()
    for i, item in enumerate(raw):
        iw = f"{w}.images[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("path"), str):
            warnings.append(Issue(iw, "image entry without a path string; skipped"))
            continue
        rel = item["path"]
        problem = member_problem(rel)
        if problem:
            raise MalformedInput(f"{path}: images[{i}].path {rel!r} {problem}; refusing a path "
                                 "that leaves the character folder")
        if not IMAGE_PATH.match(rel):
            warnings.append(Issue(f"{iw}.path", f"{rel!r} is not images/<file>.png|jpg|jpeg|"
                                  "webp|gif"))
        member = folder + rel
        if not z.has(member):
            warnings.append(Issue(f"{iw}.path", f"image {member!r} is missing from the archive;"
                                  " skipped"))
            continue
        data = z.read(member)
        label = item.get("label")
        stem, _, ext = rel.rsplit("/", 1)[-1].rpartition(".")
        if not assets:
            name = "main"
        elif isinstance(label, str) and label and label not in names:
            name = label
        else:
            name = stem or f"image{i}"
        names.add(name)
        media, _ = sniff_media(data)
        assets.append(Asset(type="icon", name=name, ext=ext.lower() or None, media_type=media,
                            data=data, origin=member))
        kept.append({"item": dict(item), "origin": member, "name": name})
    return assets, kept


def _background(z: SafeZip, spath: str, scen: Mapping[str, Any], found: dict[str, Asset],
                warnings: list[Issue]) -> None:
    """A scenario's background (archive-relative) as a background asset, once per path."""
    from bunzai.model import Asset

    w = where(spath)
    raw = scen.get("backgroundImage")
    if raw is None or raw == "":
        return
    if not isinstance(raw, str):
        warnings.append(Issue(f"{w}.backgroundImage", "backgroundImage is not a path string; "
                              "ignored"))
        return
    problem = member_problem(raw)
    if problem:
        raise MalformedInput(f"{spath}: backgroundImage {raw!r} {problem}; "
                             "refusing a path that points outside the archive")
    if raw in found:
        return
    if not z.has(raw):
        warnings.append(Issue(f"{w}.backgroundImage", f"background {raw!r} is missing from the "
                              "archive; skipped"))
        return
    data = z.read(raw)
    stem, _, ext = raw.rsplit("/", 1)[-1].rpartition(".")
    media, _ = sniff_media(data)
    found[raw] = Asset(type="background", name="main" if not found else (stem or raw),
                       ext=ext.lower() or None, media_type=media, data=data, origin=raw)

"""Reading a Backyard Archive (BYAF v1) into canonical characters.

Layout: ``manifest.json`` lists ``characters/<id>/character.json`` and ``scenarios/*.json``.
Character images are relative to the character's folder, scenario backgrounds to the archive
root.  Every path the archive names is checked before use and only ever looked up as a zip
member (core's safe zip reader has already refused unsafe entry names, bombs and corrupt
directories).

Each scenario is one Backyard chat: the first scenario of a character gives the card fields
(narrative -> scenario, formattingInstructions -> system_prompt, exampleMessages -> mes_example,
its greeting -> first_mes), later scenarios' greetings become alternate greetings.  What a card
cannot hold is user data in ``app_data["backyard-byaf"]``: every chat's settings (samplers,
model, prompt template, grammar, title), its log, later chats' own narrative or instructions, the
author's Backyard URL, image labels that are not asset names, unknown keys.  Layout (key order,
paths, ids, raw spellings, which chat shows which background) is kept in ``passthrough``.

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

from bunzai.sdk import Issue, MalformedInput, ReadResult, sniff_media
from bunzai.sdk.fields import same, type_name
from bunzai.sdk.zip import entry_name_problem

from .._common.character import read_character, read_lore
from .._common.macros import join_examples, split_examples, to_backyard, to_card
from .._common.tables import BYAF_KEYS, SCENARIO, character_table
from .._common.util import ABSENT

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Asset, Character
    from bunzai.sdk.zip import SafeZip

CHARACTER_PATH = re.compile(r"^characters/[^/]+/character\.json$")
SCENARIO_PATH = re.compile(r"^scenarios/[^/]+\.json$")
IMAGE_PATH = re.compile(r"^images/[^/]+\.(png|jpe?g|webp|gif)$")
CHARACTER_LAYOUT = ("schemaVersion", "$schema", "id")
"""Keys of ``character.json`` that identify it rather than say something (layout)."""
SCENARIO_LAYOUT = ("schemaVersion", "$schema", "backgroundImage")
"""Keys of a scenario that are layout (the background is a background asset)."""
MESSAGES = ("firstMessages", "exampleMessages")
SCENARIO_FIELDS = ("narrative", "formattingInstructions", "exampleMessages")
"""Scenario fields the first scenario maps to card fields and later ones may share."""
MANIFEST_LAYOUT = ("schemaVersion", "$schema", "createdAt", "characters", "scenarios")
SCENARIOS = "scenarios"
"""The ``app_data`` key holding each scenario's user data, in the character's scenario order."""
OWN_KEYS = ("author.", "manifest.", "images[", SCENARIOS)
"""``app_data`` keys (or their starts) that are not keys of ``character.json``."""


def where(path: str) -> str:
    """JSON-path prefix for a finding inside one archive member."""
    return f'$["{path}"]'


def is_character_key(key: str) -> bool:
    """Whether an ``app_data`` key is an unknown key of ``character.json`` (not one of
    :data:`OWN_KEYS`)."""
    return key != SCENARIOS and not key.startswith(OWN_KEYS[:3])


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
    return input.zip_object(path)


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


def read_archive(input: AdapterInput, options: Mapping[str, Any], format_id: str
                 ) -> ReadResult:
    z = input.zip_archive("BYAF archive")
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

    owners = [owners_of(s, ids) for s in scenarios]
    shared, creator, shared_data = _manifest(manifest, warnings)
    entities: list[Character] = []
    for index, (path, obj, cid) in enumerate(zip(char_paths, characters, ids, strict=True)):
        owned = [(p, s) for p, s, o in zip(scen_paths, scenarios, owners, strict=True)
                 if index in o]
        others = {c for i, c in enumerate(ids) if i != index}
        entities.append(_character(z, format_id, index, path, obj, cid, others, owned,
                                   shared, creator, shared_data, warnings))
    if len(entities) > 1:
        warnings.append(Issue(f'{where("manifest.json")}.characters',
                              f"{len(entities)} characters in one archive (a Ginger export; "
                              "the BYAF schema allows one and Backyard reads the first): read "
                              "as one card each"))
    return ReadResult(list(entities), warnings)


def owners_of(scenario: Mapping[str, Any], ids: Sequence[str]) -> set[int]:
    """Indexes of the characters a scenario belongs to (see the module docstring)."""
    if len(ids) == 1:
        return {0}
    refs: set[int] = set()
    for key in MESSAGES:
        items = scenario.get(key)
        if isinstance(items, list):
            for item in items:
                if isinstance(item, Mapping) and item.get("characterID") in ids:
                    refs.add(ids.index(item["characterID"]))
    return refs or {0}


def _manifest(manifest: dict[str, Any], warnings: list[Issue]
              ) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """(layout, creator, user data) of the manifest, shared by every character of the archive."""
    layout: dict[str, Any] = {"order": list(manifest),
                              "keep": {k: manifest[k] for k in MANIFEST_LAYOUT if k in manifest}}
    data = {f"manifest.{k}": v for k, v in manifest.items()
            if k not in MANIFEST_LAYOUT and k != "author"}
    creator = ""
    author = manifest.get("author", ABSENT)
    if isinstance(author, Mapping):
        layout["author"] = list(author)
        name = author.get("name", "")
        if isinstance(name, str):
            creator = name
        else:
            warnings.append(Issue(f'{where("manifest.json")}.author.name',
                                  f"author name is {type_name(name)}; kept as it was"))
        data.update((f"author.{k}", v) for k, v in author.items()
                    if k != "name" or not isinstance(v, str))
    elif author is not ABSENT:
        warnings.append(Issue(f'{where("manifest.json")}.author',
                              f"author is {type_name(author)}, not an object; kept as it was"))
        data["author"] = author
    return layout, creator, data


# -- a character's greetings and examples ----------------------------------------------------


def _is_mine(item: Any, others: set[str]) -> bool:
    owner = item.get("characterID") if isinstance(item, Mapping) else None
    return isinstance(item, Mapping) and not (isinstance(owner, str) and owner in others)


def greeting_of(items: Any, others: set[str]) -> str | None:
    """This character's greeting in a scenario's ``firstMessages``, or None when it has none."""
    if not isinstance(items, list) or not items:
        return None
    first = items[0]
    if not _is_mine(first, others) or not isinstance(first.get("text"), str):
        return None
    return to_card(first["text"], True)


def examples_of(items: Any, others: set[str]) -> str:
    """This character's ``exampleMessages`` as a card's ``mes_example``."""
    texts = [to_card(item["text"], True) for item in items if _is_mine(item, others)
             and isinstance(item.get("text"), str)] if isinstance(items, list) else []
    return join_examples(texts)


def first_messages(greeting: str, cid: str, *, keep_empty: bool = False
                   ) -> list[dict[str, str]]:
    """A greeting as BYAF ``firstMessages`` (none for no greeting, unless ``keep_empty``)."""
    if not greeting and not keep_empty:
        return []
    return [{"characterID": cid, "text": to_backyard(greeting, True)}]


def example_messages(mes: str, cid: str) -> list[dict[str, str]]:
    return [{"characterID": cid, "text": to_backyard(t, True)} for t in split_examples(mes)]


def _check_messages(scen: Mapping[str, Any], others: set[str], w: str,
                    warnings: list[Issue]) -> None:
    items = scen.get("firstMessages")
    if isinstance(items, list) and len(items) > 1:
        warnings.append(Issue(f"{w}.firstMessages", f"{len(items)} first messages (BYAF allows "
                              "one); the first is the greeting"))
    if isinstance(items, list) and items and _is_mine(items[0], others) \
            and not isinstance(items[0].get("text"), str):
        warnings.append(Issue(f"{w}.firstMessages[0].text", "greeting text is not a string"))
    examples = scen.get("exampleMessages", ABSENT)
    if isinstance(examples, list):
        for i, item in enumerate(examples):
            if _is_mine(item, others) and not isinstance(item.get("text"), str):
                warnings.append(Issue(f"{w}.exampleMessages[{i}].text",
                                      "example text is not a string; ignored"))
    elif examples is not ABSENT:
        warnings.append(Issue(f"{w}.exampleMessages", f"exampleMessages is "
                              f"{type_name(examples)}, not an array; kept as it was"))
    log = scen.get("messages")
    for i, item in enumerate(log if isinstance(log, list) else ()):
        kind = item.get("type") if isinstance(item, Mapping) else None
        outputs = item.get("outputs") if kind == "ai" else None
        if kind == "human" or (isinstance(outputs, list) and any(
                isinstance(o, Mapping) for o in outputs)):
            continue
        warnings.append(Issue(f"{w}.messages[{i}]", "neither a human message nor an ai one "
                              "with an output: a chat extracted from it leaves it out "
                              "(reported)"))


# -- one scenario ------------------------------------------------------------------------------


def split_scenario(scen: Mapping[str, Any], primary: Mapping[str, Any] | None,
                   others: set[str], warnings: list[Issue] | None = None, w: str = ""
                   ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(card values, user data, layout of the card values) of one of a character's scenarios;
    ``primary`` is its first scenario (None for the first itself).

    The first scenario gives the card's text fields; a later one its greeting (an alternate
    greeting).  The rest is the scenario's own data; a later scenario's narrative, instructions
    and examples are data only where they equal the first's.
    """
    values: dict[str, Any] = {}
    layout: dict[str, Any] = {}
    mapped = set(SCENARIO_LAYOUT)
    if primary is None:
        reading = SCENARIO.read(scen, w, warnings, skip=list(scen), owned=True)
        values.update(reading.values)
        layout.update((k, v) for k, v in reading.layout.items() if k in ("raw", "absent"))
        mapped.update(n for f in SCENARIO.fields for n, _ in f.names if n not in reading.data)
        for key, name, read in (("firstMessages", "first_mes", greeting_of),
                                ("exampleMessages", "mes_example", examples_of)):
            raw = scen.get(key, ABSENT)
            if raw is ABSENT or isinstance(raw, list):
                values[name] = read(raw, others) or ""
                mapped.add(key)
            else:
                values[name] = ""
    else:
        mapped.update(k for k in SCENARIO_FIELDS
                      if k in scen and k in primary and _same(scen[k], primary[k]))
        greeting = greeting_of(scen.get("firstMessages"), others)
        if greeting is not None:
            values["greeting"] = greeting
            mapped.add("firstMessages")
    return values, {k: v for k, v in scen.items() if k not in mapped}, layout


def _same(a: Any, b: Any) -> bool:
    return bool(same(a, b))


def scenario_record(scen: Mapping[str, Any], spath: str, values: Mapping[str, Any],
                    layout: Mapping[str, Any], primary: bool, cid: str) -> dict[str, Any]:
    """How a scenario was written, for a byte-faithful rewrite: its path and key order, its
    layout keys, the raw spelling of what the card fields were read from."""
    record: dict[str, Any] = {"path": spath, "order": list(scen)}
    keep = {k: scen[k] for k in SCENARIO_LAYOUT if k in scen}
    if keep:
        record["keep"] = keep
    if layout:
        record["table"] = dict(layout)
    raw: dict[str, Any] = {}
    if primary:
        for key, built in (("firstMessages", first_messages(values["first_mes"], cid)),
                           ("exampleMessages", example_messages(values["mes_example"], cid))):
            if isinstance(scen.get(key), list) and not _same(scen[key], built):
                raw[key] = scen[key]
    elif "greeting" in values:
        record["alternate"] = True
        built = first_messages(values["greeting"], cid, keep_empty=True)
        if not _same(scen["firstMessages"], built):
            raw["firstMessages"] = scen["firstMessages"]
    if raw:
        record["raw"] = raw
    return record


# -- one character -----------------------------------------------------------------------------


def _character(z: SafeZip, fmt: str, index: int, path: str, obj: dict[str, Any], cid: str,
               others: set[str], owned: list[tuple[str, dict[str, Any]]],
               shared: dict[str, Any], creator: str, shared_data: dict[str, Any],
               warnings: list[Issue]) -> Character:
    from bunzai.sdk import Character

    w = where(path)
    skip = (*CHARACTER_LAYOUT, "loreItems", "images")
    fields, layout, data = read_character(obj, character_table(BYAF_KEYS), w, warnings, skip)
    keep = {k: obj[k] for k in CHARACTER_LAYOUT if k in obj}
    layout.update(archive=shared, index=index, path=path, cid=cid, keep=keep,
                  missing=[k for k in (*CHARACTER_LAYOUT, "loreItems", "images") if k not in obj])
    data.update(shared_data)

    lore = obj.get("loreItems", ABSENT)
    book = None
    if isinstance(lore, list):
        book = read_lore(lore, fmt, f"{w}.loreItems", warnings)
    elif lore is not ABSENT:
        warnings.append(Issue(f"{w}.loreItems", f"lore items are {type_name(lore)}, not an "
                              "array; kept as they were"))
        data["loreItems"] = lore
    assets, images = _images(z, path, obj.get("images", ABSENT), w, warnings, data)
    layout["images"] = images

    card: dict[str, Any] = {"scenario": "", "system_prompt": "", "first_mes": "",
                            "mes_example": "", "alternate_greetings": []}
    records: list[dict[str, Any]] = []
    chats: list[dict[str, Any]] = []
    backgrounds: dict[str, Asset] = {}
    messages = 0
    primary: dict[str, Any] | None = None
    for spath, scen in owned:
        sw = where(spath)
        _check_messages(scen, others, sw, warnings)
        values, own, table = split_scenario(scen, primary, others, warnings, sw)
        records.append(scenario_record(scen, spath, values, table, primary is None, cid))
        chats.append(own)
        if primary is None:
            primary = scen
            card.update((k, v) for k, v in values.items() if k in card)
        elif "greeting" in values:
            card["alternate_greetings"].append(values["greeting"])
        log = scen.get("messages")
        if isinstance(log, list):
            messages += len(log)
        _background(z, spath, scen, backgrounds, warnings)
    layout["scenarios"] = records
    if owned:
        data[SCENARIOS] = chats
    if messages:
        warnings.append(Issue(w, f"{messages} chat message(s) in this character's scenarios: "
                              "private data, kept only for BYAF"))
    return Character(**fields, **card, creator=creator, lorebook=book,
                     assets=assets + list(backgrounds.values()),
                     app_data={fmt: data} if data else {}, passthrough={fmt: layout})


# -- images ------------------------------------------------------------------------------------


def image_names(labels: Sequence[Any], paths: Sequence[str]) -> list[str]:
    """Asset names of a character's images, in order: the first is ``main``, the others their
    label when it is a text no earlier image has, else their file name."""
    names: list[str] = []
    for i, (label, rel) in enumerate(zip(labels, paths, strict=True)):
        stem = rel.rsplit("/", 1)[-1].rpartition(".")[0] or rel.rsplit("/", 1)[-1]
        if i == 0:
            names.append("main")
        elif isinstance(label, str) and label and label not in names:
            names.append(label)
        else:
            names.append(stem or f"image{i}")
    return names


def image_data(index: int, item: Mapping[str, Any], name: str, first: bool) -> dict[str, Any]:
    """The user data of one image item that its asset does not hold: a label that is not its
    name (the first image's is never its name, ``main``) and unknown keys."""
    out = {f"images[{index}].{k}": v for k, v in item.items() if k not in ("path", "label")}
    label = item.get("label", ABSENT)
    if label is not ABSENT and not (label == name and not first) and label != "":
        out[f"images[{index}].label"] = label
    return out


def _images(z: SafeZip, path: str, raw: Any, w: str, warnings: list[Issue],
            data: dict[str, Any]) -> tuple[list[Asset], list[dict[str, Any]]]:
    """Character images as icon assets, and each image's layout (its member and key order)."""
    from bunzai.sdk import Asset

    if raw is ABSENT:
        return [], []
    if not isinstance(raw, list):
        warnings.append(Issue(f"{w}.images", f"images is {type_name(raw)}, not an array; "
                              "kept as it was"))
        data["images"] = raw
        return [], []
    folder = path.rsplit("/", 1)[0] + "/"
    usable: list[tuple[int, Mapping[str, Any], str]] = []
    for i, item in enumerate(raw):
        iw = f"{w}.images[{i}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("path"), str):
            warnings.append(Issue(iw, "image entry without a path string; kept as it was"))
            data[f"images[{i}]"] = item
            continue
        rel = item["path"]
        problem = member_problem(rel)
        if problem:
            raise MalformedInput(f"{path}: images[{i}].path {rel!r} {problem}; refusing a path "
                                 "that leaves the character folder")
        if not IMAGE_PATH.match(rel):
            warnings.append(Issue(f"{iw}.path", f"{rel!r} is not images/<file>.png|jpg|jpeg|"
                                  "webp|gif"))
        if not z.has(folder + rel):
            warnings.append(Issue(f"{iw}.path", f"image {folder + rel!r} is missing from the "
                                  "archive; skipped"))
            continue
        usable.append((i, item, folder + rel))
    names = image_names([item.get("label") for _, item, _ in usable],
                        [item["path"] for _, item, _ in usable])
    assets: list[Asset] = []
    layout: list[dict[str, Any]] = []
    for k, ((i, item, member), name) in enumerate(zip(usable, names, strict=True)):
        data.update(image_data(i, item, name, k == 0))
        body = z.read(member)
        ext = item["path"].rpartition(".")[2]
        media, _ = sniff_media(body)
        assets.append(Asset(type="icon", name=name, ext=ext.lower() or None, media_type=media,
                            data=body, origin=member))
        record: dict[str, Any] = {"origin": member, "path": item["path"], "order": list(item)}
        if item.get("label") == "" and k:
            record["label"] = ""  # the name comes from the file name, the label was blank
        layout.append(record)
    return assets, layout


def _background(z: SafeZip, spath: str, scen: Mapping[str, Any], found: dict[str, Asset],
                warnings: list[Issue]) -> None:
    """A scenario's background (archive-relative) as a background asset, once per path."""

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
    body = z.read(raw)
    media, _ = sniff_media(body)
    found[raw] = background_asset(raw, body, media, first=not found)


def background_asset(ref: str, body: bytes, media: str | None, *, first: bool) -> Asset:
    """The background asset a scenario's ``backgroundImage`` reads as."""
    from bunzai.sdk import Asset

    stem, _, ext = ref.rsplit("/", 1)[-1].rpartition(".")
    return Asset(type="background", name="main" if first else (stem or ref),
                 ext=ext.lower() or None, media_type=media, data=body, origin=ref)

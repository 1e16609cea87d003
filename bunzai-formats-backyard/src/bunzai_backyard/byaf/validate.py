"""BYAF v1 rules, checked member by member with JSON paths (``$["scenarios/scenario1.json"].topK``).

Errors are what makes Backyard's own reader (the ``byaf`` library, zod) refuse the archive:
missing required keys, wrong types, timestamps that are not UTC ``Z``, listed files that are
missing.  Warnings are what the official JSON Schemas refuse but readers tolerate: unknown keys
(zod strips them), duplicate lore keys.  What the reader already warns about (several
characters, an id that differs from its folder) is not repeated here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue
from bunzai.sdk.fields import type_name

from .._common.util import is_z_time
from .read import CHARACTER_PATH, IMAGE_PATH, SCENARIO_PATH, member_problem, where

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Entity
    from bunzai.sdk.zip import SafeZip

_T = dict[str, tuple[str, bool]]
MANIFEST: _T = {
    "schemaVersion": ("one", True), "$schema": ("string", False), "createdAt": ("time", True),
    "author": ("object", False), "characters": ("array", True), "scenarios": ("array", True),
}
CHARACTER: _T = {
    "schemaVersion": ("one", True), "$schema": ("string", False), "id": ("string", True),
    "name": ("string", True), "displayName": ("string", True), "isNSFW": ("boolean", True),
    "persona": ("string", True), "createdAt": ("time", True), "updatedAt": ("time", True),
    "loreItems": ("array", True), "images": ("array", True),
}
SCENARIO: _T = {
    "schemaVersion": ("one", True), "$schema": ("string", False), "title": ("string", False),
    "model": ("string", False), "formattingInstructions": ("string", True),
    "minP": ("number", True), "minPEnabled": ("boolean", True), "temperature": ("number", True),
    "repeatPenalty": ("number", True), "repeatLastN": ("number", True),
    "topK": ("number", True), "topP": ("number", True), "backgroundImage": ("string", False),
    "exampleMessages": ("array", True), "canDeleteExampleMessages": ("boolean", True),
    "firstMessages": ("array", True), "narrative": ("string", True),
    "promptTemplate": ("template", True), "grammar": ("string|null", True),
    "messages": ("array", True),
}
TEMPLATES = (None, "general", "ChatML", "Llama3", "Gemma2", "CommandR", "MistralInstruct")


def _fits(value: Any, want: str) -> bool:
    if want == "one":
        return value == 1 and not isinstance(value, bool)
    if want == "time":
        return isinstance(value, str)
    if want == "template":
        return value in TEMPLATES
    if want == "string|null":
        return value is None or isinstance(value, str)
    if want == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return type_name(value) == _NAMES[want]


_NAMES = {"string": "a string", "boolean": "a boolean", "array": "an array",
          "object": "an object"}


def _check(obj: Mapping[str, Any], table: _T, w: str, issues: list[Issue]) -> None:
    for key, (want, required) in table.items():
        if key not in obj:
            if required:
                issues.append(Issue(w, f"required key {key!r} is missing", "error"))
            continue
        value = obj[key]
        if not _fits(value, want):
            shown = "1" if want == "one" else want
            issues.append(Issue(f"{w}.{key}", f"{key} must be {shown}, not "
                                f"{type_name(value)} {value!r}"[:200], "error"))
        elif want == "time" and not is_z_time(value):
            issues.append(Issue(f"{w}.{key}", f"{value!r} is not a UTC timestamp ending in Z "
                                "(Backyard's validator refuses it)", "error"))
    for key in obj:
        if key not in table:
            issues.append(Issue(f"{w}.{key}", f"{key!r} is not defined by the BYAF schema "
                                "(Backyard ignores it)"))


def _member(input: AdapterInput, z: SafeZip, path: str, issues: list[Issue]
            ) -> Mapping[str, Any] | None:
    if member_problem(path) or not z.has(path):
        issues.append(Issue(where("manifest.json"), f"{path!r} is listed but not in the "
                            "archive", "error"))
        return None
    value = input.zip_json(path)
    if not isinstance(value, Mapping):
        issues.append(Issue(where(path), input.zip_json_error(path) or "not a JSON object",
                            "error"))
        return None
    return value


def validate_archive(input: AdapterInput, entities: Sequence[Entity], format_id: str
                     ) -> list[Issue]:
    issues: list[Issue] = []
    z = input.zip
    if z is None:
        return [Issue("$", input.zip_error or "not a zip archive", "error")]
    manifest = _member(input, z, "manifest.json", issues)
    if manifest is None:
        return issues
    mw = where("manifest.json")
    _check(manifest, MANIFEST, mw, issues)
    author = manifest.get("author")
    url = author.get("backyardURL") if isinstance(author, Mapping) else None
    if isinstance(author, Mapping) and not (
            isinstance(author.get("name"), str) and isinstance(url, str)
            and url.startswith(("http://", "https://"))):
        issues.append(Issue(f"{mw}.author", "Backyard's validator needs both a name and a "
                                "backyardURL URL"))
    chars = [p for p in manifest.get("characters") or [] if isinstance(p, str)]
    scens = [p for p in manifest.get("scenarios") or [] if isinstance(p, str)]
    if not scens and isinstance(manifest.get("scenarios"), list):
        issues.append(Issue(f"{mw}.scenarios", "at least one scenario is required", "error"))
    for key, paths, pattern in (("characters", chars, CHARACTER_PATH),
                                ("scenarios", scens, SCENARIO_PATH)):
        for i, p in enumerate(paths):
            if not pattern.match(p):
                issues.append(Issue(f"{mw}.{key}[{i}]", f"{p!r} does not match "
                                    f"{pattern.pattern}", "error"))
    ids: list[str] = []
    for path in chars:
        obj = _member(input, z, path, issues)
        if obj is None:
            continue
        w = where(path)
        _check(obj, CHARACTER, w, issues)
        cid = obj.get("id")
        if isinstance(cid, str):
            ids.append(cid)
        _lore(obj.get("loreItems"), f"{w}.loreItems", issues)
        _images(z, path, obj.get("images"), f"{w}.images", issues)
    for path in scens:
        obj = _member(input, z, path, issues)
        if obj is not None:
            _scenario(z, obj, where(path), ids, issues)
    return issues


def _lore(items: Any, w: str, issues: list[Issue]) -> None:
    if not isinstance(items, list):
        return
    seen: set[str] = set()
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or not all(
                isinstance(item.get(k), str) for k in ("key", "value")):
            issues.append(Issue(f"{w}[{i}]", "a lore item needs string key and value", "error"))
            continue
        if set(item) - {"key", "value"}:
            issues.append(Issue(f"{w}[{i}]", "lore items hold only key and value"))
        if item["key"] in seen:
            issues.append(Issue(f"{w}[{i}].key", f"duplicate lore key {item['key']!r} (the "
                                "BYAF spec wants keys unique per character)"))
        seen.add(item["key"])


def _images(z: SafeZip, path: str, items: Any, w: str, issues: list[Issue]) -> None:
    if not isinstance(items, list):
        return
    folder = path.rsplit("/", 1)[0] + "/"
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("path"), str) \
                or not isinstance(item.get("label"), str):
            issues.append(Issue(f"{w}[{i}]", "an image needs string path and label", "error"))
            continue
        rel = item["path"]
        if not IMAGE_PATH.match(rel):
            issues.append(Issue(f"{w}[{i}].path", f"{rel!r} does not match "
                                f"{IMAGE_PATH.pattern}"))
        if member_problem(rel) or not z.has(folder + rel):
            issues.append(Issue(f"{w}[{i}].path", f"image {folder + rel!r} is not in the "
                                "archive", "error"))


def _scenario(z: SafeZip, obj: Mapping[str, Any], w: str, ids: list[str],
              issues: list[Issue]) -> None:
    _check(obj, SCENARIO, w, issues)
    for key, most in (("firstMessages", 1), ("exampleMessages", None)):
        items = obj.get(key)
        if not isinstance(items, list):
            continue
        if most is not None and len(items) > most:
            issues.append(Issue(f"{w}.{key}", f"at most {most} item(s) allowed", "error"))
        for i, item in enumerate(items):
            if not isinstance(item, Mapping) or not isinstance(item.get("characterID"), str) \
                    or not isinstance(item.get("text"), str):
                issues.append(Issue(f"{w}.{key}[{i}]", "needs string characterID and text",
                                    "error"))
            elif ids and item["characterID"] not in ids:
                issues.append(Issue(f"{w}.{key}[{i}].characterID", f"{item['characterID']!r} "
                                    "is not a character of this archive"))
    bg = obj.get("backgroundImage")
    if isinstance(bg, str) and bg and (member_problem(bg) or not z.has(bg)):
        issues.append(Issue(f"{w}.backgroundImage", f"background {bg!r} is not in the archive",
                            "error"))
    messages = obj.get("messages")
    if isinstance(messages, list):
        for i, msg in enumerate(messages):
            mw = f"{w}.messages[{i}]"
            kind = msg.get("type") if isinstance(msg, Mapping) else None
            if kind == "human":
                if not isinstance(msg.get("text"), str):
                    issues.append(Issue(mw, "a human message needs text", "error"))
            elif kind == "ai":
                outputs = msg.get("outputs")
                if not isinstance(outputs, list) or not outputs:
                    issues.append(Issue(mw, "an ai message needs at least one output",
                                        "error"))
            else:
                issues.append(Issue(mw, "a message must have type human or ai", "error"))

"""Fixtures for the BYAF tests: archives built here from our own text, and a schema check."""

from __future__ import annotations

import io
import json
import re
import struct
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from bunzai.sdk.png import minimal_png
from bunzai.sdk.zip import write_zip
from bunzai.testing import load_registry, shared_dir

STAMP = "2025-03-04T05:06:07.089Z"
PNG = minimal_png(3, 2, (200, 40, 40, 255))


def _jpeg() -> bytes:
    """A real 3x2 JPEG (card formats convert a JPEG avatar, so it must decode)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (3, 2), (200, 40, 40)).save(buf, "JPEG")
    return buf.getvalue()


JPEG = _jpeg()
WEBP = b"RIFF" + struct.pack("<I", 30) + b"WEBPVP8L" + struct.pack("<I", 18) + b"w" * 18
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00" \
    b"\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
Z_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


def samplers(**over: Any) -> dict[str, Any]:
    base = {"minP": 0.05, "minPEnabled": False, "temperature": 0.75, "repeatPenalty": 1.1,
            "repeatLastN": 512, "topK": 50, "topP": 0.95}
    base.update(over)
    return base


def scenario(cid: str, *, greeting: str | None = None, narrative: str = "",
             instructions: str = "", examples: list[str] | None = None,
             example_ids: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"schemaVersion": 1, "formattingInstructions": instructions,
                           **samplers(),
                           "exampleMessages": [
                               {"characterID": (example_ids or [cid] * 99)[i], "text": t}
                               for i, t in enumerate(examples or [])],
                           "canDeleteExampleMessages": True,
                           "firstMessages": ([{"characterID": cid, "text": greeting}]
                                             if greeting is not None else []),
                           "narrative": narrative, "promptTemplate": None, "grammar": None,
                           "messages": []}
    obj.update(extra)
    return obj


def character(cid: str, name: str, display: str, *, persona: str = "", nsfw: bool = False,
              lore: list[dict[str, str]] | None = None,
              images: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"schemaVersion": 1, "id": cid, "name": name, "displayName": display,
            "isNSFW": nsfw, "persona": persona, "createdAt": STAMP, "updatedAt": STAMP,
            "loreItems": lore or [], "images": images or []}


def archive(manifest: dict[str, Any], members: dict[str, Any]) -> bytes:
    """A STORE zip like the reference writer's: manifest first, JSON with two-space indent."""
    entries = [("manifest.json", json.dumps(manifest, indent=2).encode())]
    for path, value in members.items():
        data = value if isinstance(value, bytes) else json.dumps(value, indent=2).encode()
        entries.append((path, data))
    return write_zip(entries, compress=False, dirs=True)


def raw_zip(entries: list[tuple[str, bytes]]) -> bytes:
    """A zip written without any name checks (for hostile archives)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return buf.getvalue()


def rich_archive() -> bytes:
    """One character, three scenarios, three images, two backgrounds, lore, a chat log."""
    lore = [{"key": "lighthouse, lamp", "value": "{character} trims the wick at dusk."},
            {"key": "storm,gale", "value": "The gales come from the west."},
            {"key": "harbour", "value": "Boats wait for {user}'s signal."}]
    images = [{"path": "images/portrait.jpg", "label": "portrait"},
              {"path": "images/cliff.png", "label": "On the cliff"},
              {"path": "images/lamp.webp", "label": "lamp"}]
    char = character("keeper-01", "Mara", "Mara of the Slate Light",
                     persona="{character} keeps the light on a cliff of slate. {{char}} is "
                             "literal here. {Character} too.",
                     nsfw=True, lore=lore, images=images)
    messages = [
        {"type": "human", "createdAt": STAMP, "updatedAt": STAMP, "text": "Is the lamp lit?"},
        {"type": "ai", "outputs": [
            {"createdAt": STAMP, "updatedAt": STAMP, "text": "Not yet.",
             "activeTimestamp": STAMP},
            {"createdAt": STAMP, "updatedAt": STAMP, "text": "Soon, {user}.",
             "activeTimestamp": "2025-03-04T05:07:00.000Z"}]},
    ]
    s1 = scenario("keeper-01", greeting="*{character} looks up.* You came, {user}.",
                  narrative="{user} climbs to the lighthouse.",
                  instructions="Write {character}'s replies in the past tense.",
                  examples=["#{user}: Cold night?\n#{character}: The coldest.",
                            "#{user}: Any ships?\n#{character}: One, far out."],
                  title="Arrival", model="slate-13b.Q4_K_M.gguf",
                  backgroundImage="scenarios/scenario1-background.jpg", messages=messages,
                  promptTemplate="ChatML", grammar='root ::= "yes" | "no"')
    s2 = scenario("keeper-01", greeting=None, narrative="{user} climbs to the lighthouse.",
                  instructions="Write {character}'s replies in the past tense.",
                  examples=["#{user}: Cold night?\n#{character}: The coldest.",
                            "#{user}: Any ships?\n#{character}: One, far out."],
                  title="Quiet watch")
    s3 = scenario("keeper-01", greeting="The storm broke the glass, {user}.",
                  narrative="A storm has hit the light.",
                  instructions="Write {character}'s replies in the past tense.",
                  examples=["#{user}: Cold night?\n#{character}: The coldest.",
                            "#{user}: Any ships?\n#{character}: One, far out."],
                  backgroundImage="scenarios/scenario3-background.png", **samplers(topK=5))
    manifest = {"schemaVersion": 1, "createdAt": STAMP,
                "author": {"name": "slatewright", "backyardURL":
                           "https://backyard.ai/hub/user/slatewright"},
                "characters": ["characters/keeper-01/character.json"],
                "scenarios": ["scenarios/scenario1.json", "scenarios/scenario2.json",
                              "scenarios/scenario3.json"]}
    return archive(manifest, {
        "characters/keeper-01/images/portrait.jpg": JPEG,
        "characters/keeper-01/images/cliff.png": PNG,
        "characters/keeper-01/images/lamp.webp": WEBP,
        "characters/keeper-01/character.json": char,
        "scenarios/scenario1.json": s1,
        "scenarios/scenario2.json": s2,
        "scenarios/scenario3.json": s3,
        "scenarios/scenario1-background.jpg": JPEG + b"bg",
        "scenarios/scenario3-background.png": minimal_png(4, 4),
    })


def ginger_archive() -> bytes:
    """Two characters in one manifest, laid out as Ginger writes them, plus shared scenarios."""
    c1 = character("character1", "Ryn", "Ryn Alder", persona="{character} leads the party.",
                   images=[{"path": "images/portrait.png", "label": "Ryn"}],
                   lore=[{"key": "camp", "value": "The camp sits by the river."}])
    c2 = character("character2", "Tove", "Tove Alder", persona="{character} maps the hills.",
                   images=[{"path": "images/portrait.gif", "label": "Tove"}])
    s1 = scenario("character1", greeting="We make camp here, {user}.",
                  narrative="The party rests.", instructions="Narrate plainly.",
                  examples=["#{user}: Which way?\n#{character}: North."])
    s2 = scenario("character1", greeting="Morning. Pack up.", narrative="The party rests.",
                  instructions="Narrate plainly.",
                  examples=["#{user}: Which way?\n#{character}: North."])
    s3 = scenario("character2", greeting="The map ends here.", narrative="Uncharted hills.",
                  examples=["#{user}: Lost?\n#{character}: Never."])
    s4 = scenario("character1", greeting=None, narrative="Both at the fire.",
                  examples=["#{character}: Ryn speaks.", "#{character}: Tove answers."],
                  example_ids=["character1", "character2"])
    manifest = {"schemaVersion": 1, "createdAt": STAMP,
                "characters": ["characters/character1/character.json",
                               "characters/character2/character.json"],
                "scenarios": [f"scenarios/scenario{i}.json" for i in range(1, 5)]}
    return archive(manifest, {
        "characters/character1/images/portrait.png": PNG,
        "characters/character1/character.json": c1,
        "characters/character2/images/portrait.gif": GIF,
        "characters/character2/character.json": c2,
        "scenarios/scenario1.json": s1, "scenarios/scenario2.json": s2,
        "scenarios/scenario3.json": s3, "scenarios/scenario4.json": s4,
    })


def members(data: bytes) -> dict[str, Any]:
    """Every file of an archive: JSON parsed, other files as bytes; folders left out."""
    out: dict[str, Any] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            if info.is_dir():
                continue
            raw = zf.read(info)
            out[info.filename] = json.loads(raw) if info.filename.endswith(".json") else raw
    return out


def _schemas() -> dict[str, dict[str, Any]]:
    folder = shared_dir() / "schemas" / "byaf-v1"
    return {name: json.loads((folder / f"byaf-{name}.schema.json").read_text("utf-8"))
            for name in ("manifest", "character", "scenario")}


def schema_problems(data: bytes, *, many: bool = False) -> list[str]:
    """Every way an archive breaks the official BYAF v1 schemas (read in place), plus the
    rules the schemas state only as formats: UTC ``Z`` timestamps and an http(s) author URL.

    ``many`` relaxes only the manifest's ``maxItems: 1`` on characters (Ginger's extension).
    """
    import jsonschema  # type: ignore[import-untyped]

    schemas = _schemas()
    if many:
        schemas["manifest"]["properties"]["characters"].pop("maxItems")
    validators = {k: jsonschema.Draft7Validator(v, format_checker=jsonschema.FormatChecker())
                  for k, v in schemas.items()}
    files = members(data)
    manifest = files["manifest.json"]
    problems = [f"manifest.json: {e.message}" for e in validators["manifest"].iter_errors(
        manifest)]
    kinds = [(p, "character") for p in manifest.get("characters", [])] + \
        [(p, "scenario") for p in manifest.get("scenarios", [])]
    for path, kind in kinds:
        if path not in files:
            problems.append(f"{path}: listed but missing")
            continue
        problems += [f"{path}: {e.message}" for e in validators[kind].iter_errors(files[path])]
    for path, value in files.items():
        if path.endswith(".json"):
            problems += [f"{path}: {t!r} is not a Z timestamp" for t in _times(value)
                         if not Z_TIME.match(t)]
    author = manifest.get("author")
    if isinstance(author, dict) and not str(author.get("backyardURL", "")).startswith("http"):
        problems.append("manifest.json: author.backyardURL is not a URL")
    return problems


def _times(value: Any) -> list[str]:
    if isinstance(value, dict):
        out = [v for k, v in value.items()
               if k in ("createdAt", "updatedAt", "activeTimestamp") and isinstance(v, str)]
        for v in value.values():
            out += _times(v)
        return out
    if isinstance(value, list):
        return [t for v in value for t in _times(v)]
    return []


@pytest.fixture(scope="session")
def registry() -> Any:
    return load_registry()


@pytest.fixture(scope="session")
def corpus_byaf() -> list[Path]:
    from bunzai.testing import corpus_files
    return corpus_files("byaf")


@pytest.fixture(scope="session")
def kit() -> Any:
    """This module: the archive builders and the schema check, for the test modules."""
    return sys.modules[__name__]

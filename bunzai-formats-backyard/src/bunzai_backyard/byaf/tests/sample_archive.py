"""A Backyard archive whose chat has AI turns with several outputs, built from our own text.

No public archive holds a chat with regenerated replies (the reference library's fixtures have
human turns and one single-output AI turn), so this one is written as byaf 0.1.0's
``createByaArchive`` (``src/byaf/create-archive.ts``) writes an archive: JSZip, every entry
STORE with its folder entries, the manifest first, then the character's image and
``character.json``, then each scenario, all JSON as ``JSON.stringify(…, null, 2)``.  The
scenario follows ``specs/v1/scenario.md``: an AI turn's ``outputs`` are its regenerations, and
the one with the latest ``activeTimestamp`` is shown; the replies are text the model wrote, so
they hold names, not Backyard's macros.  The portrait is a generated image.

``python -m bunzai_backyard.byaf.tests.sample_archive`` writes the committed file; a test
checks that it is current.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bunzai.sdk.png import minimal_png
from bunzai.sdk.zip import write_zip

SAMPLE = Path(__file__).parent / "samples" / "byaf-chat-regenerated-replies.byaf"
CREATED = "2025-02-11T20:14:03.512Z"
CID = "gull-point-keeper"


def _t(minute: int, second: int, ms: int = 0) -> str:
    return f"2025-02-11T20:{minute:02d}:{second:02d}.{ms:03d}Z"


def _human(when: str, text: str) -> dict[str, Any]:
    return {"type": "human", "createdAt": when, "updatedAt": when, "text": text}


def _output(when: str, text: str, active: str) -> dict[str, Any]:
    return {"createdAt": when, "updatedAt": when, "text": text, "activeTimestamp": active}


MESSAGES: list[dict[str, Any]] = [
    _human(_t(15, 2, 114), "The horn is louder than I expected."),
    {"type": "ai", "outputs": [  # three replies: the second was chosen last
        _output(_t(15, 9, 402), "You get used to it. Mostly.", _t(15, 9, 402)),
        _output(_t(15, 31, 877), "*Wren grins.* It's meant to be heard past the reef.",
                _t(16, 4, 250)),
        _output(_t(15, 48, 90), "Cover your ears on the landing.", _t(15, 48, 90))]},
    _human(_t(17, 0, 3), "How long until the ferry comes back?"),
    {"type": "ai", "outputs": [
        _output(_t(17, 12, 640), "Not before the tide turns. Sit by the stove.",
                _t(17, 12, 640))]},
    _human(_t(18, 20, 555), "Then tell me about the reef."),
    {"type": "ai", "outputs": [  # two replies: the user went back to the first
        _output(_t(18, 29, 16), "*Wren taps the chart.* Three rocks, one name each, and "
                                "all of them hungry.", _t(19, 2, 300)),
        _output(_t(18, 47, 721), "Another night. The lamp needs me.", _t(18, 47, 721))]},
]


def manifest() -> dict[str, Any]:
    return {"schemaVersion": 1, "createdAt": CREATED,
            "characters": [f"characters/{CID}/character.json"],
            "scenarios": ["scenarios/scenario1.json"]}


def character() -> dict[str, Any]:
    return {"schemaVersion": 1, "id": CID, "name": "Wren",
            "displayName": "Wren of Gull Point", "isNSFW": False,
            "persona": "{character} has kept the Gull Point light for twenty winters and "
                       "trusts the sea more than the ferry company.",
            "createdAt": "2025-02-10T08:00:00.000Z", "updatedAt": CREATED,
            "loreItems": [{"key": "reef, rocks",
                           "value": "Three rocks guard the harbour mouth; {character} "
                                    "named them."}],
            "images": [{"path": "images/portrait.png", "label": ""}]}


def scenario() -> dict[str, Any]:
    return {"schemaVersion": 1, "title": "Storm night", "model": "keeper-7b.Q5_K_M.gguf",
            "formattingInstructions": "Write {character}'s next reply in a chat with "
                                      "{user}. Keep it short.",
            "minP": 0.1, "minPEnabled": True, "temperature": 1.2, "repeatPenalty": 1.05,
            "repeatLastN": 256, "topK": 30, "topP": 0.9,
            "exampleMessages": [{"characterID": CID,
                                 "text": "#{user}: Is it always this loud?\n"
                                         "#{character}: Only when it matters."}],
            "canDeleteExampleMessages": True,
            "firstMessages": [{"characterID": CID,
                               "text": "*{character} hangs a lantern by the door.* "
                                       "You made it before the rain."}],
            "narrative": "{user} is stranded at the Gull Point light for the night.",
            "promptTemplate": None, "grammar": None, "messages": MESSAGES}


def _json(obj: Any) -> bytes:
    return json.dumps(obj, indent=2, ensure_ascii=False).encode("utf-8")


def build() -> bytes:
    entries = [("manifest.json", _json(manifest())),
               (f"characters/{CID}/images/portrait.png", minimal_png(4, 4, (70, 110, 150, 255))),
               (f"characters/{CID}/character.json", _json(character())),
               ("scenarios/scenario1.json", _json(scenario()))]
    return write_zip(entries, compress=False, dirs=True, date_time=(2025, 2, 11, 20, 14, 3))


if __name__ == "__main__":
    SAMPLE.parent.mkdir(exist_ok=True)
    SAMPLE.write_bytes(build())

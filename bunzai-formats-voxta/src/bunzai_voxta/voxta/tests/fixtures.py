"""Voxta packages built from our own text and generated images, for the tests.

Each builder writes a package the way its writer does: the Voxta server (compact JSON with .NET
escapes, deflated members, the ``Voxta Package`` comment) or Character Foundry's writer
(``JSON.stringify(…, null, 2)``, no comment).  ``make_samples`` writes the ones the conformance
kit reads to ``bunzai-formats-voxta/tests/samples`` (``python -m
bunzai_voxta.voxta.tests.fixtures``); a test checks that the committed files are current.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from bunzai.sdk.png import minimal_png

from ..._common.jsonfmt import dumps_dotnet, dumps_js
from ..._common.package import build_zip

SAMPLES = Path(__file__).resolve().parents[4] / "tests" / "samples"

PNG = minimal_png(3, 2, (30, 90, 160, 255))
PNG2 = minimal_png(2, 2, (200, 120, 40, 255))
WEBP = b"RIFF" + struct.pack("<I", 30) + b"WEBPVP8L" + struct.pack("<I", 18) + b"w" * 18
WAV = (b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt "
       + struct.pack("<IHHIIHH", 16, 1, 1, 8000, 8000, 1, 8) + b"data" + bytes(4))
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00" \
    b"\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"

KEEPER = "5b0c8d1e-2f3a-4b5c-8d9e-0a1b2c3d4e5f"
FERRY = "7c1d9e2f-3a4b-5c6d-9e0f-1b2c3d4e5f60"
TIDES = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
HARBOUR = "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
LOOSE = "3c4d5e6f-7a8b-4c9d-0e1f-2a3b4c5d6e7f"
PACKAGE = "4d5e6f7a-8b9c-4d0e-1f2a-3b4c5d6e7f80"
SCENARIO = "6e7f8a9b-0c1d-4e2f-3a4b-5c6d7e8f9a0b"
MISSING_BOOK = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"


def item(iid: str, keys: list[str], text: str, weight: int, **more: Any) -> dict[str, Any]:
    return {"Id": iid, "Keywords": keys, "Text": text, "Weight": weight,
            "CreatedAt": "2025-02-03T04:05:06.1234567+00:00", **more}


def book(bid: str, name: str, items: list[dict[str, Any]], *, package: str | None = None,
         creator: str = "", **more: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"$type": "book"}
    if package:
        obj["PackageId"] = package
    obj["ExplicitContent"] = False
    if creator:
        obj["Creator"] = creator
    obj.update(more)
    obj.update({"Items": items, "Name": name, "Version": "1.0.0",
                "DateCreated": "2025-02-03T04:05:06.789+00:00",
                "DateModified": "2025-02-04T01:02:03.4567891+00:00", "Id": bid})
    return obj


def keeper(books: list[str], *, package: str | None = None) -> dict[str, Any]:
    """A lighthouse keeper, in the server's key order, with every kind of Voxta setting."""
    obj: dict[str, Any] = {"$type": "character", "Label": "Keeper (storm season)"}
    if package:
        obj["PackageId"] = package
    obj.update({
        "MemoryBooks": books, "ScenarioOnly": False, "DefaultScenarios": [],
        "Culture": "en-GB",
        "TextToSpeech": [{"Voice": {"parameters": {"Gender": "Female"}, "label": "Female"},
                          "Service": {"ServiceName": "Example TTS",
                                      "ServiceId": "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"}}],
        "Profile": "{{ char }} has kept the Slate Light for twenty years. She talks to "
                   "{{ user }} about ships, storms & the <old> lamp's \"moods\".",
        "Scripts": [{"Name": "index", "Content": "import { chat } from \"@voxta\";\n"
                                                 "chat.addEventListener(\"start\", (e) => {});\n"}],
        "ChatStyle": 2, "ExplicitContent": False, "EnableThinkingSpeech": False,
        "NotifyUserAwayReturn": True, "TimeAware": True, "UseMemory": True, "MaxTokens": 0,
        "MaxSentences": 0, "Augmentations": ["vision"], "SystemPromptOverrideType": 0,
        "Description": "Weathered hands, a grey wool coat, café-brown eyes — and a lamp. 🌊",
        "Personality": "Patient, dry-humoured, stubborn about the weather.",
        "Scenario": "{{ user }} arrives at the lighthouse as a gale begins.",
        "FirstMessage": "*{{ char }} looks up from the logbook.* You're late, {{ user }}. The "
                        "glass is falling.",
        "MessageExamples": "{{ user }}: Will it hold?\n{{ char }}: It always has. Mostly.",
        "Creator": "slatewright", "CreatorNotes": "Written for the bunzai tests.",
        "Tags": ["lighthouse", "storm"], "Name": "Mara", "Version": "1.2.0",
        "Thumbnail": {"ETag": 3, "RandomizedETag": "q1w2e3r4t5y6u7i8o9p0a", "ContentType":
                      "image/png"},
        "DateCreated": "2025-01-02T03:04:05.1234567+00:00",
        "DateModified": "2025-01-05T06:07:08.9+00:00",
        "Id": KEEPER,
    })
    return obj


def ferry(books: list[str], *, package: str | None = None) -> dict[str, Any]:
    """A ferry pilot with few fields, as the server writes a fresh character."""
    obj: dict[str, Any] = {"$type": "character"}
    if package:
        obj["PackageId"] = package
    obj.update({
        "MemoryBooks": books, "DefaultScenarios": [SCENARIO], "Culture": "en-US",
        "TextToSpeech": [], "Profile": "{{ char }} runs the night ferry.", "Scripts": [],
        "ChatStyle": 0, "ExplicitContent": False, "EnableThinkingSpeech": False,
        "NotifyUserAwayReturn": False, "TimeAware": False, "UseMemory": False, "MaxTokens": 0,
        "MaxSentences": 0, "Augmentations": [], "SystemPromptOverrideType": 0,
        "Description": "", "Personality": "Quiet.", "Scenario": "",
        "FirstMessage": "Ticket, {{ user }}?", "MessageExamples": "", "Creator": "slatewright",
        "Name": "Ilse", "Version": "1.0.0", "Thumbnail": {"ETag": 1, "ContentType": "image/png"},
        "DateCreated": "2025-01-03T00:00:00+00:00", "DateModified": "2025-01-03T00:00:00+00:00",
        "Id": FERRY,
    })
    return obj


TIDES_ITEMS = [
    item("a1f0c9e8-1111-4abc-9def-000000000001", ["tide", "tides"],
         "The spring tides reach the second step of the lighthouse stair.", 7),
    item("a1f0c9e8-1111-4abc-9def-000000000002", ["gale"],
         "{{ char }} counts the seconds between gusts.", 5),
]
HARBOUR_ITEMS = [
    item("b2e1d0f9-2222-4bcd-8efa-000000000003", ["harbour", "quay"],
         "The harbour master owes {{ char }} a favour.", 9),
]
LOOSE_ITEMS = [
    item("c3d2e1f0-3333-4cde-9fab-000000000004", ["fog"], "Fog horns answer each other.", 3),
]


def scenario() -> dict[str, Any]:
    return {"$type": "scenario", "Client": "Voxta.Talk", "Creator": "slatewright",
            "SharedScripts": [], "Actions": [], "Contexts": [], "ExplicitContent": False,
            "ChatFlow": 1, "ChatStyle": 0,
            "Template": "{{ scenario_chars.keeper }} and {{ scenario_chars.pilot }} wait out "
                        "the storm with {{ user }}.",
            "Messages": "", "SystemPrompt": "", "MemoryBooks": [],
            "Roles": [{"Name": "keeper", "DefaultCharacterId": KEEPER, "EnabledOnStart": True},
                      {"Name": "pilot", "DefaultCharacterId": FERRY, "EnabledOnStart": True}],
            "Events": [], "Name": "Storm Night", "Version": "1.0.0",
            "DateCreated": "2025-01-04T00:00:00.5+00:00",
            "DateModified": "2025-01-04T00:00:00.5+00:00", "Id": SCENARIO}


def server_package(members: list[tuple[str, Any]]) -> bytes:
    """Members as the Voxta server writes them (dicts become compact .NET-style JSON)."""
    entries = [(n, v if isinstance(v, bytes) else dumps_dotnet(v)) for n, v in members]
    return build_zip(entries)


def character_export() -> bytes:
    """A character exported on its own: no package.json, one character and its thumbnail."""
    return server_package([(f"Characters/{KEEPER}/character.json", keeper([])),
                           (f"Characters/{KEEPER}/thumbnail.png", PNG)])


def full_package() -> bytes:
    """A package: two characters (sharing a book; one links a book that is not included),
    three books (one linked by nobody), a scenario with its thumbnail, character assets."""
    package = {"$type": "package", "Description": "Two keepers of the coast.",
               "Creator": "slatewright", "ExplicitContent": False,
               "EntryResource": {"Kind": 3, "Id": SCENARIO},
               "ThumbnailResource": {"Kind": 1, "Id": KEEPER}, "Name": "Slate Coast",
               "Version": "2.0.1", "DateCreated": "2025-01-01T00:00:00.001+00:00",
               "DateModified": "2025-01-06T00:00:00.0000001+00:00", "Id": PACKAGE}
    return server_package([
        ("package.json", package),
        (f"Characters/{KEEPER}/character.json", keeper([TIDES, HARBOUR], package=PACKAGE)),
        (f"Characters/{KEEPER}/thumbnail.png", PNG),
        (f"Characters/{KEEPER}/Assets/Avatars/Default/happy.webp", WEBP),
        (f"Characters/{KEEPER}/Assets/VoiceSamples/hello.wav", WAV),
        (f"Characters/{FERRY}/character.json", ferry([HARBOUR, MISSING_BOOK], package=PACKAGE)),
        (f"Characters/{FERRY}/thumbnail.png", PNG2),
        (f"Books/{TIDES}/book.json", book(TIDES, "Tides", TIDES_ITEMS, package=PACKAGE,
                                          creator="slatewright")),
        (f"Books/{HARBOUR}/book.json", book(HARBOUR, "Harbour", HARBOUR_ITEMS, package=PACKAGE,
                                            Description="Who is who on the quay.")),
        (f"Books/{LOOSE}/book.json", book(LOOSE, "Loose notes", LOOSE_ITEMS, package=PACKAGE)),
        (f"Scenarios/{SCENARIO}/scenario.json", scenario()),
        (f"Scenarios/{SCENARIO}/thumbnail.png", PNG2),
    ])


def books_package() -> bytes:
    """A package of memory books only (its entry resource a book)."""
    package = {"$type": "package", "Creator": "slatewright", "ExplicitContent": False,
               "EntryResource": {"Kind": 2, "Id": TIDES}, "Name": "Coast lore",
               "Version": "1.0.0", "Id": PACKAGE}
    return server_package([
        ("package.json", package),
        (f"Books/{TIDES}/book.json", book(TIDES, "Tides", TIDES_ITEMS, package=PACKAGE,
                                          creator="slatewright")),
        (f"Books/{HARBOUR}/book.json", book(HARBOUR, "Harbour", HARBOUR_ITEMS, package=PACKAGE,
                                            Description="Who is who on the quay.")),
    ])


def scenario_export() -> bytes:
    """A scenario exported on its own: its characters are not included."""
    return server_package([(f"Scenarios/{SCENARIO}/scenario.json", scenario())])


def foundry_export() -> bytes:
    """A package as Character Foundry's writer makes it: indented JSON, Id second, no comment,
    the card-spec fields it adds (alternate greetings, system prompt), a book item marked
    deleted."""
    character = {
        "$type": "character", "Id": FERRY, "PackageId": PACKAGE, "Name": "Ilse",
        "Version": "1.0", "Description": "", "Personality": "Quiet.",
        "Profile": "{{ char }} runs the night ferry.", "Scenario": "",
        "FirstMessage": "Ticket, {{ user }}?",
        "AlternativeFirstMessages": ["Last crossing tonight, {{ user }}."],
        "MessageExamples": "", "SystemPrompt": "Write {{ char }} briefly.",
        "PostHistoryInstructions": "Stay in character.", "Creator": "slatewright",
        "CreatorNotes": "", "Tags": ["ferry"], "MemoryBooks": [HARBOUR],
        "DateCreated": "2025-01-03T00:00:00.000Z", "DateModified": "2025-01-07T10:11:12.131Z"}
    items = [{"Id": "d4e3f2a1-4444-4def-8abc-000000000005", "Keywords": ["quay"],
              "Text": "The quay floods at spring tide.", "Weight": 10, "Deleted": False},
             {"Id": "d4e3f2a1-4444-4def-8abc-000000000006", "Keywords": ["ticket"],
              "Text": "Old tickets are punched twice.", "Weight": 10, "Deleted": True,
              "DeletedAt": "2025-01-07T10:11:12.131Z"}]
    harbour = {"$type": "book", "Id": HARBOUR, "Name": "Ilse's Lorebook", "Items": items}
    entries = [(f"Books/{HARBOUR}/book.json", dumps_js(harbour)),
               (f"Characters/{FERRY}/character.json", dumps_js(character)),
               (f"Characters/{FERRY}/thumbnail.png", PNG2)]
    return build_zip(entries, comment=None)


def broken_book() -> bytes:
    """A books package whose book.json was cut off mid-way."""
    whole = dumps_dotnet(book(TIDES, "Tides", TIDES_ITEMS))
    return build_zip([(f"Books/{TIDES}/book.json", whole[:len(whole) // 2])])


SAMPLE_BUILDERS = {
    "voxta-character-export.voxpkg": character_export,
    "voxta-full-package.voxpkg": full_package,
    "voxta-foundry-export.voxpkg": foundry_export,
    "voxta-books-package.voxpkg": books_package,
    "malformed/voxta-book-cut-off.voxpkg": broken_book,
}


def character_samples() -> list[Path]:
    return [SAMPLES / n for n in ("voxta-character-export.voxpkg", "voxta-full-package.voxpkg",
                                  "voxta-foundry-export.voxpkg")]


def book_samples() -> list[Path]:
    return [SAMPLES / "voxta-books-package.voxpkg"]


def malformed_book_samples() -> list[Path]:
    return [SAMPLES / "malformed" / "voxta-book-cut-off.voxpkg"]


def make_samples() -> None:
    (SAMPLES / "malformed").mkdir(parents=True, exist_ok=True)
    for name, build in SAMPLE_BUILDERS.items():
        (SAMPLES / name).write_bytes(build())


if __name__ == "__main__":
    make_samples()

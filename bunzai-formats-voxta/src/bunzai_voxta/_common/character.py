"""The fields of a Voxta ``character.json`` and where they go in the canonical model.

Voxta's own editor defines them: ``Name`` is what ``{{ char }}`` resolves to; ``Description`` is
the *visual* description (what the character looks like); ``Personality`` the traits;
``Profile`` the background and biography.  A card's ``description`` plays Profile's part, so
Profile <-> ``description`` and Description <-> ``extensions.visual_description`` (the extension
Wyvern and Character Foundry use for the same text).  ``SystemPrompt``,
``PostHistoryInstructions`` and ``AlternativeFirstMessages`` are the names Character Foundry's and
Card Architect's Voxta model gives the card fields of the same meaning.

Voxta settings the canonical model has no field for (``TextToSpeech``, ``ChatStyle``,
``Scripts``, ``Augmentations``, ``Label``, …) are user data in ``app_data["voxta"]``; their
defaults (:data:`DEFAULTS`) and empty values are neutral, so a conversion that drops them reports
nothing.  Ids, links and dates' original text are layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

VISUAL = "visual_description"
"""Extension key holding Voxta's Description (appearance)."""


@dataclass(frozen=True)
class Text:
    """A text field: Voxta key, canonical field, macros translated, written even when empty."""

    key: str
    field: str
    macros: bool = True
    always: bool = True
    examples: bool = False
    """Example dialogue: ``<START>`` blocks are written as blank-line separated blocks."""


TEXTS = (
    Text("Name", "name", macros=False),
    Text("Profile", "description"),
    Text("Personality", "personality"),
    Text("Scenario", "scenario"),
    Text("FirstMessage", "first_mes"),
    Text("MessageExamples", "mes_example", examples=True),
    Text("SystemPrompt", "system_prompt", always=False),
    Text("PostHistoryInstructions", "post_history_instructions", always=False),
    Text("Creator", "creator", macros=False, always=False),
    Text("CreatorNotes", "creator_notes", macros=False, always=False),
    Text("Version", "character_version", macros=False, always=False),
)
LISTS = (("Tags", "tags", False), ("AlternativeFirstMessages", "alternate_greetings", True))
DATES = (("DateCreated", "creation_date"), ("DateModified", "modification_date"))
MAPPED = frozenset({t.key for t in TEXTS} | {k for k, _, _ in LISTS} | {k for k, _ in DATES}
                   | {"Description"})

LAYOUT = frozenset({"$type", "Id", "PackageId", "MemoryBooks", "DefaultScenarios", "Thumbnail"})
"""Structure, not user data: ids, links to books and scenarios, the thumbnail's descriptor."""
DEFAULTS: dict[str, Any] = {
    "ScenarioOnly": False, "Culture": "en-US", "TextToSpeech": [], "Scripts": [],
    "Augmentations": [], "ChatStyle": 0, "ExplicitContent": False,
    "EnableThinkingSpeech": False, "UseVision": False, "UseMemory": False, "MaxTokens": 0,
    "MaxSentences": 0, "SystemPromptOverrideType": 0,
}
"""Voxta's settings for a new character: neutral values (a conversion loses nothing by them)."""


def explicit(tags: Sequence[str]) -> bool:
    """``ExplicitContent`` as the tags say it (an ``nsfw`` tag, any case)."""
    return any(t.strip().lower() == "nsfw" for t in tags)

ORDER = ("$type", "Label", "PackageId", "MemoryBooks", "ScenarioOnly", "DefaultScenarios",
         "Culture", "TextToSpeech", "Profile", "Scripts", "ChatStyle", "ExplicitContent",
         "EnableThinkingSpeech", "NotifyUserAwayReturn", "TimeAware", "UseVision", "UseMemory",
         "MaxTokens", "MaxSentences", "Augmentations", "SystemPromptOverrideType", "Description",
         "Personality", "Scenario", "FirstMessage", "AlternativeFirstMessages",
         "MessageExamples", "SystemPrompt", "PostHistoryInstructions", "Creator",
         "CreatorNotes", "Tags", "Name", "Version", "Thumbnail", "DateCreated", "DateModified",
         "Id")
"""Key order of the server's ``character.json`` (``$type`` first, as .NET's polymorphic reader
requires, ``Id`` last); keys it has no evidence for sit beside their neighbours."""

ASSET_TYPES = ("image/png", "image/jpeg", "image/webp", "image/avif", "video/webm", "video/mp4",
               "audio/mpeg", "audio/wav", "audio/x-wav", "audio/ogg")
"""Media Voxta's asset system accepts (its documentation also lists VRM, VMD, JSON, TXT, CSV)."""
ASSET_EXTS = frozenset({"png", "jpg", "jpeg", "webp", "avif", "webm", "mp4", "mp3", "wav", "ogg",
                        "vrm", "vmd", "json", "txt", "csv"})
THUMBNAIL_TYPES = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp",
                   "image/avif": "avif"}

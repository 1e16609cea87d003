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
from typing import Any

from bunzai.sdk.fields import Conv, Field, Table, field

from .macros import to_voxta
from .util import DATE, EXAMPLES, MACRO_TEXTS, PLAIN, TEXT, TEXTS, text_notes

VISUAL = "visual_description"
"""Extension key holding Voxta's Description (appearance)."""

_VISUAL_TEXT = Conv("text", TEXT.canon, lambda v: to_voxta(v) if isinstance(v, str) else "",
                    TEXT.exact, notes=text_notes)
"""Description: an extension value that is no text is written as an empty Description."""


def _optional(attr: str, key: str, conv: Conv, absent: Any) -> Field:
    """A key Voxta writes only when it says something (an emptied one is left out)."""
    return field(attr, key, conv=conv, absent=absent, omit_empty=True, keep_key=False)


CHARACTER = Table((
    field("name", "Name", conv=PLAIN, absent=""),
    field("description", "Profile", conv=TEXT, absent=""),
    field("personality", "Personality", conv=TEXT, absent=""),
    field("scenario", "Scenario", conv=TEXT, absent=""),
    field("first_mes", "FirstMessage", conv=TEXT, absent=""),
    field("mes_example", "MessageExamples", conv=EXAMPLES, absent=""),
    _optional("system_prompt", "SystemPrompt", TEXT, ""),
    _optional("post_history_instructions", "PostHistoryInstructions", TEXT, ""),
    _optional("creator", "Creator", PLAIN, ""),
    _optional("creator_notes", "CreatorNotes", PLAIN, ""),
    _optional("character_version", "Version", PLAIN, ""),
    _optional("tags", "Tags", TEXTS, []),
    _optional("alternate_greetings", "AlternativeFirstMessages", MACRO_TEXTS, []),
    field("creation_date", "DateCreated", conv=DATE),
    field("modification_date", "DateModified", conv=DATE),
    field(VISUAL, "Description", conv=_VISUAL_TEXT, absent=""),
))
"""The keys of a ``character.json`` the canonical model names.  The six texts Voxta's editor
always shows are written even when empty; the others, the lists and the dates only when they
say something.  ``Description`` maps to ``extensions.visual_description`` (the caller puts it
there).  Values that do not come back as they were are kept as layout (see ``util.py``)."""
MAPPED = CHARACTER.known()
MACROS = ("the text spells a macro Voxta writes differently ({{ char }}, {{ user }}), so it "
          "reads back in the card spelling")
EXAMPLE_START = "Voxta separates example dialogues with a blank line; it has no <START> marker"

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

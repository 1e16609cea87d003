"""The fields of a Voxta ``character.json`` and where they go in the canonical model.

Voxta's own editor defines them: ``Name`` is what ``{{ char }}`` resolves to; ``Description`` is
the *visual* description (what the character looks like); ``Personality`` the traits;
``Profile`` the background and biography.  A card's ``description`` plays Profile's part, so
Profile <-> ``description`` and Description <-> ``extensions.visual_description`` (the extension
Wyvern and Character Foundry use for the same text).  ``SystemPrompt``,
``PostHistoryInstructions`` and ``AlternativeFirstMessages`` are the names Character Foundry's and
Card Architect's Voxta model gives the card fields of the same meaning.

``Label`` is the ``nickname``.  Voxta's own settings (``TextToSpeech``, ``ChatStyle``,
``Scripts``, ``Augmentations``, …) are kept in ``extensions.voxta`` in the layout Character
Foundry's ``voxtaToCCv3`` gives them (:data:`SETTINGS`), so a card carries them like any card
extension and a card Character Foundry made brings them back to Voxta.  Their defaults
(:data:`DEFAULTS`) and empty values are neutral, so a conversion that drops them reports
nothing.  Ids, links and dates' original text are layout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    _optional("nickname", "Label", PLAIN, None),
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


VOXTA = "voxta"
"""Extension key of a character's Voxta settings (Character Foundry's)."""
SETTINGS: tuple[tuple[str, str], ...] = (
    ("context", "Context"), ("instructions", "Instructions"),
    ("userNameOverride", "UserNameOverride"),
    ("userDescriptionOverride", "UserDescriptionOverride"), ("culture", "Culture"),
    ("importedFrom", "ImportedFrom"), ("textToSpeech", "TextToSpeech"),
    ("chatSettings.chatStyle", "ChatStyle"),
    ("chatSettings.enableThinkingSpeech", "EnableThinkingSpeech"),
    ("chatSettings.notifyUserAwayReturn", "NotifyUserAwayReturn"),
    ("chatSettings.timeAware", "TimeAware"), ("chatSettings.useMemory", "UseMemory"),
    ("chatSettings.maxTokens", "MaxTokens"), ("chatSettings.maxSentences", "MaxSentences"),
    ("chatSettings.systemPromptOverrideType", "SystemPromptOverrideType"),
    ("simulationSettings.climaxSensitivity", "ClimaxSensitivity"),
    ("simulationSettings.pleasureDecay", "PleasureDecay"),
    ("scripts", "Scripts"), ("augmentations", "Augmentations"),
)
"""``extensions.voxta`` path <-> ``character.json`` key, as Character Foundry maps them.  Other
Voxta keys (``UseVision``, ``ScenarioOnly``, keys this table does not know) go under
``original`` by their own name, beside the dates' original text Character Foundry keeps there;
``id`` and ``packageId`` are the character's ids."""
SETTING_OF = {key: path for path, key in SETTINGS}
KEY_OF = dict(SETTINGS)
IDS = (("id", "Id"), ("packageId", "PackageId"))
DATES = ("DateCreated", "DateModified")
ORIGINAL = "original"
GROUPS = frozenset(p.split(".")[0] for p, _ in SETTINGS if "." in p)
ECHOES = {"label": "nickname", "appearance": f"extensions.{VISUAL}"}
"""Keys Character Foundry also writes that repeat a card field (``Label``, ``Description``).
The card field is the one written and read: a text kept once cannot go stale in one place."""


def setting_path(key: str) -> str:
    """Where a ``character.json`` key sits in ``extensions.voxta``."""
    return SETTING_OF.get(key) or f"{ORIGINAL}.{key}"


def to_extension(obj: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``extensions.voxta`` for a ``character.json`` and its keys the canonical model does not
    name (``extra``), in Character Foundry's layout and key order."""
    ext: dict[str, Any] = {}
    for name, key in IDS:
        if isinstance(obj.get(key), str) and obj[key]:
            ext[name] = obj[key]
    for path, key in SETTINGS:
        if key in extra:
            head, _, leaf = path.partition(".")
            if leaf:
                ext.setdefault(head, {})[leaf] = extra[key]
            else:
                ext[head] = extra[key]
    original = {k: v for k, v in extra.items() if k not in SETTING_OF}
    original.update((k, obj[k]) for k in DATES if isinstance(obj.get(k), str))
    if original:
        ext[ORIGINAL] = original
    return ext


Lost = list[tuple[str, Any, str]]
"""(path under ``extensions.voxta``, value, why Voxta cannot hold it)."""


def from_extension(ext: Any) -> tuple[dict[str, Any], dict[str, Any], Lost]:
    """(settings by ``character.json`` key, ids and dates' original text, what has no place)
    for an ``extensions.voxta`` value."""
    if not isinstance(ext, Mapping):
        return {}, {}, [("", ext, "not Character Foundry's object of Voxta settings")]
    settings: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    lost: Lost = []
    for name, key in IDS:
        if isinstance(ext.get(name), str):
            kept[key] = ext[name]
    known = {*KEY_OF, *(n for n, _ in IDS), *ECHOES, ORIGINAL}
    for name, value in ext.items():
        if name in GROUPS:
            if not isinstance(value, Mapping):
                lost.append((name, value, "not an object of Voxta settings"))
                continue
            for leaf, v in value.items():
                setting = KEY_OF.get(f"{name}.{leaf}")
                if setting is None:
                    lost.append((f"{name}.{leaf}", v, "Voxta has no such character setting"))
                elif v is not None:
                    settings[setting] = v
        elif name not in known:
            lost.append((name, value, "Voxta has no such character setting"))
        elif name in KEY_OF and value is not None:
            settings[KEY_OF[name]] = value
    original = ext.get(ORIGINAL)
    if isinstance(original, Mapping):
        for key, value in original.items():
            if key in DATES:
                kept[key] = value
            elif key in LAYOUT:
                continue  # ids and links (Character Foundry's MemoryBooks): not user data
            elif key in MAPPED:
                lost.append((f"{ORIGINAL}.{key}", value, "written from the card's own fields"))
            elif key in SETTING_OF:
                lost.append((f"{ORIGINAL}.{key}", value, f"the setting is {SETTING_OF[key]}"))
            else:
                settings[key] = value
    elif original is not None:
        lost.append((ORIGINAL, original, "not an object of Voxta keys"))
    return settings, kept, lost


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

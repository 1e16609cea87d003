"""Presets and prompt templates in a library: SillyTavern's folders for them, the format each
folder holds, and how a preset of any app is split into the files SillyTavern keeps.

SillyTavern lists each folder on start (``src/endpoints/settings.js``) and knows a file's type
by its folder alone, so a file is read as its folder's format, never guessed.  A preset of
another app (an oobabooga sampler preset, a RisuAI preset, a master export bundling several
parts) is placed by the sections it fills: a chat-completion prompt list is one
``OpenAI Settings`` file, samplers a text-completion preset, each template its own folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ...model import Preset

Group = Literal["text-completion", "chat-completion", "template"]


@dataclass(frozen=True, slots=True)
class PresetType:
    """One of SillyTavern's preset or template folders."""

    key: str
    """Short name in counts and the report (``textgen``)."""
    folder: str
    format: str
    """The bunzai format of the folder's files."""
    label: str
    """What the folder holds, plural (``instruct templates``)."""
    group: Group
    section: str
    """The preset section the type is about (``sampling``, ``instruct``…)."""


PRESET_TYPES: tuple[PresetType, ...] = (
    PresetType("textgen", "TextGen Settings", "sillytavern-textgen",
               "text-completion presets (Text Completion APIs)",
               "text-completion", "sampling"),
    PresetType("kobold", "KoboldAI Settings", "sillytavern-kobold",
               "text-completion presets (KoboldAI)", "text-completion", "sampling"),
    PresetType("novel", "NovelAI Settings", "sillytavern-novel",
               "text-completion presets (NovelAI)", "text-completion", "sampling"),
    PresetType("openai", "OpenAI Settings", "sillytavern-openai", "chat-completion presets",
               "chat-completion", "chat_completion"),
    PresetType("instruct", "instruct", "sillytavern-instruct", "instruct templates",
               "template", "instruct"),
    PresetType("context", "context", "sillytavern-context", "context templates", "template",
               "context"),
    PresetType("sysprompt", "sysprompt", "sillytavern-sysprompt", "system prompts",
               "template", "system_prompt"),
    PresetType("reasoning", "reasoning", "sillytavern-reasoning", "reasoning templates",
               "template", "reasoning"),
)
"""SillyTavern's preset and template folders, in the order the report lists them."""

BY_KEY = {t.key: t for t in PRESET_TYPES}
BY_FOLDER = {t.folder: t for t in PRESET_TYPES}
BY_FORMAT = {t.format: t for t in PRESET_TYPES}

_KOBOLD_SOURCES = ("koboldai-lite-settings",)
"""Formats whose samplers are KoboldAI's: they go to ``KoboldAI Settings``."""
_CHAT_COMPLETION_SOURCES = ("risu-preset",)
"""Formats whose presets are chat-completion presets even without a prompt list."""


def type_of(rel: str) -> PresetType | None:
    """The preset type of a library file (``instruct/Alpaca.json``), by its top folder."""
    return BY_FOLDER.get(rel.split("/", 1)[0])


def filled(preset: Preset, section: str) -> bool:
    """Whether ``preset`` states anything in ``section``."""
    return bool(getattr(preset, section).model_dump(exclude_none=True, exclude_defaults=True))


def sillytavern_parts(preset: Preset, fmt: str | None) -> list[tuple[PresetType, Preset]]:
    """The files SillyTavern keeps for ``preset`` (read as ``fmt``): one per folder, each
    holding the sections that folder's format holds, named after its part.

    A SillyTavern preset stays one file in its own folder; a chat-completion preset (a prompt
    list, a RisuAI preset) is one ``OpenAI Settings`` file, samplers included; anything else is
    split by section, a master export into its parts."""
    from ...model import Preset as PresetModel

    own = BY_FORMAT.get(fmt or "")
    if own is not None:
        return [(own, preset)]
    if fmt in _CHAT_COMPLETION_SOURCES or filled(preset, "chat_completion"):
        return [(BY_KEY["openai"], preset)]
    parts: list[tuple[PresetType, Preset]] = []
    for t in PRESET_TYPES:
        if t.group == "chat-completion" or not filled(preset, t.section):
            continue
        if t.group == "text-completion" and t.key != (
                "kobold" if fmt in _KOBOLD_SOURCES else "textgen"):
            continue
        name = preset.names.get(t.section) or preset.name
        parts.append((t, PresetModel(name=name, **{t.section: getattr(preset, t.section)})))
    if len(parts) == 1:
        return [(parts[0][0], preset)]
    if parts:  # what no part holds is reported once, by the first part's write
        first_type, first = parts[0]
        parts[0] = (first_type, first.model_copy(update={"app_data": preset.app_data}))
    return parts

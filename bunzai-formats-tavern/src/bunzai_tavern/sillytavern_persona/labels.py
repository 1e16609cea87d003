"""Origin evidence for persona files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule

from .._common.stsettings import is_settings


def _backup(input: Any, entities: Sequence[Any]) -> list[str]:
    d = input.json
    if isinstance(d, Mapping) and isinstance(d.get("personas"), Mapping) \
            and isinstance(d.get("persona_descriptions"), Mapping):
        return ["personas + persona_descriptions: SillyTavern's persona backup"]
    return []


def _settings(input: Any, entities: Sequence[Any]) -> list[str]:
    if is_settings(input.json):
        return ["settings.json: power_user / extension_settings beside ST's own settings"]
    return []


def rules() -> list[LabelRule]:
    return [
        LabelRule("SillyTavern", 0.9, _backup, "origin", "st-persona-backup"),
        LabelRule("SillyTavern", 0.95, _settings, "origin", "st-settings"),
    ]

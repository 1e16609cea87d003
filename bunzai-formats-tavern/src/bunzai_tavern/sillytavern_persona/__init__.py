"""``sillytavern-persona``: SillyTavern persona backups and the personas in ``settings.json``.

A backup holds many personas; reading gives one canonical Persona per persona (``multi``),
writing several personas gives one backup file.  ``settings.json`` is read for its personas
only: it is never written, and its other settings are not part of any persona.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import FormatAdapter, detect_json

from .._common.options import indent_option
from .._common.runs import ST_PERSONA
from .._common.stsettings import is_settings


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping):
        return 0.0, ""
    personas, descs = data.get("personas"), data.get("persona_descriptions")
    if isinstance(personas, Mapping) and isinstance(descs, Mapping):
        return 0.9, f"SillyTavern persona backup ({len(personas)} persona(s))"
    if is_settings(data):
        return 0.8, "SillyTavern settings.json (personas under power_user)"
    if isinstance(personas, Mapping) and personas and "persona_descriptions" not in data \
            and all(isinstance(v, str) for v in personas.values()) and len(data) <= 3:
        return 0.55, "persona names keyed by avatar, without descriptions"
    return 0.0, ""


class SillyTavernPersonaAdapter(FormatAdapter):
    """SillyTavern persona backups (Persona Management > Backup) and settings.json personas."""

    format_id = "sillytavern-persona"
    kind = "persona"
    runs = ST_PERSONA
    label = "SillyTavern persona backup"
    multi = True
    aliases = ("persona", "json")
    options = (indent_option(2, "JSON indent (as SillyTavern's backup); 0 is compact"),)
    signature = {"json": ("personas", "power_user", "extension_settings")}
    detection = (
        ("object with personas and persona_descriptions objects (a backup)", 0.9),
        ("SillyTavern settings.json (power_user / extension_settings and ST's top-level "
         "settings)", 0.8),
        ("personas object of names alone (no descriptions)", 0.55),
    )
    carries = ("name", "description", "title", "avatar_id", "is_default", "position", "depth",
               "role", "lorebook", "connections")
    reasons = (
        ("avatar", "a persona backup holds avatar file names, not images"),
        ("note", "SillyTavern personas have no note"),
        ("extensions", "SillyTavern personas have no extensions"),
    )
    losses = (
        ("avatar_id", "approximated: generated from the name when missing (ST keys personas "
                      "by avatar file)"),
        ("is_default", "approximated: only one persona can be the default"),
        ("app_data.sillytavern-persona.active_user", "dropped: a backup does not say which "
                                                     "persona a settings.json had selected"),
    )

    reader = "read:read_personas"
    writer = "write:write_backup"

    detect = detect_json(score)

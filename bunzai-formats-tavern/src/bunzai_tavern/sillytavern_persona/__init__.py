"""``sillytavern-persona``: SillyTavern persona backups and the personas in ``settings.json``.

A backup holds many personas; reading gives one canonical Persona per persona (``multi``),
writing several personas gives one backup file.  ``settings.json`` is read for its personas
only: it is never written, and its other settings are not part of any persona.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, Issue, LabelRule, WriteResult

from .._options import indent_option
from .._stsettings import is_settings

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity


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
    label = "SillyTavern persona backup"
    suffix = ".json"
    multi = True
    aliases = ("persona", "json")
    options = (indent_option(2, "JSON indent (as SillyTavern's backup); 0 is compact"),)
    detection = (
        ("object with personas and persona_descriptions objects (a backup)", 0.9),
        ("SillyTavern settings.json (power_user / extension_settings and ST's top-level "
         "settings)", 0.8),
        ("personas object of names alone (no descriptions)", 0.55),
    )
    losses = (
        ("avatar", "dropped: a backup holds avatar file names, not images"),
        ("avatar_id", "approximated: generated from the name when missing (ST keys personas "
                      "by avatar file)"),
        ("note", "dropped: SillyTavern personas have no note"),
        ("extensions", "dropped: SillyTavern personas have no extensions"),
        ("is_default", "approximated: only one persona can be the default"),
    )
    doc = "bunzai-formats-tavern/src/bunzai_tavern/sillytavern_persona/README.md"

    def detect(self, input: AdapterInput) -> Detection:
        s, why = score(input.json)
        return Detection(s, why)

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> Any:
        from .read import read_personas
        return read_personas(input, format_id=self.format_id)

    def write_many(self, entities: Sequence[Entity], options: Mapping[str, Any]) -> WriteResult:
        from .write import write_backup
        return write_backup(entities, options, format_id=self.format_id)

    def validate(self, input: AdapterInput, entities: Sequence[Entity]) -> list[Issue]:
        from .validate import validate_personas
        return validate_personas(input.json)

    def label_rules(self) -> list[LabelRule]:
        from .labels import rules
        return rules()

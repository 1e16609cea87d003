"""The canonical ("Vaud") model: one pydantic model per kind, readers and writers meet here.

A model is built (pydantic builds its schema) when its module is imported: this package imports
each module when one of its names is first asked for, so reading a character builds the
character's models and not the chat's, and the CLI builds none until a command reads or writes
an entity.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

if TYPE_CHECKING:
    from pydantic import Field, TypeAdapter

    from .character import Character
    from .chat import (
        ATTACHMENT_TYPES,
        Alternative,
        Attachment,
        Chat,
        ChatMessage,
        LazyMessages,
        Participant,
    )
    from .common import SCHEMA_VERSION, Asset, CanonicalModel, EntityBase, field_defaults
    from .lorebook import POSITIONS, ROLES, SELECTIVE_LOGIC, Lorebook, LorebookEntry
    from .module import Module
    from .persona import Persona
    from .preset import Preset
    from .regex import PLACEMENTS, RegexScript

    Entity = Annotated[
        Character | Lorebook | Persona | RegexScript | Module | Chat | Preset,
        Field(discriminator="kind"),
    ]
    MODELS: dict[str, type[EntityBase]]

_HOME = {
    "Character": "character",
    **dict.fromkeys(("ATTACHMENT_TYPES", "Alternative", "Attachment", "Chat", "ChatMessage",
                     "LazyMessages", "Participant"), "chat"),
    **dict.fromkeys(("SCHEMA_VERSION", "Asset", "CanonicalModel", "EntityBase",
                     "field_defaults"), "common"),
    **dict.fromkeys(("POSITIONS", "ROLES", "SELECTIVE_LOGIC", "Lorebook", "LorebookEntry"),
                    "lorebook"),
    "Module": "module",
    "Persona": "persona",
    **dict.fromkeys(("Preset", "Sampling", "InstructTemplate", "ContextTemplate", "SystemPrompt",
                     "ReasoningTemplate", "ChatCompletion", "PromptEntry", "PromptOrder",
                     "PromptOrderItem"), "preset"),
    **dict.fromkeys(("PLACEMENTS", "RegexScript"), "regex"),
}
"""Where each name lives: a reader building a character builds the character's models and
not the chat's (pydantic builds a model's schema when its module runs)."""


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is not None:
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{home}"), name)
    elif name == "Entity":
        from pydantic import Field

        value = Annotated[
            __getattr__("Character") | __getattr__("Lorebook") | __getattr__("Persona")
            | __getattr__("RegexScript") | __getattr__("Module") | __getattr__("Chat")
            | __getattr__("Preset"),
            Field(discriminator="kind"),
        ]
    elif name == "MODELS":
        value = {kind: __getattr__(cls) for kind, cls in (
            ("character", "Character"), ("lorebook", "Lorebook"), ("persona", "Persona"),
            ("regex", "RegexScript"), ("module", "Module"), ("chat", "Chat"),
            ("preset", "Preset"))}
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


_entity_adapter: TypeAdapter[Any] | None = None


def entity_adapter() -> TypeAdapter[Any]:
    """The (cached) pydantic adapter validating any entity from Python or JSON data."""
    global _entity_adapter
    if _entity_adapter is None:
        from pydantic import TypeAdapter

        _entity_adapter = TypeAdapter(__getattr__("Entity"))
    return _entity_adapter


def json_schema(kind: str) -> dict[str, Any]:
    """JSON Schema of one canonical kind."""
    schema: dict[str, Any] = __getattr__("MODELS")[kind].model_json_schema()
    schema["$comment"] = f"bunzai canonical schema {__getattr__('SCHEMA_VERSION')}"
    return schema


__all__ = [
    "ATTACHMENT_TYPES",
    "MODELS",
    "PLACEMENTS",
    "POSITIONS",
    "ROLES",
    "SCHEMA_VERSION",
    "SELECTIVE_LOGIC",
    "Alternative",
    "Asset",
    "Attachment",
    "CanonicalModel",
    "Character",
    "Chat",
    "ChatMessage",
    "Entity",
    "EntityBase",
    "LazyMessages",
    "Lorebook",
    "LorebookEntry",
    "Module",
    "Participant",
    "Persona",
    "Preset",
    "RegexScript",
    "entity_adapter",
    "field_defaults",
    "json_schema",
]

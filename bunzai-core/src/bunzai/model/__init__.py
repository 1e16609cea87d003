"""The canonical ("Vaud") model: one pydantic model per kind, readers and writers meet here.

Importing this package builds the pydantic models, so the CLI imports it only when a command
actually reads or writes an entity.
"""

from __future__ import annotations

from typing import Annotated, Any

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
from .regex import PLACEMENTS, RegexScript

Entity = Annotated[
    Character | Lorebook | Persona | RegexScript | Module | Chat, Field(discriminator="kind")
]
"""Any canonical entity, discriminated on ``kind``."""

MODELS: dict[str, type[EntityBase]] = {
    "character": Character,
    "lorebook": Lorebook,
    "persona": Persona,
    "regex": RegexScript,
    "module": Module,
    "chat": Chat,
}

_entity_adapter: TypeAdapter[Any] | None = None


def entity_adapter() -> TypeAdapter[Any]:
    """The (cached) pydantic adapter validating any entity from Python or JSON data."""
    global _entity_adapter
    if _entity_adapter is None:
        _entity_adapter = TypeAdapter(Entity)
    return _entity_adapter


def json_schema(kind: str) -> dict[str, Any]:
    """JSON Schema of one canonical kind."""
    schema = MODELS[kind].model_json_schema()
    schema["$comment"] = f"bunzai canonical schema {SCHEMA_VERSION}"
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
    "RegexScript",
    "entity_adapter",
    "field_defaults",
    "json_schema",
]

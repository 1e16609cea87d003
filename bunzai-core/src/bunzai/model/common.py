"""Pieces shared by every canonical kind."""

from __future__ import annotations

from functools import cache
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.1"
"""Version of the canonical ("Vaud") schema, stamped into every serialized entity."""

JSONValue = Any
"""Arbitrary JSON data kept verbatim (extensions, passthrough)."""


class CanonicalModel(BaseModel):
    """Base of all canonical models: strict on known fields, bytes serialized as base64."""

    model_config = ConfigDict(
        extra="forbid",
        validate_assignment=False,
        ser_json_bytes="base64",
        val_json_bytes="base64",
        populate_by_name=True,
    )


@cache
def field_defaults(model: type[BaseModel]) -> MappingProxyType[str, Any]:
    """Each field's default value, factories called once: for "is this field set?" checks.

    Writers compare every field of an entity with its default to report what they drop;
    pydantic's ``get_default`` inspects the factory's signature on every call, which made
    that comparison the hottest line of a conversion.  The values are shared: compare with
    them, never mutate them.
    """
    return MappingProxyType({name: info.get_default(call_default_factory=True)
                             for name, info in model.model_fields.items()})


APP_DATA_DESCRIPTION = (
    "user data only one app understands (keys the canonical model does not name, "
    "app-specific values), by format id then by the key it had in that format; other "
    "formats report each item they cannot carry"
)
"""What ``app_data`` holds, wherever a model has it (entities, entries, assets, messages)."""

SEE_ENTITY_APP_DATA = "user data only one app understands (see EntityBase)"
"""The short ``app_data`` description of an asset or a book entry."""


def extensions_field() -> Any:
    """The ``extensions`` field: app-namespaced blocks, kept verbatim."""
    return Field(default_factory=dict, description="app-namespaced extension blocks, kept verbatim")


def app_data_field(description: str = APP_DATA_DESCRIPTION) -> Any:
    """The ``app_data`` field: user data by format id (see :data:`APP_DATA_DESCRIPTION`)."""
    return Field(default_factory=dict, description=description)


def passthrough_field(description: str = "per-format layout, never user data (see EntityBase)"
                      ) -> Any:
    """The ``passthrough`` field: per-format layout, never user data (see :class:`EntityBase`)."""
    return Field(default_factory=dict, description=description)


class Asset(CanonicalModel):
    """A file a character carries: avatar, background, emotion sprite, sound, font, …

    ``data`` holds the bytes when the source embedded them; a remote asset keeps only its
    ``uri`` (bunzai never fetches).  ``media_type`` is sniffed from the bytes, never taken from
    ``ext`` or a file name, because apps routinely mislabel them.
    """

    type: str = Field("icon", description="icon, background, user_icon, emotion or an app type")
    name: str = Field("main", description="name as the card refers to it (kept byte-identical)")
    uri: str | None = Field(None, description="URI as written in the source, if any")
    ext: str | None = Field(None, description="extension the source declared")
    media_type: str | None = Field(None, description="media type sniffed from the bytes")
    data: bytes | None = Field(None, description="the asset's bytes when embedded")
    origin: str | None = Field(None, description="where the bytes came from (zip path, chunk)")
    orphan: bool = Field(False, description="present in the container but referenced by nothing")
    extensions: dict[str, JSONValue] = extensions_field()
    app_data: dict[str, dict[str, JSONValue]] = app_data_field(SEE_ENTITY_APP_DATA)


class EntityBase(CanonicalModel):
    """Fields every entity kind has."""

    schema_version: str = Field(SCHEMA_VERSION, description="canonical schema version")
    extensions: dict[str, JSONValue] = extensions_field()
    app_data: dict[str, dict[str, JSONValue]] = app_data_field()
    passthrough: dict[str, JSONValue] = passthrough_field(
        "per-format layout (key order, absent keys, original spellings and types, container "
        "layout) that lets the same format re-write identical bytes; never user data, so "
        "never reported as a loss")

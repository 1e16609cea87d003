"""Reading and writing RoleCall cards: Tavern cards whose book may sit in their extensions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._common.cards.container import read_character, write_character

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Character, ReadResult, WriteResult


def read_rolecall(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    """A RoleCall card; its V2 export keeps the book in ``data.extensions.character_book``."""
    return read_character(input, format_id, book_in_extensions=True)


def write_rolecall(entity: Character, options: Mapping[str, Any], format_id: str
                   ) -> WriteResult:
    """A RoleCall card: the ``extensions.rolecall`` block is what marks one, so a character
    without it gets an empty block (empty: nothing to report)."""
    if not isinstance(entity.extensions.get("rolecall"), Mapping):
        entity = entity.model_copy(update={"extensions": {**entity.extensions,
                                                          "rolecall": {}}})
    return write_character(entity, format_id, options, book_in_extensions=True)

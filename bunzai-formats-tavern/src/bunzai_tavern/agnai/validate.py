"""The rules of a native Agnai character, with JSON paths.

Mapped fields of the wrong type are the reader's warnings; these are Agnai's own rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue
from bunzai.sdk.fields import type_name

from .._common.agnai_persona import KINDS, render
from ..agnai_memory.validate import validate_book

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

_STRINGS = ("appearance", "avatar")
"""Text fields the reader does not map through its table (it warns about the others)."""


def check(input: AdapterInput, entities: Sequence[Any], format_id: str) -> list[Issue]:
    return validate_character(input.json)


def validate_character(data: Any) -> list[Issue]:
    if not isinstance(data, Mapping):
        return [Issue("$", f"{type_name(data)} is not an Agnai character", "error")]
    out: list[Issue] = []
    for key in ("name", "persona", "greeting", "scenario", "sampleChat"):
        if key not in data:
            out.append(Issue(f"$.{key}", "missing (Agnai needs it)"))
    for key in _STRINGS:
        if key in data and data[key] is not None and not isinstance(data[key], str):
            out.append(Issue(f"$.{key}", f"is {type_name(data[key])}, must be a string"))
    persona = data.get("persona")
    if persona is not None:
        if not isinstance(persona, Mapping):
            out.append(Issue("$.persona", f"is {type_name(persona)}, must be an object",
                             "error"))
        else:
            if persona.get("kind") not in KINDS:
                out.append(Issue("$.persona.kind", f"unknown persona kind "
                                                   f"{persona.get('kind')!r}"))
            attrs = persona.get("attributes")
            if not isinstance(attrs, Mapping):
                out.append(Issue("$.persona.attributes", "must be an object of lists",
                                 "error"))
            else:
                for k, v in attrs.items():
                    if not (isinstance(v, Sequence) and not isinstance(v, str)
                            and all(isinstance(x, str) for x in v)):
                        out.append(Issue(f"$.persona.attributes[{k!r}]",
                                         "must be a list of strings"))
            if not out and render(str(data.get("name", "")), persona) is None:
                out.append(Issue("$.persona", "cannot be rendered as text"))
    insert = data.get("insert")
    if insert is not None:
        if not isinstance(insert, Mapping):
            out.append(Issue("$.insert", "must be an object {prompt, depth}"))
        elif "depth" in insert and not isinstance(insert["depth"], int | float):
            out.append(Issue("$.insert.depth", "must be a number"))
    book = data.get("characterBook")
    if book is not None:
        out += validate_book(book, base="$.characterBook")
    return out

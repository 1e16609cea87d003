"""``rolecall-persona``: RoleCall persona exports, which describe the user, not a character.

Two shapes: the live export, a Character Card V2 lookalike whose
``data.extensions.rolecall.type`` is ``"persona"`` (JSON or PNG ``chara``), and a PNG ``rcpersona``
text chunk (or JSON) holding ``{"spec": "rolecall_persona", "data": {...}}``.  Both map to the
canonical persona kind, so the character readers must (and do) score 0 on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, Option

from .._cards import find_card, rolecall_block

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity
    from bunzai.types import ReadResult, WriteResult

FORMAT_ID = "rolecall-persona"


class RoleCallPersonaAdapter(FormatAdapter):
    """RoleCall persona cards and rcpersona exports."""

    format_id = FORMAT_ID
    kind = "persona"
    label = "RoleCall persona"
    suffix = ".png"
    aliases = ("rcpersona",)
    options = (
        Option("container", choices=("png", "json"), default="png", help="the output file"),
        Option("shape", choices=("card", "rcpersona"), default="as read, else card",
               help="card (a V2 lookalike with extensions.rolecall.type persona) or rcpersona "
                    "({spec: rolecall_persona, data})"),
    )
    detection = (
        ("a card whose data.extensions.rolecall.type is \"persona\" (JSON or PNG)", 1.0),
        ("a PNG rcpersona chunk or JSON with spec rolecall_persona", 1.0),
        ("anything else", 0.0),
    )
    losses = (
        ("title, note, avatar_id, is_default, position, depth, role, lorebook, connections",
         "dropped: a RoleCall persona card holds a name, a description, extensions and an "
         "image (rcpersona keeps title)"),
        ("avatar", "becomes the PNG image (converted to PNG when it is not one); JSON has none"),
    )
    doc = "bunzai-formats-tavern/src/bunzai_tavern/rolecall_persona/README.md"

    def detect(self, input: AdapterInput) -> Detection:
        found = find_card(input)
        if found.card is not None:
            block = rolecall_block(found)
            if block is not None and block.get("type") == "persona":
                return Detection(1.0, "card with extensions.rolecall.type persona")
        if found.rcpersona is not None:
            where = "rcpersona chunk" if found.source == "png" else "rolecall_persona JSON"
            return Detection(1.0, where)
        return Detection(0.0)

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
        from .io import read_persona
        return read_persona(input)

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        from .io import write_persona
        return write_persona(entity, options)  # type: ignore[arg-type]

"""``rolecall-persona``: RoleCall persona exports, which describe the user, not a character.

Two shapes: the live export, a Character Card V2 lookalike whose
``data.extensions.rolecall.type`` is ``"persona"`` (JSON or PNG ``chara``), and a PNG ``rcpersona``
text chunk (or JSON) holding ``{"spec": "rolecall_persona", "data": {...}}``.  Both map to the
canonical persona kind, so the character readers must (and do) score 0 on them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter, Option

from .._common.cards import find_card, rolecall_block
from .._common.neutral import ST_NEUTRAL

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

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
    # a card (also one wrapped in a pygmalion.chat export) or a rolecall_persona document
    signature = {"json": ("data", "extensions", "spec", "character", "card"),
                 "png": ("chara", "ccv3", "rcpersona"), "apng": ("chara", "ccv3", "rcpersona"),
                 "jpeg": (), "webp": ()}
    detection = (
        ("a card whose data.extensions.rolecall.type is \"persona\" (JSON or PNG)", 1.0),
        ("a PNG rcpersona chunk or JSON with spec rolecall_persona", 1.0),
        ("anything else", 0.0),
    )
    carries = ("name", "description", "extensions", "avatar", "title")
    reasons = (
        ("note", "a RoleCall persona has no separate note"),
        ("is_default", "a RoleCall persona export does not say which persona is the default"),
        ("position", "RoleCall personas have no prompt position"),
        ("depth", "RoleCall personas have no prompt depth"),
        ("role", "RoleCall personas have no prompt role"),
        ("lorebook", "a RoleCall persona export links no lorebook"),
        ("connections", "RoleCall persona exports have no persona locks"),
    )
    neutral = ST_NEUTRAL
    losses = (
        ("title", "dropped in the card shape (rcpersona keeps it)"),
        ("avatar", "becomes the PNG image (converted to PNG when it is not one); JSON has none"),
    )

    reader = "io:read_persona"
    writer = "io:write_persona"

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

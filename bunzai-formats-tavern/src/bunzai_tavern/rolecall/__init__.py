"""``rolecall``: RoleCall character cards (CCv2/CCv3 with a ``data.extensions.rolecall`` block).

RoleCall has no spec string of its own: its cards are ordinary Tavern cards (JSON, or PNG
``chara``/``ccv3``) marked by the extension block.  This adapter scores 1.0 exactly there, so it
outranks the generic ``sillytavern`` reader (0.9) on RoleCall cards and never touches a plain
card (0).  Persona exports (``rolecall.type == "persona"``) belong to ``rolecall-persona``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter, Option

from .._common.cards import CARD_CARRIES, CARD_REASONS, find_card, rolecall_block
from .._common.options import indent_option

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "rolecall"


class RoleCallAdapter(FormatAdapter):
    """RoleCall character cards (a Tavern card with extensions.rolecall)."""

    format_id = FORMAT_ID
    kind = "character"
    label = "RoleCall character card"
    suffix = ".png"
    aliases = ("rolecall-card",)
    options = (
        Option("container", choices=("png", "json"), default="png",
               help="the output file; a card read from JSON is written as JSON"),
        Option("chunks", choices=("both", "chara", "ccv3"), default="both",
               help="PNG only: chara (V2), ccv3 (V3) or both"),
        Option("spec", choices=("v2", "v3"), default="as read, else v3",
               help="JSON only: the card spec"),
        indent_option(4, "JSON only: indent; 0 is compact"),
    )
    # a card whose extensions (the root's for V1, data's for V2/V3) hold a rolecall block
    signature = {"json": ("data", "extensions"), "png": ("chara", "ccv3"),
                 "apng": ("chara", "ccv3"), "jpeg": (), "webp": ()}
    detection = (
        ("a card (JSON, PNG chunk or flat PNG payload) with data.extensions.rolecall that is "
         "not a persona", 1.0),
        ("any other card, including RoleCall personas", 0.0),
    )
    losses = (
        ("everything", "as the sillytavern format: RoleCall cards are Tavern cards"),
        ("extensions.rolecall", "kept verbatim; a character that has none gets an empty "
         "block, which is what marks a RoleCall card"),
    )
    carries = CARD_CARRIES
    reasons = CARD_REASONS
    reader = "io:read_rolecall"
    writer = "io:write_rolecall"
    validator = "._common.cards.checks:validate_card_input"

    def detect(self, input: AdapterInput) -> Detection:
        found = find_card(input)
        if found.card is None or found.rcpersona is not None or found.wrapper is not None:
            return Detection(0.0)
        block = rolecall_block(found)
        if block is None or block.get("type") == "persona":
            return Detection(0.0)
        return Detection(1.0, f"{found.version} card with data.extensions.rolecall")

"""``rolecall``: RoleCall character cards (CCv2/CCv3 with a ``data.extensions.rolecall`` block).

RoleCall has no spec string of its own: its cards are ordinary Tavern cards (JSON, or PNG
``chara``/``ccv3``) marked by the extension block.  This adapter scores 1.0 exactly there, so it
outranks the generic ``sillytavern`` reader (0.9) on RoleCall cards and never touches a plain
card (0).  Persona exports (``rolecall.type == "persona"``) belong to ``rolecall-persona``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, Issue, Option

from .._cards import find_card, rolecall_block
from .._options import indent_option

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity
    from bunzai.types import ReadResult, WriteResult

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
    detection = (
        ("a card (JSON, PNG chunk or flat PNG payload) with data.extensions.rolecall that is "
         "not a persona", 1.0),
        ("any other card, including RoleCall personas", 0.0),
    )
    losses = (
        ("everything", "as the sillytavern format: RoleCall cards are Tavern cards"),
        ("extensions.rolecall", "kept verbatim; a character that has none gets an empty "
         "block (approximated), which is what marks a RoleCall card"),
    )
    doc = "bunzai-formats-tavern/src/bunzai_tavern/rolecall/README.md"

    def detect(self, input: AdapterInput) -> Detection:
        found = find_card(input)
        if found.card is None or found.rcpersona is not None or found.wrapper is not None:
            return Detection(0.0)
        block = rolecall_block(found)
        if block is None or block.get("type") == "persona":
            return Detection(0.0)
        return Detection(1.0, f"{found.version} card with data.extensions.rolecall")

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
        from .._cards.container import read_character
        return read_character(input, FORMAT_ID, book_in_extensions=True)

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        from .._cards.container import read_character, write_character

        block = entity.extensions.get("rolecall")
        marked = entity
        if not isinstance(block, Mapping):
            # the block is what makes a card RoleCall's: without it the output would be a
            # plain Tavern card (and detected as one)
            marked = entity.model_copy(update={"extensions": {**entity.extensions,
                                                              "rolecall": {}}})
        result = write_character(
            marked, FORMAT_ID, options,  # type: ignore[arg-type]
            reader=lambda inp: read_character(inp, FORMAT_ID, book_in_extensions=True),
            book_in_extensions=True)
        if marked is not entity:
            what = "added" if block is None else f"written in place of a {type(block).__name__}"
            result.loss.approximated("extensions.rolecall",
                                     f"a RoleCall card is marked by extensions.rolecall: an "
                                     f"empty block was {what}")
        return result

    def validate(self, input: AdapterInput, entities: Sequence[Entity]) -> list[Issue]:
        from .._cards.checks import validate_input
        return validate_input(input)

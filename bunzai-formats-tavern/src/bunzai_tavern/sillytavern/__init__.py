"""``sillytavern``: Character Card V1/V2/V3 as SillyTavern reads and writes them.

JSON cards, PNG/APNG cards (``chara``/``ccv3`` in tEXt, zTXt or iTXt) and TavernAI's WebP/JPEG
cards (card JSON in the EXIF UserComment).  The generic Tavern reader: 0.9 on any recognisable
card, so app-specific readers (``rolecall`` at 1.0, ``risu`` above 0.9 on RisuAI-marked cards)
outrank it on their own cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter, Option

from .._common.cards import CARD_CARRIES, CARD_REASONS, find_card, rolecall_block
from .._common.neutral import ST_NEUTRAL
from .._common.options import indent_option
from .._common.runs import ST_CARD

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "sillytavern"


class SillyTavernAdapter(FormatAdapter):
    """Character Card V1/V2/V3: JSON, PNG/APNG, TavernAI WebP/JPEG."""

    format_id = FORMAT_ID
    kind = "character"
    runs = ST_CARD
    label = "SillyTavern character card (CCv1/V2/V3 JSON, PNG, WebP)"
    suffix = ".png"
    aliases = ("png", "json", "card", "tavern")
    alias_options = {"png": {"container": "png"}, "json": {"container": "json"}}
    options = (
        Option("container", choices=("png", "json"), default="png",
               help="the output file; a card read from JSON is written as JSON"),
        Option("chunks", choices=("both", "chara", "ccv3"), default="both",
               help="PNG only: chara (V2), ccv3 (V3) or both"),
        Option("spec", choices=("v1", "v2", "v3"), default="as read, else v3",
               help="JSON only: the card spec; v1 writes a flat card"),
        indent_option(4, "JSON only: indent (SillyTavern's export uses 4); 0 is compact"),
    )
    # a V1 card has a name, a V2/V3 card a spec; images hold it in card chunks or EXIF
    signature = {"json": ("name", "spec"), "png": ("chara", "ccv3"),
                 "apng": ("chara", "ccv3"), "jpeg": (), "webp": ()}
    detection = (
        ("a Character Card V1 (flat, with a character field), V2 or V3 as JSON", 0.9),
        ("a PNG/APNG with a readable chara or ccv3 text chunk (tEXt, zTXt, iTXt)", 0.9),
        ("a WebP/JPEG with a card in its EXIF UserComment (TavernAI)", 0.9),
        ("a PNG whose chara/ccv3 chunks cannot be read (claimed to say why)", 0.5),
        ("a RoleCall persona card, a pygmalion.chat wrapper, a world-info file, a lorebook, "
         "an Agnai or Pygmalion export", 0.0),
    )
    losses = (
        ("nickname, creator_notes_multilingual, source, creation/modification_date",
         "dropped from a V2 or V1 card (kept by V3, by the ccv3 chunk, and by chunks=both)"),
        ("assets", "a JSON card lists uris only (bytes not embedded); PNG keeps bytes as "
         "chara-ext-asset_ chunks addressed __asset:N; V2/V1 have no asset list"),
        ("assets[main icon]", "becomes the PNG image; non-PNG avatars are converted to PNG"),
        ("lorebook.entries[].use_regex / insertion_order",
         "written as false / 100 when unstated (the spec requires them)"),
        ("lorebook.entries[].is_folder", "kept as a RisuAI-style mode: folder entry"),
    )
    carries = CARD_CARRIES
    reasons = CARD_REASONS
    neutral = ST_NEUTRAL
    reader = "._common.cards.container:read_card"
    writer = "._common.cards.container:write_card"
    validator = "._common.cards.checks:validate_card_input"
    labeler = "._common.cards.labels:rules"

    def detect(self, input: AdapterInput) -> Detection:
        found = find_card(input)
        if found.rcpersona is not None or found.wrapper is not None:
            return Detection(0.0)
        if found.card is not None:
            rc = rolecall_block(found)
            if rc is not None and rc.get("type") == "persona":
                return Detection(0.0, "a RoleCall persona card")
            where = {"json": "JSON", "exif": "EXIF UserComment"}.get(
                found.source, f"{found.payload.keyword if found.payload else 'card'} chunk")
            return Detection(0.9, f"character card {found.version} in {where}")
        if found.source == "png" and found.card_chunks:
            return Detection(0.5, f"card chunk present but unreadable: {found.problem}")
        return Detection(0.0)

"""Validation of a card file: the card spec's rules (JSON paths) plus what the container
does to compatibility (a zTXt card SillyTavern 1.12 cannot see, a ``ccv3``-only PNG that
V2-only readers cannot see).  What the reader already warns about (wrong types it read as
something else, unreadable chunks, bad CRCs, disagreeing chunks) is not said again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue
from bunzai.sdk.cards import validate_card

from . import find_card

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

__all__ = ["validate_input"]


def validate_card_input(input: AdapterInput, entities: Any, format_id: str) -> list[Issue]:
    """The card adapters' validator (the entities read add nothing the input does not say)."""
    return validate_input(input)


def validate_input(input: AdapterInput) -> list[Issue]:
    """Spec violations of the card in ``input`` (warnings unless the card is unusable)."""
    found = find_card(input)
    if found.card is None:
        if found.problem:
            return [Issue("$", found.problem, "error")]
        return []
    issues = _not_said_by_the_reader(found.card, validate_card(found.card))
    if found.wrapper is not None:
        issues = [Issue(i.path.replace("$", f"$.{found.wrapper}", 1), i.message, i.severity)
                  for i in issues]
    if found.source == "png":
        issues += _png_issues(input)
    elif found.source == "exif":
        issues.append(Issue("$", "a WebP/JPEG card (EXIF UserComment): SillyTavern stopped "
                            "importing these in 2023; convert it to PNG"))
    return issues


def _not_said_by_the_reader(card: Any, issues: list[Issue]) -> list[Issue]:
    """``issues`` minus those at a path the reader already warns about (each problem once)."""
    from bunzai.sdk import BunzaiError, thaw
    from bunzai.sdk.cards import parse_card

    said: list[Issue] = []
    try:
        parse_card(thaw(card), format_id="\x00validate", warnings=said)
    except BunzaiError:
        return issues
    paths = {w.path for w in said}
    return [i for i in issues if i.path not in paths]


def _png_issues(input: AdapterInput) -> list[Issue]:
    png = input.png
    if png is None:
        return []
    issues: list[Issue] = []
    cards = png.find_text("chara", "ccv3")
    for tc in cards:
        if tc.kind != "tEXt":
            issues.append(Issue("$", f"card chunk {tc.keyword!r} is a {tc.kind} chunk; "
                                "SillyTavern 1.12 and RisuAI read only tEXt"))
        if tc.keyword not in ("chara", "ccv3"):
            issues.append(Issue("$", f"card chunk keyword {tc.keyword!r} is not lowercase; "
                                "RisuAI matches keywords exactly"))
    keywords = {tc.keyword.lower() for tc in cards}
    if "ccv3" in keywords and "chara" not in keywords:
        issues.append(Issue("$", "only a ccv3 chunk: readers that know only chara (V1/V2: "
                            "older SillyTavern, Agnai, TavernAI) will not find the card"))
    first_text = next((tc for tc in png.text_chunks() if tc.kind == "tEXt"), None)
    if first_text is not None and first_text.keyword.lower() != "chara" and "chara" in keywords:
        issues.append(Issue("$", f"the first tEXt chunk is {first_text.keyword!r}, not "
                            "chara: Agnai and TavernAI read the first tEXt chunk"))
    # unreadable chunks, bad CRCs and disagreements are the reader's warnings already
    return issues

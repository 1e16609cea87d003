"""``novelai-lorebook``: NovelAI lorebooks, as ``.lorebook`` JSON or as a PNG with ``naidata``.

A NovelAI lorebook is ``{"lorebookVersion": N, "entries": [...], "settings": {...},
"categories": [...]}``; each entry holds ``text``, ``keys``, ``displayName``, ``enabled``,
``forceActivation`` and a ``contextConfig`` (prefix, suffix, token budget, budget priority,
trimming and insertion position).  NovelAI's "export as image" stores the same JSON in a PNG
``tEXt`` chunk with the keyword ``naidata``.

This module is imported whenever bunzai detects a file, so it stays import-light: it imports
only ``bunzai.sdk`` (names load on first use) and names its reader, writer and validator, which
bunzai imports when they are first needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Detection, FormatAdapter, Option, Runs

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

PNG_KEYWORD = "naidata"


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _version(data: Any) -> Any:
    if not isinstance(data, Mapping):
        return None
    version = data.get("lorebookVersion")
    if isinstance(version, bool) or not isinstance(version, int | float):
        return None
    return version


def _text_version(data: Any) -> float | None:
    """A ``lorebookVersion`` written as text (``"4"``), as a broken tool wrote it."""
    version = data.get("lorebookVersion") if isinstance(data, Mapping) else None
    if not isinstance(version, str):
        return None
    try:
        return float(version.strip())
    except ValueError:
        return None


def score(data: Any, where: str) -> Detection:
    """The detection score for one parsed JSON document (from the file or a ``naidata`` chunk).

    ``lorebookVersion`` is NovelAI's own marker: no other format writes it, and the
    first-party lorebook adapters answer 0 on it, so 0.95 and 0.65 never tie with them.
    """
    version = _version(data)
    if version is None:
        if _text_version(data) is not None:
            return Detection(0.6, f"lorebookVersion{where} written as text (a tool's broken "
                                  "output; reading says what is wrong)")
        return Detection(0.0)
    if _is_list(data.get("entries")):
        return Detection(0.95, f"NovelAI lorebook{where} (lorebookVersion {version:g})")
    return Detection(0.65, f"lorebookVersion{where} without an entries list")


class NovelaiLorebookAdapter(FormatAdapter):
    """NovelAI lorebooks: ``.lorebook`` JSON, and PNG images carrying a ``naidata`` chunk."""

    format_id = "novelai-lorebook"
    kind = "lorebook"
    label = "NovelAI lorebook"
    suffix = ".lorebook"
    aliases = ("novelai", "lorebook-nai")
    options = (
        Option("container", choices=("json", "png"), default="as read, else json",
               help="json (a .lorebook file) or png (the book in a naidata chunk)"),
    )
    # what detection may skip: JSON without lorebookVersion, PNGs without a naidata chunk
    signature = {"json": ("lorebookVersion",), "png": (PNG_KEYWORD,)}
    detection = (
        ("JSON with a numeric lorebookVersion and an entries list", 0.95),
        ("PNG whose naidata chunk holds such a lorebook", 0.95),
        ("lorebookVersion without an entries list (JSON or naidata)", 0.65),
        ("lorebookVersion written as text, such as \"4\" (a tool's broken output; reading "
         "says what is wrong)", 0.6),
        ("anything else, including PNGs without naidata", 0.0),
    )
    losses = (
        ("entries[].name", "approximated as displayName when there is no comment, else dropped"),
        ("entries[] that are folders (is_folder)", "dropped; later entries move up"),
    )
    carries = ("entries[*].content", "entries[*].keys", "entries[*].comment",
               "entries[*].name", "entries[*].enabled", "entries[*].constant",
               "entries[*].insertion_order", "entries[*].id", "entries[*].is_folder")
    """The canonical paths the writer holds; core reports every other one holding user data."""
    reasons = (
        *((f, "a NovelAI lorebook has no book-level settings: the file name is its name")
          for f in ("name", "description", "scan_depth", "token_budget", "recursive_scanning",
                    "extensions")),
        ("entries[*]", "NovelAI entries activate on their keys alone: they have no such "
                       "setting"),
    )
    """Why the rest is dropped, in a user's words (the most specific pattern wins)."""
    neutral = (
        *((f"entries[*].app_data.novelai-lorebook.{k}", (v,))
          for k, v in (("searchRange", 1000), ("keyRelative", False),
                       ("nonStoryActivatable", False))),
        *((f"entries[*].app_data.novelai-lorebook.contextConfig.{k}", (v,))
          for k, v in (("prefix", ""), ("suffix", "\n"), ("tokenBudget", 2048),
                       ("reservedTokens", 0), ("trimDirection", "trimBottom"),
                       ("insertionType", "newline"), ("maximumTrimType", "sentence"),
                       ("insertionPosition", -1))),
        ("app_data.novelai-lorebook.settings.orderByKeyLocations", (False,)),
    )
    """NovelAI's settings for a new entry and book: dropping them loses nothing."""
    runs = (Runs("entries[*].content", "NovelAI", "prompt", "on every message",
                 note="inserted into the story's context; NovelAI shows it as plain text"),)
    """What NovelAI does with the text (``bunzai audit``): only sends it to the model, so only
    markup that would act if a reply repeated it is reported, and as NovelAI's."""
    reader = "read:read_lorebook"
    writer = "write:write_lorebook"
    validator = "read:validate_lorebook"

    def detect(self, input: AdapterInput) -> Detection:
        if input.container == "json":
            return score(input.json, "")
        if input.container == "png":
            for payload in input.png_json(PNG_KEYWORD):
                found = score(payload.value, " in a PNG naidata chunk")
                if found.score:
                    return found
        return Detection(0.0)

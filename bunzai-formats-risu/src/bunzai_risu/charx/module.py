"""The ``module.risum`` inside a RisuAI CharX: the character's scripts and its own lorebook.

RisuAI's CharX export moves the custom scripts and trigger scripts out of ``card.json`` into a
module, with the full internal lorebook; ``card.json`` keeps a CCv3 projection of the book.  On
import the module wins (RisuAI's rule).  The module's name, description and id are generated
from the character and ignored on import: they are layout, kept so an unchanged CharX is
written back byte for byte.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from typing import Any

from bunzai.sdk import Character, Issue, Lorebook, LossReport

from .._common import lore, regex, risum
from .._common.card import CARD, lorebook_fingerprint, script_split, write_custom_scripts
from .._common.module import read_triggers

PARTS = ("lorebook", "regex", "trigger")
_MODULE_NS = uuid.UUID("9c3b8e0a-4f1d-4d2e-8b6a-2e7f1c5d3a90")
_FIRST = ("name", "description", "id", "trigger", "regex", "lorebook", "assets")
NO_BOOK: Any = object()


def apply(ch: Character, mod: dict[str, Any], text: bytes, records: list[bytes],
          warnings: list[Issue], format_id: str, raw_book: Any) -> dict[str, Any]:
    """RisuAI's import rule on ``ch`` (the module's regex, triggers and lorebook win over
    card.json), and what a writer needs to rebuild the module (``format_id``: where the
    entries' and scripts' layout is kept)."""
    first = len(ch.regex_scripts)
    if "regex" in mod:
        ch.regex_scripts += regex.read_scripts(mod["regex"], "module.risum:$.module.regex",
                                               warnings, format_id, data_id=CARD, owned=True)
    ch.passthrough.setdefault(CARD, {}).setdefault("risu", {})["scripts"] = [
        first, len(ch.regex_scripts)]
    if "trigger" in mod:
        ch.triggers = read_triggers(mod["trigger"], "module.risum:$.module.trigger", warnings)
    info: dict[str, Any] = {
        "rest": {k: v for k, v in mod.items() if k not in PARTS},
        "order": list(mod),
        "has": [k for k in PARTS if k in mod],
    }
    if isinstance(mod.get("lorebook"), list):
        entries = lore.read_entries(mod["lorebook"], "module.risum:$.module.lorebook", warnings,
                                    format_id, data_id=CARD, owned=True)
        card_book = ch.lorebook
        ch.lorebook = Lorebook(entries=entries) if card_book is None else card_book.model_copy(
            update={"entries": entries})
        info["card_book"] = None if raw_book is NO_BOOK else {"value": raw_book}
        info["card_book_fp"] = lorebook_fingerprint(ch)
    if records:
        info["records"] = [base64.b64encode(r).decode("ascii") for r in records]
    if module_text(ch, info, format_id) != text:
        info["text"] = text.decode("utf-8")
    return info


def holds_book(info: Mapping[str, Any] | None) -> bool:
    """Whether the module holds the character's lorebook (card.json a projection of it)."""
    return info is not None and "card_book" in info


def build(ch: Character, info: Mapping[str, Any], format_id: str,
          loss: LossReport | None) -> dict[str, Any]:
    """The module object of the CharX's ``module.risum``."""
    first = script_split(ch)
    rest = info.get("rest")
    out: dict[str, Any] = dict(rest) if isinstance(rest, Mapping) else {
        "name": f"{ch.name} Module", "description": f"Module for {ch.name}",
        "id": str(uuid.uuid5(_MODULE_NS, ch.name)), "assets": [],
    }
    has = info.get("has")
    parts = set(has) if isinstance(has, list) else set()
    if ch.triggers is not None or "trigger" in parts:
        out["trigger"] = list(ch.triggers or [])
    if len(ch.regex_scripts) > first or "regex" in parts:
        out["regex"] = (write_custom_scripts(ch, first, format_id, loss) if loss is not None
                        else [regex.write_script(s, format_id, data_id=CARD)
                              for s in ch.regex_scripts[first:]])
    if holds_book(info) and ch.lorebook is not None:
        out["lorebook"] = lore.write_entries(ch.lorebook.entries, format_id, loss,
                                             "lorebook.entries", data_id=CARD)
        if loss is not None:
            lore.report_unheld(ch.lorebook.entries, CARD, loss, "lorebook.")
    order = info.get("order")
    keys = order if isinstance(order, list) else _FIRST
    ranked = {k: i for i, k in enumerate(keys)}
    return {k: out[k] for k in sorted(out, key=lambda k: ranked.get(k, len(ranked)))}


def module_text(ch: Character, info: Mapping[str, Any], format_id: str) -> bytes:
    """The main-block JSON text :func:`build` gives (compared with the source on read)."""
    return risum.dump_main(build(ch, info, format_id, None))


def records(info: Mapping[str, Any]) -> list[bytes]:
    return [base64.b64decode(r) for r in info.get("records") or []]


def projection_wanted(ch: Character, info: Mapping[str, Any]) -> bool:
    """Whether card.json gets a ``character_book`` beside the module's lorebook: as the
    source had one, or, for a lorebook changed since, as RisuAI's export always writes it."""
    if info.get("card_book") is not None:
        return True
    return ch.lorebook is not None and info.get("card_book_fp") != lorebook_fingerprint(ch)


def projection(ch: Character, info: Mapping[str, Any], format_id: str) -> Any:
    """card.json's character_book next to a module lorebook (RisuAI's projection)."""
    saved = info.get("card_book")
    if info.get("card_book_fp") == lorebook_fingerprint(ch) and isinstance(saved, Mapping):
        return saved.get("value")
    book = ch.lorebook
    if book is None:
        return None
    entries = [lore.project_entry(lore.write_entry(e, format_id, i, data_id=CARD), e.enabled)
               for i, e in enumerate(book.entries)]
    out: dict[str, Any] = {}
    for key in ("name", "description", "scan_depth", "token_budget", "recursive_scanning"):
        value = getattr(book, key)
        if value is not None:
            out[key] = value
    out["extensions"] = dict(book.extensions)
    own = book.app_data.get(CARD)
    if isinstance(own, dict):
        out.update((k, v) for k, v in own.items() if k not in out and k != "entries")
    out["entries"] = entries
    return out

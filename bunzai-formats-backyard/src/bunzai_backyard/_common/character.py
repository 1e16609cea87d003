"""The character-level fields every Backyard shape shares, mapped to and from the canonical model.

Three shapes carry the same facts under different keys: a BYAF ``character.json``, the legacy
Faraday/Backyard ``character`` object, and Backyard's hub/app API objects.  This module maps them
with one set of rules so BYAF, legacy PNG and bare JSON agree:

* ``name`` is Backyard's short name (what ``{character}`` expands to) and becomes the canonical
  ``name``; the full ``displayName`` goes to ``extensions.display_name`` when it differs, as
  SillyTavern's BYAF import does, so it survives every card format that keeps extensions.
* ``persona`` -> ``description``; ``isNSFW`` -> the tag ``nsfw``; lore items -> lorebook entries
  (``key`` split on commas); ``createdAt``/``updatedAt`` -> creation/modification dates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bunzai.types import Issue

from .macros import card_survives, to_backyard, to_card
from .util import (
    ABSENT,
    bool_field,
    digest,
    format_time,
    guard,
    lookup,
    ordered,
    parse_time,
    put,
    restore,
    text_field,
    type_name,
)

if TYPE_CHECKING:
    from bunzai.loss import LossReport
    from bunzai.model import Character, Lorebook, LorebookEntry

MACRO_CLASH = ("the text already spells {character}/{user} (or #{…}:), which Backyard reads as "
               "its own macros")
DISPLAY_NAME = "display_name"
"""Extension key for Backyard's full display name (the key SillyTavern's BYAF import uses)."""


@dataclass(frozen=True)
class Keys:
    """Where one shape keeps the shared character fields."""

    name: str
    display: str
    persona: str
    lore: str
    nsfw: str = "isNSFW"
    created: str = "createdAt"
    updated: str = "updatedAt"

    @property
    def mapped(self) -> tuple[str, ...]:
        return (self.name, self.display, self.persona, self.lore, self.nsfw, self.created,
                self.updated)


BYAF_KEYS = Keys("name", "displayName", "persona", "loreItems")
LEGACY_KEYS = Keys("aiName", "aiDisplayName", "aiPersona", "loreItems")
API_KEYS = Keys("name", "displayName", "persona", "LoreItems")


def name_state(name: str, nickname: str | None, display: Any) -> list[Any]:
    """What the name guards fingerprint: every canonical field the two names derive from."""
    return [name, nickname, display]


def build_names(ch: Character) -> tuple[str, str]:
    """(short name, display name) for Backyard from a canonical character.

    A card's ``nickname`` is what ``{{char}}`` expands to, which is Backyard's short name; the
    card name then becomes the display name.
    """
    display = ch.extensions.get(DISPLAY_NAME)
    if ch.nickname:
        return ch.nickname, display if isinstance(display, str) else ch.name
    return ch.name, display if isinstance(display, str) else ch.name


def read_fields(obj: Mapping[str, Any], keys: Keys, fmt: str, where: str,
                warnings: list[Issue], guards: dict[str, Any]) -> dict[str, Any]:
    """Canonical Character keyword arguments for the shared fields; guards filled in place."""
    raw_name = obj.get(keys.name, ABSENT)
    raw_display = obj.get(keys.display, ABSENT)
    name = text_field(obj, keys.name, where, warnings)
    display = text_field(obj, keys.display, where, warnings)
    canon_name = name or display
    extensions: dict[str, Any] = {}
    if display != canon_name:
        extensions[DISPLAY_NAME] = display
    state = name_state(canon_name, None, extensions.get(DISPLAY_NAME))
    short, full = canon_name, display if display != canon_name else canon_name
    guard(guards, keys.name, raw_name, state, short)
    guard(guards, keys.display, raw_display, state, full)

    raw_persona = obj.get(keys.persona, ABSENT)
    persona = text_field(obj, keys.persona, where, warnings)
    description = to_card(persona)
    guard(guards, keys.persona, raw_persona, description, to_backyard(description))

    raw_nsfw = obj.get(keys.nsfw, ABSENT)
    nsfw = bool_field(obj, keys.nsfw, where, warnings)
    tags = ["nsfw"] if nsfw else []
    guard(guards, keys.nsfw, raw_nsfw, tags, nsfw)

    out: dict[str, Any] = {
        "name": canon_name,
        "description": description,
        "tags": tags,
        "extensions": extensions,
    }
    for key, field in ((keys.created, "creation_date"), (keys.updated, "modification_date")):
        raw = obj.get(key, ABSENT)
        seconds = parse_time(raw) if raw is not ABSENT else None
        out[field] = seconds
        guard(guards, key, raw, seconds, format_time(seconds))

    book = read_lore(obj.get(keys.lore, ABSENT), fmt, f"{where}.{keys.lore}", warnings)
    out["lorebook"] = book
    guard(guards, keys.lore, obj.get(keys.lore, ABSENT), lore_state(book),
          build_lore(book, fmt) if book is not None else [])
    return out


def write_fields(ch: Character, keys: Keys, fmt: str, guards: Mapping[str, Any] | None,
                 loss: LossReport, personality: str = "append") -> dict[str, Any]:
    """The shared fields as one shape's keys (ABSENT-valued keys are left out)."""
    out: dict[str, Any] = {}
    short, full = build_names(ch)
    state = name_state(ch.name, ch.nickname, ch.extensions.get(DISPLAY_NAME))
    put(out, keys.name, restore(guards, keys.name, state, short))
    put(out, keys.display, restore(guards, keys.display, state, full))
    if ch.nickname:
        loss.approximated("nickname", f"Backyard's short name ({keys.name}) holds the nickname")
        loss.approximated("name", f"the card name became Backyard's {keys.display}")
        loss.approximated(f"extensions.{DISPLAY_NAME}", "Backyard's display name is read back "
                          "as this extension")

    hit, persona = lookup(guards, keys.persona, ch.description)
    if not hit:
        persona = to_backyard(ch.description)
        if not card_survives(ch.description):
            loss.approximated("description", MACRO_CLASH)
    if ch.personality and personality == "append":
        persona = (persona if isinstance(persona, str) else "") + "\n\n" + \
            to_backyard(ch.personality)
        loss.approximated("personality", f"Backyard has no personality field; appended to "
                          f"{keys.persona}")
        loss.approximated("description", f"{keys.persona} also holds the personality")
    elif ch.personality:
        loss.dropped("personality", "Backyard has no personality field")
    put(out, keys.persona, persona)

    nsfw = any(t.strip().lower() == "nsfw" for t in ch.tags)
    put(out, keys.nsfw, restore(guards, keys.nsfw, ch.tags, nsfw))
    if ch.tags != (["nsfw"] if nsfw else []):
        loss.approximated("tags", "Backyard keeps only an NSFW flag (tag 'nsfw')")

    for key, value, field in ((keys.created, ch.creation_date, "creation_date"),
                              (keys.updated, ch.modification_date, "modification_date")):
        hit, stamp = lookup(guards, key, value)
        put(out, key, stamp if hit else format_time(value))
        if value is None and not hit:
            loss.approximated(field, "Backyard requires a timestamp; the conversion time was "
                              "written")

    hit, lore = lookup(guards, keys.lore, lore_state(ch.lorebook))
    put(out, keys.lore, lore if hit else write_lore(ch.lorebook, fmt, loss))
    return out


# -- lore --------------------------------------------------------------------------------------


def lore_state(book: Lorebook | None) -> Any:
    return digest(book) if book is not None else None


def split_key(key: str) -> list[str]:
    return [k.strip() for k in key.split(",") if k.strip()]


def read_lore(raw: Any, fmt: str, where: str, warnings: list[Issue]) -> Lorebook | None:
    """Lore items as a lorebook (None when there are none: an empty list states nothing)."""
    from bunzai.model import Lorebook, LorebookEntry

    if raw is ABSENT or raw is None:
        return None
    if isinstance(raw, str) or not isinstance(raw, Sequence):
        warnings.append(Issue(where, f"lore items are a {type_name(raw)}, not an array; ignored"))
        return None
    entries: list[LorebookEntry] = []
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping):
            warnings.append(Issue(f"{where}[{i}]", f"lore item is a {type_name(item)}; skipped"))
            continue
        w = f"{where}[{i}]"
        key = text_field(item, "key", w, warnings)
        value = text_field(item, "value", w, warnings)
        keys = split_key(key)
        content = to_card(value)
        pt: dict[str, Any] = {}
        g: dict[str, Any] = {}
        guard(g, "key", item.get("key", ABSENT), keys, ", ".join(keys))
        guard(g, "value", item.get("value", ABSENT), content, to_backyard(content))
        if g:
            pt["guards"] = g
        rest = {k: v for k, v in item.items() if k not in ("key", "value")}
        if rest:
            pt["rest"] = rest
        order = list(item.keys())
        if order != ["key", "value"]:
            pt["order"] = order
        entries.append(LorebookEntry(keys=keys, content=content,
                                     passthrough={fmt: pt} if pt else {}))
    if not entries:
        return None
    return Lorebook(entries=entries)


def build_lore(book: Lorebook, fmt: str) -> list[dict[str, Any]]:
    """Lore items rebuilt from a book read by this module (no loss bookkeeping)."""
    from bunzai.loss import LossReport

    return write_lore(book, fmt, LossReport())


_ENTRY_KEEPS = frozenset({"keys", "content", "enabled", "passthrough", "is_folder"})


def write_lore(book: Lorebook | None, fmt: str, loss: LossReport,
               path: str = "lorebook") -> list[dict[str, Any]]:
    """Lore items: enabled entries only (Backyard has no switch), keys joined with ``, ``."""
    if book is None:
        return []
    _report_book(book, loss, path)
    items: list[dict[str, Any]] = []
    for i, entry in enumerate(book.entries):
        ep = f"{path}.entries[{i}]"
        if entry.is_folder:
            loss.dropped(ep, "a folder node; Backyard lore is flat")
            continue
        if not entry.enabled:
            loss.dropped(ep, "a disabled entry; Backyard lore items are always active")
            continue
        if len(items) != i:
            loss.approximated(ep, f"moved to lore item {len(items)} after dropped entries")
        _report_entry(entry, loss, ep)
        pt = entry.passthrough.get(fmt) if isinstance(entry.passthrough.get(fmt), dict) else {}
        g = pt.get("guards") if isinstance(pt, dict) else None
        joined = ", ".join(k.strip() for k in entry.keys if k.strip())
        if split_key(joined) != entry.keys:
            loss.approximated(f"{ep}.keys", "Backyard keeps one comma-separated key string")
        item: dict[str, Any] = {}
        put(item, "key", restore(g, "key", entry.keys, joined))
        hit, value = lookup(g, "value", entry.content)
        if not hit:
            value = to_backyard(entry.content)
            if not card_survives(entry.content):
                loss.approximated(f"{ep}.content", MACRO_CLASH)
        put(item, "value", value)
        rest = pt.get("rest") if isinstance(pt, dict) else None
        if isinstance(rest, dict):
            for k, v in rest.items():
                item.setdefault(k, v)
        items.append(ordered(item, pt.get("order") if isinstance(pt, dict) else None))
    return items


def _report_book(book: Lorebook, loss: LossReport, path: str) -> None:
    for field in ("name", "description", "scan_depth", "token_budget", "recursive_scanning"):
        if getattr(book, field) is not None:
            loss.dropped(f"{path}.{field}", "Backyard lore has no book settings")
    if book.extensions:
        loss.dropped(f"{path}.extensions", "Backyard lore has no extension data")
    if not book.entries:
        loss.approximated(path, "an empty lorebook reads back as none")


def _report_entry(entry: LorebookEntry, loss: LossReport, path: str) -> None:
    from bunzai.model import field_defaults

    for name, default in field_defaults(type(entry)).items():
        if name in _ENTRY_KEEPS:
            continue
        if getattr(entry, name) != default:
            loss.dropped(f"{path}.{name}", "Backyard lore items hold only keys and text")


CARD_ONLY = (
    ("post_history_instructions", "Backyard has no post-history instructions"),
    ("creator_notes", "Backyard has no creator notes"),
    ("creator_notes_multilingual", "Backyard has no creator notes"),
    ("group_only_greetings", "Backyard has no group-only greetings"),
    ("character_version", "Backyard has no character version"),
    ("source", "Backyard has no source list"),
    ("regex_scripts", "Backyard has no regex scripts"),
    ("triggers", "Backyard has no trigger scripts"),
)
"""Card fields neither Backyard format can hold, with the reason a loss report gives."""


def report_card_only(ch: Character, loss: LossReport, *, extensions_why: str,
                     extra: tuple[tuple[str, str], ...] = ()) -> None:
    """Report the card-only fields (and app extension blocks) a Backyard writer drops."""
    for field, why in (*extra, *CARD_ONLY):
        if getattr(ch, field):
            loss.dropped(field, why)
    for key in ch.extensions:
        if key != DISPLAY_NAME:
            loss.dropped(f"extensions.{key}", extensions_why)

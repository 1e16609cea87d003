"""The character fields every Backyard shape shares, mapped to and from the canonical model.

Three shapes carry the same facts under different keys (see ``tables.py``); one set of rules maps
them, so BYAF, legacy PNG and bare JSON agree:

* ``name`` is Backyard's short name (what ``{character}`` expands to) and becomes the canonical
  ``name``; the full ``displayName`` goes to ``extensions.display_name`` when it differs, as
  SillyTavern's BYAF import does, so it survives every card format that keeps extensions.
* ``persona`` -> ``description``; ``isNSFW`` -> the tag ``nsfw``; lore items -> lorebook entries
  (``key`` split on commas); ``createdAt``/``updatedAt`` -> creation/modification dates.

Writers report only what they change; :func:`report_character` and :func:`write_lore` say what
the canonical fields read back as, from the values written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue
from bunzai.sdk.fields import Table, same, type_name

from .declared import DISPLAY_NAME
from .tables import LORE_ITEM, Keys
from .util import ABSENT, now_seconds

if TYPE_CHECKING:
    from bunzai.sdk import Character, Lorebook, LorebookEntry, LossReport, Neutrality

MACRO_CLASH = ("the text already spells {character}/{user} (or #{…}:), which Backyard reads as "
               "its own macros")
LORE_LAYOUT = ("id", "order", "createdAt", "updatedAt")
"""Lore item keys that identify, sort and date the item in Backyard's database: its
bookkeeping, not something a user wrote (layout)."""


# -- names -------------------------------------------------------------------------------------


def names_of(short: str, display: str) -> tuple[str, dict[str, Any]]:
    """The canonical name and extensions for Backyard's short and display names."""
    name = short or display
    return name, ({DISPLAY_NAME: display} if display != name else {})


def build_names(ch: Character) -> tuple[str, str]:
    """(short name, display name) for Backyard from a canonical character.

    A card's ``nickname`` is what ``{{char}}`` expands to, which is Backyard's short name; the
    card name then becomes the display name.
    """
    display = ch.extensions.get(DISPLAY_NAME)
    full = display if isinstance(display, str) else ch.name
    return (ch.nickname or ch.name), full


def is_nsfw(tags: Sequence[str]) -> bool:
    return any(t.strip().lower() == "nsfw" for t in tags)


# -- the shared fields -------------------------------------------------------------------------


def read_character(obj: Mapping[str, Any], table: Table, where: str, warnings: list[Issue],
                   skip: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(canonical keyword arguments, layout, data) of a character object's table fields."""
    reading = table.read(obj, where, warnings, skip=skip, owned=True)
    values = dict(reading.values)
    layout = dict(reading.layout)
    if not values["short"] and values["display"]:
        layout["unnamed"] = True  # the display name stands for an empty short name
    name, extensions = names_of(values.pop("short"), values.pop("display"))
    nsfw = values.pop("nsfw")
    for attr in ("creation_date", "modification_date"):
        key = next(n for f in table.fields if f.attr == attr for n, _ in f.names)
        if key not in obj:  # a missing date stays missing
            layout["absent"] = [*layout.get("absent", ()), attr]
    values.update(name=name, extensions=extensions, tags=["nsfw"] if nsfw else [])
    return values, layout, dict(reading.data)


def character_values(ch: Character, table: Table, layout: Mapping[str, Any] | None,
                     data: Mapping[str, Any] | None, personality: str) -> dict[str, Any]:
    """The values ``table`` writes for ``ch`` (by attribute)."""
    short, full = build_names(ch)
    if layout and layout.get("unnamed") and short == full and not ch.nickname:
        short = ""
    persona = ch.description
    if ch.personality and personality == "append":
        persona = f"{persona}\n\n{ch.personality}"
    values = {"short": short, "display": full, "nsfw": is_nsfw(ch.tags), "description": persona}
    for f in table.fields:
        if f.attr in ("creation_date", "modification_date"):
            values[f.attr] = _stamp(getattr(ch, f.attr), f.attr, f.names[0][0], layout, data)
        elif f.attr not in values and f.attr is not None:
            values[f.attr] = getattr(ch, f.attr)
    return values


def _stamp(value: int | None, attr: str, key: str, layout: Mapping[str, Any] | None,
           data: Mapping[str, Any] | None) -> int | None:
    """A date to write: the canonical one; none where the source had none (or one bunzai could
    not read, kept as it was); else now, since Backyard requires one."""
    if value is not None:
        return value
    if layout and (attr in (layout.get("absent") or ()) or key in (layout.get("raw") or {})):
        return None
    if data and key in data:
        return None
    return now_seconds()


def report_character(ch: Character, table: Table, keys: Keys, written: Mapping[str, Any],
                     loss: LossReport, personality: str) -> None:
    """Report what ``written`` (the object ``table`` wrote) reads back as, where that differs."""
    back = table.reads_as(written)
    _report_names(ch, back["short"], back["display"], loss, keys)
    if ch.tags != (["nsfw"] if back["nsfw"] else []):
        loss.approximated("tags", "Backyard keeps only an NSFW flag (tag 'nsfw')")
    appended = bool(ch.personality) and personality == "append"
    if appended:
        loss.approximated("personality", f"Backyard has no personality field; appended to "
                          f"{keys.persona}")
    elif ch.personality:
        loss.dropped("personality", "Backyard has no personality field")
    for attr, value in back.items():
        if attr in ("short", "display", "nsfw") or same(value, getattr(ch, attr)):
            continue
        if attr == "description" and appended:
            loss.approximated(attr, f"{keys.persona} also holds the personality")
        elif attr in ("creation_date", "modification_date"):
            # a date the source did not have is filled in (Backyard requires one): nothing
            # of the user's is lost
            if getattr(ch, attr) is not None:
                loss.approximated(attr, "Backyard cannot write this date")
        elif attr == "mes_example":
            loss.approximated(attr, "Backyard keeps one example dialogue text: example blocks "
                              "are joined and <START> markers dropped")
        else:
            loss.approximated(attr, MACRO_CLASH)


def _report_names(ch: Character, short: str, display: str, loss: LossReport,
                  keys: Keys) -> None:
    name, extensions = names_of(short, display)
    if ch.nickname:
        loss.approximated("nickname", f"Backyard's short name ({keys.name}) holds the nickname")
    if name != ch.name:
        why = (f"the card name became Backyard's {keys.display}" if ch.nickname else
               f"Backyard's {keys.name} is empty, so its {keys.display} is read as the name")
        loss.approximated("name", why)
    before = ch.extensions.get(DISPLAY_NAME, ABSENT)
    after = extensions.get(DISPLAY_NAME, ABSENT)
    if before in (ABSENT, None, "") and after in (ABSENT, ""):
        return
    if before is ABSENT or not same(before, after):
        if after is ABSENT:
            loss.dropped(f"extensions.{DISPLAY_NAME}", f"Backyard's {keys.display} is a text that "
                         "differs from the name; this one reads back as none")
        else:
            loss.approximated(f"extensions.{DISPLAY_NAME}", f"Backyard's {keys.display} is read "
                              "back as this extension")


# -- lore --------------------------------------------------------------------------------------


def read_lore(raw: Any, fmt: str, where: str, warnings: list[Issue]) -> Lorebook | None:
    """Lore items as a lorebook (None when there are none: an empty list states nothing).

    Items that are not objects are kept as the book's data (``app_data[fmt]["loreItems[i]"]``)
    and written back at their place.
    """
    from bunzai.sdk import Lorebook, LorebookEntry

    entries: list[LorebookEntry] = []
    junk: dict[str, Any] = {}
    for i, item in enumerate(raw):
        w = f"{where}[{i}]"
        if not isinstance(item, Mapping):
            warnings.append(Issue(w, f"lore item is {type_name(item)}; kept as it was"))
            junk[f"loreItems[{i}]"] = item
            continue
        reading = LORE_ITEM.read(item, w, warnings, skip=LORE_LAYOUT, owned=True)
        layout = dict(reading.layout)
        kept = {k: item[k] for k in LORE_LAYOUT if k in item}
        if kept:
            layout["keep"] = kept
        entries.append(LorebookEntry(
            keys=reading.values["keys"], content=reading.values["content"],
            app_data={fmt: dict(reading.data)} if reading.data else {},
            passthrough={fmt: layout} if layout else {}))
    if not entries and not junk:
        return None
    return Lorebook(entries=entries, app_data={fmt: junk} if junk else {})


def write_lore(book: Lorebook | None, fmt: str, loss: LossReport, neutral: Neutrality,
               path: str = "lorebook") -> list[Any]:
    """Lore items: enabled entries only (Backyard has no switch), keys joined with ``, ``.

    Reports what reads back differently: the entries left out (the list, when later entries
    move up), keys that do not survive the comma join, text in the other macro convention, and
    the whole book when it keeps no item but holds data.
    """
    if book is None:
        return []
    junk = book.app_data.get(fmt) if isinstance(book.app_data.get(fmt), dict) else {}
    items: list[Any] = []
    gone: dict[int, str] = {}
    for i, entry in enumerate(book.entries):
        if entry.is_folder or not entry.enabled:
            gone[i] = ("a folder node; Backyard lore is flat" if entry.is_folder else
                       "a disabled entry; Backyard lore items are always active")
            continue
        items.append(_lore_item(entry, fmt, loss, f"{path}.entries[{i}]"))
    if not items and not junk and not neutral.neutral(path, book):
        why = ("Backyard lore has no book settings" if not book.entries else
               "Backyard lore items are always active: disabled entries and folders are "
               "dropped, and with them the book")
        loss.dropped(path, why)
    else:
        loss.left_out(f"{path}.entries", gone, len(book.entries))
    for key, value in sorted(junk.items(), key=lambda kv: _junk_index(kv[0])):
        index = _junk_index(key)
        if index >= 0:
            items.insert(min(index, len(items)), value)
    return items


def _junk_index(key: str) -> int:
    head, _, rest = key.partition("[")
    digits = rest.rstrip("]")
    return int(digits) if head == "loreItems" and digits.isdigit() else -1


def _lore_item(entry: LorebookEntry, fmt: str, loss: LossReport, path: str) -> dict[str, Any]:
    layout = entry.passthrough.get(fmt)
    layout = layout if isinstance(layout, dict) else None
    data = entry.app_data.get(fmt)
    data = data if isinstance(data, dict) else None
    keep = layout.get("keep") if layout else None
    item = LORE_ITEM.write(lambda attr: getattr(entry, attr), layout, data,
                           tail=keep if isinstance(keep, dict) else None)
    back = LORE_ITEM.reads_as(item)
    if back["keys"] != entry.keys:
        loss.approximated(f"{path}.keys", "Backyard keeps one comma-separated key text: keys "
                          "are trimmed and split at commas")
    if back["content"] != entry.content:
        loss.approximated(f"{path}.content", MACRO_CLASH)
    return item



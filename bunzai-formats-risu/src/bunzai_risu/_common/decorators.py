"""RisuAI lorebook ``@@decorators`` <-> canonical entry fields.

RisuAI keeps most entry settings as decorator lines at the start of ``content`` (``@@depth 4``,
``@@role system``, ``@@probability 30`` …); it even turns SillyTavern's fields into decorators on
import.  Decorators with a canonical field are lifted out of the content on read so other
formats see real settings instead of stray ``@@`` text, and are written back on write.
Decorators without a canonical field (``@@position``, ``@@activate``, ``@@inject_lore`` …) and
fallback lines (``@@@``) stay in the content, untouched: apps other than RisuAI show them as
text.

The original text is remembered with a fingerprint of the fields it produced; while those fields
and the remaining content are unchanged, the writer emits the original lines byte for byte.
Otherwise decorators are written as RisuAI's own import writes them: ``@@probability`` only when
``use_probability`` is on, key decorators only when ``selective`` is not false (secondary keys
that are switched off stay plain secondary keys).  A decorator line says what RisuAI's parser
makes of it, so the writer learns what a field becomes by parsing the lines it composed
(:func:`drift`), with the same rules the reader uses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import ROLES, LorebookEntry

from .declared import DECOR_FIELDS

REASONS = {
    "selective": "RisuAI's key decorators always apply, so the entry reads back as selective",
    "secondary_keys": "RisuAI splits secondary keys on commas and trims them; a blank key, or "
                      "one with a line break, has no place in a decorator",
    "selective_logic": "RisuAI has decorators only for a selective entry's secondary keys",
    "probability": "RisuAI has only @@probability, written when use_probability is on",
    "use_probability": "RisuAI has no switch for @@probability: on when written, else absent",
    "content": "lines at the top of the content that start with @@ read back as RisuAI "
               "decorators (settings), not as text",
    "position": "RisuAI places entries by @@depth or @@position, not by SillyTavern slots",
    "role": "RisuAI sets a role only for entries injected at a depth",
}
"""Why a field reads back changed from RisuAI's decorators."""

DEFAULT_REASON = "RisuAI keeps this setting as an @@decorator line, which cannot hold this value"

_KEY_DECORATORS = {"exclude_keys_all": "not_all", "exclude_keys": "not_any",
                   "additional_keys": "and_all"}
_LOGIC_DECORATOR = {v: k for k, v in _KEY_DECORATORS.items()}
_RECORD = "decor"
_COMPARED = (*DECOR_FIELDS, "content")

CLEARED: dict[str, Any] = {
    "position": None, "depth": None, "role": None, "probability": None,
    "use_probability": None, "delay": None, "scan_depth": None, "match_whole_words": None,
    "enabled": True, "selective": False, "selective_logic": None, "secondary_keys": [],
}
"""What a field holds once a decorator carries it (the object around it says nothing)."""


def split_header(content: str) -> tuple[list[str], str]:
    """(leading decorator lines, the rest) of an entry's content."""
    if not content.startswith("@@"):
        return [], content
    lines = content.split("\n")
    i = 0
    while i < len(lines) and lines[i].startswith("@@"):
        i += 1
    return lines[:i], "\n".join(lines[i:])


def _int(arg: str) -> int | None:
    try:
        n = int(arg)
    except ValueError:
        return None
    return n if n >= 0 else None


def _number(arg: str) -> int | float | None:
    try:
        f = float(arg)
    except ValueError:
        return None
    if not math.isfinite(f) or not 0 <= f <= 100:
        return None
    return int(f) if f.is_integer() else f


def _keys(arg: str) -> list[str]:
    return [k.strip() for k in arg.split(",") if k.strip()]


def _parse(name: str, arg: str) -> dict[str, Any] | None:
    """Fields one decorator line sets, or None when it has no canonical meaning."""
    if name == "depth":
        n = _int(arg)
        return None if n is None else {"position": "at_depth", "depth": n}
    if name == "role":
        return {"role": arg} if arg in ROLES else None
    if name == "probability":
        p = _number(arg)
        return None if p is None else {"probability": p, "use_probability": True}
    if name == "activate_only_after":
        n = _int(arg)
        return None if n is None else {"delay": n}
    if name == "scan_depth":
        n = _int(arg)
        return None if n is None else {"scan_depth": n}
    if name in ("match_full_word", "match_partial_word") and not arg:
        return {"match_whole_words": name == "match_full_word"}
    if name == "dont_activate" and not arg:
        return {"enabled": False}
    return None


def parse(lines: Sequence[str], held: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(fields the decorator ``lines`` set, the lines that stay text).

    ``held`` is what the entry already says without its decorators: a line that contradicts
    it stays text, and key decorators apply only to an entry without secondary keys of its own.
    """
    own_secondary = bool(held.get("secondary_keys")) or bool(held.get("selective"))
    found: dict[str, Any] = {}
    kept: list[str] = []
    logic: str | None = None
    logic_keys: list[str] = []
    logic_lines = 0
    for i, line in enumerate(lines):
        text = line.rstrip("\r")
        fallback_follows = i + 1 < len(lines) and lines[i + 1].startswith("@@@")
        if text.startswith("@@@") or fallback_follows:
            kept.append(line)
            continue
        name, _, arg = text[2:].partition(" ")
        arg = arg.strip()
        if name in _KEY_DECORATORS and arg and not own_secondary and logic in (
                None, _KEY_DECORATORS[name]):
            if name == "exclude_keys_all" and logic_lines:
                kept.append(line)
                continue
            logic = _KEY_DECORATORS[name]
            logic_keys += _keys(arg)
            logic_lines += 1
            continue
        fields = _parse(name, arg)
        if fields is None or any(
            (k in found and found[k] != v)
            or (k not in found and held.get(k) not in (None, v) and k != "enabled")
            for k, v in fields.items()
        ):
            kept.append(line)
            continue
        found.update(fields)
    if logic is not None:
        found.update({"selective_logic": logic, "secondary_keys": logic_keys,
                      "selective": True})
    return found, kept


def _held(entry: LorebookEntry) -> dict[str, Any]:
    return {f: getattr(entry, f) for f in DECOR_FIELDS}


def _fingerprint(entry: LorebookEntry) -> dict[str, Any]:
    data = _held(entry)
    data["body"] = entry.content
    return data


def extract(entry: LorebookEntry, format_id: str) -> None:
    """Lift translatable decorators out of ``entry.content`` into fields (in place)."""
    lines, body = split_header(entry.content)
    if not lines:
        return
    original = entry.content
    found, kept = parse(lines, _held(entry))
    if not found:
        return
    for k, v in found.items():
        setattr(entry, k, v)
    entry.content = "\n".join([*kept, body]) if kept else body
    entry.passthrough.setdefault(format_id, {})[_RECORD] = {
        "content": original, "fp": _fingerprint(entry), "from": sorted(found),
    }


def _writable_keys(keys: list[str]) -> list[str]:
    """The secondary keys a decorator line can carry: trimmed (RisuAI trims them anyway),
    blank ones left out, and none with a line break (it would end the decorator line)."""
    return [k.strip() for k in keys if k.strip() and "\n" not in k]


def _generate(entry: LorebookEntry) -> tuple[list[str], set[str]]:
    """Decorator lines for the entry's fields, and the fields they express."""
    lines: list[str] = []
    used: set[str] = set()
    if entry.position == "at_depth" and entry.depth is not None:
        lines.append(f"@@depth {entry.depth}")
        used |= {"position", "depth"}
    if entry.role is not None and entry.position in (None, "at_depth"):
        lines.append(f"@@role {entry.role}")
        used.add("role")
    p = entry.probability
    if p is not None and entry.use_probability is True and p != 100:
        lines.append(f"@@probability {int(p) if float(p).is_integer() else p}")
        used |= {"probability", "use_probability"}
    if entry.delay:
        lines.append(f"@@activate_only_after {entry.delay}")
        used.add("delay")
    if entry.scan_depth is not None:
        lines.append(f"@@scan_depth {entry.scan_depth}")
        used.add("scan_depth")
    if entry.match_whole_words is not None:
        lines.append("@@match_full_word" if entry.match_whole_words else "@@match_partial_word")
        used.add("match_whole_words")
    logic = entry.selective_logic
    keys = _writable_keys(entry.secondary_keys)
    if logic in _LOGIC_DECORATOR and keys and entry.selective is not False:
        name = _LOGIC_DECORATOR[logic]
        if name == "exclude_keys_all":
            lines.append(f"@@{name} {','.join(keys)}")
        else:
            lines.extend(f"@@{name} {k}" for k in keys)
        used |= {"selective_logic", "secondary_keys", "selective"}
    if entry.enabled is False:
        lines.append("@@dont_activate")
        used.add("enabled")
    return lines, used


def render(entry: LorebookEntry, format_id: str) -> tuple[str, set[str], bool]:
    """(content with decorators, the fields the decorators express, whether the text is the
    one read: the original lines while nothing they express has changed)."""
    record = entry.passthrough.get(format_id)
    saved = record.get(_RECORD) if isinstance(record, Mapping) else None
    if isinstance(saved, Mapping) and saved.get("fp") == _fingerprint(entry):
        return str(saved.get("content", "")), set(saved.get("from") or ()), True
    lines, used = _generate(entry)
    if not lines:
        return entry.content, used, False
    content = "\n".join([*lines, entry.content]) if entry.content else "\n".join(lines)
    return content, used, False


def risu_view(entry: LorebookEntry, format_id: str) -> tuple[LorebookEntry, bool]:
    """A copy of ``entry`` as RisuAI holds it: decorators in the content, their fields cleared
    (and whether the content is the one read).

    ``enabled`` stays as it is: RisuAI disables an entry with ``@@dont_activate`` and ignores
    the card's ``enabled``, but every other reader of the card (SillyTavern, Character
    Foundry) goes by ``enabled`` alone, so a disabled entry says so both ways.
    """
    content, used, original = render(entry, format_id)
    # Callers reassign fields and add or remove top-level keys of ``extensions``; they never
    # change nested values, so copying those two dicts is enough.
    update: dict[str, Any] = {"content": content, "extensions": dict(entry.extensions),
                              "passthrough": dict(entry.passthrough)}
    for f in used - {"enabled"}:
        cleared = CLEARED[f]
        update[f] = list(cleared) if isinstance(cleared, list) else cleared
    return entry.model_copy(update=update), original


def drift(entry: LorebookEntry, content: str, held: Mapping[str, Any],
          neutral: Any) -> list[str]:
    """The fields of ``entry`` (decorator fields and ``content``) that read differently from
    ``content`` written with ``held`` beside it (the other settings the written object says).

    ``neutral`` is core's neutral-value table: a field that is neutral before and after (an
    unstated ``use_probability`` and an absent one) has not changed.
    """
    lines, body = split_header(content)
    back = dict(held)
    back["content"] = content
    if lines:
        found, kept = parse(lines, held)
        if found:
            back.update(found)
            back["content"] = "\n".join([*kept, body]) if kept else body
    after = entry.model_copy(update=back)
    out = []
    for f in _COMPARED:
        was, now = getattr(entry, f), back[f]
        if type(was) is type(now) and was == now:
            continue
        pattern = f"entries[*].{f}"
        if neutral.neutral(pattern, was, entry) and neutral.neutral(pattern, now, after):
            continue
        out.append(f)
    return out

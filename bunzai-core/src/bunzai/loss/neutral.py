"""Neutral values: what a field holds when it asks nothing of the app that reads it.

A loss report names user data a target cannot hold, and nothing else.  A field whose value is
empty, or is what an app without the feature does anyway (``constant: false``, ``use_regex:
false``, a probability of 100), loses nothing when the target drops it; a field that only says
where something came from or how a file was laid out (``id``, ``display_index``, an asset's
``origin`` or sniffed ``media_type``) is not user data at all.  Both the static loss rule
(:mod:`bunzai.loss.rule`) and the read-back comparison use this one table, so what a report leaves
out is exactly what a comparison ignores.

Rules are keyed by *pattern*: the canonical path with list indices written ``[*]``
(``lorebook.entries[*].depth``).  A rule is a tuple of neutral values, or a function of the value
and the object holding it (``depth`` is neutral unless the entry is inserted at a depth).  Formats
add rules for the keys they own inside ``extensions`` and ``app_data`` through
``FormatInfo.neutral``; an object or array is neutral when each of its items is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..model.preset_rules import PRESET_RULES

Rule = tuple[Any, ...] | Callable[[Any, Any], bool]
"""Neutral values, or ``(value, owner) -> bool``."""

ALWAYS: Callable[[Any, Any], bool] = lambda value, owner: True  # noqa: E731
"""Layout and derived fields: never user data."""


def _unless_at_depth(*values: Any) -> Callable[[Any, Any], bool]:
    return lambda v, owner: v in values or getattr(owner, "position", None) != "at_depth"


def _no_secondary(*values: Any) -> Callable[[Any, Any], bool]:
    return lambda v, owner: v in values or not getattr(owner, "secondary_keys", None)


def _probability(v: Any, owner: Any) -> bool:
    return (type(v) is not bool and v == 100) or getattr(owner, "use_probability", None) is False


def _use_probability(v: Any, owner: Any) -> bool:
    p = getattr(owner, "probability", None)
    return p is None or (type(p) is not bool and p == 100)


def _group_weight(v: Any, owner: Any) -> bool:
    return (type(v) is not bool and v == 100) or not getattr(owner, "group", None)


def _title_again(v: Any, owner: Any) -> bool:
    # apps that title an entry by its name (Agnai, CCv3) and apps that title it by its comment
    # (SillyTavern, RisuAI) show the same title: a name that repeats the comment adds nothing
    return type(v) is str and v == getattr(owner, "comment", None)


def _embedded_uri(v: Any, owner: Any) -> bool:
    # An embedded asset's uri is its address inside one container (``__asset:3``,
    # ``embeded://assets/x.png``); a remote asset's uri is the asset itself.
    return getattr(owner, "data", None) is not None


_E = "lorebook.entries[*]."
_ENTRY: dict[str, Rule] = {
    "id": ALWAYS,
    "name": _title_again,
    "enabled": (True,),
    "constant": (False,),
    "selective": _no_secondary(False),
    "selective_logic": _no_secondary("and_any"),
    "insertion_order": (100,),
    "case_sensitive": (False,),
    "match_whole_words": (False,),
    "use_regex": (False,),
    "position": ("before_char",),
    "depth": _unless_at_depth(4),
    "role": _unless_at_depth("system"),
    "probability": _probability,
    "use_probability": _use_probability,
    "group_override": (False,),
    "group_weight": _group_weight,
    "use_group_scoring": (False,),
    "exclude_recursion": (False,),
    "prevent_recursion": (False,),
    "delay_until_recursion": (False, 0),
    "sticky": (0,),
    "cooldown": (0,),
    "delay": (0,),
    "vectorized": (False,),
    "display_index": ALWAYS,
    "ignore_budget": (False,),
    "match_persona_description": (False,),
    "match_character_description": (False,),
    "match_character_personality": (False,),
    "match_character_depth_prompt": (False,),
    "match_scenario": (False,),
    "match_creator_notes": (False,),
    "character_filter.isExclude": (False,),
    "is_folder": (False,),
    "passthrough": ALWAYS,
}
_BOOK: dict[str, Rule] = {
    "recursive_scanning": (False,),
}
def _main_icon(v: Any, owner: Any) -> bool:
    # CCv3 names the card's main picture "main"; writers that hold one picture give it that
    # name, so an icon named "main" says nothing a nameless one does not
    return v == "main" and getattr(owner, "type", None) == "icon"


_ASSET: dict[str, Rule] = {
    "name": _main_icon,
    "uri": _embedded_uri,
    "ext": ALWAYS,
    "media_type": ALWAYS,
    "origin": ALWAYS,
    "orphan": ALWAYS,
}
_REGEX: dict[str, Rule] = {
    "id": ALWAYS,
    "disabled": (False,),
    "markdown_only": (False,),
    "prompt_only": (False,),
    "run_on_edit": (True,),
    "substitute_regex": (0,),
}


def _chosen(v: Any, owner: Any) -> bool:
    # which alternative is shown means something only when there are two to choose from
    return len(getattr(owner, "alternatives", None) or ()) < 2


_M = "messages[*]."
_MESSAGE: dict[str, Rule] = {
    "id": ALWAYS,  # the app's own message id: regenerated by every import, never shown
    "hidden": (False,),
    "chosen": _chosen,
    "passthrough": ALWAYS,
    "alternatives[*].passthrough": ALWAYS,
    "attachments[*].passthrough": ALWAYS,
}

CORE_RULES: dict[str, Rule] = {
    "kind": ALWAYS,
    "schema_version": ALWAYS,
    "passthrough": ALWAYS,
    "lorebook.kind": ALWAYS,
    "regex_scripts[*].kind": ALWAYS,
    # books: standalone, embedded in a character or a module
    **{k: v for k, v in _BOOK.items()},
    **{f"lorebook.{k}": v for k, v in _BOOK.items()},
    **{f"entries[*].{k}": v for k, v in _ENTRY.items()},
    **{f"{_E}{k}": v for k, v in _ENTRY.items()},
    "lorebook.schema_version": ALWAYS,
    "lorebook.passthrough": ALWAYS,
    # assets of characters and modules, a persona's avatar
    **{f"assets[*].{k}": v for k, v in _ASSET.items()},
    **{f"avatar.{k}": v for k, v in _ASSET.items()},
    # regex scripts, standalone or carried by a character or a module
    **{k: v for k, v in _REGEX.items() if k not in ("id",)},
    **{f"regex_scripts[*].{k}": v for k, v in _REGEX.items()},
    "regex_scripts[*].schema_version": ALWAYS,
    "regex_scripts[*].passthrough": ALWAYS,
    # personas: SillyTavern's defaults (in the prompt, depth 2, system role)
    "is_default": (False,),
    "avatar_id": ALWAYS,
    # modules
    "low_level_access": (False,),
    # chats: app ids and layout are not user data; a message shown (not hidden) is the default
    **{f"{_M}{k}": v for k, v in _MESSAGE.items()},
    "participants[*].id": ALWAYS,
    "participants[*].passthrough": ALWAYS,
}
"""Core's rules for canonical fields, by pattern relative to the entity."""

_KIND_ONLY: dict[str, dict[str, Rule]] = {
    # patterns that mean different things in different kinds
    "regex": {"id": ALWAYS},
    "module": {"id": ALWAYS},
    "persona": {"position": (0,), "depth": (2,), "role": (0,)},
    "preset": dict(PRESET_RULES),
}


def is_empty(value: Any) -> bool:
    """None, an empty string, list or object."""
    return value is None or value == "" or (
        type(value) in (list, dict, tuple) and not value)


class Neutrality:
    """Core's rules plus those the installed formats declare (``FormatInfo.neutral``)."""

    def __init__(self, extra: Iterable[tuple[str, Rule]] = ()) -> None:
        self.rules: dict[str, Rule] = dict(CORE_RULES)
        self.kind_rules = {k: dict(v) for k, v in _KIND_ONLY.items()}
        for pattern, rule in extra:
            self.add(pattern, rule)

    def add(self, pattern: str, rule: Rule) -> None:
        """A format's rule for a key it owns (``extensions.fav``, ``app_data.x.chat``).

        A pattern outside ``extensions`` and ``app_data`` would let a format decide what other
        formats may drop, so it is also accepted for keys under them at any depth only.
        """
        if not isinstance(rule, tuple) and not callable(rule):
            rule = (rule,)
        for prefix in ("", "lorebook.", _E, "entries[*].", "assets[*].", "regex_scripts[*].",
                       _M, f"{_M}alternatives[*].", f"{_M}attachments[*].", "participants[*]."):
            if pattern.startswith(prefix + "extensions.") or pattern.startswith(
                    prefix + "app_data."):
                break
        else:
            raise ValueError(f"a format may declare neutral values only under extensions or "
                             f"app_data, not {pattern!r}")
        self.rules[pattern] = rule

    def rule(self, pattern: str, kind: str | None = None) -> Rule | None:
        if kind is not None:
            special = self.kind_rules.get(kind)
            if special is not None and pattern in special:
                return special[pattern]
        return self.rules.get(pattern)

    def neutral(self, pattern: str, value: Any, owner: Any = None,
                kind: str | None = None) -> bool:
        """Whether ``value`` at ``pattern`` asks nothing of the app (see the module docs)."""
        if value is None:
            return True
        rule = self.rule(pattern, kind)
        if rule is not None:
            if not isinstance(rule, tuple):
                if rule(value, owner):
                    return True
            elif any(type(value) is type(n) and value == n for n in rule):
                return True
        t = type(value)
        if t is str or t is bytes:
            return not value
        if t is list or t is tuple:
            # item by item, as a comparison sees a list: [""] asks no more than []
            if not value:
                return True
            child = pattern + "[*]"
            return all(self.neutral(child, v, value, kind) for v in value)
        if t is dict or isinstance(value, Mapping):
            if not value:
                return True
            return all(self.neutral(f"{pattern}.{k}", v, value, kind) for k, v in value.items())
        if hasattr(type(value), "model_fields"):
            fields = type(value).model_fields
            return all(self.neutral(f"{pattern}.{name}", getattr(value, name), value, kind)
                       for name in fields)
        return False


UNORDERED = frozenset({"assets"})
"""Lists whose order is layout: a character's or a module's assets are found by type and name
(the main icon, an emotion), never by their place, so a writer may order them as its app does
(Backyard puts the portrait first).  They are compared by content, not position."""

STAMPED = frozenset({"creation_date", "modification_date"})
"""A card's dates: a target that requires them stamps the conversion time where the source had
none, as the apps do on import.  A date appearing where there was none loses nothing; a date
that changes or goes is still a change."""


def pattern_of(path: str) -> str:
    """``lorebook.entries[3].depth`` -> ``lorebook.entries[*].depth``.

    The loss rule asks this of every path of every write, so it is one regular-expression pass
    (a bracket never closed stays as it is)."""
    if "[" not in path:
        return path
    return _INDEX.sub("[*]", path)


_INDEX = re.compile(r"\[[^\]]*\]")

"""Short, human-sized facts about an entity, for ``inspect`` and the studio."""

from __future__ import annotations

from typing import Any


def summarize(entity: Any) -> dict[str, Any]:
    """Name, text sizes and counts; cheap and JSON-ready."""
    kind = entity.kind
    out: dict[str, Any] = {"kind": kind}
    if kind == "character":
        out.update({
            "name": entity.name,
            "description_chars": len(entity.description),
            "personality_chars": len(entity.personality),
            "scenario_chars": len(entity.scenario),
            "greetings": (1 if entity.first_mes else 0) + len(entity.alternate_greetings),
            "group_only_greetings": len(entity.group_only_greetings),
            "lorebook_entries": len(entity.lorebook.entries) if entity.lorebook else 0,
            "assets": len(entity.assets),
            "asset_bytes": sum(len(a.data or b"") for a in entity.assets),
            "regex_scripts": len(entity.regex_scripts),
            "tags": len(entity.tags),
            "extensions": sorted(entity.extensions),
        })
    elif kind == "lorebook":
        out.update({"name": entity.name, "entries": len(entity.entries),
                    "enabled_entries": sum(1 for e in entity.entries if e.enabled)})
    elif kind == "persona":
        out.update({"name": entity.name, "description_chars": len(entity.description),
                    "default": entity.is_default})
    elif kind == "regex":
        out.update({"name": entity.name, "placement": entity.placement,
                    "disabled": entity.disabled})
    elif kind == "module":
        out.update({"name": entity.name,
                    "lorebook_entries": len(entity.lorebook.entries) if entity.lorebook else 0,
                    "regex_scripts": len(entity.regex_scripts),
                    "triggers": len(entity.triggers or []), "assets": len(entity.assets)})
    elif kind == "chat":
        from .chats import summarize as summarize_chat
        out.update(summarize_chat(entity))
    return out

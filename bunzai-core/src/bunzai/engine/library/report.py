"""The report of a move: a summary by item type, ``REPORT.md`` for people and ``report.json``
for tools, in the output folder.

Every item is counted once under its type and status (written, approximated, dropped, failed,
unchanged), so the totals add up to the items; each item's loss lines are its loss report's
grouped lines (:meth:`bunzai.loss.report.LossReport.lines`), as ``bunzai convert`` prints them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .items import STATUSES, Item

KIND_LABELS = {"character": "characters", "world": "worlds", "personas": "personas",
               "regex": "regex scripts", "group": "groups", "chats": "chats without a card",
               "quick_replies": "quick replies", "presets": "presets and templates",
               "themes": "themes", "other": "SillyTavern's own folders", "secret": "secrets",
               "file": "unknown files", "lorebook": "lorebooks", "persona": "personas",
               "chat": "chats", "module": "modules"}


def summarize(items: Iterable[Item]) -> dict[str, dict[str, int]]:
    """Items per type and status, with a ``total`` row (zero counts left out)."""
    table: dict[str, dict[str, int]] = {}
    total: dict[str, int] = {}
    for item in items:
        row = table.setdefault(item.kind, {})
        row[item.status] = row.get(item.status, 0) + 1
        total[item.status] = total.get(item.status, 0) + 1
    out = {k: {s: row[s] for s in STATUSES if s in row} for k, row in table.items()}
    out["total"] = {s: total[s] for s in STATUSES if s in total}
    return out


def summary_lines(table: Mapping[str, Mapping[str, int]]) -> list[str]:
    """One line per item type: ``characters: 38 written, 2 approximated``."""
    lines = []
    for kind, row in table.items():
        if kind == "total":
            continue
        counts = ", ".join(f"{n} {s}" for s, n in row.items())
        lines.append(f"{KIND_LABELS.get(kind, kind)}: {counts}")
    total = table.get("total", {})
    lines.append("total: " + (", ".join(f"{n} {s}" for s, n in total.items()) or "nothing"))
    return lines


def item_lines(item: Item) -> list[str]:
    """What people read of one item: its status, its outputs, why, and its loss lines."""
    head = f"{item.status} {item.name}"
    if item.error:
        head += f": {item.error}"
    elif item.reason:
        head += f": {item.reason}"
    elif item.loss:
        head += f": {item.loss['summary']}"
    lines = [head]
    lines.extend(f"  {line}" for line in item.loss.get("lines", []) if item.loss)
    lines.extend(f"  note: {n}" for n in item.notes)
    return lines


def markdown(facts: Mapping[str, Any], items: list[Item]) -> str:
    """``REPORT.md``: the move, the summary table, then each item type's items."""
    table = summarize(items)
    out = [f"# Library move: {facts['library']} -> {facts['target']}", ""]
    out.append(f"Output folder: `{facts['out_dir']}`. Every source file and what it became: "
               "`manifest.json`; the same report for tools: `report.json`.")
    out += ["", "| item | " + " | ".join(STATUSES) + " |",
            "|---|" + "---:|" * len(STATUSES)]
    for kind, row in table.items():
        label = "**total**" if kind == "total" else KIND_LABELS.get(kind, kind)
        out.append(f"| {label} | " + " | ".join(str(row.get(s, "")) for s in STATUSES) + " |")
    by_kind: dict[str, list[Item]] = {}
    for item in items:
        by_kind.setdefault(item.kind, []).append(item)
    for kind, group in by_kind.items():
        out += ["", f"## {KIND_LABELS.get(kind, kind).capitalize()}", ""]
        for item in sorted(group, key=lambda i: (STATUSES.index(i.status), i.name.casefold())):
            lines = item_lines(item)
            out.append(f"- **{lines[0].split(' ', 1)[0]}** {_md(lines[0].split(' ', 1)[1])}")
            for line in lines[1:]:
                out.append(f"  - {_md(line.strip())}")
            if item.outputs:
                shown = list(item.outputs)[:6]
                more = len(item.outputs) - len(shown)
                out.append("  - to: " + ", ".join(f"`{o}`" for o in shown)
                           + (f" and {more} more" if more > 0 else ""))
    if facts.get("secrets"):
        out += ["", "## Secrets", "",
                "Never read, never copied: " + ", ".join(f"`{s}`" for s in facts["secrets"])]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def as_json(facts: Mapping[str, Any], items: list[Item]) -> dict[str, Any]:
    """``report.json``: the move's facts, the summary and every item."""
    return {**facts, "summary": summarize(items), "items": [i.to_dict() for i in items]}

"""The report of a move: a summary by item type, ``REPORT.md`` for people and ``report.json``
for tools, in the output folder.

Every item is counted once under its type and status (written, approximated, dropped, failed,
unchanged), so the totals add up to the items; each item's loss lines are its loss report's
grouped lines (:meth:`bunzai.loss.report.LossReport.lines`), as ``bunzai convert`` prints them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .items import STATUSES, Item

KIND_LABELS = {"character": "characters", "world": "worlds", "personas": "personas",
               "regex": "regex scripts", "group": "groups", "chats": "chats without a card",
               "quick_replies": "quick replies", "presets": "presets and templates",
               "themes": "themes", "other": "SillyTavern's own folders", "secret": "secrets",
               "file": "unknown files", "lorebook": "lorebooks", "persona": "personas",
               "chat": "chats", "module": "modules"}


def table(counts: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Items per type and status (``counts``), statuses in their order, with a ``total`` row;
    zero counts left out."""
    out: dict[str, dict[str, int]] = {k: {s: row[s] for s in STATUSES if row.get(s)}
                                      for k, row in counts.items()}
    total: dict[str, int] = {}
    for row in out.values():
        for s, n in row.items():
            total[s] = total.get(s, 0) + n
    out["total"] = {s: total[s] for s in STATUSES if s in total}
    return out


def summarize(items: Iterable[Item]) -> dict[str, dict[str, int]]:
    """The :func:`table` of some items."""
    counts: dict[str, dict[str, int]] = {}
    for item in items:
        row = counts.setdefault(item.kind, {})
        row[item.status] = row.get(item.status, 0) + 1
    return table(counts)


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


def markdown(facts: Mapping[str, Any], summary: Mapping[str, Mapping[str, int]],
             kinds: Iterable[str], items_of: Callable[[str], Iterable[Item]]
             ) -> Iterator[str]:
    """``REPORT.md``, piece by piece: the move, the summary table, then each item type's items
    (``items_of(kind)``, read one at a time)."""
    yield f"# Library move: {facts['library']} -> {facts['target']}\n\n"
    yield (f"Output folder: `{facts['out_dir']}`. Every source file and what it became: "
           "`manifest.json`; the same report for tools: `report.json`.\n\n")
    yield "| item | " + " | ".join(STATUSES) + " |\n|---|" + "---:|" * len(STATUSES) + "\n"
    for kind, row in summary.items():
        label = "**total**" if kind == "total" else KIND_LABELS.get(kind, kind)
        yield f"| {label} | " + " | ".join(str(row.get(s, "")) for s in STATUSES) + " |\n"
    for kind in kinds:
        yield f"\n## {KIND_LABELS.get(kind, kind).capitalize()}\n\n"
        for item in items_of(kind):
            lines = item_lines(item)
            status, _, rest = lines[0].partition(" ")
            out = [f"- **{status}** {_md(rest)}"]
            out += [f"  - {_md(line.strip())}" for line in lines[1:]]
            if item.outputs:
                shown = list(item.outputs)[:6]
                more = len(item.outputs) - len(shown)
                out.append("  - to: " + ", ".join(f"`{o}`" for o in shown)
                           + (f" and {more} more" if more > 0 else ""))
            yield "\n".join(out) + "\n"
    if facts.get("secrets"):
        yield ("\n## Secrets\n\nNever read, never copied: "
               + ", ".join(f"`{s}`" for s in facts["secrets"]) + "\n")


def _md(text: str) -> str:
    return text.replace("|", "\\|")

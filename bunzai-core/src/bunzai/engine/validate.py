"""Validation: the format's own rules (from its adapter) plus the canonical model's."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import Issue

if TYPE_CHECKING:
    from ..host.registry import AdapterHandle, Registry
    from ..host.types import ReadResult
    from ..io.input import AdapterInput


def file_issues(registry: Registry, handle: AdapterHandle, input: AdapterInput,
                result: ReadResult) -> list[Issue]:
    """Everything ``bunzai validate`` reports for one read file, in its order: the reader's
    warnings, the format's own rules, then the canonical checks (the studio shows the same).

    A finding the reader and the format's rules both make is said once; where the format's
    rules find an error at a path the reader warned about (a value the reader kept as it was,
    which the app refuses), the error is that finding, said with the app's severity.
    """
    rules = registry.validate(handle, input, result.entities)
    fatal = {i.path for i in rules if i.severity == "error"}
    seen: set[tuple[str, str, str]] = set()
    out: list[Issue] = []
    for issue in (*(w for w in result.warnings if w.severity == "error" or w.path not in fatal),
                  *rules, *canonical_issues(result.entities)):
        key = (issue.path, issue.message, issue.severity)
        if key not in seen:
            seen.add(key)
            out.append(issue)
    return out


@dataclass(frozen=True)
class IssueGroup:
    """Findings of one cause: the same message at paths that differ only in their indices."""

    severity: str
    message: str
    paths: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.paths)

    def to_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "message": self.message, "count": self.count,
                "paths": list(self.paths)}


_INDEX = re.compile(r"\[(?:\d+|'[^']*'|\"[^\"]*\")\]")


def group_issues(issues: Sequence[Issue]) -> list[IssueGroup]:
    """``issues`` with repeats of one cause together (34 entries whose uid disagrees with
    their key are one finding with 34 paths), in the order each cause first appears."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for issue in issues:
        key = (issue.severity, _INDEX.sub("[*]", issue.path), issue.message)
        groups.setdefault(key, []).append(issue.path)
    return [IssueGroup(sev, msg, tuple(paths)) for (sev, _, msg), paths in groups.items()]


def canonical_issues(entities: Sequence[Any]) -> list[Issue]:
    """Checks that hold for every format: things a front-end would choke on or silently drop."""
    from pydantic import ValidationError

    from ..model import MODELS

    issues: list[Issue] = []
    many = len(entities) > 1
    for i, ent in enumerate(entities):
        base = f"entities[{i}]" if many else "canonical"
        if ent.kind == "chat":  # message by message: a long chat is never held whole
            issues += _chat_issues(ent, base)
            continue
        try:
            MODELS[ent.kind].model_validate(ent.model_dump())
        except ValidationError as exc:
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"])
                issues.append(Issue(f"{base}.{loc}", err["msg"], "error"))
        kind = ent.kind
        if kind in ("character", "persona") and not ent.name.strip():
            issues.append(Issue(f"{base}.name", "name is empty", "warning"))
        if kind == "character":
            if not (ent.description or ent.first_mes or ent.personality or ent.scenario):
                issues.append(Issue(f"{base}", "no description, personality, scenario or "
                                    "greeting: the card has no content", "warning"))
            for j, a in enumerate(ent.assets):
                if a.data is None and not a.uri:
                    issues.append(Issue(f"{base}.assets[{j}]", "asset has neither bytes nor a "
                                        "URI", "error"))
        # A persona's ``lorebook`` is the *name* of a linked book, not an embedded one.
        book = ent if kind == "lorebook" else (
            ent.lorebook if kind in ("character", "module") else None)
        if book is not None:
            stem = f"{base}.lorebook" if kind != "lorebook" else base
            for j, e in enumerate(book.entries):
                if not e.is_folder and not e.keys and not e.constant and e.enabled:
                    issues.append(Issue(f"{stem}.entries[{j}]", "entry has no keys and is not "
                                        "constant: it can never activate", "warning"))
        if kind == "regex" and not ent.pattern:
            issues.append(Issue(f"{base}.pattern", "regex script has an empty pattern",
                                "warning"))
    return issues


def _chat_issues(chat: Any, base: str) -> list[Issue]:
    """A chat's model checks, one message at a time, and what a front-end would trip over."""
    from pydantic import ValidationError

    from ..model import Chat, ChatMessage

    issues: list[Issue] = []

    def check(model: Any, obj: Any, where: str) -> None:
        try:
            model.model_validate(obj.model_dump())
        except ValidationError as exc:
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"])
                issues.append(Issue(f"{where}.{loc}", err["msg"], "error"))

    check(Chat, chat.model_copy(update={"messages": []}), base)
    for j, m in enumerate(chat.iter_messages()):
        where = f"{base}.messages[{j}]"
        check(ChatMessage, m, where)
        if m.chosen is not None and not 0 <= m.chosen < len(m.alternatives):
            issues.append(Issue(f"{where}.chosen", f"chosen alternative {m.chosen} does not "
                                f"exist ({len(m.alternatives)} alternatives)", "warning"))
        elif m.chosen is not None and m.alternatives[m.chosen].text != m.text:
            issues.append(Issue(f"{where}.text", "the text differs from the chosen "
                                "alternative: apps show one or the other", "warning"))
    return issues

"""``bunzai audit``: what a file will run before anyone opens it, file by file.

The findings themselves come from :mod:`bunzai.active`; this reads the files (an archive its
format will not read whole is audited member by member) and counts them per folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..active.findings import Finding, audit_entities, member_findings, summary
from ..host.registry import get_registry
from ..io.sources import expand_sources
from .reading import check_source_format, read_file

if TYPE_CHECKING:
    from ..errors import BunzaiError
    from ..host.registry import Registry



class FileAudit:
    """``bunzai audit`` on one file: what was read and what it will run."""

    def __init__(self, reading: Any, findings: list[Finding]) -> None:
        self.reading = reading
        self.findings = findings
        self.unread: str | None = None
        """Why the format would not read the file as a whole, when its archive members were
        audited one by one instead (a Voxta scenario without its characters)."""

    @property
    def path(self) -> str | None:
        return self.reading.path  # type: ignore[no-any-return]

    @property
    def error(self) -> BunzaiError | None:
        return self.reading.error  # type: ignore[no-any-return]

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def format(self) -> str | None:
        return self.reading.format  # type: ignore[no-any-return]

    @property
    def kind(self) -> str | None:
        return self.reading.kind  # type: ignore[no-any-return]

    @property
    def clean(self) -> bool:
        return self.ok and not self.findings

    @property
    def exit_code(self) -> int:
        """0 nothing found, 1 something found, else the read error's code."""
        if self.error is not None:
            return int(self.error.exit_code)
        return 1 if self.findings else 0

    def summary(self) -> str:
        return summary(self.findings) or "no active content"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        if self.reading.container is not None:
            out["container"] = self.reading.container
        if self.format is not None:
            out.update({"format": self.format, "kind": self.kind})
        if self.unread is not None:
            out["unread"] = self.unread
        if self.ok:
            out["active"] = bool(self.findings)
            out["summary"] = self.summary()
            out["findings"] = [f.to_dict() for f in self.findings]
        if self.error is not None:
            out.update({"error": self.error.message, "exit_code": self.error.exit_code})
        return out

    def __repr__(self) -> str:
        return f"<FileAudit {self.path!r} {len(self.findings)} finding(s)>"


def audit(source: str | os.PathLike[str] | bytes, *, filename: str | None = None,
          from_format: str | None = None, registry: Registry | None = None) -> FileAudit:
    """What a file will run: read it (detection, or ``from_format``) and list every active
    element of what it holds.  A file that cannot be read is the result's ``error``."""
    registry = registry or get_registry()
    check_source_format(from_format, registry)
    reading = read_file(source, filename=filename, from_format=from_format, registry=registry)
    findings: list[Finding] = []
    unread = None
    if reading.ok:
        findings = audit_entities(reading.entities, format=reading.format, registry=registry)
    else:
        members = _members(reading, registry)
        if members is not None and reading.error is not None:  # audited member by member:
            findings, unread, reading.error = members, reading.error.message, None  # a note
    reading.input = None
    result = FileAudit(reading, findings)
    result.unread = unread
    return result


def _members(reading: Any, registry: Registry) -> list[Finding] | None:
    """An archive its format recognises but will not read as a whole (a Voxta scenario
    without its characters): each member audited as that format keeps members it does not
    read, ``app_data.<format>["<member>"]``; None when the file is not such an archive."""
    from ..errors import BunzaiError, UnsupportedInput

    if not isinstance(reading.error, UnsupportedInput) or reading.input is None:
        return None
    fmt = reading.forced or reading.detected
    handle = registry.adapters.get(fmt) if fmt else None
    try:
        z = reading.input.zip
    except BunzaiError:
        return None
    if handle is None or z is None:
        return None
    bag: dict[str, Any] = {}
    for entry in z:
        if entry.is_dir:
            continue
        try:
            data = z.read(entry.name)
        except BunzaiError:
            continue
        if entry.name.lower().endswith(".json"):
            try:
                import json
                bag[entry.name] = json.loads(data.decode("utf-8-sig"))
                continue
            except (ValueError, UnicodeDecodeError, RecursionError):
                pass
        import base64
        bag[entry.name] = base64.b64encode(data).decode("ascii")
    return member_findings(bag, handle.id, handle.info.kind, registry)


def audit_many(paths: Iterable[str | os.PathLike[str]], *, from_format: str | None = None,
               registry: Registry | None = None) -> Iterator[FileAudit]:
    """:func:`audit` on every file behind ``paths`` (files, folders, globs), one at a time."""
    for p in expand_sources(os.fspath(p) for p in paths):
        yield audit(p, from_format=from_format, registry=registry)


def folder_lines(results: Sequence[FileAudit]) -> list[str]:
    """A count per folder (``cards/: 12 file(s): 3 with active content, 9 clean``), then the
    total when the files came from several folders."""
    by_folder: dict[str, list[FileAudit]] = {}
    for r in results:
        by_folder.setdefault(os.path.dirname(r.path or "") or ".", []).append(r)

    def line(prefix: str, rs: Sequence[FileAudit]) -> str:
        active = sum(1 for r in rs if r.ok and r.findings)
        clean = sum(1 for r in rs if r.clean)
        bad = len(rs) - active - clean
        return (f"{prefix}{len(rs)} file(s): {active} with active content, {clean} clean"
                + (f", {bad} unreadable" if bad else ""))

    out = [line(f"{folder}/: ", rs) for folder, rs in by_folder.items()]
    if len(by_folder) > 1:
        out.append(line("", results))
    return out

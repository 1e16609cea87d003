"""Looking at a file: what it is (``inspect``), whether it is valid (``validate``), which app
made and last saved it (``label``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..host.registry import get_registry
from ..io.input import Source
from .reading import Reading, check_source_format, read_file, status_of

if TYPE_CHECKING:
    from ..errors import Issue
    from ..host.registry import Registry
    from .label import LabelResult



class Inspection(Reading):
    """``bunzai inspect``: detection, a summary of each entity and the reader's warnings; with
    ``checks``, validation issues and the origin label too (what the studio shows)."""

    issues: list[Issue] | None = None
    labels: LabelResult | None = None
    active: str | None = None
    """What the file will run, counted on one line (``bunzai audit`` lists it)."""
    findings: list[Any] | None = None
    """Every active element (:class:`bunzai.active.findings.Finding`), for the studio."""

    @property
    def summaries(self) -> list[dict[str, Any]]:
        from .summary import summarize
        return [summarize(e) for e in self.entities]

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.entities:
            out["entities"] = self.summaries
            out["warnings"] = [w.to_dict() for w in self.warnings]
        if self.issues is not None:
            out["issues"] = [i.to_dict() for i in self.issues]
            out["valid"] = not any(i.severity == "error" for i in self.issues)
        if self.labels is not None:
            out["label"] = self.labels.to_dict()
        if self.active is not None:
            out["active_content"] = self.active
        return out


def inspect_file(source: Source, *, filename: str | None = None,
                 from_format: str | None = None, checks: bool = False,
                 registry: Registry | None = None) -> Inspection:
    """What a file is: container, every candidate's score, the format and a summary."""
    reg = (registry or get_registry())
    check_source_format(from_format, reg)
    found = Inspection.of(read_file(source, filename=filename, from_format=from_format,
                                    detect=True, registry=reg))
    if found.ok:
        from ..active.findings import audit_entities, summary
        found.findings = audit_entities(found.entities, format=found.format, registry=reg)
        found.active = summary(found.findings) or "none"
    if checks and found.ok:
        found.issues = _issues(reg, found)
        found.labels = _labels(reg, found)
    return found


def _issues(reg: Registry, reading: Reading) -> list[Issue]:
    from ..host.types import ReadResult
    from .validate import file_issues
    assert reading.handle is not None and reading.input is not None
    return file_issues(reg, reading.handle, reading.input,
                       ReadResult(reading.entities, reading.warnings))


def _labels(reg: Registry, reading: Reading) -> LabelResult:
    """The labeler's guesses; a last writer only where bunzai cannot have written the file
    (bunzai carries the signs apps leave, and writes some formats as their app does)."""
    from .label import label, written_by_bunzai
    assert reading.input is not None and reading.format is not None
    found = label(reg, reading.input, reading.entities)
    if found.best("last_writer") is not None and written_by_bunzai(
            reg, reading.input, reading.format, reading.entities):
        found.unknown_last_writer(
            f"the file is byte for byte what bunzai writes as {reading.format} from its "
            "content, so bunzai may have written it; the signs below show an app saved this "
            "content once, not that it saved the file last")
    return found


class Validation(Reading):
    """``bunzai validate``: the format's rules and the canonical model's, as issues."""

    issues: Sequence[Issue] = ()
    strict: bool = False

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def issue_warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity != "error"]

    @property
    def valid(self) -> bool:
        return self.ok and not self.errors and not (self.strict and self.issue_warnings)

    @property
    def status(self) -> str:
        """valid, valid with warnings, invalid (exit 0 or 1), or why the file was not read, in
        the word that agrees with its exit code (:func:`~bunzai.engine.reading.status_of`)."""
        if not self.ok:
            return status_of(self.error)
        if not self.valid:
            return "invalid"
        return "warnings" if self.issue_warnings else "valid"

    @property
    def exit_code(self) -> int:
        return self.error.exit_code if self.error is not None else (0 if self.valid else 1)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.ok:
            w = self.report.winner if self.report is not None else None
            out.setdefault("confidence", w.score if w is not None else None)
            out.setdefault("candidates", [])
            out.update({"valid": self.valid, "errors": [i.to_dict() for i in self.errors],
                        "warnings": [i.to_dict() for i in self.issue_warnings],
                        "strict": self.strict})
        return out


def validate_file(source: Source, *, filename: str | None = None,
                  from_format: str | None = None, strict: bool = False,
                  registry: Registry | None = None) -> Validation:
    """Every problem a front-end would choke on, located by JSON path; ``strict`` makes
    warnings fail too."""
    reg = (registry or get_registry())
    check_source_format(from_format, reg)
    found = Validation.of(read_file(source, filename=filename, from_format=from_format,
                                    registry=reg), strict=strict)
    if found.ok:
        found.issues = _issues(reg, found)
    return found


class Labelling(Reading):
    """``bunzai label``: which app made the file and which saved it last, with evidence."""

    labels: LabelResult | None = None

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.labels is not None:
            out.update(self.labels.to_dict())
        return out


def label_file(source: Source, *, filename: str | None = None,
               from_format: str | None = None, registry: Registry | None = None) -> Labelling:
    """The origin labeler's verdict on one file."""
    reg = (registry or get_registry())
    check_source_format(from_format, reg)
    found = Labelling.of(read_file(source, filename=filename, from_format=from_format,
                                   registry=reg))
    if found.ok:
        found.labels = _labels(reg, found)
    return found

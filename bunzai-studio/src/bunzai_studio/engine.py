"""What the studio does with an upload, in core's own terms and nothing else.

Each function mirrors a CLI command on bytes instead of a path (``inspect`` = ``bunzai inspect``
+ ``validate`` + ``label``; ``convert`` = ``bunzai convert``), calls the same core functions,
and returns an HTTP status with a JSON-ready payload.  A :class:`~bunzai.errors.BunzaiError`
becomes the CLI's one-line message (``<file>: <problem>``) and its exit code; nothing else is
caught here, so a bug surfaces as an internal error rather than as a wrong answer.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from bunzai.errors import BunzaiError, LimitExceeded

if TYPE_CHECKING:
    from bunzai.registry import Registry

    from .view import PreviewBudget

HTTP_STATUS = {2: 400, 3: 422, 4: 422, 5: 409}
"""CLI exit code -> HTTP status: usage 400, unrecognized/ambiguous/malformed 422, refused 409."""


@dataclass
class Outcome:
    """An HTTP status, the JSON payload, and for a conversion the produced files."""

    status: int
    payload: dict[str, Any]
    files: list[tuple[str, bytes, str]] = field(default_factory=list)
    """(file name, bytes, sniffed media type) of each output."""


def status_of(exc: BunzaiError) -> int:
    if isinstance(exc, LimitExceeded) and exc.what in ("upload", "input"):
        return 413
    return HTTP_STATUS.get(exc.exit_code, 422)


def error_payload(exc: BunzaiError, filename: str | None) -> dict[str, Any]:
    """The CLI's message (after ``bunzai: error:``), its exit code and the error's class."""
    exc = exc.with_path(filename)
    return {"error": str(exc), "exit_code": exc.exit_code, "error_type": type(exc).__name__}


def failure(exc: BunzaiError, filename: str | None, payload: dict[str, Any] | None = None
            ) -> Outcome:
    return Outcome(status_of(exc), {**(payload or {}), **error_payload(exc, filename)})


def targets(registry: Registry, kind: str) -> list[dict[str, Any]]:
    """Writable formats that take ``kind``: the kind's own first, then any-kind (native)."""
    from bunzai.kinds import ANY_KIND

    infos = [i for i in registry.formats(kind) if i.can_write]
    infos.sort(key=lambda i: (i.kind == ANY_KIND, i.id))
    return [{"format": i.id, "label": i.label, "kind": i.kind, "suffix": i.suffix,
             "aliases": list(i.aliases), "options": [o.to_dict() for o in i.options.values()]}
            for i in infos]


def output_stem(entities: list[Any], filename: str) -> str:
    """The card's own name when the file holds one named entity, else the upload's stem."""
    from bunzai.outputs import safe_name

    name = getattr(entities[0], "name", None) if len(entities) == 1 else None
    if isinstance(name, str) and name.strip():
        return safe_name(name)
    stem = filename[: -len(".vaud.json")] if filename.lower().endswith(".vaud.json") \
        else PurePath(filename).stem
    return safe_name(stem)


def inspect(registry: Registry, data: bytes, filename: str, *, from_format: str | None = None,
            budget: PreviewBudget | None = None) -> Outcome:
    """Detection, the read entity, its validation issues and origin label, and the targets."""
    from bunzai.input import AdapterInput
    from bunzai.label import label
    from bunzai.summary import summarize
    from bunzai.validate import file_issues

    from .view import entity_view

    payload: dict[str, Any] = {"file": filename, "size": len(data)}
    try:
        inp = AdapterInput(data, filename)
        report = registry.detect(inp)
        payload.update(report.to_dict())
        if from_format is None:
            report.raise_for_status(filename)
        chosen = from_format or report.winner.format  # type: ignore[union-attr]
        handle, result, _ = registry.read(inp, format=chosen)
        entities = result.entities
        payload.update({
            "format": handle.id, "format_label": handle.info.label, "kind": entities[0].kind,
            "read_as": from_format and handle.id,
            "warnings": [w.to_dict() for w in result.warnings],
        })
        issues = file_issues(registry, handle, inp, result)
        payload["issues"] = [i.to_dict() for i in issues]
        payload["valid"] = not any(i.severity == "error" for i in issues)
        payload["label"] = label(registry, inp, entities).to_dict()
        payload["entities"] = [{"summary": summarize(e), "view": entity_view(e, budget)}
                               for e in entities]
        payload["targets"] = targets(registry, entities[0].kind)
        payload["output_stem"] = output_stem(entities, filename)
    except BunzaiError as exc:
        return failure(exc, filename, payload)
    return Outcome(200, payload)


def convert(registry: Registry, data: bytes, filename: str, to: str, *,
            from_format: str | None = None, options: dict[str, Any] | None = None) -> Outcome:
    """Read, write as ``to`` (same kind only: core refuses the rest), name the outputs safely."""
    from bunzai.containers.media import sniff_media
    from bunzai.input import AdapterInput
    from bunzai.outputs import output_names

    payload: dict[str, Any] = {"file": filename}
    try:
        inp = AdapterInput(data, filename)
        handle, result, report = registry.read(inp, format=from_format)
        kind = result.entities[0].kind
        payload.update({"container": inp.container, "format": handle.id, "kind": kind})
        if report is not None:
            payload.update({"confidence": report.winner.score if report.winner else None,
                            "candidates": [c.to_dict() for c in report.candidates]})
        written = registry.write(result.entities, to, options or {})
        target = registry.resolve_target(to, kind)
        names = output_names(output_stem(result.entities, filename), written.files)
    except BunzaiError as exc:
        return failure(exc, filename, payload)
    files = [(n, f.data, sniff_media(f.data)[0]) for n, f in zip(names, written.files,
                                                                 strict=True)]
    payload.update({
        "to": target.id, "to_label": target.info.label,
        "loss": written.loss.to_list(),
        "warnings": [w.to_dict() for w in result.warnings]
        + [{"path": "$", "message": w, "severity": "warning"} for w in written.warnings],
        "files": [{"name": n, "size": len(b), "media_type": t,
                   "data": base64.b64encode(b).decode("ascii")} for n, b, t in files],
    })
    return Outcome(200, payload, files)

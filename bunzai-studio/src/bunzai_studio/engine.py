"""What the studio does with an upload: core's own results, presented for HTTP.

Each function runs the core service a CLI command runs, on bytes instead of a path
(``inspect`` = ``bunzai inspect`` + ``validate`` + ``label``, one read; ``convert`` =
``bunzai convert``), and returns an HTTP status with the result's own JSON plus what only a web
page needs (entity views, download names, file bytes).  No conversion, naming or loss logic
lives here.  A :class:`~bunzai.errors.BunzaiError`
becomes the CLI's one-line message (``<file>: <problem>``) and its exit code; nothing else is
caught here, so a bug surfaces as an internal error rather than as a wrong answer.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bunzai import BunzaiError, LimitExceeded

if TYPE_CHECKING:
    from bunzai.api import Registry

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
    from bunzai.api import ANY_KIND

    infos = [i for i in registry.formats(kind) if i.can_write]
    infos.sort(key=lambda i: (i.kind == ANY_KIND, i.id))
    return [{"format": i.id, "label": i.label, "kind": i.kind, "suffix": i.suffix,
             "aliases": list(i.aliases), "options": [o.to_dict() for o in i.options.values()]}
            for i in infos]


def output_stem(filename: str) -> str:
    """The stem downloads are named with: core's naming rule, after the upload's name."""
    from bunzai.api import safe_name, source_stem

    return safe_name(source_stem(filename))


def _payload(filename: str, result: Any) -> dict[str, Any]:
    """Core's JSON for a result, keyed by ``file`` as the studio's API has it."""
    body = result.to_dict()
    body.pop("path", None)
    return {"file": filename, **body}


def inspect(registry: Registry, data: bytes, filename: str, *, from_format: str | None = None,
            budget: PreviewBudget | None = None) -> Outcome:
    """Detection, the read entity, its validation issues and origin label, and the targets."""
    from bunzai.api import inspect_file

    from .view import entity_view

    base: dict[str, Any] = {"file": filename, "size": len(data)}
    try:
        found = inspect_file(data, filename=filename, from_format=from_format, checks=True,
                             registry=registry)
    except BunzaiError as exc:  # the request itself (an unknown --from)
        return failure(exc, filename, base)
    payload = {**base, **_payload(filename, found)}
    if found.error is not None:
        return failure(found.error, filename, payload)
    assert found.handle is not None
    entities = found.entities
    payload.update({
        "format_label": found.handle.info.label,
        "read_as": from_format and found.handle.id,
        "entities": [{"summary": summary, "view": entity_view(e, budget)}
                     for summary, e in zip(found.summaries, entities, strict=True)],
        "audit": {"summary": found.active,
                  "findings": [dict(f.to_dict(), line=f.line()) for f in found.findings or ()]},
        "targets": targets(registry, entities[0].kind),
        "output_stem": output_stem(filename),
    })
    return Outcome(200, payload)


def convert(registry: Registry, data: bytes, filename: str, to: str, *,
            from_format: str | None = None, options: dict[str, Any] | None = None) -> Outcome:
    """Read, write as ``to`` (same kind only: core refuses the rest), name the outputs safely."""
    from bunzai.api import convert_file, file_names, sniff_media

    try:
        found = convert_file(data, to, filename=filename, from_format=from_format,
                             options=options, registry=registry)
    except BunzaiError as exc:  # the request itself: unknown format, bad option
        return failure(exc, filename, {"file": filename})
    payload = _payload(filename, found)
    if found.error is not None or found.written is None:
        assert found.error is not None
        return failure(found.error, filename, payload)
    written = found.written
    names = file_names(written)
    files = [(n, f.data, sniff_media(f.data)[0]) for n, f in zip(names, written.files,
                                                                 strict=True)]
    assert found.target is not None
    payload.update({
        "to_label": found.target.info.label,
        "loss_groups": [g.to_dict() for g in written.loss.groups()],
        "files": [{"name": n, "size": len(b), "media_type": t,
                   "data": base64.b64encode(b).decode("ascii")} for n, b, t in files],
    })
    return Outcome(200, payload, files)

"""The fuzz target: bytes in, the whole read path out, and only bunzai's own errors allowed.

One input goes through what ``bunzai inspect`` and ``bunzai convert`` do: container sniffing,
every installed adapter's ``detect``, the winner's ``to_canonical``, its ``validate``, the
summary, and ``from_canonical`` into every writable format of the same kind (canonical JSON
included).  A :class:`~bunzai.errors.BunzaiError` is a correct answer to a bad file; anything else
is an *escape*.  The registry turns a detector's exception into a "fault" and a reader's or
writer's exception into a generic error (so the CLI never shows a traceback), which would hide
the bug from a fuzzer: here those are unwrapped and reported as escapes too.
"""

from __future__ import annotations

import hashlib
import os
import traceback
from dataclasses import dataclass
from typing import Any

from bunzai.errors import BunzaiError
from bunzai.host.registry import Registry
from bunzai.io.input import AdapterInput

_REGISTRY: Registry | None = None
_UNSIGNED: Registry | None = None
_TARGETS: dict[str, list[str]] = {}


class Escape(Exception):
    """An exception bunzai does not document escaped (or was masked) on this input."""

    def __init__(self, stage: str, exc: BaseException) -> None:
        self.stage = stage
        self.exc = exc
        super().__init__(f"{stage}: {type(exc).__name__}: {exc}"[:500])

    @property
    def signature(self) -> str:
        """Where it happened, for deduplication: stage, type and the innermost project frame."""
        frames = traceback.extract_tb(self.exc.__traceback__)
        ours = [f for f in frames if "bunzai" in f.filename] or frames
        where = f"{os.path.basename(ours[-1].filename)}:{ours[-1].lineno}" if ours else "?"
        return f"{self.stage}:{type(self.exc).__name__}:{where}"

    def short_id(self) -> str:
        return hashlib.sha1(self.signature.encode()).hexdigest()[:10]

    def details(self) -> str:
        return "".join(traceback.format_exception(self.exc))


def registry() -> Registry:
    """Every installed adapter, loaded once per process (the fuzz loop is hot)."""
    global _REGISTRY
    if _REGISTRY is None:
        from bunzai.testing import load_registry
        _REGISTRY = load_registry()
    return _REGISTRY


def targets(kind: str) -> list[str]:
    """Every writable format that takes entities of ``kind`` (canonical JSON included)."""
    if kind not in _TARGETS:
        _TARGETS[kind] = [i.id for i in registry().formats(kind) if i.can_write]
    return _TARGETS[kind]


_REGISTRY_WRAPS = (" could not read this file: ", " could not write: ")


def _masked(exc: BunzaiError) -> BaseException | None:
    """The non-bunzai exception the registry wrapped into ``exc``, if it did.

    Only the registry's own safety-net messages count: an adapter that deliberately raises
    ``MalformedInput(...) from exc`` has handled the problem.
    """
    cause = exc.__cause__
    if (cause is not None and not isinstance(cause, BunzaiError)
            and any(w in exc.message for w in _REGISTRY_WRAPS)):
        return cause
    return None


def _same_without_signatures(report: Any, data: bytes) -> None:
    """A declared signature may only spare calls: asking every adapter must find the same."""
    global _UNSIGNED
    from bunzai.testing import detection_outline, without_signatures

    if _UNSIGNED is None:
        _UNSIGNED = without_signatures(registry())
    ours = detection_outline(report)
    theirs = detection_outline(_UNSIGNED.detect(AdapterInput(data, "fuzz-input")))
    if ours != theirs:
        raise Escape("signature", AssertionError(
            f"with signatures {ours[1]} (winner {ours[3]}), asking every adapter {theirs[1]} "
            f"(winner {theirs[3]})"))


@dataclass
class Outcome:
    """What one input did: how far it got (for campaign statistics)."""

    container: str
    stage: str
    """``detect`` (no winner), ``read`` (reader refused), ``written`` (went all the way)."""
    format: str | None = None


def one_input(data: bytes) -> Outcome:
    """Run the read path on ``data``; raise :class:`Escape` if a non-bunzai exception escapes."""
    reg = registry()
    try:
        inp = AdapterInput(data, "fuzz-input")
    except BunzaiError:
        return Outcome("?", "limit")
    try:
        container = inp.container
        report = reg.detect(inp)
        report.to_dict()
    except BunzaiError:
        return Outcome("?", "detect")
    except Exception as exc:
        raise Escape("detect", exc) from exc
    if report.faults:
        fault = report.faults[0]
        raise Escape(f"detect[{fault.format}]", RuntimeError(fault.message))
    _same_without_signatures(report, data)
    try:
        winner = report.raise_for_status("fuzz-input")
    except BunzaiError:
        return Outcome(container, "detect")
    fmt = winner.format
    try:
        handle, result, _ = reg.read(inp, format=fmt)
    except BunzaiError as exc:
        cause = _masked(exc)
        if cause is not None:
            raise Escape(f"read[{fmt}]", cause) from exc
        return Outcome(container, "read", fmt)
    except Exception as exc:
        raise Escape(f"read[{fmt}]", exc) from exc
    _after_read(reg, handle, inp, result, fmt)
    return Outcome(container, "written", fmt)


def _after_read(reg: Registry, handle: Any, inp: AdapterInput, result: Any, fmt: str) -> None:
    from bunzai.engine.summary import summarize
    from bunzai.engine.validate import canonical_issues

    entities = result.entities
    try:
        if handle.has("bunzai_validate"):
            handle.call("bunzai_validate", input=inp, entities=entities)
        canonical_issues(entities)
        for ent in entities:
            summarize(ent)
    except BunzaiError:
        pass
    except Exception as exc:
        raise Escape(f"validate[{fmt}]", exc) from exc
    try:  # the audit and the strip read every text field as a browser would
        from bunzai.active.findings import audit_entities
        from bunzai.active.strip import strip_entity

        if audit_entities(entities, format=fmt, registry=reg):
            for ent in entities:
                strip_entity(ent, format=fmt, registry=reg)
    except BunzaiError:
        pass
    except Exception as exc:
        raise Escape(f"audit[{fmt}]", exc) from exc
    for target in targets(entities[0].kind):
        try:
            reg.write(entities, target)
        except BunzaiError as exc:
            cause = _masked(exc)
            if cause is not None:
                raise Escape(f"write[{fmt}->{target}]", cause) from exc
        except Exception as exc:
            raise Escape(f"write[{fmt}->{target}]", exc) from exc


def check(data: bytes) -> Escape | None:
    """The escape this input causes, or None."""
    try:
        one_input(data)
    except Escape as esc:
        return esc
    return None

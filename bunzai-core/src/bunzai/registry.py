"""The typed façade over the plugin manager: detection, reading and writing by format id.

Core code talks to adapters only through :class:`Registry`; nothing else touches ``pm.hook``.
The registry is pure: it never names a format, and it never guesses.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import (
    AmbiguousInput,
    BunzaiError,
    ConversionRefused,
    MalformedInput,
    UnrecognizedInput,
    UsageError,
)
from .kinds import ANY_KIND
from .loss import LossReport
from .options import check as check_options
from .plugins import BrokenPlugin, PluginHost, PluginRecord
from .types import Detection, FormatInfo, Issue, LabelRule, OutputFile, ReadResult, WriteResult

if TYPE_CHECKING:
    import typer
    from pydantic import BaseModel

    from .input import AdapterInput
    from .model import Entity

DETECT_THRESHOLD = 0.5
"""Inclusive: a score of exactly 0.5 can win."""

DETECT_BUDGET = 0.5
"""Seconds one adapter's ``detect`` may take before ``inspect`` reports it as slow
(``BUNZAI_DETECT_BUDGET`` overrides it).  A slow detector is reported, never interrupted."""


def detect_budget(environ: Mapping[str, str] | None = None) -> float:
    """The per-adapter detect time budget in force (seconds)."""
    raw = (os.environ if environ is None else environ).get("BUNZAI_DETECT_BUDGET", "")
    try:
        value = float(raw) if raw else DETECT_BUDGET
    except ValueError:
        return DETECT_BUDGET
    return value if value >= 0 and not math.isnan(value) else DETECT_BUDGET


@dataclass(frozen=True, slots=True)
class Candidate:
    """One adapter's non-zero score for one input."""

    format: str
    kind: str
    score: float
    reason: str
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"format": self.format, "kind": self.kind, "score": self.score,
                "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Fault:
    """An adapter that raised or answered nonsense; it scored 0 for this input."""

    format: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"format": self.format, "message": self.message}


@dataclass(frozen=True, slots=True)
class SlowAdapter:
    """An adapter whose ``detect`` took longer than the budget on this input."""

    format: str
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"format": self.format, "seconds": round(self.seconds, 3)}


@dataclass
class DetectionReport:
    """The registry pass made visible: winner, every candidate, faults."""

    container: str
    candidates: list[Candidate]
    faults: list[Fault] = field(default_factory=list)
    winner: Candidate | None = None
    tied: list[str] = field(default_factory=list)
    container_error: str | None = None
    """Why the container itself could not be parsed (invalid JSON, corrupt PNG or zip)."""
    slow: list[SlowAdapter] = field(default_factory=list)
    """Adapters whose ``detect`` went over the time budget (slowest first)."""
    budget: float = DETECT_BUDGET
    size: int | None = None
    """Length of the input in bytes (0: an empty file, which no format can claim)."""

    @property
    def status(self) -> str:
        if self.winner is not None:
            return "ok"
        return "ambiguous" if self.tied else "unrecognized"

    def raise_for_status(self, path: str | None = None) -> Candidate:
        """The winner, or the error a user should see."""
        if self.winner is not None:
            return self.winner
        if self.size == 0:
            raise UnrecognizedInput("the file is empty (0 bytes): nothing to recognise; name "
                                    "the format with --from to read it as an empty file of it",
                                    path=path)
        if self.tied:
            raise AmbiguousInput(
                f"ambiguous: {', '.join(self.tied)} all score {self.candidates[0].score:g}; "
                "pass --from FORMAT to choose", formats=self.tied, path=path)
        if self.container_error and not any(c.score >= 0.3 for c in self.candidates):
            raise MalformedInput(f"unreadable {self.container}: {self.container_error}",
                                 path=path)
        best = (f" (best: {self.candidates[0].format} at {self.candidates[0].score:g})"
                if self.candidates else "")
        raise UnrecognizedInput(
            f"unrecognized: no format scored {DETECT_THRESHOLD} or more on this "
            f"{self.container} file{best}", path=path)

    def to_dict(self) -> dict[str, Any]:
        w = self.winner
        return {
            "container": self.container,
            "format": w.format if w else None,
            "kind": w.kind if w else None,
            "confidence": w.score if w else None,
            "status": self.status,
            "candidates": [c.to_dict() for c in self.candidates],
            "faults": [f.to_dict() for f in self.faults],
            "slow_adapters": [a.to_dict() for a in self.slow],
            **({"tied": self.tied} if self.tied else {}),
            **({"container_error": self.container_error} if self.container_error else {}),
        }


@dataclass
class AdapterHandle:
    """One adapter as the registry sees it: its declared info and its own hook functions."""

    info: FormatInfo
    record: PluginRecord
    host: PluginHost
    _impls: dict[str, Any] = field(default_factory=dict, init=False, repr=False)
    """Hook name -> this plugin's implementation (or None): pluggy keeps a list per hook, and
    detection would otherwise scan it once per adapter per file."""

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def kind(self) -> str:
        return self.info.kind

    @property
    def distribution(self) -> str:
        return self.record.distribution

    def _impl(self, hook: str) -> Any:
        try:
            return self._impls[hook]
        except KeyError:
            impl = self._impls[hook] = self.host.impl(self.record.plugin, hook)
            return impl

    def call(self, hook: str, **kwargs: Any) -> Any:
        impl = self._impl(hook)
        if impl is None:
            raise NotImplementedError(hook)
        return impl.function(*[kwargs[a] for a in impl.argnames])

    def has(self, hook: str) -> bool:
        return self._impl(hook) is not None


def _normalize_score(raw: Any) -> tuple[float, str]:
    reason = ""
    if isinstance(raw, Detection):
        raw, reason = raw.score, raw.reason
    elif isinstance(raw, tuple) and len(raw) == 2 and isinstance(raw[1], str):
        raw, reason = raw
    if raw is None:
        return 0.0, ""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise TypeError(f"returned {type(raw).__name__}, not a number")
    score = float(raw)
    if math.isnan(score):
        raise ValueError("returned NaN")
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"returned {score:g}, outside 0..1")
    return score, reason


class Registry:
    """Every healthy adapter by format id, plus the plugins that were refused."""

    def __init__(self, host: PluginHost) -> None:
        self.host = host
        self.adapters: dict[str, AdapterHandle] = {}
        for rec in host.loaded:
            if rec.info is not None:
                self.adapters[rec.info.id] = AdapterHandle(rec.info, rec, host)

    @classmethod
    def load(cls, *, autoload: bool | None = None, allow: Iterable[str] | None = None,
             extra: Iterable[tuple[str, Any]] = (), defaults: bool = True,
             environ: dict[str, str] | None = None) -> Registry:
        host = PluginHost().load(autoload=autoload, allow=allow, extra=extra,
                                 defaults=defaults, environ=environ)
        host.finish()
        return cls(host)

    @property
    def broken(self) -> list[BrokenPlugin]:
        return self.host.broken

    # -- lookup ---------------------------------------------------------------------------------

    def formats(self, kind: str | None = None) -> list[FormatInfo]:
        infos = [h.info for h in self.adapters.values()]
        if kind is not None:
            infos = [i for i in infos if i.kind in (kind, ANY_KIND)]
        return sorted(infos, key=lambda i: (i.kind, i.id))

    def get(self, name: str) -> AdapterHandle:
        """An adapter by format id or alias; unknown names are a usage error listing choices."""
        handle = self.adapters.get(name)
        if handle is not None:
            return handle
        matches = [h for h in self.adapters.values() if name.lower() in h.info.aliases]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise UsageError(f"{name!r} is an alias of several formats "
                             f"({', '.join(sorted(h.id for h in matches))}); name one")
        from .distributions import format_hint
        known = ", ".join(sorted(self.adapters))
        raise UsageError(f"unknown format {name!r} (installed: {known})"
                         + format_hint(name, self.distributions()))

    def distributions(self) -> set[str]:
        """The distributions whose adapters or plugins loaded."""
        return {rec.distribution for rec in self.host.loaded}

    def resolve_target(self, name: str, kind: str) -> AdapterHandle:
        """The output adapter for ``name``, preferring an alias match of the entity's kind."""
        if name in self.adapters:
            return self.adapters[name]
        same_kind = [h for h in self.adapters.values()
                     if name.lower() in h.info.aliases and h.kind in (kind, ANY_KIND)]
        if len(same_kind) == 1:
            return same_kind[0]
        return self.get(name)

    # -- detection ------------------------------------------------------------------------------

    def detect(self, input: AdapterInput, *, formats: Iterable[str] | None = None
               ) -> DetectionReport:
        """Score every adapter; keep >= 0.5; the single highest wins, a tie is ambiguous."""
        candidates: list[Candidate] = []
        faults: list[Fault] = []
        slow: list[SlowAdapter] = []
        budget = detect_budget()
        handles = (self.adapters.values() if formats is None
                   else [self.get(f) for f in formats])
        for h in handles:
            t0 = time.perf_counter()
            try:
                score, reason = _normalize_score(h.call("bunzai_detect", input=input))
            except (Exception, SystemExit) as exc:  # a detector never ends the run
                faults.append(Fault(h.id, f"{type(exc).__name__}: {exc}"))
                score, reason = 0.0, ""
            dt = time.perf_counter() - t0
            if dt > budget:
                slow.append(SlowAdapter(h.id, dt))
            if score > 0:
                candidates.append(Candidate(h.id, h.kind, score, reason, dt))
        candidates.sort(key=lambda c: (-c.score, c.format))
        slow.sort(key=lambda a: -a.seconds)
        report = DetectionReport(input.container, candidates, faults,
                                 container_error=input.container_error(), slow=slow,
                                 budget=budget, size=input.size)
        top = [c for c in candidates if c.score >= DETECT_THRESHOLD]
        if top:
            best = top[0].score
            tied = [c.format for c in top if c.score == best]
            if len(tied) == 1:
                report.winner = top[0]
            else:
                report.tied = tied
        return report

    # -- reading --------------------------------------------------------------------------------

    def read(self, input: AdapterInput, *, format: str | None = None,
             options: Mapping[str, Any] | None = None
             ) -> tuple[AdapterHandle, ReadResult, DetectionReport | None]:
        """Detect (unless ``format`` is given) and read; errors name the file."""
        path = input.filename
        report: DetectionReport | None = None
        if format is None:
            report = self.detect(input)
            try:
                handle = self.adapters[report.raise_for_status(path).format]
            except UnrecognizedInput as exc:
                raise self.with_hint(exc, input) from None
        else:
            handle = self.get(format)
        if not handle.info.can_read:
            raise UsageError(f"{handle.id} cannot be read", path=path)
        opts = check_options(handle.info, options, reader=True) if options else {}
        try:
            raw = handle.call("bunzai_to_canonical", input=input, options=opts)
        except BunzaiError as exc:
            raise exc.with_path(path) from None
        except Exception as exc:
            raise MalformedInput(
                f"{handle.id} could not read this file: {type(exc).__name__}: {exc}", path=path
            ) from exc
        result = _as_read_result(raw)
        for ent in result.entities:
            if handle.kind != ANY_KIND and getattr(ent, "kind", None) != handle.kind:
                raise MalformedInput(f"{handle.id} returned a {getattr(ent, 'kind', '?')} "
                                     f"instead of a {handle.kind}", path=path)
        if not result.entities:
            raise MalformedInput(f"{handle.id} found nothing to read", path=path)
        return handle, result, report

    def with_hint(self, exc: UnrecognizedInput, input: AdapterInput) -> UnrecognizedInput:
        """``exc`` naming the first-party distribution that may read ``input``, when that one
        is not loaded (``this looks like a RisuAI CharX: pip install bunzai-formats-risu``)."""
        from .distributions import input_hint
        exc.message += input_hint(input, self.distributions())
        return exc

    # -- writing --------------------------------------------------------------------------------

    def write(self, entities: Sequence[Entity], format: str,
              options: Mapping[str, Any] | None = None) -> WriteResult:
        """Write entities with ``format``; refuses cross-kind; fans out single-entity formats."""
        if not entities:
            raise UsageError("nothing to write")
        kind = entities[0].kind
        handle = self.resolve_target(format, kind)
        if any(e.kind != kind for e in entities):
            raise ConversionRefused("cannot write entities of different kinds into one file")
        if handle.kind not in (kind, ANY_KIND):
            takers = ", ".join(i.id for i in self.formats(kind) if i.can_write) or "none"
            raise ConversionRefused(
                f"{handle.id} holds a {handle.kind}, not a {kind}: refusing a cross-kind "
                f"conversion (formats that take a {kind}: {takers})")
        if not handle.info.can_write:
            raise UsageError(f"{handle.id} cannot be written")
        opts = dict(options or {})
        implied = handle.info.alias_options.get(format.lower()) if format != handle.id else None
        if implied:
            opts = {**implied, **opts}
        opts = check_options(handle.info, opts)
        groups: list[Sequence[Entity]] = (
            [entities] if handle.info.multi else [[e] for e in entities])
        files: list[OutputFile] = []
        loss = LossReport()
        warnings: list[str] = []
        for i, group in enumerate(groups):
            try:
                res = handle.call("bunzai_from_canonical", entities=list(group), options=opts)
            except BunzaiError:
                raise
            except NotImplementedError as exc:
                raise UsageError(f"{handle.id}: {exc}") from None
            except Exception as exc:
                raise ConversionRefused(
                    f"{handle.id} could not write: {type(exc).__name__}: {exc}") from exc
            if isinstance(res, bytes):
                res = WriteResult([OutputFile(res, handle.info.suffix)])
            prefix = f"[{i}]." if len(groups) > 1 else ""
            loss.extend(res.loss, prefix)
            for ent_index, ent in enumerate(group):
                if handle.info.carries_passthrough:
                    break
                p = prefix or (f"[{ent_index}]." if len(group) > 1 else "")
                if kind == "chat":  # layout never reported; each other format's extra item is
                    from .chats import foreign_extras
                    foreign_extras(ent, handle.id, loss, p, res.loss)  # type: ignore[arg-type]
                    continue
                _passthrough_losses(ent, handle.id, loss, p, res.loss)
            warnings.extend(res.warnings)
            if len(groups) > 1:
                name = (getattr(group[0], "name", None) or getattr(group[0], "title", None)
                        or str(i + 1))
                for f in res.files:  # named after their entity; the parts stay unjoined
                    f.name = f.name or name
                files.extend(res.files)
            else:
                files.extend(res.files)
        return WriteResult(files, loss, warnings, format=handle.id,
                           name=getattr(entities[0], "name", None) or None)

    # -- other hooks ----------------------------------------------------------------------------

    def validate(self, handle: AdapterHandle, input: AdapterInput,
                 entities: Sequence[Entity]) -> list[Issue]:
        if not handle.has("bunzai_validate"):
            return []
        try:
            return list(handle.call("bunzai_validate", input=input, entities=entities) or [])
        except Exception as exc:
            return [Issue("$", f"{handle.id} validator failed: {exc}", "error")]

    def label_rules(self) -> list[tuple[str, LabelRule]]:
        rules: list[tuple[str, LabelRule]] = []
        for rec in self.host.loaded:
            if "bunzai_label_rules" not in rec.hooks:
                continue
            try:
                got = self.host._call_one(rec.plugin, "bunzai_label_rules") or []
            except Exception:
                continue
            rules.extend((rec.name, r) for r in got if isinstance(r, LabelRule))
        return rules

    def register_commands(self, app: typer.Typer) -> None:
        for rec in self.host.loaded:
            if "bunzai_register_commands" in rec.hooks:
                try:
                    self.host._call_one(rec.plugin, "bunzai_register_commands", app=app)
                except Exception as exc:
                    self.host.broken.append(BrokenPlugin(
                        rec.name, rec.group, rec.distribution, rec.version,
                        f"bunzai_register_commands failed: {exc}"))


def _as_read_result(raw: Any) -> ReadResult:
    if isinstance(raw, ReadResult):
        return raw
    if isinstance(raw, list | tuple):
        return ReadResult(list(raw))
    return ReadResult([raw])


def _passthrough_losses(entity: Any, target: str, loss: LossReport, prefix: str,
                        reported: LossReport) -> None:
    """Report other formats' passthrough data that the target could not restore."""
    for path, key in _passthrough_paths(entity, ""):
        if key == target:
            continue
        full = f"{prefix}{path}"
        if reported.covers(full, stashed=True):
            continue
        loss.dropped(full, f"data only the {key} format understands")


def _passthrough_paths(obj: Any, base: str) -> Iterable[tuple[str, str]]:
    from pydantic import BaseModel

    return _passthrough_walk(obj, base, BaseModel)


def _passthrough_walk(obj: Any, base: str,
                      model: type[BaseModel]) -> Iterable[tuple[str, str]]:
    # ``model`` is pydantic's BaseModel, imported once by the caller: an import statement in
    # this recursive generator ran for every field of every entry.
    if isinstance(obj, model):
        pt = getattr(obj, "passthrough", None)
        if isinstance(pt, dict):
            for key, value in pt.items():
                if value not in (None, {}, []):
                    yield f"{base}passthrough.{key}", key
        for name in type(obj).model_fields:
            if name == "passthrough":
                continue
            value = getattr(obj, name)
            # Most fields are strings and numbers: only models and lists of them can hold
            # passthrough, and skipping the rest here saves a generator per field.
            if isinstance(value, model | list) and value:
                yield from _passthrough_walk(value, f"{base}{name}.", model)
    elif isinstance(obj, list):
        for i, item in enumerate(obj):
            if isinstance(item, model):
                yield from _passthrough_walk(item, f"{base.rstrip('.')}[{i}].", model)

"""The typed façade over the plugin manager: detection, reading and writing by format id.

Core code talks to adapters only through :class:`Registry`; nothing else touches ``pm.hook``.
The registry is pure: it never names a format, and it never guesses.
"""

from __future__ import annotations

import math
import os
import struct
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .asread import ZIP, remember, remember_file
from .errors import (
    AmbiguousInput,
    BunzaiError,
    ConversionRefused,
    MalformedInput,
    UnrecognizedInput,
    UsageError,
)
from .input import AdapterInput
from .kinds import ANY_KIND
from .loss import LossReport
from .options import check as check_options
from .plugins import BrokenPlugin, PluginHost, PluginRecord
from .types import Detection, FormatInfo, Issue, LabelRule, OutputFile, ReadResult, WriteResult

if TYPE_CHECKING:
    import typer

    from .fidelity import Carried
    from .model import Entity
    from .neutral import Neutrality

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
    _carried: dict[tuple[str, ...], Carried] = field(default_factory=dict, init=False,
                                                     repr=False)
    _detector: Callable[[AdapterInput], Any] | None = field(default=None, init=False,
                                                            repr=False)
    _marks: dict[str, frozenset[str]] | None = field(default=None, init=False, repr=False)

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def kind(self) -> str:
        return self.info.kind

    @property
    def distribution(self) -> str:
        return self.record.distribution

    def call(self, hook: str, **kwargs: Any) -> Any:
        impl = self.host.impl(self.record.plugin, hook)
        if impl is None:
            raise NotImplementedError(hook)
        return impl.function(*[kwargs[a] for a in impl.argnames])

    def has(self, hook: str) -> bool:
        return self.host.impl(self.record.plugin, hook) is not None

    @property
    def detector(self) -> Callable[[AdapterInput], Any]:
        """``bunzai_detect`` of this adapter as a one-argument function, resolved once:
        detection asks every adapter for every file, so the hook lookup is not repeated."""
        found = self._detector
        if found is None:
            found = self._detector = self.host.caller(self.record.plugin, "bunzai_detect",
                                                      "input")
        return found

    @property
    def marks(self) -> dict[str, frozenset[str]] | None:
        """The declared signature as container -> marks (empty: any file of that container),
        or None when the adapter declares none (it is asked about every file)."""
        if self._marks is None and self.info.signature is not None:
            self._marks = {c: frozenset(m) for c, m in self.info.signature.items()}
        return self._marks

    def carried_for(self, carries: tuple[str, ...] | None) -> Carried | None:
        """The trie of paths a write held: ``carries`` when the write said (it depended on
        the options), else what the adapter declares; None when neither says."""
        spec = carries if carries is not None else self.info.carries
        if spec is None:
            return None
        found = self._carried.get(spec)
        if found is None:
            from .fidelity import Carried
            found = self._carried[spec] = Carried.of(spec)
        return found


def _askable(handles: Sequence[AdapterHandle], container: str
             ) -> list[tuple[AdapterHandle, frozenset[str] | None,
                             Callable[[AdapterInput], Any]]]:
    """``handles`` whose signature takes ``container`` (all without one), with their marks."""
    out: list[tuple[AdapterHandle, frozenset[str] | None, Callable[[AdapterInput], Any]]] = []
    for h in handles:
        declared = h.marks
        marks: frozenset[str] | None = None
        if declared is not None:
            found = declared.get(container)
            if found is None:
                continue  # a container the adapter does not read: it scores 0
            marks = found or None  # no marks: every file of the container
        out.append((h, marks, h.detector))
    return out


_NO_SIGNS: frozenset[str] = frozenset()


def _rank(c: Candidate) -> tuple[float, str]:
    """Highest score first; equal scores by format id, so the report is stable."""
    return -c.score, c.format


def _slowest(a: SlowAdapter) -> float:
    return -a.seconds


def _normalize_score(raw: Any) -> tuple[float, str]:
    """A detector's answer as (score, reason); anything but a Detection in 0..1 is a fault."""
    if type(raw) is Detection:
        score = raw.score
        if type(score) is float and 0.0 <= score <= 1.0:  # the usual answer (not NaN)
            return score, raw.reason
    if raw is None:
        return 0.0, ""
    if not isinstance(raw, Detection):
        raise TypeError(f"returned {type(raw).__name__}, not a Detection")
    score = raw.score
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise TypeError(f"returned a score of type {type(score).__name__}, not a number")
    if math.isnan(score):
        raise ValueError("returned NaN")
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"returned {score:g}, outside 0..1")
    return float(score), raw.reason


class Registry:
    """Every healthy adapter by format id, plus the plugins that were refused."""

    def __init__(self, host: PluginHost) -> None:
        self.host = host
        self._neutrality: Neutrality | None = None
        self._acts_on: list[tuple[str, Any, str, frozenset[str]]] | None = None
        self._asked: dict[str, tuple[dict[str, AdapterHandle], int, list[tuple[
            AdapterHandle, frozenset[str] | None, Callable[[AdapterInput], Any]]], bool]] = {}
        self._asked_by_signs: dict[tuple[str, frozenset[str]], tuple[
            dict[str, AdapterHandle], int, list[tuple[str, str,
                                                      Callable[[AdapterInput], Any]]]]] = {}
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

    def _askable(self, container: str) -> list[tuple[AdapterHandle, frozenset[str] | None,
                                                       Callable[[AdapterInput], Any]]]:
        """The adapters detection asks about a file of ``container``, in registry order, with
        the marks one of which the file must show (None: every such file); worked out once
        per container for the adapters the registry holds."""
        return self._askable_entry(container)[2]

    def _askable_entry(self, container: str) -> tuple[
            dict[str, AdapterHandle], int,
            list[tuple[AdapterHandle, frozenset[str] | None, Callable[[AdapterInput], Any]]],
            bool]:
        """:meth:`_askable`'s cache entry: the adapters it was worked out for, their count,
        the list, and whether any of them declares marks (then the file's signs matter)."""
        adapters = self.adapters
        entry = self._asked.get(container)
        if entry is None or entry[0] is not adapters or entry[1] != len(adapters):
            if len(self._asked) > 64:  # containers are a handful; stay bounded all the same
                self._asked.clear()
            askable = _askable(list(adapters.values()), container)
            entry = self._asked[container] = (
                adapters, len(adapters), askable,
                any(marks is not None for _, marks, _ in askable))
        return entry

    def _asked_for(self, input: AdapterInput
                   ) -> list[tuple[str, str, Callable[[AdapterInput], Any]]]:
        """The adapters detection asks about ``input``, in registry order: those of its
        container whose marks (if they declare any) meet the file's signs, as (format id,
        kind, detector).  Files of one container mostly show the same few sets of signs, so
        the list is worked out once per (container, signs) for the adapters the registry
        holds."""
        container = input.container
        adapters, _, askable, marked = self._askable_entry(container)
        # signs are built only when some adapter's marks need them
        key = (container, input.signs if marked else _NO_SIGNS)
        entry = self._asked_by_signs.get(key)
        if entry is None or entry[0] is not adapters or entry[1] != len(adapters):
            if len(self._asked_by_signs) > 256:  # sign sets vary with the files; stay bounded
                self._asked_by_signs.clear()
            signs = key[1]
            entry = self._asked_by_signs[key] = (adapters, len(adapters), [
                (h.id, h.kind, detector) for h, marks, detector in askable
                if marks is None or not signs.isdisjoint(marks)])
        return entry[2]

    def detect(self, input: AdapterInput, *, formats: Iterable[str] | None = None
               ) -> DetectionReport:
        """Score every adapter; keep >= 0.5; the single highest wins, a tie is ambiguous."""
        candidates: list[Candidate] = []
        faults: list[Fault] = []
        slow: list[SlowAdapter] = []
        budget = detect_budget()
        clock = time.perf_counter
        container = input.container
        if formats is None:
            asked = self._asked_for(input)
        else:  # what AdapterInput.matches says: a declared container, and one of its marks
            asked = [(h.id, h.kind, detector) for h, marks, detector
                     in _askable([self.get(f) for f in formats], container)
                     if marks is None or not input.signs.isdisjoint(marks)]
        for fid, kind, detector in asked:
            t0 = clock()
            try:
                raw = detector(input)
                if (type(raw) is Detection and type(score := raw.score) is float
                        and 0.0 <= score <= 1.0):  # the usual answer, as _normalize_score
                    reason = raw.reason
                else:
                    score, reason = _normalize_score(raw)
            except (Exception, SystemExit) as exc:  # a detector never ends the run
                faults.append(Fault(fid, f"{type(exc).__name__}: {exc}"))
                score, reason = 0.0, ""
            dt = clock() - t0
            if dt > budget:
                slow.append(SlowAdapter(fid, dt))
            if score > 0:
                candidates.append(Candidate(fid, kind, score, reason, dt))
        if len(candidates) > 1:
            candidates.sort(key=_rank)
        if len(slow) > 1:
            slow.sort(key=_slowest)
        report = DetectionReport(container, candidates, faults,
                                 container_error=input.container_error(), slow=slow,
                                 budget=budget, size=input.size)
        if candidates and candidates[0].score >= DETECT_THRESHOLD:
            # ranked by score: the winner is the first, unless the next ones score the same
            best = candidates[0].score
            if len(candidates) == 1 or candidates[1].score != best:
                report.winner = candidates[0]
            else:
                report.tied = [c.format for c in candidates if c.score == best]
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
        if not isinstance(raw, ReadResult):
            raise MalformedInput(f"{handle.id} could not read this file: its reader returned "
                                 f"{type(raw).__name__}, not a ReadResult", path=path)
        result = raw
        for ent in result.entities:
            if handle.kind != ANY_KIND and getattr(ent, "kind", None) != handle.kind:
                raise MalformedInput(f"{handle.id} returned a {getattr(ent, 'kind', '?')} "
                                     f"instead of a {handle.kind}", path=path)
        if not result.entities:
            raise MalformedInput(f"{handle.id} found nothing to read", path=path)
        _remember_source(input, handle.id, result.entities)
        return handle, result, report

    def with_hint(self, exc: UnrecognizedInput, input: AdapterInput) -> UnrecognizedInput:
        """``exc`` naming the first-party distribution that may read ``input``, when that one
        is not loaded (``this looks like a RisuAI CharX: pip install bunzai-formats-risu``)."""
        from .distributions import input_hint
        exc.message += input_hint(input, self.distributions())
        return exc

    # -- writing --------------------------------------------------------------------------------

    def write(self, entities: Sequence[Entity], format: str,
              options: Mapping[str, Any] | None = None, *, verify: bool = False
              ) -> WriteResult:
        """Write entities with ``format``; refuses cross-kind; fans out single-entity formats.

        The loss report is the writer's own entries plus every path with user data the format
        does not carry (:mod:`bunzai.fidelity`).  With ``verify`` (always, for a format that
        declares nothing it carries) each output is read back and any difference the report
        does not name is added to it.
        """
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
        layout_asked = any(o.layout and n in opts for n, o in handle.info.options.items())
        groups: list[Sequence[Entity]] = (
            [entities] if handle.info.multi else [[e] for e in entities])
        files: list[OutputFile] = []
        loss = LossReport()
        warnings: list[str] = []
        written: list[tuple[str, Sequence[Entity], list[OutputFile], Carried | None]] = []
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
            if not isinstance(res, WriteResult):
                raise ConversionRefused(f"{handle.id} could not write: its writer returned "
                                        f"{type(res).__name__}, not a WriteResult")
            if not layout_asked:
                _as_read(res.files, group, handle.id)
            prefix = f"[{i}]." if len(groups) > 1 else ""
            loss.extend(res.loss, prefix)
            warnings.extend(res.warnings)
            written.append((prefix, group, list(res.files),
                            handle.carried_for(res.carries)))
            if len(groups) > 1:
                name = (getattr(group[0], "name", None) or getattr(group[0], "title", None)
                        or str(i + 1))
                for f in res.files:  # named after their entity; the parts stay unjoined
                    f.name = f.name or name
            files.extend(res.files)
        if not handle.info.carries_passthrough:
            self._apply_loss_rule(handle, written, loss, warnings, verify=verify)
        return WriteResult(files, loss, warnings, format=handle.id,
                           name=getattr(entities[0], "name", None) or None)

    @property
    def neutrality(self) -> Neutrality:
        """Core's neutral values plus those every installed format declares."""
        if self._neutrality is None:
            from .neutral import Neutrality
            extra: list[tuple[str, Any]] = []
            for h in self.adapters.values():
                extra.extend(h.info.neutral)
            self._neutrality = Neutrality(extra)
        return self._neutrality

    def _apply_loss_rule(
            self, handle: AdapterHandle,
            written: Sequence[tuple[str, Sequence[Entity], list[OutputFile], Carried | None]],
            loss: LossReport, warnings: list[str], *, verify: bool) -> None:
        from .fidelity import report_changes, unheld

        info = handle.info
        neutral = self.neutrality
        default = f"{info.id} has no place for it"
        for prefix, group, _files, carried in written:
            verify = verify or carried is None  # nothing declared: read back to find out
            for j, ent in enumerate(group):
                p = prefix or (f"[{j}]." if len(group) > 1 else "")
                if carried is not None:
                    for path in unheld(ent, carried, neutral, own=info.id):
                        full = p + path
                        if not loss.covers(full, stashed=True, items=False):
                            loss.dropped(full, self._reason(info, path, default))
                self._report_acted_on(info, ent, p, loss)
        if not verify:
            return
        from tempfile import TemporaryDirectory

        for prefix, group, out_files, carried in written:
            with TemporaryDirectory(prefix="bunzai-verify-") as spool:
                back: list[Any] = []
                try:
                    for n, f in enumerate(out_files):
                        inp = _read_back_input(f, spool, n)
                        back.extend(self.read(inp, format=info.id)[1].entities)
                except BunzaiError as exc:
                    warnings.append("the output could not be read back to check it: "
                                    f"{exc.message}")
                    continue
                if len(back) != len(group):
                    warnings.append(f"wrote {len(group)} entities but read back {len(back)}")
                    continue
                for j, (before, after) in enumerate(zip(group, back, strict=True)):
                    p = prefix or (f"[{j}]." if len(group) > 1 else "")
                    found = report_changes(before, after, neutral, loss, info.reasons,
                                           (f"{info.id} did not keep it",
                                            f"{info.id} wrote it differently"), prefix=p)
                    if carried is not None:
                        warnings += [f"{full}: changed when written as {info.id}, found only "
                                     "by reading the output back" for full in found]
                    if getattr(before, "kind", None) == "preset" and not list(loss):
                        from .engine.render import render_difference
                        differs = render_difference(self, before, after)
                        if differs:
                            warnings.append(f"the prompt it builds changed: {differs}")

    def _report_acted_on(self, info: FormatInfo, entity: Entity, prefix: str,
                         loss: LossReport) -> None:
        """Text only the source's app acts on (``FormatInfo.acts_on``), kept by a target whose
        app does not: stashed, with what other apps do with it."""
        from .fidelity import values_at

        for pattern, test, effect, owners in self._acted_on():
            if info.id in owners or not any(o in entity.passthrough for o in owners):
                continue
            for path, value in values_at(entity, pattern):
                full = prefix + path
                if test(value) and not loss.covers(full, stashed=True):
                    loss.stashed(full, effect)

    def _acted_on(self) -> list[tuple[str, Any, str, frozenset[str]]]:
        """Every declared (pattern, test, effect) with the formats declaring it."""
        if self._acts_on is None:
            found: dict[tuple[str, Any], tuple[str, set[str]]] = {}
            for h in self.adapters.values():
                for pattern, test, effect in h.info.acts_on:
                    found.setdefault((pattern, test), (effect, set()))[1].add(h.id)
            self._acts_on = [(pattern, test, effect, frozenset(ids))
                             for (pattern, test), (effect, ids) in found.items()]
        return self._acts_on

    def _reason(self, info: FormatInfo, path: str, default: str) -> str:
        from .fidelity import reason_for

        if path.startswith("app_data.") or ".app_data." in path:
            head = path.split("app_data.", 1)[1].split(".", 1)[0]
            src = self.adapters.get(head)
            label = src.info.label if src is not None else head
            return reason_for(path, info.reasons, f"kept only for {label}; {info.id} has no "
                              "place for it")
        return reason_for(path, info.reasons, default)

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
                got = self.host.call(rec.plugin, "bunzai_label_rules") or []
            except Exception:
                continue
            rules.extend((rec.name, r) for r in got if isinstance(r, LabelRule))
        return rules

    def register_commands(self, app: typer.Typer) -> None:
        for rec in list(self.host.loaded):
            if "bunzai_register_commands" in rec.hooks:
                try:
                    self.host.call(rec.plugin, "bunzai_register_commands", app=app)
                except Exception as exc:
                    self.host.retire(rec, f"bunzai_register_commands failed: {exc}")


def _remember_source(input: AdapterInput, format_id: str, entities: Sequence[Entity]) -> None:
    """Remember the JSON text ``entities`` were read from, or the zip archive's structure and
    JSON members (in memory, see :mod:`.asread`), so that writing them unchanged as the same
    format gives back the file."""
    container = input.container
    if container == "json" and not input.streamed:
        remember_file(entities, format_id, input.data)
    elif container in ("zip", "jpeg+zip") and input.zip is not None:
        try:
            source = input.zip.source()
        except (ValueError, IndexError, struct.error):  # nothing to give back: written anew
            return
        for entity in entities:
            remember(entity, ZIP, source)


def _as_read(files: list[OutputFile], group: Sequence[Entity], format_id: str) -> None:
    """A JSON file written from entities read, unchanged, from one JSON file of the same
    format is that file's text (whatever tool laid it out)."""
    if len(files) != 1 or files[0].streamed:
        return
    from .asread import file_text, same_json
    source = file_text(group, format_id)
    if source is None:
        return
    f = files[0]
    data = same_json(f.data, source)
    if data is not f.data:
        files[0] = OutputFile(data, f.suffix, f.name)


def _read_back_input(f: OutputFile, spool: str, n: int) -> AdapterInput:
    """An output as an input to read back: its bytes, or for an output produced piece by piece
    (a large chat) a file in ``spool`` read as any large file is, so verifying a conversion
    never holds the whole output."""
    name = f"out{f.suffix}"
    if not f.streamed:
        return AdapterInput(f.data, name)
    path = os.path.join(spool, f"{n}{f.suffix}")
    with open(path, "wb") as fh:
        for part in f.parts:
            fh.write(part)
    return AdapterInput.from_path(path)

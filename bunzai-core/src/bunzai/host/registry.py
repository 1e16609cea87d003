"""The registry: every healthy adapter by format id, and the one place core reaches them.

Detection, reading and writing go through here, each answer attributed to the adapter that gave
it: an adapter that raises or answers the wrong type is named, never taken for another's.  The
registry names no format and never guesses; what is done with its answers is the engine's.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import (
    BunzaiError,
    ConversionRefused,
    Issue,
    MalformedInput,
    NoTargetForKind,
    UnrecognizedInput,
    UsageError,
)
from ..io.asread import ZIP, as_read, remember, remember_file
from ..io.outputs import declare_suffixes
from ..kinds import ANY_KIND
from ..loss.report import LossReport
from .detection import DetectionReport, Detector, score
from .options import check as check_options
from .plugins import BrokenPlugin, PluginHost, PluginRecord
from .types import FormatInfo, LabelRule, ReadResult, WriteResult

if TYPE_CHECKING:
    import typer

    from ..io.input import AdapterInput
    from ..loss.apply import ActedOn
    from ..loss.neutral import Neutrality
    from ..loss.rule import Carried
    from ..model import Entity


@dataclass
class AdapterHandle:
    """One adapter as the registry sees it: its declaration and its own hook implementations."""

    info: FormatInfo
    record: PluginRecord
    _carried: dict[tuple[str, ...], Carried] = field(default_factory=dict, repr=False)

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
        return self.record.call(hook, **kwargs)

    def has(self, hook: str) -> bool:
        return hook in self.record.impls

    def carried_for(self, carries: tuple[str, ...] | None) -> Carried | None:
        """The paths a write held: ``carries`` when the write said (it depended on the
        options), else what the adapter declares; None when neither says."""
        spec = carries if carries is not None else self.info.carries
        if spec is None:
            return None
        if spec not in self._carried:
            from ..loss.rule import Carried
            self._carried[spec] = Carried.of(spec)
        return self._carried[spec]


class Registry:
    """Every healthy adapter by format id, plus the plugins that were refused."""

    def __init__(self, host: PluginHost, adapters: Mapping[str, AdapterHandle] | None = None
                 ) -> None:
        self.host = host
        self.adapters: Mapping[str, AdapterHandle] = adapters if adapters is not None else {
            r.info.id: AdapterHandle(r.info, r) for r in host.loaded if r.info is not None}
        declare_suffixes(h.info.suffix for h in self.adapters.values())
        self._detectors: dict[str, list[tuple[frozenset[str] | None, Detector]]] = {}
        self._asked: dict[tuple[str, frozenset[str]], list[Detector]] = {}
        self._neutrality: Neutrality | None = None
        self._acted_on: list[ActedOn] | None = None

    @classmethod
    def load(cls, *, autoload: bool | None = None, allow: Iterable[str] | None = None,
             extra: Iterable[tuple[str, Any]] = (), defaults: bool = True,
             environ: Mapping[str, str] | None = None) -> Registry:
        return cls(PluginHost().load(autoload=autoload, allow=allow, extra=extra,
                                     defaults=defaults, environ=environ))

    @property
    def broken(self) -> list[BrokenPlugin]:
        return self.host.broken

    # -- lookup ---------------------------------------------------------------------------------

    def formats(self, kind: str | None = None) -> list[FormatInfo]:
        infos = [h.info for h in self.adapters.values()
                 if kind is None or h.kind in (kind, ANY_KIND)]
        return sorted(infos, key=lambda i: (i.kind, i.id))

    def get(self, name: str, kind: str | None = None) -> AdapterHandle:
        """An adapter by format id or alias; an unknown name is a usage error that suggests
        the closest name and lists the choices, those of ``kind`` (the kind the caller wants,
        else the suggestion's) first."""
        if name in self.adapters:
            return self.adapters[name]
        matches = [h for h in self.adapters.values() if name.lower() in h.info.aliases]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise UsageError(f"{name!r} is an alias of several formats "
                             f"({', '.join(sorted(h.id for h in matches))}); name one")
        raise UsageError(self._unknown(name, kind))

    def _unknown(self, name: str, kind: str | None) -> str:
        """``unknown format 'sillytavrn'; did you mean 'sillytavern'? installed character
        formats: …; other formats: …`` (and the distribution that has it, when one does)."""
        import difflib

        from .hints import format_hint

        by_name = {n: h for h in self.adapters.values() for n in (h.id, *h.info.aliases)}
        wanted = [n for n, h in by_name.items() if kind is None or h.kind in (kind, ANY_KIND)]
        close = (difflib.get_close_matches(name.lower(), wanted, n=1, cutoff=0.6)
                 or difflib.get_close_matches(name.lower(), list(by_name), n=1, cutoff=0.6))
        hint = format_hint(name, self.distributions())
        text = f"unknown format {name!r}" + (f"; did you mean {close[0]!r}?" if close and not hint
                                             else "")
        first = kind or (by_name[close[0]].kind if close else None)
        same = sorted(h.id for h in self.adapters.values() if h.kind == first)
        other = sorted(h.id for h in self.adapters.values() if h.kind != first)
        listed = [f"installed {first} formats: {', '.join(same)}"] if same else []
        if other:
            listed.append(f"{'other formats' if same else 'installed'}: {', '.join(other)}")
        text += f" ({'; '.join(listed)})"
        return text + hint

    def resolve_target(self, name: str, kind: str) -> AdapterHandle:
        """The output adapter for ``name``, preferring an alias of the entity's kind."""
        if name in self.adapters:
            return self.adapters[name]
        named = [h for h in self.adapters.values() if name.lower() in h.info.aliases]
        same_kind = [h for h in named if h.kind in (kind, ANY_KIND)]
        if len(same_kind) == 1:
            return same_kind[0]
        if len(named) > 1 and not same_kind:  # --to json on a preset: the file's problem
            # (one format named is refused as a cross-kind conversion when it is asked to write)
            raise NoTargetForKind(
                f"no {kind} format is called {name!r} (it names "
                f"{', '.join(sorted(h.id for h in named))}); {self._takers(kind)}")
        return self.get(name)

    def _takers(self, kind: str) -> str:
        return (f"formats that take a {kind}: "
                + (", ".join(i.id for i in self.formats(kind) if i.can_write) or "none"))

    def distributions(self) -> set[str]:
        """The distributions whose adapters or plugins loaded."""
        return {rec.distribution for rec in self.host.loaded}

    # -- detection ------------------------------------------------------------------------------

    def detect(self, input: AdapterInput, *, formats: Iterable[str] | None = None
               ) -> DetectionReport:
        """Every adapter that may claim ``input`` scores it (see :mod:`.detection`); only
        ``formats`` when given (what the others add to detection is then measurable).

        An adapter's declared signature spares it files it would answer 0 on: it is asked
        only about files of a container it names that show one of its marks.  Files of one
        container mostly show the same few signs, so who is asked is worked out once per
        (container, signs)."""
        container = input.container
        if formats is not None:
            only = Registry(self.host, {f: self.get(f) for f in formats})
            return only.detect(input)
        declared = self._detectors.get(container)
        if declared is None:
            declared = self._detectors[container] = self._for_container(container)
        if all(marks is None for marks, _ in declared):
            return score(input, [d for _, d in declared])
        key = (container, input.signs)
        asked = self._asked.get(key)
        if asked is None:
            asked = self._asked[key] = [d for marks, d in declared
                                        if marks is None or not key[1].isdisjoint(marks)]
        return score(input, asked)

    def _for_container(self, container: str) -> list[tuple[frozenset[str] | None, Detector]]:
        """(marks or None: every file, detector) of each adapter a ``container`` file may
        concern, in registry order."""
        out = []
        for h in self.adapters.values():
            sig = h.info.signature
            if sig is not None and container not in sig:
                continue  # a container the adapter does not read: it scores 0
            marks = frozenset(sig[container]) or None if sig is not None else None
            out.append((marks, (h.id, h.kind, h.record.caller("bunzai_detect", "input"))))
        return out

    # -- reading --------------------------------------------------------------------------------

    def read(self, input: AdapterInput, *, format: str | None = None,
             options: Mapping[str, Any] | None = None, report: DetectionReport | None = None
             ) -> tuple[AdapterHandle, ReadResult, DetectionReport | None]:
        """Read ``input`` as ``format``, or as what detection finds (``report``, when the
        caller already detected); errors name the file, an unrecognized file says which
        first-party distribution may read it."""
        path = input.filename
        if format is not None:
            handle = self.get(format)
        else:
            report = report or self.detect(input)
            try:
                handle = self.adapters[report.raise_for_status(path).format]
            except UnrecognizedInput as exc:
                from .hints import input_hint
                exc.message += input_hint(input, self.distributions())
                raise exc from None
        if not handle.info.can_read:
            raise UsageError(f"{handle.id} cannot be read", path=path)
        opts = check_options(handle.info, options, reader=True) if options else {}
        try:
            result = handle.call("bunzai_to_canonical", input=input, options=opts)
        except BunzaiError as exc:
            raise exc.with_path(path) from None
        except Exception as exc:
            raise MalformedInput(f"{handle.id} could not read this file: "
                                 f"{type(exc).__name__}: {exc}", path=path) from exc
        if not isinstance(result, ReadResult):
            raise MalformedInput(f"{handle.id} could not read this file: its reader returned "
                                 f"{type(result).__name__}, not a ReadResult", path=path)
        wrong = next((e for e in result.entities
                      if handle.kind not in (ANY_KIND, getattr(e, "kind", None))), None)
        if wrong is not None:
            raise MalformedInput(f"{handle.id} returned a {getattr(wrong, 'kind', '?')} "
                                 f"instead of a {handle.kind}", path=path)
        if not result.entities:
            raise MalformedInput(f"{handle.id} found nothing to read", path=path)
        _name_damaged_pictures(result)
        _remember_source(input, handle.id, result.entities)
        return handle, result, report

    # -- writing --------------------------------------------------------------------------------

    def write(self, entities: Sequence[Entity], format: str,
              options: Mapping[str, Any] | None = None, *, verify: bool = False
              ) -> WriteResult:
        """Write entities as ``format``: one call per entity unless the format holds several
        in a file (``multi``), a cross-kind write refused, the loss report completed by the
        loss rule (:mod:`bunzai.loss.apply`) and, with ``verify``, by reading back."""
        from ..loss.apply import Target, Verification, Written, complete

        if not entities:
            raise UsageError("nothing to write")
        handle, opts = self._target(entities, format, options)
        layout_asked = any(o.layout and n in opts for n, o in handle.info.options.items())
        groups = [entities] if handle.info.multi else [[e] for e in entities]
        loss, warnings, written = LossReport(), [], []
        for i, group in enumerate(groups):
            res = self._call_writer(handle, group, opts)
            if not layout_asked:
                as_read(res.files, group, handle.id)
            prefix = f"[{i}]." if len(groups) > 1 else ""
            loss.extend(res.loss, prefix)
            warnings.extend(res.warnings)
            if len(groups) > 1:  # files named after their entity
                name = getattr(group[0], "name", None) or getattr(group[0], "title", None)
                for f in res.files:
                    f.name = f.name or name or str(i + 1)
            written.append(Written(prefix, group, res.files, handle.carried_for(res.carries)))
        checked = None
        if not handle.info.carries_passthrough:
            target = Target(handle.id, handle.info.reasons, self.neutrality, self.acted_on,
                            {h.id: h.info.label for h in self.adapters.values()},
                            self._same_prompt, self._runs_differently(handle.id))
            checked = complete(target, written, loss, warnings, verify=verify,
                               read_back=lambda inp: self.read(inp, format=handle.id)[1].entities)
        elif verify:
            checked = Verification(asked=True, skipped=f"{handle.id} keeps every value as read")
        from .naming import earlier_output
        return WriteResult([f for w in written for f in w.files], loss, warnings,
                           format=handle.id, name=getattr(entities[0], "name", None) or None,
                           verified=checked, earlier=earlier_output(self.detect, handle.id))

    def _target(self, entities: Sequence[Entity], format: str,
                options: Mapping[str, Any] | None) -> tuple[AdapterHandle, dict[str, Any]]:
        """The writer for ``format`` and ``entities`` (one kind, the writer's), with its
        options checked and converted, an alias's implied options under the given ones."""
        kind = entities[0].kind
        handle = self.resolve_target(format, kind)
        if any(e.kind != kind for e in entities):
            raise ConversionRefused("cannot write entities of different kinds into one file")
        if handle.kind not in (kind, ANY_KIND):
            raise NoTargetForKind(
                f"{handle.id} holds a {handle.kind}, not a {kind}: refusing a cross-kind "
                f"conversion ({self._takers(kind)})")
        if not handle.info.can_write:
            raise UsageError(f"{handle.id} cannot be written")
        implied = handle.info.alias_options.get(format.lower()) if format != handle.id else None
        return handle, check_options(handle.info, {**(implied or {}), **(options or {})})

    @staticmethod
    def _call_writer(handle: AdapterHandle, group: Sequence[Entity],
                     options: Mapping[str, Any]) -> WriteResult:
        try:
            res = handle.call("bunzai_from_canonical", entities=list(group), options=options)
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
        return res

    @property
    def neutrality(self) -> Neutrality:
        """Core's neutral values plus those every installed format declares."""
        if self._neutrality is None:
            from ..loss.neutral import Neutrality
            self._neutrality = Neutrality([n for h in self.adapters.values()
                                           for n in h.info.neutral])
        return self._neutrality

    def _same_prompt(self, before: Entity, after: Entity, loss: LossReport) -> str | None:
        """A preset written with nothing lost must build the same prompt read back."""
        if getattr(before, "kind", None) != "preset" or loss:
            return None
        from ..prompts.render import render_difference
        differs = render_difference(self, before, after)
        return f"the prompt it builds changed: {differs}" if differs else None

    def _runs_differently(self, target: str) -> Callable[[Entity], list[tuple[str, str]]] | None:
        """Active content a write as ``target`` keeps but whose app runs it differently from
        the source's app (``FormatInfo.runs``), as (path, why); None when no format declares
        what its app runs."""
        if not any(h.info.runs for h in self.adapters.values()):
            return None
        from ..active.findings import differences
        return lambda entity: differences(entity, target, self)

    @property
    def acted_on(self) -> list[ActedOn]:
        """Every declared (pattern, test, effect) of text only some apps act on, with the
        formats whose app does (``FormatInfo.acts_on``)."""
        if self._acted_on is None:
            found: dict[tuple[str, Any], tuple[str, set[str]]] = {}
            for h in self.adapters.values():
                for pattern, test, effect in h.info.acts_on:
                    found.setdefault((pattern, test), (effect, set()))[1].add(h.id)
            self._acted_on = [(p, t, e, frozenset(ids)) for (p, t), (e, ids) in found.items()]
        return self._acted_on

    # -- the optional hooks ---------------------------------------------------------------------

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
        for rec in self._with("bunzai_label_rules"):
            try:
                got = rec.call("bunzai_label_rules") or []
            except Exception:
                continue
            rules.extend((rec.name, r) for r in got if isinstance(r, LabelRule))
        return rules

    def register_commands(self, app: typer.Typer) -> None:
        for rec in self._with("bunzai_register_commands"):
            try:
                rec.call("bunzai_register_commands", app=app)
            except Exception as exc:
                self.host.retire(rec, f"bunzai_register_commands failed: {exc}")

    def _with(self, hook: str) -> list[PluginRecord]:
        return [rec for rec in self.host.loaded if hook in rec.impls]


def _remember_source(input: AdapterInput, format_id: str, entities: Sequence[object]) -> None:
    """Remember what ``entities`` were read from: the JSON file's text, or the zip archive's
    structure and JSON members, so that writing them unchanged as the same format gives back
    the file."""
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



_registry: Registry | None = None


def get_registry() -> Registry:
    """The process-wide registry, loaded from entry points on first use."""
    global _registry
    if _registry is None:
        _registry = Registry.load()
    return _registry


def set_registry(registry: Registry | None) -> None:
    """Replace (or with ``None``, reset) the process-wide registry; tests and embedders use it."""
    global _registry
    _registry = registry


def _name_damaged_pictures(result: ReadResult) -> None:
    """A picture the file carries cut short or corrupt is named on read, whatever the format
    (a reader that already said its picture is damaged is not repeated)."""
    from ..io.containers.imagecheck import damaged_pictures

    if any("picture is damaged" in w.message for w in result.warnings):
        return
    for path, message in damaged_pictures(list(result.entities)):
        result.warnings.append(Issue(path, message))


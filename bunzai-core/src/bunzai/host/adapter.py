"""``FormatAdapter``: the base class that spares adapter authors the hook boilerplate.

Subclass it, set the class attributes, implement ``detect``, and either implement ``read`` and
``write`` or name the functions that do them (``reader = "read:read_book"``, resolved in the
adapter's own package and imported on first use, so the adapter module stays cheap to import
for detection).  The class turns all of it into the pluggy hooks.  A raw pluggy plugin
implementing the hooks itself works just as well (see ``docs/architecture.md``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from ..active.runs import Runs
from ..errors import Issue
from ..io.outputs import OutputFile
from ..loss.report import LossReport
from .hookspecs import hookimpl
from .types import (
    API_VERSION,
    DetectedOrigin,
    Detection,
    FormatInfo,
    LabelRule,
    Option,
    ReadResult,
    WriteResult,
    declared_options,
)

if TYPE_CHECKING:
    from ..io.input import AdapterInput
    from ..model import Entity


_NAMED_MODULES: dict[tuple[str, str], str] = {}
"""(adapter module, relative module name) -> the module's full name, resolved once: a read
or write names its function on every call, and resolving a relative import costs more than the
lookup in ``sys.modules``."""


_BESIDE: dict[tuple[str, str], bool] = {}
"""(adapter module, module name) -> whether the adapter's folder has that module."""


_DERIVED = frozenset({"id", "label", "description", "can_read", "can_write", "alias_options",
                      "options", "signature"})
"""FormatInfo fields :meth:`FormatAdapter.info` works out rather than copies."""


def detect_json(score: Callable[[Any], tuple[float, str]]
                ) -> Callable[[Any, AdapterInput], tuple[float, str]]:
    """A ``detect`` method that scores the file's parsed JSON (``input.json``) with ``score``:
    ``detect = detect_json(score)`` in the class body of a format recognised by its JSON."""

    def detect(self: Any, input: AdapterInput) -> tuple[float, str]:
        return score(input.json)

    detect.__doc__ = score.__doc__ or "Score the parsed JSON."
    return detect


class FormatAdapter:
    """One format: how to recognise it, read it into the canonical model and write it back."""

    format_id: ClassVar[str]
    kind: ClassVar[str]
    label: ClassVar[str] = ""
    description: ClassVar[str] = ""
    suffix: ClassVar[str] = ".json"
    multi: ClassVar[bool] = False
    aliases: ClassVar[tuple[str, ...]] = ()
    alias_options: ClassVar[dict[str, dict[str, str]]] = {}
    carries_passthrough: ClassVar[bool] = False
    carries: ClassVar[tuple[str, ...] | None] = None
    reasons: ClassVar[tuple[tuple[str, str], ...]] = ()
    neutral: ClassVar[tuple[tuple[str, Any], ...]] = ()
    acts_on: ClassVar[tuple[tuple[str, Any, str], ...]] = ()
    runs: ClassVar[tuple[Runs, ...]] = ()
    """Fields the format's app runs or renders (:class:`~bunzai.active.runs.Runs`)."""
    api_version: ClassVar[int] = API_VERSION
    options: ClassVar[Sequence[Option] | Mapping[str, Option | str]] = ()
    """The format's reader and writer options (:class:`~bunzai.host.types.Option`); core checks
    them before :meth:`read` or :meth:`write` runs and passes the values converted."""
    default_for_kind: ClassVar[bool] = False
    detection: ClassVar[tuple[tuple[str, float], ...]] = ()
    signature: ClassVar[Mapping[str, tuple[str, ...]] | None] = None
    losses: ClassVar[tuple[tuple[str, str], ...]] = ()
    doc: ClassVar[str | None] = None

    reader: ClassVar[str | None] = None
    """``"module:function"``, the module relative to the adapter's package (``"read"``, or
    ``"._common.cards"`` for one beside it), called as ``function(input, options, format_id)``;
    used by the default :meth:`read`."""
    writer: ClassVar[str | None] = None
    """``"module:function"`` called as ``function(entity, options, format_id)`` (for a ``multi``
    format: ``function(entities, options, format_id)``); used by the default :meth:`write`."""
    validator: ClassVar[str | None] = None
    """``"module:function"`` called as ``function(input, entities, format_id)``; by default
    ``check`` in a ``validate`` module in the adapter's folder, when it has one."""
    labeler: ClassVar[str | None] = None
    """``"module:function"`` returning the format's label rules; by default ``rules`` in a
    ``labels`` module in the adapter's folder, when it has one."""
    origin: ClassVar[DetectedOrigin | None] = None
    """The app that made the files the adapter's own detection scores high enough
    (:class:`~bunzai.host.types.DetectedOrigin`): an origin label rule whose evidence is
    detection's reason (:meth:`origin_evidence`), before the labeler's rules."""

    @classmethod
    def _named(cls, spec: str) -> Any:
        """The function ``spec`` names, imported relative to the adapter's package."""
        module, _, name = spec.partition(":")
        key = (cls.__module__, module)
        full = _NAMED_MODULES.get(key)
        mod = sys.modules.get(full) if full is not None else None
        if mod is None:  # first use (or the module was dropped from sys.modules): import it
            from importlib import import_module

            home = sys.modules[cls.__module__]
            anchor = cls.__module__ if hasattr(home, "__path__") else home.__package__
            # "read" is the adapter's own module; "._common.read" one in the package above
            mod = import_module(f".{module}", anchor)
            _NAMED_MODULES[key] = mod.__name__
        # looked up on every call, so a replaced function (a test's monkeypatch) is seen
        return getattr(mod, name)

    @classmethod
    def _beside(cls, module: str, function: str) -> str | None:
        """``"module:function"`` when the adapter's folder (a package) has that module: the
        convention that spares an adapter naming its ``validate:check`` and ``labels:rules``."""
        key = (cls.__module__, module)
        found = _BESIDE.get(key)
        if found is None:
            from importlib.util import find_spec

            found = hasattr(sys.modules[cls.__module__], "__path__") and find_spec(
                f"{cls.__module__}.{module}") is not None
            _BESIDE[key] = found
        return f"{module}:{function}" if found else None

    @classmethod
    def named_functions(cls) -> dict[str, tuple[str, Any]]:
        """Every function the class names, resolved: role -> (``"module:function"``, the
        function).  Importing them is what a read or write would do first; the conformance
        kit calls this to check each one exists and takes the arguments its role passes."""
        found: dict[str, tuple[str, Any]] = {}
        for role, spec in (("reader", cls.reader), ("writer", cls.writer),
                           ("validator", cls.validator or cls._beside("validate", "check")),
                           ("labeler", cls.labeler or cls._beside("labels", "rules"))):
            if spec is not None:
                found[role] = (spec, cls._named(spec))
        return found

    # -- what authors implement ----------------------------------------------------------------

    def detect(self, input: AdapterInput) -> float | Detection | tuple[float, str]:
        """Score the input 0..1 (0 = not mine). Cheap; never raises."""
        raise NotImplementedError

    def read(
        self, input: AdapterInput, options: Mapping[str, Any]
    ) -> Entity | Sequence[Entity] | ReadResult:
        """Read the input; raise ``MalformedInput`` when it cannot be read."""
        if self.reader is None:
            raise NotImplementedError(f"{self.format_id} cannot be read")
        return self._named(self.reader)(input, options, self.format_id)  # type: ignore[no-any-return]

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult | bytes:
        """Write one entity (formats with ``multi = True`` override :meth:`write_many`)."""
        if self.writer is None or self.multi:
            raise NotImplementedError(f"{self.format_id} cannot be written")
        return self._named(self.writer)(entity, options, self.format_id)  # type: ignore[no-any-return]

    def write_many(self, entities: Sequence[Entity], options: Mapping[str, Any]) -> WriteResult:
        """Write several entities into one file; only for ``multi`` formats."""
        if self.multi and self.writer is not None:
            return self._named(self.writer)(entities, options, self.format_id)  # type: ignore[no-any-return]
        if len(entities) != 1:
            raise NotImplementedError(f"{self.format_id} holds one entity per file")
        result = self.write(entities[0], options)
        if isinstance(result, bytes):
            return WriteResult([OutputFile(result, self.suffix)], LossReport())
        return result

    def validate(self, input: AdapterInput, entities: Sequence[Entity]) -> list[Issue]:
        """Violations of the format's own rules; none by default."""
        spec = self.validator or self._beside("validate", "check")
        if spec is None:
            return []
        return list(self._named(spec)(input, entities, self.format_id))

    def label_rules(self) -> list[LabelRule]:
        """Origin-labeler rules: :attr:`origin`'s, then the labeler's; none by default."""
        origin = self.origin
        rules = [] if origin is None else [LabelRule(
            origin.app, origin.weight, partial(self._detected_origin, origin), "origin",
            origin.name)]
        spec = self.labeler or self._beside("labels", "rules")
        if spec is not None:
            rules.extend(self._named(spec)())
        return rules

    def origin_evidence(self, input: AdapterInput, reason: str) -> str:
        """The evidence of :attr:`origin` for a file detection is sure of, given detection's
        ``reason``: that reason by default; override to add what else the file shows."""
        return reason

    def _detected_origin(self, origin: DetectedOrigin, input: AdapterInput,
                         entities: Sequence[Entity]) -> list[str]:
        """The test of ``origin``'s rule: the file's detection, run again (a label rule is
        given the input, not what detection found)."""
        found = self.bunzai_detect(input)
        if found.score < origin.at_least:
            return []
        return [self.origin_evidence(input, found.reason)]

    def chats(self, entity: Entity) -> list[Entity] | None:
        """The chats an entity this adapter read carries; ``None`` (the default): none."""
        return None

    def embed_chat(self, entity: Entity, chat: Entity) -> Entity:
        """A copy of ``entity`` carrying ``chat``; only adapters whose files hold chats."""
        raise NotImplementedError(f"{self.format_id} files hold no chats")

    # -- derived --------------------------------------------------------------------------------

    @classmethod
    def info(cls) -> FormatInfo:
        """The class attributes as the declaration core reads (:class:`FormatInfo`)."""
        declared = {f.name: getattr(cls, f.name) for f in fields(FormatInfo)
                    if f.name not in _DERIVED and hasattr(cls, f.name)}
        return FormatInfo(
            **declared,
            id=cls.format_id,
            label=cls.label or cls.format_id,
            description=cls.description or (cls.__doc__ or "").strip().split("\n")[0],
            can_read=cls.read is not FormatAdapter.read or cls.reader is not None,
            can_write=(cls.write is not FormatAdapter.write
                       or cls.write_many is not FormatAdapter.write_many
                       or cls.writer is not None),
            alias_options={k: dict(v) for k, v in cls.alias_options.items()},
            options=declared_options(cls.options, cls.format_id),
            signature=({k: tuple(v) for k, v in cls.signature.items()}
                       if cls.signature is not None else None),
        )

    # -- the pluggy hooks -----------------------------------------------------------------------

    @hookimpl
    def bunzai_format_info(self) -> FormatInfo:
        return self.info()

    @hookimpl
    def bunzai_detect(self, input: AdapterInput) -> Detection:
        raw = self.detect(input)
        if isinstance(raw, Detection):
            return raw
        if isinstance(raw, tuple) and len(raw) == 2 and isinstance(raw[1], str):
            return Detection(raw[0], raw[1])
        return Detection(0.0 if raw is None else raw)

    @hookimpl
    def bunzai_to_canonical(self, input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
        raw = self.read(input, options)
        if isinstance(raw, ReadResult):
            return raw
        if isinstance(raw, list | tuple):
            return ReadResult(list(raw))
        return ReadResult([raw])  # type: ignore[list-item]

    @hookimpl
    def bunzai_from_canonical(
        self, entities: Sequence[Entity], options: Mapping[str, Any]
    ) -> WriteResult:
        if self.multi:
            return self.write_many(entities, options)
        return FormatAdapter.write_many(self, entities, options)

    @hookimpl
    def bunzai_validate(self, input: AdapterInput, entities: Sequence[Entity]) -> list[Issue]:
        return self.validate(input, entities)

    @hookimpl
    def bunzai_label_rules(self) -> list[LabelRule]:
        return self.label_rules()

    @hookimpl
    def bunzai_chats_in(self, entity: Entity) -> list[Entity] | None:
        return self.chats(entity)

    @hookimpl
    def bunzai_embed_chat(self, entity: Entity, chat: Entity) -> Entity:
        return self.embed_chat(entity, chat)

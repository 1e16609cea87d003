"""Reading files for the engine: the request checked once, then each file read into a result.

Every engine operation starts here.  A problem with the request (an unknown ``--from`` or
``--to``, a mistyped option) raises :class:`~bunzai.errors.UsageError` before any file is read;
a problem with a file (unreadable, unrecognized) is kept in its result's ``error``, so that a
command over many files reports it and goes on.  Results share :class:`Outcome` and
:class:`Reading` and turn themselves into the JSON every front end prints (``to_dict()``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import BunzaiError, UsageError
from ..host.registry import get_registry
from ..io.input import Source, as_input

if TYPE_CHECKING:
    from ..errors import Issue
    from ..host.detection import DetectionReport
    from ..host.registry import AdapterHandle, Registry
    from ..io.input import AdapterInput

R = TypeVar("R", bound="Reading")


# -- the request: format names checked before any file is read -----------------------------------


def check_source_format(name: str | None, registry: Registry | None = None) -> None:
    """A ``--from`` name is a readable format (or none was given)."""
    if name is not None:
        handle = (registry or get_registry()).get(name)
        if not handle.info.can_read:
            raise UsageError(f"{handle.id} cannot be read")


def check_target(name: str, registry: Registry | None = None,
                 options: Mapping[str, Any] | None = None, *, kind: str | None = None) -> None:
    """A ``--to`` name is a writable format id or alias, and ``options`` fit at least one of
    the formats it may stand for (an alias such as ``json`` is resolved per input's kind);
    ``kind``, when the operation writes one, puts that kind's names first in the refusal."""
    reg = (registry or get_registry())
    targets = _targets(reg, name)
    if not targets:
        reg.get(name, kind)  # raises the unknown-format error, with its hints
    writable = [h for h in targets if h.info.can_write]
    if options and writable:  # an unwritable or other-kind target is refused per file
        from ..host.options import check
        problems: list[UsageError] = []
        for h in writable:
            try:
                check(h.info, {**h.info.alias_options.get(name.lower(), {}), **options})
                return
            except UsageError as exc:
                problems.append(exc)
        raise problems[0]


def _targets(reg: Registry, name: str) -> list[AdapterHandle]:
    if name in reg.adapters:
        return [reg.adapters[name]]
    return [h for h in reg.adapters.values() if name.lower() in h.info.aliases]


def default_format(kind: str, registry: Registry | None = None) -> str:
    """The format a command writes when given no ``--to`` for ``kind``: the one adapter that
    declares itself the default for its kind (core names none)."""
    reg = (registry or get_registry())
    claims = sorted(h.id for h in reg.adapters.values()
                    if h.info.default_for_kind and h.kind == kind and h.info.can_write)
    if len(claims) == 1:
        return claims[0]
    takers = ", ".join(i.id for i in reg.formats(kind) if i.can_write) or "none installed"
    if claims:
        raise UsageError(f"several formats claim to be the default {kind} format "
                         f"({', '.join(claims)}); name one with --to")
    raise UsageError(f"no installed format is the default for a {kind}",
                     remedy=f"name one with {{to}} ({takers})")


# -- one file, read ------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class Outcome:
    """A per-file result: the file, and the error that stopped the work on it (if any).

    Results are compared by identity and generate nothing but ``__init__`` (a command imports
    this module on every run: each generated method is start-up time)."""

    path: str | None
    error: BunzaiError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def exit_code(self) -> int:
        """What ``bunzai`` exits with for this file alone (0 ok, see the README's table)."""
        return self.error.exit_code if self.error is not None else 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.path!r}{' error' if self.error else ''}>"

    def _error(self) -> dict[str, Any]:
        if self.error is None:
            return {}
        return {"error": self.error.message, "exit_code": self.error.exit_code}

    @property
    def status(self) -> str:
        """One word that agrees with :attr:`exit_code`: ``ok`` (0, the file was read),
        ``usage`` (2), ``ambiguous`` or ``unrecognized`` (3), ``unreadable`` (4), ``refused``
        (5: nothing written)."""
        return status_of(self.error)


def status_of(error: BunzaiError | None) -> str:
    """The ``status`` word of a result that stopped on ``error`` (``ok`` without one)."""
    from ..errors import AmbiguousInput

    if error is None:
        return "ok"
    if isinstance(error, AmbiguousInput):
        return "ambiguous"
    return {2: "usage", 3: "unrecognized", 4: "unreadable", 5: "refused"}.get(
        error.exit_code, "failed")


@dataclass(eq=False, repr=False)
class Reading(Outcome):
    """A file as bunzai read it: its container, detection, the adapter and the entities."""

    container: str | None = None
    report: DetectionReport | None = None
    """Detection, when it ran (always for ``inspect``; otherwise only without ``--from``)."""
    forced: str | None = None
    """The format the caller chose (``--from``), skipping detection's verdict."""
    handle: AdapterHandle | None = None
    entities: list[Any] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    input: AdapterInput | None = field(default=None, repr=False)

    @classmethod
    def of(cls: type[R], reading: Reading, **facts: Any) -> R:
        """``reading`` as a result of this kind, with the facts only that kind has.

        The kinds add their facts as class attributes with defaults, not as dataclass fields:
        only :class:`Reading` generates an ``__init__``, which every command pays for at start.
        """
        found = cls.__new__(cls)
        found.__dict__.update(reading.__dict__)
        found.__dict__.update(facts)
        return found

    @property
    def format(self) -> str | None:
        if self.handle is not None:
            return self.handle.id
        w = self.report.winner if self.report is not None else None
        return w.format if w is not None else None

    @property
    def kind(self) -> str | None:
        if self.entities:
            return str(self.entities[0].kind)
        w = self.report.winner if self.report is not None else None
        return w.kind if w is not None else None

    @property
    def confidence(self) -> float | None:
        """Detection's score for the format the file was read as (with ``--from``, that
        format's own score, 0 when it did not claim the file); None without detection."""
        if self.report is None:
            return None
        if self.forced is None:
            w = self.report.winner
            return w.score if w is not None else None
        own = self.handle.id if self.handle is not None else self.forced
        return next((c.score for c in self.report.candidates if c.format == own), 0.0)

    @property
    def detected(self) -> str | None:
        """Detection's winner, whatever ``--from`` said."""
        w = self.report.winner if self.report is not None else None
        return w.format if w is not None else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        if self.report is not None:
            out.update(self.report.to_dict())
            if self.report.slow:
                out["detect_budget"] = self.report.budget
        elif self.container is not None:
            out["container"] = self.container
        if self.handle is not None:
            out["format"] = self.handle.id
        elif self.forced is not None:  # not the detected format: the one it failed to read as
            out.update({"format": self.forced, "kind": None})
        if self.entities:
            out["kind"] = self.kind
        if self.report is not None or self.error is not None:
            out["status"] = self.status
        if self.forced is not None:
            out["forced"] = True
            out["detected"] = self.detected
            if self.report is not None:
                out["confidence"] = self.confidence
        out.update(self._error())
        return out


def read_file(source: Source, *, filename: str | None = None, from_format: str | None = None,
              detect: bool = False, registry: Registry | None = None,
              options: Mapping[str, Any] | None = None) -> Reading:
    """Read one file: detection (always with ``detect``, else only without ``from_format``),
    then the chosen adapter's reader, with reader ``options``."""
    reg = registry or get_registry()
    path = _name_of(source, filename)
    reading = Reading(path, forced=from_format)
    try:
        inp = reading.input = as_input(source, path)
        reading.container = inp.container
        if detect or from_format is None:
            reading.report = reg.detect(inp)
        handle, result, _ = reg.read(inp, format=from_format, options=options,
                                     report=reading.report)
        reading.handle = handle
        reading.entities = list(result.entities)
        reading.warnings = list(result.warnings)
    except BunzaiError as exc:
        reading.error = exc.with_path(path)
        if from_format is not None and reading.input is not None:
            _name_detected(reading, reg)
    return reading


def _name_detected(reading: Reading, reg: Registry) -> None:
    """A file that failed to read as the ``--from`` format: say what detection finds in it,
    so the user learns whether the name was wrong or the file is broken."""
    from ..errors import UsageError

    error = reading.error
    if error is None or isinstance(error, UsageError) or reading.input is None:
        return
    try:
        report = reading.report or reg.detect(reading.input)
    except BunzaiError:
        return
    reading.report = report
    w = report.winner
    if w is not None and reg.get(w.format).id == reg.get(reading.forced or w.format).id:
        error.message += f" (detection finds {w.format} too)"
    elif w is not None:
        error.message += (f" (detection finds {w.format} at {w.score:g}; read it without "
                          f"--from, or with --from {w.format})")
    elif report.tied:
        error.message += f" (detection finds {', '.join(report.tied)} tied)"
    else:
        error.message += " (detection recognises no format in it)"


def _name_of(source: Source, filename: str | None) -> str | None:
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return filename

"""Detection: every adapter that may claim a file scores it; the single best at 0.5 or more wins.

A detector that raises or answers outside 0..1 scores 0 for that file and is reported as a
fault; one slower than the budget is reported, never interrupted; equal best scores are a tie,
which the user resolves with ``--from``.  Which adapters are asked at all is the registry's
business (their declared signatures, see :meth:`bunzai.host.registry.Registry.detect`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import AmbiguousInput, MalformedInput, UnrecognizedInput
from .types import Detection

if TYPE_CHECKING:
    from ..io.input import AdapterInput

Detector = tuple[str, str, Callable[["AdapterInput"], Any]]
"""(format id, kind, the adapter's detect function)."""

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
        """``ok``, ``ambiguous``, ``unreadable`` (a broken container nothing claimed: exit 4)
        or ``unrecognized``: what :meth:`raise_for_status` answers, so the two never disagree."""
        if self.winner is not None:
            return "ok"
        if self.tied:
            return "ambiguous"
        return "unreadable" if self._unreadable() else "unrecognized"

    def _unreadable(self) -> bool:
        return (self.size != 0 and bool(self.container_error)
                and not any(c.score >= 0.3 for c in self.candidates))

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
        if self._unreadable():
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


def score(input: AdapterInput, asked: Iterable[Detector]) -> DetectionReport:
    """Ask each detector about ``input``: every non-zero score ranked, faults and slow
    detectors noted, and the winner or the tie."""
    candidates: list[Candidate] = []
    faults: list[Fault] = []
    slow: list[SlowAdapter] = []
    budget = detect_budget()
    clock = time.perf_counter
    for fid, kind, detector in asked:
        t0 = clock()
        try:
            raw = detector(input)
            if (type(raw) is Detection and type(found := raw.score) is float
                    and 0.0 <= found <= 1.0):  # the usual answer, as _normalize_score
                reason = raw.reason
            else:
                found, reason = _normalize_score(raw)
        except (Exception, SystemExit) as exc:  # a detector never ends the run
            faults.append(Fault(fid, f"{type(exc).__name__}: {exc}"))
            found, reason = 0.0, ""
        dt = clock() - t0
        if dt > budget:
            slow.append(SlowAdapter(fid, dt))
        if found > 0:
            candidates.append(Candidate(fid, kind, found, reason, dt))
    if len(candidates) > 1:
        candidates.sort(key=_rank)
    if len(slow) > 1:
        slow.sort(key=_slowest)
    report = DetectionReport(input.container, candidates, faults,
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

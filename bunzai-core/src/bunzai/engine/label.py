"""The origin labeler: which app made or last saved a file, from app-namespaced evidence.

A second pass after detection.  Detection answers "which adapter reads this"; the labeler answers
"where is this from", with the winning rule's weight as a 0..1 confidence and the evidence that
fired.  Rules come from format plugins through the ``bunzai_label_rules`` hook; core has none,
because core knows no app.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..host.registry import Registry
    from ..io.input import AdapterInput


@dataclass
class AppGuess:
    """One app the evidence points to."""

    app: str
    confidence: float
    role: str
    evidence: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"app": self.app, "confidence": self.confidence, "role": self.role,
                "evidence": self.evidence}


@dataclass
class LabelResult:
    """All apps with evidence, best first; ``origin`` and ``last_writer`` picked out."""

    guesses: list[AppGuess]

    def best(self, role: str) -> AppGuess | None:
        return next((g for g in self.guesses if g.role == role), None)

    @property
    def app(self) -> str | None:
        g = self.best("origin") or self.best("last_writer")
        return g.app if g else None

    @property
    def confidence(self) -> float:
        g = self.best("origin") or self.best("last_writer")
        return g.confidence if g else 0.0

    def to_dict(self) -> dict[str, Any]:
        origin = self.best("origin")
        last = self.best("last_writer")
        top = origin or last
        return {
            "app": top.app if top else None,
            "confidence": top.confidence if top else 0.0,
            "evidence": top.evidence if top else [],
            "origin": origin.to_dict() if origin else None,
            "last_writer": last.to_dict() if last else None,
            "apps": [g.to_dict() for g in self.guesses],
        }


def label(registry: Registry, input: AdapterInput, entities: Sequence[Any]) -> LabelResult:
    """Run every contributed rule; per (app, role) keep the best weight and all evidence."""
    merged: dict[tuple[str, str], AppGuess] = {}
    for _plugin, rule in registry.label_rules():
        try:
            evidence = rule.test(input, entities)
        except Exception:  # a faulty rule is ignored, never fatal
            continue
        if not evidence:
            continue
        key = (rule.app, rule.role)
        guess = merged.get(key)
        if guess is None:
            merged[key] = AppGuess(rule.app, rule.weight, rule.role, list(evidence))
        else:
            guess.confidence = max(guess.confidence, rule.weight)
            guess.evidence.extend(e for e in evidence if e not in guess.evidence)
    guesses = sorted(merged.values(), key=lambda g: (-g.confidence, g.app))
    return LabelResult(guesses)

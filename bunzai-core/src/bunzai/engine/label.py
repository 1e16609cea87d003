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

    def _top(self) -> AppGuess | None:
        """The origin, else a known last writer."""
        last = self.best("last_writer")
        return self.best("origin") or (last if last is not None and last.confidence else None)

    @property
    def app(self) -> str | None:
        g = self._top()
        return g.app if g else None

    @property
    def confidence(self) -> float:
        g = self._top()
        return g.confidence if g else 0.0

    def unknown_last_writer(self, why: str) -> None:
        """The last writer cannot be told (bunzai may have written the file): one guess with
        no app and no confidence, whose evidence is ``why`` and then every sign seen, each
        under the app it points to."""
        last = [g for g in self.guesses if g.role == "last_writer"]
        seen = [f"{g.app}: {e}" for g in last for e in g.evidence]
        self.guesses = [g for g in self.guesses if g.role != "last_writer"]
        self.guesses.append(AppGuess("unknown", 0.0, "last_writer", [why, *seen]))

    def to_dict(self) -> dict[str, Any]:
        origin = self.best("origin")
        last = self.best("last_writer")
        top = self._top()
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


def written_by_bunzai(registry: Registry, input: AdapterInput, format: str,
                      entities: Sequence[Any]) -> bool:
    """Whether ``input`` is byte for byte what bunzai's own writer for ``format`` makes of
    ``entities``: then bunzai may have written it, and no sign in it tells another app saved
    it last.  Fresh copies are written, so nothing of the file as read is reused; a file too
    large to hold, or a format bunzai cannot write, is not compared."""
    if input.streamed or not entities:
        return False
    handle = registry.adapters.get(format)
    if handle is None or not handle.info.can_write:
        return False
    try:
        written = registry.write([e.model_copy(deep=True) for e in entities], format)
    except Exception:  # a write that fails says nothing about who wrote the file
        return False
    return len(written.files) == 1 and bytes(written.files[0].data) == input.data

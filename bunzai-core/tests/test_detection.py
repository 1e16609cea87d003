"""The registry pass: threshold, winner, unrecognized, ambiguous, faults."""

from __future__ import annotations

import math
from typing import Any

import pytest

from bunzai.errors import AmbiguousInput, UnrecognizedInput
from bunzai.host.adapter import FormatAdapter
from bunzai.host.detection import DETECT_THRESHOLD
from bunzai.host.registry import Registry
from bunzai.host.types import Detection
from bunzai.io.input import AdapterInput


def make(fid: str, score: Any, kind: str = "character") -> FormatAdapter:
    """A test adapter answering ``score`` (a value, or an exception to raise)."""

    class _A(FormatAdapter):
        format_id = fid

        def detect(self, input: AdapterInput) -> Any:
            if isinstance(score, BaseException):
                raise score
            return score

    _A.kind = kind  # type: ignore[misc]
    return _A()


def reg(*adapters: FormatAdapter) -> Registry:
    return Registry.load(autoload=False, defaults=False,
                         extra=[(a.format_id, a) for a in adapters])


INPUT = AdapterInput(b'{"x": 1}', "x.json")


def test_threshold_is_inclusive() -> None:
    assert DETECT_THRESHOLD == 0.5
    rep = reg(make("a", 0.5)).detect(INPUT)
    assert rep.winner is not None and rep.winner.format == "a"


def test_just_below_threshold_is_unrecognized() -> None:
    rep = reg(make("a", 0.49)).detect(INPUT)
    assert rep.winner is None and rep.status == "unrecognized"
    assert [c.format for c in rep.candidates] == ["a"]  # still shown as a candidate
    with pytest.raises(UnrecognizedInput, match="unrecognized"):
        rep.raise_for_status("x.json")


def test_highest_wins_whatever_the_registration_order() -> None:
    for order in (("lo", "hi"), ("hi", "lo")):
        scores = {"lo": 0.9, "hi": 1.0}
        rep = reg(*(make(f, scores[f]) for f in order)).detect(INPUT)
        assert rep.winner is not None and rep.winner.format == "hi"
        assert [c.format for c in rep.candidates] == ["hi", "lo"]


def test_zero_scores_are_dropped() -> None:
    rep = reg(make("a", 0), make("b", 0.7)).detect(INPUT)
    assert [c.format for c in rep.candidates] == ["b"]


def test_tie_at_the_top_is_ambiguous_not_order_dependent() -> None:
    rep = reg(make("a", 0.9), make("b", 0.9), make("c", 0.6)).detect(INPUT)
    assert rep.winner is None and rep.status == "ambiguous"
    assert rep.tied == ["a", "b"]
    with pytest.raises(AmbiguousInput, match="--from") as info:
        rep.raise_for_status()
    assert info.value.formats == ["a", "b"]
    assert info.value.exit_code == 3


def test_tie_below_threshold_is_just_unrecognized() -> None:
    rep = reg(make("a", 0.3), make("b", 0.3)).detect(INPUT)
    assert rep.status == "unrecognized" and rep.tied == []


@pytest.mark.parametrize("bad", [
    RuntimeError("boom"), KeyError("data"), float("nan"), 1.5, -0.1, "0.9", True, [0.9],
    math.inf,
])
def test_misbehaving_detector_is_a_fault_not_a_crash(bad: Any) -> None:
    rep = reg(make("bad", bad), make("good", 0.9)).detect(INPUT)
    assert rep.winner is not None and rep.winner.format == "good"
    assert [f.format for f in rep.faults] == ["bad"]
    assert rep.faults[0].message


def test_detection_object_and_tuple_carry_a_reason() -> None:
    rep = reg(make("a", Detection(0.8, "has chara chunk")), make("b", (0.6, "json"))
              ).detect(INPUT)
    assert [(c.format, c.reason) for c in rep.candidates] == [
        ("a", "has chara chunk"), ("b", "json")]


def test_report_json_has_the_documented_keys() -> None:
    d = reg(make("a", 0.9)).detect(INPUT).to_dict()
    assert {"container", "format", "kind", "confidence", "candidates"} <= set(d)
    assert d["candidates"] == [{"format": "a", "kind": "character", "score": 0.9,
                                "reason": ""}]


def test_one_adapter_cannot_change_what_the_next_sees() -> None:
    seen: list[Any] = []

    class Vandal(FormatAdapter):
        format_id = "vandal"
        kind = "character"

        def detect(self, input: AdapterInput) -> float:
            data = input.json
            with pytest.raises(TypeError):
                data["x"] = 2  # type: ignore[index]
            return 0.0

    class Witness(FormatAdapter):
        format_id = "witness"
        kind = "character"

        def detect(self, input: AdapterInput) -> float:
            seen.append(input.json["x"])
            return 0.0

    inp = AdapterInput(b'{"x": 1}', "x.json")
    reg(Vandal(), Witness()).detect(inp)
    assert seen == [1]


def test_the_container_is_parsed_once_for_all_adapters() -> None:
    calls = {"n": 0}
    import bunzai.io.jsonio as jsonio
    real = jsonio.loads

    def counting(*a: Any, **k: Any) -> Any:
        calls["n"] += 1
        return real(*a, **k)

    jsonio.loads = counting
    try:
        adapters = []
        for i in range(5):
            class _J(FormatAdapter):
                format_id = f"j{i}"
                kind = "character"

                def detect(self, input: AdapterInput) -> float:
                    return 0.0 if input.json is None else 0.1
            adapters.append(_J())
        reg(*adapters).detect(AdapterInput(b'{"x": 1}', "x.json"))
    finally:
        jsonio.loads = real
    assert calls["n"] == 1

"""The conformance kit: the checks every bunzai format adapter must pass, as one base class.

A format author subclasses :class:`AdapterConformance` in their own tests, names the format and
points at sample files; the standard checks then run against the *installed* adapter, among every
other installed adapter, exactly as users will meet it::

    # tests/test_conformance.py
    from pathlib import Path

    from bunzai.testing.kit import AdapterConformance

    pytest_plugins = ["bunzai.testing.plugin"]

    class TestMyFormat(AdapterConformance):
        format_id = "my-format"
        samples = sorted((Path(__file__).parent / "samples").glob("*.json"))

Checks are never removed silently: overriding one without ``@waive("reason")`` or
``@pytest.mark.xfail(reason=...)`` fails the guard,
:meth:`AdapterConformance.test_standard_checks_are_not_removed`.
Every failure message ends with a "How to fix" paragraph.  See ``docs/writing-a-format.md``.
"""

from __future__ import annotations

import inspect
from typing import Any

from .base import (
    CUTS,
    STANDARD_CHECKS,
    WAIVER_ATTR,
    ForeignCase,
    Subject,
    explain,
    session_registry,
    waive,
)
from .checks_declared import DeclarationChecks, reason_pattern_problem
from .checks_detection import DetectionChecks
from .checks_robustness import RobustnessChecks
from .checks_roundtrip import RoundTripChecks
from .compare_files import rewrite_problems


class AdapterConformance(DeclarationChecks, DetectionChecks, RoundTripChecks, RobustnessChecks):
    """Subclass as ``Test<YourFormat>`` and set the class attributes (:class:`.base.KitBase`).

    Required: ``format_id`` and ``samples``.  Everything else is optional.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        guard = AdapterConformance.__dict__["test_standard_checks_are_not_removed"]
        if cls.__dict__.get("test_standard_checks_are_not_removed", guard) is not guard:
            raise TypeError(f"{cls.__name__} overrides the conformance guard; waive individual "
                            "checks with @waive(reason) instead")

    def test_standard_checks_are_not_removed(self) -> None:
        """No standard check was deleted, disabled, or overridden without a stated reason.

        Troubleshooting: to skip a check that does not apply, override it with ``@waive("why")``
        (``from bunzai.testing.kit import waive``); for a known failure you will fix, mark the
        override ``@pytest.mark.xfail(reason="why")`` and call ``super()``.  Add your own checks
        as new methods instead of replacing standard ones.
        """
        cls = type(self)
        problems = []
        for name in STANDARD_CHECKS:
            base = inspect.getattr_static(AdapterConformance, name)
            current = inspect.getattr_static(cls, name, None)
            if current is base:
                continue
            if not callable(current):
                problems.append(f"{name} was removed (set to {current!r})")
                continue
            reason = getattr(current, WAIVER_ATTR, None)
            marks = getattr(current, "pytestmark", [])
            xfail = any(m.name == "xfail" and (m.kwargs.get("reason") or "").strip()
                        for m in marks)
            if not (reason or xfail):
                problems.append(f"{name} is overridden without @waive(reason) or "
                                "@pytest.mark.xfail(reason=...)")
        assert not problems, explain(
            f"{cls.__name__} silently changes standard checks:\n  " + "\n  ".join(problems),
            "restore the inherited method, or decorate the override with @waive(\"why it does "
            "not apply\") or @pytest.mark.xfail(reason=\"why it fails for now\").")


__all__ = ["CUTS", "STANDARD_CHECKS", "AdapterConformance", "ForeignCase", "Subject", "explain",
           "reason_pattern_problem", "rewrite_problems", "session_registry", "waive"]

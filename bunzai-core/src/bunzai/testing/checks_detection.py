"""The detection checks: own samples found and routed here, nothing foreign claimed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..io.input import as_input
from ..kinds import KINDS

if TYPE_CHECKING:
    pass
from .base import (
    ForeignCase,
    KitBase,
    Subject,
    _declared_classes,
    _exc_line,
    _paths,
    _raw_detect,
    _scores,
    _written_example,
    explain,
    fail,
)


class DetectionChecks(KitBase):
    """The detection checks: own samples found and routed here, nothing foreign claimed."""

    def test_detect_scores_own_sample(self, bunzai_subject: Subject, sample: Path) -> None:
        """The detector answers a number in 0..1, and at least 0.5 on every own sample.

        Troubleshooting: return ``Detection(score, reason)``; 0.5 is the lowest score that can
        win.  Use the shared views (``input.json``, ``input.png_json(keyword)``, ``input.zip``)
        rather than parsing bytes yourself, and never raise: return 0 for what is not yours.
        """
        subject = bunzai_subject
        try:
            score, reason = _raw_detect(subject.handle, as_input(sample))
        except Exception as exc:
            fail(f"{subject.id}.detect failed on {sample.name}: "
                 f"{_exc_line(exc)}",
                 "detect() must never raise and must return a number in 0..1 "
                 "(or Detection(score, reason)); return 0 when unsure.")
        assert score >= 0.5, explain(
            f"{subject.id} scores {score:g} on its own sample {sample.name} ({reason!r})",
            "recognise this variant of your format with a score of 0.5 or more; if the file "
            "is not really your format, remove it from samples.")

    def test_own_sample_score_is_documented(self, bunzai_subject: Subject, sample: Path
                                            ) -> None:
        """Every score the detector gives an own sample appears in its ``detection`` table.

        Troubleshooting: the table feeds ``docs/formats/<id>.md`` and the roster; add a row
        ``("<the situation>", <score>)`` for this case, or return a documented score.
        """
        subject = bunzai_subject
        score, reason = _raw_detect(subject.handle, as_input(sample))
        documented = [s for _, s in subject.info.detection]
        assert any(abs(score - s) < 1e-9 for s in documented), explain(
            f"{subject.id} scores {score:g} on {sample.name} ({reason!r}) but documents only "
            f"{sorted(set(documented))}",
            "add a (situation, score) row for it to the adapter's `detection` attribute.")

    def test_own_sample_routes_here(self, bunzai_subject: Subject, sample: Path) -> None:
        """Among all installed adapters, detection picks this adapter for each own sample.

        Troubleshooting: when another adapter wins, your score is too low for this variant or
        theirs too high; when it is a tie, spread the scores (specific outranks generic: see
        ``docs/detection.md``).  Never pick a score another adapter already uses on this shape.
        """
        subject = bunzai_subject
        report = subject.registry.detect(as_input(sample))
        if report.winner is not None and report.winner.format == subject.id:
            return
        if report.tied:
            what = f"{sample.name} is ambiguous: {', '.join(report.tied)} tie"
        elif report.winner is not None:
            what = f"{sample.name} routes to {report.winner.format}, not {subject.id}"
        else:
            what = f"nothing recognises {sample.name}"
        fail(f"{what} (scores: {_scores(report)})",
             "make your score on this shape distinct and higher than every other "
             "installed adapter's; if the other adapter steals it, tell its "
             "authors which key marks your format.")

    def test_foreign_input_is_not_claimed(self, bunzai_subject: Subject,
                                          foreign: ForeignCase,
                                          request: pytest.FixtureRequest) -> None:
        """Files that are not this format's are never won by it (the firewall, for your detector).

        Covers the files in ``foreign_samples`` (grouped by owner when there are many),
        canonical examples of every kind written by core's ``vaud-json``, and the same examples
        written by every other installed adapter.

        Troubleshooting: answer 0 on other kinds' files and stay below the owner's score on
        same-kind files; look for the key that makes your format yours, not one it shares.
        """
        subject = bunzai_subject
        if foreign.paths:
            items = [(p.read_bytes(), p.name, f"{foreign.label} {p.name}" if len(foreign.paths)
                      > 1 else foreign.label) for p in foreign.paths]
        else:
            data, name = _written_example(request.config, subject.registry, foreign)
            items = [(data, name, foreign.label)]
        problems = [p for data, name, label in items
                    if (p := self._claim(subject, foreign, data, name, label)) is not None]
        assert not problems, explain(
            "\n".join(problems[:10]),
            "find the key or shape that makes a file yours and require it; answer 0 on other "
            "kinds and stay below the owner on shared shapes.  If two formats truly share a "
            "file shape, say so in may_win = {\"other-format\": \"why\"}.")

    def _claim(self, subject: Subject, case: ForeignCase, data: bytes, name: str,
               label: str) -> str | None:
        """Why this adapter wrongly claims one foreign input, or None."""
        inp = as_input(data, name)
        try:
            score, reason = _raw_detect(subject.handle, inp)
        except Exception as exc:
            return f"{subject.id}.detect failed on {label}: {_exc_line(exc)}"
        report = subject.registry.detect(inp)
        if subject.info.kind in KINDS and case.kind not in (None, subject.info.kind) \
                and score >= 0.5:
            return (f"{subject.id} ({subject.info.kind}) scores {score:g} ({reason!r}) on "
                    f"{label}, a {case.kind} file: it would steal it whenever the owner is not "
                    f"installed (scores: {_scores(report)})")
        if subject.id in report.tied:
            return f"{subject.id} ties with {report.tied} on {label} ({_scores(report)})"
        if report.winner is not None and report.winner.format == subject.id \
                and case.owner not in self.may_win:
            return (f"{subject.id} wins {label}, which belongs to "
                    f"{case.owner or 'another format or none'} (scores: {_scores(report)})")
        return None

    def test_other_conformance_samples_are_not_claimed(self, bunzai_subject: Subject,
                                                       request: pytest.FixtureRequest) -> None:
        """Samples declared by every other conformance class in this test session are not won.

        Running several distributions' conformance tests together (as bunzai's own repository
        does) turns every declared sample into a foreign sample for every other adapter.

        Troubleshooting: see test_foreign_input_is_not_claimed; the message names the class
        that declared the file.
        """
        subject = bunzai_subject
        own = {p.resolve() for p in subject.samples}
        problems = []
        judged = 0
        for other in _declared_classes(request.config):
            if other.format_id in (subject.id, "") or other.format_id not in \
                    subject.registry.adapters:
                continue
            for path in _paths(other.samples):
                if path.resolve() in own or not path.is_file():
                    continue
                judged += 1
                report = subject.registry.detect(as_input(path))
                if subject.id in report.tied or (report.winner is not None
                                                 and report.winner.format == subject.id
                                                 and other.format_id not in self.may_win):
                    problems.append(f"{path.name} (declared by {other.__name__} for "
                                    f"{other.format_id}; scores: {_scores(report)})")
        if not judged:
            pytest.skip("no other conformance class with an installed adapter in this session")
        assert not problems, explain(
            f"{subject.id} wins files other adapters declare as theirs:\n  "
            + "\n  ".join(problems[:10]),
            "require the key that makes a file yours; see docs/detection.md.")

    def test_written_files_route_back(self, bunzai_subject: Subject, sample: Path) -> None:
        """What the writer produces is detected as this format again.

        Troubleshooting: a file bunzai writes but cannot recognise makes users pass ``--from``;
        write the marker your detector looks for, or widen the detector to your own output.
        """
        subject = bunzai_subject
        result = self._write(subject, self._read(subject, sample))
        for f in result.files:
            report = subject.registry.detect(as_input(f.data, f"written{f.suffix}"))
            got = report.winner.format if report.winner else None
            assert got == subject.id, explain(
                f"{subject.id} wrote {f.name or 'a file'} ({f.suffix}) from {sample.name} that "
                f"routes to {got or 'nothing'} (scores: {_scores(report)})",
                "make the writer emit what the detector requires (or relax the detector to "
                "accept your own output).")

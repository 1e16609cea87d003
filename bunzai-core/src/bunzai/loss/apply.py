"""The loss rule applied to one write: what the target does not carry, what only the source's app
acts on, and, under verification, what reading the output back shows.

A writer reports only what it keeps but changes; this completes its report for every format
alike (see :mod:`.rule`).  It knows nothing of plugins: the caller says which format wrote
(its id and reasons), what every installed format declares (neutral values, text only some
apps act on, labels), and how to read an output back.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING, Any

from ..errors import BunzaiError
from ..io.input import AdapterInput
from .rule import reason_for, report_changes, unheld, values_at

if TYPE_CHECKING:
    from ..io.outputs import OutputFile
    from .neutral import Neutrality
    from .report import LossReport
    from .rule import Carried

ActedOn = tuple[str, Callable[[Any], bool], str, frozenset[str]]
"""(pattern, test, what other apps do with the text, the formats whose app acts on it)."""


@dataclass(frozen=True, slots=True)
class Target:
    """What the loss rule needs to know of the format that wrote."""

    id: str
    reasons: Sequence[tuple[str, str]]
    neutral: Neutrality
    acted_on: Sequence[ActedOn] = ()
    labels: Mapping[str, str] | None = None
    """Format id -> label, to say whose app data a dropped item was."""
    read_back_check: Callable[[Any, Any, LossReport], str | None] | None = None
    """A check of each entity against what its output reads back as, beyond its fields (a
    preset's prompt); what it returns is a warning."""
    runs_differently: Callable[[Any], Sequence[tuple[str, str]]] | None = None
    """(path, why) of active content the target keeps but its app runs differently from the
    source's (see :mod:`bunzai.active`): stashed."""


@dataclass(frozen=True, slots=True)
class Written:
    """One call of the writer: the entities it was given, the files it made, what it carried
    (None: nothing declared), and the prefix of its paths in the whole report (``[2].``)."""

    prefix: str
    entities: Sequence[Any]
    files: Sequence[OutputFile]
    carried: Carried | None


@dataclass
class Verification:
    """What reading the output back found: the paths it saw changed that the report did not
    name yet (they are in it now), and any other problem (an output that does not read back,
    a preset whose prompt comes out different)."""

    asked: bool
    """``--verify`` asked for it (else the format declares nothing it carries: always read
    back)."""
    found: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: str | None = None
    """Why nothing was read back (a format that keeps every value as read)."""

    def summary(self) -> str:
        """One line for people: that it ran, and what it found."""
        if self.skipped:
            return f"verify: nothing to read back: {self.skipped}"
        if not (self.found or self.problems):
            return "verified: the output reads back as the loss report says"
        said = list(self.problems)
        if self.found:
            shown = ", ".join(self.found[:5]) + (f" and {len(self.found) - 5} more"
                                                  if len(self.found) > 5 else "")
            said.insert(0, f"{len(self.found)} change(s) the report did not name, now in it: "
                           f"{shown}")
        return "verified: reading the output back found " + "; ".join(said)

    def to_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "ok": not self.problems, "read_back": not self.skipped,
                "found": self.found, "problems": self.problems, "summary": self.summary()}


def complete(target: Target, written: Sequence[Written], loss: LossReport,
             warnings: list[str], *, verify: bool,
             read_back: Callable[[AdapterInput], Sequence[Any]]) -> Verification | None:
    """Add to ``loss`` every path of user data the target did not carry, and text only another
    app acts on; with ``verify`` (always when a write declared nothing it carries), read each
    output back with ``read_back``, add what changed and say what it found."""
    default = f"{target.id} has no place for it"
    for w in written:
        for j, entity in enumerate(w.entities):
            p = w.prefix or (f"[{j}]." if len(w.entities) > 1 else "")
            if w.carried is not None:
                for path in unheld(entity, w.carried, target.neutral, own=target.id):
                    if not loss.covers(p + path, stashed=True, items=False):
                        loss.dropped(p + path, _reason(target, path, default))
            _stash_acted_on(target, entity, p, loss)
            if target.runs_differently is not None:
                for path, why in target.runs_differently(entity):
                    if not loss.covers(p + path, stashed=True):
                        loss.stashed(p + path, why)
    if not (verify or any(w.carried is None for w in written)):
        return None
    checked = Verification(asked=verify)
    for w in written:
        _verify(target, w, loss, warnings, read_back, checked)
    return checked


def _verify(target: Target, w: Written, loss: LossReport, warnings: list[str],
            read_back: Callable[[AdapterInput], Sequence[Any]], checked: Verification) -> None:
    with TemporaryDirectory(prefix="bunzai-verify-") as spool:
        back: list[Any] = []
        try:
            for n, f in enumerate(w.files):
                back.extend(read_back(_as_input(f, spool, n)))
        except BunzaiError as exc:
            problem = f"the output could not be read back to check it: {exc.message}"
            warnings.append(problem)
            checked.problems.append(problem)
            return
        if len(back) != len(w.entities):
            problem = f"wrote {len(w.entities)} entities but read back {len(back)}"
            warnings.append(problem)
            checked.problems.append(problem)
            return
        for j, (before, after) in enumerate(zip(w.entities, back, strict=True)):
            p = w.prefix or (f"[{j}]." if len(w.entities) > 1 else "")
            found = report_changes(before, after, target.neutral, loss, target.reasons,
                                   (f"{target.id} did not keep it",
                                    f"{target.id} wrote it differently"), prefix=p)
            checked.found += found
            if w.carried is not None:
                warnings += [f"{path}: changed when written as {target.id}, found only by "
                             "reading the output back" for path in found]
            if target.read_back_check is not None:
                odd = target.read_back_check(before, after, loss)
                if odd:
                    warnings.append(odd)
                    checked.problems.append(odd)


def _stash_acted_on(target: Target, entity: Any, prefix: str, loss: LossReport) -> None:
    """Text only the source's app acts on (``FormatInfo.acts_on``), kept by a target whose app
    does not: stashed, with what other apps do with it."""
    for pattern, test, effect, owners in target.acted_on:
        if target.id in owners or not any(o in entity.passthrough for o in owners):
            continue
        for path, value in values_at(entity, pattern):
            if test(value) and not loss.covers(prefix + path, stashed=True):
                loss.stashed(prefix + path, effect)


def _reason(target: Target, path: str, default: str) -> str:
    if path.startswith("app_data.") or ".app_data." in path:
        owner = path.split("app_data.", 1)[1].split(".", 1)[0]
        label = (target.labels or {}).get(owner, owner)
        default = f"kept only for {label}; {target.id} has no place for it"
    return reason_for(path, target.reasons, default)


def _as_input(f: OutputFile, spool: str, n: int) -> AdapterInput:
    """An output as an input to read back: its bytes, or for an output produced piece by piece
    (a large chat) a file in ``spool`` read as any large file is, so verifying a conversion
    never holds the whole output."""
    if not f.streamed:
        return AdapterInput(f.data, f"out{f.suffix}")
    path = os.path.join(spool, f"{n}{f.suffix}")
    with open(path, "wb") as fh:
        for part in f.parts:
            fh.write(part)
    return AdapterInput.from_path(path)

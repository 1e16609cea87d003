"""The round-trip checks: same-format rewrites keep the file, loss reports are honest both
ways."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import BunzaiError
from ..io.input import as_input
from . import conversion_problems, diff_paths
from .generated import vaud_json_bytes

if TYPE_CHECKING:
    pass
from .base import (
    KitBase,
    Subject,
    explain,
    fail,
)
from .compare_files import rewrite_problems


class RoundTripChecks(KitBase):
    """The round-trip checks: same-format rewrites keep the file, loss reports are honest both
ways."""

    def test_same_format_round_trip_is_lossless(self, bunzai_subject: Subject,
                                                sample: Path) -> None:
        """Reading an own sample, writing it as this format and reading it back changes nothing.

        Troubleshooting: put whatever your reader sees but the canonical model does not name
        (unknown keys, absent keys, original types, key order) in
        ``entity.passthrough[format_id]`` and restore it in the writer; report nothing as lost.
        """
        subject = bunzai_subject
        before = self._read(subject, sample)
        result = self._write(subject, before)
        fix = ("keep what the reader saw but the model does not name in "
               "entity.passthrough[format_id] (and entry.passthrough) and restore it in the "
               "writer; a same-format round trip reports no loss.")
        assert not result.loss, explain(
            f"{subject.id} reports loss writing its own {sample.name}: "
            f"{[str(e) for e in result.loss][:8]}", fix)
        after: list[Any] = []
        for f in result.files:
            after.extend(self._read(subject, f.data, f"roundtrip{f.suffix}"))
        assert len(after) == len(before), explain(
            f"{sample.name}: read {len(before)} entities, wrote and read back {len(after)}", fix)
        from ..loss.rule import changes

        diffs: list[str] = []
        for i, (a, b) in enumerate(zip(before, after, strict=True)):
            prefix = f"[{i}]." if len(before) > 1 else ""
            # user data and app data; layout may change where the writer completed a spec
            diffs += [prefix + p for p in changes(a, b, subject.registry.neutrality)]
        assert not diffs, explain(
            f"{sample.name} changed in a same-format round trip at {diffs[:12]}", fix)

    def test_same_format_round_trip_keeps_the_file(self, bunzai_subject: Subject,
                                                   sample: Path) -> None:
        """The rewritten file is the original byte for byte, unless the writer added keys the
        file lacked (``completed_keys``); then JSON equal but for those (key order aside), PNG
        chunks other than text byte-identical, zip members identical.

        Troubleshooting: restore absent keys, original number types and root extras from
        passthrough; never re-encode images or assets, splice new text chunks into the original
        PNG (``bunzai.io.containers.png.splice``) and copy zip members as they were.
        """
        subject = bunzai_subject
        original = as_input(sample)
        result = self._write(subject, self._read(subject, sample))
        if len(result.files) != 1:
            pytest.skip(f"the writer produced {len(result.files)} files from one sample")
        written = as_input(result.files[0].data, f"roundtrip{result.files[0].suffix}")
        problems = rewrite_problems(original, written, tuple(type(self).completed_keys))
        assert not problems, explain(
            f"rewriting {sample.name} as {subject.id} changed the file: {problems[:10]}",
            "keep the source's shape in passthrough[format_id] and rebuild exactly that shape; "
            "splice PNG text chunks and pass the entities to write_zip(like=...) instead of "
            "re-encoding them.")

    def test_passthrough_is_layout_only(self, bunzai_subject: Subject, sample: Path) -> None:
        """An own sample with its layout (every ``passthrough``) thrown away still writes and
        reads back with all its user data: passthrough holds how the file looked, never what
        it said.

        Troubleshooting: unknown keys and app-specific values are user data: keep them in
        ``app_data[format_id]`` (``bunzai.sdk.fields`` puts a table's unknown keys there), so
        another format that cannot hold them reports each by path.  Keep only key order,
        absent keys, original types and container layout in ``passthrough[format_id]``.
        """
        from ..loss.rule import changes, without_layout

        subject = bunzai_subject
        before = self._read(subject, sample)
        bare = [without_layout(e) for e in before]
        result = self._write(subject, bare)
        after: list[Any] = []
        for f in result.files:
            after.extend(self._read(subject, f.data, f"bare{f.suffix}"))
        assert len(after) == len(before), explain(
            f"{sample.name}: read {len(before)} entities, wrote them without layout and read "
            f"back {len(after)}", "the writer must not depend on passthrough to write an entity.")
        lost: list[str] = []
        for i, (a, b) in enumerate(zip(before, after, strict=True)):
            prefix = f"[{i}]." if len(before) > 1 else ""
            lost += [prefix + p for p in changes(a, b, subject.registry.neutrality)]
        reported = [str(e) for e in result.loss if e.action != "stashed"]
        assert not lost and not reported, explain(
            f"{sample.name} written without its passthrough lost {lost[:12]} "
            f"(reported: {reported[:6]})",
            "move user data out of passthrough[format_id] into app_data[format_id]; "
            "passthrough is for layout only.")

    def test_loss_report_is_honest_into_vaud_json(self, bunzai_subject: Subject,
                                                  sample: Path) -> None:
        """An own sample converted to bunzai's native JSON and back loses nothing at all.

        Troubleshooting: vaud-json carries every canonical field and all passthrough; a
        difference here means the entity does not survive JSON serialization (bytes outside
        ``Asset.data``, non-JSON values in passthrough or extensions, NaN floats).
        """
        subject = bunzai_subject
        before = self._read(subject, sample)
        problems = conversion_problems(subject.registry, before, "vaud-json")
        out = subject.registry.write(before, "vaud-json")
        back = []
        for f in out.files:
            _, res, _ = subject.registry.read(as_input(f.data, "x.vaud.json"),
                                              format="vaud-json")
            back.extend(res.entities)
        for a, b in zip(before, back, strict=False):
            problems += [f"passthrough: {p}" for p in diff_paths(a.passthrough, b.passthrough)]
        assert not problems and not out.loss, explain(
            f"{sample.name} -> vaud-json -> back changed: {problems[:10]} "
            f"{[str(e) for e in out.loss][:5]}",
            "store only JSON values (str, int, float, bool, None, lists, dicts) in passthrough "
            "and extensions; binary data belongs in Asset.data.")

    def test_loss_report_is_honest_from_vaud_json(self, bunzai_subject: Subject,
                                                  example: tuple[str, Any]) -> None:
        """A canonical entity written in this format and read back differs only where the loss
        report says so (and other formats' passthrough never leaks into the file).

        Troubleshooting: for every canonical field your format cannot hold, call
        ``loss.dropped("entries[3].sticky", "why")`` (or ``approximated``) in the writer; paths
        are canonical field paths and an ancestor covers its children.
        """
        subject = bunzai_subject
        kind, which = example
        if kind == "declared":
            entities = [type(self).canonical_samples[which]]
        else:
            data = vaud_json_bytes(kind, which)
            _, res, _ = subject.registry.read(as_input(data, "example.vaud.json"))
            entities = list(res.entities)
        if not subject.info.can_write:
            pytest.skip(f"{subject.id} declares no writer (can_write is false)")
        if not subject.info.multi and len(entities) > 1:
            entities = entities[:1]
        try:
            problems = conversion_problems(subject.registry, entities, subject.id,
                                           dict(self.write_options))
        except BunzaiError as exc:
            fail(f"writing the generated {kind} ({which}) as {subject.id} "
                 f"failed: {exc}",
                 "a writer must accept any canonical entity of its kind and "
                 "report what it cannot hold in the loss report.")
        assert not problems, explain(
            f"converting the generated {kind} ({which}) into {subject.id} changed fields the "
            "loss report does not mention:\n  " + "\n  ".join(problems[:15]),
            "report each field your format cannot carry with loss.dropped(path, why) or "
            "loss.approximated(path, why), using canonical paths such as entries[0].sticky.")

"""The robustness checks: cut, mistyped and malformed input raise bunzai errors only."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import BunzaiError
from ..io.input import as_input
from ..kinds import ANY_KIND

if TYPE_CHECKING:
    from ..io.input import AdapterInput
from .base import (
    KitBase,
    Subject,
    _exc_line,
    _raw_detect,
    _raw_read,
    explain,
    fail,
)


class RobustnessChecks(KitBase):
    """The robustness checks: cut, mistyped and malformed input raise bunzai errors only."""

    def test_truncated_input_raises_bunzai_errors_only(self, bunzai_subject: Subject,
                                                       probe: Path, cut: str) -> None:
        """A cut-off copy of an own sample is refused with a BunzaiError (or read tolerantly),
        never with a KeyError, TypeError, struct.error or similar.

        Troubleshooting: raise ``bunzai.errors.MalformedInput("what is wrong")`` where the
        reader finds missing or broken data; the CLI then prints one clean line (exit 4).
        """
        subject = bunzai_subject
        data = probe.read_bytes()
        n = {"0": 0, "1": 1, "25%": len(data) // 4, "50%": len(data) // 2,
             "75%": len(data) * 3 // 4, "-1": len(data) - 1}[cut]
        failure = _probe(subject, data[:max(n, 0)], probe.name, self.read_options)
        assert failure is None, explain(
            f"{probe.name} cut to {n} of {len(data)} bytes: {failure}",
            "check what you index and unpack; raise MalformedInput with a one-line reason "
            "instead of letting the exception escape.")

    def test_wrong_json_types_raise_bunzai_errors_only(self, bunzai_subject: Subject,
                                                       probe: Path) -> None:
        """Own samples with JSON values swapped for the wrong type (null, number, string, list,
        object) are refused with a BunzaiError or read tolerantly; detection never raises.

        Applies to JSON files and to JSON stored in PNG text chunks.

        Troubleshooting: check types before use (``isinstance(x, str)``; for the read-only
        views use ``Mapping``/``Sequence``) and raise
        ``MalformedInput("$.data.name: expected a string, got a number")`` or keep the value
        with a warning.
        """
        subject = bunzai_subject
        data = probe.read_bytes()
        budget = self.type_mutations if len(data) <= 256 * 1024 else 12
        variants = list(_type_mutations(as_input(probe), budget))
        if not variants:
            pytest.skip(f"{probe.name} holds no JSON this check can mutate (zip members and "
                        "binary formats: list broken files in malformed_samples)")
        failures = []
        for label, mutated in variants:
            failure = _probe(subject, mutated, probe.name, self.read_options)
            if failure is not None:
                failures.append(f"{label}: {failure}")
        assert not failures, explain(
            f"{len(failures)} of {len(variants)} wrong-type variants of {probe.name} "
            "escaped as non-bunzai errors:\n  " + "\n  ".join(failures[:10]),
            "check JSON types where you read them and raise MalformedInput (naming the JSON "
            "path) or read tolerantly with a warning.")

    def test_malformed_samples_are_refused(self, bunzai_subject: Subject,
                                           malformed: Path | None) -> None:
        """Each file in ``malformed_samples`` is refused with a BunzaiError when read as this
        format, and detection does not crash on it.

        Troubleshooting: reading a broken file must raise ``MalformedInput`` (or a subclass)
        with a message that names the problem; never return a half-empty entity silently.
        """
        if malformed is None:
            pytest.skip("no malformed_samples declared (optional: list broken files of your "
                        "format to pin down their error messages)")
        subject = bunzai_subject
        inp = as_input(malformed)
        try:
            _raw_detect(subject.handle, inp)
        except Exception as exc:
            fail(f"detect failed on {malformed.name}: {_exc_line(exc)}",
                 "detect() must never raise.")
        try:
            _raw_read(subject.handle, inp, self.read_options)
        except BunzaiError:
            return
        except Exception as exc:
            fail(f"reading {malformed.name} raised {_exc_line(exc)}",
                 "raise MalformedInput with a one-line reason.")
        fail(f"{subject.id} read the malformed sample {malformed.name} without "
             "complaint",
             "raise MalformedInput for it, or move it to samples if it is "
             "actually valid.")


# -- probing malformed input ---------------------------------------------------------------------


def _probe(subject: Subject, data: bytes, name: str, options: Mapping[str, Any]) -> str | None:
    """Detect and read ``data`` as the subject; describe any non-bunzai exception, else None."""
    try:
        inp = as_input(data, name)
    except BunzaiError:
        return None
    try:
        _raw_detect(subject.handle, inp)
    except Exception as exc:
        return f"detect raised {_exc_line(exc)}"
    try:
        result = _raw_read(subject.handle, inp, options)
    except BunzaiError:
        return None
    except Exception as exc:
        return f"read raised {_exc_line(exc)}"
    entities = list(result.entities)
    kinds = {getattr(e, "kind", None) for e in entities}
    if subject.handle.kind != ANY_KIND and kinds - {subject.handle.kind}:
        return f"read returned {sorted(map(str, kinds))} instead of {subject.handle.kind}"
    if entities and subject.info.can_write:
        try:
            subject.registry.write(entities, subject.id)
        except BunzaiError:
            pass
        except Exception as exc:
            return f"read tolerantly, but writing the result raised {_exc_line(exc)}"
    return None


_WRONG: dict[type, tuple[Any, ...]] = {
    str: (None, 7, [], {}),
    bool: ("true", None, {}),
    int: ("12", None, [], True),
    float: ("0.5", None, {}),
    list: (None, "a, b", {}, 3),
    dict: (None, "text", [], 3),
    type(None): ("text", 5, [], {}),
}


def _json_paths(doc: Any, limit: int) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, value) pairs breadth-first, first and last element of each list, to ``limit``."""
    out: list[tuple[tuple[Any, ...], Any]] = []
    queue: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while queue and len(out) < limit:
        path, value = queue.pop(0)
        if path:
            out.append((path, value))
        if len(path) >= 5:
            continue
        if isinstance(value, dict):
            queue.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list) and value:
            idx = sorted({0, len(value) - 1})
            queue.extend(((*path, i), value[i]) for i in idx)
    return out


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    import copy

    root = copy.deepcopy(doc)
    if not path:
        return value
    node = root
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return root


def _json_path_text(path: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _mutations_of(doc: Any, budget: int) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [("$ -> []", []), ("$ -> \"text\"", "text"), ("$ -> 3", 3)]
    if isinstance(doc, list):
        out[0] = ("$ -> {}", {})
    for path, value in _json_paths(doc, max(budget, 1)):
        for repl in _WRONG.get(type(value), ()):
            if len(out) >= budget:
                return out
            out.append((f"{_json_path_text(path)} -> {repl!r}", _replace(doc, path, repl)))
    return out


def _jsonl_mutations(inp: AdapterInput, budget: int) -> Iterable[tuple[str, bytes]]:
    """JSON Lines copies with one value of one line (the first two and the last) mistyped."""
    from ..io.jsonio import dumps, loads

    lines = list(inp.lines())
    numbered = [i for i, line in enumerate(lines) if line.strip()]
    picked = sorted({*numbered[:2], *numbered[-1:]})
    for i in picked:
        ending = lines[i][len(lines[i].rstrip(b"\r\n")):]
        try:
            doc = loads(lines[i].rstrip(b"\r\n"))
        except BunzaiError:
            continue
        for label, mutated in _mutations_of(doc, max(budget // max(len(picked), 1), 4)):
            copy = list(lines)
            copy[i] = dumps(mutated) + ending
            yield f"line {i + 1}: {label}", b"".join(copy)


def _type_mutations(inp: AdapterInput, budget: int) -> Iterable[tuple[str, bytes]]:
    """Copies of the input with one JSON value of the wrong type, in JSON or PNG text chunks."""
    from ..io.frozen import thaw
    from ..io.jsonio import dumps

    if inp.container == "json" and inp.json is not None:
        for label, doc in _mutations_of(thaw(inp.json), budget):
            yield label, dumps(doc)
        return
    if inp.container == "jsonl":
        yield from _jsonl_mutations(inp, budget)
        return
    png = inp.png
    if png is None:
        return
    from ..io.containers.png import make_text_chunk, splice

    payloads = []
    for tc in png.text_chunks():
        for payload in inp.png_json(tc.keyword):
            if payload.chunk.chunk.offset == tc.chunk.offset and payload.value is not None:
                payloads.append(payload)
    for payload in payloads:
        tc = payload.chunk
        for label, doc in _mutations_of(payload.mutable(), max(budget // len(payloads), 4)):
            body = dumps(doc)
            text = base64.b64encode(body) if payload.encoding == "base64" else body
            chunk = make_text_chunk(tc.keyword, text, kind=tc.kind)
            offset = tc.chunk.offset
            yield (f"{tc.keyword} chunk {label}",
                   splice(png, remove=lambda c, o=offset: c.offset == o,  # type: ignore[misc]
                          insert_before_iend=[chunk]))

"""Damaged files are never a silent success: each damage is refused with its reason, or read
with a warning and then written honestly.

The undamaged inputs are every readable shared corpus file, chat and sample, our own files of
the routes, and every writable format's output for the generated entities.  Each is damaged by
:func:`bunzai.testing.damage.file_damages` (lines cut, chunks cut, pictures cut, zips cut, zip
entries cut or left out, bytes flipped in text) and read as ``bunzai`` reads a file (detection
included).  Then one of these must hold:

- the read fails with a :class:`~bunzai.errors.BunzaiError` of exit code 3 or 4 that names the
  file;
- the read gives exactly what the undamaged file gives (the damage touched nothing bunzai
  reads);
- the read warns of something the undamaged file did not, and every writable format of its
  kind, written from it and read back, changes nothing its loss report does not name (what the
  damage cost was named on read; a write may carry it on or say what it drops).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai.engine.reading import read_file
from bunzai.errors import BunzaiError
from bunzai.host.registry import Registry
from bunzai.loss.rule import changes
from bunzai.testing import conversion_problems, load_registry, require_corpus
from bunzai.testing.damage import file_damages

from .routing import is_unreadable, routed_files, short_id

require_corpus()

BIGGEST = 8 * 1024 * 1024
"""Larger files are left out: their damages are those of the smaller ones, slower."""


@cache
def _registry() -> Registry:
    return load_registry()


@cache
def _generated() -> dict[str, bytes]:
    """Every writable format's output for the generated entities (our own files)."""
    from bunzai.kinds import KINDS
    from bunzai.testing.generated import canonical_examples

    reg, out = _registry(), {}
    for info in reg.formats():
        if not info.can_write:
            continue
        for kind in [info.kind] if info.kind in KINDS else KINDS:
            try:
                result = reg.write(canonical_examples(kind, "rich"), info.id)
            except BunzaiError:
                continue
            for n, f in enumerate(result.files):
                out[f"generated-{info.id}-{kind}-{n}{f.suffix}"] = f.data
    return out


def _sources() -> list[Any]:
    reg = _registry()
    params = [pytest.param(str(p), id=short_id(p)) for p, f in routed_files()
              if f is not None and not is_unreadable(p) and f in reg.adapters
              and p.stat().st_size <= BIGGEST]
    params += [pytest.param(name, id=name) for name in _generated()]
    return params


def _data(source: str) -> tuple[bytes, str]:
    generated = _generated()
    if source in generated:
        return generated[source], source
    path = Path(source)
    return path.read_bytes(), path.name


def _verdict(reg: Registry, original: Any, data: bytes, name: str) -> str | None:
    """What is wrong with how bunzai took this damaged file (None: nothing)."""
    found = read_file(data, filename=name, registry=reg)
    if found.error is not None:
        if found.error.exit_code not in (3, 4) or found.error.path != name:
            return (f"refused with exit {found.error.exit_code} naming {found.error.path!r}: "
                    f"{found.error.message}")
        return None
    same = (found.format == original.format and len(found.entities) == len(original.entities)
            and not any(changes(a, b, reg.neutrality)
                        for a, b in zip(original.entities, found.entities, strict=True)))
    if same:
        return None
    said = {w.message for w in found.warnings} - {w.message for w in original.warnings}
    if not said:
        what = (f"read as {found.format}" if found.format != original.format else
                [changes(a, b, reg.neutrality)[:4]
                 for a, b in zip(original.entities, found.entities, strict=True)])
        return f"read with no warning, changed: {what}"
    for target in [i.id for i in reg.formats(str(found.kind)) if i.can_write]:
        try:
            problems = conversion_problems(reg, found.entities, target)
        except BunzaiError:
            continue  # refused, with its reason
        silent = [p for p in problems if "does not say so" in p or "read back" in p]
        if silent:
            return f"written as {target}: {silent[:3]}"
    return None


@pytest.mark.parametrize("source", _sources())
def test_a_damaged_file_is_refused_or_named_never_silent(source: str) -> None:
    reg = _registry()
    data, name = _data(source)
    original = read_file(data, filename=name, registry=reg)
    assert original.ok, original.error
    damages = file_damages(data)
    assert damages, "the generator made no damage of this file"
    suffix = Path(name).suffix
    failures = []
    for damage in damages:
        verdict = _verdict(reg, original, damage.data, f"damaged{suffix}")
        if verdict is not None:
            failures.append(f"{damage.kind} ({damage.where}): {verdict}")
    assert not failures, "\n".join(failures)


def test_through_the_cli_a_damage_is_named_and_its_cost_reported(tmp_path: Path) -> None:
    """The installed script: a cut card is refused naming the file; a cut picture inside an
    archive converts with a warning and a loss entry that name the picture."""
    import json
    import shutil
    import subprocess
    import sys

    from bunzai.testing import corpus_files

    bunzai = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
    card = next(p for p in corpus_files("ccv3-json") if "full_v3_card" in p.name)
    cut = next(d for d in file_damages(card.read_bytes()) if d.kind == "cut-line")
    bad = tmp_path / "cut.json"
    bad.write_bytes(cut.data)
    res = subprocess.run([bunzai, "convert", bad, "--to", "charx", "-o", tmp_path / "a.charx"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode in (3, 4) and str(bad) in res.stderr, res.stderr
    assert not (tmp_path / "a.charx").exists()
    charx = corpus_files("charx")[0]
    picture = next(d for d in file_damages(charx.read_bytes())
                   if d.kind == "cut-entry" and d.where.endswith(".png' cut in half"))
    bad = tmp_path / "cut.charx"
    bad.write_bytes(picture.data)
    res = subprocess.run([bunzai, "convert", bad, "--to", "sillytavern", "-o",
                          tmp_path / "b.png", "--json"], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert any("is damaged" in w["message"] for w in doc["warnings"]), doc["warnings"]
    assert any("damaged" in e["reason"] or "cut short" in e["reason"] for e in doc["loss"]), \
        doc["loss"]

"""Reading never changes what detection parsed: the shared views of an input (its JSON, its
PNG card chunks) say the same after a read as a fresh parse of the file.

Readers read the shared parse in place and copy only what they keep, so a validator or a
second reader of the same input (``bunzai validate`` reads, then validates the same input)
sees the file as it is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bunzai.errors import BunzaiError
from bunzai.host.registry import Registry
from bunzai.io.frozen import thaw
from bunzai.io.input import AdapterInput
from bunzai.testing import corpus_dir, samples_dir

_KEYWORDS = ("chara", "ccv3", "rcpersona", "naidata", "persona", "risuai")


def _files() -> list[Path]:
    out = []
    for root in (corpus_dir(), samples_dir()):
        if root.is_dir():
            out += sorted(p for p in root.rglob("*")
                          if p.is_file() and p.suffix not in (".tsv", ".md"))
    return out


def _views(inp: AdapterInput) -> list[object]:
    return [thaw(inp.json), *(thaw(p.value) for k in _KEYWORDS for p in inp.png_json(k))]


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name[-60:])
def test_a_read_leaves_the_shared_views_as_the_file_says(registry: Registry, path: Path
                                                          ) -> None:
    data = path.read_bytes()
    inp = AdapterInput(data, path.name)
    report = registry.detect(inp)
    before = _views(inp)
    if report.winner is not None:  # a file nobody claims is only detected
        try:
            _, result, _ = registry.read(inp, format=report.winner.format)
            registry.validate(registry.adapters[report.winner.format], inp, result.entities)
        except BunzaiError:
            pass
    assert _views(inp) == before == _views(AdapterInput(data, path.name))

"""Every shared preset and template: read, rewritten to the same bytes, converted to every preset
format with a report, and, where the report is empty, building the same prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from bunzai import api
from bunzai.prompts.render import render_difference
from bunzai.testing import presets_corpus_dir, require_corpus, shared_dir

require_corpus()

OWN = Path(__file__).resolve().parents[1] / "bunzai-formats-tavern" / "src" / "bunzai_tavern"
LIBRARY = shared_dir() / "libraries" / "st-user-2208096" / "default-user"
FOLDERS = ("TextGen Settings", "KoboldAI Settings", "NovelAI Settings", "OpenAI Settings",
           "instruct", "context", "sysprompt", "reasoning")


def _files() -> list[Path]:
    found = sorted(p for p in presets_corpus_dir().glob("st-*/*.json"))
    found += sorted(p for p in presets_corpus_dir().glob("ooba-*/*.yaml"))
    found += sorted(p for p in OWN.glob("*/tests/samples/*") if p.suffix in (".json", ".jinja",
                                                                             ".yaml")
                    and p.parent.parent.parent.name.startswith(("hf_", "oobabooga_i",
                                                                "oobabooga_p", "koboldai_lite_s")))
    found += sorted(p for f in FOLDERS for p in (LIBRARY / f).glob("*.json"))
    return found


FILES = _files()


def test_the_shared_presets_are_there() -> None:
    assert len(FILES) > 300


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_reads_rewrites_and_converts_with_the_same_prompt(path: Path) -> None:
    reg = api.get_registry()
    data = path.read_bytes()
    fid = api.detect(data, str(path)).winner.format  # type: ignore[union-attr]
    entity = api.read(data, filename=str(path))
    same = api.write(entity, fid, verify=True)
    assert same.files[0].data == data and not list(same.loss)
    targets = [k for k, h in reg.adapters.items() if h.kind == "preset" and h.info.can_write]
    for to in targets:
        out = api.write(entity, to, verify=True)
        if list(out.loss):
            continue
        back = api.read(out.files[0].data, format=to)
        assert render_difference(reg, entity, back) is None, (fid, to)

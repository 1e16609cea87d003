"""What bunzai names the files it writes, and where they go, through the installed ``bunzai``
script and the Python API: one rule for a single file, a batch and ``save()``; ``-o DIR/``,
``-o -`` and ``-`` as pip, curl and jq users expect; a batch stopped with Ctrl-C and resumed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from bunzai.testing import corpus_files, require_corpus

require_corpus()

BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
PNG = next(p for p in corpus_files("png-chara-v2") if "default_Seraphina" in p.name)


def bunzai(*args: object, cwd: Path | None = None, data: bytes | None = None
           ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, timeout=300, cwd=cwd,
                          input=data)


def lines(out: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.decode().splitlines()]


def test_a_missing_output_folder_is_could_not_write(tmp_path: Path) -> None:
    res = bunzai("convert", PNG, "--to", "agnai", "-o", tmp_path / "nowhere" / "card.json")
    assert res.returncode == 5, res.stderr
    assert b"nowhere" in res.stderr and b"does not exist" in res.stderr
    assert not (tmp_path / "nowhere").exists()

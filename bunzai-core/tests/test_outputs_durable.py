"""write_atomic flushes each output to disk unless a batch asks it not to (it flushes once)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import bunzai
from bunzai.engine import batch
from bunzai.io.outputs import write_atomic
from bunzai.model import Lorebook, LorebookEntry


def _count_fsync(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def test_single_writes_are_durable_and_batch_writes_flush_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_fsync(monkeypatch)
    write_atomic(tmp_path / "a.bin", b"one")
    assert len(calls) == 1 and (tmp_path / "a.bin").read_bytes() == b"one"
    write_atomic(tmp_path / "b.bin", b"two", durable=False)
    assert len(calls) == 1 and (tmp_path / "b.bin").read_bytes() == b"two"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

    syncs: list[bool] = []
    monkeypatch.setattr(os, "sync", lambda: syncs.append(True), raising=False)
    src = tmp_path / "src"
    src.mkdir()
    for i in range(3):
        book = Lorebook(name=f"book {i}", entries=[LorebookEntry(keys=["k"], content="text")])
        (src / f"book{i}.json").write_bytes(bunzai.write(book, "vaud-json").files[0].data)
    out = tmp_path / "out"
    out.mkdir()
    sources = batch.expand_sources([str(src)])
    targets = batch.plan(sources, out, ".json")
    jobs = [batch.Job(str(s), str(t), "vaud-json", None, False) for s, t in
            zip(sources, targets, strict=True)]
    records = list(batch.run(jobs, 1))
    assert [r.status for r in records] == ["converted"] * 3, records
    assert len(calls) == 1 and syncs == [True]
    assert all(Path(r.to_dict()["output"]).stat().st_size > 0 for r in records)

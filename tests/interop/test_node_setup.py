"""The interop suite's own plumbing: the lock file pins the libraries it names, and a machine
without Node.js skips the suite with the reason, except under CI, where it fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import node


def test_the_lock_file_pins_exactly_the_checked_libraries() -> None:
    manifest = json.loads(node.MANIFEST.read_text(encoding="utf-8"))
    lock = json.loads(node.LOCK.read_text(encoding="utf-8"))
    wanted = manifest["dependencies"]
    assert set(wanted) == set(node.LIBRARIES)
    assert lock["packages"][""]["dependencies"] == wanted  # npm ci refuses a stale lock
    versions = node.locked_versions()
    for name, spec in wanted.items():
        assert spec == versions[name], f"{name}: package.json pins {spec}, lock has {versions}"
        assert lock["packages"][f"node_modules/{name}"]["integrity"].startswith("sha512-")


def test_no_node_modules_in_the_repository() -> None:
    assert not (node.HERE / "node_modules").exists()


def test_missing_node_or_npm_is_a_reason(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    monkeypatch.setattr(node.shutil, "which", lambda name: None)
    with pytest.raises(node.Unavailable, match="node and npm not found on PATH"):
        node.install(tmp_path)
    assert not (tmp_path / "node_modules").exists()


def test_without_the_libraries_the_suite_skips_outside_ci_and_fails_in_ci(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no node here"):
        node.unavailable("no node here")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"no node here.*CI is set"):
        node.unavailable("no node here")


def test_an_old_node_is_a_reason(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import subprocess

    monkeypatch.setattr(node.shutil, "which", lambda name: f"/opt/{name}")
    monkeypatch.setattr(node.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
        a, 0, stdout="v16.20.2\n", stderr=""))
    with pytest.raises(node.Unavailable, match=r"Node\.js v16\.20\.2 is too old"):
        node.install(tmp_path)

"""The copier template renders a plugin distribution that installs and passes its own tests.

Rendered into a temporary folder with copier, installed beside bunzai-core in a fresh virtual
environment, and tested there with the rendered project's own pytest run (which includes the
conformance kit), exactly as a new format author would start.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .plugin_env import ROOT, PluginEnv, plugin_env

TEMPLATE = ROOT / "templates" / "bunzai-format"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[PluginEnv, Path]:
    env = plugin_env()
    dest = tmp_path_factory.mktemp("rendered") / "bunzai-formats-acme_notes"
    proc = env.run("copier", "copy", "--defaults", "--quiet", "--data", "name=acme_notes",
                   "--data", "format_label=Acme notes", TEMPLATE, dest)
    assert proc.returncode == 0, proc.stderr
    env.install_editable(dest)
    return env, dest


def test_the_template_renders_a_complete_distribution(rendered: tuple[PluginEnv, Path]
                                                      ) -> None:
    _, dest = rendered
    files = sorted(str(p.relative_to(dest)) for p in dest.rglob("*")
                   if p.is_file() and "egg-info" not in str(p) and "__pycache__" not in str(p))
    assert files == [
        ".copier-answers.yml", ".gitignore", "README.md", "conftest.py", "pyproject.toml",
        "src/bunzai_acme_notes/__init__.py", "src/bunzai_acme_notes/acme_notes/README.md",
        "src/bunzai_acme_notes/acme_notes/__init__.py",
        "src/bunzai_acme_notes/acme_notes/read.py", "src/bunzai_acme_notes/acme_notes/write.py",
        "tests/samples/acme-notes-empty.json", "tests/samples/acme-notes-example.json",
        "tests/samples/malformed/entries-not-a-list.json",
        "tests/samples/malformed/keys-not-strings.json",
        "tests/test_acme_notes.py", "tests/test_conformance.py",
    ]
    pyproject = (dest / "pyproject.toml").read_text(encoding="utf-8")
    assert '"bunzai-core>=0.1,<0.2"' in pyproject
    assert ('[project.entry-points."bunzai.formats"]\n'
            'acme-notes = "bunzai_acme_notes.acme_notes:AcmeNotesAdapter"') in pyproject
    assert "{{" not in "".join(p.read_text(encoding="utf-8") for p in dest.rglob("*.py"))


def test_the_rendered_tests_pass_out_of_the_box(rendered: tuple[PluginEnv, Path]) -> None:
    env, dest = rendered
    proc = env.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=dest)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", proc.stdout).group(1))  # type: ignore[union-attr]
    assert passed >= 40, proc.stdout[-2000:]  # the kit's checks ran, not just the unit tests


def test_the_rendered_plugin_is_listed_and_compatible(rendered: tuple[PluginEnv, Path]) -> None:
    env, dest = rendered
    formats = env.run("bunzai", "formats")
    assert re.search(r"^acme-notes\s+lorebook\s+rw\s+Acme notes", formats.stdout, re.M), \
        formats.stdout
    plugins = json.loads(env.run("bunzai", "plugins", "--json").stdout)
    (dist,) = [d for d in plugins["distributions"] if d["name"] == "bunzai-formats-acme_notes"]
    assert dist["api_versions"] == [1] and dist["compatible"] is True
    inspect = env.run("bunzai", "inspect", "--json",
                      dest / "tests" / "samples" / "acme-notes-example.json")
    assert json.loads(inspect.stdout)["format"] == "acme-notes"

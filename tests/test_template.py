"""The copier template renders a plugin distribution that installs and passes its own tests.

Rendered into a temporary folder with copier, installed beside bunzai-core in a fresh virtual
environment, and tested there with the rendered project's own pytest run (which includes the
conformance kit), exactly as a new format author would start.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .plugin_env import ROOT, PluginEnv, plugin_env

TEMPLATE = ROOT / "templates" / "bunzai-format"


KINDS = ("lorebook", "character")


@pytest.fixture(scope="module", params=KINDS)
def rendered(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[PluginEnv, Path]:
    """The template rendered for one kind, and installed in the shared plugin venv."""
    kind = request.param
    env = plugin_env()
    name = f"acme_{kind}"
    dest = tmp_path_factory.mktemp("rendered") / f"bunzai-formats-{name}"
    proc = env.run("copier", "copy", "--defaults", "--quiet", "--data", f"name={name}",
                   "--data", f"kind={kind}", "--data", f"format_label=Acme {kind}", TEMPLATE,
                   dest)
    assert proc.returncode == 0, proc.stderr
    env.install_editable(dest)
    return env, dest


SAMPLES = {
    "lorebook": ["tests/samples/acme-lorebook-empty.json",
                 "tests/samples/acme-lorebook-example.json",
                 "tests/samples/malformed/entries-not-a-list.json",
                 "tests/samples/malformed/keys-not-strings.json"],
    "character": ["tests/samples/acme-character-example.json",
                  "tests/samples/acme-character-minimal.json",
                  "tests/samples/malformed/greetings-not-strings.json",
                  "tests/samples/malformed/name-not-a-string.json"],
}


def test_the_template_renders_a_complete_distribution(rendered: tuple[PluginEnv, Path]
                                                      ) -> None:
    _, dest = rendered
    kind = dest.name.rsplit("_", 1)[1]
    pkg = f"src/bunzai_acme_{kind}"
    files = sorted(str(p.relative_to(dest)) for p in dest.rglob("*")
                   if p.is_file() and "egg-info" not in str(p) and "__pycache__" not in str(p))
    assert files == sorted([
        ".copier-answers.yml", ".gitignore", "README.md", "conftest.py", "pyproject.toml",
        f"{pkg}/__init__.py", f"{pkg}/acme_{kind}/README.md", f"{pkg}/acme_{kind}/__init__.py",
        f"{pkg}/acme_{kind}/read.py", f"{pkg}/acme_{kind}/write.py",
        *SAMPLES[kind], f"tests/test_acme_{kind}.py", "tests/test_conformance.py",
    ])
    pyproject = (dest / "pyproject.toml").read_text(encoding="utf-8")
    assert '"bunzai-core>=0.1,<0.2"' in pyproject
    assert ('[project.entry-points."bunzai.formats"]\n'
            f'acme-{kind} = "bunzai_acme_{kind}.acme_{kind}:Acme{kind.title()}Adapter"'
            ) in pyproject
    assert "{{" not in "".join(p.read_text(encoding="utf-8") for p in dest.rglob("*.py"))
    adapter = (dest / pkg / f"acme_{kind}" / "__init__.py").read_text(encoding="utf-8")
    assert f'kind = "{kind}"' in adapter


def test_the_rendered_tests_pass_out_of_the_box(rendered: tuple[PluginEnv, Path]) -> None:
    env, dest = rendered
    proc = env.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=dest)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", proc.stdout).group(1))  # type: ignore[union-attr]
    assert passed >= 40, proc.stdout[-2000:]  # the kit's checks ran, not just the unit tests


def test_the_rendered_plugin_is_listed_and_compatible(rendered: tuple[PluginEnv, Path]) -> None:
    env, dest = rendered
    kind = dest.name.rsplit("_", 1)[1]
    formats = env.run("bunzai", "formats")
    assert re.search(rf"^acme-{kind}\s+{kind}\s+rw\s+Acme {kind}", formats.stdout, re.M), \
        formats.stdout
    plugins = json.loads(env.run("bunzai", "plugins", "--json").stdout)
    (dist,) = [d for d in plugins["distributions"] if d["name"] == f"bunzai-formats-acme_{kind}"]
    assert dist["api_versions"] == [1] and dist["compatible"] is True
    inspect = env.run("bunzai", "inspect", "--json",
                      dest / "tests" / "samples" / f"acme-{kind}-example.json")
    assert json.loads(inspect.stdout)["format"] == f"acme-{kind}"


def _git(*args: str | Path, cwd: Path) -> None:
    ident = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
             "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", *map(str, args)], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, **ident})


def test_copier_update_works_wherever_the_checkout_and_project_move(tmp_path: Path) -> None:
    """The answers file records the checkout relative to the project (not as typed, nor as
    this machine's absolute path), and the commit: moved together, an update still finds it."""
    env = plugin_env()
    checkout = tmp_path / "first" / "bunzai"  # what the template needs of a checkout
    shutil.copytree(TEMPLATE, checkout / "templates" / "bunzai-format")
    shutil.copy(ROOT / "copier.yml", checkout)
    _git("init", "-q", cwd=checkout)
    _git("add", "-A", cwd=checkout)
    _git("commit", "-qm", "template", cwd=checkout)
    work = tmp_path / "first" / "work"
    work.mkdir()
    proc = env.run("copier", "copy", "--defaults", "--quiet", "--data", "name=acme",
                   "../bunzai", "plugins/bunzai-formats-acme", cwd=work)
    assert proc.returncode == 0, proc.stderr
    project = work / "plugins" / "bunzai-formats-acme"
    answers = (project / ".copier-answers.yml").read_text(encoding="utf-8")
    assert "_src_path: ../../../bunzai\n" in answers and "_commit: " in answers
    _git("init", "-q", cwd=project)
    _git("add", "-A", cwd=project)
    _git("commit", "-qm", "rendered", cwd=project)
    readme = checkout / "templates" / "bunzai-format" / "template" / "README.md.jinja"
    readme.write_text(readme.read_text(encoding="utf-8") + "\nA later template fix.\n",
                      encoding="utf-8")
    _git("commit", "-qam", "fix", cwd=checkout)
    shutil.move(tmp_path / "first", tmp_path / "elsewhere")
    project = tmp_path / "elsewhere" / "work" / "plugins" / "bunzai-formats-acme"
    proc = env.run("copier", "update", "--defaults", "--quiet", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "A later template fix." in (project / "README.md").read_text(encoding="utf-8")


COMMANDS = ("python3", ".", "pip", "copier", "cd", "pytest", "bunzai")


def tutorial_commands() -> list[str]:
    """The shell lines of writing-a-format.md's first section, in order: the steps a format
    author runs before writing any code."""
    text = (ROOT / "docs" / "writing-a-format.md").read_text(encoding="utf-8")
    section = text.split("\n## 1. ", 1)[1].split("\n## 2. ", 1)[0]
    lines = []
    for block in re.findall(r"^```\n(.*?)^```", section, re.M | re.S):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.split(" ", 1)[0] in COMMANDS:
                lines.append(line)
    return lines


def test_a_character_format_from_the_docs_alone(tmp_path: Path) -> None:
    """A third party follows the tutorial's first section word for word: a fresh virtual
    environment, core installed from the checkout, the template rendered from the checkout for
    a character format, the plugin installed, its tests (the conformance kit) passing.

    Only two things differ from a person at a terminal: copier's questions are answered on
    its command line, and copier is the test environment's own (a dev tool) rather than
    installed into the fresh venv, to keep the test within CI's time.
    """
    if os.environ.get("BUNZAI_SKIP_VENV_TESTS"):
        pytest.skip("BUNZAI_SKIP_VENV_TESTS is set")
    copier = shutil.which("copier", path=str(Path(sys.executable).parent)) or \
        shutil.which("copier")
    assert copier, "copier is a test tool: python3 dev.py test installs it"
    steps = tutorial_commands()
    assert steps[:3] == ["python3 -m venv bunzai-dev", ". bunzai-dev/bin/activate",
                         "pip install ./bunzai/bunzai-core"], steps
    assert "pip install -e \".[test]\"" in steps and "pytest" in steps
    (tmp_path / "bunzai").symlink_to(ROOT)  # the checkout, where the tutorial expects it
    script = ["set -e"]
    for line in steps:
        if line == "pip install copier":
            continue
        if line.startswith("python3 "):
            line = f"{shlex.quote(sys.executable)} {line[len('python3 '):]}"
        elif line.startswith("copier copy "):
            line = (f"{shlex.quote(copier)} copy --defaults --quiet --data name=saltmere "
                    f"--data kind=character {line[len('copier copy '):]}")
        elif line == "pytest":
            line = "pytest -q -p no:cacheprovider"
        script.append(line)
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "BUNZAI_LOAD_PLUGINS",
            "BUNZAI_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, "\n".join(script) + "\n" + proc.stdout[-6000:] + \
        proc.stderr[-3000:]
    passed = int(re.search(r"(\d+) passed", proc.stdout).group(1))  # type: ignore[union-attr]
    assert passed >= 40 and " failed" not in proc.stdout, proc.stdout[-3000:]
    assert re.search(r"^saltmere\s+character\s+rw\s", proc.stdout, re.M), proc.stdout[-3000:]
    project = tmp_path / "bunzai-formats-novelai"
    assert "kind = \"character\"" in (project / "src" / "bunzai_saltmere" / "saltmere" /
                                      "__init__.py").read_text(encoding="utf-8")
    site = next((tmp_path / "bunzai-dev").glob("lib/python*/site-packages"))
    assert not list(site.glob("__editable__*bunzai_core*")), "core must not be editable"

"""Formats use bunzai through its declared plugin API only (``bunzai.sdk``); the studio through
its public API only (``bunzai.api``).

Every format distribution, the worked example and the template are held to it, so what a
third-party author can read in ``bunzai.sdk`` is all a first-party format needs, and core can
change everything else without breaking a plugin.  Tests may also use the public API
(``import bunzai``) and the testing kit (``bunzai.testing``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PLUGIN_TREES = sorted(
    [*ROOT.glob("bunzai-formats-*/src"), *ROOT.glob("examples/*/src"),
     *ROOT.glob("examples/*/tests"), *ROOT.glob("bunzai-formats-*/tests"),
     *ROOT.glob("templates/*/template")])

TEMPLATE_KINDS = ("lorebook", "character")
"""The kinds the format template renders (its copier question ``kind``)."""

PUBLIC_TOP = {"__version__", "read", "read_all", "write", "convert", "detect", "BunzaiError"}
"""Names of ``bunzai`` itself a plugin's tests may use (the user-facing API)."""


def _allowed(module: str, names: list[str], is_test: bool) -> bool:
    if module == "bunzai.sdk" or module.startswith("bunzai.sdk."):
        return True
    if is_test and (module == "bunzai.testing" or module.startswith("bunzai.testing.")):
        return True
    if module == "bunzai":
        return is_test or set(names) <= {"__version__"}
    return not (module == "bunzai" or module.startswith("bunzai."))


def _violations(path: Path) -> list[str]:
    is_test = "tests" in path.parts or path.name.startswith("test_") \
        or path.name == "conftest.py"
    text = path.read_text(encoding="utf-8")
    texts = [text]
    if path.suffix == ".jinja":  # a template: checked as rendered for every kind it offers
        import jinja2

        class Placeholder(jinja2.Undefined):
            def __str__(self) -> str:
                return "placeholder"

        template = jinja2.Environment(undefined=Placeholder).from_string(text)
        texts = [template.render(kind=kind) for kind in TEMPLATE_KINDS]
    out = []
    for node in (n for text in texts for n in ast.walk(ast.parse(text))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [a.name for a in node.names]
            if not _allowed(node.module, names, is_test):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import "
                           f"{', '.join(names)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("bunzai.") and not _allowed(alias.name, [], is_test):
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno}: import {alias.name}")
    return out


@pytest.mark.parametrize("tree", PLUGIN_TREES, ids=[str(p.relative_to(ROOT)) for p in PLUGIN_TREES])
def test_formats_import_only_the_plugin_api(tree: Path) -> None:
    files = sorted([*tree.rglob("*.py"), *tree.rglob("*.py.jinja")])
    assert files, f"no Python file under {tree}"
    bad = [v for path in files for v in _violations(path)]
    assert not bad, ("formats may import only bunzai.sdk (tests also bunzai and "
                     "bunzai.testing):\n  " + "\n  ".join(bad[:40])
                     + (f"\n  … and {len(bad) - 40} more" if len(bad) > 40 else ""))


FRONT_END_API = {"bunzai", "bunzai.api", "bunzai.model"}
"""What a front end outside core (the studio) may import: the public API and the model."""


def test_the_studio_uses_only_the_declared_api() -> None:
    """The studio presents what the engine does through ``bunzai.api``, as the CLI does; it
    never reaches into core's modules, so core can move them."""
    tree = ROOT / "bunzai-studio" / "src"
    bad = []
    for path in sorted(tree.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = ([node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                       and node.module else
                       [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            bad += [f"{path.relative_to(ROOT)}:{node.lineno}: {m}" for m in modules
                    if m and (m == "bunzai" or m.startswith("bunzai."))
                    and m not in FRONT_END_API]
    assert not bad, "the studio may import only bunzai, bunzai.api and bunzai.model:\n  " \
        + "\n  ".join(bad)


def test_core_never_imports_the_plugin_api() -> None:
    """``bunzai.sdk`` only re-exports: the code lives in core modules below it, so core can
    reorganise its modules while the declared names stay where plugins import them."""
    core = ROOT / "bunzai-core" / "src" / "bunzai"
    bad = []
    for path in sorted(core.rglob("*.py")):
        if path.is_relative_to(core / "sdk"):
            continue
        package = ".".join(path.relative_to(core.parent).with_suffix("").parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[:len(package.split(".")) - node.level + 1] \
                    if node.level else []
                module = ".".join([*base, *([node.module] if node.module else [])])
                targets = [module] + [f"{module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            if any(t == "bunzai.sdk" or t.startswith("bunzai.sdk.") for t in targets):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, "core modules import the plugin API (import the module it re-exports):\n  " \
        + "\n  ".join(bad)


def test_the_plugin_api_imports_lightly() -> None:
    import subprocess
    import sys

    code = ("import sys, bunzai.sdk, bunzai.sdk.fields, bunzai.sdk.png; "
            "print(sorted(m for m in ('pydantic', 'PIL', 'rich', 'typer') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout

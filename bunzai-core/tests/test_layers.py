"""Core is built in floors: a module imports only from the floors below its own, or from its own
folder, so no two modules import each other and no low module reaches up (docs/architecture.md,
"The house").  Every import counts: at the top of a module, inside a function, and under
``TYPE_CHECKING``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "src" / "bunzai"

FLOORS: dict[str, int] = {
    "errors": 1, "kinds": 1, "_lazy": 1, "_version": 1,
    "model": 2, "io": 2,
    "loss": 3,
    "fields": 4, "chatkit": 4, "active": 4, "prompts": 4,
    "cardspec": 5, "host": 5,
    "native": 6, "sdk": 6, "engine": 6,
    "api": 7, "library": 7,
    "__init__": 8,
    "testing": 9, "cli": 9,
}
"""The top-level part of ``bunzai`` each module belongs to, and its floor."""

WITHIN_A_FLOOR = {("model", "io"): "the model holds no I/O; io never imports the model",
                  ("cardspec", "host"): "the card codec is a toolkit; the host loads plugins"}
"""Parts on one floor that must not import each other either (documenting why they share it)."""


def _module(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(CORE.parent).with_suffix("").parts)
    package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if package else parts), package


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import of ``bunzai`` in the file, at any depth."""
    module, package = _module(path)
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if package else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not node.module:  # from . import x: x may be a module of the package
                out += [(node.lineno, f"{target}.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
    return [(line, m) for line, m in out if m == "bunzai" or m.startswith("bunzai.")]


FILES = sorted(CORE.rglob("*.py"))


def test_every_part_of_core_has_a_floor() -> None:
    parts = {_part(_module(p)[0]) for p in FILES}
    assert parts <= set(FLOORS), f"give these parts a floor: {sorted(parts - set(FLOORS))}"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CORE)) for p in FILES])
def test_a_module_imports_only_from_below_or_its_own_part(path: Path) -> None:
    me = _part(_module(path)[0])
    bad = []
    for line, target in _imports(path):
        them = _part(target)
        if them not in FLOORS or them == me:
            continue
        if FLOORS[them] > FLOORS[me]:
            bad.append(f"line {line}: {me} (floor {FLOORS[me]}) imports {target} (floor "
                       f"{FLOORS[them]})")
        elif FLOORS[them] == FLOORS[me] and (me, them) in {
                *WITHIN_A_FLOOR, *((b, a) for a, b in WITHIN_A_FLOOR)}:
            bad.append(f"line {line}: {me} imports {target}, on its own floor")
    assert not bad, "\n".join(bad)


def test_no_two_modules_of_core_import_each_other() -> None:
    """No circle of modules, however long, lazy imports included."""
    names = {_module(p)[0]: p for p in FILES}
    graph: dict[str, set[str]] = {m: set() for m in names}
    for module, path in names.items():
        for _, target in _imports(path):
            while target and target not in names:  # an imported name: its module
                target = target.rpartition(".")[0]
            if target and target != module and not module.startswith(target + "."):
                graph[module].add(target)  # (a package's __init__ importing its own
                # submodules is how a package presents them, not a circle)
    seen: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        seen[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if m.startswith(n + ".") or n.startswith(m + "."):
                continue
            if seen.get(n) == 1:
                return [*stack[stack.index(n):], n]
            if n not in seen and (found := visit(n)):
                return found
        seen[m] = 2
        stack.pop()
        return None

    for module in sorted(graph):
        if module not in seen and (circle := visit(module)):
            pytest.fail("a circle of imports: " + " -> ".join(circle))

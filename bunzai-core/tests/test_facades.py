"""The façades (``bunzai``, ``bunzai.api``, ``bunzai.sdk``) tell type checkers exactly what they
give at run time: each name of ``__all__`` is re-exported as ``from module import name as name``
(or defined in the façade) and resolves to that very object, and nothing is re-exported to type
checkers that the façade does not give."""

from __future__ import annotations

import ast
import importlib
import inspect
from importlib.util import resolve_name
from types import ModuleType

import pytest

import bunzai
import bunzai.api
import bunzai.sdk


def _typed_exports(module: ModuleType) -> dict[str, str]:
    """name -> absolute module, for every ``from module import name as name`` of the façade."""
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.ImportFrom) and node.module:
            source = resolve_name("." * node.level + node.module, module.__package__ or "")
            found |= {a.name: source for a in node.names if a.asname == a.name}
    return found


def _defined(module: ModuleType) -> set[str]:
    tree = ast.parse(inspect.getsource(module))
    return {node.name for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")}


@pytest.mark.parametrize("module", [bunzai, bunzai.api, bunzai.sdk], ids=lambda m: m.__name__)
def test_type_checkers_see_what_the_facade_gives(module: ModuleType) -> None:
    typed = _typed_exports(module)
    exported = set(module.__all__)
    assert exported - typed.keys() - _defined(module) == set(), \
        "in __all__ but not re-exported to type checkers (add `from m import X as X`)"
    assert typed.keys() - exported == set(), \
        "re-exported to type checkers but not given at run time (add it to the lazy table)"
    for name, source in typed.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name), name

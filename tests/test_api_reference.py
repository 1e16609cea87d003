"""The Python API reference ``python3 dev.py apidocs`` renders with pdoc: every public name of
``bunzai`` and ``bunzai.sdk`` is on its page with its docstring."""

from __future__ import annotations

import html
import importlib.util
import inspect
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import bunzai
import bunzai.sdk

ROOT = Path(__file__).resolve().parents[1]
KNOWN_GAPS: set[str] = set()
"""Public names pdoc shows without their docstring (a class exported under another name
shows as a variable); none today."""
LOREBOOKS_AND_CHATS = ("extract_lorebook", "embed_lorebook", "merge_lorebooks", "extract_chats",
                       "embed_chat")


def _dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference rendered as ``dev.py apidocs`` renders it."""
    out = tmp_path_factory.mktemp("api")
    done = subprocess.run([sys.executable, "-m", "pdoc", *_dev().pdoc_args(),
                           "--output-directory", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def _plain(text: str, page: bool = False) -> str:
    """Text without markup (a page's tags and entities, reST roles and literals) or whitespace,
    which rendering moves around."""
    if page:
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    text = re.sub(r":\w+:`~?([^`]*)`", r"\1", text)
    return "".join(text.replace("`", "").replace("*", "").split())


def _own_doc(obj: object) -> str | None:
    """The docstring an object has itself (a class's, not one inherited), for what has one."""
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__")
    elif inspect.isroutine(obj) or inspect.ismodule(obj):
        doc = obj.__doc__
    else:  # constants and aliases: documented by the page of the module that defines them
        return None
    return doc if isinstance(doc, str) and doc.strip() else None


def _entry(page: str, name: str) -> str | None:
    """What the page says under ``name``: its signature and docstring, as text."""
    start = page.find(f'<section id="{name}">')
    if start < 0:
        return None
    end = page.find("<section id=", start + 1)
    return _plain(page[start:end if end > 0 else len(page)], page=True)


@pytest.mark.parametrize("module", [bunzai, bunzai.sdk], ids=lambda m: m.__name__)
def test_every_public_name_is_on_its_page_with_its_docstring(pages: Path,
                                                              module: ModuleType) -> None:
    page = (pages / (module.__name__.replace(".", "/") + ".html")).read_text(encoding="utf-8")
    missing, undocumented = [], []
    for name in module.__all__:
        if name.startswith("__"):
            continue  # __version__: the page's heading shows it
        entry = _entry(page, name)
        doc = _own_doc(getattr(module, name))
        if entry is None:
            missing.append(name)
        elif doc is not None and _plain(doc.strip().splitlines()[0]) not in entry:
            undocumented.append(name)
    assert not missing, f"not on the {module.__name__} page: {missing}"
    # a gap that closes must leave KNOWN_GAPS, so the list never hides a new one
    assert set(undocumented) == KNOWN_GAPS & set(module.__all__), \
        f"on the page without their docstring: {undocumented} (known: {sorted(KNOWN_GAPS)})"


def test_the_lorebook_and_chat_functions_are_documented(pages: Path) -> None:
    page = (pages / "bunzai.html").read_text(encoding="utf-8")
    for name in LOREBOOKS_AND_CHATS:
        doc = _own_doc(getattr(bunzai, name))
        assert doc is not None, f"bunzai.{name} has no docstring"
        entry = _entry(page, name)
        assert entry is not None and _plain(doc.split("\n\n")[0]) in entry, name


def test_the_sdk_modules_plugins_import_have_pages(pages: Path) -> None:
    sdk = ROOT / "bunzai-core" / "src" / "bunzai" / "sdk"
    for source in sdk.glob("[!_]*.py"):
        assert (pages / "bunzai" / "sdk" / f"{source.stem}.html").exists(), source.stem

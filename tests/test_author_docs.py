"""What a format author reads names only what exists, and only the API a plugin may use.

A third-party author follows docs/writing-a-format.md, docs/hooks.md and the copier template;
a name there that bunzai does not have (a helper the example never defined, an import path
outside the plugin API) is a step that fails for them and for nobody in this repository.
"""

from __future__ import annotations

import builtins
import importlib
import re
from pathlib import Path

import pytest

import bunzai
from bunzai.testing.kit import reason_pattern_problem

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
TEMPLATE = ROOT / "templates" / "bunzai-format"
EXAMPLE = ROOT / "examples" / "bunzai-formats-novelai"
AUTHOR_PAGES = ("writing-a-format.md", "hooks.md")

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"`([^`\n]+)`")
SDK_NAME = re.compile(r"\bbunzai\.sdk(?:\.\w+)+")
SDK_IMPORT = re.compile(r"from (bunzai\.sdk(?:\.\w+)*) import (\([^)]*\)|[^\n]+)")
BUNZAI_NAME = re.compile(r"(?<![\w.\-/])bunzai\.(\w+)")
ENTRY_POINT_GROUPS = {"formats", "plugins"}


def code_of(text: str) -> str:
    """The code a page shows: its fenced blocks and inline code, nothing of its prose."""
    blocks = [m.group(2) for m in FENCE.finditer(text)]
    prose = FENCE.sub("", text)
    return "\n".join(blocks + INLINE.findall(prose))


def sources() -> dict[str, str]:
    """Every doc page's code, and every text file of the template as it is written."""
    out = {f"docs/{p.name}": code_of(p.read_text(encoding="utf-8"))
           for p in sorted(DOCS.glob("*.md"))}
    out.update((str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))
               for p in sorted(TEMPLATE.rglob("*")) if p.is_file())
    return out


def resolves(dotted: str) -> bool:
    """Whether ``bunzai.sdk[.module].name[.attr]`` names something: the longest importable
    module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 1, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def sdk_names() -> list[tuple[str, str]]:
    found = set()
    for where, text in sources().items():
        found.update((where, m.group(0)) for m in SDK_NAME.finditer(text))
        for module, names in SDK_IMPORT.findall(text):
            for name in re.findall(r"\w+", names.replace(" as ", " ").strip("()")):
                found.add((where, f"{module}.{name}"))
    return sorted(found)


def test_the_author_pages_and_template_use_the_plugin_api() -> None:
    names = sdk_names()
    assert len({n for _, n in names}) > 20, names  # the scan sees the pages' names
    missing = [f"{where}: {name}" for where, name in names if not resolves(name)]
    assert not missing, "names the docs or template use that bunzai.sdk does not have:\n" + \
        "\n".join(missing)


def test_a_name_missing_from_the_sdk_is_caught() -> None:
    assert resolves("bunzai.sdk.png.Base64TextChunk") and resolves("bunzai.sdk.FormatAdapter")
    assert not resolves("bunzai.sdk.fields.ordered") and not resolves("bunzai.sdk.Registry")


@pytest.mark.parametrize("page", AUTHOR_PAGES)
def test_author_pages_name_bunzai_only_through_the_plugin_and_public_api(page: str) -> None:
    """``bunzai.X`` on hooks.md is the plugin API (or an entry-point group); the tutorial may
    also show the testing kit and the public API of ``import bunzai`` a plugin's tests use.
    Never core's internals (``bunzai.host...``), which a plugin must not import."""
    code = code_of((DOCS / page).read_text(encoding="utf-8"))
    allowed = {"sdk"} | ENTRY_POINT_GROUPS
    if page == "writing-a-format.md":
        allowed |= set(bunzai.__all__) | {"testing"}
    inside = sorted({m.group(0) for m in BUNZAI_NAME.finditer(code)
                     if m.group(1) not in allowed})
    assert not inside, f"{page} names bunzai outside the plugin API: {inside}"


def test_the_tutorial_calls_only_what_the_example_defines() -> None:
    """Every function a Python snippet of writing-a-format.md calls is defined or imported by
    the worked example (its snippets come from it), or is a builtin."""
    text = (DOCS / "writing-a-format.md").read_text(encoding="utf-8")
    example = "\n".join(p.read_text(encoding="utf-8") for p in EXAMPLE.rglob("*.py"))
    known = set(dir(builtins)) | {"super"}
    known |= set(re.findall(r"^\s*(?:def|class)\s+(\w+)", example, re.M))
    known |= set(re.findall(r"^(\w+)\s*(?::[^=\n]+)?=", example, re.M))
    for names in re.findall(r"import (\([^)]*\)|[^\n]+)", example):
        known |= set(re.findall(r"\w+", names))
    unknown = set()
    for lang, block in FENCE.findall(text):
        if lang != "python":
            continue
        local = set(re.findall(r"\b(?:def|class)\s+(\w+)", block))
        for targets in re.findall(r"\bfor\s+([\w, ]+?)\s+in\b", block):
            local |= set(re.findall(r"\w+", targets))
        for name in re.findall(r"(?<![\w.])([A-Za-z_]\w*)\(", block):
            if name not in known | local and name not in ("if", "for", "while", "return"):
                unknown.add(name)
    assert not unknown, f"writing-a-format.md calls what the example does not have: {unknown}"


@pytest.mark.parametrize("kind, pattern, fine", [
    ("character", "", True),
    ("character", "lorebook.entries[*].keys", True),
    ("character", "extensions.anything.below", True),
    ("lorebook", "entries[3].sticky", True),
    ("chat", "messages[*].alternatives[*].text", True),
    ("character", "*", False),
    ("lorebook", "entrys[*]", False),
    ("character", "name[*]", False),
    ("character", "name.first", False),
])
def test_a_reason_pattern_that_can_never_match_is_named(kind: str, pattern: str,
                                                        fine: bool) -> None:
    problem = reason_pattern_problem(kind, pattern)
    assert (problem is None) is fine, problem


def test_plugin_tests_of_the_template_use_only_the_public_api() -> None:
    """A plugin's own tests need bunzai, bunzai.sdk and bunzai.testing: never a Registry
    method, which is core's and may change."""
    tests = [p for p in (TEMPLATE / "template" / "tests").glob("*.jinja")]
    assert tests
    for path in tests:
        text = path.read_text(encoding="utf-8")
        calls = re.findall(r"\b\w*registry\.\w+", text)
        assert not calls, f"{path.name} calls Registry methods: {calls}"
        imports = re.findall(r"^\s*(?:from|import) (bunzai[\w.]*)", text, re.M)
        outside = [m for m in imports if m != "bunzai"
                   and not m.startswith(("bunzai.sdk", "bunzai.testing"))]
        assert not outside, f"{path.name} imports {outside}"

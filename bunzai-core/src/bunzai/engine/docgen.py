"""Regenerate the generated docs: ``python -m bunzai.engine.docgen DOCS_DIR``.

Writes ``FORMAT-SUPPORT.md`` and ``formats/<id>.md`` for every installed adapter, from the
adapters' declared data, and ``glossary.md`` from the canonical model's field descriptions; the
test suite runs :func:`render` and fails when the files differ.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from ..host.registry import Registry
from .glossary import glossary_markdown
from .roster import format_page, roster_markdown


def render(reg: Registry) -> dict[str, str]:
    """Relative path -> content of every generated doc file."""
    files = {"FORMAT-SUPPORT.md": roster_markdown(reg), "glossary.md": glossary_markdown()}
    for fid, handle in sorted(reg.adapters.items()):
        files[f"formats/{fid}.md"] = format_page(handle)
    return files


def write_pages(argv: list[str] | None, pages: Callable[[], Mapping[str, str]]) -> int:
    """Write generated pages (relative path -> text) under the docs folder the command line
    names (``docs`` by default), touching only a page whose text changed, so that a stale page
    shows in ``git diff`` and a current one keeps its time."""
    args = sys.argv[1:] if argv is None else argv
    docs = Path(args[0] if args else "docs")
    for rel, text in pages().items():
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return write_pages(argv, lambda: render(Registry.load()))


if __name__ == "__main__":
    raise SystemExit(main())

"""The generated tables of ``docs/reliability.md``: the limits and the hostile cases.

    python -m tests.hostile.table          print both tables
    python -m tests.hostile.table --write  rewrite them in docs/reliability.md

``tests/test_reliability_doc.py`` fails when the document's tables differ from what this
produces, so the document always matches ``bunzai/limits.py`` and ``tests/hostile/cases.py``.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from dataclasses import fields
from pathlib import Path

from bunzai.io import limits
from bunzai.io.limits import Limits, setting_env

from .cases import Case, all_cases

DOC = Path(__file__).resolve().parents[2] / "docs" / "reliability.md"


def _size(n: int) -> str:
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,}"


def _field_docs() -> dict[str, str]:
    """The docstring under each field of :class:`Limits` (read from the source)."""
    tree = ast.parse(inspect.getsource(limits))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Limits")
    out: dict[str, str] = {}
    for a, b in zip(cls.body, cls.body[1:], strict=False):
        if (isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name)
                and isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)):
            out[a.target.id] = " ".join(str(b.value.value).split())
    return out


def limits_table() -> str:
    docs = _field_docs()
    rows = ["| limit | default | environment | CLI flag | what it bounds |",
            "|---|---|---|---|---|"]
    for f in fields(Limits):
        default = f.default if isinstance(f.default, int) else 0
        shown = f"{default:,}" if f.name in ("max_ratio", "max_entries") else _size(default)
        flag = "`--max-size`" if f.name == "max_size" else "—"
        rows.append(f"| `{f.name}` | {shown} | `{setting_env(f.name)}` | {flag} | "
                    f"{docs.get(f.name, '')} |")
    return "\n".join(rows)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def observe(case: Case, folder: Path) -> str:
    """What ``bunzai inspect --json`` answers for one case: exit code and format or message."""
    import json

    from typer.testing import CliRunner

    from bunzai.cli import app

    path = folder / case.name / case.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    if case.data is None:
        path.mkdir(exist_ok=True)
    else:
        path.write_bytes(case.data)
    res = CliRunner().invoke(app, ["inspect", str(path), "--json"])
    try:
        body = json.loads(res.stdout.splitlines()[-1])
    except (IndexError, ValueError):
        return f"{res.exit_code}: (no JSON answer)"
    if res.exit_code == 0:
        return f"0: read as {body.get('format')}"
    return f"{res.exit_code}: {body.get('error')}"


def hostile_table() -> str:
    import tempfile

    from bunzai.host.registry import set_registry
    from bunzai.testing import load_registry

    rows = ["| case | file | allowed exit codes | `bunzai inspect` answers |",
            "|---|---|---|---|"]
    set_registry(load_registry())
    try:
        with tempfile.TemporaryDirectory() as d:
            for case in all_cases():
                # no byte sizes: zipfile stamps the current time into some cases
                kind = " (a folder)" if case.data is None else ""
                codes = ", ".join(str(c) for c in sorted(case.codes))
                got = _cell(observe(case, Path(d)))
                if len(got) > 160:
                    got = got[:157] + "..."
                rows.append(f"| `{case.name}` | `{case.filename}`{kind} | {codes} | {got} |")
    finally:
        set_registry(None)
    return "\n".join(rows)


TABLES = {"limits": limits_table, "hostile-cases": hostile_table}


def render(doc: str) -> str:
    """``doc`` with every generated table replaced by its current content."""
    for name, build in TABLES.items():
        pattern = re.compile(rf"(<!-- {name}:start -->\n)(?:.*?\n)?(<!-- {name}:end -->)", re.S)
        if not pattern.search(doc):
            raise SystemExit(f"{DOC} has no <!-- {name}:start/end --> markers")
        doc = pattern.sub(lambda m, b=build: m.group(1) + b() + "\n" + m.group(2), doc)
    return doc


def main(argv: list[str]) -> int:
    if "--write" in argv:
        DOC.write_text(render(DOC.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"updated {DOC}")
        return 0
    print(limits_table())
    print()
    print(hostile_table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

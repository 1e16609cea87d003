"""Every writing command other than ``convert``, run once per session over the shared corpus,
chats and samples it applies to: what it made, what it wrote and what it reported.

``convert`` has its matrix (``tests/test_matrix.py``); here are ``lorebook extract|embed|merge``,
``chat extract|embed``, ``extract --assets`` and the studio's convert endpoint.  Each case is run
through the engine function the CLI calls (the studio through its HTTP app, in-process) and the
result is cached, so the oracle (``test_command_outputs.py``) and the validator check
(``test_written_files_validate.py``) share one run.  The cases:

- ``lorebook extract``: every card holding a book, to every writable lorebook format;
- ``lorebook embed``: every card, with a corpus World Info book, to every writable card format
  (``--merge`` for a card that has a book of its own), and ``--replace`` to its own format;
- ``lorebook merge``: every lorebook with that book, to every writable lorebook format;
- ``chat extract``: every Backyard archive, to every writable chat format;
- ``chat embed``: every chat into every Backyard archive;
- ``extract --assets``: every file whose entity carries assets (or a persona's avatar);
- the studio's ``/api/convert``: every readable file, each to one writable format of its kind,
  the formats taken in turn so that every one is written.

Beside the shared files, two packages of our own hold two characters each (:func:`packages`).
"""

from __future__ import annotations

import base64
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from bunzai.engine.reading import Reading, read_file
from bunzai.host.registry import Registry
from bunzai.host.types import WriteResult
from bunzai.io.outputs import OutputFile
from bunzai.loss.report import LossReport
from bunzai.testing import corpus_files, load_registry

from .routing import is_unreadable, routed_files, short_id

OPS = ("lorebook-extract", "lorebook-embed", "lorebook-replace", "lorebook-merge",
       "chat-extract", "chat-embed", "extract-assets", "studio-convert")


@dataclass(frozen=True)
class Case:
    """One command on one file (and the second file it takes), to one target."""

    op: str
    path: Path
    fmt: str
    target: str | None = None
    other: Path | None = None

    @property
    def id(self) -> str:
        more = f"+{short_id(self.other)}" if self.other is not None else ""
        return f"{self.op}:{short_id(self.path)}{more}->{self.target or 'own'}"


@dataclass
class Done:
    """What a case made, wrote and reported; ``refused`` when it named why it wrote nothing."""

    made: list[Any] = field(default_factory=list)
    written: WriteResult | None = None
    target: str | None = None
    refused: str | None = None
    assets: list[tuple[dict[str, Any], bytes | None]] = field(default_factory=list)
    """``extract --assets``: each manifest row with the bytes of the file it names."""
    inputs: list[tuple[Path, str]] = field(default_factory=list)
    """The files the command read, with their formats (the validator compares with them)."""


@cache
def registry() -> Registry:
    return load_registry()


@cache
def packages() -> list[tuple[Path, str]]:
    """Our own packages of two characters (a Voxta package, a Backyard archive), each with its
    own book, picture and (in the archive) chat: a command that takes only the first character
    would lose the second's in silence.  Written once per session to a temporary folder."""
    from bunzai.testing.generated import canonical_examples

    reg = registry()
    first = canonical_examples("character", "rich")[0]
    second = first.model_copy(deep=True)
    second.name = f"{first.name} the Second"
    if second.lorebook is not None:
        for entry in second.lorebook.entries:
            entry.content = f"{entry.content} (as the second tells it)"
    folder = Path(tempfile.mkdtemp(prefix="bunzai-packages-"))
    out = []
    for fmt in ("voxta", "backyard-byaf"):
        if fmt in reg.adapters:
            written = reg.write([first, second], fmt)
            path = folder / f"two-characters{written.files[0].suffix}"
            path.write_bytes(written.files[0].data)
            out.append((path, fmt))
    return out


@cache
def readable() -> dict[Path, tuple[str, Reading]]:
    """Every routed file that reads, as its routed format, and :func:`packages`."""
    reg = registry()
    out: dict[Path, tuple[str, Reading]] = {}
    for path, fmt in [*routed_files(), *packages()]:
        if fmt is None or is_unreadable(path) or fmt not in reg.adapters:
            continue
        found = read_file(path, from_format=fmt, registry=reg)
        if found.ok:
            out[path] = (fmt, found)
    return out


@cache
def book() -> Path:
    """The lorebook embedded and merged: a real World Info file with several entries."""
    return next(p for p in corpus_files("st-worldbook") if "Eldoria" in p.name)


def _writable(kind: str) -> list[str]:
    return [i.id for i in registry().formats(kind) if i.can_write]


@cache
def cases() -> tuple[Case, ...]:
    out: list[Case] = []
    books, chats = _writable("lorebook"), _writable("chat")
    cards = _writable("character")
    byafs = [p for p, (f, _) in readable().items() if f == "backyard-byaf"]
    turn: dict[str, int] = {}
    for path, (fmt, found) in readable().items():
        entity = found.entities[0]
        if found.kind == "character":
            own = entity.lorebook is not None and bool(entity.lorebook.entries)
            if own:
                out += [Case("lorebook-extract", path, fmt, t) for t in books]
                out.append(Case("lorebook-replace", path, fmt, None, book()))
            out += [Case("lorebook-embed", path, fmt, t, book()) for t in cards]
        if found.kind == "lorebook" and path != book():
            out += [Case("lorebook-merge", path, fmt, t, book()) for t in books]
        if fmt == "backyard-byaf":
            out += [Case("chat-extract", path, fmt, t) for t in chats]
        if found.kind == "chat":
            out += [Case("chat-embed", card, "backyard-byaf", None, path) for card in byafs]
        if getattr(entity, "assets", None) or getattr(entity, "avatar", None) is not None:
            out.append(Case("extract-assets", path, fmt))
        targets = _writable(str(found.kind))
        n = turn.get(str(found.kind), 0)
        turn[str(found.kind)] = n + 1
        out.append(Case("studio-convert", path, fmt, targets[n % len(targets)]))
    return tuple(out)


@cache
def run(case: Case) -> Done:
    """Run ``case`` the way its command does; cached for the session."""
    from bunzai.engine import converting

    reg = registry()
    done = Done(inputs=[(case.path, case.fmt)])
    if case.other is not None:
        done.inputs.append((case.other, readable()[case.other][0]))
    if case.op == "extract-assets":
        return _extract_assets(case, done)
    if case.op == "studio-convert":
        return _studio(case, done)
    op = case.op
    if op == "lorebook-extract":
        conv = converting.extract_lorebook(case.path, to=case.target, registry=reg)
    elif op in ("lorebook-embed", "lorebook-replace"):
        entity = readable()[case.path][1].entities[0]
        has = entity.lorebook is not None and bool(entity.lorebook.entries)
        conv = converting.embed_lorebook(case.path, case.other or book(), to=case.target,
                                         replace=op == "lorebook-replace",
                                         merge=has and op == "lorebook-embed", registry=reg)
    elif op == "lorebook-merge":
        conv = converting.merge_lorebooks([case.path, case.other or book()], to=case.target,
                                          registry=reg)
    elif op == "chat-extract":
        conv = converting.extract_chats(case.path, to=case.target, registry=reg)
    elif op == "chat-embed":
        assert case.other is not None
        conv = converting.embed_chat(case.path, case.other, to=case.target, registry=reg)
    else:
        raise AssertionError(op)
    if conv.error is not None:
        done.refused = f"exit {conv.error.exit_code}: {conv.error.message}"
        return done
    assert conv.written is not None and conv.target is not None
    done.made, done.written, done.target = list(conv.made), conv.written, conv.target.id
    return done


def _extract_assets(case: Case, done: Done) -> Done:
    from bunzai.engine.assets import extract_assets

    with tempfile.TemporaryDirectory() as tmp:
        found = extract_assets(case.path, Path(tmp) / "out", from_format=case.fmt,
                               registry=registry())
        if found.error is not None:
            done.refused = f"exit {found.error.exit_code}: {found.error.message}"
            return done
        done.made = list(found.entities)
        for row in found.manifest:
            name = row.get("file")
            data = (Path(tmp) / "out" / name).read_bytes() if name else None
            done.assets.append((dict(row), data))
    return done


def _studio(case: Case, done: Done) -> Done:
    from tests.studio_client import post_convert

    status, body = post_convert(registry(), case.path, case.target or "")
    if status != 200:
        done.refused = f"HTTP {status}: {body.get('error')}"
        return done
    loss = LossReport()
    for entry in body["loss"]:
        loss.add(entry["path"], entry["action"], entry["reason"])
    files = [OutputFile(base64.b64decode(f["data"]), "." + f["name"].split(".", 1)[-1])
             for f in body["files"]]
    done.made = list(readable()[case.path][1].entities)
    done.written = WriteResult(files, loss, list(body.get("warnings") or []))
    done.target = body["to"]
    return done

"""The steps every item of a move takes, whatever its kind and target: read a file of the
library, write entities, gather an item's files and save them atomically with their hashes,
and keep its loss report small."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ConversionRefused
from ...loss.report import LossReport
from .items import Item, Task
from .targets import TARGETS, Target

if TYPE_CHECKING:
    from ...host.registry import Registry
    from ...io.outputs import OutputFile


@dataclass(frozen=True, slots=True)
class Context:
    """What every item of one move needs, handed to each worker once."""

    root: str
    out: str
    target: str
    options: tuple[tuple[str, Any], ...] = ()
    worlds: tuple[tuple[str, str], ...] = ()
    """World name -> file (relative to the root)."""
    extra_books: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Avatar stem -> extra world names (``world_info.charLore``)."""
    global_worlds: frozenset[str] = frozenset()
    sprites: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Sprite folder name -> image files."""
    owned: frozenset[str] = frozenset()
    """Outputs the last run wrote (the manifest's): replaced without ``force``."""
    force: bool = False

    @property
    def spec(self) -> Target:
        return TARGETS[self.target]

    def world_file(self, name: str) -> str | None:
        return dict(self.worlds).get(name)


@dataclass(slots=True)
class _Out:
    """The files of one item, gathered before any is written."""

    files: list[tuple[str, OutputFile]] = field(default_factory=list)
    loss: LossReport = field(default_factory=LossReport)

    def add(self, stem: str, written: Any, prefix: str = "") -> None:
        """The files of one write, named ``stem`` + their suffix (several: ``stem-<name>``)."""
        from ...io.outputs import output_names

        names = output_names(stem, written.files)
        for name, f in zip(names, written.files, strict=True):
            self.files.append((name, f))
        self.loss.extend(written.loss, prefix)

    @classmethod
    def of(cls, stem: str, written: Any) -> _Out:
        """The files of an item that is one write."""
        out = cls()
        out.add(stem, written)
        return out


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _hashing(parts: Iterable[Any], h: Any, size: list[int]) -> Iterator[Any]:
    for part in parts:
        view = memoryview(part)
        h.update(view)
        size[0] += view.nbytes
        yield part


Work = Callable[[Task, Context, "Registry", Item], _Out]
"""What one kind of item does: read its sources into the item, and gather its files."""


def save(item: Item, out: _Out, ctx: Context) -> None:
    """Write the item's files (atomically), each recorded with its hash, and its status from
    their loss; refused whole when one is in the way (a file this move did not write before,
    without ``force``)."""
    from ...io.outputs import make_folder, write_atomic

    root = Path(ctx.out)
    for rel, _ in out.files:
        path = root / rel
        if path.exists() and not ctx.force and rel not in ctx.owned:
            raise ConversionRefused(f"{path} exists and this move did not write it (use "
                                    "--force to replace it, or another --out-dir)")
    for rel, f in out.files:
        path = root / rel
        make_folder(path.parent)
        h, size = hashlib.sha256(), [0]
        write_atomic(path, _hashing(f.parts, h, size), force=True, durable=False)
        item.outputs[rel] = {"sha256": h.hexdigest(), "size": size[0]}
    item.loss = summarize(out.loss)
    item.status = "approximated" if out.loss else "written"


def summarize(loss: LossReport) -> dict[str, Any]:
    """A loss report as the move keeps it: the summary, the counts, the lines people read and
    the groups (without every path, so that a report of any size stays small)."""
    if not loss:
        return {}
    return {"summary": loss.summary(), "counts": loss.counts(), "lines": loss.lines()[1:],
            "groups": [{"path": g.path, "action": g.action, "reason": g.reason,
                        "count": g.count} for g in loss.groups()]}


def _read(ctx: Context, rel: str, item: Item, registry: Registry, *,
          from_format: str | None = None) -> list[Any]:
    from ..reading import read_file

    path = Path(ctx.root) / rel
    item.sources[rel] = sha256_file(path)
    found = read_file(path, from_format=from_format, registry=registry)
    if found.error is not None:
        raise found.error.with_path(rel)
    return found.entities


def _write(entities: Sequence[Any], fmt: str, registry: Registry, options: Any = None) -> Any:
    from ..converting import write_entities
    return write_entities(entities, fmt, options, registry=registry)


def without_secrets(entity: Any, out: _Out) -> Any:
    """``entity`` with every secret of its app data (a proxy password, an API key: the keys
    :func:`.secrets.secret_keys` names) emptied, each reported as dropped: SillyTavern saves its
    connection settings in a chat-completion preset, and a move copies no secret."""
    from .secrets import secret_keys

    app_data: dict[str, Any] = {}
    for ns, data in entity.app_data.items():
        found = secret_keys(data) if isinstance(data, dict) else []
        app_data[ns] = _emptied(data, found)
        for path in found:
            out.loss.dropped(f"app_data.{ns}.{path}", "a secret: never copied")
    return entity.model_copy(update={"app_data": app_data}) if app_data != entity.app_data \
        else entity


def _emptied(data: Any, paths: Sequence[str]) -> Any:
    """A copy of ``data`` whose values at the top-level keys ``paths`` name are empty text
    (deeper secrets empty the whole top-level value, which holds them)."""
    if not paths:
        return data
    tops = {p.split(".", 1)[0].split("[", 1)[0] for p in paths}
    return {k: ("" if isinstance(v, str) else None) if k in tops else v for k, v in data.items()}


def read_all(ctx: Context, rels: Iterable[str], item: Item, registry: Registry) -> list[Any]:
    """The entities of every file of ``rels``, in order."""
    return [e for rel in rels for e in _read(ctx, rel, item, registry)]


def write_chats(out: _Out, folder: str, rels: Sequence[str], fmt: str, ctx: Context,
                item: Item, registry: Registry, name: Callable[[str], str]) -> None:
    """Each chat file of ``rels`` written as ``fmt`` in ``folder``, named after its file
    (``name`` makes it safe), unique in the folder."""
    used: set[str] = set()
    for i, rel in enumerate(rels):
        chat = _read(ctx, rel, item, registry)[0]
        out.add(f"{folder}/{unique(name(Path(rel).stem), used)}",
                _write([chat], fmt, registry), f"chats[{i}].")


def _safe(name: str) -> str:
    from ...io.outputs import safe_name
    return safe_name(name)


def unique(name: str, used: set[str], pattern: str = "{name}-{n}", first: int = 2) -> str:
    """``name``, or ``pattern`` numbered from ``first`` until it is not in ``used`` (compared
    case-insensitively, as file systems and the apps compare names); marked used."""
    cand, n = name, first
    while cand.casefold() in used:
        cand, n = pattern.format(name=name, n=n), n + 1
    used.add(cand.casefold())
    return cand

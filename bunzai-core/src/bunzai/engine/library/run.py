"""Running a move: the tasks through the worker pool, the manifest, resume and the report.

``manifest.json`` in the output folder maps every item to its source files (with their
sha256) and its outputs (with sha256 and size), and records the target and options.  While a
move runs, each finished item is appended to a journal (``.bunzai-library.journal``) and flushed,
so a move that is interrupted loses only the items in flight; at the end the manifest is
written (atomically) and the journal removed.  A rerun skips an item whose sources have the
same bytes, whose target and options are the same and whose outputs are still there, and says
so (``unchanged``); ``force`` redoes everything.  Outputs this move wrote before are replaced;
any other file in the way refuses its item (without ``force``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import UsageError
from . import report
from .items import STATUSES, Item, Task
from .pool import Pool, flush
from .scan import load_json
from .steps import Context, sha256_file
from .work import run_task, warm

if TYPE_CHECKING:
    from ...host.registry import Registry
    from .model import Library
    from .targets import Target

MANIFEST, JOURNAL = "manifest.json", ".bunzai-library.journal"
REPORT_MD, REPORT_JSON = "REPORT.md", "report.json"
RESERVED = (MANIFEST, JOURNAL, REPORT_MD, REPORT_JSON)
UNCHANGED = "unchanged since the last run"


def check_out_dir(root: Path, out: Path) -> None:
    """The output folder is neither the library nor inside it (a move never writes in its
    source), nor does it hold the library."""
    src, dst = root.resolve(), out.resolve()
    if dst == src or src in dst.parents:
        raise UsageError("the output folder is inside the library: bunzai never writes in "
                         "the source folder; choose another --out-dir", path=str(out))
    if dst in src.parents:
        raise UsageError("the library is inside the output folder; choose another --out-dir",
                         path=str(out))


class Previous:
    """What the last run into this folder did: its manifest, and the journal of a run that
    was interrupted."""

    def __init__(self, out: Path, force: bool) -> None:
        self.items: dict[str, dict[str, Any]] = {}
        self.interrupted = False
        if force:
            return
        data = load_json(out / MANIFEST)
        if isinstance(data, dict) and isinstance(data.get("items"), dict):
            self.items.update(data["items"])
        journal = out / JOURNAL
        if journal.is_file():
            self.interrupted = True
            for line in journal.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # a line cut by the interruption
                if isinstance(rec, dict) and "id" in rec:
                    self.items[rec["id"]] = rec

    def owned(self) -> frozenset[str]:
        return frozenset(o for rec in self.items.values() for o in rec.get("outputs") or {})

    def done(self, task: Task, ctx: Context) -> Item | None:
        """The last run's item, when it needs no work now."""
        rec = self.items.get(task.id)
        if not rec or rec.get("status") not in ("written", "approximated", "unchanged"):
            return None
        if rec.get("target") != ctx.target or rec.get("options") != dict(ctx.options):
            return None
        sources: dict[str, str] = rec.get("sources") or {}
        if not set(task.sources) <= set(sources):
            return None
        root, out = Path(ctx.root), Path(ctx.out)
        for rel, meta in (rec.get("outputs") or {}).items():
            try:
                if (out / rel).stat().st_size != meta.get("size"):
                    return None
            except OSError:
                return None
        for rel, digest in sources.items():
            try:
                if sha256_file(root / rel) != digest:
                    return None
            except OSError:
                return None
        item = Item.from_dict(rec)
        if item.status != "unchanged":
            item.was = item.status
            item.notes = [*item.notes, f"{UNCHANGED} ({item.status})"]
        item.status = "unchanged"
        return item


class LibraryConversion:
    """One move of a library into a target: planned on creation, done when :meth:`run` is
    iterated (one :class:`Item` per item, as each is done), reported at its end.

    Items are not kept: each is appended to the journal as it is done, and the manifest and
    the report are written from the journal at the end, one item at a time, so the memory of
    a move does not grow with the library."""

    def __init__(self, lib: Library, spec: Target, out_dir: Path, ctx: Context,
                 tasks: list[Task], dropped: list[Item], jobs: int, registry: Registry,
                 later: Any = None) -> None:
        self.library = lib
        self.spec = spec
        self.out_dir = out_dir
        self.ctx = ctx
        self.tasks = tasks
        self.dropped = dropped
        self.jobs = jobs
        self.registry = registry
        self._later = later
        self.previous = Previous(out_dir, ctx.force)
        self.exit_code = 0
        self.done = 0
        self.table: dict[str, dict[str, int]] = {}
        """Items done so far by type and status."""
        self.carried: set[str] = set()
        """Worlds the cards carried (the rest are moved on their own)."""
        self.files: dict[str, list[str]] = {}
        """Every source file and the outputs made from it."""
        self._index: list[tuple[str, str, str, int, int]] = []
        """(id, kind, sort key, offset, length) of each item's line in the journal."""
        self._started = False

    @property
    def size(self) -> int:
        """Items known so far (worlds no card carries join once the cards are done)."""
        return len(self.tasks) + len(self.dropped)

    def counts(self) -> dict[str, int]:
        """Items done so far by status."""
        found: dict[str, int] = {}
        for row in self.table.values():
            for status, n in row.items():
                found[status] = found.get(status, 0) + n
        return found

    def run(self) -> Iterator[Item]:
        """Do the move: each item as it is done, then the manifest and the report."""
        if self._started:
            raise RuntimeError("a move runs once")
        self._started = True
        ctx = replace(self.ctx, owned=self.previous.owned())
        journal = (self.out_dir / JOURNAL).open("ab")
        if self.jobs > 1:
            warm(ctx, self.registry)  # imported once here, not once in each worker
        try:
            with Pool(run_task, ctx, self.jobs, self.registry) as pool:
                yield from self._phase(self.tasks, ctx, journal, pool)
                if self._later is not None:
                    tasks, dropped = self._later(set(self.carried))
                    self.tasks.extend(tasks)
                    self.dropped.extend(dropped)
                    yield from self._phase(tasks, ctx, journal, pool)
            for item in self.dropped:
                item.target, item.options = ctx.target, dict(ctx.options)
                self._record(item, journal)
                yield item
        finally:
            journal.close()
        flush()
        self._finish()

    def _phase(self, tasks: list[Task], ctx: Context, journal: Any, pool: Pool
               ) -> Iterator[Item]:
        todo = []
        for task in tasks:
            done = self.previous.done(task, ctx)
            if done is not None:
                self._record(done, journal)
                yield done
            else:
                todo.append(task)
        for item in pool.map(todo, size=lambda t: t.size):
            self._record(item, journal)
            yield item

    def _record(self, item: Item, journal: Any) -> None:
        self.done += 1
        self.exit_code = max(self.exit_code, item.exit_code)
        row = self.table.setdefault(item.kind, {})
        row[item.status] = row.get(item.status, 0) + 1
        self.carried.update(item.worlds)
        for src in item.sources:
            self.files.setdefault(src, []).extend(item.outputs)
        line = (json.dumps(item.to_dict(), ensure_ascii=False) + "\n").encode("utf-8")
        key = f"{STATUSES.index(item.status)}\0{item.name.casefold()}"
        self._index.append((item.id, item.kind, key, journal.tell(), len(line)))
        journal.write(line)
        journal.flush()

    def facts(self) -> dict[str, Any]:
        return {"library": str(self.library.root), "layout": self.library.layout,
                "target": self.spec.id, "out_dir": str(self.out_dir),
                "options": dict(self.ctx.options),
                "secrets": list(self.library.secrets), "exit_code": self.exit_code}

    def _finish(self) -> None:
        facts = self.facts()
        table = self.summary()
        with (self.out_dir / JOURNAL).open("rb") as journal:
            def read(offset: int, length: int) -> dict[str, Any]:
                journal.seek(offset)
                found: dict[str, Any] = json.loads(journal.read(length))
                return found

            by_id = sorted(self._index)
            head = {"version": 1, **facts,
                    "files": {k: sorted(v) for k, v in sorted(self.files.items())}}

            def manifest() -> Iterator[bytes]:
                yield _open_object(head, "items")
                for n, (id_, _, _, off, length) in enumerate(by_id):
                    rec = _as_recorded(read(off, length))
                    yield (("," if n else "") + "\n  " + json.dumps(id_, ensure_ascii=False)
                           + ": " + json.dumps(rec, ensure_ascii=False)).encode("utf-8")
                yield b"\n }\n}\n"

            def report_json() -> Iterator[bytes]:
                yield _open_object({**facts, "summary": table}, "items", "[")
                for n, (_, _, _, off, length) in enumerate(by_id):
                    yield (("," if n else "") + "\n  "
                           + json.dumps(read(off, length), ensure_ascii=False)).encode("utf-8")
                yield b"\n ]\n}\n"

            kinds = list(dict.fromkeys(kind for _, kind, _, _, _ in self._index))

            def items_of(kind: str) -> Iterator[Item]:
                for _, k, _, off, length in sorted(self._index, key=lambda r: (r[1], r[2])):
                    if k == kind:
                        yield Item.from_dict(read(off, length))

            def report_md() -> Iterator[bytes]:
                for text in report.markdown(facts, table, kinds, items_of):
                    yield text.encode("utf-8")

            for name, parts in ((MANIFEST, manifest), (REPORT_JSON, report_json),
                                (REPORT_MD, report_md)):
                _write_if_changed(self.out_dir / name, parts)
        os.unlink(self.out_dir / JOURNAL)

    def summary(self) -> dict[str, dict[str, int]]:
        """Items per type and status, with a ``total`` row (the terminal's summary)."""
        return report.table(self.table)

    def to_dict(self) -> dict[str, Any]:
        return {**self.facts(), "summary": self.summary(),
                "report": str(self.out_dir / REPORT_MD)}


def _open_object(head: dict[str, Any], key: str, bracket: str = "{") -> bytes:
    """The start of a JSON object: ``head``'s keys, then ``key`` opening ``bracket``."""
    text = json.dumps(head, ensure_ascii=False, indent=1)
    return (text[: text.rfind("}")].rstrip() + f',\n "{key}": {bracket}').encode("utf-8")


def _as_recorded(rec: dict[str, Any]) -> dict[str, Any]:
    """An item as the manifest keeps it: one found unchanged as the run that wrote it."""
    if rec.get("status") == "unchanged" and rec.get("was"):
        rec["status"] = rec.pop("was")
        rec["notes"] = [n for n in rec.get("notes", []) if not n.startswith(UNCHANGED)]
        if not rec["notes"]:
            del rec["notes"]
    return rec


def _write_if_changed(path: Path, parts: Any) -> None:
    """Write ``parts()`` to ``path`` atomically, unless the file holds those bytes already (a
    rerun that did nothing rewrites nothing)."""
    import hashlib

    from ...io.outputs import write_atomic

    h = hashlib.sha256()
    size = 0
    for part in parts():
        h.update(part)
        size += len(part)
    try:
        if path.stat().st_size == size and sha256_file(path) == h.hexdigest():
            return
    except OSError:
        pass
    write_atomic(path, parts(), force=True)

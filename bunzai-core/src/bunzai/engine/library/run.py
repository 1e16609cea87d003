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
from .items import Item, Task
from .pool import flush, run_pool
from .work import Context, run_task, sha256_file

if TYPE_CHECKING:
    from ...host.registry import Registry
    from .model import Library
    from .targets import Target

MANIFEST, JOURNAL = "manifest.json", ".bunzai-library.journal"
REPORT_MD, REPORT_JSON = "REPORT.md", "report.json"
RESERVED = (MANIFEST, JOURNAL, REPORT_MD, REPORT_JSON)


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
        self.kept: dict[str, dict[str, Any]] = {}
        """The records of the items found unchanged, as the run that wrote them made them."""
        self.interrupted = False
        if force:
            return
        data = _load(out / MANIFEST)
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
        item.status = "unchanged"
        self.kept[task.id] = rec
        item.notes = [*item.notes, f"unchanged since the last run ({rec.get('status')})"]
        return item


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


class Move:
    """One move of a library into a target: planned on creation, done when :meth:`run` is
    iterated (one :class:`Item` per item, as each is done), reported at its end."""

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
        self.items: list[Item] = []
        self.exit_code = 0
        self._started = False

    @property
    def size(self) -> int:
        """Items known so far (worlds no card carries join once the cards are done)."""
        return len(self.tasks) + len(self.dropped)

    @property
    def done(self) -> int:
        return len(self.items)

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for item in self.items:
            found[item.status] = found.get(item.status, 0) + 1
        return found

    def run(self) -> Iterator[Item]:
        """Do the move: each item as it is done, then the manifest and the report."""
        if self._started:
            raise RuntimeError("a move runs once")
        self._started = True
        ctx = replace(self.ctx, owned=self.previous.owned())
        journal = (self.out_dir / JOURNAL).open("a", encoding="utf-8")
        try:
            yield from self._phase(self.tasks, ctx, journal)
            if self._later is not None:
                carried = {w for item in self.items for w in item.worlds}
                tasks, dropped = self._later(carried)
                self.tasks.extend(tasks)
                self.dropped.extend(dropped)
                yield from self._phase(tasks, ctx, journal)
            for item in self.dropped:
                item.target, item.options = ctx.target, dict(ctx.options)
                self._record(item, journal)
                yield item
        finally:
            journal.close()
        flush()
        self._finish()

    def _phase(self, tasks: list[Task], ctx: Context, journal: Any) -> Iterator[Item]:
        todo = []
        for task in tasks:
            done = self.previous.done(task, ctx)
            if done is not None:
                self._record(done, journal)
                yield done
            else:
                todo.append(task)
        for item in run_pool(run_task, todo, ctx, self.jobs, self.registry,
                             size=lambda t: t.size):
            self._record(item, journal)
            yield item

    def _record(self, item: Item, journal: Any) -> None:
        self.items.append(item)
        self.exit_code = max(self.exit_code, item.exit_code)
        journal.write(json.dumps(item.to_dict(), ensure_ascii=False) + "\n")
        journal.flush()

    def facts(self) -> dict[str, Any]:
        return {"library": str(self.library.root), "layout": self.library.layout,
                "target": self.spec.id, "out_dir": str(self.out_dir),
                "options": dict(self.ctx.options),
                "secrets": list(self.library.secrets), "exit_code": self.exit_code}

    def _finish(self) -> None:
        from ...io.outputs import write_atomic

        items = sorted(self.items, key=lambda i: i.id)
        facts = self.facts()
        files: dict[str, list[str]] = {}
        for item in items:
            for src in item.sources:
                files.setdefault(src, []).extend(item.outputs)
        records = {i.id: self.previous.kept.get(i.id) or i.to_dict() for i in items}
        manifest = {"version": 1, **facts, "files": files, "items": records}
        for name, data in (
                (MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1)),
                (REPORT_JSON, json.dumps(report.as_json(facts, items), ensure_ascii=False,
                                         indent=1)),
                (REPORT_MD, report.markdown(facts, items))):
            path, raw = self.out_dir / name, data.encode("utf-8")
            if not path.is_file() or path.read_bytes() != raw:  # a rerun rewrites nothing
                write_atomic(path, raw, force=True)
        os.unlink(self.out_dir / JOURNAL)

    def summary(self) -> dict[str, dict[str, int]]:
        return report.summarize(self.items)

    def to_dict(self) -> dict[str, Any]:
        return {**self.facts(), "summary": self.summary(),
                "report": str(self.out_dir / REPORT_MD)}

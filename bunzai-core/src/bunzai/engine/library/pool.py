"""The library's worker pool: the batch's processes (forked with the parent's registry), fed
the largest work first and answering as each piece is done.

A library's pieces differ in size by a hundred times (a card alone, a card with megabytes of
chats), so the pieces are handed out one at a time, largest first: two workers end together
instead of one waiting on the last big character.  What a piece needs beyond itself (the
library's root, the target, the world index) goes to each worker once, at its start.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from ..batch import _flush_to_disk, _load_registry

if TYPE_CHECKING:
    from ...host.registry import Registry

T = TypeVar("T")
R = TypeVar("R")
Work = Callable[[T, Any, "Registry"], R]

_registry: Any = None
_context: Any = None
_work: Any = None


def _init(context: Any, work: Any) -> None:
    global _registry, _context, _work
    if _registry is None:
        _registry = _load_registry()
    _context, _work = context, work


def _run(item: Any) -> Any:
    return _work(item, _context, _registry)


class Pool:
    """Worker processes kept for a whole move (both of its phases), so that each worker
    imports the readers and writers once; ``workers`` 1: the work runs in this process."""

    def __init__(self, work: Work[Any, Any], context: Any, workers: int,
                 registry: Registry | None = None) -> None:
        self.work, self.context, self.workers = work, context, workers
        self.registry = registry if registry is not None else _load_registry()
        self._pool: Any = None

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        global _registry
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
            _registry = None

    def _executor(self) -> Any:
        global _registry
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor

            ctx = None
            if os.name == "posix":
                import multiprocessing
                ctx = multiprocessing.get_context("fork")
            _registry = self.registry  # what forked workers start with
            self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_init,
                                             initargs=(self.context, self.work),
                                             mp_context=ctx)
        return self._pool

    def map(self, items: Iterable[T], size: Callable[[T], int] | None = None) -> Iterator[Any]:
        """Each item's result as it is done; with ``size``, the largest items go first."""
        todo = list(items)
        if size is not None:
            todo.sort(key=size, reverse=True)
        if self.workers <= 1 or not todo:
            for item in todo:
                yield self.work(item, self.context, self.registry)
            return
        from concurrent.futures import FIRST_COMPLETED, wait

        pool = self._executor()
        queue = iter(todo)
        running = {pool.submit(_run, item) for item in _take(queue, self.workers * 2)}
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for _ in done:
                running |= {pool.submit(_run, item) for item in _take(queue, 1)}
            for fut in done:
                yield fut.result()


def run_pool(work: Work[T, R], items: Iterable[T], context: Any, workers: int,
             registry: Registry | None = None, *, size: Callable[[T], int] | None = None
             ) -> Iterator[R]:
    """``work(item, context, registry)`` for every item, in ``workers`` processes (1: in this
    one), yielding each result as it is done; with ``size``, the largest items go first."""
    with Pool(work, context, workers, registry) as pool:
        yield from pool.map(items, size)


def _take(queue: Iterator[T], n: int) -> list[T]:
    out = []
    for item in queue:
        out.append(item)
        if len(out) == n:
            break
    return out


def flush() -> None:
    """One flush of the file system for the whole move (see :mod:`bunzai.engine.batch`)."""
    _flush_to_disk()

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


def run_pool(work: Work[T, R], items: Iterable[T], context: Any, workers: int,
             registry: Registry | None = None, *, size: Callable[[T], int] | None = None
             ) -> Iterator[R]:
    """``work(item, context, registry)`` for every item, in ``workers`` processes (1: in this
    one), yielding each result as it is done; with ``size``, the largest items go first."""
    global _registry
    todo = list(items)
    if size is not None:
        todo.sort(key=size, reverse=True)
    reg = registry if registry is not None else _load_registry()
    if workers <= 1 or len(todo) <= 1:
        for item in todo:
            yield work(item, context, reg)
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    ctx = None
    if os.name == "posix":
        import multiprocessing
        ctx = multiprocessing.get_context("fork")
    _registry = reg
    try:
        with ProcessPoolExecutor(max_workers=workers, initializer=_init,
                                 initargs=(context, work), mp_context=ctx) as pool:
            queue = iter(todo)
            running = {pool.submit(_run, item) for item in _take(queue, workers * 2)}
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for _ in done:
                    running |= {pool.submit(_run, item) for item in _take(queue, 1)}
                for fut in done:
                    yield fut.result()
    finally:
        _registry = None


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

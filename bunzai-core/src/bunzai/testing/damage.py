"""Deterministic damage for tests: the same JSON with values swapped for wrong types or removed.

Format tests use it to check that damaged files give a clear error or a tolerant read, never a
crash, and that whatever reads also writes back unchanged.  A format adds values that matter
to it (a macro string, a date, an object shaped like one of its own) through ``junk``.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..host.registry import Registry

JUNK: tuple[Any, ...] = (None, True, 0, -1, 1.5, "", "x", [], {}, [None], {"a": None}, [1, "a"])
"""Values of every JSON type, empty and not."""


def damage(rng: random.Random, doc: Any, junk: Sequence[Any] = JUNK) -> None:
    """One change somewhere in ``doc``, in place: a value replaced by junk, or a key removed."""
    x = doc
    while True:
        if isinstance(x, dict) and x:
            k = rng.choice(list(x))
            r = rng.random()
            if r < 0.3:
                x[k] = copy.deepcopy(rng.choice(junk))
                return
            if r < 0.45:
                del x[k]
                return
            x = x[k]
        elif isinstance(x, list) and x:
            i = rng.randrange(len(x))
            if rng.random() < 0.4:
                x[i] = copy.deepcopy(rng.choice(junk))
                return
            x = x[i]
        else:
            return


def damaged(docs: Sequence[Any], count: int, seed: int = 0,
            junk: Sequence[Any] = JUNK) -> Iterator[Any]:
    """``count`` damaged copies of ``docs`` (one to four changes each), reproducibly."""
    rng = random.Random(seed)
    for _ in range(count):
        doc = copy.deepcopy(rng.choice(list(docs)))
        for _ in range(rng.randint(1, 4)):
            damage(rng, doc, junk)
        yield doc


def check_damaged_round_trips(registry: Registry, format_id: str, docs: Sequence[Any],
                              count: int = 150, seed: int = 3,
                              exact: Callable[[Any], bool] = lambda doc: True) -> int:
    """Read ``count`` damaged copies of ``docs`` as ``format_id``: each read fails with a clean
    :class:`~bunzai.errors.BunzaiError` or gives entities that validate without raising and
    write back as the same JSON (for the documents ``exact`` accepts; a format that rewrites
    some containers says which).  Returns how many were read; raises AssertionError with the
    first document that breaks the rule."""
    import json

    from ..errors import BunzaiError
    from ..io.input import as_input

    handle = registry.get(format_id)
    read = 0
    for doc in damaged(docs, count, seed):
        data = json.dumps(doc).encode()
        try:
            _, res, _ = registry.read(as_input(data, "d.json"), format=format_id)
        except BunzaiError:
            continue
        read += 1
        out = registry.write(res.entities, format_id)
        registry.validate(handle, as_input(data, "d.json"), res.entities)
        if exact(doc) and json.loads(out.files[0].data) != doc:
            raise AssertionError(f"{format_id} did not write back what it read: "
                                 f"{json.dumps(doc)[:300]}")
    return read

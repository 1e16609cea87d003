"""Deterministic damage for tests: the same JSON with values swapped for wrong types or removed.

Format tests use it to check that damaged files give a clear error or a tolerant read, never a
crash, and that whatever reads also writes back unchanged.  A format adds values that matter
to it (a macro string, a date, an object shaped like one of its own) through ``junk``.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator, Sequence
from typing import Any

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

"""Declared signatures only spare detection calls: on every file we have and on mutations of
them, detection finds the same candidates, scores, reasons and winner as asking every adapter.

An adapter's ``signature`` names the containers and marks (JSON top-level keys, PNG text
keywords, zip names) without which its ``detect`` scores 0.  A mark list that is too narrow
would silently drop a candidate (or a winner) for files nobody tested; this compares the two
registries on the real corpus, the chat corpus, the samples, the fuzz seeds (hostile cases,
every writer's output, EXIF variants), the fuzz regressions and fixed-seed mutations of the
seeds.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bunzai.host.registry import Registry
from bunzai.io.input import as_input
from bunzai.testing import (
    chats_corpus_dir,
    corpus_dir,
    detection_outline,
    samples_dir,
    without_signatures,
)

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the fuzz package at the root
    sys.path.insert(0, str(ROOT))

MUTATIONS = 1500
"""Fixed-seed mutated inputs compared (the same ones on every run)."""


def _files() -> Iterator[tuple[str, bytes]]:
    for root in (corpus_dir(), chats_corpus_dir(), samples_dir()):
        if root.is_dir():
            for p in sorted(root.rglob("*")):
                if p.is_file() and p.suffix not in (".tsv", ".md"):
                    yield p.relative_to(root.parent).as_posix(), p.read_bytes()
    from tests.fuzz_regressions import regressions

    for case in regressions():
        yield f"fuzz-regression:{case.name}", case.data


def _seeds() -> dict[str, list[bytes]]:
    from fuzz.seeds import all_seeds

    return all_seeds(real=True)


def _differences(registry: Registry, unsigned: Registry,
                 inputs: Iterator[tuple[str, bytes]]) -> list[str]:
    bad = []
    for name, data in inputs:
        with_sig = detection_outline(registry.detect(as_input(data, "input")))
        without = detection_outline(unsigned.detect(as_input(data, "input")))
        if with_sig != without:
            bad.append(f"{name}: with signatures {with_sig[1]} winner {with_sig[3]}; "
                       f"asking every adapter {without[1]} winner {without[3]}")
    return bad


@pytest.fixture(scope="module")
def unsigned(registry: Registry) -> Registry:
    return without_signatures(registry)


def test_signatures_are_declared(registry: Registry) -> None:
    missing = [h.id for h in registry.adapters.values() if h.info.signature is None]
    assert missing == [], f"adapters without a signature: {missing}"


def test_real_files_and_samples_route_the_same(registry: Registry, unsigned: Registry) -> None:
    bad = _differences(registry, unsigned, _files())
    assert not bad, "\n".join(bad[:20])


def test_fuzz_seeds_route_the_same(registry: Registry, unsigned: Registry) -> None:
    seeds = _seeds()
    inputs = ((f"seed:{fam}[{i}]", data) for fam, pool in seeds.items()
              for i, data in enumerate(pool))
    bad = _differences(registry, unsigned, inputs)
    assert not bad, "\n".join(bad[:20])


def test_mutated_inputs_route_the_same(registry: Registry, unsigned: Registry) -> None:
    import warnings

    from fuzz.mutate import byte_mutator, mutate

    warnings.simplefilter("ignore")  # Pillow's complaints about mutated images
    seeds = _seeds()
    rng = random.Random("signatures")
    mb = byte_mutator(rng)
    pool = [(fam, data) for fam, items in sorted(seeds.items()) for data in items]

    def inputs() -> Iterator[tuple[str, bytes]]:
        for i in range(MUTATIONS):
            fam, data = rng.choice(pool)
            for _ in range(rng.choice((1, 1, 2, 3))):
                data = mutate(data, rng, mb, 128 * 1024)
            yield f"mutation {i} of a {fam} seed", data

    bad = _differences(registry, unsigned, inputs())
    assert not bad, "\n".join(bad[:20])

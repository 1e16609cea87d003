"""No silent loss in any writing command: what each command writes, read back, is what it made,
except where its report says otherwise.

``convert`` is held to this by the matrix; here every other writing command (see
:mod:`tests.command_outputs` for the cases) is.  "What it made" is the entity the command
handed to the writer: the card with the book embedded, the merged book, the extracted chat, or,
for the studio, what was read.  Each output is read back as the format written and compared
with it (:func:`bunzai.loss.rule.changes`); a difference the command's loss report does not
cover fails.  ``extract --assets`` writes files rather than a format, so each embedded asset
must be written whole, byte for byte, and every asset must have its manifest row.  A command may
refuse (a card format with no place for a book, a card with no chats): that is named, not
silent, and nothing is written.
"""

from __future__ import annotations

from typing import Any

import pytest

from bunzai.io.input import as_input
from bunzai.loss.rule import changes
from bunzai.testing import require_corpus

from .command_outputs import Case, Done, cases, registry, run

require_corpus()


def _params() -> list[Any]:
    return [pytest.param(c, id=c.id) for c in cases()]


def silent_changes(done: Done) -> list[str]:
    """Every difference between what was made and what reads back that the report misses."""
    assert done.written is not None and done.target is not None
    reg = registry()
    back: list[Any] = []
    for f in done.written.files:
        _, read, _ = reg.read(as_input(f.data, f"out{f.suffix}"), format=done.target)
        back.extend(read.entities)
    if len(back) != len(done.made):
        return [f"made {len(done.made)} entities, {done.target} reads back {len(back)}"]
    many, loss = len(done.made) > 1, done.written.loss
    out = []
    for i, (made, got) in enumerate(zip(done.made, back, strict=True)):
        for path in changes(made, got, reg.neutrality):
            shown = f"[{i}].{path}" if many else path
            if not (loss.covers(shown) or (not many and loss.covers(f"[0].{path}"))):
                out.append(shown)
    return out


def missing_assets(done: Done) -> list[str]:
    """Assets ``extract --assets`` did not write whole, or left out of its manifest."""
    items = []
    for entity in done.made:  # every entity's: a package of several characters has each one's
        if entity.kind == "persona" and entity.avatar is not None:
            items.append(entity.avatar)
        else:
            items += list(getattr(entity, "assets", None) or [])
    if len(done.assets) != len(items):
        return [f"{len(items)} assets, {len(done.assets)} manifest rows"]
    out = []
    for i, (asset, (row, data)) in enumerate(zip(items, done.assets, strict=True)):
        if row.get("name") != asset.name:
            out.append(f"assets[{i}]: manifest row names {row.get('name')!r}, not {asset.name!r}")
        elif asset.data is not None and data != asset.data:
            out.append(f"assets[{i}] ({asset.name}): the file written is not the asset's bytes")
        elif asset.data is None and row.get("file") is not None:
            out.append(f"assets[{i}] ({asset.name}): a file for an asset with no bytes")
    return out


@pytest.mark.parametrize("case", _params())
def test_every_command_writes_what_it_made_or_says_what_it_lost(case: Case) -> None:
    done = run(case)
    if done.refused is not None:
        assert done.refused.split(":")[0] in ("exit 2", "exit 5", "HTTP 400", "HTTP 409"), (
            f"{case.id} failed instead of writing or refusing: {done.refused}")
        return
    problems = missing_assets(done) if case.op == "extract-assets" else silent_changes(done)
    assert not problems, f"{case.id}: changed without a word in the report: {problems[:10]}"


def test_the_cases_reach_every_command() -> None:
    """Each command runs on real files (a corpus change that left one out would pass
    vacuously), and most of its cases write."""
    by_op: dict[str, list[bool]] = {}
    for c in cases():
        by_op.setdefault(c.op, []).append(run(c).refused is None)
    from .command_outputs import OPS

    for op in OPS:
        wrote = by_op.get(op, [])
        assert sum(wrote) >= 3, f"{op}: {sum(wrote)} of {len(wrote)} cases wrote anything"


def test_a_package_of_several_characters_gives_every_ones_book_and_pictures() -> None:
    """What a command makes is checked above against what it writes; here, that it makes
    something of every character, not only of the first."""
    from .command_outputs import packages, readable

    for path, _fmt in packages():
        entities = readable()[path][1].entities
        assert len(entities) == 2
        books = [e for e in entities if e.lorebook is not None and e.lorebook.entries]
        done = run(Case("lorebook-extract", path, _fmt, "sillytavern-lorebook"))
        assert done.refused is None and len(done.made) == len(books) == 2, done.refused
        assert done.written is not None and len(done.written.files) == 2
        done = run(Case("extract-assets", path, _fmt))
        assert {row.get("entity") for row, _ in done.assets} == {0, 1}

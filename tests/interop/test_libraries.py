"""Every output bunzai writes from the corpus and the samples, opened by the ecosystem's own
libraries (ccardlib, character-card-utils, Character Foundry) with the machine's Node.js.

Each output must be accepted by every library that reads its container, and every field a user
sees, as the library parsed it, must equal ``bunzai.read`` of the source or be named in the
loss report.  What goes where is described in :mod:`.cases`; docs/reliability.md has the table.

One exception, counted apart in the session summary: a file rewritten in its own format and
spec keeps the source's shape, so where a library refuses the source file itself, the
rewrite may be refused the same way (never another way).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bunzai.io.input import as_input
from bunzai.testing import require_corpus

from . import cases as C
from .conftest import TALLY
from .node import Checker

require_corpus()

CCARDLIB = "@risuai/ccardlib character.check"
CCARDLIB_BOOK = "@risuai/ccardlib lorebook.convert"
CCU = "character-card-utils safeParseToV2"
CF_CARD = "@character-foundry/character-foundry parseCard"
CF_BOOK = "@character-foundry/character-foundry parseLorebook"
CF_SCHEMA = "@character-foundry/character-foundry strict schemas"
CF_VOXTA = "@character-foundry/character-foundry readVoxta"

CASES = [pytest.param(p, f, v, id=i) for p, f, v, i in C.cases()]


def _count(library: str, outcome: str) -> None:
    counts = TALLY.setdefault(library, {})
    counts["checked"] = counts.get("checked", 0) + 1
    if outcome != "refused":
        counts[outcome] = counts.get(outcome, 0) + 1


class Judge:
    """Collects the problems of one output and counts each library's verdict."""

    def __init__(self, same_format: bool) -> None:
        self.same_format = same_format
        self.problems: list[str] = []

    def verdict(self, library: str, problem: str | None, source_problem: Any = None,
                source_known: bool = False) -> bool:
        """Record a library's verdict; True when it accepted (fields may then be compared)."""
        if problem is None:
            _count(library, "accepted")
            return True
        if self.same_format and source_known and source_problem == problem:
            _count(library, "inherited")
            return False
        _count(library, "refused")
        self.problems.append(f"{library}: {problem}")
        return False


def _card_json_items(objects: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for _where, obj in objects:
        items.append({"op": "card_json", "card": obj})
        book = C.book_of(obj)
        if book is not None:
            items.append({"op": "book_json", "book": book[0], "spec": book[1]})
    return items


def _ccardlib_problem(obj: Any, r: dict[str, Any]) -> str | None:
    want = C.expected_check(obj)
    got = r.get("ccardlib_check")
    if got != want:
        return f"CCardLib.character.check says {got!r} for a card that declares {want}"
    if r.get("ccardlib_error"):
        return f"CCardLib.character.convert failed: {r['ccardlib_error']}"
    return None


def _ccu_problem(obj: Any, r: dict[str, Any]) -> str | None:
    want = C.expected_check(obj)
    if r.get("ccu") is None:
        return f"safeParseToV2 refuses it: {r.get('ccu_error')}"
    if r.get("ccu_as") != want:
        return f"its V2 parser refuses it ({r.get('ccu_v2_error')}); only the V1 fallback reads it"
    return None


def _book_problem(r: dict[str, Any]) -> str | None:
    if r.get("ccardlib_book_error"):
        return f"CCardLib.lorebook.convert failed: {r['ccardlib_book_error']}"
    if r.get("ccardlib_book_check") != r.get("ccardlib_book_to"):
        return (f"the book converted to {r.get('ccardlib_book_to')} fails ccardlib's schema "
                f"(check says {r.get('ccardlib_book_check')!r})")
    return None


def _schema_problem(issues: Any, what: str) -> str | None:
    return None if not issues else f"{what} fails the strict schema: {issues}"


@pytest.mark.parametrize(("path", "fmt", "variant"), CASES)
def test_the_libraries_open_it_and_see_the_source(path: Path, fmt: str, variant: C.Variant,
                                                  checker: Checker, tmp_path: Path) -> None:
    entity = C.read_source(path, fmt)
    result = C.registry().write([entity], variant.target, dict(variant.options))
    assert len(result.files) == 1, f"{variant.label} wrote {len(result.files)} files"
    out = result.files[0]
    data = out.data
    loss = result.loss
    judge = Judge(variant.target == fmt)
    if variant.target in C.VOXTA_TARGETS:
        _check_voxta(entity, data, loss, checker, tmp_path, judge)
    elif entity.kind == "character":
        _check_character(path, fmt, variant, entity, data, out.suffix, loss, checker, tmp_path,
                         judge)
    else:
        _check_lorebook(path, variant, entity, data, out.suffix, loss, checker, tmp_path,
                        judge)
    assert not judge.problems, "\n".join(judge.problems)


def _check_character(path: Path, fmt: str, variant: C.Variant, entity: Any, data: bytes,
                     suffix: str, loss: Any, checker: Checker, tmp_path: Path,
                     judge: Judge) -> None:
    objects = C.card_objects(data, suffix, variant.target)
    assert objects, f"no card JSON found in the {variant.label} output"
    items = _card_json_items(objects)
    source_objects = (C.card_objects(path.read_bytes(), path.suffix, fmt)
                      if judge.same_format else [])
    source_items = _card_json_items(source_objects)
    container = as_input(data, f"out{suffix}").container
    file_item: dict[str, Any] | None = None
    if C.cf_reads(container, variant.target):
        target = tmp_path / f"out{suffix}"
        target.write_bytes(data)
        file_item = {"op": "card_file", "path": str(target), "icon": str(tmp_path / "icon")}
    answers = checker.run(items + source_items + ([file_item] if file_item else []))
    results, rest = answers[:len(items)], answers[len(items):]
    source_results = rest[:len(source_items)]
    file_result = rest[len(source_items):][0] if file_item else None

    # what each library made of the source's own card objects, by the spec they declare
    seen: dict[str, dict[str, Any]] = {}
    pos = 0
    for _where, obj in source_objects:
        entry: dict[str, Any] = {"card": source_results[pos]}
        pos += 1
        if C.book_of(obj) is not None:
            entry["book"] = source_results[pos]
            pos += 1
        seen.setdefault(C.expected_check(obj), entry)

    pos = 0
    for where, obj in objects:
        r = results[pos]
        pos += 1
        spec = C.expected_check(obj)
        src = seen.get(spec)
        src_card = src["card"] if src else None
        who = f"{where} ({spec})"
        # ccardlib
        problem = _ccardlib_problem(obj, r)
        if judge.verdict(CCARDLIB, problem and f"{who}: {problem}",
                         src_card and _ccardlib_problem(obj, src_card) and
                         f"{who}: {_ccardlib_problem(obj, src_card)}", src_card is not None):
            names = C.V1_FIELDS if r.get("ccardlib_check") == "v1" else C.CARD_FIELDS
            judge.problems += C.compare_fields(r["ccardlib"], entity, loss,
                                               f"ccardlib {who}", names)
            if r.get("ccardlib_check") != "v1" and entity.lorebook is not None:
                judge.problems += C.compare_entries(r["ccardlib"].get("book"),
                                                    entity.lorebook.entries, loss, "lorebook.",
                                                    f"ccardlib {who}")
        # character-card-utils reads V1 and V2 cards
        if spec in ("v1", "v2"):
            problem = _ccu_problem(obj, r)
            if judge.verdict(CCU, problem and f"{who}: {problem}",
                             src_card and _ccu_problem(obj, src_card) and
                             f"{who}: {_ccu_problem(obj, src_card)}", src_card is not None):
                judge.problems += C.compare_fields(r["ccu"], entity, loss,
                                                   f"character-card-utils {who}")
                if entity.lorebook is not None or r["ccu"].get("book"):
                    judge.problems += C.compare_entries(
                        r["ccu"].get("book"), entity.lorebook.entries if entity.lorebook
                        else [], loss, "lorebook.", f"character-card-utils {who}")
        # Character Foundry's strict schema for the declared spec
        if spec in ("v2", "v3"):
            judge.verdict(CF_SCHEMA,
                          _schema_problem(r.get("cf_schema"), who),
                          src_card and _schema_problem(src_card.get("cf_schema"), who),
                          src_card is not None)
        # ccardlib's lorebook conversion of the card's book
        if C.book_of(obj) is not None:
            b = results[pos]
            pos += 1
            src_book = src.get("book") if src else None
            if judge.verdict(CCARDLIB_BOOK, (p := _book_problem(b)) and f"{who}: {p}",
                             src_book and _book_problem(src_book) and
                             f"{who}: {_book_problem(src_book)}", src_book is not None):
                judge.problems += C.compare_entries(
                    b.get("ccardlib_book"), entity.lorebook.entries if entity.lorebook else [],
                    loss, "lorebook.", f"ccardlib lorebook.convert {who}",
                    trimmed=spec == "v3")
            judge.verdict(CF_SCHEMA,
                          _schema_problem(b.get("cf_book_schema"), f"{who} character_book"),
                          src_book and _schema_problem(src_book.get("cf_book_schema"),
                                                       f"{who} character_book"),
                          src_book is not None)

    if file_result is None:
        return
    # Character Foundry's parseCard on the file itself
    error = file_result.get("cf_error") or file_result.get("error")
    if not judge.verdict(CF_CARD,
                         error and f"parseCard refuses the file: {error}"):
        return
    view = file_result["cf"]
    judge.problems += C.compare_fields(view, entity, loss, "parseCard")
    judge.problems += C.compare_entries(view.get("book"), entity.lorebook.entries
                                        if entity.lorebook else [], loss, "lorebook.",
                                        "parseCard")
    icon = C.source_icon(entity)
    if icon is not None:
        index, size = icon
        got = None
        if file_result.get("cf_icon"):
            got = C.image_size((tmp_path / "icon").read_bytes())
        if got is None:
            got = C.image_size(C.data_uri_icon(view.get("assets")))
        if got != size and not (loss.covers(f"assets[{index}]") or loss.covers("assets")):
            what = "no image that decodes" if got is None else f"a {got[0]}x{got[1]} image"
            judge.problems.append(f"parseCard: the source's {size[0]}x{size[1]} avatar "
                                  f"(assets[{index}]) came out as {what}, and the loss report "
                                  "does not say so")


def _check_lorebook(path: Path, variant: C.Variant, entity: Any, data: bytes, suffix: str,
                    loss: Any, checker: Checker, tmp_path: Path, judge: Judge) -> None:
    target = tmp_path / f"out{suffix}"
    target.write_bytes(data)
    # ccardlib converts card-spec books: the V2 and V3 variants of a SillyTavern lorebook file
    spec_books = variant.target == "sillytavern-lorebook"
    book = C.standalone_book(data) if spec_books else None
    items: list[dict[str, Any]] = [{"op": "book_file", "path": str(target)}]
    if book is not None:
        items.append({"op": "book_json", "book": book[0], "spec": book[1]})
    source_book = (C.standalone_book(path.read_bytes()) if judge.same_format and spec_books
                   else None)
    if judge.same_format:
        items.append({"op": "book_file", "path": str(path)})
        if source_book is not None:
            items.append({"op": "book_json", "book": source_book[0], "spec": source_book[1]})
    answers = checker.run(items)
    r = answers[0]
    b = answers[1] if book is not None else None
    rest = answers[2 if book is not None else 1:]
    src = rest[0] if rest else None
    src_b = rest[1] if len(rest) > 1 and source_book is not None and book is not None and (
        source_book[1] == book[1]) else None

    error = r.get("cf_error") or r.get("error")
    if judge.verdict(CF_BOOK, error and f"parseLorebook refuses the file: {error}"):
        what = "the book parseLorebook returns"
        judge.verdict(CF_SCHEMA, _schema_problem(r.get("cf_schema"), what),
                      src and _schema_problem(src.get("cf_schema"), what), src is not None)
        names = C.CF_BOOK_FIELDS.get(r.get("cf_format"))  # type: ignore[arg-type]
        if names is not None:
            order = None
            if r.get("cf_format") == "sillytavern":
                uids = C.world_info_uids(data)
                assert uids is not None
                order = {i: uids.get(json.dumps(e.get("id")), i)
                         for i, e in enumerate(r.get("cf_book") or [])}
            judge.problems += C.compare_entries(r.get("cf_book"), entity.entries, loss, "",
                                                "parseLorebook", order, names=names)
    if b is not None and book is not None:
        if judge.verdict(CCARDLIB_BOOK, _book_problem(b),
                         src_b and _book_problem(src_b), src_b is not None):
            judge.problems += C.compare_entries(b.get("ccardlib_book"), entity.entries, loss,
                                                "", "ccardlib lorebook.convert",
                                                trimmed=book[1] == "v3")
        judge.verdict(CF_SCHEMA, _schema_problem(b.get("cf_book_schema"), "the book"),
                      src_b and _schema_problem(src_b.get("cf_book_schema"), "the book"),
                      src_b is not None)


def _check_voxta(entity: Any, data: bytes, loss: Any, checker: Checker, tmp_path: Path,
                 judge: Judge) -> None:
    target = tmp_path / "out.voxpkg"
    target.write_bytes(data)
    icon = tmp_path / "icon"
    r = checker.run([{"op": "voxta_file", "path": str(target), "icon": str(icon)}])[0]
    error = r.get("cf_error") or r.get("error")
    if not judge.verdict(CF_VOXTA, error and f"readVoxta refuses the package: {error}"):
        return
    if entity.kind == "lorebook":
        books = r.get("cf_books") or []
        got = [e for b in books for e in (b.get("entries") or [])]
        judge.problems += C.compare_entries(got, entity.entries, loss, "", "readVoxta",
                                            names=C.VOXTA_BOOK_FIELDS)
        return
    characters = r.get("cf_characters") or []
    if len(characters) != 1:
        judge.problems.append(f"readVoxta finds {len(characters)} characters, not 1")
        return
    view = C.voxta_view(characters[0]["cf"], entity)
    judge.problems += C.compare_fields(view, entity, loss, "readVoxta + voxtaToCCv3")
    judge.problems += C.compare_entries(view.get("book"), entity.lorebook.entries
                                        if entity.lorebook else [], loss, "lorebook.",
                                        "readVoxta + voxtaToCCv3", names=C.VOXTA_BOOK_FIELDS)
    source = C.source_icon(entity)
    if source is not None:
        index, size = source
        got = C.image_size(icon.read_bytes()) if icon.exists() else None
        if got != size and not (loss.covers(f"assets[{index}]") or loss.covers("assets")):
            what = "no thumbnail that decodes" if got is None else f"a {got[0]}x{got[1]} one"
            judge.problems.append(f"readVoxta: the source's {size[0]}x{size[1]} avatar "
                                  f"(assets[{index}]) came out as {what}, and the loss report "
                                  "does not say so")

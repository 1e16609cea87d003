"""Converting: a file read, made into what is to be written, and written as a target format.

Every operation that writes one conversion's files is that one step (:func:`transform_file`):
``convert`` writes what it read; ``lorebook extract``, ``embed`` and ``merge`` and ``chat
extract`` and ``embed`` write what their transform makes of it.  So they all check the request
once, say what the file was, and hand the front ends one loss report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..errors import BunzaiError, ConversionRefused, UsageError
from ..host.registry import get_registry
from ..io.input import Source
from ..loss.report import LossReport
from .reading import Reading, check_source_format, check_target, default_format, read_file

if TYPE_CHECKING:
    from ..host.registry import AdapterHandle, Registry
    from ..host.types import WriteResult


class Conversion(Reading):
    """``bunzai convert``: what was read, what the target wrote, what it lost; and, once
    saved, where the files went."""

    to: str | None = None
    """The format name asked for (an id or an alias)."""
    written: WriteResult | None = None
    target: AdapterHandle | None = None
    outputs: Sequence[Path] = ()
    extra: Mapping[str, Any] = MappingProxyType({})
    """Facts of a lorebook or chat operation (the merge report, the entries a book replaced)."""
    made: Sequence[Any] = ()
    """The entities handed to the writer: what was read, or what the operation made of it
    (the card with the book embedded, the merged book); what the output is checked against."""

    def save(self, path_or_dir: str | os.PathLike[str], *, force: bool = False) -> list[Path]:
        """Write the output (see :meth:`bunzai.host.types.WriteResult.save`); a refusal becomes
        this result's error."""
        if self.written is None:
            return []
        try:
            self.outputs = self.written.save(path_or_dir, force=force)
        except BunzaiError as exc:
            self.error = exc.with_path(self.path)
        return list(self.outputs)

    @property
    def all_warnings(self) -> list[dict[str, str]]:
        """The reader's warnings, then the writer's (these have no path of their own)."""
        out = [w.to_dict() for w in self.warnings]
        if self.written is not None:
            out += [{"path": "$", "message": w, "severity": "warning"}
                    for w in self.written.warnings]
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        if self.container is not None:
            out["container"] = self.container
        if self.handle is not None:
            out.update({"format": self.handle.id, "kind": self.kind})
        if self.report is not None:
            w = self.report.winner
            out.update({"confidence": w.score if w is not None else None,
                        "candidates": [c.to_dict() for c in self.report.candidates]})
        if self.forced is not None:
            out["forced"] = True
        if self.target is not None:
            out["to"] = self.target.id
        if self.outputs:
            out.update({"output": str(self.outputs[0]),
                        "outputs": [str(p) for p in self.outputs]})
        if self.written is not None:
            out.update({"loss": self.written.loss.to_list(),
                        "loss_summary": self.written.loss.summary(),
                        "warnings": self.all_warnings})
            if self.written.verified is not None:
                out["verified"] = self.written.verified.to_dict()
        out.update(self.extra)
        out.update(self._error())
        return out


Make = Callable[[Conversion], Sequence[Any]]
"""What an operation makes of a file it read (the entities to write); a
:class:`~bunzai.errors.BunzaiError` says why it cannot."""


def convert_file(source: Source, to: str, *, filename: str | None = None,
                 from_format: str | None = None, options: Mapping[str, Any] | None = None,
                 registry: Registry | None = None, verify: bool = False,
                 strip_active: bool = False) -> Conversion:
    """Read a file and write it as ``to`` (an alias resolves by the entity's kind); nothing is
    saved until :meth:`Conversion.save`.  ``verify`` reads the output back and adds to the loss
    report whatever reading finds that the format did not declare; ``strip_active`` removes
    what ``bunzai audit`` finds first (each removal in the loss report, dropped)."""
    reg = registry or get_registry()
    check_source_format(from_format, reg)
    check_target(to, reg, options)
    return transform_file(source, to, None, filename=filename, from_format=from_format,
                          options=options, registry=reg, verify=verify,
                          strip_active=strip_active)


def transform_file(source: Source, to: str | None, make: Make | None, *,
                   filename: str | None = None, from_format: str | None = None,
                   options: Mapping[str, Any] | None = None, registry: Registry | None = None,
                   verify: bool = False, strip_active: bool = False) -> Conversion:
    """Read ``source``, make what is to be written (what was read, or what ``make`` makes of
    it), without its active content with ``strip_active``, and write it as ``to`` (by default
    the format read).  The request was checked by the caller; a problem with the file becomes
    the result's error."""
    reg = registry or get_registry()
    found = Conversion.of(read_file(source, filename=filename, from_format=from_format,
                                    registry=reg), to=to)
    found.input = None  # the entities hold what they need: free the input before the write
    if not found.ok:
        return found
    try:
        entities = make(found) if make is not None else found.entities
        found.made = list(entities)
        assert found.handle is not None  # read without error
        found.to = to or found.handle.id
        found.target = reg.resolve_target(found.to, entities[0].kind)
        found.written = write_entities(entities, found.to, options, registry=reg, verify=verify,
                                       strip_active=strip_active)
        found.written.source = found.path
    except BunzaiError as exc:
        found.error = exc.with_path(found.path)
    return found


def write_entities(entities: Sequence[Any], to: str, options: Mapping[str, Any] | None = None,
                   *, registry: Registry | None = None, verify: bool = False,
                   strip_active: bool = False) -> WriteResult:
    """Write entities as ``to`` (:meth:`bunzai.host.registry.Registry.write`); with
    ``strip_active`` what the audit finds is taken out first, each removal at the top of the
    loss report."""
    reg = registry or get_registry()
    if not strip_active:
        return reg.write(entities, to, options, verify=verify)
    kept, removed = _strip(entities, reg)
    written = reg.write(kept, to, options, verify=verify)
    removed.extend(written.loss)
    written.loss = removed
    return written


def _strip(entities: Sequence[Any], reg: Registry) -> tuple[list[Any], LossReport]:
    """The entities without their active content, and every removal (an entity that is active
    content whole, a regex script that only writes HTML, is left out)."""
    from ..active.strip import strip_entity, whole_reason

    kept: list[tuple[Any, LossReport]] = []
    gone: dict[int, str] = {}
    for i, entity in enumerate(entities):
        new, loss = strip_entity(entity, registry=reg)
        if new is None:
            gone[i] = whole_reason(entity, registry=reg) or "active content removed"
        else:
            kept.append((new, loss))
    removed = LossReport()
    if gone:
        removed.left_out("", gone, len(entities))
    for i, (_, loss) in enumerate(kept):  # the write's own paths: [i]. when it writes several
        removed.extend(loss, f"[{i}]." if len(kept) > 1 else "")
    if not kept:
        raise ConversionRefused("nothing left to write: without its active content no entity "
                                f"is left ({gone[min(gone)]})")
    return [new for new, _ in kept], removed


def _other(source: Source, kind: str, reg: Registry) -> Reading:
    """The second file of an embed or merge, which must read as a ``kind``."""
    found = read_file(source, registry=reg)
    if found.error is not None:
        raise found.error
    if found.kind != kind:
        raise UsageError(f"{found.path} is a {found.kind}, not a {kind}", path=found.path)
    return found


# -- lorebooks ------------------------------------------------------------------------------------


def extract_lorebook(card: Source, *, to: str | None = None, filename: str | None = None,
                     registry: Registry | None = None, strip_active: bool = False
                     ) -> Conversion:
    """A card's embedded lorebook, written as a standalone lorebook (``to``, or the format
    that declares itself the default lorebook)."""
    from .lorebooks import extract

    reg = registry or get_registry()
    target = to or default_format("lorebook", reg)
    check_target(target, reg, kind="lorebook")

    def make(found: Conversion) -> list[Any]:
        """Every book the file holds: a package of several characters has one per character
        (one file each); none raises the first entity's reason."""
        books = [extract(e) for e in found.entities
                 if getattr(getattr(e, "lorebook", None), "entries", None)]
        return books or [extract(found.entities[0])]

    return transform_file(card, target, make, filename=filename, registry=reg,
                          strip_active=strip_active)


def embed_lorebook(card: Source, book: Source, *, to: str | None = None, replace: bool = False,
                   merge: bool = False, registry: Registry | None = None,
                   strip_active: bool = False) -> Conversion:
    """A copy of ``card`` carrying ``book`` as its lorebook, written as ``to`` (by default the
    card's own format).

    A card that already holds a book is refused unless told what to do with it: ``replace``
    (its entries are reported as dropped, and named in ``extra``) or ``merge`` (the ``lorebook
    merge`` rules: duplicates collapse, conflicts are kept and reported)."""
    from .lorebooks import embed, merge_books

    reg = registry or get_registry()
    if replace and merge:
        raise UsageError("replace or merge the card's own lorebook, not both")
    if to is not None:
        check_target(to, reg, kind="character")

    def make(found: Conversion) -> list[Any]:
        new = _other(book, "lorebook", reg)
        character, added = found.entities[0], new.entities[0]
        own = character.lorebook if character.kind == "character" else None
        facts: dict[str, Any] = {"book": new.path, "book_format": new.format,
                                 "replaced_existing_book": False}
        if own is not None and own.entries:
            if not (replace or merge):
                raise ConversionRefused(
                    f"the card already holds a lorebook of {len(own.entries)} entries",
                    remedy="replace it ({replace}) or merge the two books ({merge})")
            if merge:
                added, report = merge_books([own, added], added.name or own.name)
                facts.update({"merged_existing_book": True, **report.to_dict()})
            else:
                facts.update({"replaced_existing_book": True,
                              "replaced_entries": [e.comment or e.name or ", ".join(e.keys)
                                                   for e in own.entries]})
        found.extra = facts
        return [embed(character, added)]

    found = transform_file(card, to, make, registry=reg, strip_active=strip_active)
    if found.written is not None and found.extra.get("replaced_existing_book"):
        own_entries = found.entities[0].lorebook.entries
        for i in range(len(own_entries)):
            found.written.loss.dropped(f"lorebook.entries[{i}]",
                                       f"the card's own book was replaced by {found.extra['book']}")
    _refuse_a_card_without_its_book(found)
    return found


def _refuse_a_card_without_its_book(found: Conversion) -> None:
    """A card format with no place for a lorebook must not look like a successful embed."""
    from .lorebooks import check_embedded

    if found.written is None or found.target is None:
        return
    try:
        check_embedded(found.written, found.target.id)
    except BunzaiError as exc:
        found.error = exc.with_path(found.path)
        found.written = None  # nothing to save


def merge_lorebooks(sources: Sequence[Source], *, to: str | None = None,
                    name: str | None = None, registry: Registry | None = None,
                    strip_active: bool = False) -> Conversion:
    """Lorebooks (or cards' books) merged in order: identical entries collapse, conflicting
    ones are all kept and reported (``extra``: inputs, entries, duplicates, conflicts)."""
    from .lorebooks import extract, merge_books

    reg = registry or get_registry()
    if len(sources) < 2:
        raise UsageError("merge needs at least two lorebooks")
    target = to or default_format("lorebook", reg)
    check_target(target, reg, kind="lorebook")

    def book_of(r: Reading) -> Any:
        return r.entities[0] if r.kind == "lorebook" else extract(r.entities[0])

    def make(found: Conversion) -> list[Any]:
        rest = [read_file(s, registry=reg) for s in sources[1:]]
        failed = next((r for r in rest if r.error is not None), None)
        if failed is not None and failed.error is not None:
            raise failed.error
        merged, report = merge_books([book_of(r) for r in (found, *rest)], name)
        found.extra = {"inputs": [found.path, *(r.path for r in rest)],
                       "entries": len(merged.entries), **report.to_dict()}
        return [merged]

    return transform_file(sources[0], target, make, registry=reg, strip_active=strip_active)


# -- chats inside cards ---------------------------------------------------------------------------


def extract_chats(card: Source, *, to: str | None = None, filename: str | None = None,
                  registry: Registry | None = None, strip_active: bool = False) -> Conversion:
    """The chats a card carries (a Backyard archive's scenario logs), written as ``to`` (by
    default the installed default chat format), one file per chat (``extra``: chats)."""
    from .chats import extract

    reg = registry or get_registry()
    target = to or default_format("chat", reg)
    check_target(target, reg, kind="chat")

    def make(found: Conversion) -> list[Any]:
        """Every character's chats (a package of several characters has each one's)."""
        chats = [c for e in found.entities for c in _chats_of(reg, e)]
        if not chats:
            extract(reg, found.entities[0])  # raises why there is none
        found.extra = {"chats": len(chats)}
        return chats

    return transform_file(card, target, make, filename=filename, registry=reg,
                          strip_active=strip_active)


def _chats_of(reg: Registry, entity: Any) -> list[Any]:
    from .chats import extract

    try:
        return extract(reg, entity)
    except UsageError:
        return []


def embed_chat(card: Source, chat: Source, *, to: str | None = None,
               registry: Registry | None = None, strip_active: bool = False) -> Conversion:
    """A copy of ``card`` carrying ``chat`` as one more of its chats, written as ``to`` (by
    default the card's own format).  What the card cannot hold of the chat is in the loss
    report under ``chat.``."""
    from .chats import embed

    reg = registry or get_registry()
    if to is not None:
        check_target(to, reg, kind="character")
    lost: list[Any] = []

    def make(found: Conversion) -> list[Any]:
        new = _other(chat, "chat", reg)
        out, loss = embed(reg, found.entities[0], new.entities[0])
        lost.append(loss)
        found.extra = {"chat": new.path, "chat_format": new.format}
        return [out]

    found = transform_file(card, to, make, registry=reg, strip_active=strip_active)
    if found.written is not None and lost:
        found.written.loss.extend(lost[0], "chat.")
    return found

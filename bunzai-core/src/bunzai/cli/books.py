"""``bunzai lorebook`` and ``bunzai chat``: books and chats taken out of cards and put in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import BunzaiError
from . import output
from .common import (
    ForceOpt,
    JsonOpt,
    OutOpt,
    StripOpt,
    loaded_registry,
    many,
    present,
    start,
)
from .group import SETTINGS, Command, command_group
from .output import done, fail, say

if TYPE_CHECKING:
    from ..engine.converting import Conversion

lorebook_app = typer.Typer(help="Extract, embed and merge lorebooks.", no_args_is_help=True,
                           **SETTINGS)
command_group("lorebook", lorebook_app)

BookTo = Annotated[str | None, typer.Option(
    "--to", "-t", metavar="FORMAT", show_default=False,
    help="Lorebook format (default: the installed default lorebook format).")]
CardsArg = Annotated[list[Path], typer.Argument(
    metavar="CARD…", show_default=False,
    help="Cards: files, folders (every file inside) or globs.")]
ExtractOut = Annotated[Path | None, typer.Option(
    "--out", "-o", metavar="FILE", show_default=False,
    help="File to write, for one card (several files: NAME-<title> beside it; default: next "
         "to the card).")]
ExtractDir = Annotated[Path | None, typer.Option(
    "--out-dir", "-d", metavar="DIR", show_default=False,
    help="Folder for the outputs (default: next to each card).")]


def extract_each(cards: list[Path], out: Path | None, out_dir: Path | None, force: bool,
                 as_json: bool, work: Callable[[Path], Conversion]) -> None:
    """What ``lorebook extract`` and ``chat extract`` share: many cards, each written next to
    itself unless ``-o`` (one card) or ``--out-dir`` says where; a bad card is reported and
    the rest go on, and the exit code is the worst card's."""
    from ..errors import UsageError
    from ..io.outputs import make_folder

    _, found = start(cards, None, None, as_json)
    try:
        if out is not None and out_dir is not None:
            raise UsageError("give -o (one file) or --out-dir (a folder), not both")
        if out is not None and many(cards, found):
            raise UsageError("-o names one file; use --out-dir for several cards")
        if out_dir is not None:
            make_folder(out_dir)
    except BunzaiError as exc:
        fail(exc, as_json)
    codes = [0]
    for card in found:
        try:
            conv = work(card)
        except BunzaiError as exc:  # the request itself (an unknown --to): the same for all
            fail(exc, as_json)
        try:
            present(conv, out or out_dir or card.parent, force, as_json)
        except typer.Exit as ended:  # this card's error is on stderr: go on with the next
            codes.append(ended.exit_code)
    done(max(codes))


def extract_command(app: typer.Typer, to_option: Any, doc: str,
                    extract: Callable[..., Conversion]) -> None:
    """Register ``extract`` in ``app``: ``lorebook extract`` and ``chat extract`` take the same
    cards and options and differ only in what they take out of a card (``extract``, called as
    the engine's ``extract_lorebook`` and ``extract_chats`` are) and in their ``--to``
    (``to_option``, whose help names the kind).  ``doc`` is the command's help."""
    def run(
        cards: CardsArg,
        out: ExtractOut = None,
        out_dir: ExtractDir = None,
        to: str | None = None,
        force: ForceOpt = False,
        as_json: JsonOpt = False,
        strip_active: StripOpt = False,
    ) -> None:
        reg = loaded_registry()
        extract_each(cards, out, out_dir, force, as_json,
                     lambda card: extract(card, to=to, registry=reg, strip_active=strip_active))

    run.__annotations__["to"] = to_option  # typer reads the option from the annotation
    run.__doc__ = doc
    app.command("extract", cls=Command)(run)


def _extract_lorebook(card: Path, **how: Any) -> Conversion:
    from ..engine.converting import extract_lorebook
    return extract_lorebook(card, **how)


extract_command(lorebook_app, BookTo,
                "Write each card's embedded lorebook as a standalone lorebook file.",
                _extract_lorebook)


@lorebook_app.command("embed", cls=Command)
def lorebook_embed(
    card: Annotated[Path, typer.Argument(metavar="CARD", help="Character card.")],
    book: Annotated[Path, typer.Argument(metavar="BOOK", help="Lorebook to embed.")],
    out: OutOpt,
    to: Annotated[str | None, typer.Option("--to", "-t", metavar="FORMAT", show_default=False,
                                           help="Card format (default: the card's own).")
                  ] = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="A card that has a book: replace it (its entries are reported as "
                          "dropped).")] = False,
    merge: Annotated[bool, typer.Option(
        "--merge", help="A card that has a book: merge the two as 'lorebook merge' does.")
                     ] = False,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    strip_active: StripOpt = False,
) -> None:
    """Embed a lorebook into a card, writing a new card (a card that has a book is refused
    unless told to replace or merge it)."""
    from ..engine.converting import embed_lorebook

    try:
        conv = embed_lorebook(card, book, to=to, replace=replace, merge=merge,
                              registry=loaded_registry(), strip_active=strip_active)
    except BunzaiError as exc:
        fail(exc, as_json)

    def report() -> None:
        replaced = conv.extra.get("replaced_entries")
        if replaced:
            say(f"  replaced the card's own book: {len(replaced)} entries "
                 f"({', '.join(replaced)})")
        merge_report(conv)

    present(conv, out, force, as_json, report)


def merge_report(conv: Conversion) -> None:
    """A merge's duplicates grouped by book (every one with --verbose), then its conflicts."""
    from ..engine.lorebooks import merge_lines
    for line in merge_lines(conv.extra, output.VERBOSE):
        say(f"  {line}")


@lorebook_app.command("merge", cls=Command)
def lorebook_merge(
    books: Annotated[list[Path], typer.Argument(
        metavar="BOOK…", help="Lorebooks (or cards) to merge, in order.")],
    out: OutOpt,
    to: BookTo = None,
    name: Annotated[str | None, typer.Option("--name", metavar="TEXT",
                                             help="Name of the merged book.")] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    strip_active: StripOpt = False,
) -> None:
    """Merge lorebooks: identical entries collapse, conflicting ones are kept and reported."""
    from ..engine.converting import merge_lorebooks

    try:
        conv = merge_lorebooks(books, to=to, name=name, registry=loaded_registry(),
                               strip_active=strip_active)
    except BunzaiError as exc:
        fail(exc, as_json)

    present(conv, out, force, as_json, lambda: merge_report(conv))


chat_app = typer.Typer(help="Take the chats out of a card (a Backyard archive) and put one in.",
                       no_args_is_help=True, **SETTINGS)
command_group("chat", chat_app)


def _extract_chats(card: Path, **how: Any) -> Conversion:
    from ..engine.converting import extract_chats
    return extract_chats(card, **how)


extract_command(chat_app, Annotated[str | None, typer.Option(
                    "--to", "-t", metavar="FORMAT", show_default=False,
                    help="Chat format (default: the installed default chat format).")],
                "Write the chats inside cards (each Backyard scenario's log) as standalone chat "
                "files.",
                _extract_chats)


@chat_app.command("embed", cls=Command)
def chat_embed(
    card: Annotated[Path, typer.Argument(metavar="CARD",
                                         help="Card to take the chat (a Backyard .byaf).")],
    chat: Annotated[Path, typer.Argument(metavar="CHAT", help="Chat file, any chat format.")],
    out: OutOpt,
    to: Annotated[str | None, typer.Option("--to", "-t", metavar="FORMAT", show_default=False,
                                           help="Card format (default: the card's own).")
                  ] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    strip_active: StripOpt = False,
) -> None:
    """Attach a chat to a card as one more of its chats, reporting what the card cannot hold."""
    from ..engine.converting import embed_chat

    try:
        conv = embed_chat(card, chat, to=to, registry=loaded_registry(), strip_active=strip_active)
    except BunzaiError as exc:
        fail(exc, as_json)

    present(conv, out, force, as_json)

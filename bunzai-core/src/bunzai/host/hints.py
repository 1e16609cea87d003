"""The project's own plugin distributions: so a missing one is a hint, not a dead end.

Core reads no format by name.  This table is the one place it knows the distributions kept in
the bunzai repository, only to tell a user what to install when a file goes unrecognized (``this
looks like a RisuAI CharX, read by bunzai-formats-risu: pip install bunzai-formats-risu (from a
package index) or pip install ./bunzai-formats-risu (from a bunzai checkout)``), a format name is
unknown, or a command is missing.  Both ways are named because a user may have either.  The
signs are cheap looks at the shared input views, never a reader: a hint may be wrong, so it is
always worded as a guess, and it is only given for a distribution that is not loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .entrypoints import norm

if TYPE_CHECKING:
    from ..io.input import AdapterInput


def _json(inp: AdapterInput) -> Any:
    return inp.json if inp.container == "json" else None


def _png_card(inp: AdapterInput) -> bool:
    png = inp.png
    return png is not None and bool(png.find_text("chara", "ccv3"))


def _card_json(inp: AdapterInput) -> bool:
    doc = _json(inp)
    return isinstance(doc, Mapping) and doc.get("spec") in ("chara_card_v2", "chara_card_v3")


def _world_info(inp: AdapterInput) -> bool:
    doc = _json(inp)
    return isinstance(doc, Mapping) and isinstance(doc.get("entries"), Mapping)


def _st_regex(inp: AdapterInput) -> bool:
    doc = _json(inp)
    items = doc if isinstance(doc, list) else [doc]
    return any(isinstance(d, Mapping) and "findRegex" in d for d in items[:5])


def _zip_has(inp: AdapterInput, name: str) -> bool:
    z = inp.zip
    return z is not None and z.has(name)


def _charx(inp: AdapterInput) -> bool:
    return _zip_has(inp, "card.json")


def _risum(inp: AdapterInput) -> bool:
    return inp.container == "binary" and inp.data[:1] == b"\x6f" and len(inp.data) > 8


def _risu_module_json(inp: AdapterInput) -> bool:
    doc = _json(inp)
    return isinstance(doc, Mapping) and doc.get("type") in ("risuModule", "risumodule")


def _byaf(inp: AdapterInput) -> bool:
    z = inp.zip
    return (z is not None and z.has("manifest.json")
            and any(n.startswith("characters/") for n in z.names()))


def _voxpkg(inp: AdapterInput) -> bool:
    z = inp.zip
    return z is not None and any(n.startswith(("Characters/", "Books/", "MemoryBooks/",
                                               "Scenarios/"))
                                 and n.endswith((".json",)) for n in z.names())


def _chat_lines(inp: AdapterInput) -> bool:
    return inp.container == "jsonl"


def _risu_chat(inp: AdapterInput) -> bool:
    doc = _json(inp)
    return isinstance(doc, Mapping) and doc.get("type") in ("risuChat", "risuAllChats")


def _backyard_chat(inp: AdapterInput) -> bool:
    doc = _json(inp)
    return isinstance(doc, Mapping) and isinstance(doc.get("chat"), Mapping) \
        and "ChatItems" in doc["chat"]


def _novelai_lorebook(inp: AdapterInput) -> bool:
    doc = _json(inp)
    if doc is None and inp.png is not None and inp.png.find_text("naidata"):
        return True
    return isinstance(doc, Mapping) and "lorebookVersion" in doc


def _exif_card(inp: AdapterInput) -> bool:
    found = inp.exif_user_comment
    return found is not None and b"character" in found[1][:4096]


Sign = tuple[str, Callable[["AdapterInput"], bool]]


@dataclass(frozen=True, slots=True)
class Distribution:
    """A first-party distribution: its pip name, the format names (ids and aliases) it adds,
    the commands it adds, signs of the files only it reads, and its folder in a checkout
    (relative to the checkout's root; its name when empty)."""

    name: str
    formats: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    signs: tuple[Sign, ...] = ()
    folder: str = ""

    @property
    def checkout_path(self) -> str:
        """The argument ``pip install`` takes in a checkout: ``./bunzai-formats-risu``."""
        return f"./{self.folder or self.name}"


FIRST_PARTY: tuple[Distribution, ...] = (
    Distribution(
        "bunzai-formats-tavern",
        formats=("sillytavern", "png", "json", "card", "tavern", "sillytavern-lorebook",
                 "worldinfo", "lorebook", "sillytavern-persona", "persona", "sillytavern-regex",
                 "regex", "rolecall", "rolecall-card", "rolecall-persona", "rcpersona",
                 "pygmalion", "textgen", "pygmalion-chat", "agnai", "agnaistic", "agnai-memory",
                 "memory", "agnai-book", "sillytavern-chat", "st-chat", "jsonl", "tavernai-chat",
                 "tavernai", "agnai-chat", "agnaistic-chat", "oobabooga-chat", "ooba",
                 "textgen-chat", "koboldai-lite", "kobold-lite", "kobold", "cai-history", "cai",
                 "caitools", "sillytavern-instruct", "st-instruct", "sillytavern-context",
                 "st-context", "sillytavern-sysprompt", "st-sysprompt", "sillytavern-reasoning",
                 "st-reasoning", "sillytavern-textgen", "st-textgen", "sillytavern-kobold",
                 "st-kobold", "sillytavern-novel", "st-novel", "sillytavern-openai", "st-openai",
                 "sillytavern-master", "st-master", "oobabooga-preset", "ooba-preset",
                 "textgen-webui-preset", "oobabooga-instruct", "ooba-instruct",
                 "textgen-webui-instruct", "hf-chat-template", "chat-template", "hf-template",
                 "koboldai-lite-settings", "kobold-lite-settings"),
        signs=(("a SillyTavern character card (PNG)", _png_card),
               ("a Character Card V2/V3", _card_json),
               ("a SillyTavern World Info file", _world_info),
               ("a SillyTavern regex script", _st_regex),
               ("a chat log in JSON Lines (SillyTavern, TavernAI)", _chat_lines)),
    ),
    Distribution(
        "bunzai-formats-risu",
        formats=("risu", "risu-charx", "charx", "risu-lorebook", "risu-regex", "risu-module",
                 "risum", "risu-persona", "risu-chat", "risu-preset", "risup"),
        signs=(("a RisuAI CharX", _charx), ("a RisuAI module (.risum)", _risum),
               ("a RisuAI module", _risu_module_json), ("a RisuAI chat export", _risu_chat)),
    ),
    Distribution(
        "bunzai-formats-backyard",
        formats=("backyard", "faraday", "backyard-byaf", "byaf", "backyard-chat",
                 "faraday-chat"),
        signs=(("a Backyard AI archive (BYAF)", _byaf),
               ("a Backyard AI (Faraday) card", _exif_card),
               ("a Backyard AI chat export", _backyard_chat)),
    ),
    Distribution(
        "bunzai-formats-voxta",
        formats=("voxta", "voxpkg", "voxta-lorebook", "voxta-book", "voxta-books"),
        signs=(("a Voxta package (.voxpkg)", _voxpkg),),
    ),
    Distribution("bunzai-studio", commands=("studio",)),
    # the worked third-party example: not part of ``pip install ./bunzai``, but a NovelAI
    # lorebook is common enough that the user is told where its reader is
    Distribution(
        "bunzai-formats-novelai",
        formats=("novelai-lorebook", "novelai", "lorebook-nai"),
        signs=(("a NovelAI lorebook", _novelai_lorebook),),
        folder="examples/bunzai-formats-novelai",
    ),
)


def _advice(dist: Distribution, loaded: Iterable[str]) -> str | None:
    """What to do about ``dist``, worded to follow its name; None when it is loaded."""
    if norm(dist.name) in {norm(n) for n in loaded}:
        return None
    if _installed(dist.name):
        return ", which is installed but not loaded (see BUNZAI_LOAD_PLUGINS and 'bunzai plugins')"
    return (f": pip install {dist.name} (from a package index) or pip install "
            f"{dist.checkout_path} (from a bunzai checkout)")


def _installed(name: str) -> bool:
    from importlib.metadata import PackageNotFoundError, distribution
    try:
        distribution(name)
    except PackageNotFoundError:
        return False
    return True


def _provider(wanted: Callable[[Distribution], bool], loaded: Iterable[str]
              ) -> tuple[Distribution, str] | None:
    """The first-party distribution ``wanted`` picks and what to do about it, unless loaded."""
    names = list(loaded)
    for dist in FIRST_PARTY:
        if wanted(dist):
            advice = _advice(dist, names)
            return (dist, advice) if advice else None
    return None


def format_hint(name: str, loaded: Iterable[str]) -> str:
    """``; risu-charx comes with bunzai-formats-risu: pip install …`` for a format name that
    no loaded distribution provides, or ``""``."""
    found = _provider(lambda d: name.lower() in d.formats, loaded)
    return f"; {name} comes with {found[0].name}{found[1]}" if found else ""


def command_hint(name: str, loaded: Iterable[str]) -> str:
    """The same for a command (``studio``), as a sentence."""
    found = _provider(lambda d: name in d.commands, loaded)
    return f"it comes with {found[0].name}{found[1]}" if found else ""


def input_hint(inp: AdapterInput, loaded: Iterable[str]) -> str:
    """``; this looks like a RisuAI CharX, read by bunzai-formats-risu: pip install …`` for a
    file no loaded adapter recognised, or ``""``."""
    names = list(loaded)
    for dist in FIRST_PARTY:
        for what, test in dist.signs:
            try:
                hit = test(inp)
            except Exception:  # a sign is a guess; a file it cannot look at is no hint
                hit = False
            if hit:
                advice = _advice(dist, names)
                if advice:
                    return f"; this looks like {what}, read by {dist.name}{advice}"
    return ""

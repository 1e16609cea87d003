"""RisuAI lorebook entries (``loreBook``) <-> canonical :class:`LorebookEntry`.

The internal entry is what ``.risum`` modules, lorebook exports and RisuAI's own storage hold:
``key``/``secondkey`` as comma-joined strings, ``insertorder``, ``alwaysActive``, ``mode`` and
folders.  A folder is an entry with ``mode: "folder"`` whose key is U+F000 + ``folder:`` + an id;
children name that key in ``folder``.  Canonically a folder is an entry with ``is_folder`` set and
``id`` = the part after ``folder:``, and a child's ``folder`` is that same id, so other formats
see a plain tree reference instead of a private-use marker.

Keys are split on commas and trimmed, as RisuAI matches them; a regex key (``useRegex``) is kept
whole because a pattern may contain commas.  ``extentions`` (sic) becomes the entry's
``extensions`` (minus ``risu_case_sensitive``, which is ``case_sensitive``), with
``activationPercent`` and ``loreCache`` under the ``risu_`` names RisuAI's own card export
gives them.  Another ``mode`` (``constant``, ``multiple``, ``child``) is a RisuAI setting no
canonical field holds: it stays in ``app_data[format_id]["mode"]`` with the entry's unknown keys.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import (
    Carried,
    Issue,
    Lorebook,
    LorebookEntry,
    LossReport,
    reason_for,
    unheld,
)
from bunzai.sdk.fields import (
    BOOL,
    ID,
    NUM,
    STR,
    Bad,
    Conv,
    Table,
    field,
    is_num,
    jcopy,
    kept,
    slot,
    type_name,
)

from . import decorators
from .declared import ENTRY_CARRIED, ENTRY_REASONS
from .loss import neutral_values, read_objects, same_texts

FOLDER_PREFIX = "\uf000folder:"
_FOLDER_NS = uuid.UUID("5f0c7d1e-9a43-4c36-8f8e-6b0d2a1c9e57")
_MOVED = (("activationPercent", "risu_activationPercent"), ("loreCache", "risu_loreCache"))
_CASE = "risu_case_sensitive"
_MODES = ("normal", "folder")

REASONS = {
    **decorators.REASONS,
    "keys": "RisuAI stores keys as one comma-separated string and trims them",
    "comment": "RisuAI entries have one title (comment)",
    "name": "RisuAI entries have one title (comment)",
    "is_folder": "a RisuAI folder's key is its folder marker",
    "extensions.risu_case_sensitive": "RisuAI's risu_case_sensitive is the entry's "
                                      "case_sensitive setting",
}
"""Why an entry field reads back changed, in a user's words."""


def folder_id(key: str) -> str:
    """The canonical folder id of a RisuAI folder key (the marker prefix removed)."""
    return key[len(FOLDER_PREFIX):] if key.startswith(FOLDER_PREFIX) else key


def folder_key(ident: str) -> str:
    return FOLDER_PREFIX + ident


def split_keys(text: str) -> list[str]:
    """RisuAI's key list: comma-separated, trimmed, empty pieces ignored."""
    return [k.strip() for k in text.split(",") if k.strip()]


def join_keys(keys: Sequence[str]) -> str:
    return ", ".join(keys)


def _text(x: Any) -> str:
    if isinstance(x, str):
        return x
    if is_num(x):
        return str(x)
    raise Bad(f"expected a comma-separated string, got {type_name(x)}")


def _folder(x: Any) -> str:
    if isinstance(x, str):
        return folder_id(x)
    raise Bad(f"expected a folder key, got {type_name(x)}")


KEYS = Conv("comma-separated keys", lambda x: split_keys(_text(x)), join_keys)
FOLDER = Conv("folder key", _folder, folder_key, lambda x: False)

ENTRY = Table((
    field("keys", "key", conv=KEYS, absent=[]),
    field("comment", conv=STR, absent=""),
    field("content", conv=STR, absent=""),
    slot("mode"),
    field("insertion_order", "insertorder", conv=NUM, absent=100),
    field("constant", "alwaysActive", conv=BOOL, absent=False),
    field("secondary_keys", "secondkey", conv=KEYS, absent=[]),
    field("selective", conv=BOOL, absent=False),
    field("folder", conv=FOLDER),
    slot("extentions"),
    slot("activationPercent"),
    slot("loreCache"),
    field("use_regex", "useRegex", conv=BOOL),
    field("id", conv=ID),
))
"""RisuAI's entry keys in the order its editor writes them; ``mode``, ``extentions``,
``activationPercent`` and ``loreCache`` are read by hand (see :func:`read_entry`)."""


# -- reading --------------------------------------------------------------------------------------


def read_entry(raw: Mapping[str, Any], path: str, warnings: list[Issue], format_id: str,
               *, data_id: str | None = None, owned: bool = False) -> LorebookEntry:
    """One internal entry.

    Its layout is kept under ``format_id``, its app data under ``data_id`` (default: the same).
    """
    values, layout, data = ENTRY.read(raw, path, warnings, owned=owned)
    mode = data.pop("mode", None) if "mode" in raw else None
    is_folder = mode == "folder"
    if "mode" not in raw:
        layout["mode"] = None
    elif mode is not None and mode not in _MODES:
        data["mode"] = mode  # constant, multiple, child: a RisuAI setting
    ext: dict[str, Any] = {}
    if "extentions" in data:
        got = data["extentions"]
        if isinstance(got, dict):
            ext = dict(data.pop("extentions"))
            if not ext:
                layout["ext_empty"] = True
        else:
            warnings.append(Issue(f"{path}.extentions", f"expected an object, got "
                                                        f"{type_name(got)}; kept as it was"))
    case = ext.get(_CASE)
    if isinstance(case, bool):
        order = list(ext)
        del ext[_CASE]
        values["case_sensitive"] = case
        if order[-1] != _CASE:
            layout["ext_order"] = order
    for src, dst in _MOVED:
        if src in data and dst not in ext:
            ext[dst] = data.pop(src)
    values["extensions"] = ext
    text = raw.get("key")
    if is_folder:
        values["is_folder"] = True
        values["keys"] = []
        if "id" in raw:
            layout["id"] = jcopy(raw["id"])
        values["id"] = folder_id(text) if isinstance(text, str) else None
        if isinstance(text, str) and not text.startswith(FOLDER_PREFIX):
            layout["key"] = text  # a folder key without RisuAI's marker
    elif values.get("use_regex") and isinstance(text, str) and text:
        values["keys"] = [text]
    entry = LorebookEntry(**values)
    if data:
        entry.app_data[data_id or format_id] = data
    if layout:
        entry.passthrough[format_id] = layout
    decorators.extract(entry, format_id)
    return entry


def read_entries(raw: Any, path: str, warnings: list[Issue], format_id: str, *,
                 data_id: str | None = None, owned: bool = False) -> list[LorebookEntry]:
    return read_objects(raw, path, warnings, ("entries", "an entry"),
                        lambda item, at: read_entry(item, at, warnings, format_id,
                                                    data_id=data_id, owned=owned))


# -- writing --------------------------------------------------------------------------------------


def _new_folder_id(entry: LorebookEntry, index: int) -> str:
    return str(uuid.uuid5(_FOLDER_NS, f"{index}:{entry.comment or entry.name or ''}"))


def write_entry(entry: LorebookEntry, format_id: str, index: int = 0, *,
                data_id: str | None = None, loss: LossReport | None = None,
                path: str = "") -> dict[str, Any]:
    """The internal RisuAI entry for ``entry``; what RisuAI will read differently goes to
    ``loss`` under ``path`` (``lorebook.entries[3].``).

    The layout comes from ``format_id``, the app data from ``data_id`` (default: the same).
    """
    view, original = decorators.risu_view(entry, format_id)
    layout, _own = kept(entry, format_id)
    rec: Mapping[str, Any] = layout or {}
    own = entry.app_data.get(data_id or format_id)
    data: dict[str, Any] = dict(own) if isinstance(own, dict) else {}
    ext = dict(view.extensions)
    # "folder" for a folder; else the entry's own RisuAI mode, or "normal" unless the source
    # had no mode at all
    if view.is_folder:
        data["mode"] = "folder"
    elif data.get("mode") in _MODES or (
            "mode" not in data and not ("mode" in rec and rec["mode"] is None)):
        data["mode"] = "normal"
    for src, dst in _MOVED:
        if dst in ext and src not in data:
            data[src] = ext.pop(dst)
    if view.case_sensitive is not None:
        if _CASE in ext and loss is not None and isinstance(ext[_CASE], bool):
            loss.approximated(f"{path}extensions.{_CASE}", REASONS[f"extensions.{_CASE}"])
        ext[_CASE] = view.case_sensitive
        order = rec.get("ext_order")
        if isinstance(order, list):
            ext = {k: ext[k] for k in sorted(ext, key=_rank(order))}
    elif isinstance(ext.get(_CASE), bool) and loss is not None:
        loss.approximated(f"{path}extensions.{_CASE}", REASONS[f"extensions.{_CASE}"])
        loss.approximated(f"{path}case_sensitive", REASONS[f"extensions.{_CASE}"])
    if ext or rec.get("ext_empty"):
        if "extentions" in data and loss is not None:
            loss.dropped(f"{path}app_data.{data_id or format_id}.extentions",
                         "the entry's extensions take its place")
        data["extentions"] = ext
    folder_ident = None
    if view.is_folder:
        folder_ident = str(view.id) if view.id is not None else _new_folder_id(view, index)

    def get(attr: str) -> Any:
        if attr == "keys":
            if folder_ident is None:
                return view.keys
            saved = rec.get("key")
            return [saved if isinstance(saved, str) and folder_id(saved) == folder_ident
                    else folder_key(folder_ident)]
        if attr == "comment":
            return view.comment if view.comment is not None else (view.name or "")
        if attr == "insertion_order":
            return 100 if view.insertion_order is None else view.insertion_order
        if attr in ("constant", "selective"):
            return bool(getattr(view, attr))
        if attr == "id":
            return rec.get("id") if view.is_folder else view.id
        return getattr(view, attr)

    out = ENTRY.write(get, layout, data)
    if loss is not None:
        _report(entry, view, original, loss, path)
    return out


def _rank(order: list[str]) -> Any:
    ranked = {k: i for i, k in enumerate(order)}
    return lambda k: ranked.get(k, len(ranked))


def _report(entry: LorebookEntry, view: LorebookEntry, original: bool, loss: LossReport,
            path: str) -> None:
    """What RisuAI reads differently from the written entry than ``entry`` says."""
    text = join_keys(view.keys)
    if entry.is_folder:
        back: list[str] = []
    elif entry.use_regex and text:
        back = [text]
    else:
        back = split_keys(text)
    if not same_texts(back, entry.keys):
        loss.approximated(f"{path}keys", REASONS["is_folder" if entry.is_folder else "keys"])
    if entry.comment is None and entry.name:
        loss.approximated(f"{path}comment", REASONS["comment"])
    if original:
        return
    held: dict[str, Any] = dict(decorators.CLEARED)
    held["selective"] = bool(view.selective)
    held["secondary_keys"] = split_keys(join_keys(view.secondary_keys))
    for f in decorators.drift(entry, view.content, held, neutral_values()):
        loss.approximated(f"{path}{f}", REASONS.get(f, decorators.DEFAULT_REASON))


def write_entries(entries: Sequence[LorebookEntry], format_id: str, loss: LossReport | None,
                  path: str, *, data_id: str | None = None) -> list[dict[str, Any]]:
    return [write_entry(e, format_id, i, data_id=data_id, loss=loss, path=f"{path}[{i}].")
            for i, e in enumerate(entries)]


def report_unheld(entries: Sequence[LorebookEntry], data_id: str, loss: LossReport,
                  prefix: str) -> None:
    """What a RisuAI entry cannot hold of each of ``entries``, reported under ``prefix``
    (``lorebook.``), for a writer whose format also holds richer entries elsewhere and so
    cannot declare this in its ``carries``."""
    book = Lorebook.model_construct(entries=list(entries))
    neutral = neutral_values()
    for p in unheld(book, _BOOK_OF_ENTRIES[data_id], neutral, own=data_id):
        if not loss.covers(prefix + p):
            loss.dropped(prefix + p, reason_for(p, _ENTRY_REASONS_IN_BOOK,
                                                "RisuAI's own lorebook entries have no place "
                                                "for it"))


class _Rules(dict[str, Carried]):
    """The carried paths of a book holding only RisuAI entries, by app-data format id."""

    def __missing__(self, data_id: str) -> Carried:
        self[data_id] = rule = Carried.of((
            "schema_version", "kind", "name", "description", "scan_depth", "token_budget",
            "recursive_scanning", "extensions", "app_data", "passthrough",
            *(f"entries[*].{f}" for f in (*ENTRY_CARRIED, f"app_data.{data_id}"))))
        return rule


_BOOK_OF_ENTRIES = _Rules()
_ENTRY_REASONS_IN_BOOK = tuple((f"entries[*].{p}", why) for p, why in ENTRY_REASONS)


def project_entry(internal: Mapping[str, Any], enabled: bool = True) -> dict[str, Any]:
    """The CCv3 ``character_book`` entry RisuAI's card export makes of an internal entry.

    RisuAI writes ``enabled: true`` whatever the entry (it disables with ``@@dont_activate``);
    ``enabled`` False writes ``false`` so readers that go by the field see it disabled too.
    """
    key = internal.get("key")
    key = key if isinstance(key, str) else ""
    ext_raw = internal.get("extentions")
    ext = dict(ext_raw) if isinstance(ext_raw, Mapping) else {}
    for src, dst in _MOVED:
        if src in internal:
            ext[dst] = internal[src]
    out: dict[str, Any] = {"keys": [k.strip() for k in key.split(",")]}
    if internal.get("selective"):
        second = internal.get("secondkey")
        out["secondary_keys"] = [k.strip() for k in (second if isinstance(second, str)
                                                     else "").split(",")]
    comment = internal.get("comment", "")
    out.update({
        "content": internal.get("content", ""),
        "extensions": ext,
        "enabled": enabled,
        "insertion_order": internal.get("insertorder", 100),
        "constant": internal.get("alwaysActive", False),
        "selective": internal.get("selective", False),
        "name": comment,
        "comment": comment,
        "case_sensitive": ext.get(_CASE, False),
        "use_regex": internal.get("useRegex", False),
        "mode": internal.get("mode", "normal"),
    })
    if internal.get("folder") is not None:
        out["folder"] = internal["folder"]
    return out

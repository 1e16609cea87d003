"""Character Card V1/V2/V3 JSON <-> canonical :class:`~bunzai.model.Character`.

Rules (specs: tavern-formats §1-§4):

* V2/V3: ``data`` is the only source of truth.  Root keys (the V1 duplicates SillyTavern,
  Agnai and Ginger backfill, ST's ``creatorcomment``/``avatar``/``chat``/``create_date``/
  ``talkativeness``/``fav``) are baggage: kept verbatim for the same format, never merged.  A
  duplicate that disagrees with ``data`` is a warning.  On write, a duplicate that mirrored
  ``data`` when read is regenerated from ``data`` (so edits reach it); one that disagreed is
  left as it was.
* V1 (no ``spec``): the root is the card.  Keys V2 puts in ``data`` are read from the root too
  (flat exports), and ST's old ``creatorcomment`` is the creator notes.
* ``extensions.regex_scripts`` become ``Character.regex_scripts``; ``character_book`` becomes
  ``Character.lorebook``; V3 ``assets`` become canonical assets (``data:`` URIs decoded, every
  other URI kept for the container adapter to resolve).
* Unknown keys are app data (``app_data[format_id]``: ``chat`` for a root key, ``data.foo``
  for one inside ``data``); absent, ``null`` and wrong-typed keys and key order are layout
  (``passthrough[format_id]``), so the same format re-writes identical JSON.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from ..errors import Issue, MalformedInput
from ..fields import (
    DICT,
    INT,
    STR,
    STRDICT,
    STRLIST,
    TAGS,
    Conv,
    ObjectReader,
    ObjectWriter,
    jcopy,
    reorder,
    same,
)
from ..io.frozen import unfrozen
from ..loss.report import LossReport
from .detect import SPEC_V2, SPEC_V3, card_version
from .lorebook import build_book, parse_book
from .regex import build_st_regex, parse_st_regex

if TYPE_CHECKING:
    from ..loss.neutral import Neutrality
    from ..model import Asset, Character

__all__ = [
    "COMPLETED_KEYS",
    "DATA_KEYS",
    "FLAT_COPIES",
    "OBSOLESCENCE_NOTICE",
    "ROOT_MIRRORS",
    "build_card",
    "card_digest",
    "completed_digest",
    "digest_matches",
    "parse_card",
    "resolve_data_uri",
]

Spec = Literal["v1", "v2", "v3"]

OBSOLESCENCE_NOTICE = "This is a V2 Character Card. Please update your frontend."
"""What some backfills write into every root V1 field; noise, not a disagreement."""

V1_KEYS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")

# (data key, canonical attribute, converter, value meaning "not there", first spec having it)
_FIELDS: tuple[tuple[str, str, Conv, Any, Spec], ...] = (
    ("name", "name", STR, "", "v1"),
    ("description", "description", STR, "", "v1"),
    ("personality", "personality", STR, "", "v1"),
    ("scenario", "scenario", STR, "", "v1"),
    ("first_mes", "first_mes", STR, "", "v1"),
    ("mes_example", "mes_example", STR, "", "v1"),
    ("creator_notes", "creator_notes", STR, "", "v2"),
    ("system_prompt", "system_prompt", STR, "", "v2"),
    ("post_history_instructions", "post_history_instructions", STR, "", "v2"),
    ("alternate_greetings", "alternate_greetings", STRLIST, [], "v2"),
    ("tags", "tags", TAGS, [], "v2"),
    ("creator", "creator", STR, "", "v2"),
    ("character_version", "character_version", STR, "", "v2"),
    ("group_only_greetings", "group_only_greetings", STRLIST, [], "v3"),
    ("nickname", "nickname", STR, None, "v3"),
    ("creator_notes_multilingual", "creator_notes_multilingual", STRDICT, None, "v3"),
    ("source", "source", STRLIST, None, "v3"),
    ("creation_date", "creation_date", INT, None, "v3"),
    ("modification_date", "modification_date", INT, None, "v3"),
)
_OPTIONAL = {"nickname", "creator_notes_multilingual", "source", "creation_date",
             "modification_date"}
_READ_ALL = tuple((key, attr, conv, empty) for key, attr, conv, empty, _first in _FIELDS)
"""The fields as ObjectReader.get_all reads them (key, attribute, converter, absent value)."""
_NOTES_AT = [key for key, *_rest in _READ_ALL].index("creator_notes")
_READ_BEFORE_NOTES, _READ_AFTER_NOTES = _READ_ALL[:_NOTES_AT], _READ_ALL[_NOTES_AT + 1:]

DATA_KEYS = (
    "name", "description", "personality", "scenario", "first_mes", "mes_example",
    "creator_notes", "system_prompt", "post_history_instructions", "alternate_greetings",
    "character_book", "tags", "creator", "character_version", "extensions",
    "group_only_greetings", "nickname", "creator_notes_multilingual", "source",
    "creation_date", "modification_date", "assets",
)
"""Card ``data`` keys in the order written when there is no recorded shape."""

ROOT_MIRRORS: dict[str, tuple[str, ...]] = {
    **{key: (key,) for key in DATA_KEYS},
    "creatorcomment": ("creator_notes",),
    "talkativeness": ("extensions", "talkativeness"), "fav": ("extensions", "fav"),
}
"""Root keys that copy a ``data`` field (root key -> path in ``data``): SillyTavern's V1
duplicates and its ``creatorcomment``/``talkativeness``/``fav``, and tools (Wyvern) that copy
every field.  A copy is layout: regenerated from ``data`` while it mirrored it."""

FLAT_COPIES: dict[str, str] = {
    "char_name": "name", "char_persona": "description", "world_scenario": "scenario",
    "char_greeting": "first_mes", "example_dialogue": "mes_example",
    "greeting_message": "first_mes", "example_messages": "mes_example",
}
"""Keys of a flat (V1) card that copy one of its fields (key -> canonical attribute): the
Pygmalion / TextGen five and aichar's own spellings, which aichar and character-factory write
beside the V1 keys.  A copy that agrees with its field is the same fact twice: layout,
regenerated from the field on write (so edits reach it); one that disagrees is app data."""

_CONTENT_ROOT_KEYS = ("name", "description", "personality", "scenario", "first_mes",
                      "mes_example", "tags", "creator", "creator_notes", "creatorcomment")
_ASSET_KEYS = ("type", "uri", "name", "ext")
_SPEC_LABEL = {"v2": SPEC_V2, "v3": SPEC_V3}
_SPEC_VERSION = {"v2": "2.0", "v3": "3.0"}
_RANK = {"v1": 1, "v2": 2, "v3": 3}


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(obj, Mapping) or key not in obj:
            return _NOTHING
        obj = obj[key]
    return obj


_NOTHING: Any = object()


def _data_key(key: str, flat: bool) -> str:
    """The app-data key of an unknown key of the card's ``data`` (the root, for V1)."""
    return key if flat else f"data.{key}"


def _is_blank(v: Any) -> bool:
    return v is None or v == "" or v == [] or v == {} or v == OBSOLESCENCE_NOTICE


_COMPLETED: dict[str, tuple[tuple[str, Any], ...]] = {
    spec: tuple((key, empty) for key, _attr, _conv, empty, first in _FIELDS
                if _RANK[first] <= rank and key not in _OPTIONAL)
    for spec, rank in _RANK.items()}
"""The ``data`` keys a spec requires (and the value the writer gives a card that lacks one)."""

_ENTRY_COMPLETED: tuple[tuple[str, Any], ...] = (
    ("keys", []), ("content", ""), ("extensions", {}), ("enabled", True),
    ("insertion_order", 100))
_ENTRY_COMPLETE_KEYS = {"v1": frozenset(k for k, _v in _ENTRY_COMPLETED),
                        "v2": frozenset(k for k, _v in _ENTRY_COMPLETED),
                        "v3": frozenset(k for k, _v in _ENTRY_COMPLETED) | {"use_regex"}}
"""The book entry keys a spec requires: an entry that has them all is digested as it is."""


def completed_digest(obj: Mapping[str, Any], version: Spec | None = None) -> str:
    """:func:`card_digest` of the card as :func:`build_card` writes it back unchanged: with
    each key its spec requires that the card lacked, at the value the writer gives it.  A
    writer compares it with the card it builds to tell "unchanged since read".  ``version``:
    :func:`card_version` of ``obj``, when the caller already knows it."""
    card: Any = unfrozen(obj)
    if version is None:
        version = card_version(card)
        if version is None:
            return card_digest(card)
    spec: Spec = version
    # The card is shared (a reader's input): only the objects that get keys are copied,
    # shallowly, along the path to them.
    card = dict(card)
    body = card if spec == "v1" else card.get("data")
    if spec != "v1":
        card.setdefault("spec_version", _SPEC_VERSION[spec])
        if isinstance(body, dict):
            body = card["data"] = dict(body)
    if isinstance(body, dict):
        for key, empty in _COMPLETED[spec]:
            if key not in body:
                body[key] = jcopy(empty)
        if spec != "v1":
            body.setdefault("extensions", {})
        book = body.get("character_book")
        if isinstance(book, dict):
            book = body["character_book"] = dict(book)
            book.setdefault("extensions", {})
            entries = book.setdefault("entries", [])
            if isinstance(entries, list):
                required = _ENTRY_COMPLETE_KEYS[spec]
                book["entries"] = [
                    _completed_entry(e, spec) if isinstance(e, dict) and not e.keys() >= required
                    else e for e in entries]  # a complete entry is digested as it is
    return card_digest(card)


def _completed_entry(entry: dict[str, Any], spec: Spec) -> dict[str, Any]:
    entry = dict(entry)
    for key, value in _ENTRY_COMPLETED:
        if key not in entry:
            entry[key] = jcopy(value)
    if spec == "v3":
        entry.setdefault("use_regex", False)
    return entry


def card_digest(obj: Any) -> str:
    """A key-order-independent SHA-256 of a JSON value (used to tell "unchanged" on re-write).

    orjson with sorted keys: the same bytes as the standard library's compact, sorted,
    non-ASCII output except for floats in exponent form (``1e-05`` vs ``1e-5``), at a twentieth
    of the cost.  Values orjson refuses (integers beyond 64 bits, lone surrogates) use the
    standard library, so the digest depends only on the value.
    """
    import orjson

    try:
        text = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # frozen views, non-string keys, or what only the stdlib can write
        try:
            text = orjson.dumps(jcopy(obj), option=orjson.OPT_SORT_KEYS)
        except TypeError:
            return _stdlib_digest(obj)
    return hashlib.sha256(text).hexdigest()


def _stdlib_digest(obj: Any) -> str:
    import json

    text = json.dumps(jcopy(obj), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def digest_matches(obj: Any, recorded: Any) -> bool:
    """Whether ``obj`` has the digest a reader recorded, by this version's :func:`card_digest`
    or the standard-library one earlier versions stored in passthrough (they differ only for
    exponent-form floats)."""
    if not isinstance(recorded, str):
        return False
    return card_digest(obj) == recorded or _stdlib_digest(obj) == recorded


def resolve_data_uri(uri: str) -> bytes | None:
    """The bytes of a ``data:`` URI (base64 or percent-encoded), or ``None`` if it is not one."""
    if not uri.startswith("data:") or "," not in uri:
        return None
    head, _, body = uri.partition(",")
    if head.endswith(";base64"):
        from ..io.containers.base64util import decode_base64
        try:
            return decode_base64(body)
        except MalformedInput:
            return None
    from urllib.parse import unquote_to_bytes
    return unquote_to_bytes(body)


# -- reading ------------------------------------------------------------------------------------


def parse_card(obj: Mapping[str, Any], *, format_id: str,
               warnings: list[Issue] | None = None) -> Character:
    """A canonical character from a V1, V2 or V3 card object (a dict or a read-only view).

    Raises :class:`~bunzai.errors.MalformedInput` when ``obj`` is not a card at all (no
    object, an unknown ``spec``, ``data`` not an object).  Everything else is read tolerantly;
    problems are appended to ``warnings`` as :class:`~bunzai.host.types.Issue` with JSON paths.
    """
    from ..model import Character

    if not isinstance(obj, Mapping):
        raise MalformedInput("a character card must be a JSON object")
    spec = obj.get("spec")
    layout: dict[str, Any] = {}
    data: dict[str, Any] = {}
    if "spec" not in obj:
        body: Mapping[str, Any] = obj
        base = "$"
        version: Spec = "v1"
        layout["spec"] = None
    elif spec in (SPEC_V2, SPEC_V3):
        inner = obj.get("data")
        if not isinstance(inner, Mapping):
            raise MalformedInput(f"{spec} card has no data object")
        body = inner
        base = "$.data"
        version = "v3" if spec == SPEC_V3 else "v2"
        layout["spec"] = spec
        if "spec_version" in obj:
            layout["spec_version"] = jcopy(obj["spec_version"])
        else:
            layout["spec_version_absent"] = True
        _read_root(obj, body, layout, data, warnings)
    else:
        raise MalformedInput(f"not a character card (spec is {spec!r})")

    alias: str | None = None
    if version == "v1" and "creator_notes" not in body and isinstance(
            body.get("creatorcomment"), str):
        alias = "creatorcomment"
    r = ObjectReader(body, base, warnings)
    body = r.src
    values: dict[str, Any] = {}
    if alias is None:
        r.get_all(_READ_ALL, values, quiet_whole_floats=True)
    else:
        r.get_all(_READ_BEFORE_NOTES, values, quiet_whole_floats=True)
        values["creator_notes"] = body[alias]
        r.consume(alias)
        r.get_all(_READ_AFTER_NOTES, values, quiet_whole_floats=True)
    if alias is not None:
        r.layout["alias"] = {"creator_notes": alias}
        r.absent.append("creator_notes")

    ext = r.get("extensions", DICT, {})
    scripts = ext.get("regex_scripts")
    if isinstance(scripts, list) and all(isinstance(s, Mapping) for s in scripts):
        r.layout["regex_at"] = list(ext).index("regex_scripts")
        values["regex_scripts"] = [
            parse_st_regex(s, format_id=format_id, warnings=warnings,
                           path=f"{base}.extensions.regex_scripts[{i}]", owned=True)
            for i, s in enumerate(scripts)
        ]
        del ext["regex_scripts"]
    elif scripts is not None and warnings is not None:
        warnings.append(Issue(f"{base}.extensions.regex_scripts",
                              "not a list of regex script objects; kept as it is"))
    values["extensions"] = ext

    r.consume("character_book")
    book = body.get("character_book")
    if "character_book" not in body:
        r.absent.append("character_book")
    elif book is None:
        r.raw["character_book"] = None
    elif isinstance(book, Mapping):
        values["lorebook"] = parse_book(book, format_id=format_id, warnings=warnings,
                                        path=f"{base}.character_book", owned=r.owned)
    else:
        r.data["character_book"] = jcopy(book)
        r.warn("character_book", "expected an object; kept as it was, not read")

    values["assets"] = _read_assets(body, r, layout, base, warnings, format_id)
    _, body_layout, body_data = r.finish(None)
    body_layout["order"] = list(body)  # which keys the card had: the writer keeps its gaps
    if version == "v1":
        copies = [k for k, attr in FLAT_COPIES.items()
                  if type(body_data.get(k)) is str and body_data[k] == values.get(attr)]
        if copies:
            body_layout["copies"] = copies
            for k in copies:
                del body_data[k]
    layout["data"] = body_layout
    for key, value in body_data.items():
        data[_data_key(key, version == "v1")] = value
    character = Character(**values)
    character.passthrough[format_id] = layout
    if data:
        character.app_data[format_id] = data
    return character


_CARD_KEYS = frozenset({"spec", "spec_version", "data"})


def _read_root(obj: Mapping[str, Any], body: Mapping[str, Any], layout: dict[str, Any],
               data: dict[str, Any], warnings: list[Issue] | None) -> None:
    """The root of a V2/V3 card besides ``spec`` and ``data``: copies of ``data`` fields are
    layout (compared with ``data``, never merged), other keys are the card's app data."""
    layout["root_order"] = [k if type(k) is str else str(k) for k in obj]
    copies: dict[str, Any] = {}
    mirrored = []
    plain = type(body) is dict
    for k, v in obj.items():
        key = k if type(k) is str else str(k)
        if key in _CARD_KEYS:
            continue
        path = ROOT_MIRRORS.get(key)
        if path is None:
            data[key] = jcopy(v)
            continue
        if type(v) is str:  # most copies are texts: compared and kept as they are
            value = copies[key] = v
            source = body.get(path[0], _NOTHING) if plain and len(path) == 1 \
                else _at(body, path)
            if type(source) is str and source == v:
                mirrored.append(key)
                continue
        else:
            value = copies[key] = jcopy(v)
            source = _at(body, path)
        if source is not _NOTHING and same(unfrozen(source), value):
            mirrored.append(key)
            continue
        if warnings is None or key not in _CONTENT_ROOT_KEYS or value == OBSOLESCENCE_NOTICE:
            continue
        where = "data." + ".".join(path)
        if source is _NOTHING:
            if not _is_blank(value):
                warnings.append(Issue(f"$.{key}", f"root {key} has a value but {where} is "
                                      "missing; data is the card, the root copy is ignored"))
        elif not (_is_blank(value) and _is_blank(source)):
            warnings.append(Issue(f"$.{key}", f"root {key} differs from {where}; "
                                  "data is the card, the root copy is ignored"))
    if copies:
        layout["root"] = copies
    if mirrored:
        layout["mirrored"] = mirrored


def _read_assets(body: Mapping[str, Any], r: ObjectReader, layout: dict[str, Any], base: str,
                 warnings: list[Issue] | None, format_id: str) -> list[Asset]:
    r.consume("assets")
    raw = body.get("assets")
    if "assets" not in body:
        r.absent.append("assets")
        return []
    if raw is None:
        r.raw["assets"] = None
        return []
    if not isinstance(raw, list):
        r.data["assets"] = jcopy(raw)
        r.warn("assets", "expected an array of assets; kept as it was, not read")
        return []
    from ..io.containers.media import sniff_media  # only a card that lists assets needs them
    from ..model import Asset
    assets: list[Asset] = []
    shapes: list[Any] = []
    for i, item in enumerate(raw):
        where = f"{base}.assets[{i}]"
        if not isinstance(item, Mapping):
            shapes.append({"bad": jcopy(item)})
            if warnings is not None:
                warnings.append(Issue(where, "asset is not an object; kept aside unread"))
            continue
        ar = ObjectReader(item, where, warnings, owned=r.owned)
        uri = ar.get("uri", STR)
        asset = Asset(type=ar.get("type", STR, "icon"), uri=uri, name=ar.get("name", STR, "main"),
                      ext=ar.get("ext", STR))
        if uri is not None:
            content = resolve_data_uri(uri)
            if content is not None:
                asset.data = content
                asset.media_type = sniff_media(content)[0]
                asset.origin = "data-uri"
        _, shape, extra = ar.finish(_ASSET_KEYS)
        shape["uri"] = uri
        if extra:
            asset.app_data[format_id] = extra
        shapes.append(shape)
        assets.append(asset)
    layout["assets"] = shapes
    return assets


# -- writing ------------------------------------------------------------------------------------

_BOOK_REQUIRED = ("extensions", "entries")
_ENTRY_REQUIRED = ("keys", "content", "extensions", "enabled", "insertion_order", "use_regex")

COMPLETED_KEYS: tuple[str, ...] = (
    "spec_version", *V1_KEYS,
    *(f"data.{key}" for key, _a, _c, _e, _f in _FIELDS if key not in _OPTIONAL),
    "data.extensions",
    *(f"data.character_book.{k}" for k in _BOOK_REQUIRED),
    *(f"data.character_book.entries[*].{k}" for k in _ENTRY_REQUIRED),
)
"""JSON paths of the keys :func:`build_card` adds to a card that lacked them because its spec
requires them (with the spec's empty value or what an app assumes): a rewrite in the same
format adds only these, so tests of byte-faithful rewrites may allow them."""


def build_card(character: Character, *, spec: Spec, format_id: str, loss: LossReport,
               root_duplicates: bool = False) -> dict[str, Any]:
    """The card JSON for a canonical character, as ``spec`` ``"v2"`` or ``"v3"`` (``"v1"``:
    a flat card, written only when asked).

    With the layout and app data :func:`parse_card` kept under ``format_id`` the card comes
    back as it was read: root copies of ``data`` fields (regenerated from ``data`` while they
    mirrored it), the root's own keys, absent keys, ``null``s, original types and key order.
    Without them, every field the spec requires is written and ``root_duplicates`` adds the
    six V1 fields at the root (for readers that only know V1).  What the chosen spec cannot
    hold is reported to ``loss`` by canonical path.  Assets without a ``uri`` and orphan assets
    are the container's business and not listed.
    """
    if spec not in _RANK:
        raise ValueError(f"unknown card spec {spec!r}")
    raw_layout = character.passthrough.get(format_id)
    layout: Mapping[str, Any] = raw_layout if isinstance(raw_layout, Mapping) \
        and "spec" in raw_layout else {}
    faithful = bool(layout)
    source_spec: Spec | None = None
    if faithful:
        label = layout.get("spec")
        source_spec = "v3" if label == SPEC_V3 else "v2" if label == SPEC_V2 else "v1"
    v1_to_v2 = source_spec == "v1" and spec != "v1"
    data_layout, body_data, root_data = _source_parts(character, format_id, layout, spec,
                                                      source_spec)
    w = ObjectWriter(data_layout if isinstance(data_layout, Mapping) else None, body_data, loss)
    order = w.layout.get("order", ()) if faithful else ()
    present = set(order if isinstance(order, list) else ())
    # Every card bunzai writes has each key its spec requires (RisuAI reads data.extensions
    # unguarded, strict readers refuse a card without tags ...); filling one in with the spec's
    # empty value changes no canonical value: nothing to report.  A card of another spec or
    # format is also cleaned of values a strict reader refuses; a rewrite in the spec it was
    # read as keeps them, and adds nothing else.
    complete = True
    clean = not faithful or source_spec != spec
    if spec == "v1" and source_spec != "v1":
        present -= {"character_book", "extensions", "assets"}  # V1 readers see none of them

    alias_map = w.layout.get("alias")
    alias = alias_map.get("creator_notes") if isinstance(alias_map, Mapping) else None
    if spec != "v1":
        alias = None
    elif alias is not None:
        present.add("creator_notes")

    _put_fields(character, w, spec, source_spec, loss, present, alias, faithful, complete)
    _write_extensions(character, w, spec, format_id, loss, present, not complete)
    _write_book(character, w, spec, format_id, loss, present, clean)
    _write_assets(character, w, spec, layout, loss, present, format_id)
    if character.triggers:
        loss.dropped("triggers", "character cards have no trigger scripts")

    data = w.finish(DATA_KEYS)
    if complete:
        _complete_data(data, character, spec, clean)
    if spec == "v1":
        root = data
        if faithful and source_spec != "v1":
            for key, value in root_data.items():
                if key not in root:
                    root[key] = jcopy(value)
        return root
    return _wrap(data, spec, layout, root_data, source_spec, root_duplicates, v1_to_v2)


def _source_parts(character: Character, format_id: str, layout: Mapping[str, Any], spec: Spec,
                  source_spec: Spec | None
                  ) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """What the card was read with, split by where it goes: the layout of ``data``, the
    unknown keys of ``data`` and those of the root (a flat card's own keys are the root's of
    a V2 card, and stay in a flat one)."""
    app = character.app_data.get(format_id) or {}
    flat_source = source_spec == "v1"
    copies = _at(layout, ("data", "copies")) if flat_source else _NOTHING
    if isinstance(copies, list):  # a flat card's copies, from the fields as they are now
        app = {**app, **{k: getattr(character, FLAT_COPIES[k]) for k in copies
                         if k in FLAT_COPIES}}
    body_data = {k[5:]: v for k, v in app.items() if k.startswith("data.")} if not flat_source \
        else {}
    root_data = {k: v for k, v in app.items() if not k.startswith("data.")} if not flat_source \
        else dict(app)
    data_layout = layout.get("data") if layout else None
    if flat_source and spec == "v1":
        body_data, root_data = root_data, {}  # a flat card's own keys stay in the flat card
    if flat_source and spec != "v1" and isinstance(data_layout, Mapping):
        # a flat card's unknown keys are root keys of the V2 card, not data
        data_layout = {k: v for k, v in data_layout.items() if k != "order"}
    return data_layout, body_data, root_data


def _allowed(key: str, first: Spec, spec: Spec, source_spec: Spec | None,
             present: set[str]) -> bool:
    """The target spec has the key, or the source had it in a card of this spec or an
    older one (a quirk worth keeping); a V3 source's V3-only keys do not go into V2,
    except group_only_greetings, which SillyTavern writes into V2 data too."""
    if _RANK[first] <= _RANK[spec]:
        return True
    if key not in present:
        return False
    older = source_spec is not None and _RANK[source_spec] <= _RANK[spec]
    return older or (key == "group_only_greetings" and spec == "v2")


def _put_fields(character: Character, w: ObjectWriter, spec: Spec, source_spec: Spec | None,
                loss: LossReport, present: set[str], alias: Any, faithful: bool,
                complete: bool) -> None:
    """Write the card's own fields into ``data`` (V1: the flat card), reporting each the
    spec has no key for."""
    for key, attr, conv, empty, first in _FIELDS:
        value = getattr(character, attr)  # the entity's own: put writes a copy, so does this
        if not _allowed(key, first, spec, source_spec, present):
            if key == "group_only_greetings" and spec == "v2" and value:
                pass  # SillyTavern writes group-only greetings into V2 data as well
            else:
                if not _is_blank(value) or (value is not None and key in _OPTIONAL):
                    loss.dropped(attr, f"a {spec.upper()} card has no {key}")
                continue
        if key == "creator_notes" and alias is not None:
            if value or alias in present:
                w.out[alias] = jcopy(value)
            continue
        if key in _OPTIONAL:
            w.put(key, value, conv)
        elif key == "group_only_greetings" and spec == "v2" and not faithful:
            if value:
                w.out[key] = jcopy(value)
        else:
            w.put(key, value, conv, empty, required=empty)
            if key not in w.out and complete:
                w.out[key] = jcopy(value)


def _write_extensions(character: Character, w: ObjectWriter, spec: Spec, format_id: str,
                      loss: LossReport, present: set[str], faithful: bool) -> None:
    ext = character.extensions  # the entity's own: copied where it is changed or written
    regex_at = w.layout.get("regex_at")
    if character.regex_scripts or isinstance(regex_at, int):
        ext = jcopy(ext)
        if "regex_scripts" in ext:
            loss.dropped("extensions.regex_scripts",
                         "replaced by the character's canonical regex scripts")
            del ext["regex_scripts"]
        scripts = [build_st_regex(s, format_id=format_id, loss=loss, path=f"regex_scripts[{i}]")
                   for i, s in enumerate(character.regex_scripts)]
        items = list(ext.items())
        at = regex_at if isinstance(regex_at, int) else len(items)
        items.insert(min(max(at, 0), len(items)), ("regex_scripts", scripts))
        ext = dict(items)
    if spec == "v1" and "extensions" not in present:
        if ext:
            loss.dropped("extensions", "a V1 card has no extensions")
            if character.regex_scripts:
                loss.dropped("regex_scripts", "a V1 card has no extensions to hold them")
        return
    w.put("extensions", ext, DICT, {}, required={})
    if "extensions" not in w.out and (ext or not faithful):
        w.out["extensions"] = jcopy(ext)


def _write_book(character: Character, w: ObjectWriter, spec: Spec, format_id: str,
                loss: LossReport, present: set[str], clean: bool) -> None:
    book = character.lorebook
    if spec == "v1" and "character_book" not in present:
        if book is not None:
            loss.dropped("lorebook", "a V1 card has no character book")
        return
    if book is None:
        if clean:
            w.omit("character_book")  # no null or wrongly typed book in a card of another spec
        elif w.was_null("character_book"):
            w.out["character_book"] = None
        return
    w.out["character_book"] = build_book(book, v3=spec == "v3", format_id=format_id,
                                         loss=loss, path="lorebook", complete=True,
                                         clean=clean)


def _complete_data(data: dict[str, Any], character: Character, spec: Spec,
                   clean: bool) -> None:
    """Every key ``spec`` requires; with ``clean`` also with the type it requires (a source's
    ``null`` or wrong type gives way to the canonical value, which is what was read from it),
    and optional V3 keys that are ``null`` or of another type left out."""
    for key, attr, conv, _empty, first in _FIELDS:
        if _RANK[first] > _RANK[spec]:
            continue
        value = data.get(key, _NOTHING)
        if not clean:
            if value is _NOTHING and key not in _OPTIONAL:
                data[key] = jcopy(getattr(character, attr))
            continue
        if key in _OPTIONAL:
            if value is not _NOTHING and not _spec_typed(conv, value):
                canonical = jcopy(getattr(character, attr))
                if canonical is None:
                    del data[key]
                else:
                    data[key] = canonical
        elif not _spec_typed(conv, value):
            data[key] = jcopy(getattr(character, attr))
    if spec != "v1" and ("extensions" not in data
                         or (clean and not isinstance(data["extensions"], dict))):
        data["extensions"] = {}


def _spec_typed(conv: Conv, value: Any) -> bool:
    """Whether a card value has the JSON type the spec gives its key."""
    if conv is STR:
        return isinstance(value, str)
    if conv in (STRLIST, TAGS):
        return isinstance(value, list) and all(isinstance(x, str) for x in value)
    if conv is STRDICT:
        return isinstance(value, dict) and all(isinstance(x, str) for x in value.values())
    if conv is INT:
        return isinstance(value, int) and not isinstance(value, bool)
    return True


@cache
def _neutral() -> Neutrality:
    from ..loss.neutral import Neutrality
    return Neutrality()


def _write_assets(character: Character, w: ObjectWriter, spec: Spec,
                  layout: Mapping[str, Any], loss: LossReport, present: set[str],
                  format_id: str) -> None:
    listed = [(i, a) for i, a in enumerate(character.assets) if a.uri is not None and not a.orphan]
    if spec != "v3" and "assets" not in present:
        for i, _a in listed:
            loss.dropped(f"assets[{i}]", f"a {spec.upper()} card has no asset list")
        return
    shapes_raw = layout.get("assets")
    shapes = [s for s in shapes_raw if isinstance(s, Mapping)] if isinstance(
        shapes_raw, list) else []
    used: set[int] = set()
    out: list[Any] = []
    for i, asset in listed:
        shape = None
        for j, s in enumerate(shapes):
            if j not in used and "bad" not in s and s.get("uri") == asset.uri:
                shape = s
                used.add(j)
                break
        aw = ObjectWriter(shape, asset.app_data.get(format_id))
        aw.put("type", asset.type, STR, "icon")
        aw.put("uri", asset.uri, STR)
        aw.put("name", asset.name, STR, "main")
        ext = asset.ext
        if ext is None and shape is None:
            from ..io.containers.media import sniff_media
            ext = sniff_media(asset.data)[1] if asset.data else "unknown"
        aw.put("ext", ext, STR)
        for key, value in asset.extensions.items():  # each key is a piece of data
            if not _neutral().neutral(f"assets[*].extensions.{key}", value):
                loss.dropped(f"assets[{i}].extensions.{key}", "CCv3 assets have no extensions")
        out.append(aw.finish(_ASSET_KEYS))
    # assets that were not objects in the source come back where they were
    for j, s in enumerate(shapes_raw if isinstance(shapes_raw, list) else []):
        if isinstance(s, Mapping) and "bad" in s:
            out.insert(min(j, len(out)), jcopy(s["bad"]))
    if out:
        w.out["assets"] = out
    elif "assets" in present:
        if w.was_null("assets"):
            w.out["assets"] = None
        elif "assets" not in w.data:
            w.out["assets"] = out


def _wrap(data: dict[str, Any], spec: Spec, layout: Mapping[str, Any],
          root_data: Mapping[str, Any], source_spec: Spec | None, root_duplicates: bool,
          v1_to_v2: bool) -> dict[str, Any]:
    root: dict[str, Any] = {"spec": _SPEC_LABEL[spec]}
    if source_spec == spec and "spec_version" in layout:
        root["spec_version"] = jcopy(layout["spec_version"])
    else:  # required by V2 and V3
        root["spec_version"] = _SPEC_VERSION[spec]
    root["data"] = data
    copies = layout.get("root")
    order = layout.get("root_order")
    if isinstance(copies, Mapping) and not v1_to_v2:
        mirrored = set(layout.get("mirrored") or ())
        for key, value in copies.items():
            if key in mirrored:
                source = _at(data, ROOT_MIRRORS[key])
                root[key] = jcopy(value) if source is _NOTHING else jcopy(source)
            else:
                root[key] = jcopy(value)
    for key, value in root_data.items():
        if key not in root:
            root[key] = jcopy(value)
    if root_duplicates and source_spec != spec:
        # a fresh copy in another spec (the PNG ``chara`` backfill): V1-only readers need these
        for key in V1_KEYS:
            if key not in root:
                root[key] = data.get(key, "")
    if isinstance(order, list) and not v1_to_v2:
        return reorder(root, order)
    return root

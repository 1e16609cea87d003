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
* Absent, ``null``, wrong-typed and unknown keys, and key order, are recorded in
  ``passthrough[format_id]`` so the same format re-writes identical JSON.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..errors import MalformedInput
from ..loss import LossReport
from ..types import Issue
from ._shape import (
    Converter,
    ShapeReader,
    ShapeWriter,
    conv_dict,
    conv_int,
    conv_opt_str,
    conv_opt_str_dict,
    conv_opt_str_list,
    conv_str,
    conv_str_list,
    conv_tags,
    json_equal,
    plain,
    reorder,
)
from .detect import SPEC_V2, SPEC_V3
from .lorebook import build_book, parse_book
from .regex import build_st_regex, parse_st_regex

if TYPE_CHECKING:
    from ..model import Asset, Character

__all__ = [
    "DATA_KEYS",
    "OBSOLESCENCE_NOTICE",
    "ROOT_MIRRORS",
    "build_card",
    "card_digest",
    "digest_matches",
    "parse_card",
    "resolve_data_uri",
]

Spec = Literal["v1", "v2", "v3"]

OBSOLESCENCE_NOTICE = "This is a V2 Character Card. Please update your frontend."
"""What some backfills write into every root V1 field; noise, not a disagreement."""

V1_KEYS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")

# (data key, canonical attribute, converter, value meaning "not there", first spec having it)
_FIELDS: tuple[tuple[str, str, Converter, Any, Spec], ...] = (
    ("name", "name", conv_str, "", "v1"),
    ("description", "description", conv_str, "", "v1"),
    ("personality", "personality", conv_str, "", "v1"),
    ("scenario", "scenario", conv_str, "", "v1"),
    ("first_mes", "first_mes", conv_str, "", "v1"),
    ("mes_example", "mes_example", conv_str, "", "v1"),
    ("creator_notes", "creator_notes", conv_str, "", "v2"),
    ("system_prompt", "system_prompt", conv_str, "", "v2"),
    ("post_history_instructions", "post_history_instructions", conv_str, "", "v2"),
    ("alternate_greetings", "alternate_greetings", conv_str_list, [], "v2"),
    ("tags", "tags", conv_tags, [], "v2"),
    ("creator", "creator", conv_str, "", "v2"),
    ("character_version", "character_version", conv_str, "", "v2"),
    ("group_only_greetings", "group_only_greetings", conv_str_list, [], "v3"),
    ("nickname", "nickname", conv_opt_str, None, "v3"),
    ("creator_notes_multilingual", "creator_notes_multilingual", conv_opt_str_dict, None, "v3"),
    ("source", "source", conv_opt_str_list, None, "v3"),
    ("creation_date", "creation_date", conv_int, None, "v3"),
    ("modification_date", "modification_date", conv_int, None, "v3"),
)
_OPTIONAL = {"nickname", "creator_notes_multilingual", "source", "creation_date",
             "modification_date"}
_EXPECTED: dict[Converter, str] = {
    conv_str: "a string", conv_str_list: "a list of strings", conv_tags: "a list of strings",
    conv_opt_str: "a string", conv_opt_str_dict: "an object of strings",
    conv_opt_str_list: "a list of strings", conv_int: "a number (Unix seconds)",
}

DATA_KEYS = (
    "name", "description", "personality", "scenario", "first_mes", "mes_example",
    "creator_notes", "system_prompt", "post_history_instructions", "alternate_greetings",
    "character_book", "tags", "creator", "character_version", "extensions",
    "group_only_greetings", "nickname", "creator_notes_multilingual", "source",
    "creation_date", "modification_date", "assets",
)
"""Card ``data`` keys in the order written when there is no recorded shape."""

ROOT_MIRRORS: dict[str, tuple[str, ...]] = {
    "name": ("name",), "description": ("description",), "personality": ("personality",),
    "scenario": ("scenario",), "first_mes": ("first_mes",), "mes_example": ("mes_example",),
    "tags": ("tags",), "creator": ("creator",), "creatorcomment": ("creator_notes",),
    "creator_notes": ("creator_notes",), "system_prompt": ("system_prompt",),
    "post_history_instructions": ("post_history_instructions",),
    "alternate_greetings": ("alternate_greetings",),
    "character_version": ("character_version",),
    "talkativeness": ("extensions", "talkativeness"), "fav": ("extensions", "fav"),
}
"""Root keys that writers copy from ``data`` (root key -> path in ``data``)."""

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


def _is_blank(v: Any) -> bool:
    return v is None or v == "" or v == [] or v == {} or v == OBSOLESCENCE_NOTICE


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
            text = orjson.dumps(plain(obj), option=orjson.OPT_SORT_KEYS)
        except TypeError:
            return _stdlib_digest(obj)
    return hashlib.sha256(text).hexdigest()


def _stdlib_digest(obj: Any) -> str:
    import json

    text = json.dumps(plain(obj), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
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
        from ..containers.base64util import decode_base64
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
    problems are appended to ``warnings`` as :class:`~bunzai.types.Issue` with JSON paths.
    """
    from ..model import Character

    if not isinstance(obj, Mapping):
        raise MalformedInput("a character card must be a JSON object")
    spec = obj.get("spec")
    pt: dict[str, Any] = {}
    if "spec" not in obj:
        body: Mapping[str, Any] = obj
        base = "$"
        version: Spec = "v1"
        pt["spec"] = None
    elif spec in (SPEC_V2, SPEC_V3):
        data = obj.get("data")
        if not isinstance(data, Mapping):
            raise MalformedInput(f"{spec} card has no data object")
        body = data
        base = "$.data"
        version = "v3" if spec == SPEC_V3 else "v2"
        pt["spec"] = spec
        if "spec_version" in obj:
            pt["spec_version"] = plain(obj["spec_version"])
        else:
            pt["spec_version_absent"] = True
        _read_root(obj, body, pt, warnings)
    else:
        raise MalformedInput(f"not a character card (spec is {spec!r})")

    known = list(DATA_KEYS)
    alias: str | None = None
    if version == "v1" and "creator_notes" not in body and isinstance(
            body.get("creatorcomment"), str):
        alias = "creatorcomment"
        known.append(alias)
    r = ShapeReader(body, known, path=base, warnings=warnings)
    values: dict[str, Any] = {}
    for key, attr, conv, empty, _first in _FIELDS:
        if key == "creator_notes" and alias is not None:
            values[attr] = body[alias]
            continue
        raw = body.get(key)
        values[attr] = r.field(key, conv, empty, nullable=key in _OPTIONAL,
                               expected=_EXPECTED.get(conv, "another type"),
                               quiet=conv is conv_int and isinstance(raw, float)
                               and raw.is_integer())
    if alias is not None:
        r.more["alias"] = {"creator_notes": alias}
        r.absent.append("creator_notes")

    ext = r.field("extensions", conv_dict, {}, nullable=False, expected="an object")
    scripts = ext.get("regex_scripts") if isinstance(ext, dict) else None
    if isinstance(scripts, list) and all(isinstance(s, Mapping) for s in scripts):
        r.more["regex_at"] = list(ext).index("regex_scripts")
        values["regex_scripts"] = [
            parse_st_regex(s, format_id=format_id, warnings=warnings,
                           path=f"{base}.extensions.regex_scripts[{i}]")
            for i, s in enumerate(scripts)
        ]
        del ext["regex_scripts"]
    elif scripts is not None and warnings is not None:
        warnings.append(Issue(f"{base}.extensions.regex_scripts",
                              "not a list of regex script objects; kept as it is"))
    values["extensions"] = ext

    book = body.get("character_book")
    if "character_book" not in body:
        r.absent.append("character_book")
    elif book is None:
        r.null.append("character_book")
    elif isinstance(book, Mapping):
        values["lorebook"] = parse_book(book, format_id=format_id, warnings=warnings,
                                        path=f"{base}.character_book")
    else:
        r.coerced["character_book"] = plain(book)
        r.warn("character_book", "expected an object; not read")

    values["assets"] = _read_assets(body, r, pt, base, warnings)
    pt["data"] = r.record()
    character = Character(**values)
    character.passthrough[format_id] = pt
    return character


def _read_root(obj: Mapping[str, Any], data: Mapping[str, Any], pt: dict[str, Any],
               warnings: list[Issue] | None) -> None:
    """Root baggage of a V2/V3 card: kept, compared with ``data``, never merged."""
    root = {str(k): plain(v) for k, v in obj.items() if k not in ("spec", "spec_version", "data")}
    pt["root_order"] = [str(k) for k in obj]
    if not root:
        return
    mirrored = []
    for key, value in root.items():
        path = ROOT_MIRRORS.get(key)
        if path is None:
            continue
        source = _at(data, path)
        if source is not _NOTHING and json_equal(plain(source), value):
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
    pt["root"] = root
    if mirrored:
        pt["mirrored"] = mirrored


def _read_assets(body: Mapping[str, Any], r: ShapeReader, pt: dict[str, Any], base: str,
                 warnings: list[Issue] | None) -> list[Asset]:
    from ..containers.media import sniff_media
    from ..model import Asset

    raw = body.get("assets")
    if "assets" not in body:
        r.absent.append("assets")
        return []
    if raw is None:
        r.null.append("assets")
        return []
    if isinstance(raw, str | bytes) or not isinstance(raw, Sequence):
        r.coerced["assets"] = plain(raw)
        r.warn("assets", "expected an array of assets; not read")
        return []
    assets: list[Asset] = []
    shapes: list[Any] = []
    for i, item in enumerate(raw):
        where = f"{base}.assets[{i}]"
        if not isinstance(item, Mapping):
            shapes.append({"bad": plain(item)})
            if warnings is not None:
                warnings.append(Issue(where, "asset is not an object; kept aside unread"))
            continue
        ar = ShapeReader(item, _ASSET_KEYS, path=where, warnings=warnings)
        uri = ar.field("uri", conv_opt_str, None, nullable=True, expected="a string")
        asset = Asset(
            type=ar.field("type", conv_str, "icon", nullable=False, expected="a string"),
            uri=uri,
            name=ar.field("name", conv_str, "main", nullable=False, expected="a string"),
            ext=ar.field("ext", conv_opt_str, None, nullable=True, expected="a string"),
        )
        if uri is not None:
            data = resolve_data_uri(uri)
            if data is not None:
                asset.data = data
                asset.media_type = sniff_media(data)[0]
                asset.origin = "data-uri"
        ar.more["uri"] = uri
        shapes.append(ar.record())
        assets.append(asset)
    pt["assets"] = shapes
    return assets


# -- writing ------------------------------------------------------------------------------------


def build_card(character: Character, *, spec: Spec, format_id: str, loss: LossReport,
               root_duplicates: bool = False) -> dict[str, Any]:
    """The card JSON for a canonical character, as ``spec`` ``"v2"`` or ``"v3"`` (``"v1"``:
    a flat card, written only when asked).

    With a shape recorded by :func:`parse_card` under ``format_id`` the card comes back as it
    was read: root baggage (duplicates that mirrored ``data`` regenerated from it), absent
    keys, ``null``s, original types and key order.  Without one, every field the spec requires
    is written and ``root_duplicates`` adds the six V1 fields at the root (for readers that
    only know V1).  What the chosen spec cannot hold is reported to ``loss`` by canonical path.
    Assets without a ``uri`` and orphan assets are the container's business and not listed.
    """
    if spec not in _RANK:
        raise ValueError(f"unknown card spec {spec!r}")
    raw_pt = character.passthrough.get(format_id)
    pt: Mapping[str, Any] = raw_pt if isinstance(raw_pt, Mapping) and "spec" in raw_pt else {}
    faithful = bool(pt)
    source_spec: Spec | None = None
    if faithful:
        label = pt.get("spec")
        source_spec = "v3" if label == SPEC_V3 else "v2" if label == SPEC_V2 else "v1"
    data_shape = pt.get("data") if faithful else None
    v1_to_v2 = source_spec == "v1" and spec != "v1"
    if v1_to_v2 and isinstance(data_shape, Mapping):
        # a flat card's unknown keys are root baggage, not data
        data_shape = {k: v for k, v in data_shape.items() if k not in ("extra", "order")}
    w = ShapeWriter(data_shape if isinstance(data_shape, Mapping) else None)
    present = set(w.shape.get("order", ())) if faithful else set()
    # Only a rewrite in the spec it was read as keeps the source's gaps; any other card gets
    # every key its spec requires (RisuAI reads data.extensions unguarded, strict readers refuse
    # a card without tags ...).  Filling them changes no canonical value: nothing to report.
    complete = not faithful or source_spec != spec
    if spec == "v1" and source_spec != "v1":
        present -= {"character_book", "extensions", "assets"}  # V1 readers see none of them

    def allowed(key: str, first: Spec) -> bool:
        """The target spec has the key, or the source had it in a card of this spec or an
        older one (a quirk worth keeping); a V3 source's V3-only keys do not go into V2,
        except group_only_greetings, which SillyTavern writes into V2 data too."""
        if _RANK[first] <= _RANK[spec]:
            return True
        if key not in present:
            return False
        older = source_spec is not None and _RANK[source_spec] <= _RANK[spec]
        return older or (key == "group_only_greetings" and spec == "v2")

    alias_map = w.shape.get("alias")
    alias = alias_map.get("creator_notes") if isinstance(alias_map, Mapping) else None
    if spec != "v1":
        alias = None
    elif alias is not None:
        present.add("creator_notes")

    for key, attr, conv, empty, first in _FIELDS:
        value = plain(getattr(character, attr))
        if not allowed(key, first):
            if key == "group_only_greetings" and spec == "v2" and value:
                pass  # SillyTavern writes group-only greetings into V2 data as well
            else:
                if not _is_blank(value) or (value is not None and key in _OPTIONAL):
                    loss.dropped(attr, f"a {spec.upper()} card has no {key}")
                continue
        if key == "creator_notes" and alias is not None:
            if value or alias in present:
                w.out[alias] = value
            continue
        if key in _OPTIONAL:
            w.put(key, value, conv, empty=None)
        elif key == "group_only_greetings" and spec == "v2" and not faithful:
            if value:
                w.out[key] = value
        else:
            w.put(key, value, conv, empty=empty, required_default=empty)
            if key not in w.out and complete:
                w.out[key] = value

    _write_extensions(character, w, spec, format_id, loss, present, not complete)
    _write_book(character, w, spec, format_id, loss, present, complete)
    _write_assets(character, w, spec, pt, loss, present)
    if character.triggers:
        loss.dropped("triggers", "character cards have no trigger scripts")

    data = w.finish(DATA_KEYS)
    if complete:
        _complete_data(data, character, spec)
    if spec == "v1":
        root = data
        if faithful and source_spec != "v1":
            for key, value in (pt.get("root") or {}).items():
                if key not in root and key not in ROOT_MIRRORS:
                    root[key] = plain(value)
        return root
    return _wrap(data, spec, pt, source_spec, root_duplicates, v1_to_v2)


def _write_extensions(character: Character, w: ShapeWriter, spec: Spec, format_id: str,
                      loss: LossReport, present: set[str], faithful: bool) -> None:
    ext = plain(character.extensions)
    regex_at = w.shape.get("regex_at")
    if character.regex_scripts or isinstance(regex_at, int):
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
    w.put("extensions", ext, conv_dict, empty={}, required_default={})
    if "extensions" not in w.out and (ext or not faithful):
        w.out["extensions"] = ext


def _write_book(character: Character, w: ShapeWriter, spec: Spec, format_id: str,
                loss: LossReport, present: set[str], complete: bool) -> None:
    book = character.lorebook
    if spec == "v1" and "character_book" not in present:
        if book is not None:
            loss.dropped("lorebook", "a V1 card has no character book")
        return
    if book is None:
        if complete:
            return  # no null or wrongly typed book in a card of another spec
        if w.was_null("character_book"):
            w.out["character_book"] = None
        elif "character_book" in w.coerced:
            w.out["character_book"] = plain(w.coerced["character_book"])
        return
    w.out["character_book"] = build_book(book, v3=spec == "v3", format_id=format_id,
                                         loss=loss, path="lorebook", complete=complete)


def _complete_data(data: dict[str, Any], character: Character, spec: Spec) -> None:
    """Every key ``spec`` requires, with the type it requires (a source's ``null`` or wrong
    type gives way to the canonical value, which is what was read from it); optional V3 keys
    that are ``null`` or of another type are left out."""
    for key, attr, conv, _empty, first in _FIELDS:
        if _RANK[first] > _RANK[spec]:
            continue
        value = data.get(key, _NOTHING)
        if key in _OPTIONAL:
            if value is not _NOTHING and not _spec_typed(conv, value):
                canonical = plain(getattr(character, attr))
                if canonical is None:
                    del data[key]
                else:
                    data[key] = canonical
        elif not _spec_typed(conv, value):
            data[key] = plain(getattr(character, attr))
    if spec != "v1" and not isinstance(data.get("extensions"), dict):
        data["extensions"] = {}


def _spec_typed(conv: Converter, value: Any) -> bool:
    """Whether a card value has the JSON type the spec gives its key."""
    if conv in (conv_str, conv_opt_str):
        return isinstance(value, str)
    if conv in (conv_str_list, conv_tags, conv_opt_str_list):
        return isinstance(value, list) and all(isinstance(x, str) for x in value)
    if conv is conv_opt_str_dict:
        return isinstance(value, dict) and all(isinstance(x, str) for x in value.values())
    if conv is conv_int:
        return isinstance(value, int) and not isinstance(value, bool)
    return True


def _write_assets(character: Character, w: ShapeWriter, spec: Spec, pt: Mapping[str, Any],
                  loss: LossReport, present: set[str]) -> None:
    listed = [(i, a) for i, a in enumerate(character.assets) if a.uri is not None and not a.orphan]
    if spec != "v3" and "assets" not in present:
        for i, _a in listed:
            loss.dropped(f"assets[{i}]", f"a {spec.upper()} card has no asset list")
        return
    shapes_raw = pt.get("assets")
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
        aw = ShapeWriter(shape)
        aw.put("type", asset.type, conv_str, empty="icon")
        aw.put("uri", asset.uri, conv_opt_str, empty=None)
        aw.put("name", asset.name, conv_str, empty="main")
        ext = asset.ext
        if ext is None and shape is None:
            from ..containers.media import sniff_media
            ext = sniff_media(asset.data)[1] if asset.data else "unknown"
            loss.approximated(f"assets[{i}].ext",
                              f"CCv3 assets need an ext; written as {ext!r}")
        aw.put("ext", ext, conv_opt_str, empty=None)
        if asset.extensions:
            loss.dropped(f"assets[{i}].extensions", "CCv3 assets have no extensions")
        out.append(aw.finish(_ASSET_KEYS))
    # assets that were not objects in the source come back where they were
    for j, s in enumerate(shapes_raw if isinstance(shapes_raw, list) else []):
        if isinstance(s, Mapping) and "bad" in s:
            out.insert(min(j, len(out)), plain(s["bad"]))
    if out:
        w.out["assets"] = out
    elif "assets" in present:
        if w.was_null("assets"):
            w.out["assets"] = None
        elif "assets" in w.coerced:
            w.out["assets"] = plain(w.coerced["assets"])
        else:
            w.out["assets"] = out


def _wrap(data: dict[str, Any], spec: Spec, pt: Mapping[str, Any], source_spec: Spec | None,
          root_duplicates: bool, v1_to_v2: bool) -> dict[str, Any]:
    root: dict[str, Any] = {"spec": _SPEC_LABEL[spec]}
    if source_spec == spec and "spec_version" in pt:
        root["spec_version"] = plain(pt["spec_version"])
    elif not (source_spec == spec and pt.get("spec_version_absent")):
        root["spec_version"] = _SPEC_VERSION[spec]
    root["data"] = data
    baggage = pt.get("root")
    order = pt.get("root_order")
    if isinstance(baggage, Mapping) and not v1_to_v2:
        mirrored = set(pt.get("mirrored") or ())
        for key, value in baggage.items():
            if key in mirrored:
                source = _at(data, ROOT_MIRRORS[key])
                root[key] = plain(value) if source is _NOTHING else plain(source)
            else:
                root[key] = plain(value)
    if v1_to_v2:
        extra = (pt.get("data") or {}).get("extra")
        for key, value in (extra.items() if isinstance(extra, Mapping) else ()):
            if key not in root:
                root[key] = plain(value)
    if root_duplicates and source_spec != spec:
        # a fresh copy in another spec (the PNG ``chara`` backfill): V1-only readers need these
        for key in V1_KEYS:
            if key not in root:
                root[key] = data.get(key, "")
    if isinstance(order, list) and not v1_to_v2:
        return reorder(root, order)
    return root

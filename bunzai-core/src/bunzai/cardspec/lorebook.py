"""Character Card V2/V3 ``character_book`` <-> canonical :class:`~bunzai.model.Lorebook`.

The card spec's entry has few fields; SillyTavern keeps the rest of its world-info settings in
``entry.extensions`` under fixed names (``convertWorldInfoToCharacterBook``).  Those settings are
what users lose in converters, so they are lifted into canonical fields here and put back on
write, which lets them travel between formats as fields, not as opaque extension data:

=================================  =============================  ===========================
``entry.extensions`` key (ST)      canonical ``LorebookEntry``    value mapping
=================================  =============================  ===========================
``position``                       ``position``                   0..7 -> ``POSITIONS`` names
``selectiveLogic``                 ``selective_logic``            0..3 -> ``SELECTIVE_LOGIC``
``role``                           ``role``                       0..2 -> system/user/assistant
``useProbability``                 ``use_probability``
``probability``, ``depth``,        same name                      kept as given
``group``, ``group_override``,
``group_weight``, ``sticky``,
``cooldown``, ``delay``,
``exclude_recursion``,
``prevent_recursion``,
``delay_until_recursion``,
``scan_depth``,
``match_whole_words``,
``use_group_scoring``,
``case_sensitive``,
``automation_id``, ``vectorized``,
``display_index``,
``outlet_name``, ``triggers``,
``ignore_budget``,
``match_persona_description``,
``match_character_description``,
``match_character_personality``,
``match_character_depth_prompt``,
``match_scenario``,
``match_creator_notes``,
``character_filter``
=================================  =============================  ===========================

A key is lifted only when its value has the type the canonical field holds (``null`` included:
ST writes ``probability: null``); anything else stays in ``extensions`` untouched.  The spec's
own entry fields (``keys``, ``content``, ``enabled``, ``insertion_order``, ``case_sensitive``,
``name``, ``priority``, ``id``, ``comment``, ``selective``, ``secondary_keys``, ``constant``,
``position``, V3 ``use_regex``) map one to one; RisuAI's ``folder`` and ``mode: "folder"`` map to
``folder`` / ``is_folder``; Wyvern's top-level ``key_logic``, ``scan_persona``,
``whole_words_only``, ``delay``, ``sticky`` and ``cooldown`` map to ``selective_logic``,
``match_persona_description``, ``match_whole_words``, ``delay``, ``sticky``, ``cooldown``.
Unknown keys, absent keys, ``null``s, wrong types and key order are recorded in
``passthrough[format_id]`` so the same format re-writes the same JSON.

``entry_from_v2`` / ``entry_to_v2`` are the per-entry half and are public so a world-info
adapter can reuse the ST-extension mapping.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import Issue
from ..fields import (
    BOOL,
    DICT,
    ID,
    INT,
    NUM,
    STR,
    STRLIST,
    Bad,
    Conv,
    ObjectReader,
    ObjectWriter,
    jcopy,
    kept,
    reorder,
    same,
)
from ..loss.report import LossReport

if TYPE_CHECKING:
    from ..model import Lorebook, LorebookEntry

__all__ = [
    "BOOK_KEYS",
    "ENTRY_KEYS",
    "ST_ENTRY_EXTENSIONS",
    "TOP_ENTRY_KEYS",
    "build_book",
    "entry_from_v2",
    "entry_to_v2",
    "parse_book",
    "st_extensions_from_entry",
]

_POSITIONS = ("before_char", "after_char", "an_top", "an_bottom", "at_depth", "em_top",
              "em_bottom", "outlet")
_LOGIC = ("and_any", "not_all", "not_any", "and_all")
_ROLES = ("system", "user", "assistant")

BOOK_KEYS = ("name", "description", "scan_depth", "token_budget", "recursive_scanning",
             "extensions", "entries")
"""The spec's book keys, in the order written when there is no recorded shape."""

ENTRY_KEYS = ("keys", "content", "extensions", "enabled", "insertion_order", "case_sensitive",
              "use_regex", "name", "priority", "id", "comment", "selective", "secondary_keys",
              "constant", "position", "folder", "mode")
"""Entry keys the codec maps (the spec's plus RisuAI's ``folder``/``mode``)."""
_ENTRY_KEY_SET = frozenset(ENTRY_KEYS)


# -- ST entry extensions -------------------------------------------------------------------------


def _exact_bool(v: Any) -> tuple[bool, Any]:
    return isinstance(v, bool), v


def _exact_int(v: Any) -> tuple[bool, Any]:
    return isinstance(v, int) and not isinstance(v, bool), v


def _exact_num(v: Any) -> tuple[bool, Any]:
    return isinstance(v, int | float) and not isinstance(v, bool), v


def _exact_str(v: Any) -> tuple[bool, Any]:
    return isinstance(v, str), v


def _exact_int_or_bool(v: Any) -> tuple[bool, Any]:
    return isinstance(v, int), v


def _exact_str_list(v: Any) -> tuple[bool, Any]:
    ok = isinstance(v, list) and all(isinstance(x, str) for x in v)
    return ok, list(v) if ok else v


def _exact_dict(v: Any) -> tuple[bool, Any]:
    return isinstance(v, Mapping), jcopy(v) if isinstance(v, Mapping) else v


def _indexed(names: tuple[str, ...]) -> Callable[[Any], tuple[bool, Any]]:
    def check(v: Any) -> tuple[bool, Any]:
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(names):
            return True, names[v]
        return False, v
    return check


def _index_of(names: tuple[str, ...]) -> Callable[[Any], Any]:
    def back(v: Any) -> Any:
        return names.index(v) if v in names else None
    return back


def _same(v: Any) -> Any:
    return v


ST_ENTRY_EXTENSIONS: tuple[tuple[str, str, Callable[[Any], tuple[bool, Any]],
                                 Callable[[Any], Any]], ...] = (
    ("position", "position", _indexed(_POSITIONS), _index_of(_POSITIONS)),
    ("exclude_recursion", "exclude_recursion", _exact_bool, _same),
    ("display_index", "display_index", _exact_int, _same),
    ("probability", "probability", _exact_num, _same),
    ("useProbability", "use_probability", _exact_bool, _same),
    ("depth", "depth", _exact_int, _same),
    ("selectiveLogic", "selective_logic", _indexed(_LOGIC), _index_of(_LOGIC)),
    ("group", "group", _exact_str, _same),
    ("group_override", "group_override", _exact_bool, _same),
    ("group_weight", "group_weight", _exact_num, _same),
    ("prevent_recursion", "prevent_recursion", _exact_bool, _same),
    ("delay_until_recursion", "delay_until_recursion", _exact_int_or_bool, _same),
    ("scan_depth", "scan_depth", _exact_int, _same),
    ("match_whole_words", "match_whole_words", _exact_bool, _same),
    ("use_group_scoring", "use_group_scoring", _exact_bool, _same),
    ("case_sensitive", "case_sensitive", _exact_bool, _same),
    ("automation_id", "automation_id", _exact_str, _same),
    ("role", "role", _indexed(_ROLES), _index_of(_ROLES)),
    ("vectorized", "vectorized", _exact_bool, _same),
    ("sticky", "sticky", _exact_int, _same),
    ("cooldown", "cooldown", _exact_int, _same),
    ("delay", "delay", _exact_int, _same),
    ("outlet_name", "outlet_name", _exact_str, _same),
    ("match_persona_description", "match_persona_description", _exact_bool, _same),
    ("match_character_description", "match_character_description", _exact_bool, _same),
    ("match_character_personality", "match_character_personality", _exact_bool, _same),
    ("match_character_depth_prompt", "match_character_depth_prompt", _exact_bool, _same),
    ("match_scenario", "match_scenario", _exact_bool, _same),
    ("match_creator_notes", "match_creator_notes", _exact_bool, _same),
    ("triggers", "triggers", _exact_str_list, _same),
    ("ignore_budget", "ignore_budget", _exact_bool, _same),
    ("character_filter", "character_filter", _exact_dict, _same),
)
"""(ST extension key, canonical field, reader check -> (ok, value), writer mapping), in the
order SillyTavern writes them."""

_EXT_BY_KEY = {k: (attr, check, back) for k, attr, check, back in ST_ENTRY_EXTENSIONS}
_MAY_REFUSE = tuple((attr, back) for k, attr, _check, back in ST_ENTRY_EXTENSIONS
                    if back is not _same and k != "position")
"""The ST settings whose writer mapping can find no ST value (the coded ones but position)."""

_WYVERN_LOGIC = tuple(v.upper() for v in _LOGIC)

TOP_ENTRY_KEYS: tuple[tuple[str, str, Callable[[Any], tuple[bool, Any]],
                            Callable[[Any], Any]], ...] = (
    ("key_logic", "selective_logic",
     lambda v: (v in _WYVERN_LOGIC, v.lower() if v in _WYVERN_LOGIC else v),
     lambda v: v.upper() if v in _LOGIC else None),
    ("scan_persona", "match_persona_description", _exact_bool, _same),
    ("whole_words_only", "match_whole_words", _exact_bool, _same),
    ("delay", "delay", _exact_int, _same),
    ("sticky", "sticky", _exact_int, _same),
    ("cooldown", "cooldown", _exact_int, _same),
)
"""Settings Wyvern writes as top-level entry keys (not in ``extensions``) that mean what a
canonical field means: lifted when ST's extension did not already state the field, and written
back under Wyvern's key by the same format."""

_TOP_BY_KEY = {k: (attr, check, back) for k, attr, check, back in TOP_ENTRY_KEYS}


def _v2_position(p: str) -> str:
    """The spec's two-valued ``position`` for a canonical position (ST's projection)."""
    if p in _POSITIONS and p not in ("before_char", "after_char"):
        return "after_char"
    return p


def _top_position(x: Any) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(_POSITIONS):
        return _POSITIONS[x]
    raise Bad(f"expected a position name, got {x!r}")


TOP_POSITION = Conv("a position", _top_position, jcopy, lambda x: type(x) is str)
"""The spec's ``position`` (any text is kept; ST's numbers are read as names)."""


def st_extensions_from_entry(entry: LorebookEntry) -> dict[str, Any]:
    """The SillyTavern ``entry.extensions`` keys for every stated canonical field.

    Used by writers without a recorded shape: ST's own names, ST's value encoding (numbers for
    position / selectiveLogic / role), in ST's order.  Positions the spec's ``position`` string
    can say on its own (``before_char``/``after_char``) and custom positions are left out.
    """
    out: dict[str, Any] = {}
    for key, attr, _check, back in ST_ENTRY_EXTENSIONS:
        value = getattr(entry, attr)
        if value is None:
            continue
        if key == "position" and (value in ("before_char", "after_char")
                                  or value not in _POSITIONS):
            continue
        mapped = back(value)
        if mapped is None:
            continue
        out[key] = jcopy(mapped)
    return out


# -- entries --------------------------------------------------------------------------------------


_ENTRY_READ: tuple[tuple[str, str, Conv, Any], ...] = tuple(
    (key, key, conv, absent) for key, conv, absent in (
    ("keys", STRLIST, []), ("content", STR, ""), ("enabled", BOOL, True),
    ("insertion_order", NUM, None), ("case_sensitive", BOOL, None), ("use_regex", BOOL, None),
    ("name", STR, None), ("priority", NUM, None), ("id", ID, None), ("comment", STR, None),
    ("selective", BOOL, None), ("secondary_keys", STRLIST, []), ("constant", BOOL, None),
    ("folder", STR, None)))
"""The spec's entry fields, as entry_from_v2 reads them (key, attribute, converter, absent)."""


def _lift_settings(items: Iterable[tuple[str, Any]], src: Mapping[str, Any],
                   values: dict[str, Any], lifted: list[str], ext_null: list[str],
                   owned: bool) -> dict[str, Any]:
    """An entry's ``extensions`` without SillyTavern's copies of entry settings, which go to
    their canonical fields in ``values`` (their keys to ``lifted``; a null copy also to
    ``ext_null``).  A copy that cannot be read as its field stays, as does a ``case_sensitive``
    copy that disagrees with the spec's own field, which wins, and a null ``position``: the
    spec's own position decides."""
    ext: dict[str, Any] = {}
    for key, value in items:
        spec = _EXT_BY_KEY.get(key)
        if spec is not None:
            attr = spec[0]
            if attr == "case_sensitive" and "case_sensitive" in src:
                if same(value, src.get("case_sensitive")):
                    lifted.append(key)
                    continue
            elif value is None:
                if key != "position":
                    values[attr] = None
                    ext_null.append(key)
                    lifted.append(key)
                    continue
            else:
                ok, mapped = spec[1](value)  # the checks copy what they keep
                if ok:
                    values[attr] = mapped
                    lifted.append(key)
                    continue
        t = type(value)
        ext[key] = jcopy(value) if not owned and (t is dict or t is list) else value
    return ext


def entry_from_v2(obj: Mapping[str, Any], *, format_id: str,
                  warnings: list[Issue] | None = None, path: str = "$",
                  owned: bool = False) -> LorebookEntry:
    """One card-book entry (V2 or V3) as a canonical entry; ST extensions become fields.

    ``path`` is the JSON path of the entry for warnings (``$.data.character_book.entries[3]``).
    Unknown keys become the entry's ``app_data[format_id]``, its layout
    ``passthrough[format_id]``; ``owned``: the entry is the reader's own parse (not copied).
    """
    from ..model import LorebookEntry

    r = ObjectReader(obj, path, warnings, owned=owned)
    src = r.src
    values: dict[str, Any] = {}
    r.get_all(_ENTRY_READ, values)
    top_position = r.get("position", TOP_POSITION)
    mode = src.get("mode")
    if mode in ("folder", "normal"):  # RisuAI's folder marker: the canonical is_folder
        r.consume("mode")
        r.layout["mode"] = mode
        values["is_folder"] = mode == "folder"

    ext_raw = src.get("extensions")
    lifted: list[str] = []
    ext_null: list[str] = []
    if type(ext_raw) is dict:
        # read key by key: SillyTavern's copies of entry settings go to their fields, the rest
        # is kept (copied unless the parse is the reader's own); the source is not changed
        r.consume("extensions")
        ext: dict[str, Any] = _lift_settings(ext_raw.items(), src, values, lifted, ext_null,
                                             r.owned)
    else:  # absent, null or not an object: what the field reader makes of it
        ext = r.get("extensions", DICT, {})
        if ext:
            ext = _lift_settings(list(ext.items()), src, values, lifted, ext_null, True)
    text_id = ext.get("risu_id")
    if isinstance(text_id, str) and isinstance(values["id"], int) and "id" not in r.raw:
        r.layout["risu_id"] = values["id"]
        values["id"] = text_id
        del ext["risu_id"]
        if isinstance(ext_raw, Mapping):
            r.layout["ext_order"] = [str(k) for k in ext_raw]
    if "position" in lifted:
        r.layout["pos_v2"] = jcopy(src.get("position")) if "position" in src else None
    else:
        values["position"] = top_position
    if lifted:
        r.layout["ext_lifted"] = lifted
        if isinstance(ext_raw, Mapping):
            r.layout["ext_order"] = [str(k) for k in ext_raw]
    if ext_null:
        r.layout["ext_null"] = ext_null
    values["extensions"] = ext
    top_lifted: list[str] = []
    for key, attr, check, _back in TOP_ENTRY_KEYS:
        if key in src and key not in _ENTRY_KEY_SET and values.get(attr) is None:
            ok, mapped = check(src[key])
            if ok:
                values[attr] = mapped
                r.consume(key)
                top_lifted.append(key)
    if top_lifted:
        r.layout["top_lifted"] = top_lifted

    entry = LorebookEntry.model_validate(values)  # the reader's own dict, validated as it is
    r.layout["pos_canon"] = entry.position
    _, layout, data = r.finish(ENTRY_KEYS)
    entry.passthrough[format_id] = layout
    if data:
        entry.app_data[format_id] = data
    return entry


def entry_to_v2(entry: LorebookEntry, *, format_id: str, v3: bool,
                loss: LossReport | None = None, path: str = "entry", complete: bool = False,
                clean: bool = False, number: int | None = None) -> dict[str, Any]:
    """The card-book JSON for one canonical entry.

    With the shape :func:`entry_from_v2` recorded under ``format_id`` the entry comes back as
    it was read (unless its fields changed; ``complete`` still adds what the spec requires and
    ``clean``, for a card of another spec or format, also gives way where a strict reader
    would refuse the source's value).
    Without one, the spec's required keys are written (``insertion_order`` 100 and V3
    ``use_regex`` false when the canonical entry does not state them, reported as
    approximations) and every stated ST setting goes into ``extensions`` under ST's names,
    the way SillyTavern exports a book.  The spec's ids are numbers: a text id is written as
    ``number`` (a decimal one as its value) and kept in ``extensions.risu_id``.
    """
    layout, data = kept(entry, format_id)
    w = ObjectWriter(layout, data, loss, path)
    faithful = w.faithful
    clean = clean or not faithful
    complete = complete or clean
    lifted_raw = w.layout.get("ext_lifted")
    lifted: list[str] = list(lifted_raw) if isinstance(lifted_raw, list) else []
    ext_null_raw = w.layout.get("ext_null")
    ext_null = set(ext_null_raw) if isinstance(ext_null_raw, list) else set()

    w.put("keys", entry.keys, STRLIST, [])  # put writes a copy
    w.put("content", entry.content, STR, "")
    # extensions are added below
    w.put("enabled", entry.enabled, BOOL, True)
    order = entry.insertion_order
    if order is None and complete:
        order = 100  # the spec requires it; 100 is what an app assumes: not a loss
    w.put("insertion_order", order, NUM)
    w.put("case_sensitive", entry.case_sensitive, BOOL)
    use_regex = entry.use_regex
    if use_regex is None and v3 and complete:
        use_regex = False  # required by CCv3; false is what an app assumes: not a loss
    w.put("use_regex", use_regex, BOOL)
    w.put("name", entry.name, STR)
    w.put("priority", entry.priority, NUM)
    text_id = _put_id(w, entry, clean, number)
    w.put("comment", entry.comment, STR)
    w.put("selective", entry.selective, BOOL)
    w.put("secondary_keys", entry.secondary_keys, STRLIST, [])
    w.put("constant", entry.constant, BOOL)
    w.put("folder", entry.folder, STR)

    ext_position = _put_position(w, entry.position, lifted)
    _put_mode(w, entry.is_folder)
    top_attrs = _put_top(w, entry)
    ext = _extensions(w, entry, lifted, ext_null, ext_position, top_attrs, loss, path)
    if text_id is not None:
        ext["risu_id"] = text_id
        order_raw = w.layout.get("ext_order")
        if isinstance(order_raw, list):
            ext = reorder(ext, order_raw)
    if ext or not w.was_absent("extensions"):
        w.put("extensions", ext, DICT, {})
    if "extensions" not in w.out and (ext or complete):
        w.out["extensions"] = ext
    out = w.finish(ENTRY_KEYS)
    if complete and faithful:
        _complete_entry(out, entry, v3, clean)
    if clean:
        _check_position(out, entry, loss, path)
    return out


def _put_id(w: ObjectWriter, entry: LorebookEntry, clean: bool, number: int | None
            ) -> str | None:
    """Write the entry's id as the spec's number where it must be one; the text id that
    number stands for is returned (for ``extensions.risu_id``)."""
    id_num = w.layout.get("risu_id")
    if isinstance(entry.id, str) and isinstance(id_num, int) and not isinstance(id_num, bool):
        w.out["id"] = id_num  # read from extensions.risu_id next to this number: as it was
        return entry.id
    if isinstance(entry.id, str) and clean:
        if _decimal(entry.id):
            w.out["id"] = int(entry.id)  # an id is never user data: "7" as 7 is no loss
            return None
        w.out["id"] = number if number is not None else 0
        return entry.id
    w.put("id", entry.id, ID)
    return None


def _put_position(w: ObjectWriter, pos: str | None, lifted: list[str]) -> Any:
    """Write the spec's position string; ST's number for ``extensions.position`` is returned
    where it says more (``None``: nothing to add)."""
    ext_position: Any = None
    unchanged = w.faithful and "pos_canon" in w.layout and w.layout.get("pos_canon") == pos
    if "position" in lifted and unchanged:
        if "pos_v2" in w.layout and w.layout["pos_v2"] is not None:
            w.out["position"] = jcopy(w.layout["pos_v2"])
        elif w.was_null("position"):
            w.out["position"] = None
        ext_position = _index_of(_POSITIONS)(pos) if pos is not None else None
    elif unchanged:
        w.put("position", pos, TOP_POSITION)
    elif pos is not None:
        w.out["position"] = _v2_position(pos)
        if pos in _POSITIONS and pos not in ("before_char", "after_char"):
            ext_position = _POSITIONS.index(pos)
        elif "position" in lifted:
            ext_position = _POSITIONS.index(pos) if pos in _POSITIONS else None
    return ext_position


def _put_mode(w: ObjectWriter, is_folder: bool | None) -> None:
    """RisuAI's ``mode``: folder/normal are ``is_folder``; another word is the entry's data."""
    mode = w.layout.get("mode", w.data.get("mode"))
    if is_folder:
        w.out["mode"] = "folder"
    elif mode == "folder":
        w.out["mode"] = "normal"
    elif mode is not None:
        w.out["mode"] = jcopy(mode)


def _put_top(w: ObjectWriter, entry: LorebookEntry) -> set[str]:
    """Wyvern's top-level settings go back where they were; their attributes are returned."""
    top_raw = w.layout.get("top_lifted")
    top = [k for k in top_raw if k in _TOP_BY_KEY] if isinstance(top_raw, list) else []
    for key in top:
        attr, _check, back = _TOP_BY_KEY[key]
        value = getattr(entry, attr)
        if value is not None and back(value) is not None:
            w.out[key] = jcopy(back(value))
    return {_TOP_BY_KEY[k][0] for k in top}


def _extensions(w: ObjectWriter, entry: LorebookEntry, lifted: list[str], ext_null: set[str],
                ext_position: Any, top_attrs: set[str], loss: LossReport | None, path: str
                ) -> dict[str, Any]:
    """The entry's ``extensions``: what stayed there, plus the ST settings: those lifted on
    read go back under their names, the rest as SillyTavern exports them."""
    ext: dict[str, Any] = jcopy(entry.extensions)
    if w.faithful:
        _restore_lifted(ext, entry, lifted, ext_null, ext_position)
        # canonical fields set since the read (or never lifted): ST names too (what
        # st_extensions_from_entry gives, for the keys not lifted, not in ext, not top-level)
        was_lifted = set(lifted)
        for key, attr, _check, back in ST_ENTRY_EXTENSIONS:
            if key in was_lifted or key in ext or key in ("case_sensitive", "position") \
                    or attr in top_attrs:
                continue
            value = getattr(entry, attr)
            if value is None:
                continue
            mapped = back(value)
            if mapped is not None:
                ext[key] = jcopy(mapped)
        if "position" not in lifted and ext_position is not None and "position" not in ext:
            ext["position"] = ext_position
        order_raw = w.layout.get("ext_order")
        if isinstance(order_raw, list):
            ext = reorder(ext, order_raw)
    else:
        for key, value in st_extensions_from_entry(entry).items():
            if key in ext and not same(ext[key], value) and loss is not None:
                loss.dropped(f"{path}.extensions.{key}",
                             f"the canonical field replaces extensions.{key}")
            ext[key] = value
    if loss is not None:
        for attr, back in _MAY_REFUSE:
            value = getattr(entry, attr)
            if value is not None and back(value) is None:
                loss.dropped(f"{path}.{attr}", f"SillyTavern has no {attr} {value!r}")
    return ext


def _restore_lifted(ext: dict[str, Any], entry: LorebookEntry, lifted: list[str],
                    ext_null: set[str], ext_position: Any) -> None:
    """Put the ST settings read from ``extensions`` back there, from the canonical values."""
    for key in lifted:
        attr, _check, back = _EXT_BY_KEY[key]
        if key == "position":
            if ext_position is not None:
                ext[key] = ext_position
            continue
        value = getattr(entry, attr)
        if value is None:
            if key in ext_null:
                ext[key] = None
            continue
        mapped = back(value)
        if mapped is not None:
            ext[key] = jcopy(mapped)


_ENTRY_TYPES: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("case_sensitive", lambda v: isinstance(v, bool)),
    ("name", lambda v: isinstance(v, str)),
    ("priority", lambda v: isinstance(v, int | float) and not isinstance(v, bool)),
    ("comment", lambda v: isinstance(v, str)),
    ("selective", lambda v: isinstance(v, bool)),
    ("secondary_keys", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)),
    ("constant", lambda v: isinstance(v, bool)),
    ("use_regex", lambda v: isinstance(v, bool)),
)


def _complete_entry(out: dict[str, Any], entry: LorebookEntry, v3: bool, clean: bool) -> None:
    """A recorded entry shape, completed: the required keys it lacks; with ``clean`` (a card
    of another spec) also the required keys' types, and optional keys that are ``null`` or of
    another type replaced by the canonical value (or left out)."""
    def need(key: str, typed: bool) -> bool:
        return key not in out or (clean and not typed)

    keys = out.get("keys")
    if need("keys", isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        out["keys"] = list(entry.keys)
    if need("content", isinstance(out.get("content"), str)):
        out["content"] = entry.content
    if need("extensions", isinstance(out.get("extensions"), dict)):
        out["extensions"] = {}
    if need("enabled", isinstance(out.get("enabled"), bool)):
        out["enabled"] = entry.enabled
    order = out.get("insertion_order")
    if need("insertion_order", isinstance(order, int | float) and not isinstance(order, bool)):
        # required; 100 is what an app assumes when it is missing: not a loss
        out["insertion_order"] = 100 if entry.insertion_order is None else entry.insertion_order
    if v3 and need("use_regex", isinstance(out.get("use_regex"), bool)):
        out["use_regex"] = bool(entry.use_regex)
    if not clean:
        return
    for key, typed in _ENTRY_TYPES:
        if key in out and not typed(out[key]):
            value = jcopy(getattr(entry, key))
            if value is None or not typed(value):
                del out[key]
            else:
                out[key] = value
    if "id" in out and not (isinstance(out["id"], int) and not isinstance(out["id"], bool)):
        del out["id"]  # a null or unusable id: the spec's id is an optional number


def _check_position(out: dict[str, Any], entry: LorebookEntry, loss: LossReport | None,
                    path: str) -> None:
    """The spec's ``position`` is ``before_char`` or ``after_char``; any other value (a
    source's own word, ``null``) is left out, and reported when it was the entry's."""
    if "position" not in out or out["position"] in ("before_char", "after_char"):
        return
    del out["position"]
    ext = out.get("extensions")
    carried = isinstance(ext, Mapping) and isinstance(ext.get("position"), int)
    if entry.position is not None and not carried and loss is not None:
        loss.dropped(f"{path}.position",
                     f"the card spec has no position {entry.position!r}")


# -- books ----------------------------------------------------------------------------------------


def parse_book(obj: Mapping[str, Any], *, format_id: str,
               warnings: list[Issue] | None = None, path: str = "$",
               owned: bool = False) -> Lorebook:
    """A V2 ``character_book`` / V3 lorebook object as a canonical :class:`Lorebook`.

    Tolerant: entries given as an object keyed by id are read in order (and written back as an
    object), entries that are not objects are kept aside and restored by the same format, wrong
    field types are read as well as possible with a warning.  Unknown keys become the book's
    (and each entry's) app data, the rest its layout.
    """
    from ..model import Lorebook

    r = ObjectReader(obj, path, warnings, owned=owned)
    src = r.src
    name = r.get("name", STR)
    description = r.get("description", STR)
    scan_depth = r.get("scan_depth", INT)
    token_budget = r.get("token_budget", INT)
    recursive = r.get("recursive_scanning", BOOL)
    extensions = r.get("extensions", DICT, {})

    r.consume("entries")
    raw_entries = src.get("entries")
    items: list[tuple[int, Any]] = []
    keys: list[str] | None = None
    if "entries" not in src:
        r.absent.append("entries")
    elif isinstance(raw_entries, Mapping):
        keys = r.layout["entries_keys"] = [str(k) for k in raw_entries]
        r.warn("entries", "expected an array of entries, found an object; read its values")
        items = list(enumerate(raw_entries.values()))
    elif isinstance(raw_entries, list):
        items = list(enumerate(raw_entries))
    else:
        r.data["entries"] = jcopy(raw_entries)
        r.warn("entries", "expected an array of entries; kept as it was, read as no entries")

    entries = []
    bad: list[list[Any]] = []
    for i, item in items:
        where = f"{path}.entries[{keys[i]!r}]" if keys is not None else f"{path}.entries[{i}]"
        if isinstance(item, Mapping):
            entries.append(entry_from_v2(item, format_id=format_id, warnings=warnings,
                                         path=where, owned=r.owned))
        else:
            bad.append([i, jcopy(item)])
            if warnings is not None:
                warnings.append(Issue(where, "entry is not an object; kept aside unread"))
    if bad:
        r.layout["bad_entries"] = bad  # no app reads them; kept for a byte-faithful rewrite
    r.layout["book"] = True  # the book came from this format, even with a natural layout
    _, layout, data = r.finish(BOOK_KEYS)
    book = Lorebook(
        name=name, description=description, scan_depth=scan_depth, token_budget=token_budget,
        recursive_scanning=recursive, extensions=extensions or {}, entries=entries,
    )
    book.passthrough[format_id] = layout
    if data:
        book.app_data[format_id] = data
    return book


def build_book(lorebook: Lorebook, *, v3: bool, format_id: str, loss: LossReport,
               path: str = "lorebook", complete: bool = False, clean: bool = False
               ) -> dict[str, Any]:
    """The ``character_book`` JSON for a canonical lorebook (``v3`` adds ``use_regex``).

    What the card book writes differently is reported to ``loss`` under ``path``.
    ``complete`` (a book for another spec or format than the one it was read from) writes
    every key the spec requires, with the type it requires, even where the recorded shape
    lacked it.  Entry ids are numbers, as the spec wants: a text id (a RisuAI folder's) is
    kept in the entry's ``extensions.risu_id`` and read back from there.
    """
    layout, data = kept(lorebook, format_id)
    w = ObjectWriter(layout, data, loss, path)
    numbers = _numeric_ids(lorebook.entries)
    w.put("name", lorebook.name, STR)
    w.put("description", lorebook.description, STR)
    w.put("scan_depth", lorebook.scan_depth, INT)
    w.put("token_budget", lorebook.token_budget, INT)
    w.put("recursive_scanning", lorebook.recursive_scanning, BOOL)
    w.put("extensions", jcopy(lorebook.extensions), DICT, {}, required={})
    if "extensions" not in w.out and not w.faithful:
        w.out["extensions"] = {}

    entries: list[Any] = []
    for i, entry in enumerate(lorebook.entries):
        epath = f"{path}.entries[{i}]"
        if entry.is_folder and entry.passthrough.get(format_id) is None:
            loss.stashed(f"{epath}.is_folder",
                         "card books have no folders: kept as a RisuAI-style folder entry "
                         "(mode: folder), which other apps show as an ordinary entry")
        entries.append(entry_to_v2(entry, format_id=format_id, v3=v3, loss=loss, path=epath,
                                   complete=complete, clean=clean, number=numbers.get(i)))
    bad = w.layout.get("bad_entries")
    if isinstance(bad, list):
        for item in sorted((b for b in bad if isinstance(b, list) and len(b) == 2
                            and isinstance(b[0], int)), key=lambda b: int(b[0])):
            entries.insert(min(int(item[0]), len(entries)), jcopy(item[1]))
    keys = w.layout.get("entries_keys")
    if isinstance(keys, list) and len(keys) == len(entries):
        w.out["entries"] = dict(zip((str(k) for k in keys), entries, strict=True))
    elif "entries" in w.data and not entries:
        w.out["entries"] = jcopy(w.data["entries"])
    elif entries or not w.was_absent("entries"):
        w.out["entries"] = entries
    out = w.finish(BOOK_KEYS)
    if complete or clean:
        _complete_book(out, lorebook, entries, clean)
    return out


def _numeric_ids(entries: Sequence[LorebookEntry]) -> dict[int, int]:
    """Entry index -> the number written for an entry whose id is text (not a decimal number):
    the smallest numbers no other entry uses, in entry order."""
    taken = {e.id for e in entries if isinstance(e.id, int) and not isinstance(e.id, bool)}
    taken |= {int(e.id) for e in entries if isinstance(e.id, str) and _decimal(e.id)}
    out: dict[int, int] = {}
    n = 0
    for i, e in enumerate(entries):
        if isinstance(e.id, str) and not _decimal(e.id):
            while n in taken:
                n += 1
            out[i] = n
            taken.add(n)
    return out


def _decimal(text: str) -> bool:
    return text.isascii() and text.isdigit() and str(int(text)) == text


def _complete_book(out: dict[str, Any], lorebook: Lorebook, entries: list[Any],
                   clean: bool) -> None:
    """The book-level keys the spec requires (with ``clean``: with their types too, see
    :func:`build_book`)."""
    if "extensions" not in out or (clean and not isinstance(out["extensions"], dict)):
        out["extensions"] = jcopy(lorebook.extensions)
    if "entries" not in out or (clean and not isinstance(out["entries"], list)):
        out["entries"] = entries
    if not clean:
        return
    if isinstance(out["entries"], list):
        # entries that were not objects in the source have no place in a spec book
        out["entries"] = [e for e in out["entries"] if isinstance(e, dict)]
    for key, typed in (("name", str), ("description", str), ("recursive_scanning", bool)):
        if key in out and not isinstance(out[key], typed):
            value = getattr(lorebook, key)
            if value is None:
                del out[key]
            else:
                out[key] = value
    for key in ("scan_depth", "token_budget"):
        if key in out and not (isinstance(out[key], int) and not isinstance(out[key], bool)):
            value = getattr(lorebook, key)
            if value is None:
                del out[key]
            else:
                out[key] = value

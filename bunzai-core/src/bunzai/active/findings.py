"""What a file will run before anyone opens it: the active content of canonical entities.

Every format declares the fields its app runs or renders (``FormatInfo.runs``, see
docs/active-content.md).  The audit walks an entity once: a field the reading format declares
is judged by that declaration (code is a finding whenever it is there; HTML and text by the
markup in them, :mod:`bunzai.active.markup`); code another format of the kind declares (a
TavernHelper script in a card RisuAI wrote) is judged by that format's; any other text is
scanned as shown by any app that renders HTML.  Files inside archives are judged by their type.

Findings are data (:class:`Finding`, ``to_dict``) and keep where they were found, so the same
walk drives :mod:`bunzai.active.strip`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .markup import Hit, excerpt, scan

if TYPE_CHECKING:
    from .runs import Runs


class _Handle(Protocol):
    """An installed format as the audit asks about it
    (:class:`bunzai.host.registry.AdapterHandle`)."""

    id: str
    kind: str

    @property
    def info(self) -> Any: ...


class Registry(Protocol):
    """The installed formats (:class:`bunzai.host.registry.Registry`): their declarations are
    what the audit judges by."""

    @property
    def adapters(self) -> Mapping[str, Any]: ...

GENERIC_APP = "any app that shows this text as HTML"
FILE_APP = "any app that opens the file"

KINDS: dict[str, str] = {
    "javascript": "JavaScript",
    "lua": "Lua",
    "script": "HTML with a script",
    "handler": "HTML event handler",
    "iframe": "a frame",
    "css": "CSS",
    "remote": "a remote resource",
    "command": "a command",
    "html": "HTML",
}
"""What a finding is, by kind, in a user's words."""

CODE = frozenset({"javascript", "lua", "command", "remote"})
"""``Runs.what`` values for a field that is code or an address: any value is a finding."""

_SEVERITY = ("javascript", "lua", "script", "handler", "iframe", "command", "remote", "css",
             "html")
_PLURAL = {"greeting": "greetings", "entry": "entries", "notes": "notes", "HTML": "HTML",
           "data": "data", "CSS": "CSS"}
_SKIP_FIELDS = frozenset({"passthrough", "schema_version", "kind", "id", "data", "media_type",
                          "origin", "orphan", "time", "created", "ext"})
"""Fields that are never text a user or an app shows (asset bytes are judged as files)."""
_TEXT_FILE_EXTS = frozenset({"html", "htm", "xhtml", "svg", "xml", "css", "txt", "md"})
_CODE_FILE_EXTS = {"js": "javascript", "mjs": "javascript", "cjs": "javascript",
                   "lua": "lua"}


# -- findings -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Site:
    """Where a finding was, for stripping: the path's segments, the unit removed whole (a
    script, a trigger, an asset; None when only markup in the text goes), the hits in the
    text."""

    segments: tuple[str | int, ...]
    unit: tuple[str | int, ...] | None
    hits: tuple[Hit, ...] = ()


@dataclass(frozen=True, slots=True)
class Finding:
    """One active element: where it is, which app acts on it, what it is and when it runs."""

    path: str
    """Canonical path (``regex_scripts[0].replace``, ``extensions.TavernHelper_scripts[1]``)."""
    app: str
    kind: str
    """A key of :data:`KINDS`."""
    when: str
    """One of :data:`bunzai.active.runs.RUNS_WHEN`."""
    excerpt: str
    """The start of the element on one line: text to show, never to render."""
    name: str | None = None
    """The script's, trigger's or entry's own name, if it has one."""
    carrier: str = ""
    """What holds it (``regex script``, ``TavernHelper script``, ``greeting``)."""
    detail: str = ""
    note: str = ""
    count: int = 1
    """How many such elements the field holds (14 ``onclick`` handlers: one finding)."""
    entity: int | None = None
    """Which entity of the file (when it holds several)."""
    site: Site | None = field(default=None, compare=False, repr=False)

    @property
    def what(self) -> str:
        return KINDS.get(self.kind, self.kind)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "app": self.app, "kind": self.kind,
                               "what": self.what, "when": self.when, "excerpt": self.excerpt}
        for key in ("name", "carrier", "detail", "note"):
            value = getattr(self, key)
            if value:
                out[key] = value
        if self.count != 1:
            out["count"] = self.count
        if self.entity is not None:
            out["entity"] = self.entity
        return out

    def line(self) -> str:
        """Where, what, when and which app, on one line (the CLI and the studio show the
        excerpt below it, as text)."""
        where = self.path if self.entity is None else f"[{self.entity}].{self.path}"
        named = f" \u201c{excerpt(self.name, 40)}\u201d" if self.name else ""
        times = f" \u00d7{self.count}" if self.count != 1 else ""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{where}{named}: {self.what}{times}{detail}, {self.app}, {self.when}"


def summary(findings: Sequence[Finding]) -> str:
    """One line: what holds active content, counted (``2 regex scripts with HTML, 1
    TavernHelper script``); empty when nothing was found."""
    units: dict[tuple[int | None, str], list[Finding]] = {}
    for f in findings:
        key = (f.entity, _unit_key(f))
        units.setdefault(key, []).append(f)
    counted: dict[tuple[str, str], int] = {}
    for group in units.values():
        worst = min(group, key=lambda f: _SEVERITY.index(f.kind)
                    if f.kind in _SEVERITY else len(_SEVERITY))
        carrier = worst.carrier or "field"
        label = "" if worst.kind == "javascript" and carrier.lower().endswith("script") \
            else _with(worst.kind)
        counted[(carrier, label)] = counted.get((carrier, label), 0) + 1
    parts = []
    for (carrier, label), n in counted.items():
        noun = carrier if n == 1 else _plural(carrier)
        parts.append(f"{n} {noun}{f' with {label}' if label else ''}")
    return ", ".join(parts)


def _with(kind: str) -> str:
    return {"javascript": "JavaScript", "lua": "Lua", "script": "scripts",
            "handler": "event handlers", "iframe": "frames", "css": "CSS",
            "remote": "remote files", "command": "commands", "html": "HTML"}.get(kind, kind)


def _plural(noun: str) -> str:
    head, _, last = noun.rpartition(" ")
    if last in _PLURAL:
        last = _PLURAL[last]
    elif last.endswith(("s", "x", "sh", "ch")):
        last += "es"
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def _unit_key(f: Finding) -> str:
    if f.site is not None and f.site.unit is not None:
        return path_text(f.site.unit)
    if f.site is not None:
        segs = f.site.segments
        cut = max((i for i, s in enumerate(segs) if isinstance(s, int)), default=-1)
        return path_text(segs[:cut + 1] if cut >= 0 else segs)
    return f.path


def path_text(segments: Sequence[str | int]) -> str:
    """Segments as the loss report writes a path: ``lorebook.entries[3].content``, a key as it
    is (``app_data.voxta.Scenarios/x/scenario.json.Events[0]``), so a removal and the change
    it makes are named alike."""
    out = ""
    for s in segments:
        if isinstance(s, int):
            out += f"[{s}]"
        else:
            out += f".{s}" if out else s
    return out


# -- the declarations, as a tree ------------------------------------------------------------------


@dataclass
class _Node:
    keys: dict[str, _Node] = field(default_factory=dict)
    any_key: _Node | None = None
    any_index: _Node | None = None
    runs: list[tuple[Runs, bool]] = field(default_factory=list)
    """(declaration, whether the reading format made it)."""

    def child(self, seg: str | int) -> Iterator[_Node]:
        if isinstance(seg, int):
            if self.any_index is not None:
                yield self.any_index
            return
        got = self.keys.get(seg)
        if got is not None:
            yield got
        if self.any_key is not None:
            yield self.any_key


def _tree(own: Iterable[Runs], others: Iterable[Runs]) -> _Node:
    from ..loss.rule import pattern_segments

    root = _Node()
    for runs, mine in [(r, True) for r in own] + [(r, False) for r in others]:
        node = root
        for seg in pattern_segments(runs.path, any_index=True):
            if seg == "[*]":
                node.any_index = node.any_index or _Node()
                node = node.any_index
            elif seg == "*":
                node.any_key = node.any_key or _Node()
                node = node.any_key
            else:
                node = node.keys.setdefault(seg, _Node())
        node.runs.append((runs, mine))
    return root


_TREES: dict[tuple[int, str | None, str], tuple[Any, _Node]] = {}


def _not_text(r: Runs) -> bool:
    return not isinstance(r.what, str) or r.what not in ("text", "prompt")


def declarations(registry: Registry, fmt: str | None, kind: str, *, others: bool = True
                 ) -> _Node:
    """The tree of what ``fmt`` declares for an entity of ``kind``, plus what the other
    formats of the kind declare for code and HTML (with ``others``); without ``others``,
    only ``fmt``'s own code and HTML (what a conversion compares)."""
    key = (id(registry), fmt if others else f"{fmt}!", kind)
    hit = _TREES.get(key)
    if hit is not None and hit[0] is registry:
        return hit[1]
    own: list[Runs] = []
    rest: list[Runs] = []
    for h in registry.adapters.values():
        info = h.info
        if info.id == fmt:
            own.extend(info.runs if others else [r for r in info.runs if _not_text(r)])
        elif others and info.kind == kind:
            rest.extend(r for r in info.runs if _not_text(r))
    tree = _tree(own, rest)
    _TREES[key] = (registry, tree)
    return tree


# -- the walk -------------------------------------------------------------------------------------


def _fields(obj: Any) -> Iterator[tuple[str, Any]]:
    """A model's fields and values, or a mapping's items."""
    if isinstance(obj, Mapping):
        yield from ((str(k), v) for k, v in obj.items())
        return
    data = getattr(obj, "__dict__", None)
    if data is None:
        return
    for name, value in data.items():
        if name in _SKIP_FIELDS or name.startswith("_"):
            continue
        yield name, value


def _is_model(obj: Any) -> bool:
    return not isinstance(obj, type) and hasattr(type(obj), "model_fields")


def name_of(obj: Any) -> str | None:
    """The name a script, a trigger, an entry or a message goes by, if it has one."""
    for key in ("name", "Name", "comment", "scriptName", "title", "speaker"):
        v = obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)
        if isinstance(v, str) and v.strip():
            return v.strip()
    if not isinstance(obj, Mapping):
        keys = getattr(obj, "keys", None)
        if isinstance(keys, list) and keys and isinstance(keys[0], str):
            return keys[0]
    return None


def carrier_of(segments: Sequence[str | int], kind: str) -> str:
    """What holds a field, in a user's words, when no declaration says."""
    names = [s for s in segments if isinstance(s, str)]
    head = names[0] if names else ""
    if kind == "regex" and head in ("replace", "pattern"):
        return "regex script"
    if head == "lorebook" or (head == "entries" and kind == "lorebook"):
        return "lorebook entry"
    if head in ("first_mes", "alternate_greetings", "group_only_greetings", "greeting"):
        return "greeting"
    table = {"regex_scripts": "regex script", "triggers": "trigger", "assets": "embedded file",
             "messages": "message", "participants": "participant",
             "extensions": "extension field", "app_data": "app data field"}
    if head in table:
        return table[head]
    return head.replace("_", " ") or "field"


class _Walker:
    def __init__(self, tree: _Node, kind: str, entity: int | None, declared_only: bool) -> None:
        self.tree = tree
        self.kind = kind
        self.entity = entity
        self.declared_only = declared_only
        self.found: list[Finding] = []

    def walk(self, obj: Any, segs: tuple[str | int, ...], nodes: list[_Node],
             owner: Any, named: Any) -> None:
        if isinstance(obj, str):
            self.text(obj, segs, nodes, owner, named)
            return
        if obj is None or isinstance(obj, bool | int | float | bytes):
            return
        if nodes and self.declared(obj, segs, nodes, owner, named):
            return
        if self.declared_only and not nodes:
            return
        if _is_model(obj) or isinstance(obj, Mapping):
            for key, value in _fields(obj):
                if value is None or value == "" or isinstance(value, bool | int | float):
                    continue
                nxt = [c for n in nodes for c in n.child(key)]
                if key == "assets" and not isinstance(obj, Mapping):
                    self.assets(value, (*segs, key), nxt)
                    continue
                if key in ("avatar",) and _is_model(value):
                    self.assets([value], (*segs, key), nxt, single=True)
                    continue
                self.walk(value, (*segs, key), nxt, obj, named)
            return
        if isinstance(obj, Sequence) or hasattr(obj, "__iter__"):
            for i, item in enumerate(obj):
                nxt = [c for n in nodes for c in n.child(i)]
                self.walk(item, (*segs, i), nxt, obj,
                          item if isinstance(item, Mapping) or _is_model(item) else named)

    # -- a declared node ---------------------------------------------------------------------

    def declared(self, value: Any, segs: tuple[str | int, ...], nodes: list[_Node],
                 owner: Any, named: Any) -> bool:
        """Findings for a node a declaration names; True when nothing under it is left to
        walk (code, judged whole)."""
        judged = self.judgements(value, owner, nodes)
        if not judged:
            return False
        if isinstance(value, str):
            return False  # text: judged in text()
        code = [(r, what, when) for r, what, when in judged if what in CODE]
        if not code:
            return False
        if not _present(value):
            return True
        r, what, when = code[0]
        apps = _apps(r for r, _, _ in code)
        unit = _unit(segs, self.kind)
        self.add(Finding(path_text(segs), apps, what, when, excerpt(_code_text(value)),
                         name_of(value) or (name_of(named) if named is not None else None),
                         r.carrier or carrier_of(segs, self.kind), "", r.note,
                         entity=self.entity, site=Site(segs, unit)))
        return True

    def judgements(self, value: Any, owner: Any, nodes: list[_Node]
                   ) -> list[tuple[Runs, str, str]]:
        """(declaration, what, when) of every declaration at this node, the reading
        format's first; another format's only where the reading format declares nothing."""
        runs = [rm for n in nodes for rm in n.runs]
        if not runs:
            return []
        mine = [r for r, m in runs if m]
        chosen = mine or [r for r, m in runs if not m]
        out = []
        for r in chosen:
            what = r.what(value, owner) if callable(r.what) else r.what
            if what is None:
                continue
            when = r.when(value, owner) if callable(r.when) else r.when
            if when is None:
                continue
            out.append((r, what, when))
        return out

    # -- text ----------------------------------------------------------------------------------

    def text(self, value: str, segs: tuple[str | int, ...], nodes: list[_Node], owner: Any,
             named: Any) -> None:
        if not self.declared_only and _kept_file(segs, value):
            import base64
            self.file_bytes(str(segs[-1]), base64.b64decode(value), segs)
            return
        judged = self.judgements(value, owner, nodes) if nodes else []
        code = [(r, what, when) for r, what, when in judged if what in CODE]
        if code:
            if value.strip():
                r, what, when = code[0]
                self.add(Finding(path_text(segs), _apps(r for r, _, _ in code), what, when,
                                 excerpt(value), name_of(named) if named is not None else None,
                                 r.carrier or carrier_of(segs, self.kind), "", r.note,
                                 entity=self.entity, site=Site(segs, _unit(segs, self.kind))))
            return
        if self.declared_only:
            judged = [j for j in judged if j[1] == "html"]
            if not judged:
                return
        if judged:
            r, what, when = judged[0]
            app, carrier, note, removes = (_apps(r for r, _, _ in judged), r.carrier,
                                           r.note, r.removes)
        else:
            what, when, app, carrier, note, removes = ("text", "on display", GENERIC_APP, "",
                                                       "", ())
        hits = scan(value, html=what == "html")
        if what == "prompt":  # sent to the model: its styling runs nowhere
            hits = [h for h in hits if h.kind != "css"]
        if not hits:
            return
        unit = _unit(segs, self.kind) if what == "html" else None
        carrier = carrier or carrier_of(segs, self.kind)
        name = name_of(named) if named is not None else None
        groups: dict[tuple[str, str | None, str | None], list[Hit]] = {}
        for h in hits:
            groups.setdefault((h.kind, h.app, h.when), []).append(h)
        for (kind, h_app, h_when), group in groups.items():
            first = group[0]
            removed = kind in removes and h_app is None
            text_note = note
            if removed:
                text_note = (f"{app} removes it before showing the text; another app or a "
                             "setting may not" + (f"; {note}" if note else ""))
            self.add(Finding(path_text(segs), h_app or app, kind, h_when or when,
                             first.excerpt, name, carrier, first.detail, text_note,
                             len(group), self.entity, Site(segs, unit, tuple(hits))))

    # -- files in the entity --------------------------------------------------------------------

    def assets(self, assets: Any, segs: tuple[str | int, ...], nodes: list[_Node],
               single: bool = False) -> None:
        if not isinstance(assets, Sequence):
            return
        for i, asset in enumerate(assets):
            where = segs if single else (*segs, i)
            data = getattr(asset, "data", None)
            sub = nodes if single else [c for n in nodes for c in n.child(i)]
            if not self.declared_only:
                for key, value in _fields(asset):  # names, extensions, app data
                    if isinstance(value, str | Mapping | list):
                        self.walk(value, (*where, key), [c for n in sub for c in n.child(key)],
                                  asset, asset)
            if not data or self.declared_only:
                continue
            self.file(asset, bytes(data), where)

    def file_bytes(self, name: str, data: bytes, segs: tuple[str | int, ...]) -> None:
        """A file kept by its path (an archive member an app keeps as it is)."""
        from types import SimpleNamespace

        ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        self.file(SimpleNamespace(name=name, ext=ext, uri=None, media_type=None), data, segs)

    def file(self, asset: Any, data: bytes, segs: tuple[str | int, ...]) -> None:
        from ..io.containers.media import sniff_media

        media = getattr(asset, "media_type", None) or sniff_media(data)[0]
        names = " ".join(str(getattr(asset, k, "") or "") for k in ("name", "ext", "uri"))
        ext = (getattr(asset, "ext", None) or os.path.splitext(names.split()[-1] if names.split()
                                                                else "")[1].lstrip("."))
        ext = str(ext).lower()
        if not ext or ext not in _CODE_FILE_EXTS:
            for candidate in names.lower().split():
                tail = candidate.rsplit(".", 1)[-1]
                if tail in _CODE_FILE_EXTS or tail in _TEXT_FILE_EXTS:
                    ext = tail
        textual = media in ("text/plain", "image/svg+xml", "text/html", "text/css",
                            "application/javascript", "text/javascript")
        if not textual and ext not in _TEXT_FILE_EXTS and ext not in _CODE_FILE_EXTS:
            return
        if b"\x00" in data[:4096]:
            return
        text = data.decode("utf-8", "replace")
        name = name_of(asset)
        if ext in _CODE_FILE_EXTS or media in ("application/javascript", "text/javascript"):
            if text.strip():
                self.add(Finding(path_text(segs), FILE_APP, _CODE_FILE_EXTS.get(ext,
                                 "javascript"), "on display", excerpt(text), name,
                                 "embedded file", f"a .{ext or 'js'} file", entity=self.entity,
                                 site=Site(segs, segs)))
            return
        hits = scan(text)
        groups: dict[str, list[Hit]] = {}
        for h in hits:
            groups.setdefault(h.kind, []).append(h)
        for kind, group in groups.items():
            self.add(Finding(path_text(segs), group[0].app or FILE_APP, kind, "on display",
                             group[0].excerpt, name, "embedded file", group[0].detail,
                             count=len(group), entity=self.entity, site=Site(segs, segs)))

    def add(self, finding: Finding) -> None:
        self.found.append(finding)


_BASE64 = None


def _kept_file(segs: tuple[str | int, ...], value: str) -> bool:
    """An archive member an app keeps by its path in app data, as base64 text
    (``app_data.voxta["Scenarios/x/Assets/run.js"]``), whose type is worth reading."""
    global _BASE64
    if len(segs) != 3 or segs[0] != "app_data" or not isinstance(segs[2], str):
        return False
    name = segs[2]
    ext = name.rsplit(".", 1)[-1].lower() if "." in name and "/" in name else ""
    if ext not in _CODE_FILE_EXTS and ext not in _TEXT_FILE_EXTS:
        return False
    if _BASE64 is None:
        import re
        _BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")
    return len(value) % 4 == 0 and _BASE64.match(value) is not None


def _present(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, Mapping | list | tuple):
        return bool(value)
    return value is not None


def _code_text(value: Any) -> str:
    """The text to show for code found whole: itself, or the longest text inside it (a
    trigger's Lua), else its shape."""
    if isinstance(value, str):
        return value
    best = ""
    stack = [value]
    while stack:
        cur = stack.pop()
        if isinstance(cur, str):
            if len(cur) > len(best):
                best = cur
        elif isinstance(cur, Mapping):
            stack.extend(cur.values())
        elif isinstance(cur, list | tuple):
            stack.extend(cur)
    if len(best) > 40 or not isinstance(value, Mapping):
        return best or str(value)
    import json
    shape = {k: v for k, v in value.items() if k not in ("name", "Name", "comment")}
    return json.dumps(shape, ensure_ascii=False, default=str)


def _apps(runs: Iterable[Runs]) -> str:
    seen: list[str] = []
    for r in runs:
        if r.app not in seen:
            seen.append(r.app)
    return ", ".join(seen)


def _unit(segs: tuple[str | int, ...], kind: str = "") -> tuple[str | int, ...]:
    """What removing a finding found whole takes out: the list item holding it (a script, a
    trigger), else the field itself; for a regex entity's own field, the whole script."""
    cut = max((i for i, s in enumerate(segs) if isinstance(s, int)), default=-1)
    if cut < 0 and kind == "regex":
        return ()
    return segs[:cut + 1] if cut >= 0 else segs


# -- entities -------------------------------------------------------------------------------------


def reader_of(entity: Any, registry: Registry) -> str | None:
    """The format that read an entity, from the layout it recorded (None for one built in
    code)."""
    passthrough = getattr(entity, "passthrough", None) or {}
    for key in passthrough:
        if key in registry.adapters:
            return str(key)
    return None


def audit_entity(entity: Any, *, registry: Registry, format: str | None = None,
                 index: int | None = None) -> list[Finding]:
    """Every active element of one canonical entity, judged by what ``format`` (the format
    that read it; by default the one its layout names) declares."""
    reg = registry
    fmt = format or reader_of(entity, reg)
    kind = str(getattr(entity, "kind", ""))
    walker = _Walker(declarations(reg, fmt, kind), kind, index, declared_only=False)
    walker.walk(entity, (), [walker.tree], None, None)
    return walker.found


def declared_findings(entity: Any, format: str, registry: Registry) -> list[Finding]:
    """Findings in the fields ``format`` itself declares as code or HTML, and nothing else:
    cheap (only those fields are visited), for what a conversion reports."""
    kind = str(getattr(entity, "kind", ""))
    walker = _Walker(declarations(registry, format, kind, others=False), kind, None,
                     declared_only=True)
    walker.walk(entity, (), [walker.tree], None, None)
    return walker.found


def audit_entities(entities: Sequence[Any], *, registry: Registry, format: str | None = None
                   ) -> list[Finding]:
    """The findings of every entity of a file, numbered by entity when there are several."""
    many = len(entities) > 1
    out: list[Finding] = []
    for i, e in enumerate(entities):
        out.extend(audit_entity(e, format=format, registry=registry,
                                index=i if many else None))
    return out


def differences(entity: Any, target: str, registry: Registry
                ) -> list[tuple[str, str]]:
    """(path, why) for active content a write as ``target`` keeps but the target's app runs
    differently from the app of the format that read it (or not at all)."""
    source = reader_of(entity, registry)
    if source is None or source == target:
        return []
    src_info = registry.adapters[source].info
    dst = registry.adapters.get(target)
    if dst is None or not src_info.runs or dst.info.carries_passthrough:
        return []
    if not any(_not_text(r) for r in src_info.runs):
        return []
    theirs = declared_findings(entity, source, registry)
    if not theirs:
        return []
    ours = {(f.path, f.kind): f for f in declared_findings(entity, target, registry)}
    label = dst.info.label or target
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for f in theirs:
        path = path_text(f.site.unit) if f.site is not None and f.site.unit else f.path
        if path in seen:
            continue
        mine = ours.get((f.path, f.kind))
        if mine is not None and mine.app == f.app and mine.when == f.when:
            continue
        seen.add(path)
        then = f"{f.app} runs this {f.what} {f.when}" + (f" ({f.note})" if f.note else "")
        if mine is None:
            out.append((path, f"{then}; {label} keeps it, but its app does not run it"))
        else:
            out.append((path, f"{then}; {mine.app} runs it {mine.when}"
                        + (f" ({mine.note})" if mine.note else "")))
    return out


def member_findings(members: Mapping[str, Any], format: str, kind: str, registry: Registry
                    ) -> list[Finding]:
    """Findings in an archive's members, judged as ``format`` keeps members it does not read
    (``app_data.<format>["<member>"]``: parsed JSON, or the bytes in base64)."""
    walker = _Walker(declarations(registry, format, kind), kind, None, declared_only=False)
    walker.walk({"app_data": {format: dict(members)}}, (), [walker.tree], None, None)
    return walker.found

"""The roster of installed formats and plugins, as JSON and as Markdown.

``docs/FORMAT-SUPPORT.md`` and ``docs/formats/<id>.md`` are generated from the adapters' own
declared data (``FormatInfo``) plus the doc page each adapter folder owns, so the documentation
cannot drift from the code: a test regenerates them and fails when they are stale.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..host.types import SUPPORTED_API_VERSIONS, FormatInfo, Option

if TYPE_CHECKING:
    from ..host.registry import AdapterHandle, Registry
    from ..loss.rule import Carried

_NOT_FIELDS = frozenset({"kind", "passthrough", "app_data"})
"""Model fields that are no user data of their own: the entity's kind, its layout, and the
other apps' data (which the loss rule reports key by key, see :func:`dropped_fields`)."""


def _model_classes() -> dict[str, type]:
    """Kind -> the canonical model class (``bunzai.model``) an entity of that kind is."""
    from ..model import Character, Chat, Lorebook, Module, Persona, RegexScript

    return {c.model_fields["kind"].default: c
            for c in (Character, Chat, Lorebook, Module, Persona, RegexScript)}


def _inner(annotation: Any) -> tuple[type | None, bool]:
    """The model class a field holds (``X``, ``X | None``, ``list[X]``) and whether a list."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    args = getattr(annotation, "__args__", ())
    origin = getattr(annotation, "__origin__", None)
    many = isinstance(origin, type) and issubclass(origin, Sequence) and origin is not tuple
    for a in args:
        found, inner_many = _inner(a)
        if found is not None:
            return found, many or inner_many
    return None, many


def dropped_fields(info: FormatInfo) -> list[tuple[str, tuple[str, ...], str]] | None:
    """(canonical field, the keys of it still carried, why) for every field of the format's
    kind its writer does not carry, worked out from ``carries`` and ``reasons`` as the loss
    rule applies them (the reason a write reports is the most specific declared one, else
    "<id> has no place for it"); fields that are never user data (ids, layout) are left out.
    None when the format declares no ``carries`` (core then reads each output back) or writes
    no entity of one kind."""
    from ..loss.neutral import ALWAYS, Neutrality
    from ..loss.rule import Carried, reason_for

    cls = _model_classes().get(info.kind)
    if info.carries is None or cls is None:
        return None
    neutral = Neutrality()
    default = f"{info.id} has no place for it"
    out: list[tuple[str, tuple[str, ...], str]] = []

    def walk(model: type, node: Carried, prefix: str) -> None:
        for name, field in model.model_fields.items():  # type: ignore[attr-defined]
            pattern = prefix + name
            if name in _NOT_FIELDS or neutral.rule(pattern, info.kind) is ALWAYS:
                continue
            child = node.child(name)
            if child is not None and child.full:
                continue
            inner, many = _inner(field.annotation)
            item = child.child("[*]") if child is not None and many else child
            why = reason_for(pattern, info.reasons, default)
            if child is None or (many and item is None):
                out.append((pattern, (), why))
            elif item is not None and item.full:
                continue
            elif inner is not None and item is not None:
                walk(inner, item, pattern + ("[*]." if many else "."))
            elif child.children:
                out.append((pattern, tuple(sorted(child.children)), why))

    walk(cls, Carried.of(info.carries), "")
    return out


def _loss_rows(dropped: list[tuple[str, tuple[str, ...], str]]) -> list[str]:
    """Table rows of the dropped fields: those of one object with one reason in one row,
    where the first of them stood."""
    groups: dict[tuple[str, str], list[str]] = {}
    for pattern, kept, why in dropped:
        parent, _, name = pattern.rpartition(".")
        shown = f"`{name}`" + (f" (but {', '.join(f'`{k}`' for k in kept)})" if kept else "")
        groups.setdefault((parent, why), []).append(shown)
    return [f"| {f'`{parent}`: ' if parent else ''}{', '.join(names)} | {why} |"
            for (parent, why), names in groups.items()]


def _info_dict(info: FormatInfo, dist: str) -> dict[str, Any]:
    return {
        "format": info.id, "kind": info.kind, "label": info.label,
        "description": info.description, "read": info.can_read, "write": info.can_write,
        "multi": info.multi, "suffix": info.suffix, "aliases": list(info.aliases),
        "options": {n: o.to_dict() for n, o in info.options.items()},
        "default_for_kind": info.default_for_kind, "api_version": info.api_version,
        "distribution": dist,
        "detection": [{"situation": s, "score": sc} for s, sc in info.detection],
        "dropped": [{"field": f, "but": list(kept), "why": w}
                    for f, kept, w in dropped_fields(info) or ()],
        "losses": [{"field": f, "what": w} for f, w in info.losses],
    }


def roster_json(reg: Registry) -> list[dict[str, Any]]:
    return [_info_dict(reg.adapters[i.id].info, reg.adapters[i.id].distribution)
            for i in reg.formats()]


def plugins_json(reg: Registry) -> dict[str, Any]:
    dists: dict[str, dict[str, Any]] = {}
    for rec in reg.host.loaded:
        d = dists.setdefault(rec.distribution, {
            "name": rec.distribution, "version": rec.version, "adapters": [], "plugins": [],
            "api_versions": [], "compatible": True})
        if rec.info is not None:
            d["adapters"].append({"format": rec.info.id, "kind": rec.info.kind,
                                  "api_version": rec.info.api_version, "hooks": rec.hooks})
            if rec.info.api_version not in d["api_versions"]:
                d["api_versions"].append(rec.info.api_version)
        else:
            d["plugins"].append(rec.name)
    for b in reg.broken:
        d = dists.setdefault(b.distribution, {
            "name": b.distribution, "version": b.version, "adapters": [], "plugins": [],
            "api_versions": [], "compatible": True})
        if b.api_version is not None and b.api_version not in d["api_versions"]:
            d["api_versions"].append(b.api_version)
    for d in dists.values():
        d["api_versions"] = sorted(d["api_versions"])
        d["compatible"] = all(v in SUPPORTED_API_VERSIONS for v in d["api_versions"])
    return {"api_versions_supported": sorted(SUPPORTED_API_VERSIONS),
            "distributions": sorted(dists.values(), key=lambda d: d["name"]),
            "broken": [b.to_dict() for b in reg.broken],
            "notes": list(reg.host.notes)}


def roster_markdown(reg: Registry) -> str:
    """docs/FORMAT-SUPPORT.md: one table of every installed format, grouped by kind."""
    lines = [
        "# Format support",
        "",
        "Generated by `bunzai formats --markdown` from the installed adapters; do not edit by "
        "hand.",
        "",
        "| format | kind | read | write | suffix | aliases | distribution | page |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for info in reg.formats():
        h = reg.adapters[info.id]
        lines.append(
            f"| `{info.id}` | {info.kind} | {'yes' if info.can_read else 'no'} | "
            f"{'yes' if info.can_write else 'no'} | `{info.suffix}` | "
            f"{', '.join(f'`{a}`' for a in info.aliases) or '-'} | {h.distribution} | "
            f"[{info.id}](formats/{info.id}.md) |")
    lines += ["", "## Detection scores", ""]
    for info in reg.formats():
        lines.append(f"- `{info.id}`: " + ("; ".join(
            f"{s} → {sc:g}" for s, sc in info.detection) or "not documented"))
    lines.append("")
    return "\n".join(lines)


def adapter_readme(handle: AdapterHandle) -> str | None:
    """The doc page the adapter's own folder holds (README.md beside its module)."""
    plugin = handle.record.plugin
    target = plugin if inspect.ismodule(plugin) else type(plugin)
    try:
        src = inspect.getsourcefile(target)
    except TypeError:
        return None
    if not src:
        return None
    readme = Path(src).parent / "README.md"
    return readme.read_text(encoding="utf-8") if readme.exists() else None


def _values(opt: Option) -> str:
    """What an option takes, for a Markdown table cell (a ``|`` would split the cell)."""
    if opt.choices or opt.type is bool:
        return ", ".join(f"`{c}`" for c in opt.values.split("|"))
    return "a number" if opt.type is int else "text"


def _default(opt: Option) -> str:
    text = opt.default_text
    if text is None:
        return "-"
    return text if " " in text else f"`{text}`"


def _loss_section(info: FormatInfo) -> list[str]:
    """What a conversion into the format loses: the fields its writer does not carry (from
    ``carries`` and ``reasons``), then what the writer itself changes (``losses``)."""
    if not info.can_write:
        return ["Nothing: bunzai reads this format but does not write it."]
    dropped = dropped_fields(info)
    out: list[str] = []
    if dropped:
        out += ["Dropped, each with the reason the loss report gives (from the format's "
                "`carries` and `reasons`); other apps' own data (`app_data`) is dropped too, "
                "key by key:", "",
                "| canonical field | why |", "|---|---|", *_loss_rows(dropped)]
    elif info.carries_passthrough:
        out.append("Nothing: every canonical field and every app's data is carried.")
    elif info.carries is None:
        out.append("Not declared: bunzai reads each output back and reports what changed.")
    else:
        out.append("Nothing: every canonical field is carried; other apps' own data "
                   "(`app_data`) is dropped, key by key.")
    if info.losses:
        out += ["", "What the writer changes on its own (`losses`):", "",
                "| canonical field | what happens |", "|---|---|",
                *[f"| `{f}` | {w} |" for f, w in info.losses]]
    return out


def format_page(handle: AdapterHandle) -> str:
    """docs/formats/<id>.md: the declared facts, then the folder's own page."""
    info = handle.info
    out = [
        f"# `{info.id}` — {info.label}",
        "",
        "<!-- Generated by `python dev.py docs` from the adapter's declared data and its "
        "folder's README.md; edit those, not this file. -->",
        "",
        f"- kind: {info.kind}",
        f"- distribution: {handle.distribution}",
        f"- read: {'yes' if info.can_read else 'no'}; write: "
        f"{'yes' if info.can_write else 'no'}; several entities per file: "
        f"{'yes' if info.multi else 'no'}",
        f"- output suffix: `{info.suffix}`",
        f"- aliases: {', '.join(f'`{a}`' for a in info.aliases) or 'none'}",
        *([f"- the default {info.kind} format: commands that write a {info.kind} without "
           "`--to` write this one"] if info.default_for_kind else []),
        "",
        "## Detection",
        "",
        "| situation | score |",
        "|---|---|",
        *[f"| {s} | {sc:g} |" for s, sc in info.detection],
        "",
        "## Writing into this format loses",
        "",
        *_loss_section(info),
    ]
    if info.options:
        out += ["", "## Options", "",
                "Given as `--option NAME=VALUE` (`-O`) or as keyword arguments in Python; an "
                "unknown name or value is refused before anything is read or written.", "",
                "| option | reads or writes | values | default | meaning |",
                "|---|---|---|---|---|",
                *[f"| `{o.name}` | {'reads' if o.reader else 'writes'} | {_values(o)} | "
                  f"{_default(o)} | {o.help} |" for o in info.options.values()]]
    readme = adapter_readme(handle)
    if readme:
        out += ["", "---", "", readme.rstrip()]
    out.append("")
    return "\n".join(out)

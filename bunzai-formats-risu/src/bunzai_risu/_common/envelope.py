"""The export envelope RisuAI wraps a list of items in (``{type, [ver,] data}``).

RisuAI's lorebook and regex exports are that envelope; repositories also hold bare arrays of
the same items, which bunzai reads but RisuAI's importer refuses ("File invaid or corrupted").
The reader records which one it saw, the JSON layout, and, when the envelope is not the app's
own (extra keys, another key order), the envelope itself.  The writer always uses the envelope
unless ``array=true`` asks for the bare shape (a bare source is then rewritten exactly); the
items are read and written by each format, this module owns only the wrapper.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Issue, LossReport, WriteResult

T = TypeVar("T")


def detected(input: AdapterInput, shape_of: Callable[[Any], tuple[str, float] | None],
             what: str) -> tuple[float, str]:
    """A detector's (score, reason) for JSON ``shape_of`` finds an export or an array of;
    import-light, as detection needs."""
    found = shape_of(input.json) if input.container == "json" else None
    if found is None:
        return 0.0, ""
    shape, score = found
    return score, f"{what} ({shape})"


def unwrap(input: AdapterInput, shape_of: Callable[[Any], tuple[str, float] | None],
           default: Mapping[str, Any], refusal: str,
           read_items: Callable[[Any, str], T]) -> tuple[T, dict[str, Any], str]:
    """The items read from an ``"export"`` envelope or a bare ``"array"``, what a writer needs
    to rebuild the container (its kind, the layout, a non-default envelope), and the JSON path
    of the items; ``refusal`` is the error when ``shape_of`` finds neither."""
    from bunzai.sdk import MalformedInput, sniff_layout

    data = input.json_mutable()
    found = shape_of(data)
    if found is None:
        raise MalformedInput(refusal)
    container = found[0]
    info: dict[str, Any] = {"container": container, "layout": sniff_layout(input.data)}
    if container != "export":
        return read_items(data, "$"), info, "$"
    items = read_items(data["data"], "$.data")
    envelope = {k: v for k, v in data.items() if k != "data"}
    order = list(data)
    if envelope != dict(default) or order != [*default, "data"]:
        info["envelope"] = envelope
        info["order"] = order
    return items, info, "$.data"


def read_export(input: AdapterInput, shape_of: Callable[[Any], tuple[str, float] | None],
                default: Mapping[str, Any], refusal: str,
                read_items: Callable[..., T], format_id: str
                ) -> tuple[T, dict[str, Any], list[Issue]]:
    """A whole export file read as :func:`unwrap` reads it, its items by ``read_items``
    (``(raw, path, warnings, format_id, owned=True)``, the shape of the items' own readers):
    the items, the container's layout and the reader's warnings."""
    warnings: list[Issue] = []
    items, info, _ = unwrap(input, shape_of, default, refusal,
                            lambda raw, at: read_items(raw, at, warnings, format_id, owned=True))
    return items, info, warnings


ENVELOPED = ("the source was a bare JSON array, which RisuAI cannot import: written in "
             "RisuAI's export envelope (option array=true keeps the bare array)")
"""The warning a write gives when it wrapped a bare array."""


def wrap(items: list[Any], info: Mapping[str, Any], default: Mapping[str, Any],
         options: Mapping[str, Any], warnings: list[str] | None = None) -> bytes:
    """The file: ``items`` in RisuAI's export envelope, or as a bare array when the ``array``
    option says so.  Wrapping what was read as a bare array adds :data:`ENVELOPED` to
    ``warnings``."""
    from bunzai.sdk import dumps_layout

    as_array = options.get("array")
    if as_array is None:
        as_array = False
        if info.get("container") == "array" and warnings is not None:
            warnings.append(ENVELOPED)
    doc: Any
    if as_array:
        doc = items
    else:
        envelope = info.get("envelope") if isinstance(info.get("envelope"), Mapping) else None
        doc = {**default, **(envelope or {}), "data": items}
        order = info.get("order")
        if isinstance(order, list):
            ranked = {k: i for i, k in enumerate(order)}
            doc = {k: doc[k] for k in sorted(doc, key=lambda k: ranked.get(k, len(ranked)))}
    fmt = info.get("layout") if isinstance(info.get("layout"), Mapping) else None
    return dumps_layout(doc, fmt)


def write_export(items: list[Any], info: Mapping[str, Any], default: Mapping[str, Any],
                 options: Mapping[str, Any], loss: LossReport) -> WriteResult:
    """The write of a whole export file: ``items`` wrapped by :func:`wrap`, with ``loss``."""
    from bunzai.sdk import OutputFile, WriteResult

    warnings: list[str] = []
    out = wrap(items, info, default, options, warnings)
    return WriteResult([OutputFile(out, ".json")], loss, warnings)

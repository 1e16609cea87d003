"""Writing out the assets a card or module embeds, each with its real (sniffed) extension."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BunzaiError
from ..host.registry import get_registry
from ..io.input import Source
from .reading import Reading, check_source_format, read_file

if TYPE_CHECKING:
    from ..host.registry import Registry



class Extraction(Reading):
    """``bunzai extract``: the assets written, each with its sniffed type, and the manifest."""

    folder: Path | None = None
    manifest: Sequence[dict[str, Any]] = ()

    @property
    def written(self) -> list[dict[str, Any]]:
        return [m for m in self.manifest if m.get("file")]

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.folder is not None and self.ok:
            out.update({"output": str(self.folder), "assets": self.manifest})
        return out


def extract_assets(source: Source, folder: str | os.PathLike[str], *, force: bool = False,
                   filename: str | None = None, from_format: str | None = None,
                   registry: Registry | None = None) -> Extraction:
    """Write every embedded asset with a safe name and its real (sniffed) extension, plus
    ``manifest.json``; a remote asset is listed, never fetched."""
    reg = registry or get_registry()
    check_source_format(from_format, reg)
    found = Extraction.of(read_file(source, filename=filename, from_format=from_format,
                                    registry=reg), folder=Path(folder))
    found.input = None
    if found.ok:
        try:
            found.manifest = _extract(found.entities, Path(folder), force)
        except BunzaiError as exc:
            found.error = exc.with_path(found.path)
    return found


def _pictures(entity: Any) -> list[Any]:
    if entity.kind == "persona" and entity.avatar is not None:
        return [entity.avatar]
    return list(getattr(entity, "assets", []) or [])


def _extract(entities: list[Any], folder: Path, force: bool) -> list[dict[str, Any]]:
    """Every entity's assets (a package of several characters has each one's): with more than
    one entity, each row says whose (``entity``, its index) and each file starts with its
    name."""
    import hashlib

    from ..io.containers.media import sniff_media
    from ..io.jsonio import dumps
    from ..io.outputs import make_folder, safe_name, write_atomic

    many = len(entities) > 1
    make_folder(folder)
    manifest: list[dict[str, Any]] = []
    used: set[str] = set()
    for i, entity, a in [(i, e, a) for i, e in enumerate(entities) for a in _pictures(e)]:
        row: dict[str, Any] = {"name": a.name, "type": a.type, "uri": a.uri,
                               "origin": a.origin, "orphan": a.orphan}
        if many:
            row["entity"] = i
        if a.data is None:
            row.update({"file": None, "note": "not embedded (remote or missing)"})
            manifest.append(row)
            continue
        media, ext = sniff_media(a.data)
        own = a.name if a.type == "icon" else f"{a.type}-{a.name}"
        whose = getattr(entity, "name", None) or f"entity{i + 1}"
        stem = safe_name(f"{whose}-{own}" if many else own)
        cand, n = stem, 2
        while f"{cand}.{ext}".lower() in used:
            cand, n = f"{stem}-{n}", n + 1
        fname = f"{cand}.{ext}"
        used.add(fname.lower())
        write_atomic(folder / fname, a.data, force=force)
        row.update({"file": fname, "media_type": media, "size": len(a.data),
                    "sha256": hashlib.sha256(a.data).hexdigest()})
        manifest.append(row)
    write_atomic(folder / "manifest.json", dumps(manifest, indent=2) + b"\n", force=force)
    return manifest

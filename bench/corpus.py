"""Figure 8: every file of a folder read and written, by class, against its floor and the peer.

Each file is classified with bunzai's own detection and reader (container, winning format, kind)
and the spec the card declares: PNG V1/V2/V3, JSON V1/V2/V3, CharX, World Info.  Files outside
those classes (other formats, files nobody recognises) are listed with the reason and not timed.

Per file, in alternating batches (``timing.time_set``): bunzai's read auto-detected, its read
with the format given, the floor of the read (the least work giving the same result with the
same libraries, as figures 1-3 define it), and Character Foundry in its Node worker; then, for
files that carry an image (PNG cards, CharX), bunzai writing a SillyTavern PNG, the floor of that
write and Character Foundry's ``exportCard`` to PNG.  Everything reads bytes already in memory.
Classes and the whole folder are summarised as medians of the per-file figures and of the
per-file ratios (a ratio of medians would let the large files of one side decide it).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import floors
import orjson
import peers
import timing

import bunzai
from bunzai.errors import BunzaiError
from bunzai.host.registry import Registry
from bunzai.io.input import AdapterInput

CLASSES = ("PNG V1", "PNG V2", "PNG V3", "JSON V1", "JSON V2", "JSON V3", "CharX", "World Info")
PNG_CLASSES = CLASSES[:3]
JSON_CLASSES = (*CLASSES[3:6], "World Info")
WRITE_FORMAT = "sillytavern"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

Timer = Callable[[Mapping[str, Callable[[], Any] | timing.Remote]], dict[str, timing.Series]]


@dataclass
class Sample:
    """One file of the folder and what the benchmark does with it."""

    path: Path
    name: str
    """The path relative to the folder, as reported."""
    size: int
    data: bytes = field(repr=False)
    cls: str | None = None
    """One of :data:`CLASSES`, or None: not timed (``why`` says why)."""
    format: str | None = None
    container: str | None = None
    why: str = ""
    read_floor: Callable[[], Any] | None = field(default=None, repr=False)
    write_floor: Callable[[], Any] | None = field(default=None, repr=False)

    @property
    def peer_task(self) -> str:
        return "read-lorebook" if self.cls == "World Info" else "read"

    @property
    def writes(self) -> bool:
        """Whether the write is timed: the file carries an image to splice the card into."""
        return self.write_floor is not None


def _spec(doc: Any) -> int:
    spec = doc.get("spec") if isinstance(doc, dict) else None
    return 3 if spec == "chara_card_v3" else 2 if spec == "chara_card_v2" else 1


def classify(path: Path, name: str, data: bytes, registry: Registry) -> Sample:
    """Route ``data`` as bunzai does and pick its class, its read floor and its write floor."""
    s = Sample(path, name, len(data), data)
    try:
        report = registry.detect(AdapterInput(data))
    except BunzaiError as exc:
        s.why = f"detection refused it: {exc}"
        return s
    s.container = report.container
    if report.winner is None:
        s.why = f"not recognised ({report.container})"
        return s
    fmt = s.format = report.winner.format
    try:
        kind = bunzai.read(data, format=fmt, registry=registry).kind
    except BunzaiError as exc:
        s.why = f"{fmt} refused it: {exc}"
        return s
    except Exception as exc:  # a reader bug: reported, and the rest of the folder still runs
        s.why = f"{fmt} raised {type(exc).__name__}: {exc}"
        return s
    try:
        _pick(s, kind, fmt, report.container)
    except Exception as exc:  # the file is readable by bunzai but not by the minimal floor
        s.cls, s.read_floor, s.write_floor = None, None, None
        s.why = f"the floor cannot read it: {type(exc).__name__}: {exc}"
    return s


def _pick(s: Sample, kind: str, fmt: str, container: str) -> None:
    data = s.data
    if kind == "character" and fmt == "sillytavern" and container == "png":
        chunks = floors.read_png_card(data)
        if not chunks:
            s.why = "no chara or ccv3 tEXt chunk"
            return
        s.cls = f"PNG V{3 if b'ccv3' in chunks else _spec(chunks[b'chara'])}"
        s.read_floor = lambda: floors.read_png_card(data)
        # the card JSON as found stands in for each chunk the writer emits (chara V2 + ccv3 V3)
        v2 = chunks[b"chara"] if b"chara" in chunks else chunks[b"ccv3"]
        v3 = chunks.get(b"ccv3", v2)
        s.write_floor = lambda: floors.write_png_card(data, v2, v3)
    elif kind == "character" and fmt == "sillytavern" and container == "json":
        s.cls = f"JSON V{_spec(orjson.loads(data))}"
        s.read_floor = lambda: floors.read_json(data)
    elif kind == "character" and fmt == "risu-charx":
        card, members = floors.read_charx(data)
        s.cls = "CharX"
        s.read_floor = lambda: floors.read_charx(data)
        icon = floors.charx_icon(card, members)
        if icon is not None:
            s.write_floor = lambda: floors.write_png_card(icon, card, card)
    elif kind == "lorebook" and fmt == "sillytavern-lorebook" and container == "json":
        s.cls = "World Info"
        s.read_floor = lambda: floors.read_json(data)
    else:
        s.why = f"outside the classes: {kind} as {fmt} in {container}"


def collect(folder: Path, registry: Registry, *, per_class: int | None = None
            ) -> list[Sample]:
    """Every regular file under ``folder`` (hidden ones aside), classified, in path order."""
    out: list[Sample] = []
    taken: dict[str, int] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts):
            continue
        s = classify(path, rel.as_posix(), path.read_bytes(), registry)
        if s.cls is not None and per_class is not None:
            taken[s.cls] = taken.get(s.cls, 0) + 1
            if taken[s.cls] > per_class:
                s.cls, s.why = None, f"over --max-per-class {per_class}"
        if s.cls is None:
            s.data = b""  # keep only what is timed in memory
        out.append(s)
    return out


# -- measuring -------------------------------------------------------------------------------


@dataclass
class Result:
    """Median seconds per operation of every subject timed on one file."""

    sample: Sample
    read: dict[str, float] = field(default_factory=dict)
    """``auto``, ``given``, ``floor`` and, when the peer read it, ``cf``."""
    write: dict[str, float] = field(default_factory=dict)
    """``bunzai``, ``floor`` and ``cf`` when timed."""
    notes: list[str] = field(default_factory=list)
    peer: dict[str, Any] = field(default_factory=dict)
    """What the peer returned on its first call (name, spec, entries)."""

    def ratio(self, part: str, a: str, b: str) -> float | None:
        got = self.read if part == "read" else self.write
        return got[a] / got[b] if a in got and b in got and got[b] > 0 else None

    def to_json(self) -> dict[str, Any]:
        s = self.sample
        return {"file": s.name, "class": s.cls, "format": s.format, "container": s.container,
                "bytes": s.size, "read_s": self.read, "write_s": self.write,
                "peer": self.peer, "notes": self.notes}


def _open(worker: peers.Worker | None, path: Path, task: str, notes: list[str]
          ) -> peers.Handle | None:
    if worker is None:
        return None
    try:
        return worker.open(path, task)
    except peers.WorkerError as exc:
        notes.append(f"Character Foundry {task}: {exc}")
        return None


def measure(s: Sample, registry: Registry, worker: peers.Worker | None, timer: Timer
            ) -> Result:
    """Time one classified file: the read set, then (when it carries an image) the write set."""
    assert s.cls is not None and s.format is not None and s.read_floor is not None
    res = Result(s)
    data, fmt = s.data, s.format

    def auto() -> Any:
        return bunzai.read(data, registry=registry)

    def given() -> Any:
        return bunzai.read(data, format=fmt, registry=registry)

    entity = given()
    subjects: dict[str, Callable[[], Any] | timing.Remote] = {
        "auto": auto, "given": given, "floor": s.read_floor}
    handle = _open(worker, s.path, s.peer_task, res.notes)
    if handle is not None:
        subjects["cf"] = handle
        res.peer = dict(handle.info)
        theirs = handle.info.get("name")
        if handle.info.get("type", "card") == "card" and theirs != getattr(entity, "name", None):
            res.notes.append(f"names differ: bunzai {getattr(entity, 'name', None)!r}, "
                             f"Character Foundry {theirs!r}")
    try:
        res.read = {k: v.median for k, v in timer(subjects).items()}
    finally:
        if handle is not None:
            handle.release()
    if not s.writes:
        return res

    def write() -> bytes:
        return bunzai.write(entity, WRITE_FORMAT, registry=registry).files[0].data

    try:
        out = write()
    except BunzaiError as exc:
        res.notes.append(f"bunzai write: {exc}")
        return res
    if not out.startswith(PNG_SIGNATURE):
        res.notes.append(f"{WRITE_FORMAT} wrote {out[:8]!r}, not a PNG: write not timed")
        return res
    assert s.write_floor is not None
    subjects = {"bunzai": write, "floor": s.write_floor}
    handle = _open(worker, s.path, "export", res.notes)
    if handle is not None:
        subjects["cf"] = handle
    try:
        res.write = {k: v.median for k, v in timer(subjects).items()}
    finally:
        if handle is not None:
            handle.release()
    return res


# -- summaries -------------------------------------------------------------------------------


def _median(values: Iterable[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


@dataclass
class Group:
    """Medians over the files of one class (or of the whole folder)."""

    name: str
    results: list[Result]

    @property
    def files(self) -> int:
        return len(self.results)

    def time(self, part: str, key: str) -> float | None:
        return _median((r.read if part == "read" else r.write).get(key) for r in self.results)

    def ratio(self, part: str, a: str, b: str) -> float | None:
        return _median(r.ratio(part, a, b) for r in self.results)

    def count(self, part: str, a: str, b: str) -> int:
        return sum(r.ratio(part, a, b) is not None for r in self.results)

    def to_json(self) -> dict[str, Any]:
        pairs = (("read", "auto", "cf"), ("read", "given", "cf"), ("read", "auto", "floor"),
                 ("read", "given", "floor"), ("read", "auto", "given"),
                 ("write", "bunzai", "cf"), ("write", "bunzai", "floor"))
        return {
            "class": self.name, "files": self.files,
            "read_s": {k: self.time("read", k) for k in ("auto", "given", "floor", "cf")},
            "write_s": {k: self.time("write", k) for k in ("bunzai", "floor", "cf")},
            "ratios": {f"{p} {a}/{b}": self.ratio(p, a, b) for p, a, b in pairs},
            "counts": {f"{p} {a}/{b}": self.count(p, a, b) for p, a, b in pairs},
        }


def groups(results: list[Result]) -> list[Group]:
    """One group per class present, in :data:`CLASSES` order, then the whole folder."""
    out = [Group(c, [r for r in results if r.sample.cls == c]) for c in CLASSES]
    return [g for g in out if g.results] + [Group("all", results)]


def _us(v: float | None) -> str:
    if v is None:
        return ""
    us = v * 1e6
    return f"{us:,.1f}" if us < 100 else f"{us:,.0f}"


def _x(v: float | None) -> str:
    return "" if v is None else f"{v:.2f}x"


def class_table(summary: list[dict[str, Any]]) -> list[list[str]]:
    """The per-class table (µs are medians per file; ratios are medians of per-file ratios)."""
    head = ["class", "files", "auto µs", "given µs", "floor µs", "CF µs", "auto/CF",
            "given/CF", "auto/floor", "auto/given", "write µs", "w floor µs", "CF export µs",
            "write/CF", "write/floor"]
    rows = [head]
    for g in summary:
        rd, wr, q = g["read_s"], g["write_s"], g["ratios"]
        rows.append([g["class"], str(g["files"]), _us(rd["auto"]), _us(rd["given"]),
                     _us(rd["floor"]), _us(rd["cf"]), _x(q["read auto/cf"]),
                     _x(q["read given/cf"]), _x(q["read auto/floor"]),
                     _x(q["read auto/given"]), _us(wr["bunzai"]), _us(wr["floor"]),
                     _us(wr["cf"]), _x(q["write bunzai/cf"]), _x(q["write bunzai/floor"])])
    return rows


def print_classes(summary: list[dict[str, Any]], markdown: bool) -> None:
    table = class_table(summary)
    if markdown:
        print("| " + " | ".join(table[0]) + " |")
        print("|---|" + "---:|" * (len(table[0]) - 1))
        for line in table[1:]:
            print("| " + " | ".join(line) + " |")
        return
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    for j, line in enumerate(table):
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths, strict=True))).rstrip())
        if j == 0:
            print("  ".join("-" * w for w in widths))

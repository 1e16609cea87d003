"""Writing results safely: atomic, never clobbering, with names that are safe everywhere."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from ..errors import ConversionRefused, OutputError

_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", "conin$", "conout$",
                     *(f"{dev}{i}" for dev in ("com", "lpt") for i in (*"123456789", *"¹²³"))}
# Forbidden on Windows (<>:"/\\|?* and controls), plus C1 controls and bidirectional overrides,
# which are legal but let a name display as something else ("evil\u202egnp.exe").
_UNSAFE = re.compile('[\x00-\x1f\x7f-\x9f<>:"/\\\\|?*\u202a-\u202e\u2066-\u2069]')


Buffer = bytes | bytearray | memoryview
Part = Buffer | Iterable[Buffer]
"""A piece of an output: a buffer, or a re-iterable producer of buffers (a base64 asset chunk
built piece by piece as it is written, so it never exists whole)."""


_OVERWRITE = "pass {force} to overwrite"
"""What to do about an output that exists (see :class:`~bunzai.errors.BunzaiError`)."""


class OutputFile:
    """One file a writer produced; ``name`` distinguishes files of a multi-file result.

    ``data`` is either the file's bytes or a list of :data:`Part` written in order.  A writer
    of a large file hands over parts (views into its assets, chunks produced as they are
    written) so the output never exists as one copy next to the assets it is made of;
    :attr:`parts` streams them, :attr:`data` joins them on first use.
    """

    __slots__ = ("_joined", "_parts", "name", "suffix")

    suffix: str
    name: str | None
    _joined: bytes | None
    _parts: Sequence[Part] | None

    def __init__(self, data: Buffer | Sequence[Part], suffix: str,
                 name: str | None = None) -> None:
        if isinstance(data, bytes):
            self._joined, self._parts = data, None
        else:
            self._joined = None
            self._parts = (data,) if isinstance(data, bytearray | memoryview) else data
        self.suffix = suffix
        self.name = name

    @property
    def data(self) -> bytes:
        """The whole file as one ``bytes`` (joined once from the parts, then kept)."""
        if self._joined is None:
            self._joined = b"".join(self.parts)
            self._parts = None
        return self._joined

    @property
    def streamed(self) -> bool:
        """True while the file is held as parts, not joined (:attr:`data` would join them)."""
        return self._joined is None

    @property
    def parts(self) -> Iterator[Buffer]:
        """The file's bytes in order, piece by piece, without joining them (each access starts
        again from the first)."""
        parts = self._parts
        if parts is None:
            yield self.data
            return
        for part in parts:
            if isinstance(part, bytes | bytearray | memoryview):
                yield part
            else:
                yield from part

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OutputFile):
            return NotImplemented
        return (self.suffix, self.name, self.data) == (other.suffix, other.name, other.data)

    def __hash__(self) -> int:
        return hash((self.suffix, self.name, self.data))

    def __repr__(self) -> str:
        what = (f"{len(self._joined):,} bytes" if self._joined is not None
                else f"{len(self._parts or ())} parts")
        return f"OutputFile({what}, suffix={self.suffix!r}, name={self.name!r})"


class Written(Protocol):
    """What :func:`save` needs of a write's result (:class:`bunzai.host.types.WriteResult`)."""

    @property
    def files(self) -> Sequence[OutputFile]: ...
    @property
    def source(self) -> str | None: ...
    @property
    def name(self) -> str | None: ...
    @property
    def format(self) -> str | None: ...


def safe_name(name: str, *, default: str = "untitled", max_bytes: int = 120) -> str:
    """A file-name stem that is valid on Windows, macOS and Linux (NFC, no reserved names).

    At most ``max_bytes`` of UTF-8 (cut on a character boundary), so stem, a dedup counter and
    a suffix stay under every file system's 255-byte limit; never empty, never ending in a dot
    or space (Windows drops those), never a device name such as ``CON`` or ``com1.txt``.
    """
    s = unicodedata.normalize("NFC", name)
    s = re.sub(r"\s+", " ", _UNSAFE.sub("_", s))
    encoded = s.encode("utf-8")
    if len(encoded) > max_bytes:
        s = encoded[:max_bytes].decode("utf-8", "ignore")
    s = s.strip().rstrip(". ")
    if not s or s.strip("._ ") == "":
        s = default
    if s.split(".")[0].rstrip(" ").casefold() in _WINDOWS_RESERVED:
        s = "_" + s
    return s


def output_names(stem: str, files: Sequence[OutputFile]) -> list[str]:
    """File names for the files of one conversion, shared by the CLI and the studio.

    One file is ``stem + suffix``.  Several (a persona backup fanned out into one-persona files)
    are ``stem-<name> + suffix`` with each entity's name made safe and deduplicated
    case-insensitively, so no two outputs collide on a case-insensitive file system.
    """
    if len(files) == 1:
        return [stem + files[0].suffix]
    used: set[str] = set()
    names: list[str] = []
    # stem (<= 120 bytes), a dash, the label, a counter and the suffix stay under 255 bytes
    room = max(24, 200 - len(stem.encode("utf-8")))
    for i, f in enumerate(files, 1):
        label = safe_name(f.name or str(i), max_bytes=room)
        cand, n = label, 2
        while cand.casefold() in used:
            cand, n = f"{label}-{n}", n + 1
        used.add(cand.casefold())
        names.append(f"{stem}-{cand}{f.suffix}")
    return names


def make_folder(folder: Path) -> None:
    """Create an output folder (and its parents); failing (read-only, a file in the way) is a
    clean :class:`~bunzai.errors.OutputError`."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the output folder: {exc.strerror or exc}",
                          path=str(folder)) from None


_DECLARED: set[str] = set()


def declare_suffixes(suffixes: Iterable[str]) -> None:
    """Learn the suffixes installed formats declare (``FormatInfo.suffix``); those of more than
    one part (``.vaud.json``) are taken off a source's name whole.  The registry calls this for
    every adapter it holds, so no suffix is known by name here."""
    _DECLARED.update(s.lower() for s in suffixes if s.count(".") > 1)


def source_stem(name: str) -> str:
    """A source file's name without its suffix (``card.png`` -> ``card``; a suffix a format
    declares is taken whole: ``card.vaud.json`` -> ``card``), the stem of what a conversion
    writes next to it or into a folder."""
    base = Path(name).name
    for known in sorted(_DECLARED, key=len, reverse=True):
        if len(base) > len(known) and base[-len(known):].lower() == known:
            return base[: -len(known)]
    return Path(base).stem or base


def file_stem(result: Written) -> str:
    """The stem of a write's files: a safe form of the source file's stem; with no source, of
    the entity's name; else ``untitled``."""
    return safe_name(source_stem(result.source) if result.source else result.name or "untitled")


def file_names(result: Written) -> list[str]:
    """The names a write's files get where nothing is in their way (the studio's downloads):
    ``STEM + suffix``, several files ``STEM-<name> + suffix`` (see :func:`place`)."""
    return output_names(file_stem(result), result.files)


Earlier = Callable[[Path, OutputFile], bool]
"""Whether the file already at a path is an earlier output of the same target as the file
about to be written (core asks detection, see :attr:`bunzai.host.types.WriteResult.earlier`)."""


def place(folder: Path, stem: str, files: Sequence[OutputFile], target: str | None, *,
          earlier: Earlier | None = None, free: Callable[[str], bool] | None = None
          ) -> list[Path]:
    """Where the files of one conversion go in ``folder``: the one naming rule of ``bunzai
    convert`` (a file, a batch, ``-o DIR/``) and of ``save(DIR)``.

    1. One file is ``STEM + suffix``, the suffix of the file written (``seraphina.charx``);
       several (a persona backup, one file per persona) ``STEM-<name> + suffix``.
    2. A name is taken when ``free`` says so (the source itself; in a batch another source,
       or a name another file of the batch may write), or when a file is there that is not an
       earlier output of ``target`` (another format's output, a file bunzai does not read).
       Then every file is named after the target: ``STEM.TARGET + suffix``
       (``seraphina.risu.png``, ``sim.agnai-chat.json``), and if that is taken too
       ``STEM.TARGET-2 + suffix``, ``-3``...
    3. A name holding an earlier output of the same target is kept: the caller refuses it,
       replaces it (``--force``) or counts it as done (``--skip-existing``).

    So a name never lands on another format's output, and ``--force`` replaces only what the
    same target wrote before.  ``earlier`` None: any file found counts as an earlier output;
    ``target`` None (a write no format is known for): names are never tagged.
    """
    def fits(names: list[str]) -> bool:
        for name, f in zip(names, files, strict=True):
            if free is not None and not free(name):
                return False
            path = folder / name
            if path.is_symlink() or (path.exists() and earlier is not None
                                     and not earlier(path, f)):
                return False
        return True

    names = output_names(stem, files)
    if target is None or fits(names):
        return [folder / n for n in names]
    tagged, n = f"{stem}.{safe_name(target)}", 2
    names = output_names(tagged, files)
    # Each try differs in its number, so every file and name in the way rules out at most one.
    while not fits(names):
        names, n = output_names(f"{tagged}-{n}", files), n + 1
    return [folder / n for n in names]


def output_paths(result: Written, target: str | os.PathLike[str]) -> list[Path]:
    """Where :func:`save` puts each file of ``result``.

    A folder (one that exists, or a path ending in a separator, then created) gets the names
    :func:`place` gives, the source's own path never among them.  Any other path names the
    (first) file; several files are ``STEM-<name> + suffix`` beside it, as
    :func:`output_names` gives them.
    """
    path = Path(target)
    first = result.files[0]
    if os.fspath(target).endswith(("/", os.sep)) and not path.exists():
        make_folder(path)  # "converted/": a folder, made on first use
    if path.is_dir():
        source = Path(result.source).resolve() if result.source else None
        return place(path, file_stem(result), result.files, result.format,
                     earlier=getattr(result, "earlier", None),
                     free=None if source is None else lambda n: (path / n).resolve() != source)
    if len(result.files) == 1:
        return [path]
    stem = path.name[: -len(first.suffix)] if path.name.endswith(first.suffix) else path.stem
    return [path.with_name(n) for n in output_names(stem, result.files)]


def already_saved(result: Written, target: str | os.PathLike[str]) -> list[Path] | None:
    """The paths :func:`save` would write when every one already holds an earlier output of the
    same target (``--skip-existing``: the conversion is done), else None.  A folder's names come
    from :func:`place`, which keeps a name only for such a file; a file named outright is asked
    the same question.  The source itself is never one."""
    paths = output_paths(result, target)
    # place() asked already for a folder's names; a file named outright is asked here
    earlier = None if Path(target).is_dir() else getattr(result, "earlier", None)
    source = Path(result.source).resolve() if result.source else None
    for p, f in zip(paths, result.files, strict=True):
        if p.is_symlink() or not p.is_file() or p.resolve() == source:
            return None
        if earlier is not None and not earlier(p, f):
            return None
    return paths


def save(result: Written, target: str | os.PathLike[str], *, force: bool = False
         ) -> list[Path]:
    """Write every file of ``result`` as the CLI does: atomically, never over the source, and
    never over an existing file unless ``force``.  Every path is checked before the first file
    is written, so a refused save writes nothing."""
    paths = output_paths(result, target)
    _check_image_name(paths, result.files)
    source = Path(result.source).resolve() if result.source else None
    for p in paths:
        if source is not None and p.resolve() == source:
            raise ConversionRefused("output would replace the source file", path=str(p))
        if p.exists() and not force:
            raise ConversionRefused("output exists", remedy=_OVERWRITE, path=str(p))
    for p, f in zip(paths, result.files, strict=True):
        write_atomic(p, f.parts, force=force)
    return paths


_IMAGES = {".png": "PNG", ".apng": "PNG", ".webp": "WebP", ".jpg": "JPEG", ".jpeg": "JPEG",
           ".gif": "GIF"}


def _check_image_name(paths: Sequence[Path], files: Sequence[OutputFile]) -> None:
    """Refuse to put one kind of image under another's name (a WebP card kept as it was,
    asked for as ``card.png``): apps pick the decoder by the name and reject the file."""
    for p, f in zip(paths, files, strict=True):
        named, holds = _IMAGES.get(p.suffix.lower()), _IMAGES.get(f.suffix.lower())
        if named and holds and named != holds:
            raise ConversionRefused(
                f"the output is a {holds} image, not a {named}: name it "
                f"{p.with_suffix(f.suffix).name}", path=str(p))


def write_atomic(path: Path, data: Part, *, force: bool = False,
                 durable: bool = True) -> None:
    """Write to a file with no name or a hidden temporary one, flush it, then give it its name.

    Without ``force`` an existing file is never replaced, even if it appears meanwhile (the final
    step is a hard link, which fails if the name exists).  On Linux the data goes to an unnamed
    file (``O_TMPFILE``) that is linked into place once complete, so even ``kill -9`` leaves
    nothing behind; elsewhere (or on a file system without it) to a hidden ``.NAME.*.tmp``
    beside the output, which an interrupted process may leave.  Never a partial output: a failed
    write (disk full, permission denied) removes what it wrote, leaves any existing output as it
    was, and raises :class:`~bunzai.errors.OutputError`.

    ``durable=False`` skips the per-file ``fsync`` (still atomic: a crashed process leaves no
    partial output, but a power loss may).  Batches use it and flush once at the end, as one
    fsync per file serializes parallel workers on the file system journal.
    """
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"cannot write the output: the folder {folder} does not exist",
                          path=str(path))
    if path.exists() and not force:
        raise ConversionRefused("output exists", remedy=_OVERWRITE, path=str(path))
    existed = path.exists()
    parts = [data] if isinstance(data, bytes | bytearray | memoryview) else data
    fd = _unnamed_file(folder)
    if fd is not None:
        try:
            _write_fd(fd, parts, durable)
            _link_unnamed(fd, path, folder, force)
        except OSError as exc:
            raise _write_failed(path, exc, existed) from None
        finally:
            os.close(fd)
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _write_failed(path, exc, existed) from None
    try:
        try:
            _write_fd(fd, parts, durable)
        finally:
            os.close(fd)
        _give_name(tmp, path, force)
    except OSError as exc:
        raise _write_failed(path, exc, existed) from None
    finally:
        with contextlib.suppress(OSError):
            if os.path.exists(tmp):
                os.unlink(tmp)


def _write_fd(fd: int, parts: Iterable[Buffer], durable: bool) -> None:
    for part in parts:
        view = memoryview(part)
        while view:  # os.write may write less than asked (signals, large buffers)
            view = view[os.write(fd, view):]
    if durable:
        os.fsync(fd)


def _unnamed_file(folder: Path) -> int | None:
    """A file in ``folder`` with no name yet (Linux ``O_TMPFILE``), or None where there is none."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError:  # EOPNOTSUPP, EISDIR, EINVAL: this file system or kernel has no O_TMPFILE
        return None


def _link_unnamed(fd: int, path: Path, folder: Path, force: bool) -> None:
    """Give the complete unnamed file its name; with ``force``, replace what is there."""
    source = f"/proc/self/fd/{fd}"
    # A directory fd makes os.link use linkat(AT_SYMLINK_FOLLOW), which links the file the
    # /proc entry stands for; plain link() would try to link the /proc symlink itself.
    dir_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            os.link(source, path.name, dst_dir_fd=dir_fd, follow_symlinks=True)
            return
        except FileExistsError:
            if not force:
                raise ConversionRefused("output exists", remedy=_OVERWRITE,
                                        path=str(path)) from None
        # Replacing needs a name to rename from: a hidden one, complete already, gone at once.
        for _ in range(100):
            tmp = f".{path.name}.{secrets.token_hex(6)}.tmp"
            try:
                os.link(source, tmp, dst_dir_fd=dir_fd, follow_symlinks=True)
                break
            except FileExistsError:
                continue
        else:  # pragma: no cover - a hundred random names all taken
            raise FileExistsError(f"no free temporary name in {folder}")
        try:
            os.replace(tmp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def _give_name(tmp: str, path: Path, force: bool) -> None:
    if force:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise ConversionRefused("output exists", remedy=_OVERWRITE,
                                path=str(path)) from None
    except OSError:
        if path.exists():
            raise ConversionRefused("output exists", remedy=_OVERWRITE,
                                    path=str(path)) from None
        os.replace(tmp, path)  # a file system without hard links


def _write_failed(path: Path, exc: OSError, existed: bool) -> OutputError:
    reason = exc.strerror or str(exc) or type(exc).__name__
    kept = "the existing file is unchanged" if existed else "nothing was written"
    return OutputError(f"cannot write the output: {reason} ({kept})", path=str(path))

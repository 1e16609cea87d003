"""Plain data passed between core and adapters (no pydantic: these are on the fast path)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..active.runs import Runs
from ..loss.report import LossReport

if TYPE_CHECKING:
    from pathlib import Path

    from ..errors import Issue
    from ..io.outputs import OutputFile
    from ..loss.apply import Verification
    from ..model import Entity

API_VERSION = 1
"""The adapter API this core implements; adapters declare the version they were built for."""
SUPPORTED_API_VERSIONS = frozenset({1})


OptionType = type[bool] | type[int] | type[str]


@dataclass(frozen=True, slots=True)
class Option:
    """One option a format understands, declared so that core can check it.

    Core checks every option before the adapter runs (:func:`bunzai.host.options.check`): an unknown
    name or a value outside ``type``/``choices`` is a usage error naming the valid ones, and
    the adapter receives the value converted to ``type`` (``-O indent=2`` arrives as ``2``,
    ``-O split=yes`` as ``True``, a choice in its declared spelling).  ``default`` is what the
    format does when the option is not given; it is shown to users, never filled in by core,
    because many formats default to "as the file was read".
    """

    name: str
    type: OptionType = str
    choices: tuple[Any, ...] = ()
    default: Any = None
    help: str = ""
    reader: bool = False
    """A reader option (``bunzai.read(path, name=value)``) instead of a writer option."""
    free: bool = False
    """Declared the old way, as a bare description: any text passes (``true``/``false`` as
    booleans), as before options were typed."""
    layout: bool = False
    """A writer option that changes only how the file is laid out (``indent``), never what it
    says: given, core writes the layout asked for instead of giving back the text an unchanged
    file was read from (see :mod:`bunzai.io.asread`)."""

    def __post_init__(self) -> None:
        if self.type not in (bool, int, str):
            raise TypeError(f"option {self.name!r}: type must be bool, int or str, "
                            f"not {self.type!r}")

    @property
    def values(self) -> str:
        """What the option takes, as help text shows it: ``0|2|4``, ``true|false``, ``TEXT``."""
        if self.choices:
            return "|".join(str(c) for c in self.choices)
        if self.type is bool:
            return "true|false"
        return "N" if self.type is int else "TEXT"

    @property
    def default_text(self) -> str | None:
        """The default as help shows it (``true``, ``4``, ``as read, else png``), or None."""
        if self.default is None:
            return None
        return str(self.default).lower() if isinstance(self.default, bool) else str(self.default)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type.__name__, "choices": list(self.choices),
                "default": self.default, "help": self.help, "reader": self.reader}


def declared_options(declared: Any, owner: str) -> dict[str, Option]:
    """Declared options as a name -> :class:`Option` mapping: from a sequence of options, or a
    mapping of names to options or (the old form) to bare descriptions."""
    if isinstance(declared, Mapping):
        items = list(declared.items())
    else:
        items = [(o.name, o) for o in declared]
    out: dict[str, Option] = {}
    legacy = []
    for name, opt in items:
        if isinstance(opt, str):
            legacy.append(name)
            opt = Option(name, help=opt, free=True)
        elif not isinstance(opt, Option):
            raise TypeError(f"{owner}: option {name!r} must be an Option, not "
                            f"{type(opt).__name__}")
        out[opt.name] = opt
    if legacy:
        warnings.warn(f"{owner} declares options {', '.join(legacy)} as plain descriptions; "
                      "declare bunzai.Option(name, type, choices, default, help) so bunzai "
                      "can check them", DeprecationWarning, stacklevel=4)
    return out


@dataclass(frozen=True, slots=True)
class FormatInfo:
    """What an adapter declares about itself; drives the roster, docs and the firewall."""

    id: str
    kind: str
    label: str
    description: str = ""
    suffix: str = ".json"
    """Suffix of the files the writer produces (``.png``, ``.charx``, ``.json``)."""
    can_read: bool = True
    can_write: bool = True
    multi: bool = False
    """The format holds several entities in one file (persona backups, regex arrays)."""
    aliases: tuple[str, ...] = ()
    """Short names accepted by ``--to`` (``png``, ``charx``)."""
    alias_options: dict[str, dict[str, str]] = field(default_factory=dict)
    """Writer options an alias implies (``--to json`` -> ``container=json`` for a format that
    writes PNG by default); options given explicitly win."""
    carries_passthrough: bool = False
    """The writer keeps every format's passthrough and app data (only the native format does)."""
    carries: tuple[str, ...] | None = None
    """Canonical path patterns the writer holds (``name``, ``lorebook.entries[*].keys``,
    ``extensions``, ``*`` for every field, ``!triggers`` to take one out of a ``*``); every
    other path with user data is reported as dropped (see :mod:`bunzai.loss.rule`).
    ``None``: core reads every output back to find what it lost."""
    reasons: tuple[tuple[str, str], ...] = ()
    """Why the writer does not carry a path: (pattern, reason in a user's words).  A pattern is
    a canonical path (``lorebook``, ``entries[*].sticky``) matching that path and everything
    under it; the most specific match gives a dropped path its reason, and ``""`` matches every
    path (the format's general reason).  Unlike ``carries`` there is no ``*`` wildcard: the
    conformance kit fails on a pattern that names no path of the kind's model, which would
    never give its reason."""
    neutral: tuple[tuple[str, Any], ...] = ()
    """Values of keys this format owns under ``extensions`` or ``app_data`` that ask nothing of
    an app (SillyTavern's ``extensions.fav: false``): (pattern, neutral values or a predicate
    ``(value, owner) -> bool``); dropping them is not a loss."""
    acts_on: tuple[tuple[str, Any, str], ...] = ()
    """Text only this format's app acts on: (pattern, a test ``(value) -> bool``, what other
    apps do with it in a user's words), such as RisuAI's ``@@decorator`` lines at the top of an
    entry's content.  Written by a format that does not declare the same test, the text is
    kept but other apps treat it differently: core reports it as stashed, once per path, when
    the entity was read by a format that declares it."""
    runs: tuple[Runs, ...] = ()
    """Fields this format's app runs or renders (:class:`Runs`): what ``bunzai audit`` reports
    and ``--strip-active`` removes, and what a conversion to an app that treats them otherwise
    reports as stashed."""
    api_version: int = API_VERSION
    options: Mapping[str, Option] = field(default_factory=dict)
    """Reader and writer options this format understands, by name.  Given as a sequence of
    :class:`Option` (or the old ``{name: description}`` form, kept working with a deprecation
    warning: such options take any text)."""
    detection: tuple[tuple[str, float], ...] = ()
    """Documented detection scores: (situation, score)."""
    signature: Mapping[str, tuple[str, ...]] | None = None
    """What a file must show for ``detect`` to be asked at all: container -> marks, one of
    which must be among the file's signs (``{"json": ("spec", "name"), "png": ("chara",
    "ccv3")}``; an empty tuple: any file of that container).  Checked by core from views it
    builds once, so an adapter that cannot claim a file costs nothing; ``None``: always ask.
    See :attr:`bunzai.io.input.AdapterInput.signs`."""
    losses: tuple[tuple[str, str], ...] = ()
    """What the writer does on its own to fields it carries, which no declaration covers:
    (canonical field, what happens) for a value it approximates, drops only in some shapes,
    containers or options, or generates when missing.  The fields it does not carry are not
    listed here: the generated docs derive them, with their reasons, from ``carries`` and
    ``reasons``."""
    doc: str | None = None
    """Relative path of the format's doc page."""
    default_for_kind: bool = False
    """This format is what a command writes when the user names no format for this kind
    (``bunzai lorebook extract`` without ``--to``).  At most one adapter per kind should claim
    it; if none does, such commands need ``--to``."""

    def __post_init__(self) -> None:
        opts: Any = self.options
        if not (isinstance(opts, Mapping) and all(isinstance(o, Option) for o in opts.values())):
            object.__setattr__(self, "options", declared_options(self.options, self.id))


@dataclass(frozen=True, slots=True)
class Detection:
    """A detector's answer: a score in 0..1 and why."""

    score: float
    reason: str = ""


@dataclass
class ReadResult:
    """What a reader returns: one or more entities and any non-fatal warnings."""

    entities: list[Entity]
    warnings: list[Issue] = field(default_factory=list)


@dataclass
class WriteResult:
    """What a writer returns: its files and an honest loss report."""

    files: list[OutputFile]
    loss: LossReport = field(default_factory=LossReport)
    warnings: list[str] = field(default_factory=list)
    carries: tuple[str, ...] | None = None
    """What this write carried, when it depends on the options (a five-key shape or a full
    card); ``None``: what the format declares (``FormatInfo.carries``)."""
    format: str | None = None
    """The format that wrote the files (set by core, whatever the writer said)."""
    source: str | None = None
    """The file the entities were read from, when core knows it (``bunzai.convert``)."""
    name: str | None = None
    """The (first) entity's name: names the output when there is no source file."""
    earlier: Callable[[Path, OutputFile], bool] | None = field(default=None, repr=False,
                                                               compare=False)
    """Whether a file found where an output would go is an earlier output of this write's
    format (set by core, from detection); see :func:`bunzai.io.outputs.place`."""
    verified: Verification | None = None
    """What reading the output back found (set by core with ``verify``, and for a format that
    declares nothing it carries); None: not read back."""

    def save(self, path_or_dir: str | os.PathLike[str], *, force: bool = False) -> list[Path]:
        """Write the files; returns their paths.

        A folder gets the files named after the source (``card.png`` -> ``DIR/card.charx``)
        or the entity; any other path names the file (several files go beside it as
        ``NAME-<entity>.ext``).  The rules are the CLI's: atomic writes, never the source,
        never over an existing file unless ``force``
        (:class:`~bunzai.errors.ConversionRefused` otherwise, and nothing is written).
        """
        from ..io.outputs import save
        return save(self, path_or_dir, force=force)

    @property
    def data(self) -> bytes:
        return self.files[0].data

    @property
    def suffix(self) -> str:
        return self.files[0].suffix


@dataclass(frozen=True, slots=True)
class LabelRule:
    """One origin-labeler rule: when ``test`` finds evidence, ``app`` gets ``weight``.

    ``role`` says whether the evidence shows who made the file (``origin``) or who saved it
    last (``last_writer``).  ``test`` receives the input and the entities read from it and
    returns a list of human-readable evidence strings (empty when the rule does not fire).
    """

    app: str
    weight: float
    test: Callable[[Any, Sequence[Any]], list[str]]
    role: Literal["origin", "last_writer"] = "origin"
    name: str = ""


@dataclass(frozen=True, slots=True)
class DetectedOrigin:
    """A format whose own detection names the app that made the file: a file the adapter
    scores ``at_least`` or more on is evidence (``weight``) that ``app`` made it.  Declared as
    ``FormatAdapter.origin``; the base class makes it the origin :class:`LabelRule` ``name``,
    so the format does not test its file a second time in a rule of its own."""

    app: str
    weight: float
    name: str
    at_least: float = 0.95

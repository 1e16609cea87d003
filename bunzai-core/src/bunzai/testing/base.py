"""The conformance kit's foundation: the attributes a test class sets, how checks are
parametrized from them and the installed adapters, and the steps every check shares.

The checks themselves are in :mod:`.checks_declared`, :mod:`.checks_detection`,
:mod:`.checks_roundtrip` and :mod:`.checks_robustness`; :mod:`.kit` puts them together as
:class:`~.kit.AdapterConformance`.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, TypeVar

import pytest

from ..errors import BunzaiError
from ..host.detection import _normalize_score
from ..host.entrypoints import FORMATS_GROUP
from ..host.registry import Registry
from ..host.types import ReadResult
from ..io.input import as_input
from ..kinds import KINDS
from . import load_registry
from .generated import VARIANTS, canonical_examples, vaud_json_bytes

if TYPE_CHECKING:
    from ..host.registry import AdapterHandle
    from ..host.types import FormatInfo
    from ..io.input import AdapterInput

F = TypeVar("F", bound=Callable[..., Any])
PathLike = str | os.PathLike[str]

WAIVER_ATTR = "__bunzai_waiver__"
HOW = "\n\nHow to fix: "

STANDARD_CHECKS: tuple[str, ...] = (
    "test_declares_format_and_samples",
    "test_entry_point_is_named_after_the_format_id",
    "test_declared_info_is_complete",
    "test_adapter_module_is_import_light",
    "test_named_functions_exist_and_take_their_arguments",
    "test_detect_scores_own_sample",
    "test_own_sample_score_is_documented",
    "test_own_sample_routes_here",
    "test_foreign_input_is_not_claimed",
    "test_other_conformance_samples_are_not_claimed",
    "test_written_files_route_back",
    "test_same_format_round_trip_is_lossless",
    "test_same_format_round_trip_keeps_the_file",
    "test_passthrough_is_layout_only",
    "test_loss_report_is_honest_into_vaud_json",
    "test_loss_report_is_honest_from_vaud_json",
    "test_truncated_input_raises_bunzai_errors_only",
    "test_wrong_json_types_raise_bunzai_errors_only",
    "test_malformed_samples_are_refused",
)
"""The checks a subclass inherits; the guard fails when one is removed or silently replaced."""

FOREIGN_FILES_ONE_BY_ONE = 40
"""Up to this many ``foreign_samples`` get one test each; more are grouped by owner."""

CUTS: tuple[str, ...] = ("0", "1", "25%", "50%", "75%", "-1")
"""Where own samples are truncated: byte counts, fractions, or bytes removed from the end."""


def waive(reason: str) -> Callable[[F], F]:
    """Declare that a standard check does not apply to this format, and why.

    Decorate the overriding method; the check is reported as skipped with the reason (shown by
    ``pytest -ra``), and the guard accepts the override::

        @waive("the format has no writer: it is read-only by design")
        def test_same_format_round_trip_is_lossless(self, bunzai_subject, sample): ...
    """
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError("waive() needs a reason a reviewer can judge")

    def decorate(fn: F) -> F:
        setattr(fn, WAIVER_ATTR, reason)
        return pytest.mark.skip(reason=f"waived: {reason}")(fn)  # type: ignore[no-any-return]

    return decorate


def explain(what: str, fix: str) -> str:
    """A failure message: what went wrong, then how to fix it."""
    return what.rstrip() + HOW + fix


def fail(what: str, fix: str) -> NoReturn:
    """Fail the check with :func:`explain`'s message and no traceback: the message is the
    report, the kit's own frames would only hide it."""
    pytest.fail(explain(what, fix), pytrace=False)


# -- per-session state ---------------------------------------------------------------------------

_REGISTRY_KEY = pytest.StashKey[Registry]()
_WRITTEN_KEY = pytest.StashKey[dict[tuple[str, str, str], tuple[bytes, str] | str]]()
_CLASSES_KEY = pytest.StashKey[list[type["KitBase"]]]()


def session_registry(config: pytest.Config) -> Registry:
    """The registry of every installed adapter, loaded once per pytest session."""
    reg = config.stash.get(_REGISTRY_KEY, None)
    if reg is None:
        reg = load_registry()
        config.stash[_REGISTRY_KEY] = reg
    return reg


def _declared_classes(config: pytest.Config) -> list[type[KitBase]]:
    return config.stash.setdefault(_CLASSES_KEY, [])


# -- helpers -------------------------------------------------------------------------------------


def _short(path: Path) -> str:
    parts = path.name.split("__")
    return f"{parts[0]}:{parts[-2]}" if len(parts) >= 3 else path.name


def _paths(items: Iterable[PathLike]) -> list[Path]:
    return [Path(p) for p in items]


def _scores(report: Any) -> str:
    return ", ".join(f"{c.format}={c.score:g}" for c in report.candidates) or "no candidates"


def _raw_detect(handle: AdapterHandle, inp: AdapterInput) -> tuple[float, str]:
    """The adapter's own answer, validated as the registry does but with errors surfaced."""
    return _normalize_score(handle.call("bunzai_detect", input=inp))


def _raw_read(handle: AdapterHandle, inp: AdapterInput, options: Mapping[str, Any]) -> Any:
    """Call the reader hook directly: the registry would turn a KeyError into MalformedInput."""
    got = handle.call("bunzai_to_canonical", input=inp, options=dict(options))
    if not isinstance(got, ReadResult):
        raise TypeError(f"the reader returned {type(got).__name__}, not a ReadResult")
    return got


def _exc_line(exc: BaseException) -> str:
    tb = exc.__traceback__
    where = ""
    while tb is not None:
        where = f" at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}"
        tb = tb.tb_next
    return f"{type(exc).__name__}: {exc}{where}"


@dataclass(frozen=True)
class Subject:
    """The adapter under test, as the checks see it."""

    registry: Registry
    handle: AdapterHandle
    samples: list[Path]

    @property
    def info(self) -> FormatInfo:
        return self.handle.info

    @property
    def id(self) -> str:
        return self.handle.id

    def distribution_is_core(self) -> bool:
        from ..host.plugins import CORE_DISTRIBUTION
        return self.handle.distribution == CORE_DISTRIBUTION


@dataclass(frozen=True)
class ForeignCase:
    """Something that is not this adapter's: a file, or an example another writer produces."""

    label: str
    paths: tuple[Path, ...] = ()
    owner: str | None = None
    """The format that owns the content, when known (None: unknown or nobody)."""
    kind: str | None = None
    """The entity kind of the content, when known."""
    writer: str | None = None
    """Produce the content with this installed adapter's writer (``vaud-json`` included)."""
    variant: str | None = None


class KitBase:
    """What every group of checks shares: the attributes a format's test class sets, how the
    checks are parametrized from them, the adapter under test, reading and writing it."""

    format_id: ClassVar[str] = ""
    """The id your adapter declares and its entry point is named after."""
    samples: ClassVar[Sequence[PathLike]] = ()
    """Files of your format, read in place: each must be detected, routed and round-tripped."""
    malformed_samples: ClassVar[Sequence[PathLike]] = ()
    """Broken files of your format that reading must refuse with a BunzaiError."""
    foreign_samples: ClassVar[Sequence[PathLike] | Mapping[PathLike, str | None]] = ()
    """Files that are not yours (optionally mapped to the format that owns them, or None)."""
    may_win: ClassVar[Mapping[str, str]] = {}
    """Other format id -> why your adapter may legitimately win files that format writes."""
    canonical_samples: ClassVar[Sequence[Any]] = ()
    """Extra canonical entities of your kind for the vaud-json -> your format honesty check."""
    read_options: ClassVar[Mapping[str, Any]] = {}
    write_options: ClassVar[Mapping[str, Any]] = {}
    skip_if_not_installed: ClassVar[bool] = False
    """Skip (instead of fail) when no adapter with ``format_id`` is installed."""
    type_mutations: ClassVar[int] = 80
    """How many wrong-type mutations to try per sample (fewer on samples over 256 KiB)."""
    robustness_samples: ClassVar[Sequence[PathLike] | None] = None
    """Samples for the truncation and wrong-type checks (default: all of ``samples``)."""
    completed_keys: ClassVar[Sequence[str]] = ()
    """JSON paths (``data.tags``, ``data.character_book.entries[*].extensions``) of keys your
    writer adds when the source lacked them because your format's spec requires them: a
    same-format rewrite may add these (never change or remove anything)."""
    sample_waivers: ClassVar[Mapping[str, Mapping[str, str]]] = {}
    """Check name -> {sample file name pattern -> why that check does not apply to it}; the
    matching cases are reported as skipped with the reason."""

    # -- collection ----------------------------------------------------------------------------

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """Parametrize the checks from the subclass's attributes and the installed adapters."""
        cls = metafunc.cls
        if cls is None or not issubclass(cls, KitBase):
            return
        classes = _declared_classes(metafunc.config)
        if cls not in classes:
            classes.append(cls)
        names = metafunc.fixturenames
        own = _paths(cls.samples)
        check = metafunc.function.__name__
        if "sample" in names:
            metafunc.parametrize("sample", [cls._param(check, p) for p in own],
                                 ids=[_short(p) for p in own])
        probes = own if cls.robustness_samples is None else _paths(cls.robustness_samples)
        if "cut" in names:
            cases = [(p, c) for p in probes for c in CUTS]
            metafunc.parametrize(("probe", "cut"), [cls._param(check, p, c) for p, c in cases],
                                 ids=[f"{_short(p)}@{c}" for p, c in cases])
        elif "probe" in names:
            metafunc.parametrize("probe", [cls._param(check, p) for p in probes],
                                 ids=[_short(p) for p in probes])
        if "malformed" in names:
            bad: list[Path | None] = list(_paths(cls.malformed_samples)) or [None]
            metafunc.parametrize("malformed", bad,
                                 ids=[_short(p) if p else "none-declared" for p in bad])
        if "foreign" in names or "example" in names:
            reg = session_registry(metafunc.config)
            handle = reg.adapters.get(cls.format_id)
            kind = handle.kind if handle is not None else None
            if "foreign" in names:
                foreign = cls._foreign_cases(reg)
                metafunc.parametrize("foreign", foreign, ids=[f.label for f in foreign])
            if "example" in names:
                examples: list[Any] = []
                if kind in KINDS:
                    examples = [(kind, v) for v in VARIANTS]
                    examples += [("declared", i) for i in range(len(cls.canonical_samples))]
                metafunc.parametrize("example", examples,
                                     ids=[f"{k}-{v}" for k, v in examples])

    @classmethod
    def _sample_waiver(cls, check: str, path: Path) -> str | None:
        for pattern, reason in cls.sample_waivers.get(check, {}).items():
            if fnmatch.fnmatch(path.name, pattern):
                return reason
        return None

    @classmethod
    def _param(cls, check: str, path: Path, *more: Any) -> Any:
        """One parametrized case, skipped with its reason when ``sample_waivers`` says so."""
        reason = cls._sample_waiver(check, path)
        marks = [pytest.mark.skip(reason=f"waived for {path.name}: {reason}")] if reason else []
        return pytest.param(path, *more, marks=marks)

    @classmethod
    def _foreign_cases(cls, reg: Registry) -> list[ForeignCase]:
        cases: list[ForeignCase] = []
        declared = cls.foreign_samples
        if isinstance(declared, Mapping):
            items = [(Path(p), owner) for p, owner in declared.items()]
        else:
            items = [(Path(p), None) for p in declared]
        own = {p.resolve() for p in _paths(cls.samples)}
        items = [(p, owner) for p, owner in items if p.resolve() not in own]
        grouped: dict[str | None, list[Path]] = {}
        for path, owner in items:
            grouped.setdefault(owner, []).append(path)
        for owner, paths in sorted(grouped.items(), key=lambda kv: kv[0] or ""):
            kind = reg.adapters[owner].kind if owner is not None and owner in reg.adapters \
                else None
            if len(items) <= FOREIGN_FILES_ONE_BY_ONE:
                cases += [ForeignCase(f"file:{_short(p)}", (p,), owner, kind) for p in paths]
            else:  # many files (a whole corpus): one case per owning format
                cases.append(ForeignCase(f"files-of:{owner or 'no-format'}", tuple(paths),
                                         owner, kind))
        for kind in KINDS:
            for variant in VARIANTS:
                cases.append(ForeignCase(f"vaud-json:{kind}-{variant}", owner="vaud-json",
                                         kind=kind, writer="vaud-json", variant=variant))
        for fid, h in sorted(reg.adapters.items()):
            if fid == cls.format_id or h.kind not in KINDS or not h.info.can_write:
                continue
            for variant in VARIANTS:
                cases.append(ForeignCase(f"written-by:{fid}:{h.kind}-{variant}", owner=fid,
                                         kind=h.kind, writer=fid, variant=variant))
        return cases

    # -- fixtures ------------------------------------------------------------------------------

    @pytest.fixture(scope="class")
    @classmethod
    def bunzai_subject(cls, request: pytest.FixtureRequest) -> Subject:
        """The installed adapter under test (skips or fails with the reason when absent)."""
        reg: Registry | None = None
        with contextlib.suppress(pytest.FixtureLookupError):
            reg = request.getfixturevalue("bunzai_registry")
        if reg is None:
            fail(
                "the conformance kit's pytest plugin is not enabled",
                "add `pytest_plugins = [\"bunzai.testing.plugin\"]` at the top of your test "
                "module (or the conftest.py at your project's root), or run "
                "`pytest -p bunzai.testing.plugin`.")
        if not cls.format_id:
            fail(f"{cls.__name__} does not say which format it tests",
                 "set the class attribute format_id = \"your-format-id\".")
        handle = reg.adapters.get(cls.format_id)
        if handle is None:
            broken = [b for b in reg.broken if b.name == cls.format_id]
            if broken:
                fail(
                    f"{cls.format_id} is installed but bunzai refused to load it: "
                    f"{broken[0].reason}",
                    "fix the reason above; `bunzai plugins` shows the same message.")
            if cls.skip_if_not_installed:
                pytest.skip(f"{cls.format_id} is not installed yet (no entry point "
                            f"{cls.format_id!r} in group {FORMATS_GROUP!r})")
            fail(
                f"no installed adapter has the format id {cls.format_id!r} (installed: "
                f"{', '.join(sorted(reg.adapters))})",
                f"declare the entry point in pyproject.toml under "
                f"[project.entry-points.\"{FORMATS_GROUP}\"] as "
                f"`{cls.format_id} = \"your_package.your_adapter:YourAdapter\"`, then "
                "reinstall the distribution (`pip install -e .`).")
        return Subject(reg, handle, _paths(cls.samples))

    # -- shared steps --------------------------------------------------------------------------

    def _read(self, subject: Subject, source: Path | bytes, name: str | None = None
              ) -> list[Any]:
        inp = as_input(source, name)
        try:
            _, result, _ = subject.registry.read(inp, format=subject.id,
                                                 options=self.read_options)
        except BunzaiError as exc:
            fail(f"{subject.id} could not read {inp.filename}: {exc}",
                 "your reader must read every file listed in `samples`; if "
                 "the file is not valid for your format, remove it from "
                 "samples (or list it in malformed_samples).")
        return list(result.entities)

    def _write(self, subject: Subject, entities: Sequence[Any]) -> Any:
        if not subject.info.can_write:
            pytest.skip(f"{subject.id} declares no writer (can_write is false)")
        try:
            return subject.registry.write(list(entities), subject.id, self.write_options)
        except BunzaiError as exc:
            fail(f"{subject.id} could not write what it read: {exc}",
                 "a writer must accept every entity its own reader produces; "
                 "raise ConversionRefused only for entities it truly cannot "
                 "hold, and report partial loss in the WriteResult instead.")


# -- foreign examples written by other adapters ---------------------------------------------------


def _written_example(config: pytest.Config, reg: Registry, case: ForeignCase
                     ) -> tuple[bytes, str]:
    """The generated example of ``case.kind`` as ``case.writer`` writes it, once per session."""
    assert case.kind is not None and case.variant is not None and case.writer is not None
    if case.writer == "vaud-json":
        return vaud_json_bytes(case.kind, case.variant), f"{case.label}.vaud.json"
    cache = config.stash.setdefault(_WRITTEN_KEY, {})
    key = (case.writer, case.kind, case.variant)
    if key not in cache:
        cache[key] = _write_example(reg, case.writer, case.kind, case.variant)
    got = cache[key]
    if isinstance(got, str):
        pytest.skip(got)
    return got


def _write_example(reg: Registry, writer: str, kind: str, variant: str
                   ) -> tuple[bytes, str] | str:
    try:
        out = reg.write(canonical_examples(kind, variant), writer)
    except BunzaiError as exc:
        return f"{writer} cannot write the generated {kind}: {exc}"
    name = f"example{out.files[0].suffix}"
    owner = reg.detect(as_input(out.files[0].data, name))
    if owner.winner is None or owner.winner.format != writer:
        return (f"{writer} does not recognise its own output of the generated {kind} "
                f"({_scores(owner)}); its own conformance checks report that")
    return out.files[0].data, name

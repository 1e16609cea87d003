"""The conformance kit: the checks every bunzai format adapter must pass, as one base class.

A format author subclasses :class:`AdapterConformance` in their own tests, names the format and
points at sample files; the standard checks then run against the *installed* adapter, among every
other installed adapter, exactly as users will meet it::

    # tests/test_conformance.py
    from pathlib import Path

    from bunzai.testing.kit import AdapterConformance

    pytest_plugins = ["bunzai.testing.plugin"]

    class TestMyFormat(AdapterConformance):
        format_id = "my-format"
        samples = sorted((Path(__file__).parent / "samples").glob("*.json"))

Checks are never removed silently: overriding one without ``@waive("reason")`` or
``@pytest.mark.xfail(reason=...)`` fails the guard,
:meth:`AdapterConformance.test_standard_checks_are_not_removed`.
Every failure message ends with a "How to fix" paragraph.  See ``docs/writing-a-format.md``.
"""

from __future__ import annotations

import base64
import contextlib
import fnmatch
import inspect
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import pytest

from ..errors import BunzaiError
from ..host.detection import _normalize_score
from ..host.entrypoints import FORMATS_GROUP
from ..host.registry import Registry
from ..host.types import ReadResult
from ..io.input import as_input
from ..kinds import ANY_KIND, KINDS
from . import conversion_problems, diff_paths, load_registry
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


def reason_pattern_problem(kind: str, pattern: str) -> str | None:
    """Why a ``reasons`` pattern can never match a path of ``kind``'s model, or None.

    A reason pattern matches its path and everything under it, so it must name a path of the
    canonical model: field names, ``[*]`` for list items, any key below a mapping
    (``extensions.x``).  ``""`` is the catch-all.  ``"*"`` (the catch-all of ``carries``, not
    of ``reasons``) or a misspelt field would leave every path it was meant for with the
    generic reason, in silence.
    """
    import re
    import types
    import typing

    from pydantic import BaseModel

    from ..loss.neutral import pattern_of
    from ..model import MODELS

    if not pattern or kind not in MODELS:
        return None
    where, tp = "", typing.cast(Any, MODELS[kind])
    for seg in re.findall(r"[^.\[\]]+|\[[^\]]*\]", pattern_of(pattern)):
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            tp = args[0] if len(args) == 1 else Any
        origin = typing.get_origin(tp)
        if tp is Any or origin is dict:
            return None  # any key below a mapping of JSON values
        if seg == "[*]":
            if origin not in (list, Sequence):
                return f"{where or kind} is not a list"
            tp = typing.get_args(tp)[0]
        elif isinstance(tp, type) and issubclass(tp, BaseModel) and seg in tp.model_fields:
            tp = tp.model_fields[seg].annotation
        else:
            return f"{where or kind} has no field {seg!r}"
        where += seg if seg == "[*]" or not where else f".{seg}"
    return None


def explain(what: str, fix: str) -> str:
    """A failure message: what went wrong, then how to fix it."""
    return what.rstrip() + HOW + fix


# -- per-session state ---------------------------------------------------------------------------

_REGISTRY_KEY = pytest.StashKey[Registry]()
_WRITTEN_KEY = pytest.StashKey[dict[tuple[str, str, str], tuple[bytes, str] | str]]()
_CLASSES_KEY = pytest.StashKey[list[type["AdapterConformance"]]]()


def session_registry(config: pytest.Config) -> Registry:
    """The registry of every installed adapter, loaded once per pytest session."""
    reg = config.stash.get(_REGISTRY_KEY, None)
    if reg is None:
        reg = load_registry()
        config.stash[_REGISTRY_KEY] = reg
    return reg


def _declared_classes(config: pytest.Config) -> list[type[AdapterConformance]]:
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


class AdapterConformance:
    """Subclass as ``Test<YourFormat>`` and set the class attributes below.

    Required: ``format_id`` and ``samples``.  Everything else is optional.
    """

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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        guard = AdapterConformance.__dict__["test_standard_checks_are_not_removed"]
        if cls.__dict__.get("test_standard_checks_are_not_removed", guard) is not guard:
            raise TypeError(f"{cls.__name__} overrides the conformance guard; waive individual "
                            "checks with @waive(reason) instead")

    # -- collection ----------------------------------------------------------------------------

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """Parametrize the checks from the subclass's attributes and the installed adapters."""
        cls = metafunc.cls
        if cls is None or not issubclass(cls, AdapterConformance):
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
            kind = reg.adapters[owner].kind if owner in reg.adapters else None
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
            pytest.fail(explain(
                "the conformance kit's pytest plugin is not enabled",
                "add `pytest_plugins = [\"bunzai.testing.plugin\"]` at the top of your test "
                "module (or the conftest.py at your project's root), or run "
                "`pytest -p bunzai.testing.plugin`."), pytrace=False)
        if not cls.format_id:
            pytest.fail(explain(f"{cls.__name__} does not say which format it tests",
                                "set the class attribute format_id = \"your-format-id\"."),
                        pytrace=False)
        handle = reg.adapters.get(cls.format_id)
        if handle is None:
            broken = [b for b in reg.broken if b.name == cls.format_id]
            if broken:
                pytest.fail(explain(
                    f"{cls.format_id} is installed but bunzai refused to load it: "
                    f"{broken[0].reason}",
                    "fix the reason above; `bunzai plugins` shows the same message."),
                    pytrace=False)
            if cls.skip_if_not_installed:
                pytest.skip(f"{cls.format_id} is not installed yet (no entry point "
                            f"{cls.format_id!r} in group {FORMATS_GROUP!r})")
            pytest.fail(explain(
                f"no installed adapter has the format id {cls.format_id!r} (installed: "
                f"{', '.join(sorted(reg.adapters))})",
                f"declare the entry point in pyproject.toml under "
                f"[project.entry-points.\"{FORMATS_GROUP}\"] as "
                f"`{cls.format_id} = \"your_package.your_adapter:YourAdapter\"`, then "
                "reinstall the distribution (`pip install -e .`)."), pytrace=False)
        return Subject(reg, handle, _paths(cls.samples))

    # -- shared steps --------------------------------------------------------------------------

    def _read(self, subject: Subject, source: Path | bytes, name: str | None = None
              ) -> list[Any]:
        inp = as_input(source, name)
        try:
            _, result, _ = subject.registry.read(inp, format=subject.id,
                                                 options=self.read_options)
        except BunzaiError as exc:
            pytest.fail(explain(f"{subject.id} could not read {inp.filename}: {exc}",
                                "your reader must read every file listed in `samples`; if "
                                "the file is not valid for your format, remove it from "
                                "samples (or list it in malformed_samples)."), pytrace=False)
        return list(result.entities)

    def _write(self, subject: Subject, entities: Sequence[Any]) -> Any:
        if not subject.info.can_write:
            pytest.skip(f"{subject.id} declares no writer (can_write is false)")
        try:
            return subject.registry.write(list(entities), subject.id, self.write_options)
        except BunzaiError as exc:
            pytest.fail(explain(f"{subject.id} could not write what it read: {exc}",
                                "a writer must accept every entity its own reader produces; "
                                "raise ConversionRefused only for entities it truly cannot "
                                "hold, and report partial loss in the WriteResult instead."),
                        pytrace=False)

    # -- the standard checks -------------------------------------------------------------------

    def test_declares_format_and_samples(self) -> None:
        """The subclass names its format and lists sample files that exist.

        Troubleshooting: set ``format_id`` and ``samples`` (paths, read in place).  Keep at least
        one realistic file per variant of your format; the other checks run on each.
        """
        cls = type(self)
        problems = []
        if not cls.format_id:
            problems.append("format_id is empty")
        if not cls.samples:
            problems.append("samples is empty")
        missing = [str(p) for p in _paths([*cls.samples, *cls.malformed_samples])
                   if not p.is_file()]
        if missing:
            problems.append(f"missing sample files: {missing}")
        for check, patterns in cls.sample_waivers.items():
            if check not in STANDARD_CHECKS:
                problems.append(f"sample_waivers names {check!r}, which is not a standard check")
            for pattern, reason in patterns.items():
                if not str(reason).strip():
                    problems.append(f"sample_waivers[{check!r}][{pattern!r}] gives no reason")
                if not any(fnmatch.fnmatch(p.name, pattern) for p in _paths(cls.samples)):
                    problems.append(f"sample_waivers[{check!r}][{pattern!r}] matches no sample")
        assert not problems, explain(
            f"{cls.__name__}: {'; '.join(problems)}",
            "set format_id = \"your-format-id\" and samples = [paths to files of your format]; "
            "paths are usually built from Path(__file__).parent.")

    def test_entry_point_is_named_after_the_format_id(self, bunzai_subject: Subject) -> None:
        """The adapter is registered in ``bunzai.formats`` under its own format id.

        Troubleshooting: in pyproject.toml, ``[project.entry-points."bunzai.formats"]`` must
        hold ``<format_id> = "package.module:AdapterClass"``; reinstall after editing it.
        """
        from importlib.metadata import entry_points

        subject = bunzai_subject
        if subject.distribution_is_core():
            pytest.skip("core's own adapters are default plugins, not entry points")
        eps = [ep for ep in entry_points(group=FORMATS_GROUP) if ep.name == subject.id]
        fix = (f"add `{subject.id} = \"your_package.adapter_folder:AdapterClass\"` under "
               f"[project.entry-points.\"{FORMATS_GROUP}\"] in your pyproject.toml and run "
               "`pip install -e .` again (entry points are read at install time).")
        assert eps, explain(f"no entry point named {subject.id!r} in group "
                            f"{FORMATS_GROUP!r}", fix)
        dists = sorted({(ep.dist.name if ep.dist else "?") for ep in eps})
        assert len(dists) == 1, explain(
            f"several distributions register {subject.id!r}: {dists}",
            "uninstall the stale copy (pip uninstall) so one distribution owns the id.")
        assert subject.handle.record.name == subject.id, explain(
            f"the adapter was loaded as {subject.handle.record.name!r}",
            "name the entry point exactly like the adapter's format_id.")

    def test_declared_info_is_complete(self, bunzai_subject: Subject) -> None:
        """The adapter declares what the roster and the docs are generated from.

        Troubleshooting: set ``kind``, ``label``, ``suffix`` (with its dot), ``detection`` (one
        ``(situation, score)`` row per score your detector can return) and ``losses`` on your
        FormatAdapter subclass; ``bunzai formats`` and ``docs/formats/<id>.md`` show them.
        Each ``reasons`` pattern must name a path of the kind's canonical model (``""`` for
        the general reason), or it would never give its reason.
        """
        info = bunzai_subject.info
        problems = []
        if info.kind not in KINDS:
            problems.append(f"kind {info.kind!r} is not one of {', '.join(KINDS)}")
        if not info.label or info.label == info.id:
            problems.append("label is missing (a human name such as 'NovelAI lorebook')")
        if not info.suffix.startswith("."):
            problems.append(f"suffix {info.suffix!r} must start with a dot")
        if not info.can_read:
            problems.append("the adapter has no reader (implement read())")
        if not info.detection:
            problems.append("detection is empty: document the scores your detector returns")
        for situation, score in info.detection:
            if not isinstance(situation, str) or not situation:
                problems.append(f"detection row {situation!r} has no situation text")
            if isinstance(score, bool) or not isinstance(score, int | float) \
                    or not 0 <= score <= 1:
                problems.append(f"detection row {situation!r} has score {score!r} outside 0..1")
        for row in info.losses:
            if len(row) != 2 or not all(isinstance(x, str) and x for x in row):
                problems.append(f"losses row {row!r} is not (canonical field, what happens)")
        # an adapter that embeds chats also gives the reasons for what a chat loses there
        embeds = "bunzai_embed_chat" in bunzai_subject.handle.record.impls
        kinds = [info.kind, *(["chat"] if embeds else [])]
        for pattern, _ in info.reasons:
            found = [reason_pattern_problem(k, pattern) for k in kinds]
            why = found[0] if all(found) else None
            if why:
                problems.append(f"reasons pattern {pattern!r} can never match: {why} (a pattern "
                                "names a field path, [*] for list items, and matches everything "
                                "under it; \"\" is the catch-all)")
        assert not problems, explain("; ".join(problems),
                                     "fix the class attributes of your FormatAdapter subclass.")

    def test_adapter_module_is_import_light(self, bunzai_subject: Subject) -> None:
        """Importing the adapter and detecting files builds no pydantic model and loads no Pillow.

        Troubleshooting: every installed adapter is imported and asked to detect every file, so
        the module your entry point names may import only light core modules (bunzai.host.adapter,
        bunzai.host.types, bunzai.errors, bunzai.kinds); import ``bunzai.model`` and your read/write
        modules inside read() and write().
        """
        subject = bunzai_subject
        if subject.distribution_is_core():
            pytest.skip("core's own adapters are covered by core's startup tests")
        samples = [str(p) for p in subject.samples[:5]]
        code = textwrap.dedent(f"""
            import json, sys
            from importlib.metadata import entry_points
            def heavy():
                return sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "PIL")
                              or m == "bunzai.model" or m.startswith("bunzai.model."))
            ep = [e for e in entry_points(group={FORMATS_GROUP!r}) if e.name == {subject.id!r}]
            if not ep:
                print(json.dumps({{"missing": True}})); sys.exit(0)
            obj = ep[0].load()
            plugin = obj() if isinstance(obj, type) else obj
            after_import = heavy()
            from bunzai.io.input import as_input
            for path in {samples!r}:
                plugin.bunzai_detect(input=as_input(path))
            print(json.dumps({{"import": after_import, "detect": heavy()}}))
        """)
        env = {k: v for k, v in os.environ.items() if not k.startswith("COV_")}
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=120)
        assert proc.returncode == 0, explain(
            f"importing {subject.id} or detecting its samples failed in a fresh interpreter:\n"
            f"{proc.stderr[-2000:]}",
            "the module your entry point names must import on its own, with no test setup.")
        import json

        got = json.loads(proc.stdout.strip().splitlines()[-1])
        if got.get("missing"):
            pytest.skip(f"{subject.id} has no entry point in a fresh interpreter")
        fix = ("move `import bunzai.model`, pydantic and Pillow imports (and your read/write "
               "modules) inside read()/write(); keep the adapter module and detect() "
               "import-light.")
        assert not got["import"], explain(
            f"importing {subject.id}'s adapter module loaded {got['import'][:6]}", fix)
        assert not got["detect"], explain(
            f"{subject.id}'s detect() loaded {got['detect'][:6]}", fix)

    def test_detect_scores_own_sample(self, bunzai_subject: Subject, sample: Path) -> None:
        """The detector answers a number in 0..1, and at least 0.5 on every own sample.

        Troubleshooting: return ``Detection(score, reason)``; 0.5 is the lowest score that can
        win.  Use the shared views (``input.json``, ``input.png_json(keyword)``, ``input.zip``)
        rather than parsing bytes yourself, and never raise: return 0 for what is not yours.
        """
        subject = bunzai_subject
        try:
            score, reason = _raw_detect(subject.handle, as_input(sample))
        except Exception as exc:
            pytest.fail(explain(f"{subject.id}.detect failed on {sample.name}: "
                                f"{_exc_line(exc)}",
                                "detect() must never raise and must return a number in 0..1 "
                                "(or Detection(score, reason)); return 0 when unsure."),
                        pytrace=False)
        assert score >= 0.5, explain(
            f"{subject.id} scores {score:g} on its own sample {sample.name} ({reason!r})",
            "recognise this variant of your format with a score of 0.5 or more; if the file "
            "is not really your format, remove it from samples.")

    def test_own_sample_score_is_documented(self, bunzai_subject: Subject, sample: Path
                                            ) -> None:
        """Every score the detector gives an own sample appears in its ``detection`` table.

        Troubleshooting: the table feeds ``docs/formats/<id>.md`` and the roster; add a row
        ``("<the situation>", <score>)`` for this case, or return a documented score.
        """
        subject = bunzai_subject
        score, reason = _raw_detect(subject.handle, as_input(sample))
        documented = [s for _, s in subject.info.detection]
        assert any(abs(score - s) < 1e-9 for s in documented), explain(
            f"{subject.id} scores {score:g} on {sample.name} ({reason!r}) but documents only "
            f"{sorted(set(documented))}",
            "add a (situation, score) row for it to the adapter's `detection` attribute.")

    def test_own_sample_routes_here(self, bunzai_subject: Subject, sample: Path) -> None:
        """Among all installed adapters, detection picks this adapter for each own sample.

        Troubleshooting: when another adapter wins, your score is too low for this variant or
        theirs too high; when it is a tie, spread the scores (specific outranks generic: see
        ``docs/detection.md``).  Never pick a score another adapter already uses on this shape.
        """
        subject = bunzai_subject
        report = subject.registry.detect(as_input(sample))
        if report.winner is not None and report.winner.format == subject.id:
            return
        if report.tied:
            what = f"{sample.name} is ambiguous: {', '.join(report.tied)} tie"
        elif report.winner is not None:
            what = f"{sample.name} routes to {report.winner.format}, not {subject.id}"
        else:
            what = f"nothing recognises {sample.name}"
        pytest.fail(explain(f"{what} (scores: {_scores(report)})",
                            "make your score on this shape distinct and higher than every other "
                            "installed adapter's; if the other adapter steals it, tell its "
                            "authors which key marks your format."), pytrace=False)

    def test_foreign_input_is_not_claimed(self, bunzai_subject: Subject,
                                          foreign: ForeignCase,
                                          request: pytest.FixtureRequest) -> None:
        """Files that are not this format's are never won by it (the firewall, for your detector).

        Covers the files in ``foreign_samples`` (grouped by owner when there are many),
        canonical examples of every kind written by core's ``vaud-json``, and the same examples
        written by every other installed adapter.

        Troubleshooting: answer 0 on other kinds' files and stay below the owner's score on
        same-kind files; look for the key that makes your format yours, not one it shares.
        """
        subject = bunzai_subject
        if foreign.paths:
            items = [(p.read_bytes(), p.name, f"{foreign.label} {p.name}" if len(foreign.paths)
                      > 1 else foreign.label) for p in foreign.paths]
        else:
            data, name = _written_example(request.config, subject.registry, foreign)
            items = [(data, name, foreign.label)]
        problems = [p for data, name, label in items
                    if (p := self._claim(subject, foreign, data, name, label)) is not None]
        assert not problems, explain(
            "\n".join(problems[:10]),
            "find the key or shape that makes a file yours and require it; answer 0 on other "
            "kinds and stay below the owner on shared shapes.  If two formats truly share a "
            "file shape, say so in may_win = {\"other-format\": \"why\"}.")

    def _claim(self, subject: Subject, case: ForeignCase, data: bytes, name: str,
               label: str) -> str | None:
        """Why this adapter wrongly claims one foreign input, or None."""
        inp = as_input(data, name)
        try:
            score, reason = _raw_detect(subject.handle, inp)
        except Exception as exc:
            return f"{subject.id}.detect failed on {label}: {_exc_line(exc)}"
        report = subject.registry.detect(inp)
        if subject.info.kind in KINDS and case.kind not in (None, subject.info.kind) \
                and score >= 0.5:
            return (f"{subject.id} ({subject.info.kind}) scores {score:g} ({reason!r}) on "
                    f"{label}, a {case.kind} file: it would steal it whenever the owner is not "
                    f"installed (scores: {_scores(report)})")
        if subject.id in report.tied:
            return f"{subject.id} ties with {report.tied} on {label} ({_scores(report)})"
        if report.winner is not None and report.winner.format == subject.id \
                and case.owner not in self.may_win:
            return (f"{subject.id} wins {label}, which belongs to "
                    f"{case.owner or 'another format or none'} (scores: {_scores(report)})")
        return None

    def test_other_conformance_samples_are_not_claimed(self, bunzai_subject: Subject,
                                                       request: pytest.FixtureRequest) -> None:
        """Samples declared by every other conformance class in this test session are not won.

        Running several distributions' conformance tests together (as bunzai's own repository
        does) turns every declared sample into a foreign sample for every other adapter.

        Troubleshooting: see test_foreign_input_is_not_claimed; the message names the class
        that declared the file.
        """
        subject = bunzai_subject
        own = {p.resolve() for p in subject.samples}
        problems = []
        judged = 0
        for other in _declared_classes(request.config):
            if other.format_id in (subject.id, "") or other.format_id not in \
                    subject.registry.adapters:
                continue
            for path in _paths(other.samples):
                if path.resolve() in own or not path.is_file():
                    continue
                judged += 1
                report = subject.registry.detect(as_input(path))
                if subject.id in report.tied or (report.winner is not None
                                                 and report.winner.format == subject.id
                                                 and other.format_id not in self.may_win):
                    problems.append(f"{path.name} (declared by {other.__name__} for "
                                    f"{other.format_id}; scores: {_scores(report)})")
        if not judged:
            pytest.skip("no other conformance class with an installed adapter in this session")
        assert not problems, explain(
            f"{subject.id} wins files other adapters declare as theirs:\n  "
            + "\n  ".join(problems[:10]),
            "require the key that makes a file yours; see docs/detection.md.")

    def test_written_files_route_back(self, bunzai_subject: Subject, sample: Path) -> None:
        """What the writer produces is detected as this format again.

        Troubleshooting: a file bunzai writes but cannot recognise makes users pass ``--from``;
        write the marker your detector looks for, or widen the detector to your own output.
        """
        subject = bunzai_subject
        result = self._write(subject, self._read(subject, sample))
        for f in result.files:
            report = subject.registry.detect(as_input(f.data, f"written{f.suffix}"))
            got = report.winner.format if report.winner else None
            assert got == subject.id, explain(
                f"{subject.id} wrote {f.name or 'a file'} ({f.suffix}) from {sample.name} that "
                f"routes to {got or 'nothing'} (scores: {_scores(report)})",
                "make the writer emit what the detector requires (or relax the detector to "
                "accept your own output).")

    def test_same_format_round_trip_is_lossless(self, bunzai_subject: Subject,
                                                sample: Path) -> None:
        """Reading an own sample, writing it as this format and reading it back changes nothing.

        Troubleshooting: put whatever your reader sees but the canonical model does not name
        (unknown keys, absent keys, original types, key order) in
        ``entity.passthrough[format_id]`` and restore it in the writer; report nothing as lost.
        """
        subject = bunzai_subject
        before = self._read(subject, sample)
        result = self._write(subject, before)
        fix = ("keep what the reader saw but the model does not name in "
               "entity.passthrough[format_id] (and entry.passthrough) and restore it in the "
               "writer; a same-format round trip reports no loss.")
        assert not result.loss, explain(
            f"{subject.id} reports loss writing its own {sample.name}: "
            f"{[str(e) for e in result.loss][:8]}", fix)
        after: list[Any] = []
        for f in result.files:
            after.extend(self._read(subject, f.data, f"roundtrip{f.suffix}"))
        assert len(after) == len(before), explain(
            f"{sample.name}: read {len(before)} entities, wrote and read back {len(after)}", fix)
        from ..loss.rule import changes

        diffs: list[str] = []
        for i, (a, b) in enumerate(zip(before, after, strict=True)):
            prefix = f"[{i}]." if len(before) > 1 else ""
            # user data and app data; layout may change where the writer completed a spec
            diffs += [prefix + p for p in changes(a, b, subject.registry.neutrality)]
        assert not diffs, explain(
            f"{sample.name} changed in a same-format round trip at {diffs[:12]}", fix)

    def test_same_format_round_trip_keeps_the_file(self, bunzai_subject: Subject,
                                                   sample: Path) -> None:
        """The rewritten file is the original byte for byte, unless the writer added keys the
        file lacked (``completed_keys``); then JSON equal but for those (key order aside), PNG
        chunks other than text byte-identical, zip members identical.

        Troubleshooting: restore absent keys, original number types and root extras from
        passthrough; never re-encode images or assets, splice new text chunks into the original
        PNG (``bunzai.io.containers.png.splice``) and copy zip members as they were.
        """
        subject = bunzai_subject
        original = as_input(sample)
        result = self._write(subject, self._read(subject, sample))
        if len(result.files) != 1:
            pytest.skip(f"the writer produced {len(result.files)} files from one sample")
        written = as_input(result.files[0].data, f"roundtrip{result.files[0].suffix}")
        problems = rewrite_problems(original, written, tuple(type(self).completed_keys))
        assert not problems, explain(
            f"rewriting {sample.name} as {subject.id} changed the file: {problems[:10]}",
            "keep the source's shape in passthrough[format_id] and rebuild exactly that shape; "
            "splice PNG text chunks and pass the entities to write_zip(like=...) instead of "
            "re-encoding them.")

    def test_passthrough_is_layout_only(self, bunzai_subject: Subject, sample: Path) -> None:
        """An own sample with its layout (every ``passthrough``) thrown away still writes and
        reads back with all its user data: passthrough holds how the file looked, never what
        it said.

        Troubleshooting: unknown keys and app-specific values are user data: keep them in
        ``app_data[format_id]`` (``bunzai.sdk.fields`` puts a table's unknown keys there), so
        another format that cannot hold them reports each by path.  Keep only key order,
        absent keys, original types and container layout in ``passthrough[format_id]``.
        """
        from ..loss.rule import changes, without_layout

        subject = bunzai_subject
        before = self._read(subject, sample)
        bare = [without_layout(e) for e in before]
        result = self._write(subject, bare)
        after: list[Any] = []
        for f in result.files:
            after.extend(self._read(subject, f.data, f"bare{f.suffix}"))
        assert len(after) == len(before), explain(
            f"{sample.name}: read {len(before)} entities, wrote them without layout and read "
            f"back {len(after)}", "the writer must not depend on passthrough to write an entity.")
        lost: list[str] = []
        for i, (a, b) in enumerate(zip(before, after, strict=True)):
            prefix = f"[{i}]." if len(before) > 1 else ""
            lost += [prefix + p for p in changes(a, b, subject.registry.neutrality)]
        reported = [str(e) for e in result.loss if e.action != "stashed"]
        assert not lost and not reported, explain(
            f"{sample.name} written without its passthrough lost {lost[:12]} "
            f"(reported: {reported[:6]})",
            "move user data out of passthrough[format_id] into app_data[format_id]; "
            "passthrough is for layout only.")

    def test_loss_report_is_honest_into_vaud_json(self, bunzai_subject: Subject,
                                                  sample: Path) -> None:
        """An own sample converted to bunzai's native JSON and back loses nothing at all.

        Troubleshooting: vaud-json carries every canonical field and all passthrough; a
        difference here means the entity does not survive JSON serialization (bytes outside
        ``Asset.data``, non-JSON values in passthrough or extensions, NaN floats).
        """
        subject = bunzai_subject
        before = self._read(subject, sample)
        problems = conversion_problems(subject.registry, before, "vaud-json")
        out = subject.registry.write(before, "vaud-json")
        back = []
        for f in out.files:
            _, res, _ = subject.registry.read(as_input(f.data, "x.vaud.json"),
                                              format="vaud-json")
            back.extend(res.entities)
        for a, b in zip(before, back, strict=False):
            problems += [f"passthrough: {p}" for p in diff_paths(a.passthrough, b.passthrough)]
        assert not problems and not out.loss, explain(
            f"{sample.name} -> vaud-json -> back changed: {problems[:10]} "
            f"{[str(e) for e in out.loss][:5]}",
            "store only JSON values (str, int, float, bool, None, lists, dicts) in passthrough "
            "and extensions; binary data belongs in Asset.data.")

    def test_loss_report_is_honest_from_vaud_json(self, bunzai_subject: Subject,
                                                  example: tuple[str, Any]) -> None:
        """A canonical entity written in this format and read back differs only where the loss
        report says so (and other formats' passthrough never leaks into the file).

        Troubleshooting: for every canonical field your format cannot hold, call
        ``loss.dropped("entries[3].sticky", "why")`` (or ``approximated``) in the writer; paths
        are canonical field paths and an ancestor covers its children.
        """
        subject = bunzai_subject
        kind, which = example
        if kind == "declared":
            entities = [type(self).canonical_samples[which]]
        else:
            data = vaud_json_bytes(kind, which)
            _, res, _ = subject.registry.read(as_input(data, "example.vaud.json"))
            entities = list(res.entities)
        if not subject.info.can_write:
            pytest.skip(f"{subject.id} declares no writer (can_write is false)")
        if not subject.info.multi and len(entities) > 1:
            entities = entities[:1]
        try:
            problems = conversion_problems(subject.registry, entities, subject.id,
                                           dict(self.write_options))
        except BunzaiError as exc:
            pytest.fail(explain(f"writing the generated {kind} ({which}) as {subject.id} "
                                f"failed: {exc}",
                                "a writer must accept any canonical entity of its kind and "
                                "report what it cannot hold in the loss report."),
                        pytrace=False)
        assert not problems, explain(
            f"converting the generated {kind} ({which}) into {subject.id} changed fields the "
            "loss report does not mention:\n  " + "\n  ".join(problems[:15]),
            "report each field your format cannot carry with loss.dropped(path, why) or "
            "loss.approximated(path, why), using canonical paths such as entries[0].sticky.")

    def test_truncated_input_raises_bunzai_errors_only(self, bunzai_subject: Subject,
                                                       probe: Path, cut: str) -> None:
        """A cut-off copy of an own sample is refused with a BunzaiError (or read tolerantly),
        never with a KeyError, TypeError, struct.error or similar.

        Troubleshooting: raise ``bunzai.errors.MalformedInput("what is wrong")`` where the
        reader finds missing or broken data; the CLI then prints one clean line (exit 4).
        """
        subject = bunzai_subject
        data = probe.read_bytes()
        n = {"0": 0, "1": 1, "25%": len(data) // 4, "50%": len(data) // 2,
             "75%": len(data) * 3 // 4, "-1": len(data) - 1}[cut]
        failure = _probe(subject, data[:max(n, 0)], probe.name, self.read_options)
        assert failure is None, explain(
            f"{probe.name} cut to {n} of {len(data)} bytes: {failure}",
            "check what you index and unpack; raise MalformedInput with a one-line reason "
            "instead of letting the exception escape.")

    def test_wrong_json_types_raise_bunzai_errors_only(self, bunzai_subject: Subject,
                                                       probe: Path) -> None:
        """Own samples with JSON values swapped for the wrong type (null, number, string, list,
        object) are refused with a BunzaiError or read tolerantly; detection never raises.

        Applies to JSON files and to JSON stored in PNG text chunks.

        Troubleshooting: check types before use (``isinstance(x, str)``; for the read-only
        views use ``Mapping``/``Sequence``) and raise
        ``MalformedInput("$.data.name: expected a string, got a number")`` or keep the value
        with a warning.
        """
        subject = bunzai_subject
        data = probe.read_bytes()
        budget = self.type_mutations if len(data) <= 256 * 1024 else 12
        variants = list(_type_mutations(as_input(probe), budget))
        if not variants:
            pytest.skip(f"{probe.name} holds no JSON this check can mutate (zip members and "
                        "binary formats: list broken files in malformed_samples)")
        failures = []
        for label, mutated in variants:
            failure = _probe(subject, mutated, probe.name, self.read_options)
            if failure is not None:
                failures.append(f"{label}: {failure}")
        assert not failures, explain(
            f"{len(failures)} of {len(variants)} wrong-type variants of {probe.name} "
            "escaped as non-bunzai errors:\n  " + "\n  ".join(failures[:10]),
            "check JSON types where you read them and raise MalformedInput (naming the JSON "
            "path) or read tolerantly with a warning.")

    def test_malformed_samples_are_refused(self, bunzai_subject: Subject,
                                           malformed: Path | None) -> None:
        """Each file in ``malformed_samples`` is refused with a BunzaiError when read as this
        format, and detection does not crash on it.

        Troubleshooting: reading a broken file must raise ``MalformedInput`` (or a subclass)
        with a message that names the problem; never return a half-empty entity silently.
        """
        if malformed is None:
            pytest.skip("no malformed_samples declared (optional: list broken files of your "
                        "format to pin down their error messages)")
        subject = bunzai_subject
        inp = as_input(malformed)
        try:
            _raw_detect(subject.handle, inp)
        except Exception as exc:
            pytest.fail(explain(f"detect failed on {malformed.name}: {_exc_line(exc)}",
                                "detect() must never raise."), pytrace=False)
        try:
            _raw_read(subject.handle, inp, self.read_options)
        except BunzaiError:
            return
        except Exception as exc:
            pytest.fail(explain(f"reading {malformed.name} raised {_exc_line(exc)}",
                                "raise MalformedInput with a one-line reason."), pytrace=False)
        pytest.fail(explain(f"{subject.id} read the malformed sample {malformed.name} without "
                            "complaint",
                            "raise MalformedInput for it, or move it to samples if it is "
                            "actually valid."), pytrace=False)

    # -- the guard -----------------------------------------------------------------------------

    def test_standard_checks_are_not_removed(self) -> None:
        """No standard check was deleted, disabled, or overridden without a stated reason.

        Troubleshooting: to skip a check that does not apply, override it with ``@waive("why")``
        (``from bunzai.testing.kit import waive``); for a known failure you will fix, mark the
        override ``@pytest.mark.xfail(reason="why")`` and call ``super()``.  Add your own checks
        as new methods instead of replacing standard ones.
        """
        cls = type(self)
        problems = []
        for name in STANDARD_CHECKS:
            base = AdapterConformance.__dict__[name]
            current = inspect.getattr_static(cls, name, None)
            if current is base:
                continue
            if not callable(current):
                problems.append(f"{name} was removed (set to {current!r})")
                continue
            reason = getattr(current, WAIVER_ATTR, None)
            marks = getattr(current, "pytestmark", [])
            xfail = any(m.name == "xfail" and (m.kwargs.get("reason") or "").strip()
                        for m in marks)
            if not (reason or xfail):
                problems.append(f"{name} is overridden without @waive(reason) or "
                                "@pytest.mark.xfail(reason=...)")
        assert not problems, explain(
            f"{cls.__name__} silently changes standard checks:\n  " + "\n  ".join(problems),
            "restore the inherited method, or decorate the override with @waive(\"why it does "
            "not apply\") or @pytest.mark.xfail(reason=\"why it fails for now\").")


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


# -- probing malformed input ---------------------------------------------------------------------


def _probe(subject: Subject, data: bytes, name: str, options: Mapping[str, Any]) -> str | None:
    """Detect and read ``data`` as the subject; describe any non-bunzai exception, else None."""
    try:
        inp = as_input(data, name)
    except BunzaiError:
        return None
    try:
        _raw_detect(subject.handle, inp)
    except Exception as exc:
        return f"detect raised {_exc_line(exc)}"
    try:
        result = _raw_read(subject.handle, inp, options)
    except BunzaiError:
        return None
    except Exception as exc:
        return f"read raised {_exc_line(exc)}"
    entities = list(result.entities)
    kinds = {getattr(e, "kind", None) for e in entities}
    if subject.handle.kind != ANY_KIND and kinds - {subject.handle.kind}:
        return f"read returned {sorted(map(str, kinds))} instead of {subject.handle.kind}"
    if entities and subject.info.can_write:
        try:
            subject.registry.write(entities, subject.id)
        except BunzaiError:
            pass
        except Exception as exc:
            return f"read tolerantly, but writing the result raised {_exc_line(exc)}"
    return None


_WRONG: dict[type, tuple[Any, ...]] = {
    str: (None, 7, [], {}),
    bool: ("true", None, {}),
    int: ("12", None, [], True),
    float: ("0.5", None, {}),
    list: (None, "a, b", {}, 3),
    dict: (None, "text", [], 3),
    type(None): ("text", 5, [], {}),
}


def _json_paths(doc: Any, limit: int) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, value) pairs breadth-first, first and last element of each list, to ``limit``."""
    out: list[tuple[tuple[Any, ...], Any]] = []
    queue: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    while queue and len(out) < limit:
        path, value = queue.pop(0)
        if path:
            out.append((path, value))
        if len(path) >= 5:
            continue
        if isinstance(value, dict):
            queue.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list) and value:
            idx = sorted({0, len(value) - 1})
            queue.extend(((*path, i), value[i]) for i in idx)
    return out


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    import copy

    root = copy.deepcopy(doc)
    if not path:
        return value
    node = root
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return root


def _json_path_text(path: tuple[Any, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _mutations_of(doc: Any, budget: int) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [("$ -> []", []), ("$ -> \"text\"", "text"), ("$ -> 3", 3)]
    if isinstance(doc, list):
        out[0] = ("$ -> {}", {})
    for path, value in _json_paths(doc, max(budget, 1)):
        for repl in _WRONG.get(type(value), ()):
            if len(out) >= budget:
                return out
            out.append((f"{_json_path_text(path)} -> {repl!r}", _replace(doc, path, repl)))
    return out


def _jsonl_mutations(inp: AdapterInput, budget: int) -> Iterable[tuple[str, bytes]]:
    """JSON Lines copies with one value of one line (the first two and the last) mistyped."""
    from ..io.jsonio import dumps, loads

    lines = list(inp.lines())
    numbered = [i for i, line in enumerate(lines) if line.strip()]
    picked = sorted({*numbered[:2], *numbered[-1:]})
    for i in picked:
        ending = lines[i][len(lines[i].rstrip(b"\r\n")):]
        try:
            doc = loads(lines[i].rstrip(b"\r\n"))
        except BunzaiError:
            continue
        for label, mutated in _mutations_of(doc, max(budget // max(len(picked), 1), 4)):
            copy = list(lines)
            copy[i] = dumps(mutated) + ending
            yield f"line {i + 1}: {label}", b"".join(copy)


def _type_mutations(inp: AdapterInput, budget: int) -> Iterable[tuple[str, bytes]]:
    """Copies of the input with one JSON value of the wrong type, in JSON or PNG text chunks."""
    from ..io.frozen import thaw
    from ..io.jsonio import dumps

    if inp.container == "json" and inp.json is not None:
        for label, doc in _mutations_of(thaw(inp.json), budget):
            yield label, dumps(doc)
        return
    if inp.container == "jsonl":
        yield from _jsonl_mutations(inp, budget)
        return
    png = inp.png
    if png is None:
        return
    from ..io.containers.png import make_text_chunk, splice

    payloads = []
    for tc in png.text_chunks():
        for payload in inp.png_json(tc.keyword):
            if payload.chunk.chunk.offset == tc.chunk.offset and payload.value is not None:
                payloads.append(payload)
    for payload in payloads:
        tc = payload.chunk
        for label, doc in _mutations_of(payload.mutable(), max(budget // len(payloads), 4)):
            body = dumps(doc)
            text = base64.b64encode(body) if payload.encoding == "base64" else body
            chunk = make_text_chunk(tc.keyword, text, kind=tc.kind)
            offset = tc.chunk.offset
            yield (f"{tc.keyword} chunk {label}",
                   splice(png, remove=lambda c, o=offset: c.offset == o,  # type: ignore[misc]
                          insert_before_iend=[chunk]))


# -- comparing files -----------------------------------------------------------------------------


def _json_differences(a: Any, b: Any, completed: tuple[str, ...]) -> list[str]:
    """Paths where two JSON documents differ, leaving out keys the writer may add (a spec's
    required keys the source lacked): only where the original has no such key."""
    from ..loss.neutral import pattern_of

    out = []
    for path in diff_paths(a, b):
        if completed and pattern_of(path) in completed and _absent_in(a, path):
            continue
        out.append(path)
    return out


def _absent_in(doc: Any, path: str) -> bool:
    import re

    parts = re.findall(r"([^.\[\]]+)|\[(\d+)\]", path)
    cur = doc
    for i, (name, index) in enumerate(parts):
        last = i == len(parts) - 1
        if index:
            if not isinstance(cur, list) or int(index) >= len(cur):
                return False
            cur = cur[int(index)]
        else:
            if not isinstance(cur, dict):
                return False
            if name not in cur:
                return last
            cur = cur[name]
    return False


def rewrite_problems(original: AdapterInput, written: AdapterInput,
                     completed: Sequence[str] = ()) -> list[str]:
    """Where a same-format rewrite differs from the file it was read from, beyond keys the
    writer may add where the file lacked them (``completed`` JSON paths, the spec's required
    keys).  A rewrite that adds none must be the file byte for byte: core gives back the text
    of an unchanged JSON document and the bytes of an unchanged zip archive, whatever tool
    laid them out (:mod:`bunzai.io.asread`)."""
    if original.data == written.data:
        return []
    problems = _file_differences(original, written, tuple(completed))
    if problems:
        return problems
    if completed and _file_differences(original, written, ()):
        return []  # keys were completed: the text cannot be the file's
    return [f"the same content in other bytes ({original.size:,} -> {written.size:,}): the "
            "file's layout was not kept"]


def _file_differences(original: AdapterInput, written: AdapterInput,
                      completed: tuple[str, ...] = ()) -> list[str]:
    from ..io.frozen import thaw

    if original.container != written.container:
        return [f"container changed from {original.container} to {written.container}"]
    if original.container == "json":
        if original.json is None or written.json is None:
            return ["the JSON could not be parsed"]
        return [f"JSON differs at {p}" for p in _json_differences(
            thaw(original.json), thaw(written.json), completed)]
    if original.container in ("png", "apng"):
        return _png_differences(original, written, completed)
    if original.container in ("zip", "jpeg+zip"):
        return _zip_differences(original, written, completed)
    if original.container in ("jsonl", "text"):
        return _line_differences(original, written)
    pytest.skip(f"no file-level comparison for {original.container} files; the entity-level "
                "round trip covers them")


def _line_differences(original: AdapterInput, written: AdapterInput) -> list[str]:
    """JSON Lines and text are compared byte for byte: a same-format rewrite is the file."""
    a, b = list(original.lines()), list(written.lines())
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return [f"line {i + 1} differs: {x[:80]!r} -> {y[:80]!r}"]
    if len(a) != len(b):
        return [f"{len(a)} lines became {len(b)}"]
    return []


def _png_differences(original: AdapterInput, written: AdapterInput,
                     completed: tuple[str, ...] = ()) -> list[str]:
    from ..io.containers.png import TEXT_CHUNK_TYPES
    from ..io.frozen import thaw

    a, b = original.png, written.png
    if a is None or b is None:
        return ["the PNG could not be parsed"]

    def binary(png: Any) -> list[bytes]:
        return [bytes(c.raw) for c in png.chunks if c.type not in TEXT_CHUNK_TYPES]

    problems = []
    if binary(a) != binary(b):
        problems.append("non-text chunks (image data, metadata) are not byte-identical: "
                        f"{[c.type for c in a.chunks]} -> {[c.type for c in b.chunks]}")
    keys_a = sorted(t.keyword for t in a.text_chunks())
    keys_b = sorted(t.keyword for t in b.text_chunks())
    if keys_a != keys_b:
        problems.append(f"text chunks changed from {keys_a} to {keys_b}")
        return problems
    for key in sorted(set(keys_a)):
        va = [p.value for p in original.png_json(key)]
        vb = [p.value for p in written.png_json(key)]
        if any(v is None for v in va + vb):
            ta = [t.value_bytes() for t in a.find_text(key)]
            tb = [t.value_bytes() for t in b.find_text(key)]
            if ta != tb:
                problems.append(f"text chunk {key!r} changed")
            continue
        for x, y in zip(va, vb, strict=False):
            problems += [f"chunk {key!r} JSON differs at {p}"
                         for p in _json_differences(thaw(x), thaw(y), completed)]
    return problems


def _zip_differences(original: AdapterInput, written: AdapterInput,
                     completed: tuple[str, ...] = ()) -> list[str]:
    from ..io.jsonio import loads

    a, b = original.zip, written.zip
    if a is None or b is None:
        return ["the zip could not be opened"]
    if sorted(a.names()) != sorted(b.names()):
        return [f"members changed: {sorted(set(a.names()) ^ set(b.names()))}"]
    problems = []
    for name in a.names():
        if name.endswith("/"):
            continue
        x, y = a.read(name), b.read(name)
        if x == y:
            continue
        if name.lower().endswith(".json"):
            try:
                problems += [f"{name}: JSON differs at {p}"
                             for p in _json_differences(loads(x), loads(y), completed)]
            except BunzaiError:
                problems.append(f"{name}: differs")
        else:
            problems.append(f"{name}: bytes differ ({len(x)} -> {len(y)})")
    return problems


__all__ = ["CUTS", "STANDARD_CHECKS", "AdapterConformance", "ForeignCase", "Subject", "explain",
           "rewrite_problems", "session_registry", "waive"]

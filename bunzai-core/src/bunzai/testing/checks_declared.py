"""The checks of what an adapter declares: its format id, samples, info and import cost."""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

from ..host.entrypoints import FORMATS_GROUP
from ..kinds import KINDS

if TYPE_CHECKING:
    pass
from .base import (
    STANDARD_CHECKS,
    KitBase,
    Subject,
    _paths,
    explain,
    fail,
)


class DeclarationChecks(KitBase):
    """The checks of what an adapter declares: its format id, samples, info and import cost."""

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

    def test_named_functions_exist_and_take_their_arguments(self, bunzai_subject: Subject
                                                            ) -> None:
        """Every reader, writer, validator and labeler the adapter names as a string exists
        and accepts the arguments bunzai passes it.

        Troubleshooting: ``reader = "read:read_book"`` names ``read_book`` in the ``read``
        module beside your adapter; it is called as ``read_book(input, options, format_id)``,
        a writer as ``(entity, options, format_id)`` (``(entities, ...)`` with ``multi``), a
        validator as ``(input, entities, format_id)`` and a labeler with no arguments.
        """
        import inspect as inspect_

        from ..host.adapter import FormatAdapter

        adapter = bunzai_subject.handle.record.plugin
        if not isinstance(adapter, FormatAdapter):
            pytest.skip("the adapter implements the hooks itself: nothing is named")
        takes = {"reader": 3, "writer": 3, "validator": 3, "labeler": 0}
        problems = []
        try:
            named = type(adapter).named_functions()
        except (ImportError, AttributeError) as exc:
            fail(f"a function {bunzai_subject.id} names cannot be found: {exc}",
                 "check the module and function names in reader, writer, "
                 "validator and labeler (module paths are relative to the "
                 "adapter's package).")
        for role, (spec, function) in named.items():
            if not callable(function):
                problems.append(f"{role} {spec!r} is not a function")
                continue
            try:
                inspect_.signature(function).bind(*([None] * takes[role]))
            except TypeError as exc:
                problems.append(f"{role} {spec!r} does not take {takes[role]} arguments: {exc}")
            except ValueError:  # a builtin without a signature: nothing to check
                continue
        assert not problems, explain("; ".join(problems),
                                     "give each named function the arguments its role passes "
                                     "(see the docstring of this check).")


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

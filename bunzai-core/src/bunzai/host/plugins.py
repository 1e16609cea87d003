"""The plugin host: entry points in, a registry of healthy adapters out.

Loading never lets one plugin take the rest down.  An import error, a hook that fails pluggy's
validation, an unknown hook name, an unsupported API version, a format id that does not match its
entry-point name, or a duplicate format id puts that plugin on the ``broken`` list with the
reason; everything else still loads.

Kill switches (as pytest and llm have them):

* ``BUNZAI_DISABLE_PLUGIN_AUTOLOAD=1`` loads no entry points (core's default plugins still load);
* ``BUNZAI_LOAD_PLUGINS=a,b`` loads only the entry points of the named distributions
  (an empty value loads none).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import import_module
from types import FunctionType, GetSetDescriptorType, MemberDescriptorType, MethodType
from typing import Any

import pluggy

from . import hookspecs
from .hookspecs import FORMAT_HOOKS, PROJECT
from .types import SUPPORTED_API_VERSIONS, FormatInfo

FORMATS_GROUP = "bunzai.formats"
PLUGINS_GROUP = "bunzai.plugins"

DEFAULT_PLUGINS: tuple[tuple[str, str], ...] = (
    ("vaud-json", "bunzai.native:VaudJsonAdapter"),
)
"""Core's own adapters, registered exactly like entry points: (format id, object path)."""

CORE_DISTRIBUTION = "bunzai-core"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class PluginRecord:
    """A loaded plugin and where it came from."""

    name: str
    group: str
    distribution: str
    version: str | None
    plugin: Any
    info: FormatInfo | None = None
    hooks: list[str] = field(default_factory=list)


@dataclass
class BrokenPlugin:
    """A plugin that was refused, and why."""

    name: str
    group: str
    distribution: str
    version: str | None
    reason: str
    api_version: int | None = None
    """Set when the plugin was refused for the adapter API version it was built for."""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "group": self.group, "distribution": self.distribution,
                "version": self.version, "reason": self.reason,
                "api_version": self.api_version}


@dataclass
class _Candidate:
    name: str
    group: str
    distribution: str
    version: str | None
    load: Any  # callable returning the plugin object


def _resolve(path: str) -> Any:
    module, _, attr = path.partition(":")
    obj: Any = import_module(module)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj


def _instantiate(obj: Any) -> Any:
    """Entry points may name a module, a class (instantiated here) or an instance."""
    if isinstance(obj, type):
        return obj()
    return obj


def _entry_point_candidates(allow: set[str] | None) -> list[_Candidate]:
    from importlib.metadata import distributions

    found: list[_Candidate] = []
    for dist in distributions():
        eps = [ep for ep in dist.entry_points if ep.group in (FORMATS_GROUP, PLUGINS_GROUP)]
        if not eps:
            continue
        dist_name = dist.metadata["Name"] or "unknown"
        if allow is not None and _norm(dist_name) not in allow:
            continue
        for ep in eps:
            found.append(_Candidate(ep.name, ep.group, dist_name, dist.version, ep.load))
    # Deterministic whatever the order of sys.path: sort by distribution then name.
    found.sort(key=lambda c: (_norm(c.distribution), c.group, c.name))
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for c in found:  # the same dist can be visible twice (editable + site); keep one
        key = (_norm(c.distribution), c.group, c.name)
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return unique


_MISSING = object()


class _Manager(pluggy.PluginManager):
    """pluggy's manager with a cheap first look at each attribute of a plugin instance.

    ``register`` asks :meth:`parse_hookimpl_opts` about every name in ``dir(plugin)``, and pluggy
    answers each with ``inspect.getattr_static``: about 75 names per adapter (``object``'s
    dunders, class constants, helper methods), for every adapter on every start.  For an
    instance of an ordinary class the class-level value settles most names without that lookup:
    anything but a function, classmethod, staticmethod, bound method or slot is no hook, and a
    function gets the answer pluggy gave for it the first time.  The rest, instance attributes,
    and instances of unusual classes go to pluggy's own lookup, so which functions are hooks is
    decided by pluggy alone.
    """

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self._class_attrs: dict[type, dict[str, Any] | None] = {}
        self._answers: dict[FunctionType, Any] = {}

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        cls = type(plugin)
        if cls not in self._class_attrs:
            self._class_attrs[cls] = _class_namespace(cls)
        attrs = self._class_attrs[cls]
        if attrs is not None and name not in _instance_dict(plugin):
            value = attrs.get(name, _MISSING)
            if value is _MISSING:
                return None
            if type(value) is FunctionType:
                # pluggy's answer for a plain function depends on the function alone, and most
                # adapters inherit their hooks and helpers from one base class: ask once each
                if value not in self._answers:
                    self._answers[value] = super().parse_hookimpl_opts(plugin, name)
                return self._answers[value]
            if not isinstance(value, _HOOKABLE):
                return None
        return super().parse_hookimpl_opts(plugin, name)


def _class_namespace(cls: type) -> dict[str, Any] | None:
    """Every attribute the class and its bases define, as ``getattr_static`` finds it; None for
    classes that static lookup treats specially (a metaclass, a shadowed ``__dict__``), which
    keep pluggy's own lookup."""
    if type(cls) is not type or issubclass(cls, type):
        return None
    attrs: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        own = klass.__dict__.get("__dict__")
        if own is not None and not (type(own) is GetSetDescriptorType
                                    and own.__objclass__ is klass):
            return None
        attrs.update(klass.__dict__)
    return attrs


_HOOKABLE = (FunctionType, classmethod, staticmethod, MethodType, MemberDescriptorType)
"""What pluggy can take a hook from (a slot is read to see what it holds)."""


def _instance_dict(obj: object) -> dict[str, Any]:
    try:
        found = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return {}
    return found if isinstance(found, dict) else {}


class PluginHost:
    """Owns the pluggy manager; produces loaded and broken plugin records."""

    def __init__(self) -> None:
        self.pm = _Manager(PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.loaded: list[PluginRecord] = []
        self.broken: list[BrokenPlugin] = []
        self._impls: dict[tuple[int, str], Any] = {}
        self.notes: list[str] = []
        """Configuration problems worth a warning (a name in BUNZAI_LOAD_PLUGINS that matches
        no installed plugin distribution)."""

    # -- loading --------------------------------------------------------------------------------

    def load(self, *, autoload: bool | None = None, allow: Iterable[str] | None = None,
             environ: dict[str, str] | None = None, extra: Iterable[tuple[str, Any]] = (),
             defaults: bool = True) -> PluginHost:
        """Register default plugins, then entry points, honouring the kill switches.

        ``extra`` registers in-process plugin objects as (name, object) after the entry points;
        tests and embedders use it.
        """
        env = os.environ if environ is None else environ
        if autoload is None:
            autoload = env.get("BUNZAI_DISABLE_PLUGIN_AUTOLOAD", "") in ("", "0", "false")
        allow_set: set[str] | None = None
        if allow is not None:
            allow_set = {_norm(a) for a in allow}
        elif "BUNZAI_LOAD_PLUGINS" in env:
            allow_set = {_norm(a) for a in env["BUNZAI_LOAD_PLUGINS"].split(",") if a.strip()}

        if defaults:
            for name, path in DEFAULT_PLUGINS:
                self._add(_Candidate(name, FORMATS_GROUP, CORE_DISTRIBUTION, _core_version(),
                                     lambda p=path: _resolve(p)))
        if autoload:
            for cand in _entry_point_candidates(allow_set):
                self._add(cand)
            if allow_set:
                self._note_unknown(allow_set, "allow" if allow is not None else
                                   "BUNZAI_LOAD_PLUGINS")
        for name, obj in extra:
            self._add(_Candidate(name, FORMATS_GROUP if _looks_like_format(obj)
                                 else PLUGINS_GROUP, "<in-process>", None, lambda o=obj: o))
        return self

    def _note_unknown(self, allowed: set[str], source: str) -> None:
        import difflib
        known = sorted({_norm(c.distribution) for c in _entry_point_candidates(None)})
        for name in sorted(allowed - set(known)):
            close = ([k for k in known if k.endswith("-" + name)]
                     or difflib.get_close_matches(name, known, n=1, cutoff=0.5))
            self.notes.append(f"{source} names {name!r}, which is no installed plugin "
                              "distribution" + (f"; did you mean {close[0]!r}?" if close else "")
                              + f" (installed: {', '.join(known) or 'none'})")

    def _break(self, cand: _Candidate, reason: str, plugin: Any = None,
               api_version: int | None = None) -> None:
        if plugin is not None and self.pm.is_registered(plugin):
            self.pm.unregister(plugin)
        self.broken.append(BrokenPlugin(cand.name, cand.group, cand.distribution, cand.version,
                                        reason, api_version))

    def _add(self, cand: _Candidate) -> None:
        try:
            plugin = _instantiate(cand.load())
        except Exception as exc:  # a plugin's import must never take the host down
            self._break(cand, f"failed to load: {type(exc).__name__}: {exc}")
            return
        if cand.group == FORMATS_GROUP:
            clash = next((r for r in self.loaded
                          if r.info is not None and r.info.id == cand.name), None)
            if clash is not None:
                self._break(cand, f"duplicate format id {cand.name!r}: already provided by "
                                  f"{clash.distribution}, also by {cand.distribution}")
                return
        reg_name = f"{cand.group}:{cand.name}"
        if self.pm.get_plugin(reg_name) is not None:
            self._break(cand, f"duplicate plugin name {cand.name!r}")
            return
        try:
            self.pm.register(plugin, name=reg_name)
        except Exception as exc:  # pluggy.PluginValidationError and friends
            self._break(cand, f"invalid hook implementation: {exc}")
            return
        hooks = self._hooks_of(plugin)
        unknown = [h for h in hooks if not self._has_spec(h)]
        if unknown:
            self._break(cand, f"unknown hook(s) {', '.join(sorted(unknown))} "
                              "(misspelled, or written for another bunzai version)", plugin)
            return
        info: FormatInfo | None = None
        if cand.group == FORMATS_GROUP:
            missing = [h for h in FORMAT_HOOKS if h not in hooks]
            if missing:
                self._break(cand, f"format plugin lacks hook(s) {', '.join(missing)}", plugin)
                return
            try:
                info = self.call(plugin, "bunzai_format_info")
            except Exception as exc:
                self._break(cand, f"bunzai_format_info failed: {type(exc).__name__}: {exc}",
                            plugin)
                return
            if not isinstance(info, FormatInfo):
                self._break(cand, "bunzai_format_info did not return a FormatInfo", plugin)
                return
            if info.id != cand.name:
                self._break(cand, f"entry point is named {cand.name!r} but the adapter's "
                                  f"format id is {info.id!r}", plugin)
                return
            if info.api_version not in SUPPORTED_API_VERSIONS:
                self._break(cand, f"built for bunzai API {info.api_version}; this bunzai "
                                  f"supports {sorted(SUPPORTED_API_VERSIONS)}", plugin,
                            api_version=info.api_version)
                return
            from ..kinds import ANY_KIND, KINDS
            if info.kind not in KINDS and info.kind != ANY_KIND:
                self._break(cand, f"unknown kind {info.kind!r} (known: {', '.join(KINDS)})",
                            plugin)
                return
        self.loaded.append(PluginRecord(cand.name, cand.group, cand.distribution,
                                        cand.version, plugin, info, sorted(hooks)))

    # -- pluggy helpers -------------------------------------------------------------------------

    def _hooks_of(self, plugin: Any) -> list[str]:
        callers = self.pm.get_hookcallers(plugin) or []
        return [c.name for c in callers]

    def _has_spec(self, hook_name: str) -> bool:
        caller = getattr(self.pm.hook, hook_name, None)
        return caller is not None and caller.spec is not None

    def impl(self, plugin: Any, hook_name: str) -> Any:
        """The implementation ``plugin`` registered for ``hook_name`` (pluggy's ``HookImpl``),
        or None; remembered, as detection asks once per adapter per file."""
        key = (id(plugin), hook_name)
        try:
            return self._impls[key]
        except KeyError:
            pass
        found = None
        caller = getattr(self.pm.hook, hook_name, None)
        if caller is not None:
            found = next((i for i in caller.get_hookimpls() if i.plugin is plugin), None)
        self._impls[key] = found
        return found

    def call(self, plugin: Any, hook_name: str, **kwargs: Any) -> Any:
        """Call one plugin's own implementation of a hook (None when it has none).

        Core never calls ``pm.hook.X()``, which would run every plugin's implementation: each
        answer must be attributed to the adapter that gave it.
        """
        impl = self.impl(plugin, hook_name)
        if impl is None:
            return None
        return impl.function(*[kwargs[a] for a in impl.argnames])

    def caller(self, plugin: Any, hook_name: str, arg: str) -> Callable[[Any], Any]:
        """``plugin``'s implementation of a hook whose one argument is ``arg``, as a function
        of that argument: what :meth:`call` does, with the lookup done once.  A plugin
        without the hook gets a function raising ``NotImplementedError``."""
        impl = self.impl(plugin, hook_name)
        if impl is None:
            def missing(value: Any) -> Any:
                raise NotImplementedError(hook_name)
            return missing
        function: Callable[..., Any] = impl.function
        names = tuple(impl.argnames)
        if names == (arg,):
            return function
        if not names:
            return lambda value: function()
        return lambda value: function(*[{arg: value}[a] for a in names])

    def retire(self, record: PluginRecord, reason: str) -> None:
        """Move a loaded plugin to the broken list (a hook failed after loading)."""
        if record in self.loaded:
            self.loaded.remove(record)
        self.broken.append(BrokenPlugin(record.name, record.group, record.distribution,
                                        record.version, reason))

    def finish(self) -> None:
        """pluggy's final check: every registered hook implementation has a spec."""
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:  # pragma: no cover - caught per plugin
            plugin = exc.plugin
            for rec in list(self.loaded):
                if rec.plugin is plugin:
                    self.loaded.remove(rec)
                    self._break(_Candidate(rec.name, rec.group, rec.distribution, rec.version,
                                           None), str(exc), plugin)


def _looks_like_format(obj: Any) -> bool:
    return hasattr(obj, "bunzai_format_info")


def _core_version() -> str:
    from .. import __version__
    return __version__


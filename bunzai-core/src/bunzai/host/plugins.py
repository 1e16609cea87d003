"""Loading plugins: entry points in, healthy plugins and refused ones (with the reason) out.

pluggy is used at this edge as it is meant: bunzai's hook specifications are its specs, and
every plugin is registered with a ``PluginManager``, which checks each implementation's name
and arguments against them.  Loading never lets one plugin take the rest down: an import
error, an implementation pluggy rejects, a hook that has no specification, a format plugin
without a required hook, an unsupported API version, a format id other than its entry point's
name, or one that another distribution already provides puts that plugin on the ``broken``
list with the reason, and everything else loads.

The registry then calls each adapter's own validated implementation (pluggy's ``HookImpl``),
never a broadcast: every score, entity and loss report must be attributed to the adapter that
gave it (docs/architecture.md says why this is not ``pm.hook``).

Kill switches (as pytest and llm have them): ``BUNZAI_DISABLE_PLUGIN_AUTOLOAD=1`` loads no entry
points (core's own adapters still load); ``BUNZAI_LOAD_PLUGINS=a,b`` loads only the named
distributions (empty: none).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pluggy

from ..kinds import ANY_KIND, KINDS
from . import hookspecs
from .entrypoints import FORMATS_GROUP, PLUGINS_GROUP, EntryPoint, allowed, entry_points, norm
from .hookspecs import FORMAT_HOOKS, PROJECT
from .types import SUPPORTED_API_VERSIONS, FormatInfo

CORE_DISTRIBUTION = "bunzai-core"
DEFAULT_PLUGINS = (EntryPoint("vaud-json", "bunzai.native:VaudJsonAdapter", FORMATS_GROUP,
                              CORE_DISTRIBUTION, None),)
"""Core's own adapters, loaded exactly as entry points are."""


@dataclass
class PluginRecord:
    """A loaded plugin, where it came from, and its hook implementations by hook name."""

    name: str
    group: str
    distribution: str
    version: str | None
    plugin: Any
    info: FormatInfo | None = None
    impls: dict[str, pluggy.HookImpl] = field(default_factory=dict)

    @property
    def hooks(self) -> list[str]:
        return sorted(self.impls)

    def call(self, hook: str, **kwargs: Any) -> Any:
        """This plugin's own implementation of ``hook``, called with the arguments it takes
        (pluggy lets an implementation take fewer than the specification names)."""
        impl = self.impls.get(hook)
        if impl is None:
            raise NotImplementedError(hook)
        return impl.function(*[kwargs[a] for a in impl.argnames])

    def caller(self, hook: str, arg: str) -> Callable[[Any], Any]:
        """:meth:`call` for a hook of one argument, with the lookup done once (detection asks
        every adapter about every file)."""
        impl = self.impls.get(hook)
        if impl is None:
            raise NotImplementedError(hook)
        function: Callable[..., Any] = impl.function
        if tuple(impl.argnames) == (arg,):
            return function
        return lambda value: function(*[value for _ in impl.argnames])


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


class PluginHost:
    """Owns the pluggy manager; produces loaded and broken plugin records."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.loaded: list[PluginRecord] = []
        self.broken: list[BrokenPlugin] = []
        self.notes: list[str] = []
        """Configuration problems worth a warning (a name in BUNZAI_LOAD_PLUGINS that matches
        no installed plugin distribution)."""

    def load(self, *, autoload: bool | None = None, allow: Iterable[str] | None = None,
             environ: Mapping[str, str] | None = None, extra: Iterable[tuple[str, Any]] = (),
             defaults: bool = True) -> PluginHost:
        """Core's own adapters, then the entry points the kill switches leave, then ``extra``
        in-process plugins (name, object), which tests and embedders use."""
        from .._version import __version__

        only = allowed(environ, autoload=autoload, allow=allow)
        if defaults:
            for ep in DEFAULT_PLUGINS:
                self._add(EntryPoint(ep.name, ep.value, ep.group, ep.distribution, __version__),
                          ep.load)
        for ep in entry_points(allow=only) if only != set() else ():
            self._add(ep, ep.load)
        if only:
            self._note_unknown(only, "allow" if allow is not None else "BUNZAI_LOAD_PLUGINS")
        for name, obj in extra:
            group = FORMATS_GROUP if hasattr(obj, "bunzai_format_info") else PLUGINS_GROUP
            self._add(EntryPoint(name, "", group, "<in-process>", None), _instance(obj))
        return self

    def _note_unknown(self, allowed_names: set[str], source: str) -> None:
        import difflib

        known = sorted({norm(e.distribution) for e in entry_points()})
        for name in sorted(allowed_names - set(known)):
            close = ([k for k in known if k.endswith("-" + name)]
                     or difflib.get_close_matches(name, known, n=1, cutoff=0.5))
            self.notes.append(f"{source} names {name!r}, which is no installed plugin "
                              "distribution" + (f"; did you mean {close[0]!r}?" if close else "")
                              + f" (installed: {', '.join(known) or 'none'})")

    def _add(self, ep: EntryPoint, load: Callable[[], Any]) -> None:
        try:
            plugin = load()
        except Exception as exc:  # a plugin's import must never take the host down
            self._refuse(ep, f"failed to load: {type(exc).__name__}: {exc}")
            return
        try:
            record = self._register(ep, plugin)
        except _Refused as refused:
            if self.pm.is_registered(plugin):
                self.pm.unregister(plugin)
            self._refuse(ep, str(refused), refused.api_version)
            return
        self.loaded.append(record)

    def _register(self, ep: EntryPoint, plugin: Any) -> PluginRecord:
        """``plugin`` checked by pluggy and by bunzai's rules, as a record; :class:`_Refused`
        says why not."""
        if ep.group == FORMATS_GROUP:
            clash = next((r for r in self.loaded if r.info and r.info.id == ep.name), None)
            if clash is not None:
                raise _Refused(f"duplicate format id {ep.name!r}: already provided by "
                               f"{clash.distribution}, also by {ep.distribution}")
        if self.pm.get_plugin(f"{ep.group}:{ep.name}") is not None:
            raise _Refused(f"duplicate plugin name {ep.name!r}")
        try:
            self.pm.register(plugin, name=f"{ep.group}:{ep.name}")
        except Exception as exc:  # pluggy.PluginValidationError and friends
            raise _Refused(f"invalid hook implementation: {exc}") from None
        impls = {c.name: i for c in self.pm.get_hookcallers(plugin) or []
                 for i in c.get_hookimpls() if i.plugin is plugin}
        unknown = sorted(h for h in impls if getattr(self.pm.hook, h).spec is None)
        if unknown:
            raise _Refused(f"unknown hook(s) {', '.join(unknown)} (misspelled, or written for "
                           "another bunzai version)")
        record = PluginRecord(ep.name, ep.group, ep.distribution, ep.version, plugin,
                              impls=impls)
        if ep.group == FORMATS_GROUP:
            record.info = _format_info(ep, record)
        return record

    def _refuse(self, ep: EntryPoint, reason: str, api_version: int | None = None) -> None:
        self.broken.append(BrokenPlugin(ep.name, ep.group, ep.distribution, ep.version, reason,
                                        api_version))

    def retire(self, record: PluginRecord, reason: str) -> None:
        """Move a loaded plugin to the broken list (a hook failed after loading)."""
        if record in self.loaded:
            self.loaded.remove(record)
        self.broken.append(BrokenPlugin(record.name, record.group, record.distribution,
                                        record.version, reason))


def _instance(obj: Any) -> Callable[[], Any]:
    """How an in-process plugin is loaded: a class is instantiated, anything else is itself."""
    return lambda: obj() if isinstance(obj, type) else obj


class _Refused(Exception):
    def __init__(self, reason: str, api_version: int | None = None) -> None:
        super().__init__(reason)
        self.api_version = api_version


def _format_info(ep: EntryPoint, record: PluginRecord) -> FormatInfo:
    """A format plugin's declaration, held to the rules every format adapter follows."""
    missing = [h for h in FORMAT_HOOKS if h not in record.impls]
    if missing:
        raise _Refused(f"format plugin lacks hook(s) {', '.join(missing)}")
    try:
        info = record.call("bunzai_format_info")
    except Exception as exc:
        raise _Refused(f"bunzai_format_info failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(info, FormatInfo):
        raise _Refused("bunzai_format_info did not return a FormatInfo")
    if info.id != ep.name:
        raise _Refused(f"entry point is named {ep.name!r} but the adapter's format id is "
                       f"{info.id!r}")
    if info.api_version not in SUPPORTED_API_VERSIONS:
        raise _Refused(f"built for bunzai API {info.api_version}; this bunzai supports "
                       f"{sorted(SUPPORTED_API_VERSIONS)}", info.api_version)
    if info.kind not in KINDS and info.kind != ANY_KIND:
        raise _Refused(f"unknown kind {info.kind!r} (known: {', '.join(KINDS)})")
    return info

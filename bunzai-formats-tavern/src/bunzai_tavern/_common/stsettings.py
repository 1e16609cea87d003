"""Recognising SillyTavern's ``settings.json`` (import-light: detection uses it).

``settings.json`` is the user's whole configuration.  It holds personas (``power_user``) and the
global regex scripts (``extension_settings.regex``); it is routed to ``sillytavern-persona`` and
never to anything else, so both adapters share this one test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_SETTINGS_SIGNS = ("main_api", "api_server", "preset_settings", "user_avatar", "username",
                   "amount_gen", "max_context", "world_info_settings", "oai_settings")


def is_settings(data: Any) -> bool:
    """A SillyTavern ``settings.json``: ``power_user`` or ``extension_settings`` beside the
    top-level settings only ST writes."""
    if not isinstance(data, Mapping):
        return False
    has_block = isinstance(data.get("power_user"), Mapping) or isinstance(
        data.get("extension_settings"), Mapping)
    return has_block and any(k in data for k in _SETTINGS_SIGNS)


def settings_regex(data: Mapping[str, Any]) -> Any:
    """The global regex scripts list of a settings.json (None when absent)."""
    ext = data.get("extension_settings")
    return ext.get("regex") if isinstance(ext, Mapping) else None

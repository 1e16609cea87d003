"""``risu-module``: RisuAI modules (``.risum``), a bundle of lorebook, regex, triggers and assets.

A module is neither a character nor a lorebook, so it maps to core's ``module`` kind, which holds
all four parts; squeezing it into a lorebook or a regex list would drop the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Detection, FormatAdapter, Option

from .._common import risum
from .._common.declared import (
    ACTS_ON,
    BOOK_REASONS,
    ENTRY_CARRIED,
    ENTRY_REASONS,
    SCRIPT_CARRIED,
    SCRIPT_REASONS,
    reasons_under,
    under,
)
from .._common.runs import RISU_MODULE

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "risu-module"


def json_shape(data: Any) -> str | None:
    """``flat`` (Realm's module JSON), ``main`` (a .risum main block) or None."""
    if not isinstance(data, Mapping) or data.get("type") != "risuModule":
        return None
    if isinstance(data.get("module"), Mapping):
        return "main"
    if isinstance(data.get("name"), str) and isinstance(data.get("id"), str):
        return "flat"
    return None


class RisuModuleAdapter(FormatAdapter):
    """RisuAI module: ``.risum`` binary (RPack-obfuscated JSON + asset records) or module JSON."""

    format_id = FORMAT_ID
    kind = "module"
    runs = RISU_MODULE
    label = "RisuAI module (.risum)"
    suffix = ".risum"
    aliases = ("risum",)
    options = (
        Option("container", choices=("risum", "json"), default="as read, else risum",
               help="risum, or json for RisuAI's flat module JSON, which cannot carry asset "
                    "bytes"),
    )
    detection = (
        (".risum with format version 0 and a JSON main block", 1.0),
        (".risum header with another format version (reading refuses it clearly)", 0.9),
        ("module JSON: flat (type risuModule + name + id) or a .risum main block", 0.95),
        ("anything else", 0.0),
    )
    signature = {"json": ("type",), "binary": ()}
    acts_on = ACTS_ON
    carries = (
        "name", "description", "id", "namespace", "triggers", "low_level_access",
        "assets[*].name", "assets[*].uri", "assets[*].data", "assets[*].type",
        "assets[*].ext", "assets[*].media_type", "assets[*].origin", "assets[*].orphan",
        *under("lorebook.entries[*].", ENTRY_CARRIED),
        *under("regex_scripts[*].", SCRIPT_CARRIED),
    )
    reasons = (
        ("extensions", "a RisuAI module keeps only RisuAI's own settings"),
        ("assets[*].extensions", "a module's files are a name, a path and their bytes"),
        ("assets[*].app_data", "a module's files are a name, a path and their bytes"),
        *reasons_under("lorebook.", BOOK_REASONS),
        ("lorebook.app_data", "a module's lorebook is a bare list of entries"),
        *reasons_under("lorebook.entries[*].", ENTRY_REASONS),
        *reasons_under("regex_scripts[*].", SCRIPT_REASONS),
    )
    losses = (
        ("lorebook.entries[*] depth, role, probability, delay, whole words, key logic, disabled",
         "written as @@decorators, which apps other than RisuAI show as text"),
        ("assets[*].data (container=json)", "dropped: module JSON has no room for files"),
        ("id", "generated when absent: RisuAI requires one"),
    )
    reader = "read:read"
    writer = "write:write"
    validator = "read:validate"

    def detect(self, input: AdapterInput) -> Detection:
        if input.container == "binary":
            found = risum.sniff(input.data)
            if found is None:
                return Detection(0.0)
            version, reason = found
            return Detection(1.0 if version == risum.VERSION else 0.9, reason)
        if input.container == "json":
            shape = json_shape(input.json)
            if shape:
                return Detection(0.95, f"RisuAI module JSON ({shape})")
        return Detection(0.0)

"""Reading ``.risum`` files and RisuAI module JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, Module, ReadResult
from bunzai.sdk.fields import reorder

from .._common import risum
from .._common.module import read_module, write_module
from . import json_shape

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Entity

_MAIN = ["module", "type"]


def read(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    warnings: list[Issue] = []
    text: bytes | None = None
    if input.container == "json":
        data = input.json_mutable()
        shape = json_shape(data)
        if shape is None:
            raise MalformedInput("not a RisuAI module: expected type 'risuModule'")
        envelope = list(data)
        if shape == "main":
            module = read_module(data["module"], None, warnings, format_id, owned=True)
            container = "json-main"
        else:
            body = {k: v for k, v in data.items() if k != "type"}
            module = read_module(body, None, warnings, format_id, path="$", owned=True)
            container = "json"
    else:
        decoded = risum.decode(input.data, input.limits)
        module = read_module(decoded.main["module"], decoded.assets, warnings, format_id,
                             owned=True)
        for w in decoded.warnings:
            warnings.append(Issue("$", w))
        container = "risum"
        envelope = list(decoded.main)
        text = decoded.text
    record = module.passthrough.setdefault(format_id, {})
    record["container"] = container
    if envelope not in (_MAIN, _MAIN[::-1]) or container == "json":
        record["envelope"] = envelope
    if text is not None and main_text(module, format_id) != text:
        # JSON spacing another writer chose: kept so an unchanged module is written back
        # byte for byte
        record["text"] = text.decode("utf-8")
    return ReadResult([module], warnings)


def main_text(module: Module, format_id: str) -> bytes:
    """The main block a .risum write produces for ``module``."""
    from bunzai.sdk import dumps

    body, _ = write_module(module, format_id)
    record = module.passthrough.get(format_id)
    order = record.get("envelope") if isinstance(record, Mapping) else None
    main = reorder({"module": body, "type": "risuModule"}, order)
    return risum.dump_main(body) if list(main) == _MAIN else dumps(main, indent=2)



def validate(input: AdapterInput, entities: Sequence[Entity], format_id: str) -> list[Issue]:
    """RisuAI's import rules and the module's security-relevant content."""
    issues: list[Issue] = []
    for e in entities:
        if not isinstance(e, Module):
            continue
        if not e.name:
            issues.append(Issue("$.module.name", "RisuAI requires a module name", "error"))
        if not e.id:
            issues.append(Issue("$.module.id", "RisuAI requires a module id", "error"))
        if e.low_level_access:
            issues.append(Issue("$.module.lowLevelAccess",
                                "grants the module's triggers direct model and storage access"))
        settings = e.app_data.get(format_id) or {}
        mcp = settings.get("mcp")
        if isinstance(mcp, dict) and mcp.get("url"):
            issues.append(Issue("$.module.mcp.url", f"connects to an MCP server: {mcp['url']}"))
        if settings.get("backgroundEmbedding"):
            issues.append(Issue("$.module.backgroundEmbedding",
                                "injects HTML into the chat background"))
        for i, t in enumerate(e.triggers or []):
            effects = t.get("effect") if isinstance(t, dict) else None
            for j, eff in enumerate(effects if isinstance(effects, list) else []):
                if isinstance(eff, dict) and eff.get("type") in ("triggerlua", "triggercode"):
                    issues.append(Issue(f"$.module.trigger[{i}].effect[{j}]",
                                        "runs script code inside RisuAI"))
    return issues

"""Reading ``.risum`` files and RisuAI module JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bunzai.errors import MalformedInput
from bunzai.model import Module
from bunzai.types import Issue, ReadResult

from .._common import risum
from .._common.module import read_module
from .._common.values import Notes
from . import FORMAT_ID, json_shape

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity


def read(input: AdapterInput) -> ReadResult:
    notes = Notes()
    if input.container == "json":
        data = input.json_mutable()
        shape = json_shape(data)
        if shape is None:
            raise MalformedInput("not a RisuAI module: expected type 'risuModule'")
        if shape == "main":
            module = read_module(data["module"], None, notes, FORMAT_ID)
            container = "json-main"
            envelope = [k for k in data]
        else:
            body = {k: v for k, v in data.items() if k != "type"}
            module = read_module(body, None, notes, FORMAT_ID, path="$")
            container = "json"
            envelope = [k for k in data]
    else:
        decoded = risum.decode(input.data, input.limits)
        module = read_module(decoded.main["module"], decoded.assets, notes, FORMAT_ID)
        for w in decoded.warnings:
            notes.warn("$", w)
        container = "risum"
        envelope = [k for k in decoded.main]
        text = risum.dump_main(_restored_main(module, decoded.main))
        if text != decoded.text:
            # JSON spacing we would not reproduce (another writer's indentation): keep the text
            # so an unchanged module is written back byte for byte.
            module.passthrough.setdefault(FORMAT_ID, {})["text"] = decoded.text.decode("utf-8")
    pt = module.passthrough.setdefault(FORMAT_ID, {})
    pt["container"] = container
    if envelope not in (["module", "type"], ["type", "module"]) or container == "json":
        pt["envelope"] = envelope
    return ReadResult([module], notes.warnings)


def _restored_main(module: Module, main: dict[str, Any]) -> dict[str, Any]:
    from .._common.module import write_module
    body, _ = write_module(module, FORMAT_ID)
    return body


def validate(entities: Sequence[Entity]) -> list[Issue]:
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
        risuai = e.extensions.get("risuai") or {}
        mcp = risuai.get("mcp") if isinstance(risuai, dict) else None
        if isinstance(mcp, dict) and mcp.get("url"):
            issues.append(Issue("$.module.mcp.url", f"connects to an MCP server: {mcp['url']}"))
        if isinstance(risuai, dict) and risuai.get("backgroundEmbedding"):
            issues.append(Issue("$.module.backgroundEmbedding",
                                "injects HTML into the chat background"))
        for i, t in enumerate(e.triggers or []):
            effects = t.get("effect") if isinstance(t, dict) else None
            for j, eff in enumerate(effects if isinstance(effects, list) else []):
                if isinstance(eff, dict) and eff.get("type") in ("triggerlua", "triggercode"):
                    issues.append(Issue(f"$.module.trigger[{i}].effect[{j}]",
                                        "runs script code inside RisuAI"))
    return issues

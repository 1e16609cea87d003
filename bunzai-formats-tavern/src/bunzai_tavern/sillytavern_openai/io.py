"""The prompt manager's prompts and orders, beside the shared table's keys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import (
    Issue,
    LossReport,
    OutputFile,
    ReadResult,
    WriteResult,
    dumps_layout,
)
from bunzai.sdk.fields import type_name

from .._common import stpresets as st

LISTS = ("prompts", "prompt_order")


def read_openai(input: Any, format_id: str) -> ReadResult:
    from bunzai.sdk.fields import BOOL, Bad

    obj: Any = input.json_mutable()
    warnings: list[Issue] = []
    values, layout, data = st.read_object(obj, st.OPENAI, "$", warnings, skip=LISTS)
    cc = values.setdefault("chat_completion", {})
    prompts = obj.get("prompts")
    if isinstance(prompts, list) and all(isinstance(p, dict) for p in prompts):
        cc["prompts"] = []
        for i, p in enumerate(prompts):
            r = st.PROMPT.read(p, f"$.prompts[{i}]", warnings, owned=True)
            if "identifier" not in r.values or not isinstance(r.values["identifier"], str):
                warnings.append(Issue(f"$.prompts[{i}]", "a prompt without an identifier; "
                                                         "kept as it was"))
                data = {**data, "prompts": prompts}
                cc.pop("prompts")
                break
            cc["prompts"].append({**r.values, "passthrough": {format_id: r.layout},
                                  "app_data": {format_id: r.data} if r.data else {}})
    elif "prompts" in obj:
        warnings.append(Issue("$.prompts", f"is {type_name(prompts)}, not a list of prompts; "
                                           "kept as it was"))
        data = {**data, "prompts": prompts}
    orders = obj.get("prompt_order")
    parsed = _orders(orders, BOOL, Bad)
    if parsed is not None:
        cc["prompt_order"] = parsed
    elif "prompt_order" in obj:
        warnings.append(Issue("$.prompt_order", "not a list of {character_id, order}; kept as "
                                                "it was"))
        data = {**data, "prompt_order": orders}
    return st.one_preset(values, st.json_record(input, 4, table=layout), data, format_id,
                         warnings)


def _orders(orders: Any, conv: Any, bad: type[Exception]) -> list[dict[str, Any]] | None:
    if not isinstance(orders, list):
        return None
    out = []
    for o in orders:
        if not isinstance(o, dict) or set(o) != {"character_id", "order"} \
                or not isinstance(o["order"], list):
            return None
        items = []
        for it in o["order"]:
            if not isinstance(it, dict) or set(it) != {"identifier", "enabled"} \
                    or not isinstance(it["identifier"], str) \
                    or not isinstance(it["enabled"], bool):
                return None
            items.append({"identifier": it["identifier"], "enabled": it["enabled"]})
        out.append({"character_id": o["character_id"], "order": items})
    return out


def write_openai(entity: Any, options: Mapping[str, Any], format_id: str) -> WriteResult:
    rec = st.own(entity.passthrough, format_id)
    data = dict(st.own(entity.app_data, format_id))
    loss = LossReport()
    cc = entity.chat_completion
    tail: dict[str, Any] = {}
    if cc.prompts or "prompts" not in data:
        tail["prompts"] = [_prompt(p, i, format_id, loss) for i, p in enumerate(cc.prompts)]
        data.pop("prompts", None)
    if cc.prompt_order or "prompt_order" not in data:
        tail["prompt_order"] = [{"character_id": o.character_id,
                                 "order": [{"identifier": it.identifier, "enabled": it.enabled}
                                           for it in o.order]} for o in cc.prompt_order]
        data.pop("prompt_order", None)
    if not tail.get("prompts") and not tail.get("prompt_order") \
            and "prompts" in tail and "prompt_order" in tail:
        tail["prompts"], tail["prompt_order"] = _default_list(entity)
        why = ("the preset has no prompt list: written as SillyTavern's default markers (main "
               "holding its system prompt), without which SillyTavern sends no chat and "
               "RisuAI's importer does not take the file as a SillyTavern preset")
        loss.approximated("chat_completion.prompts", why)
        loss.approximated("chat_completion.prompt_order", why)
    base = st.section_get(entity)
    name = st.part_name(entity, "chat_completion")
    obj = st.write_object(entity, st.OPENAI, rec.get("table"), data, loss, tail=tail,
                          get=lambda a: name if a == "name" else base(a))
    for key, neutral in NUMBERS.items():
        obj.setdefault(key, neutral)
    text = dumps_layout(obj, rec.get("json"), 4, options)
    return WriteResult([OutputFile(text, ".json")], loss)


NUMBERS = {"temperature": 1, "frequency_penalty": 0, "presence_penalty": 0, "top_p": 1}
"""Samplers RisuAI's importer reads from every SillyTavern preset (it fills 0.8 and 0.7 of its
own for a missing temperature and frequency penalty, NaN for a missing presence penalty):
written with the values that switch them off when the preset has none."""

MARKERS = (
    ("worldInfoBefore", "World Info (before)"), ("personaDescription", "Persona Description"),
    ("charDescription", "Char Description"), ("charPersonality", "Char Personality"),
    ("scenario", "Scenario"), ("worldInfoAfter", "World Info (after)"),
    ("dialogueExamples", "Chat Examples"), ("chatHistory", "Chat History"),
)
"""SillyTavern's marker prompts in the order of its shipped Default preset (character 100001),
without the optional auxiliary, enhance and post-history prompts."""


def _default_list(entity: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    main = {"name": "Main Prompt", "system_prompt": True, "role": "system",
            "content": entity.system_prompt.content or "", "identifier": "main"}
    prompts = [main] + [{"name": n, "system_prompt": True, "marker": True, "identifier": i}
                        for i, n in MARKERS]
    order = [{"identifier": p["identifier"], "enabled": True} for p in prompts]
    return prompts, [{"character_id": 100001, "order": order}]


def _prompt(p: Any, i: int, format_id: str, loss: LossReport) -> dict[str, Any]:
    layout = st.own(p.passthrough, format_id)
    data = st.own(p.app_data, format_id)
    return st.PROMPT.write(lambda a: getattr(p, a), layout, data, loss,
                           f"chat_completion.prompts[{i}]")

"""text-generation-webui instruction templates (``instruction-templates/<name>.yaml``) in both
shapes the app has used.

* Jinja (since 2024): ``instruction_template``, a chat template the app renders with
  ``messages`` and ``add_generation_prompt`` (``modules/chat.py``).
* 2023: ``user`` and ``bot`` (the speakers' prefixes), ``turn_template`` (one exchange, with
  ``<|user|>``, ``<|user-message|>``, ``<|bot|>``, ``<|bot-message|>``), ``context`` (the text
  before the chat, with ``<|system-message|>`` where a system message goes) and
  ``system_message``.  The app reads such a file by turning it into Jinja
  (``models_settings.py``); this reader does the same, by the same rules, and takes the
  sequences from the result.

A file is written in the shape it was read in while it still means the preset; otherwise, and
for a preset from another app, as Jinja.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, LossReport, MalformedInput, OutputFile, ReadResult, WriteResult

from .._common import chat_template as ct
from .._common import jinja_preset, yamlio

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

TOKENS = {"bos_token": "<s>", "eos_token": "</s>"}
"""The special tokens the app renders with when no model is loaded (``shared.py``)."""

LEGACY_KEYS = ("user", "bot", "turn_template", "context", "system_message")


def legacy_to_jinja(values: Mapping[str, Any], where: str) -> str:
    """The Jinja template text-generation-webui builds from a 2023 template: the context
    around the system message, each speaker's prefix and suffix cut from the turn template,
    and the reply's prefix without its trailing spaces as the generation prompt.  A context
    without ``<|system-message|>`` is the default system message itself."""
    turn = values.get("turn_template")
    if not isinstance(turn, str) or "<|user-message|>" not in turn \
            or "<|bot-message|>" not in turn:
        raise MalformedInput(f"{where}: turn_template must hold <|user-message|> and "
                             "<|bot-message|>")
    user = str(values.get("user") or "")
    bot = str(values.get("bot") or "")
    context = values.get("context")
    context = context if isinstance(context, str) else ""
    if "<|system-message|>" in context:
        pre_system, _, post_system = context.partition("<|system-message|>")
        post_system = post_system.split("<|system-message|>")[0]
        default = str(values.get("system_message") or "")
    else:
        pre_system, post_system = "", ""
        default = context if "system_message" not in values \
            else str(values.get("system_message") or "")
    head, _, tail = turn.partition("<|user-message|>")
    pre_user = head.replace("<|user|>", user)
    post_user = tail.split("<|bot|>")[0]
    bot_part = turn.split("<|bot-message|>")[0]
    if "<|bot|>" not in bot_part:
        raise MalformedInput(f"{where}: turn_template has no <|bot|> before <|bot-message|>")
    pre_bot = "<|bot|>" + bot_part.split("<|bot|>")[1]
    pre_bot = pre_bot.replace("<|bot|>", bot)
    post_bot = turn.split("<|bot-message|>")[1]
    s = ct.literal
    return "\n".join([
        "{%- set ns = namespace(found=false) -%}",
        "{%- for message in messages -%}",
        "    {%- if message['role'] == 'system' -%}{%- set ns.found = true -%}{%- endif -%}",
        "{%- endfor -%}",
        "{%- if not ns.found -%}",
        "    {{- " + s(pre_system + default + post_system) + " -}}",
        "{%- endif %}",
        "{%- for message in messages %}",
        "    {%- if message['role'] == 'system' -%}",
        "        {{- " + s(pre_system) + " + message['content'] + " + s(post_system) + " -}}",
        "    {%- elif message['role'] == 'user' -%}",
        "        {{- " + s(pre_user) + " + message['content'] + " + s(post_user) + " -}}",
        "    {%- else -%}",
        "        {{- " + s(pre_bot) + " + message['content'] + " + s(post_bot) + " -}}",
        "    {%- endif -%}",
        "{%- endfor -%}",
        "{%- if add_generation_prompt -%}",
        "    {{- " + s(pre_bot.rstrip(" ")) + " -}}",
        "{%- endif -%}",
    ])


def read_template(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    where = input.filename or "instruction template"
    obj, yaml_layout = yamlio.load(input.data, where)
    warnings: list[Issue] = []
    record: dict[str, Any] = {"yaml": yaml_layout}
    if isinstance(obj.get("instruction_template"), str):
        text = obj["instruction_template"]
        record["shape"] = "jinja"
        extra = {k: v for k, v in obj.items() if k != "instruction_template"}
    elif "turn_template" in obj:
        legacy = {k: obj[k] for k in LEGACY_KEYS if k in obj}
        for k, v in legacy.items():
            if not isinstance(v, str):
                raise MalformedInput(f"{where}: {k} must be text, not {type(v).__name__}")
        text = legacy_to_jinja(legacy, where)
        record["shape"] = "legacy"
        record["legacy"] = legacy
        record["order"] = list(obj)
        extra = {k: v for k, v in obj.items() if k not in LEGACY_KEYS}
    else:
        raise MalformedInput(f"{where}: neither instruction_template nor turn_template")
    preset = jinja_preset.preset_from_template(text, TOKENS, format_id, record, dict(extra),
                                               where, warnings)
    return ReadResult([preset], warnings)


def write_template(entity: Any, options: Mapping[str, Any], format_id: str) -> WriteResult:
    rec = entity.passthrough.get(format_id) or {}
    data = entity.app_data.get(format_id) or {}
    extra = {k: v for k, v in data.items()
             if k not in (jinja_preset.TEMPLATE_KEY, "not_sequences")}
    loss = LossReport()
    legacy = rec.get("legacy")
    if rec.get("shape") == "legacy" and isinstance(legacy, dict) and _legacy_holds(entity, legacy):
        obj = {**legacy, **extra}
        order = rec.get("order") if isinstance(rec.get("order"), list) else []
        obj = {**{k: obj[k] for k in order if k in obj},
               **{k: v for k, v in obj.items() if k not in order}}
        return WriteResult([OutputFile(yamlio.dump(obj, rec.get("yaml")).encode(), ".yaml")], loss)
    text, _ = jinja_preset.template_for(entity, format_id, TOKENS, loss)
    layout = rec.get("yaml") if rec.get("shape") == "jinja" else None
    obj = {"instruction_template": text, **extra}
    return WriteResult([OutputFile(yamlio.dump(obj, layout).encode(), ".yaml")], loss)


def _legacy_holds(entity: Any, legacy: Mapping[str, Any]) -> bool:
    try:
        d = ct.derive(legacy_to_jinja(legacy, "template"), TOKENS)
    except (ct.NotSequences, MalformedInput):
        return not jinja_preset.has_sequences(entity)
    return jinja_preset.same_meaning(entity, d)


def render_prompt(entity: Any, scene: Any, format_id: str) -> str | None:
    rec = entity.passthrough.get(format_id) or {}
    text = None
    if rec.get("shape") == "legacy" and isinstance(rec.get("legacy"), dict):
        text = legacy_to_jinja(rec["legacy"], "template")
    return jinja_preset.render(entity, format_id, TOKENS, scene, text)

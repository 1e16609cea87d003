"""Hugging Face chat templates: ``chat_template`` in a model's ``tokenizer_config.json`` (a
string, or a list of named templates of which ``default`` is the one ``transformers`` uses) or
a ``chat_template.jinja`` file beside it.

``transformers`` renders a template in Jinja's immutable sandbox with ``trim_blocks`` and
``lstrip_blocks``, passing ``messages``, ``add_generation_prompt`` and the tokenizer's special
tokens (``bos_token``, ``eos_token``, …); the same is done here.  The rest of a
``tokenizer_config.json`` (added tokens, the tokenizer class, lengths) is the file's app data,
written back in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import (
    Issue,
    LossReport,
    MalformedInput,
    OutputFile,
    ReadResult,
    WriteResult,
    dumps_layout,
    sniff_layout,
)

from .._common import jinja_preset

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


OTHERS = "other_chat_templates"
"""App-data key of the named templates beside ``default`` (``tool_use``, ``rag``)."""


def special_tokens(config: Mapping[str, Any]) -> dict[str, str]:
    """The special tokens a template is rendered with: every ``*_token`` key whose value is
    text or an added-token object with ``content``."""
    out: dict[str, str] = {}
    for key, value in config.items():
        if not key.endswith("_token"):
            continue
        if isinstance(value, str):
            out[key] = value
        elif isinstance(value, Mapping) and isinstance(value.get("content"), str):
            out[key] = value["content"]
    return out


def _template_of(config: Mapping[str, Any], where: str) -> tuple[str, int | None]:
    got = config.get("chat_template")
    if isinstance(got, str):
        return got, None
    if isinstance(got, list):
        for i, item in enumerate(got):
            if isinstance(item, Mapping) and item.get("name") == "default" \
                    and isinstance(item.get("template"), str):
                return item["template"], i
        raise MalformedInput(f"{where}: chat_template lists templates but none named 'default'")
    raise MalformedInput(f"{where}: chat_template is neither text nor a list of named "
                         "templates")


def read_template(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    where = input.filename or "chat template"
    warnings: list[Issue] = []
    record: dict[str, Any] = {}
    if input.container == "json" and input.json_error is None:
        config: Any = input.json_mutable()
        if not isinstance(config, dict):
            raise MalformedInput(f"{where}: expected a tokenizer_config.json object")
        text, index = _template_of(config, where)
        tokens = special_tokens(config)
        record["shape"] = "config"
        record["order"] = list(config)
        if index is not None:
            record["index"] = index
        layout = sniff_layout(input.data, 2)
        if layout:
            record["json"] = layout
        data = {k: v for k, v in config.items() if k != "chat_template"}
        if index is not None:
            data[OTHERS] = [t for i, t in enumerate(config["chat_template"]) if i != index]
    else:
        try:
            text = input.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedInput(f"{where}: a chat template must be UTF-8 text") from exc
        record["shape"] = "jinja"
        data = {}
        tokens = {}
    preset = jinja_preset.preset_from_template(text, tokens, format_id, record, data, where,
                                               warnings)
    return ReadResult([preset], warnings)


def tokens_of(entity: Any, format_id: str) -> dict[str, str]:
    data = entity.app_data.get(format_id) or {}
    return special_tokens(data) if isinstance(data, Mapping) else {}


def write_template(entity: Any, options: Mapping[str, Any], format_id: str) -> WriteResult:
    rec = entity.passthrough.get(format_id) or {}
    data = dict(entity.app_data.get(format_id) or {})
    loss = LossReport()
    text, _ = jinja_preset.template_for(entity, format_id, tokens_of(entity, format_id), loss)
    config = [k for k in data if k not in (jinja_preset.TEMPLATE_KEY, "not_sequences")]
    if rec.get("shape") != "config" and not config:
        return WriteResult([OutputFile(text.encode(), ".jinja")], loss)
    data.pop("not_sequences", None)
    data.pop(jinja_preset.TEMPLATE_KEY, None)
    index = rec.get("index")
    others = data.pop(OTHERS, None)
    template: Any = text
    if isinstance(others, list):
        at = index if isinstance(index, int) else 0
        template = [*others[:at], {"name": "default", "template": text}, *others[at:]]
    obj = {**data, "chat_template": template}
    order = rec.get("order") if isinstance(rec.get("order"), list) else []
    obj = {**{k: obj[k] for k in order if k in obj},
           **{k: v for k, v in obj.items() if k not in order}}
    return WriteResult([OutputFile(dumps_layout(obj, rec.get("json"), 2, options), ".json")],
                       loss)


def render_prompt(entity: Any, scene: Any, format_id: str) -> str | None:
    return jinja_preset.render(entity, format_id, tokens_of(entity, format_id), scene)

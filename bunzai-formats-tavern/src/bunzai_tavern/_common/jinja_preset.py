"""A preset from a Jinja chat template and back, shared by the formats that hold one
(text-generation-webui instruction templates, Hugging Face chat templates).

The template's exact text is the format's layout when it was turned into sequences (the
sequences are the preset's meaning, the text how the file said it); a template that cannot be
sequences is the format's app data, written back as it was and reported, with the reason, by a
conversion to any other format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import Issue, LossReport

from . import chat_template as ct

TEMPLATE_KEY = "chat_template"
"""The app-data key of a template that is not sequences."""


def preset_from_template(text: str, tokens: Mapping[str, str], format_id: str,
                         record: dict[str, Any], data: dict[str, Any], where: str,
                         warnings: list[Issue]) -> Any:
    """The preset ``text`` expresses; ``record`` (layout) and ``data`` (app data) are the
    format's own and get the template."""
    from bunzai.sdk import Preset

    try:
        derived = ct.derive(text, tokens)
    except ct.NotSequences as exc:
        warnings.append(Issue(where, "the chat template is kept as it is but is not "
                                     f"instruct sequences: {exc}"))
        data[TEMPLATE_KEY] = text
        data["not_sequences"] = str(exc)
        return Preset(passthrough={format_id: record} if record else {}, app_data={
            format_id: data})
    record["template"] = text
    record["strip_bos"] = derived.strip_bos
    return Preset(**ct.instruct_values(derived), passthrough={format_id: record},
                  app_data={format_id: data} if data else {})


def same_meaning(entity: Any, d: ct.Derived) -> bool:
    """Whether ``entity`` still says what the template ``d`` came from says."""
    want = ct.instruct_values(d)
    have = {k: v for k, v in entity.instruct.model_dump().items() if v is not None}
    if have != want["instruct"]:
        return False
    if entity.system_prompt.content != (d.system if d.system is not None else None):
        return False
    return entity.context.story_string == d.story_string


def template_for(entity: Any, format_id: str, tokens: Mapping[str, str],
                 loss: LossReport) -> tuple[str, bool]:
    """The template text to write for ``entity`` and whether its leading BOS is the
    backend's: the source's own text while it still means the preset, else one built from
    the sequences (what it cannot express reported)."""
    rec = entity.passthrough.get(format_id) or {}
    data = entity.app_data.get(format_id) or {}
    kept = rec.get("template")
    if isinstance(kept, str):
        try:
            d = ct.derive(kept, tokens)
            if same_meaning(entity, d):
                return kept, d.strip_bos
        except ct.NotSequences:
            pass
    raw = data.get(TEMPLATE_KEY)
    if isinstance(raw, str) and not has_sequences(entity):
        return raw, bool(rec.get("strip_bos"))
    text = ct.build(entity, loss)
    _report_changes(entity, text, tokens, loss, format_id)
    return text, False


def _report_changes(entity: Any, text: str, tokens: Mapping[str, str],
                    loss: LossReport, format_id: str) -> None:
    """Read the built template back as sequences and report each value that came out
    another way (old and new), as the SillyTavern writers do with their own objects."""
    try:
        d = ct.derive(text, tokens)
    except ct.NotSequences as exc:  # not expected of a built template; never silent
        why = f"the template written is not sequences: {exc}"
        for path in ("instruct", "system_prompt", "context.story_string",
                     f"app_data.{format_id}"):
            loss.approximated(path, why)
        return
    got = ct.instruct_values(d)
    pairs = [(f"instruct.{k}", getattr(entity.instruct, k), got["instruct"].get(k))
             for k in ct.DERIVED]
    pairs.append(("system_prompt.content", entity.system_prompt.content, d.system))
    pairs.append(("context.story_string", entity.context.story_string, d.story_string))
    for path, old, new in pairs:
        if isinstance(old if old is not None else new, str) and (old or "") == (new or ""):
            continue  # an empty sequence says what a missing one does
        if old != new and not loss.covers(path):
            why = "a chat template expands no {{macros}}: the sequences are written as they " \
                  "are" if path == "instruct.macros" else \
                  f"a chat template says it as {new!r} (was {old!r})"
            loss.approximated(path, why)


def has_sequences(entity: Any) -> bool:
    return any(v is not None for v in entity.instruct.model_dump().values()) \
        or entity.system_prompt.content is not None


def render(entity: Any, format_id: str, tokens: Mapping[str, str], scene: Any,
           text: str | None = None) -> str | None:
    """The prompt the entity's template of this format builds for ``scene`` (None: the entity
    holds none)."""
    rec = entity.passthrough.get(format_id) or {}
    data = entity.app_data.get(format_id) or {}
    if text is None:
        text = rec.get("template") if isinstance(rec.get("template"), str) \
            else data.get(TEMPLATE_KEY)
    if not isinstance(text, str):
        return None
    system = entity.system_prompt.content
    return ct.render_scene(text, tokens, bool(rec.get("strip_bos")), system, scene)

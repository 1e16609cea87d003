"""The prompt a preset builds for a chat: the proof that a converted template still works.

A canonical preset is rendered by SillyTavern's text-completion rules, as its Generate does
for a chat that fits the context whole (no world info, author's note or extension prompts):

* the system prompt, its macros expanded, wrapped in the instruct template's system-prompt
  prefix and suffix (joined by a newline when ``wrap`` is on);
* the story string: a Handlebars template (``{{#if}}``/``{{#unless}}``/``{{else}}`` blocks,
  variables; an unknown ``{{name}}`` is left to the macros, ``{{trim}}`` eats the newlines
  around it), macros expanded, leading newlines stripped, a newline added at its end unless
  instruct mode is on with ``wrap`` off, and wrapped in ``story_string_prefix``/``suffix``;
* example dialogue from the card, split at ``<START>`` under the example separator;
* ``chat_start`` and a newline before the messages;
* each message wrapped in its role's prefix and suffix (the first message of the chat takes
  the first-message prefix, the last user message the last-user prefix; a missing suffix is a
  newline when ``wrap`` is on; ``wrap`` joins prefix and text with a newline; names by
  ``names_behavior``); without an instruct template, ``Name: text`` lines;
* a user alignment message first when the chat does not start with the user;
* the last line: the last-assistant prefix (or the assistant prefix) opening the reply, or,
  without an instruct template, the character's name and a colon.

A chat-completion preset (a prompt list) renders as the messages it sends, one block each.
A format whose own template language builds the prompt (Jinja) renders it through its
adapter's optional ``bunzai_render_prompt`` hook instead: :func:`render_entity`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping


class Registry(Protocol):
    """The installed formats (:class:`bunzai.host.registry.Registry`): a format with a renderer
    of its own (``bunzai_render_prompt``) renders its files."""

    @property
    def adapters(self) -> Mapping[str, Any]: ...

DEFAULT_STORY_STRING = (
    "{{#if system}}{{system}}\n{{/if}}{{#if wiBefore}}{{wiBefore}}\n{{/if}}"
    "{{#if description}}{{description}}\n{{/if}}{{#if personality}}{{char}}'s personality: "
    "{{personality}}\n{{/if}}{{#if scenario}}Scenario: {{scenario}}\n{{/if}}"
    "{{#if wiAfter}}{{wiAfter}}\n{{/if}}{{#if persona}}{{persona}}\n{{/if}}"
)
"""The story string SillyTavern uses when a preset carries none (its Default context)."""


@dataclass(frozen=True)
class Turn:
    """One message to render: who speaks (``user``, ``assistant``, ``system``), their name and
    the text."""

    role: str
    name: str
    text: str


@dataclass(frozen=True)
class Scene:
    """What a prompt is built from: names, card fields and the messages in order."""

    user: str = "User"
    char: str = "Assistant"
    description: str = ""
    personality: str = ""
    scenario: str = ""
    persona: str = ""
    mes_example: str = ""
    turns: tuple[Turn, ...] = ()


def marker_scenes() -> list[Scene]:
    """The chats the render check uses: each role's text is a marker no template contains, in
    the shapes a conversation takes (one user message, alternating turns, a reply first)."""
    u, c = "Ada", "Wren"

    def t(role: str, text: str) -> Turn:
        return Turn(role, u if role == "user" else c, text)

    return [
        Scene(u, c, turns=(t("user", "MARKER-U1"),)),
        Scene(u, c, turns=(t("user", "MARKER-U1"), t("assistant", "MARKER-A1"),
                           t("user", "MARKER-U2"))),
        Scene(u, c, turns=(t("user", "MARKER-U1"), t("assistant", "MARKER-A1"),
                           t("user", "MARKER-U2"), t("assistant", "MARKER-A2"),
                           t("user", "MARKER-U3"))),
    ]


def scene_from(chat: Any = None, card: Any = None, user: str | None = None) -> Scene:
    """A :class:`Scene` from a canonical chat and character (either may be absent)."""
    char = (getattr(card, "name", "") or "") if card is not None else ""
    turns: list[Turn] = []
    uname = user or ""
    for m in (getattr(chat, "messages", None) or ()) if chat is not None else ():
        role = {"user": "user", "character": "assistant"}.get(m.role, "system")
        name = m.speaker or ""
        if role == "user" and not uname:
            uname = name
        if role == "assistant" and not char:
            char = name
        turns.append(Turn(role, name, m.text))
    uname = uname or "User"
    char = char or "Assistant"
    turns = [Turn(x.role, x.name or (uname if x.role == "user" else char), x.text)
             if x.role != "system" else x for x in turns]
    fields: dict[str, str] = {}
    if card is not None:
        for k in ("description", "personality", "scenario", "mes_example"):
            fields[k] = getattr(card, k, "") or ""
    return Scene(uname, char, turns=tuple(turns), **fields)


# -- macros and the story string ---------------------------------------------------------------

_TRIM = re.compile(r"(?:\r?\n)*\{\{trim\}\}(?:\r?\n)*", re.I)
_COMMENT = re.compile(r"\{\{//[\s\S]*?\}\}")


def _constant(text: str) -> Callable[[re.Match[str]], str]:
    """A replacement for ``re.sub`` that puts ``text`` in as it is (no backslash escapes)."""
    return lambda _match: text


def substitute(text: str | None, env: dict[str, str]) -> str:
    """SillyTavern's macro pass (macros.js ``evaluateMacros``) for the macros a prompt's text
    can rely on; macros that need a live app (time, random, variables) stay as written."""
    if not text:
        return ""
    for legacy, key in (("<USER>", "user"), ("<BOT>", "char"), ("<CHAR>", "char")):
        text = re.sub(re.escape(legacy), _constant(env.get(key, "")), text, flags=re.I)
    if "{{" not in text:
        return text
    text = re.sub(r"\{\{newline\}\}", "\n", text, flags=re.I)
    text = _TRIM.sub("", text)
    text = re.sub(r"\{\{noop\}\}", "", text, flags=re.I)
    for key, value in env.items():
        text = re.sub(r"\{\{" + re.escape(key) + r"\}\}", _constant(value), text, flags=re.I)
    return _COMMENT.sub("", text)


_HB = re.compile(r"\{\{(#if|#unless|else|/if|/unless)?\s*([^{}]*?)\s*\}\}")


def handlebars(template: str, params: dict[str, str]) -> str:
    """The story string's Handlebars subset: variables, ``#if``/``#unless`` with ``else``;
    an unknown name is left as ``{{name}}`` for the macro pass (SillyTavern's helperMissing)."""
    out: list[str] = []
    stack: list[bool] = []  # is each open block's current branch shown?
    shown = True
    pos = 0
    for m in _HB.finditer(template):
        if shown:
            out.append(template[pos:m.start()])
        pos = m.end()
        tag, name = m.group(1), m.group(2)
        if tag in ("#if", "#unless"):
            truthy = bool(params.get(name))
            stack.append(shown)
            shown = shown and (truthy if tag == "#if" else not truthy)
        elif tag == "else" and stack:
            shown = stack[-1] and not shown
        elif tag in ("/if", "/unless") and stack:
            shown = stack.pop()
        elif shown:
            out.append(params[name] if name in params and tag is None else m.group(0))
    if shown:
        out.append(template[pos:])
    return "".join(out)


# -- text completion ----------------------------------------------------------------------------

FIRST, LAST = 1, 2


def _instruct_on(ins: Any) -> bool:
    """Instruct mode: the preset has a template that says something (an instruct file of empty
    sequences, written only because a format needs the keys, wraps nothing)."""
    return any(v not in (None, "", False) for v in ins.model_dump().values())


def render_preset(preset: Any, scene: Scene) -> str:
    """The prompt ``preset`` builds for ``scene`` (see the module's rules)."""
    cc = preset.chat_completion
    if cc.prompts and not _instruct_on(preset.instruct) and preset.context.story_string is None:
        return render_chat_completion(preset, scene)
    return render_text(preset, scene)


def render_text(preset: Any, scene: Scene) -> str:
    ins, ctx = preset.instruct, preset.context
    on = _instruct_on(ins)
    wrap = bool(ins.wrap) if on else False
    sep = "\n" if wrap else ""
    env = {"user": scene.user, "char": scene.char, "description": scene.description,
           "personality": scene.personality, "scenario": scene.scenario,
           "persona": scene.persona, "mesExamples": scene.mes_example,
           "group": scene.char, "charIfNotGroup": scene.char}
    env.update(_instruct_macros(preset, on))

    def sub(text: str | None) -> str:
        return substitute(text, env)

    def seq(text: str | None, name: str) -> str:
        if not text:
            return ""
        if ins.macros is False:
            return text
        return re.sub(r"\{\{name\}\}", lambda _m: name, sub(text), flags=re.I)

    system = ""
    if preset.system_prompt.content is not None:
        system = sub(preset.system_prompt.content)
        if on:
            if ins.system_prompt_prefix:
                system = re.sub(r"\{\{name\}\}", "System", ins.system_prompt_prefix,
                                flags=re.I) + sep + system
            if ins.system_prompt_suffix:
                system = system + sep + ins.system_prompt_suffix
    examples = _examples(preset, scene, on, sub, seq)
    params = {"description": scene.description, "personality": scene.personality,
              "persona": scene.persona, "scenario": scene.scenario, "system": system,
              "char": scene.char, "user": scene.user, "wiBefore": "", "wiAfter": "",
              "loreBefore": "", "loreAfter": "", "mesExamples": "".join(examples),
              "mesExamplesRaw": scene.mes_example, "anchorBefore": "", "anchorAfter": ""}
    template = ctx.story_string if ctx.story_string is not None else DEFAULT_STORY_STRING
    story = sub(handlebars(template, params))
    story = story.lstrip("\n")
    if story and not story.endswith("\n") and (not on or wrap):
        story += "\n"
    if on and story and (ins.story_string_prefix or ins.story_string_suffix):
        story = sub(ins.story_string_prefix) + story + sub(ins.story_string_suffix)
    names = (ins.names_behavior or "force") if on else "none"

    def message(t: Turn, force: int) -> str:
        narrator = t.role == "system"
        if not on:
            return f"{t.name}: {t.text}\n" if t.name and not narrator else f"{t.text}\n"
        user = t.role == "user"
        if narrator:
            prefix = ins.user_prefix if ins.system_same_as_user else ins.system_prefix
            suffix = ins.user_suffix if ins.system_same_as_user else ins.system_suffix
        elif user:
            prefix = {FIRST: ins.first_user_prefix, LAST: ins.last_user_prefix}.get(force) \
                or ins.user_prefix
            suffix = ins.user_suffix
        else:
            prefix = {FIRST: ins.first_assistant_prefix,
                      LAST: ins.last_assistant_prefix}.get(force) or ins.assistant_prefix
            suffix = ins.assistant_suffix
        p, s = seq(prefix, t.name or "System"), seq(suffix, t.name or "System")
        if not s and wrap:
            s = "\n"
        body = f"{t.name}: {t.text}" if names == "always" and not narrator and t.name \
            else t.text
        return sep.join(x for x in (p, body + s) if x)

    turns = list(scene.turns)
    last_user = max((i for i, t in enumerate(turns) if t.role == "user"), default=-1)
    lines = []
    for j, t in enumerate(turns):
        force = LAST if j == last_user else FIRST if j == 0 else 0
        lines.append(message(t, force if on else 0))
    if on and ins.user_alignment_message and turns and turns[0].role != "user":
        lines.insert(0, message(Turn("user", scene.user, ins.user_alignment_message), FIRST))
    if lines:
        lines[-1] += _last_line(preset, scene, on, wrap, sep, seq, lines[-1])
    chat = "".join(lines)
    if ctx.chat_start:
        chat = sub(ctx.chat_start + "\n") + chat
    return (story + "".join(examples) + chat).replace("\r", "")


def _last_line(preset: Any, scene: Scene, on: bool, wrap: bool, sep: str,
               seq: Callable[[str | None, str], str], before: str) -> str:
    ins = preset.instruct
    if not on:
        if preset.context.always_force_name2 is False:
            return ""
        return ("" if before.endswith("\n") else "\n") + f"{scene.char}:"
    names = ins.names_behavior or "force"
    include = bool(scene.char) and names == "always"
    sequence = ins.last_assistant_prefix or ins.assistant_prefix or ""
    filler = ""
    if include and ins.last_assistant_prefix and ins.assistant_prefix \
            and sequence == ins.last_assistant_prefix \
            and re.search(r"\s$", ins.assistant_prefix) \
            and not re.search(r"\s$", ins.last_assistant_prefix):
        filler = ins.assistant_prefix[-1]
    sequence = seq(sequence, scene.char)
    text = (sep + sequence + sep + filler + f"{scene.char}:") if include else (sep + sequence)
    return (text.rstrip() if wrap else text) + ("" if include else sep)


def _instruct_macros(preset: Any, on: bool) -> dict[str, str]:
    ins, ctx = preset.instruct, preset.context
    sp = preset.system_prompt.content or ""

    def v(x: str | None) -> str:
        return (x or "") if on else ""
    out = {
        "instructSystemPromptPrefix": v(ins.system_prompt_prefix),
        "instructSystemPromptSuffix": v(ins.system_prompt_suffix),
        "instructInput": v(ins.user_prefix), "instructUserPrefix": v(ins.user_prefix),
        "instructUserSuffix": v(ins.user_suffix),
        "instructOutput": v(ins.assistant_prefix),
        "instructAssistantPrefix": v(ins.assistant_prefix),
        "instructSeparator": v(ins.assistant_suffix),
        "instructAssistantSuffix": v(ins.assistant_suffix),
        "instructSystemPrefix": v(ins.system_prefix),
        "instructSystemSuffix": v(ins.system_suffix),
        "instructStop": v(ins.stop_sequence),
        "instructUserFiller": v(ins.user_alignment_message),
        "instructSystemInstructionPrefix": v(ins.last_system_prefix),
        "instructStoryStringPrefix": v(ins.story_string_prefix),
        "instructStoryStringSuffix": v(ins.story_string_suffix),
        "systemPrompt": sp, "defaultSystemPrompt": sp, "instructSystem": sp,
        "instructSystemPrompt": sp,
        "exampleSeparator": ctx.example_separator or "", "chatStart": ctx.chat_start or "",
    }
    for key, first, plain in (("FirstOutput", ins.first_assistant_prefix, ins.assistant_prefix),
                              ("FirstAssistantPrefix", ins.first_assistant_prefix,
                               ins.assistant_prefix),
                              ("LastOutput", ins.last_assistant_prefix, ins.assistant_prefix),
                              ("LastAssistantPrefix", ins.last_assistant_prefix,
                               ins.assistant_prefix),
                              ("FirstInput", ins.first_user_prefix, ins.user_prefix),
                              ("FirstUserPrefix", ins.first_user_prefix, ins.user_prefix),
                              ("LastInput", ins.last_user_prefix, ins.user_prefix),
                              ("LastUserPrefix", ins.last_user_prefix, ins.user_prefix)):
        out["instruct" + key] = v(first or plain)
    return out


def _examples(preset: Any, scene: Scene, on: bool, sub: Callable[[str | None], str],
              seq: Callable[[str | None, str], str]) -> list[str]:
    """Example dialogue blocks (script.js ``parseMesExamples``, instruct-mode.js
    ``formatInstructModeExamples``)."""
    raw = sub(scene.mes_example)
    if not raw or raw == "<START>":
        return []
    if not raw.strip().lower().startswith("<start>"):
        raw = "<START>\n" + raw.strip()
    ctx, ins = preset.context, preset.instruct
    separator = f"{sub(ctx.example_separator)}\n" if ctx.example_separator else ""
    heading = separator or ("<START>\n" if on else "")
    blocks = [f"{heading}{b.strip()}\n" for b in re.split(r"<START>", raw, flags=re.I)[1:]]
    if not on:
        return blocks
    if ins.skip_examples:
        return [re.sub(r"<START>\n", separator, b, count=1, flags=re.I) for b in blocks]
    wrap = bool(ins.wrap)
    sep = "\n" if wrap else ""
    out: list[str] = []
    for block in blocks:
        cleaned = re.sub(r"<START>", "{Example Dialogue:}", block, count=1, flags=re.I)
        parsed = _individual(cleaned.replace("\r", ""), scene.user, scene.char)
        if not parsed:
            continue
        if separator:
            out.append(separator)
        for is_user, content in parsed:
            name = scene.user if is_user else scene.char
            prefix = seq(ins.user_prefix if is_user else ins.assistant_prefix, name)
            suffix = seq(ins.user_suffix if is_user else ins.assistant_suffix, name)
            if not suffix and wrap:
                suffix = "\n"
            body = f"{name}: {content}" if ins.names_behavior == "always" else content
            out.append(sep.join(x for x in (prefix, body + suffix) if x))
    return out or [re.sub(r"<START>\n", separator, b, count=1, flags=re.I) for b in blocks]


def _individual(block: str, user: str, char: str) -> list[tuple[bool, str]]:
    """A block's messages (openai.js ``parseExampleIntoIndividual``): the first line is the
    heading; lines run on until the other speaker's ``Name:``."""
    result: list[tuple[bool, str]] = []
    cur: list[str] = []
    who: bool | None = None

    def flush() -> None:
        name = user if who else char
        result.append((bool(who), "\n".join(cur).replace(name + ":", "", 1).strip()))
        cur.clear()

    for line in block.split("\n")[1:]:
        if line.startswith(user + ":"):
            if who is False:
                flush()
            who = True
        elif line.startswith(char + ":"):
            if who is True:
                flush()
            who = False
        cur.append(line)
    if who is not None:
        flush()
    return result


# -- chat completion ----------------------------------------------------------------------------

_MARKERS = {"charDescription": "description", "charPersonality": "personality",
            "scenario": "scenario", "personaDescription": "persona"}


def render_chat_completion(preset: Any, scene: Scene) -> str:
    """The messages a chat-completion prompt list sends, each as ``[role]`` and its text."""
    cc = preset.chat_completion
    env = {"user": scene.user, "char": scene.char, "description": scene.description,
           "personality": scene.personality, "scenario": scene.scenario,
           "persona": scene.persona}
    prompts = {p.identifier: p for p in cc.prompts}
    order = next((o for o in cc.prompt_order if str(o.character_id) == "100001"),
                 cc.prompt_order[0] if cc.prompt_order else None)
    ids = [(it.identifier, it.enabled) for it in order.order] if order else \
        [(p.identifier, True) for p in cc.prompts]
    messages: list[tuple[str, str]] = []
    history = [("user" if t.role == "user" else "assistant" if t.role == "assistant"
                else "system", t.text) for t in scene.turns]
    injected: list[Any] = []
    for ident, enabled in ids:
        p = prompts.get(ident)
        if not enabled or p is None:
            continue
        if p.position == "in_chat":
            injected.append(p)
            continue
        if ident == "chatHistory":
            messages.extend(history)
        elif ident in _MARKERS:
            text = env[_MARKERS[ident]]
            if text:
                messages.append(("system", text))
        elif ident == "dialogueExamples" and scene.mes_example:
            messages.append(("system", substitute(scene.mes_example, env)))
        elif p.content:
            messages.append((p.role or "system", substitute(p.content, env)))
    for p in injected:
        if not p.content:
            continue
        at = next((i for i, m in enumerate(messages) if (m[0], m[1]) in history),
                  len(messages))
        where = max(at, len(messages) - (p.depth or 0))
        messages.insert(where, (p.role or "system", substitute(p.content, env)))
    return "".join(f"[{role}]\n{text}\n" for role, text in messages)


# -- a file's own renderer ----------------------------------------------------------------------

def render_entity(registry: Registry, entity: Any, scene: Scene) -> str:
    """The prompt for ``scene`` by the renderer of the format ``entity`` came from when that
    format has one of its own (``bunzai_render_prompt``), else by :func:`render_preset`."""
    for fmt in dict.fromkeys([*entity.passthrough, *entity.app_data]):
        handle = registry.adapters.get(fmt)
        if handle is None or not handle.has("bunzai_render_prompt"):
            continue
        got = handle.call("bunzai_render_prompt", entity=entity, scene=scene)
        if got is not None:
            return str(got)
    return render_preset(entity, scene)


def render_difference(registry: Registry, before: Any, after: Any) -> str | None:
    """Where the prompt ``after`` builds first differs from the one ``before`` builds, on the
    marker chats, each entity rendered by its own format's rules; None when they agree."""
    for n, scene in enumerate(marker_scenes(), 1):
        try:
            a = render_entity(registry, before, scene)
            b = render_entity(registry, after, scene)
        except Exception as exc:  # a template that cannot render is a difference, named
            return f"marker chat {n} could not be rendered: {exc}"
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                      min(len(a), len(b)))
            return (f"marker chat {n}: the prompts differ at character {at} "
                    f"({a[at:at + 30]!r} became {b[at:at + 30]!r})")
    return None


def messages_of(preset: Any, scene: Scene) -> list[dict[str, str]]:
    """The scene as chat-template messages: the system prompt (macros expanded) first when the
    preset has one, then each turn by role."""
    env = {"user": scene.user, "char": scene.char}
    out: list[dict[str, str]] = []
    if preset.system_prompt.content:
        out.append({"role": "system", "content": substitute(preset.system_prompt.content, env)})
    out += [{"role": t.role, "content": t.text} for t in scene.turns]
    return out


__all__: Sequence[str] = [
    "DEFAULT_STORY_STRING", "Scene", "Turn", "handlebars", "marker_scenes", "messages_of",
    "render_chat_completion", "render_difference", "render_entity",
    "render_preset", "render_text",
    "scene_from", "substitute",
]

"""Jinja chat templates (Hugging Face's ``chat_template``, oobabooga's ``instruction_template``)
as instruct sequences, and instruct sequences as a Jinja chat template.

A chat template is a program; instruct sequences are text around each message.  A template is
turned into sequences by rendering it on conversations of marker messages and reading the text
around each marker; the sequences are then proven by rendering the marker chats both ways (the
template through Jinja, the sequences by SillyTavern's rules) and comparing the prompts.  A
template the sequences cannot reproduce — tool calls, branches on what a message says, the
current date, a system message folded into the first user turn — is refused with the reason,
never approximated.

Templates run in Jinja's immutable sandbox with the globals the apps give them
(``raise_exception``, ``strftime_now``, a ``tojson`` that does not escape HTML), with
``trim_blocks`` and ``lstrip_blocks`` as both text-generation-webui and ``transformers`` set.

A template this module writes opens with a Jinja comment holding the sequences it was built
from: a reader that finds it uses those sequences once they are proven to build the template's
prompt, so a SillyTavern template written as a chat template reads back as itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from bunzai.sdk import LossReport, MalformedInput

DERIVED = (
    "user_prefix", "user_suffix", "assistant_prefix", "assistant_suffix", "first_user_prefix",
    "last_user_prefix", "first_assistant_prefix", "last_assistant_prefix",
    "system_prompt_prefix", "system_prompt_suffix", "story_string_prefix",
    "story_string_suffix", "user_alignment_message", "wrap", "macros", "names_behavior",
)
"""Instruct fields a chat template expresses (the rest have no place in one)."""

CARRIED = (*(f"instruct.{k}" for k in DERIVED), "system_prompt.content", "context.story_string")
"""Canonical paths a chat-template format carries."""

_NO_NEWLINE_STORY = (
    "{{#if system}}{{system}}{{/if}}{{#if wiBefore}}{{wiBefore}}\n{{/if}}"
    "{{#if description}}{{description}}\n{{/if}}{{#if personality}}{{char}}'s personality: "
    "{{personality}}\n{{/if}}{{#if scenario}}Scenario: {{scenario}}\n{{/if}}"
    "{{#if wiAfter}}{{wiAfter}}\n{{/if}}{{#if persona}}{{persona}}\n{{/if}}"
)
"""SillyTavern's default story string without the newline after the system prompt: for a
template whose system message does not end with a newline."""

_HEADER = "{#- instruct sequences: "
_MARK = {"S": "BZQS7", "U1": "BZQU1", "A1": "BZQA1", "U2": "BZQU2", "A2": "BZQA2",
         "U3": "BZQU3"}


class NotSequences(Exception):
    """The template cannot be expressed as instruct sequences (the message says why)."""


# -- the environment ----------------------------------------------------------------------------

def environment() -> Any:
    """The sandboxed Jinja environment chat templates are rendered in."""
    import datetime

    import markupsafe
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[loopcontrols])

    def tojson(value: Any, indent: int | None = None, ensure_ascii: bool = False,
               **_: Any) -> Any:
        return markupsafe.Markup(json.dumps(value, indent=indent, ensure_ascii=ensure_ascii))

    def raise_exception(message: str) -> None:
        raise ValueError(message)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.datetime.now().strftime(fmt)
    return env


_ENV: list[Any] = []


@lru_cache(maxsize=64)
def _compiled(text: str) -> Any:
    """One compile per template text: proving a template renders it on several chats, and
    Jinja compiles a string anew each time (a compile is ~20 ms, a render well under 1)."""
    if not _ENV:
        _ENV.append(environment())
    return _ENV[0].from_string(text)


def compile_template(text: str, where: str) -> Any:
    """The compiled template, or :class:`MalformedInput` naming the Jinja error."""
    from jinja2 import TemplateSyntaxError

    try:
        return _compiled(text)
    except TemplateSyntaxError as exc:
        raise MalformedInput(f"{where}: the Jinja template does not parse: {exc.message} "
                             f"(line {exc.lineno})") from exc


def render_messages(text: str, messages: Sequence[Mapping[str, str]], tokens: Mapping[str, str],
                    *, generation: bool = True, strip_bos: bool = False) -> str:
    """The prompt ``text`` builds for ``messages``; with ``strip_bos``, without the leading
    BOS token the backend adds itself."""
    out = compile_template(text, "chat template").render(
        messages=[dict(m) for m in messages], add_generation_prompt=generation, **tokens)
    bos = tokens.get("bos_token") or ""
    if strip_bos and bos and out.startswith(bos):
        out = out[len(bos):]
    return str(out)


def scene_messages(system: str | None, scene: Any) -> list[dict[str, str]]:
    """A render scene as chat-template messages: the system prompt first when there is one."""
    from bunzai.sdk.prompts import substitute

    out: list[dict[str, str]] = []
    if system:
        out.append({"role": "system",
                    "content": substitute(system, {"user": scene.user, "char": scene.char})})
    out += [{"role": t.role, "content": t.text} for t in scene.turns]
    return out


# -- template -> sequences ----------------------------------------------------------------------

def refusal(text: str) -> str | None:
    """Why a template cannot be sequences, seen in its source (None: nothing seen)."""
    from jinja2 import nodes

    tree = compile_env().parse(text)
    names = {n.name for n in tree.find_all(nodes.Name)}
    attrs = {n.attr for n in tree.find_all(nodes.Getattr)}
    items = {n.arg.value for n in tree.find_all(nodes.Getitem)
             if isinstance(n.arg, nodes.Const) and isinstance(n.arg.value, str)}
    keys = attrs | items
    if names & {"tools", "tool", "documents", "custom_tools", "builtin_tools"} \
            or keys & {"tool_calls", "tool_call_id"}:
        return "it handles tool calls, which instruct sequences have no place for"
    if "strftime_now" in names or "date_string" in names:
        return "it writes the current date into the prompt"
    for test in _tests(tree):
        t_names = {n.name for n in test.find_all(nodes.Name)}
        t_keys = {n.attr for n in test.find_all(nodes.Getattr)} | {
            n.arg.value for n in test.find_all(nodes.Getitem)
            if isinstance(n.arg, nodes.Const) and isinstance(n.arg.value, str)}
        if "content" in t_keys or "content" in t_names:
            return "it branches on what a message says, which sequences cannot"
    return None


def _tests(tree: Any) -> list[Any]:
    from jinja2 import nodes

    got = [n.test for n in tree.find_all(nodes.If)]
    got += [n.test for n in tree.find_all(nodes.CondExpr)]
    return got


def compile_env() -> Any:
    if not _ENV:
        _ENV.append(environment())
    return _ENV[0]


@dataclass
class Derived:
    """What a chat template says as a preset: instruct fields, the default system message,
    a story string when the system message takes no newline, and whether the leading BOS
    token is left to the backend."""

    instruct: dict[str, Any] = field(default_factory=dict)
    system: str | None = None
    story_string: str | None = None
    strip_bos: bool = False


def derive(text: str, tokens: Mapping[str, str]) -> Derived:
    """The template as sequences, proven on the marker chats; :class:`NotSequences` with the
    reason when it cannot be."""
    compile_template(text, "chat template")
    why = refusal(text)
    if why:
        raise NotSequences(why)
    header = _header(text)
    if header is not None:
        try:
            _prove(text, tokens, header)
            return header
        except NotSequences:
            pass
    reasons: list[str] = []
    for strip in (False, True):
        try:
            got = _derive(text, tokens, strip)
            _prove(text, tokens, got)
            return got
        except NotSequences as exc:
            reasons.append(str(exc))
    raise NotSequences(reasons[0])


def _header(text: str) -> Derived | None:
    if not text.startswith(_HEADER):
        return None
    end = text.find(" -#}")
    try:
        data = json.loads(text[len(_HEADER):end])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    ins = data.get("instruct")
    if not isinstance(ins, dict) or not set(ins) <= set(DERIVED):
        return None
    return Derived(ins, data.get("system"), data.get("story_string"),
                   bool(data.get("strip_bos")))


def _render(text: str, tokens: Mapping[str, str], strip: bool, roles: str,
            gen: bool = False) -> str:
    msgs = []
    for key in roles.split():
        role = {"S": "system", "U": "user", "A": "assistant"}[key[0]]
        msgs.append({"role": role, "content": _MARK[key]})
    try:
        return render_messages(text, msgs, tokens, generation=gen, strip_bos=strip)
    except MalformedInput:
        raise
    except Exception as exc:  # the template refused the conversation (raise_exception)
        raise NotSequences(f"it does not render a plain conversation ({exc})") from exc


def _split(out: str, keys: Sequence[str]) -> list[str]:
    """The text between the markers ``keys``, in order (before the first, …, after the last)."""
    parts: list[str] = []
    pos = 0
    for key in keys:
        at = out.find(_MARK[key], pos)
        if at < 0 or out.count(_MARK[key]) != 1:
            raise NotSequences("it does not write each message once, in order")
        parts.append(out[pos:at])
        pos = at + len(_MARK[key])
    parts.append(out[pos:])
    return parts


def _after(text: str, head: str, what: str) -> str:
    if not text.startswith(head):
        raise NotSequences(f"the text after a message is not the same in every turn ({what})")
    return text[len(head):]


def _derive(text: str, tokens: Mapping[str, str], strip: bool) -> Derived:
    five = "U1 A1 U2 A2 U3"
    c = _split(_render(text, tokens, strip, five), five.split())
    user_suffix = c[5]
    assistant_prefix = _after(c[1], user_suffix, "user")
    if _after(c[3], user_suffix, "user") != assistant_prefix:
        raise NotSequences("the text before a reply is not the same in every turn")
    two = _split(_render(text, tokens, strip, "U1 A1"), ["U1", "A1"])
    assistant_suffix = two[2]
    user_prefix = _after(c[2], assistant_suffix, "assistant")
    last_user = _after(c[4], assistant_suffix, "assistant")
    plain = _render(text, tokens, strip, "U1")
    gen_out = _render(text, tokens, strip, "U1", gen=True)
    if not gen_out.startswith(plain):
        raise NotSequences("the generation prompt changes the text before it")
    generation = gen_out[len(plain):]
    one = _split(plain, ["U1"])
    if one[1] != user_suffix:
        raise NotSequences("the text after the last user message depends on the chat's length")
    # the system message
    sys_parts = _split(_render(text, tokens, strip, "S " + five), ["S", *five.split()])
    sp, gap = sys_parts[0], sys_parts[1]
    if gap.endswith(user_prefix):
        first, ss = None, gap[:len(gap) - len(user_prefix)]
    elif c[0] and gap.endswith(c[0]):
        first, ss = c[0], gap[:len(gap) - len(c[0])]
    else:
        raise NotSequences("the system message changes how the first user message starts")
    first_plain = first if first is not None else user_prefix
    system: str | None = None
    if c[0] != first_plain:  # a default system message when none is given
        body = c[0]
        if not (body.startswith(sp) and body.endswith(ss + first_plain)):
            raise NotSequences("the start of the prompt is not a system message and the "
                               "first user message")
        system = body[len(sp):len(body) - len(ss + first_plain)]
        if not system:
            raise NotSequences("the start of the prompt differs when there is no system "
                               "message")
    ins: dict[str, Any] = {
        "user_prefix": user_prefix, "user_suffix": user_suffix,
        "assistant_prefix": assistant_prefix, "assistant_suffix": assistant_suffix,
        "wrap": False, "names_behavior": "none",
    }
    if first is not None and first != user_prefix:
        ins["first_user_prefix"] = first
    if last_user != user_prefix:
        ins["last_user_prefix"] = last_user
    if generation != assistant_prefix:
        ins["last_assistant_prefix"] = generation
    story = None
    if ss.endswith("\n"):
        ss = ss[:-1]
    else:
        story = _NO_NEWLINE_STORY
    if sp:
        ins["system_prompt_prefix"] = sp
    if ss:
        ins["system_prompt_suffix"] = ss
    if any(_macro_like(v) for v in ins.values() if isinstance(v, str)):
        ins["macros"] = False
    return Derived(ins, system, story, strip)


def _macro_like(text: str) -> bool:
    low = text.lower()
    return "{{" in text or any(x in low for x in ("<user>", "<bot>", "<char>"))


def as_preset(d: Derived) -> Any:
    """A canonical preset holding ``d``, for rendering by SillyTavern's rules."""
    from bunzai.sdk import Preset

    return Preset(instruct=d.instruct, system_prompt={"content": d.system},
                  context={"story_string": d.story_string})


def _prove(text: str, tokens: Mapping[str, str], d: Derived) -> None:
    """Raise :class:`NotSequences` unless ``d`` builds the template's prompt on every marker
    chat, with and without a system prompt."""
    from bunzai.sdk.prompts import marker_scenes, render_preset

    preset = as_preset(d)
    for system in (d.system, "MARKER-SYSTEM"):
        p = preset.model_copy(update={"system_prompt": preset.system_prompt.model_copy(
            update={"content": system})})
        for n, scene in enumerate(marker_scenes(), 1):
            want = _render_scene(text, tokens, d.strip_bos, system, scene)
            got = render_preset(p, scene)
            if want != got:
                at = next((i for i, (x, y) in enumerate(zip(want, got, strict=False))
                           if x != y), min(len(want), len(got)))
                raise NotSequences(
                    f"the sequences taken from it build another prompt on marker chat {n} "
                    f"(at character {at}: {want[at:at + 24]!r} from the template, "
                    f"{got[at:at + 24]!r} from the sequences)")


def _render_scene(text: str, tokens: Mapping[str, str], strip: bool, system: str | None,
                  scene: Any) -> str:
    try:
        return render_messages(text, scene_messages(system, scene), tokens, strip_bos=strip)
    except MalformedInput:
        raise
    except Exception as exc:
        raise NotSequences(f"it does not render a plain conversation ({exc})") from exc


def render_scene(text: str, tokens: Mapping[str, str], strip: bool, system: str | None,
                 scene: Any) -> str:
    """The prompt the template builds for a render scene (``bunzai template render``)."""
    return render_messages(text, scene_messages(system, scene), tokens, strip_bos=strip)


# -- sequences -> template ----------------------------------------------------------------------

def literal(text: str) -> str:
    """A Jinja string literal."""
    return json.dumps(text, ensure_ascii=False)


def build(preset: Any, loss: LossReport, *, strip_bos: bool = False) -> str:
    """A chat template that builds the prompt SillyTavern's rules build for ``preset``'s
    instruct sequences and system prompt (names and card fields aside); what it cannot
    express is reported."""
    ins = preset.instruct
    on = any(getattr(ins, k) not in (None, "", False) for k in DERIVED)
    wrap = bool(ins.wrap)
    sep = "\n" if wrap else ""
    if ins.names_behavior == "always":
        loss.approximated("instruct.names_behavior", "a chat template gets no speaker names: "
                          "written without them (was 'always')")

    def pre(p: str | None) -> str:
        return (p + sep) if p else ""

    def suf(s: str | None) -> str:
        return s or ("\n" if wrap else "")

    up, us = pre(ins.user_prefix), suf(ins.user_suffix)
    ap, asf = pre(ins.assistant_prefix), suf(ins.assistant_suffix)
    fup = pre(ins.first_user_prefix or ins.user_prefix)
    lup = pre(ins.last_user_prefix or ins.user_prefix)
    fap = pre(ins.first_assistant_prefix or ins.assistant_prefix)
    gen_seq = ins.last_assistant_prefix or ins.assistant_prefix or ""
    gen = ((sep + gen_seq).rstrip() if wrap else gen_seq) + sep
    if not on:
        gen = ""
    spp = (ins.system_prompt_prefix + sep) if on and ins.system_prompt_prefix else ""
    sps = (sep + ins.system_prompt_suffix) if on and ins.system_prompt_suffix else ""
    story = preset.context.story_string
    nl = "" if story == _NO_NEWLINE_STORY else "\n"
    ssp = ins.story_string_prefix or "" if on else ""
    sss = ins.story_string_suffix or "" if on else ""
    written = {k: getattr(ins, k) for k in DERIVED if getattr(ins, k) is not None}
    if written.get("names_behavior") == "always":
        written["names_behavior"] = "none"
    header = {"instruct": written,
              "system": preset.system_prompt.content,
              "story_string": story if story == _NO_NEWLINE_STORY else None,
              "strip_bos": strip_bos}
    default = preset.system_prompt.content
    align = ins.user_alignment_message if on else None
    lines = [
        _HEADER + json.dumps(header, ensure_ascii=False, sort_keys=True) + " -#}",
        "{%- set ns = namespace(system=none, last_user=-1, first=-1) -%}",
        "{%- for message in messages -%}",
        "    {%- if message['role'] == 'system' and loop.first -%}",
        "        {%- set ns.system = message['content'] -%}",
        "    {%- else -%}",
        "        {%- if ns.first < 0 -%}{%- set ns.first = loop.index0 -%}{%- endif -%}",
        "        {%- if message['role'] == 'user' -%}{%- set ns.last_user = loop.index0 -%}"
        "{%- endif -%}",
        "    {%- endif -%}",
        "{%- endfor -%}",
    ]
    if default:
        lines.append("{%- if ns.system is none -%}{%- set ns.system = " + literal(default)
                     + " -%}{%- endif -%}")
    lines += [
        "{%- if ns.system -%}",
        "    {{- " + literal(ssp) + " + (" + literal(spp) + " + ns.system + " + literal(sps + nl)
        + ").lstrip('\\n') + " + literal(sss) + " -}}",
        "{%- endif -%}",
    ]
    if align:
        lines += [
            "{%- if ns.first >= 0 and messages[ns.first]['role'] != 'user' -%}",
            "    {{- " + literal(fup) + " + " + literal(align) + " + " + literal(us) + " -}}",
            "{%- endif -%}",
        ]
    lines += [
        "{%- for message in messages -%}",
        "    {%- if message['role'] == 'user' -%}",
        "        {%- if loop.index0 == ns.last_user -%}{{- " + literal(lup) + " -}}",
        "        {%- elif loop.index0 == ns.first -%}{{- " + literal(fup) + " -}}",
        "        {%- else -%}{{- " + literal(up) + " -}}{%- endif -%}",
        "        {{- message['content'] + " + literal(us) + " -}}",
        "    {%- elif message['role'] == 'assistant' -%}",
        "        {%- if loop.index0 == ns.first -%}{{- " + literal(fap) + " -}}",
        "        {%- else -%}{{- " + literal(ap) + " -}}{%- endif -%}",
        "        {{- message['content'] + " + literal(asf) + " -}}",
        "    {%- elif not loop.first -%}",
        "        {{- message['content'] + " + literal(suf(None)) + " -}}",
        "    {%- endif -%}",
        "{%- endfor -%}",
        "{%- if add_generation_prompt -%}",
        "    {{- " + literal(gen) + " -}}",
        "{%- endif -%}",
    ]
    return "\n".join(lines)


def instruct_values(d: Derived) -> dict[str, Any]:
    """Keyword arguments of :class:`Preset` for ``d``."""
    out: dict[str, Any] = {"instruct": dict(d.instruct)}
    if d.system is not None:
        out["system_prompt"] = {"content": d.system}
    if d.story_string is not None:
        out["context"] = {"story_string": d.story_string}
    return out


__all__: Sequence[str] = [
    "CARRIED", "DERIVED", "Derived", "NotSequences", "as_preset", "build", "compile_template",
    "derive", "environment", "instruct_values", "refusal", "render_messages", "render_scene",
    "scene_messages",
]

"""What RisuAI runs or renders from each field (``FormatAdapter.runs``), as established in
docs/active-content.md from its source: ``src/ts/process/triggers.ts`` (``runTrigger`` and
its stages), ``src/ts/process/scriptings.ts`` (Lua), ``src/ts/process/scripts.ts`` (regex
stages), ``src/ts/parser.svelte.ts`` (``ParseMarkdown`` and its sanitizer),
``src/lib/ChatScreens/BackgroundDom.svelte`` (background HTML), ``src/ts/process/modules.ts``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import Runs

RISUAI = "RisuAI"

SANITIZED = ("script", "handler")
"""What RisuAI's DOMPurify settings remove from shown text (it keeps ``<style>``, YouTube
frames and the ``risu-trigger`` attributes on purpose)."""

PROMPT_NOTE = "CBS evaluated, then sent to the model; shown only if a reply repeats it"
REGEX_NOTE = "RisuAI runs a card's regex scripts without asking"

_STAGES = {"start": "on every message", "input": "on every message",
           "output": "on every message", "request": "on every message",
           "display": "on display", "manual": "on a click"}


def _effects(trigger: Any) -> list[Any]:
    effects = trigger.get("effect") if isinstance(trigger, Mapping) else None
    return effects if isinstance(effects, list) else []


def trigger_what(trigger: Any, _owner: Any) -> str | None:
    """Lua when the trigger's code is Lua, a command when it has effects, nothing when it
    has none (RisuAI runs nothing)."""
    effects = _effects(trigger)
    if any(isinstance(e, Mapping) and e.get("type") == "triggerlua" for e in effects):
        return "lua"
    return "command" if effects else None


def trigger_when(trigger: Any, _owner: Any) -> str:
    """The trigger's stage; Lua listens at every stage whatever the trigger's type."""
    if trigger_what(trigger, None) == "lua":
        return "on every message"
    kind = trigger.get("type") if isinstance(trigger, Mapping) else None
    return _STAGES.get(str(kind), "on every message")


def regex_what(value: Any, script: Any) -> str | None:
    """An ``editprocess`` script only edits the request (text sent to the model); the others'
    output is shown as HTML."""
    if not isinstance(value, str) or not value:
        return None
    return "prompt" if getattr(script, "prompt_only", None) else "html"


def regex_when(value: Any, script: Any) -> str:
    return "on display" if getattr(script, "markdown_only", None) else "on every message"


PROMPT_FIELDS = ("description", "personality", "scenario", "mes_example", "system_prompt",
                 "post_history_instructions")


def _prompt(paths: tuple[str, ...]) -> tuple[Runs, ...]:
    return tuple(Runs(p, RISUAI, "prompt", "on every message", note=PROMPT_NOTE)
                 for p in paths)


def _scripts(prefix: str = "") -> tuple[Runs, ...]:
    return (
        Runs(f"{prefix}regex_scripts[*].replace", RISUAI, regex_what, regex_when,
             carrier="regex script", note=REGEX_NOTE, removes=SANITIZED),
        Runs(f"{prefix}triggers[*]", RISUAI, trigger_what, trigger_when, carrier="trigger"),
    )


RISU_CARD = (
    *_scripts(),
    Runs("extensions.risuai.backgroundHTML", RISUAI, "html", "on display",
         carrier="background HTML", note="rendered behind the whole chat screen",
         removes=SANITIZED),
    Runs("first_mes", RISUAI, "text", "on chat start", removes=SANITIZED),
    Runs("alternate_greetings[*]", RISUAI, "text", "on chat start", removes=SANITIZED),
    Runs("creator_notes", RISUAI, "text", "on display", removes=SANITIZED),
    *_prompt((*PROMPT_FIELDS, "lorebook.entries[*].content")),
)
RISU_MODULE = (
    *_scripts(),
    Runs("app_data.risu-module.backgroundEmbedding", RISUAI, "html", "on display",
         carrier="background HTML", note="rendered behind the whole chat screen",
         removes=SANITIZED),
    Runs("app_data.risu-module.mcp.url", RISUAI, "remote", "on every message",
         carrier="MCP server", note="the module connects to this server and offers its tools "
                                    "to the model"),
    *_prompt(("lorebook.entries[*].content",)),
)
RISU_LOREBOOK = _prompt(("entries[*].content",))
RISU_REGEX = (Runs("replace", RISUAI, regex_what, regex_when, carrier="regex script",
                   note=REGEX_NOTE, removes=SANITIZED),)
RISU_PERSONA = _prompt(("description",))
RISU_CHAT = (
    Runs("messages[*].text", RISUAI, "text", "on display", removes=SANITIZED),
    Runs("messages[*].alternatives[*].text", RISUAI, "text", "on display", removes=SANITIZED),
)

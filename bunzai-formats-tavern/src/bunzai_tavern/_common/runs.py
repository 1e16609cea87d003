"""What SillyTavern, JS-Slash-Runner and Agnai run or render from each field
(``FormatAdapter.runs``), as established in docs/active-content.md from their sources.

SillyTavern: ``public/script.js`` (``messageFormatting``, ``getFirstMessage``, the DOMPurify
hooks), ``public/scripts/chats.js`` (style and external-media rules),
``public/scripts/extensions/regex/engine.js`` and ``index.js`` (scoped scripts, placements).
JS-Slash-Runner: ``src/store/settings/character.ts``, ``src/type/scripts.ts``,
``src/util/is_frontend.ts``.  Agnai: ``web/pages/Chat/components/Message.tsx``.
"""

from __future__ import annotations

from typing import Any

from bunzai.sdk import Runs

SILLYTAVERN = "SillyTavern"
JS_SLASH_RUNNER = "JS-Slash-Runner"
AGNAI = "Agnai"

SANITIZED = ("script", "handler", "iframe")
"""What DOMPurify (SillyTavern's and Agnai's settings) removes from shown text."""

PROMPT_NOTE = "sent to the model; shown only if a reply repeats it"
REGEX_NOTE = ("runs once the user allows the card's regex scripts; SillyTavern removes scripts, "
              "event handlers and frames from what it shows and blocks remote files unless the "
              "user allows them")
TH_NOTE = ("runs once the user accepts the character's scripts, in a frame with SillyTavern's "
           "whole page")

PROMPT_FIELDS = ("description", "personality", "scenario", "mes_example", "system_prompt",
                 "post_history_instructions")


def regex_what(value: Any, script: Any) -> str | None:
    """A replacement is HTML put into the chat, unless the script only edits the prompt (then
    it is text sent to the model)."""
    if not isinstance(value, str) or not value:
        return None
    return "prompt" if getattr(script, "prompt_only", None) else "html"


def regex_when(value: Any, script: Any) -> str:
    """A display-only script rewrites each message as it is shown; the others rewrite each
    message (or prompt) as it comes."""
    return "on display" if getattr(script, "markdown_only", None) else "on every message"


def _th_scripts(prefix: str) -> tuple[Runs, ...]:
    bases = ("TavernHelper_scripts[*]", "tavern_helper.scripts[*]",
             "tavern_helper.scripts[*].scripts[*]", "tavern_helper[*][*][*]",
             "tavern_helper[*][*][*].scripts[*]")
    return tuple(Runs(f"{prefix}extensions.{b}.content", JS_SLASH_RUNNER, "javascript",
                      "on chat start", carrier="TavernHelper script", note=TH_NOTE)
                 for b in bases)


def _prompt(app: str, paths: tuple[str, ...]) -> tuple[Runs, ...]:
    return tuple(Runs(p, app, "prompt", "on every message", note=PROMPT_NOTE) for p in paths)


def st_card(prefix: str = "") -> tuple[Runs, ...]:
    """A SillyTavern character (a card, or the character inside another document)."""
    return (
        Runs(f"{prefix}regex_scripts[*].replace", SILLYTAVERN, regex_what, regex_when,
             carrier="regex script", note=REGEX_NOTE, removes=SANITIZED),
        *_th_scripts(prefix),
        Runs(f"{prefix}first_mes", SILLYTAVERN, "text", "on chat start", removes=SANITIZED),
        Runs(f"{prefix}alternate_greetings[*]", SILLYTAVERN, "text", "on chat start",
             removes=SANITIZED),
        Runs(f"{prefix}creator_notes", SILLYTAVERN, "text", "on display", removes=SANITIZED),
        *_prompt(SILLYTAVERN, tuple(prefix + f for f in (
            *PROMPT_FIELDS, "extensions.depth_prompt.prompt", "lorebook.entries[*].content"))),
    )


ST_CARD = st_card()
ST_LOREBOOK = _prompt(SILLYTAVERN, ("entries[*].content",))
ST_REGEX = (Runs("replace", SILLYTAVERN, regex_what, regex_when, carrier="regex script",
                 note=REGEX_NOTE, removes=SANITIZED),)
ST_PERSONA = _prompt(SILLYTAVERN, ("description",))
ST_CHAT = (
    Runs("messages[*].text", SILLYTAVERN, "text", "on display", removes=SANITIZED),
    Runs("messages[*].alternatives[*].text", SILLYTAVERN, "text", "on display",
         removes=SANITIZED),
)

AGNAI_CARD = (
    Runs("first_mes", AGNAI, "text", "on chat start", removes=SANITIZED),
    Runs("alternate_greetings[*]", AGNAI, "text", "on chat start", removes=SANITIZED),
    *_prompt(AGNAI, (*PROMPT_FIELDS, "lorebook.entries[*].content")),
)
AGNAI_MEMORY = _prompt(AGNAI, ("entries[*].content",))
AGNAI_CHAT = (
    Runs("messages[*].text", AGNAI, "text", "on display", removes=SANITIZED),
    Runs("messages[*].alternatives[*].text", AGNAI, "text", "on display", removes=SANITIZED),
)

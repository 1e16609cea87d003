"""What Voxta runs from a package (``FormatAdapter.runs``), as established in
docs/active-content.md: Voxta's scripting documentation and the Voxta model Character
Foundry reads (``packages/voxta/src/types.ts``).  The server is not open source."""

from __future__ import annotations

from bunzai.sdk import Runs

VOXTA = "Voxta"
NOTE = "runs in Voxta's script sandbox for the whole chat; it can send messages and fire app " \
       "triggers"

VOXTA_CHARACTER = (
    Runs("extensions.voxta.scripts[*].Content", VOXTA, "javascript", "on chat start",
         carrier="Voxta script", note=NOTE),
    Runs("app_data.voxta.*.SharedScripts[*].Content", VOXTA, "javascript", "on chat start",
         carrier="Voxta scenario script", note=NOTE),
    Runs("app_data.voxta.*.Events[*].Effect.Script", VOXTA, "javascript", "on every message",
         carrier="Voxta scenario event", note="runs when the event fires"),
    Runs("app_data.voxta.*.Actions[*].Effect.Script", VOXTA, "javascript", "on every message",
         carrier="Voxta scenario action", note="runs when the action is chosen"),
)

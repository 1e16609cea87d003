"""``sillytavern-sysprompt``: SillyTavern system prompts (``sysprompt/<name>.json``): name,
content, post-history instructions.

Detected, read and written as the shared one-table preset format of table ``SYSPROMPT``
(``_common/stpreset_adapter.py``, ``_common/stpresets.py``).
"""

from .._common.stpreset_adapter import one_table_format

SillyTavernSysPromptAdapter = one_table_format(__name__, "SillyTavernSysPromptAdapter", "SYSPROMPT")

"""``sillytavern-context``: SillyTavern context templates (``context/<name>.json``): the story
string and its separators.

Detected, read and written as the shared one-table preset format of table ``CONTEXT``
(``_common/stpreset_adapter.py``, ``_common/stpresets.py``).
"""

from .._common.stpreset_adapter import one_table_format

SillyTavernContextAdapter = one_table_format(__name__, "SillyTavernContextAdapter", "CONTEXT")

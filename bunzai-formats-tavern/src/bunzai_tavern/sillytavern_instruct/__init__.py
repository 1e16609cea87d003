"""``sillytavern-instruct``: SillyTavern instruct templates (``instruct/<name>.json``): the
sequences around each message.

Detected, read and written as the shared one-table preset format of table ``INSTRUCT``
(``_common/stpreset_adapter.py``, ``_common/stpresets.py``).
"""

from .._common.stpreset_adapter import one_table_format

SillyTavernInstructAdapter = one_table_format(__name__, "SillyTavernInstructAdapter", "INSTRUCT")

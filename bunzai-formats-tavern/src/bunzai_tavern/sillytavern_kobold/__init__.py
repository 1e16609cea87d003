"""``sillytavern-kobold``: SillyTavern presets for KoboldAI and KoboldCpp (``KoboldAI
Settings/<name>.json``).

Detected, read and written as the shared one-table preset format of table ``KOBOLD``
(``_common/stpreset_adapter.py``, ``_common/stpresets.py``).
"""

from .._common.stpreset_adapter import one_table_format

SillyTavernKoboldAdapter = one_table_format(__name__, "SillyTavernKoboldAdapter", "KOBOLD")

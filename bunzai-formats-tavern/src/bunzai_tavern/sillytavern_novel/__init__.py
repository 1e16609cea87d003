"""``sillytavern-novel``: SillyTavern presets for NovelAI (``NovelAI Settings/<name>.json``).

Detected, read and written as the shared one-table preset format of table ``NOVEL``
(``_common/stpreset_adapter.py``, ``_common/stpresets.py``).
"""

from .._common.stpreset_adapter import one_table_format

SillyTavernNovelAdapter = one_table_format(__name__, "SillyTavernNovelAdapter", "NOVEL")

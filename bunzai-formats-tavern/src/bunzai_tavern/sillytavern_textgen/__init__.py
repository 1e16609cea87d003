"""``sillytavern-textgen``: SillyTavern text-completion presets for text-generation-webui and the
other text-generation APIs (``TextGen Settings/<name>.json``).

Detected, read and written as the shared one-table preset format of table ``TEXTGEN``
(``_common/stpreset_adapter.py``, ``_common/stpresets.py``).
"""

from .._common.stpreset_adapter import one_table_format

SillyTavernTextGenAdapter = one_table_format(__name__, "SillyTavernTextGenAdapter", "TEXTGEN")

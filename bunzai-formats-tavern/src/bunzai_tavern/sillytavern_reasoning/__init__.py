"""``sillytavern-reasoning``: SillyTavern reasoning formatting (``reasoning/<name>.json``): prefix,
suffix, separator.

Detected, read and written as the shared one-table preset format of table ``REASONING``
(``_common/stpreset_adapter.py``, ``_common/stpresets.py``).
"""

from .._common.stpreset_adapter import one_table_format

SillyTavernReasoningAdapter = one_table_format(__name__, "SillyTavernReasoningAdapter", "REASONING")

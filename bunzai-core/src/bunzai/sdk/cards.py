"""Character Cards for format adapters: V1/V2/V3 JSON <-> canonical, and the PNG conventions.

Every format that embeds a Tavern character card reads and writes it through these functions,
so a field means the same thing in every format (see :mod:`bunzai.cardspec`).
"""

from .. import cardspec
from ..cardspec import *  # noqa: F403  (the names of its __all__)
from ..cardspec.lorebook import ENTRY_KEYS
from ..io.containers import pngcard
from ..io.containers.pngcard import *  # noqa: F403  (the names of its __all__)

__all__ = ["ENTRY_KEYS"]
__all__ += cardspec.__all__
__all__ += pngcard.__all__

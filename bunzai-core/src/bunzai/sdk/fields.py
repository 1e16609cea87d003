"""Field tables for format adapters: one JSON object's keys <-> canonical attributes, with the
object's layout (``passthrough``) and unknown keys (``app_data``) kept for a faithful rewrite.

The same tables read and write core's Character Card JSON, so a key means the same thing in
every format; how reading splits an object and how writing restores it is described in
:mod:`bunzai.fields`.
"""

from ..fields import *  # noqa: F403  (the names of bunzai.fields' __all__)
from ..fields import __all__ as __all__

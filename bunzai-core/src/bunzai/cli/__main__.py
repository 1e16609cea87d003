"""``python -m bunzai.cli``: the ``bunzai`` command."""

from . import main

main()

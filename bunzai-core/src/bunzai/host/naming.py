"""Which format a file already in an output's way holds: what lets the naming rule
(:func:`bunzai.io.outputs.place`) keep another format's output and replace only an earlier one
of the same target."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BunzaiError

if TYPE_CHECKING:
    from ..io.input import AdapterInput
    from ..io.outputs import Earlier, OutputFile
    from .detection import DetectionReport


def earlier_output(detect: Callable[[AdapterInput], DetectionReport], target: str) -> Earlier:
    """A test of whether the file at a path is an earlier output of ``target``: ``detect``
    (the registry's) names ``target``, or names the same format as the file about to be
    written (a writer whose output detection names otherwise still matches its earlier output),
    or names nothing for both.  Run only when a name is taken, so writing into a fresh folder
    pays nothing for it."""
    from ..io.input import AdapterInput

    def winner(inp: AdapterInput) -> str | None:
        w = detect(inp).winner
        return w.format if w is not None else None

    def earlier(path: Path, ours: OutputFile) -> bool:
        try:
            theirs = winner(AdapterInput.from_path(path))
        except (BunzaiError, OSError):
            return False  # a folder, an unreadable file: not ours to replace
        if theirs == target:
            return True
        try:
            return theirs == winner(AdapterInput(ours.data, path.name))
        except BunzaiError:
            return False

    return earlier

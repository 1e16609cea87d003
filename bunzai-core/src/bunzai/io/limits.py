"""Safety limits applied before any large allocation.

Defaults are sized for real cards (which reach 20 MB and more, mostly embedded images) and can be
raised per run (``--max-size``) or through the environment, so a limit hit always tells the user
which knob to turn.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace

from ..errors import words

MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Upper bounds for untrusted input; every field has an env var ``BUNZAI_<FIELD>``."""

    max_size: int = 256 * MB
    """Largest input file accepted."""
    max_text_chunk: int = 64 * MB
    """Largest inflated zTXt/iTXt payload."""
    max_entry_size: int = 256 * MB
    """Largest single zip entry, uncompressed."""
    max_archive_size: int = 1024 * MB
    """Largest total uncompressed size of all entries in one archive."""
    max_ratio: int = 200
    """Largest compression ratio of a zip entry or text chunk (bombs exceed it)."""
    max_entries: int = 10_000
    """Most entries in one archive."""
    max_base64: int = 128 * MB
    """Largest base64 payload decoded."""
    stream_above: int = 8 * MB
    """Files larger than this are read from disk as a reader asks for them (a chat log line
    by line) instead of all at once."""

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Limits:
        """Defaults overridden by ``BUNZAI_MAX_SIZE`` and friends (integers, bytes)."""
        env = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for f in fields(cls):
            raw = env.get(setting_env(f.name))
            if raw:
                try:
                    values[f.name] = int(raw)
                except ValueError:
                    continue
        return cls(**values)

    def replace(self, **changes: int) -> Limits:
        return replace(self, **changes)


def setting_env(name: str) -> str:
    """The environment variable that controls limit ``name``."""
    return f"BUNZAI_{name.upper()}"


def setting_hint(name: str) -> str:
    """How a user raises limit ``name``, in the words of the front end at work (``--max-size``
    on the command line, ``set_limits`` from Python) where it has a setting, and the env var."""
    if name in words():
        return f"{words()[name]} or {setting_env(name)}"
    return setting_env(name)


_current = Limits.from_env()


def get_limits() -> Limits:
    """The limits in force for this process."""
    return _current


def set_limits(limits: Limits) -> None:
    """Replace the process-wide limits (the CLI does this for ``--max-size``)."""
    global _current
    _current = limits

"""Zip archives for format adapters: read safely (no traversal, bombs or duplicates), write."""

from ..containers.zipsafe import (
    SafeZip,
    ZipEntry,
    entry_name_problem,
    normalize_entry_name,
    write_zip,
)

__all__ = ["SafeZip", "ZipEntry", "entry_name_problem", "normalize_entry_name", "write_zip"]

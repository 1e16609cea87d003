"""Zip archives for format adapters: read safely (no traversal, bombs or duplicates), write.

A reader gets its input's archive from :meth:`AdapterInput.zip_archive` and a JSON member from
:meth:`AdapterInput.zip_object`, whose errors name the member and the problem; detectors use
the shared read-only views ``AdapterInput.zip`` and ``zip_json``.
"""

from ..io.containers.zipsafe import (
    SafeZip,
    ZipEntry,
    entry_name_problem,
    normalize_entry_name,
    write_zip,
)

__all__ = ["SafeZip", "ZipEntry", "entry_name_problem", "normalize_entry_name", "write_zip"]

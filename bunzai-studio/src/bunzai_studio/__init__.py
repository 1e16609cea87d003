"""bunzai studio: a local web page over bunzai's engine.

A person drops files and sees what bunzai sees (container, detection, origin, validation, the
entity itself), converts to any format of the same kind and reads the loss report before
downloading.  All of that is core (:mod:`bunzai.api`, the registry, ``summarize``, ``label``,
``file_issues``); this package adds only HTTP, the page and its safety rules.

Importing this package is cheap: the web stack is imported when ``bunzai studio`` runs.
"""

from __future__ import annotations

__version__ = "0.1.0"

DEFAULT_MAX_UPLOAD = 64 * 1024 * 1024
"""Largest upload the studio accepts unless told otherwise (``--max-upload``)."""
ENV_MAX_UPLOAD = "BUNZAI_STUDIO_MAX_UPLOAD"
"""The environment variable that sets it; here, not in ``uploads``, so that ``bunzai --help``
(which lists the studio's command) imports nothing of the studio's upload handling."""

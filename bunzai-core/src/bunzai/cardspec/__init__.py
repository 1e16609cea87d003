"""The Character Card codec: CCv1/V2/V3 JSON bodies <-> the canonical model.

Every format that embeds a Tavern character card (SillyTavern JSON and PNG, RisuAI CharX
``card.json`` and PNG, RoleCall, pygmalion.chat wrappers) reads and writes the card through
these functions instead of its own mapping, so a field means the same thing everywhere:

* :func:`parse_card` / :func:`build_card`: a card object <-> :class:`~bunzai.model.Character`
* :func:`parse_book` / :func:`build_book`: a ``character_book`` <-> :class:`~bunzai.model.Lorebook`
* :func:`entry_from_v2` / :func:`entry_to_v2`: one book entry, with SillyTavern's
  ``entry.extensions`` settings lifted into canonical fields (reused by world-info adapters)
* :func:`parse_st_regex` / :func:`build_st_regex`: a SillyTavern regex script <-> canonical
* :func:`card_version`, :func:`is_card`, :func:`is_really_v3`, :func:`card_body`: import-light
  detection helpers
* :func:`validate_card`: spec violations with JSON paths

Unknown keys are kept as ``app_data[format_id]`` and the source's layout as
``passthrough[format_id]`` of the entity, its lorebook, each entry, asset and regex script;
only a writer called with the same ``format_id`` restores them.  Importing this package does not
build any pydantic model.
"""

from __future__ import annotations

from .card import (
    COMPLETED_KEYS,
    DATA_KEYS,
    OBSOLESCENCE_NOTICE,
    ROOT_MIRRORS,
    build_card,
    card_digest,
    completed_digest,
    digest_matches,
    parse_card,
    resolve_data_uri,
)
from .detect import (
    SPEC_V2,
    SPEC_V3,
    V1_SIGNALS,
    V3_ONLY_DATA_KEYS,
    card_body,
    card_version,
    is_card,
    is_really_v3,
    looks_like_v1,
)
from .lorebook import (
    ST_ENTRY_EXTENSIONS,
    build_book,
    entry_from_v2,
    entry_to_v2,
    parse_book,
    st_extensions_from_entry,
)
from .regex import (
    PLACEMENT_CODES,
    build_st_regex,
    join_find_regex,
    parse_st_regex,
    split_find_regex,
)
from .validate import validate_book, validate_card

__all__ = [
    "COMPLETED_KEYS",
    "DATA_KEYS",
    "OBSOLESCENCE_NOTICE",
    "PLACEMENT_CODES",
    "ROOT_MIRRORS",
    "SPEC_V2",
    "SPEC_V3",
    "ST_ENTRY_EXTENSIONS",
    "V1_SIGNALS",
    "V3_ONLY_DATA_KEYS",
    "build_book",
    "build_card",
    "build_st_regex",
    "card_body",
    "card_digest",
    "card_version",
    "completed_digest",
    "digest_matches",
    "entry_from_v2",
    "entry_to_v2",
    "is_card",
    "is_really_v3",
    "join_find_regex",
    "looks_like_v1",
    "parse_book",
    "parse_card",
    "parse_st_regex",
    "resolve_data_uri",
    "split_find_regex",
    "st_extensions_from_entry",
    "validate_book",
    "validate_card",
]

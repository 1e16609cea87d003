"""Chats for format adapters: times as each app writes them, and what every chat writer shares
to report what a chat format cannot hold (see :mod:`bunzai.chats`)."""

from ..chats import (
    EXTRA,
    chat_fields_only,
    extra_of,
    extra_paths,
    foreign_extras,
    is_empty,
    layout_of,
    report_messages,
    report_unkept,
)
from ..chattime import (
    EPOCH,
    FORMS,
    exact_in,
    format_time,
    from_epoch_ms,
    parse_time,
    restore,
    to_epoch_ms,
)

__all__ = [
    "EPOCH", "EXTRA", "FORMS", "chat_fields_only", "exact_in", "extra_of", "extra_paths",
    "foreign_extras", "format_time", "from_epoch_ms", "is_empty", "layout_of", "parse_time",
    "report_messages", "report_unkept", "restore", "to_epoch_ms",
]

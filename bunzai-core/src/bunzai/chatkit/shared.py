"""What every chat format declares and does the same way, written once.

The declarations: a chat format's ``carries`` and ``reasons`` name message fields as
``messages[*].<field>`` (:func:`message`), give one reason for several paths
(:func:`because`), most often for the chat's own texts a format has no place for
(:data:`CHAT_TEXTS`), and say that other apps' extensions have no place in the file, on the
chat and on each message (:func:`no_extensions`).

The reading and writing: a chat keeps its layout in ``passthrough[format_id]`` and its app's
own keys in ``app_data[format_id]`` (:func:`layout_of`, :func:`data_of`, :func:`record`); a
text is a field's when it is text, else kept raw (:func:`take_text`) for the writer, which
writes a value, else what was kept (:func:`put_kept`); a JSON chat file is one object, refused
when it is not one (:func:`json_object`), and written back in its layout (:func:`json_file`);
a message with a single alternative that holds something is one a format keeping swipes only
from two on reports (:func:`lone_alternative`); participants a file does not name as they were
are reported (:func:`report_participants`); the first wall-clock text of an object is what a
reader notes its zone for (:func:`wall_note`).

Import-light: adapter modules import the declarations to detect; the io names load what they
need on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..io.input import AdapterInput
    from ..io.outputs import OutputFile
    from ..loss.report import LossReport

MESSAGE = "messages[*]."
"""The pattern prefix of a field of every message."""

CHAT_TEXTS: tuple[str, ...] = ("title", "created", "notes", "memory", "scenario", "greeting",
                               "example_dialogue", "system_prompt", "branch_of", "lorebook")
"""The chat's own fields beside its participants, zone, messages and extensions: what a file
that holds only the messages has no place for."""


def message(*fields: str) -> tuple[str, ...]:
    """``messages[*].<field>`` for each of ``fields``."""
    return tuple(MESSAGE + f for f in fields)


def because(why: str, *paths: str) -> tuple[tuple[str, str], ...]:
    """One reason for several paths: ``(path, why)`` rows of a ``reasons`` table."""
    return tuple((p, why) for p in paths)


def no_extensions(app: str, *more: str) -> tuple[tuple[str, str], ...]:
    """The reason rows for other apps' extensions, which ``app``'s files have no place for:
    the chat's, each message's and ``more`` paths."""
    return because(f"{app} has no place for other apps' extensions",
                   "extensions", *more, MESSAGE + "extensions")


def layout_of(obj: Any, fmt: str) -> dict[str, Any]:
    """``obj.passthrough[fmt]``: the object's layout in this format (empty when none)."""
    layout = obj.passthrough.get(fmt)
    return layout if isinstance(layout, dict) and layout else {}


def data_of(obj: Any, fmt: str) -> dict[str, Any]:
    """``obj.app_data[fmt]``: the format's own data on the object (empty when none)."""
    data = obj.app_data.get(fmt)
    return data if isinstance(data, dict) and data else {}


def record(mine: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """A nested layout record (``{}`` when absent or not an object)."""
    value = mine.get(key)
    return value if isinstance(value, Mapping) else {}


def take_text(obj: Mapping[str, Any], key: str, fields: dict[str, Any], field: str,
              raw: dict[str, Any], *, empty: bool = True) -> None:
    """Read a text the way chat readers do: ``obj[key]`` into ``fields[field]`` when it is
    text (and not empty, unless ``empty``); any other value the key holds is kept in ``raw`` as
    it was, for the writer to put back."""
    value = obj.get(key)
    if isinstance(value, str) and (empty or value):
        fields[field] = value
    elif key in obj:
        raw[key] = value


def put_kept(out: dict[str, Any], key: str, value: Any, kept: Mapping[str, Any]) -> None:
    """``value`` under ``key`` when it says something, else what the source held there as the
    reader kept it in ``kept``: a value the reader took for none is written back as it was."""
    if value:
        out[key] = value
    elif key in kept:
        out[key] = kept[key]


def json_object(input: AdapterInput, refusal: str, indent: int | None = None
                ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The file's JSON object (a copy the reader may change) and its layout
    (:func:`bunzai.io.jsonio.sniff_layout`, ``indent`` being the app's usual one); a file that
    is no JSON object is refused with ``refusal``."""
    from ..errors import MalformedInput
    from ..io.jsonio import sniff_layout

    data = input.json_mutable()
    if not isinstance(data, dict):
        raise MalformedInput(refusal)
    return data, sniff_layout(input.data, indent)


def json_file(doc: Any, layout: Any, indent: int | None = None) -> OutputFile:
    """A chat document as the ``.json`` file its layout says (``indent``: the app's usual)."""
    from ..io.jsonio import dumps_layout
    from ..io.outputs import OutputFile

    return OutputFile(dumps_layout(doc, layout, indent), ".json")


def lone_alternative(m: Any) -> bool:
    """A message with one alternative that holds something: formats keep swipes only when
    there are two or more, so a writer reports it dropped (an empty one is no loss)."""
    if len(m.alternatives) != 1:
        return False
    a = m.alternatives[0]
    return bool(a.text or a.time is not None or a.reasoning or a.app_data)


def report_participants(chat: Any, kept: list[int], loss: LossReport, why: str) -> None:
    """Participants a chat file does not name as they were.

    ``kept`` are the indices of the participants the file names, in the order reading finds
    them: the rest are dropped, and when the named ones move, the list as a whole changes.
    """
    if kept == list(range(len(kept))):
        for i in range(len(kept), len(chat.participants)):
            loss.dropped(f"participants[{i}]", why)
    else:
        loss.approximated("participants", why)


def wall_note(obj: Mapping[str, Any], keys: Iterable[str]) -> Any:
    """The first wall-clock text (no zone) among ``obj``'s ``keys``, else None."""
    from .times import is_wall

    for key in keys:
        value = obj.get(key)
        if value is not None and is_wall(value):
            return value
    return None

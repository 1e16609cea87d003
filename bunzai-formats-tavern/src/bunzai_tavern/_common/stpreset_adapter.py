"""The adapter shape every SillyTavern preset format shares: one flat object, one field table.

Kept import-light (detection imports every adapter): the tables are imported when a file is
read or written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from bunzai.sdk import Detection, FormatAdapter, ReadResult, WriteResult

from .options import indent_option

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

SECTION_REASONS = {
    "sampling": "holds no generation settings",
    "instruct": "holds no instruct sequences",
    "context": "holds no context template",
    "system_prompt": "holds no system prompt",
    "reasoning": "holds no reasoning formatting",
    "chat_completion": "holds no chat-completion prompt list",
}
"""What a file of one part lacks, by section."""

REQUIRED: dict[str, dict[str, Any]] = {
    "INSTRUCT": {"input_sequence": "", "output_sequence": ""},
    "CONTEXT": {"story_string": ""},
    "SYSPROMPT": {"content": ""},
    "REASONING": {"prefix": "", "suffix": "", "separator": ""},
    "TEXTGEN": {"temp": 1, "rep_pen": 1, "typical_p": 1},
    "KOBOLD": {"temp": 1, "rep_pen": 1, "typical": 1},
    "NOVEL": {"order": [], "repetition_penalty_range": 0},
}
"""Keys SillyTavern's importer needs (preset-manager.js ``isPossibly…Data``) and the keys that
tell one API's preset from another's, filled in with values that change nothing when a
converted preset has none."""


FILLED_WHILE: dict[str, tuple[str, tuple[Any, ...]]] = {
    "repetition_penalty_range": ("repetition_penalty", (None, 1)),
}
"""A required key whose filler changes what the preset does while another sampler is on:
NovelAI's penalty range 0 covers the whole context once the penalty is not 1."""


@dataclass(frozen=True)
class Looks:
    """One way a file of a preset format looks, and the score detection gives it: each key of
    ``text`` holds a string, each of ``has`` is there, none of ``lacks``, one of ``any_of`` (when
    given), each of ``seq`` holds a sequence, and the object has no key outside ``only`` (when
    given)."""

    score: float
    situation: str
    """The case in the format's detection table."""
    why: str
    """The reason detection gives for a file that looks so."""
    text: tuple[str, ...] = ()
    has: tuple[str, ...] = ()
    lacks: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()
    seq: tuple[str, ...] = ()
    only: frozenset[str] | None = None

    def fits(self, data: Mapping[str, Any]) -> bool:
        return (all(isinstance(data.get(k), str) for k in self.text)
                and all(k in data for k in self.has)
                and not any(k in data for k in self.lacks)
                and (not self.any_of or any(k in data for k in self.any_of))
                and all(isinstance(data.get(k), Sequence) for k in self.seq)
                and (self.only is None or set(data) <= self.only))

    @property
    def mark(self) -> str:
        """The first key a file must have to look so (the format's detection signature)."""
        return (*self.text, *self.has, *self.seq)[0]


@dataclass(frozen=True)
class OneTable:
    """A preset format that is one field table and nothing else: its declaration."""

    format_id: str
    label: str
    section: str
    """The section whose name the file's ``name`` is (for a master export's parts)."""
    looks: tuple[Looks, ...]
    """How its files look, best first."""


FORMATS: dict[str, OneTable] = {
    "INSTRUCT": OneTable("sillytavern-instruct", "SillyTavern instruct template", "instruct", (
        Looks(0.9, "object with string input_sequence and output_sequence",
              "SillyTavern instruct template (input_sequence, output_sequence)",
              text=("input_sequence", "output_sequence"), lacks=("story_string",)),)),
    "CONTEXT": OneTable("sillytavern-context", "SillyTavern context template", "context", (
        Looks(0.9, "object with a string story_string",
              "SillyTavern context template (story_string)",
              text=("story_string",), lacks=("input_sequence",)),)),
    "SYSPROMPT": OneTable("sillytavern-sysprompt", "SillyTavern system prompt", "system_prompt", (
        Looks(0.85, "object of only name, content and post_history",
              "SillyTavern system prompt (name, content)", text=("content", "name"),
              only=frozenset({"name", "content", "post_history"})),
        Looks(0.6, "object of only content and post_history", "a system prompt without a name",
              text=("content",), only=frozenset({"content", "post_history"})))),
    "REASONING": OneTable("sillytavern-reasoning", "SillyTavern reasoning template", "reasoning", (
        Looks(0.85, "object of only name, prefix, suffix and separator",
              "SillyTavern reasoning template (prefix, suffix, separator)",
              text=("prefix", "suffix"),
              only=frozenset({"name", "prefix", "suffix", "separator"})),)),
    "TEXTGEN": OneTable("sillytavern-textgen", "SillyTavern text-completion preset", "sampling", (
        Looks(0.85, "temp and rep_pen with typical_p, sampler_priority or temperature_last",
              "SillyTavern text-completion preset (temp, rep_pen, typical_p)",
              has=("temp", "rep_pen"), lacks=("typical",),
              any_of=("typical_p", "sampler_priority", "temperature_last")),
        Looks(0.5, "temp and rep_pen alone",
              "temp and rep_pen without another text-generation key",
              has=("temp", "rep_pen"), lacks=("typical",)))),
    "KOBOLD": OneTable("sillytavern-kobold", "SillyTavern KoboldAI preset", "sampling", (
        Looks(0.85, "temp and rep_pen with typical (not typical_p)",
              "SillyTavern KoboldAI preset (temp, rep_pen, typical)",
              has=("temp", "rep_pen", "typical"), lacks=("typical_p",)),)),
    "NOVEL": OneTable("sillytavern-novel", "SillyTavern NovelAI preset", "sampling", (
        Looks(0.85, "an order list with tail_free_sampling, phrase_rep_pen or "
                    "repetition_penalty_range",
              "SillyTavern NovelAI preset (order, NovelAI's sampler keys)",
              seq=("order",), lacks=("temp",),
              any_of=("tail_free_sampling", "phrase_rep_pen", "repetition_penalty_range")),)),
}
"""The one-table formats by table (the keys that tell one API's preset from another's, as in
:data:`REQUIRED`); each format's folder makes its adapter with :func:`one_table_format`."""


def _report_filled(entity: Any, key: str, value: Any, loss: Any) -> None:
    switch = FILLED_WHILE.get(key)
    if switch is None or getattr(entity.sampling, switch[0], None) in switch[1]:
        return
    loss.approximated(f"sampling.{key}", f"SillyTavern's import needs {key}: written as "
                                         f"{value!r} (the preset had none)")


def reasons_for(label: str, sections: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple((s, f"{label} {why}") for s, why in SECTION_REASONS.items()
                 if s not in sections)


class StPresetAdapter(FormatAdapter):
    """Base of SillyTavern's one-object preset formats (set ``table`` and ``section``)."""

    kind = "preset"
    suffix = ".json"
    table: ClassVar[str] = ""
    """Name of the field table in :mod:`._common.stpresets`."""
    section: ClassVar[str] = ""
    """The section whose name the file's ``name`` is (for a master export's parts)."""
    options = (indent_option(4, "JSON indent (SillyTavern saves with 4); 0 is compact"),)

    def score(self, data: Any) -> tuple[float, str]:
        """(score, reason) for a file's parsed JSON by the first of its table's looks it
        fits."""
        if isinstance(data, Mapping):
            for look in FORMATS[self.table].looks:
                if look.fits(data):
                    return look.score, look.why
        return 0.0, ""

    def detect(self, input: AdapterInput) -> Detection:
        s, why = self.score(input.json)
        return Detection(s, why)

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
        from . import stpresets

        return stpresets.read_preset(input, getattr(stpresets, self.table), self.format_id)

    def write(self, entity: Any, options: Mapping[str, Any]) -> WriteResult:
        from bunzai.sdk import LossReport, OutputFile, dumps_layout

        from . import stpresets

        table = getattr(stpresets, self.table)
        rec = stpresets.own(entity.passthrough, self.format_id)
        data = stpresets.own(entity.app_data, self.format_id)
        loss = LossReport()
        base = stpresets.section_get(entity)
        name = stpresets.part_name(entity, self.section)

        def get(attr: str) -> Any:
            return name if attr == "name" else base(attr)

        obj = stpresets.write_object(entity, table, rec.get("table"), data, loss, get=get)
        if name != entity.name:  # a master export's part keeps the part's own name
            loss.approximated("name", f"the file is named after its part: {name!r} "
                                      f"(the preset was {entity.name!r})")
        for key, value in REQUIRED.get(self.table, {}).items():
            if key not in obj:
                obj[key] = value
                _report_filled(entity, key, value, loss)
        text = dumps_layout(obj, rec.get("json"), 4, options)
        return WriteResult([OutputFile(text, ".json")], loss)

    @classmethod
    def carried(cls) -> tuple[str, ...]:
        """The canonical paths the table carries (for ``carries``)."""
        from . import stpresets

        return getattr(stpresets, cls.table).attrs()


def one_table_format(module: str, name: str, table: str) -> type[StPresetAdapter]:
    """The adapter class ``name`` of module ``module`` for the one-table format of ``table``
    (:data:`FORMATS`): its detection, signature, alias ("st-" and the part of its id after
    "sillytavern-"), reasons (by its section) and carried paths all follow from the table."""
    spec = FORMATS[table]
    cls = type(name, (StPresetAdapter,), {
        "__module__": module, "__qualname__": name, "__doc__": f"{spec.label}.",
        "format_id": spec.format_id, "label": spec.label, "table": table,
        "section": spec.section,
        "aliases": ("st-" + spec.format_id.removeprefix("sillytavern-"),),
        "signature": {"json": (spec.looks[0].mark,)},
        "detection": tuple((look.situation, look.score) for look in spec.looks),
        "reasons": reasons_for(f"a {spec.label}", (spec.section,)),
    })
    cls.carries = cls.carried()
    return cls

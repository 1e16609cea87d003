"""The adapter shape every SillyTavern preset format shares: one flat object, one field table.

Kept import-light (detection imports every adapter): the tables are imported when a file is
read or written.
"""

from __future__ import annotations

from collections.abc import Mapping
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
        raise NotImplementedError

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

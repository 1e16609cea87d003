"""``vaud-json``: core's native format, the canonical model serialized as JSON.

Like pandoc's native format it loses nothing: every canonical field, every extension block and
every format's passthrough travels.  It is registered as a default plugin, through the same path
an entry point uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import Issue, MalformedInput
from ..host.adapter import FormatAdapter
from ..host.types import Detection, ReadResult, WriteResult
from ..io.frozen import unfrozen
from ..io.outputs import OutputFile
from ..kinds import ANY_KIND, KINDS
from ..loss.report import LossReport

if TYPE_CHECKING:
    from ..io.input import AdapterInput
    from ..model import Entity

BUNDLE_KEY = "vaud_bundle"


def _is_entity(obj: Any) -> bool:
    return (_is_object(obj) and obj.get("kind") in KINDS
            and isinstance(obj.get("schema_version"), str))


def _is_object(value: Any) -> bool:
    """A JSON object (a parsed one is a dict; any other mapping is one too)."""
    return type(value) is dict or isinstance(value, Mapping)


class VaudJsonAdapter(FormatAdapter):
    """bunzai's canonical model as JSON: lossless for every kind."""

    format_id = "vaud-json"
    kind = ANY_KIND  # the native format holds every kind
    label = "bunzai canonical JSON (Vaud)"
    suffix = ".vaud.json"
    multi = True
    aliases = ("vaud", "native")
    carries_passthrough = True
    # any JSON document scores (0.1 for one that is not canonical); nothing else does
    signature = {"json": ()}
    detection = (
        ("a canonical entity or bundle (kind + schema_version)", 1.0),
        ("any other parseable JSON", 0.1),
        ("not JSON", 0.0),
    )
    losses = ()
    doc = "docs/formats/vaud-json.md"

    def detect(self, input: AdapterInput) -> Detection:
        data = unfrozen(input.json)  # only looked at: the parse, not read-only views of it
        if data is None:
            return Detection(0.0)
        if _is_entity(data):
            return Detection(1.0, f"canonical {data['kind']} entity, schema "
                                  f"{data['schema_version']}")
        if _is_object(data) and isinstance(data.get(BUNDLE_KEY), str) \
                and isinstance(data.get("entities"), Sequence):
            return Detection(1.0, "canonical bundle")
        return Detection(0.1, "JSON, but not a canonical entity")

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
        from pydantic import ValidationError

        from ..model import entity_adapter

        data = input.json_mutable()
        items = data["entities"] if isinstance(data, dict) and BUNDLE_KEY in data else [data]
        if not isinstance(items, list) or not items:
            raise MalformedInput("canonical bundle holds no entities")
        adapter = entity_adapter()
        entities = []
        for i, item in enumerate(items):
            try:
                entities.append(adapter.validate_python(item))
            except ValidationError as exc:
                first = exc.errors()[0]
                loc = ".".join(str(p) for p in first["loc"])
                where = f"entities[{i}]." if len(items) > 1 else ""
                raise MalformedInput(
                    f"not a valid canonical entity: {where}{loc}: {first['msg']} "
                    f"({exc.error_count()} problem(s))") from None
        return ReadResult(entities)

    def write_many(self, entities: Sequence[Entity], options: Mapping[str, Any]) -> WriteResult:
        from ..io.jsonio import dumps
        from ..model import SCHEMA_VERSION

        docs = [dump_entity(e) for e in entities]
        doc: Any = docs[0] if len(docs) == 1 else {BUNDLE_KEY: SCHEMA_VERSION, "entities": docs}
        return WriteResult([OutputFile(dumps(doc, indent=2) + b"\n", self.suffix)], LossReport())

    def validate(self, input: AdapterInput, entities: Sequence[Entity]) -> list[Issue]:
        from ..model import SCHEMA_VERSION
        issues = []
        for e in entities:
            if e.schema_version != SCHEMA_VERSION:
                issues.append(Issue("$.schema_version", f"schema {e.schema_version} differs from "
                                    f"this bunzai's {SCHEMA_VERSION}"))
        return issues


def dump_entity(entity: Entity) -> dict[str, Any]:
    """The JSON form of an entity: ``kind`` and ``schema_version`` first, defaults omitted."""
    body = entity.model_dump(mode="json", exclude_defaults=True)
    body.pop("kind", None)
    body.pop("schema_version", None)
    return {"kind": entity.kind, "schema_version": entity.schema_version, **body}

"""The OpenAPI 3.1 description of the studio's HTTP API, served at ``/openapi.json``.

Written by hand because Starlette does not derive one; a test checks that every route the app
serves under ``/api`` is described here, so the two cannot drift apart silently.
"""

from __future__ import annotations

from typing import Any

from . import __version__


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _error(description: str) -> dict[str, Any]:
    return _json(_ref("Error"), description)


_FILE = {"type": "string", "format": "binary", "description": "the file to read"}
_FROM = {"type": "string", "description": "skip detection and read the file as this format "
                                          "(id or alias), like the CLI's --from"}

_SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "description": "A refusal, worded exactly like the CLI's one-line error. Inspect and "
                       "convert errors also carry whatever detection found before it failed.",
        "properties": {
            "error": {"type": "string", "examples": [
                "photo.png: unrecognized: no format scored 0.5 or more on this png file"]},
            "exit_code": {"type": "integer", "description": "the CLI's exit code for it"},
            "error_type": {"type": "string", "examples": ["UnrecognizedInput"]},
        },
    },
    "Candidate": {
        "type": "object",
        "properties": {"format": {"type": "string"}, "kind": {"type": "string"},
                       "score": {"type": "number", "minimum": 0, "maximum": 1},
                       "reason": {"type": "string"}},
    },
    "Fault": {"type": "object",
              "properties": {"format": {"type": "string"}, "message": {"type": "string"}}},
    "Issue": {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "JSON path ($.data.name)"},
                       "message": {"type": "string"},
                       "severity": {"enum": ["error", "warning"]}},
    },
    "LossEntry": {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "canonical field path"},
                       "action": {"enum": ["dropped", "approximated", "stashed"]},
                       "reason": {"type": "string"}},
    },
    "Target": {
        "type": "object",
        "properties": {"format": {"type": "string"}, "label": {"type": "string"},
                       "kind": {"type": "string"}, "suffix": {"type": "string"},
                       "aliases": {"type": "array", "items": {"type": "string"}},
                       "options": {"type": "array", "items": _ref("Option")}},
    },
    "Option": {
        "type": "object",
        "description": "a reader or writer option the format declares; others are refused",
        "properties": {"name": {"type": "string"}, "type": {"enum": ["bool", "int", "str"]},
                       "choices": {"type": "array"}, "default": {},
                       "help": {"type": "string"}, "reader": {"type": "boolean"}},
    },
    "LossGroup": {
        "type": "object",
        "description": "report entries with one action and reason whose paths differ only in "
                       "their indices ([*])",
        "properties": {"path": {"type": "string"}, "action": {"type": "string"},
                       "reason": {"type": "string"}, "count": {"type": "integer"},
                       "paths": {"type": "array", "items": {"type": "string"}}},
    },
    "Detection": {
        "type": "object",
        "properties": {
            "file": {"type": "string"}, "size": {"type": "integer"},
            "container": {"type": "string"},
            "format": {"type": ["string", "null"]}, "kind": {"type": ["string", "null"]},
            "confidence": {"type": ["number", "null"]},
            "status": {"enum": ["ok", "ambiguous", "unrecognized", "unreadable", "usage",
                                "refused"]},
            "candidates": {"type": "array", "items": _ref("Candidate")},
            "faults": {"type": "array", "items": _ref("Fault")},
            "tied": {"type": "array", "items": {"type": "string"}},
            "container_error": {"type": "string"},
        },
    },
    "InspectResult": {
        "allOf": [_ref("Detection"), {
            "type": "object",
            "properties": {
                "format_label": {"type": "string"},
                "read_as": {"type": ["string", "null"],
                            "description": "the format asked for with 'from', if any"},
                "warnings": {"type": "array", "items": _ref("Issue")},
                "issues": {"type": "array", "items": _ref("Issue"),
                           "description": "what 'bunzai validate' reports"},
                "valid": {"type": "boolean"},
                "label": {"type": "object", "description": "what 'bunzai label --json' "
                                                           "reports: app, origin, last_writer"},
                "entities": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "summary": {"type": "object", "description": "the inspect summary"},
                        "view": {"type": "object", "description": (
                            "every canonical field; assets carry sniffed_type, size and, for "
                            "raster images only, a data: URL preview; passthrough is named "
                            "in passthrough_formats")},
                    }}},
                "targets": {"type": "array", "items": _ref("Target"),
                            "description": "writable formats of the same kind"},
                "output_stem": {"type": "string"},
                "active_content": {"type": "string",
                                   "description": "what 'bunzai inspect' counts on one line"},
                "audit": {"type": "object", "description": (
                    "what 'bunzai audit --json' reports: summary, and findings (path, app, "
                    "kind, what, when, excerpt, name, count, line); excerpts are text")},
            }}],
    },
    "ConvertResult": {
        "type": "object",
        "properties": {
            "file": {"type": "string"}, "container": {"type": "string"},
            "format": {"type": "string"}, "kind": {"type": "string"},
            "confidence": {"type": ["number", "null"]},
            "candidates": {"type": "array", "items": _ref("Candidate")},
            "to": {"type": "string"}, "to_label": {"type": "string"},
            "loss": {"type": "array", "items": _ref("LossEntry")},
            "loss_summary": {"type": "string", "description": "12 dropped, 3 approximated"},
            "loss_groups": {"type": "array", "items": _ref("LossGroup")},
            "warnings": {"type": "array", "items": _ref("Issue")},
            "files": {"type": "array", "items": {
                "type": "object",
                "properties": {"name": {"type": "string", "description": "safe file name "
                                        "derived from the entity's name"},
                               "size": {"type": "integer"},
                               "media_type": {"type": "string"},
                               "data": {"type": "string", "contentEncoding": "base64"}}}},
        },
    },
    "Format": {
        "type": "object",
        "description": "one row of 'bunzai formats --json'",
        "properties": {
            "format": {"type": "string"}, "kind": {"type": "string"},
            "label": {"type": "string"}, "description": {"type": "string"},
            "read": {"type": "boolean"}, "write": {"type": "boolean"},
            "multi": {"type": "boolean"}, "suffix": {"type": "string"},
            "aliases": {"type": "array", "items": {"type": "string"}},
            "options": {"type": "object", "additionalProperties": _ref("Option")},
            "default_for_kind": {"type": "boolean"}, "api_version": {"type": "integer"},
            "distribution": {"type": "string"},
            "detection": {"type": "array", "items": {"type": "object"}},
            "dropped": {"type": "array", "items": {"type": "object"}},
            "losses": {"type": "array", "items": {"type": "object"}},
        },
    },
    "Info": {
        "type": "object",
        "properties": {"studio_version": {"type": "string"},
                       "core_version": {"type": "string"},
                       "max_upload": {"type": "integer", "description": "bytes"},
                       "max_upload_hint": {"type": "string"},
                       "formats": {"type": "integer"}},
    },
}


def openapi_schema(max_upload: int) -> dict[str, Any]:
    """The document; ``max_upload`` is stated where it applies."""
    cap = f"Uploads over {max_upload:,} bytes are refused with 413."
    upload_errors = {
        "400": _error("bad request: no file, a repeated field, an unknown format id"),
        "413": _error("the upload is over the size limit"),
        "422": _error("unrecognized, ambiguous or malformed file (the CLI's exit 3 or 4)"),
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "bunzai studio",
            "version": __version__,
            "description": "The HTTP API of the bunzai studio page. Every answer comes from "
                           "bunzai's engine, exactly as the CLI gives it. " + cap,
        },
        "paths": {
            "/api/inspect": {"post": {
                "summary": "What a file is: detection, entity, validation, origin, targets",
                "requestBody": {"required": True, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "required": ["file"],
                               "properties": {"file": _FILE, "from": _FROM}}}}},
                "responses": {"200": _json(_ref("InspectResult"), "the file was read"),
                              **upload_errors},
            }},
            "/api/convert": {"post": {
                "summary": "Convert a file to another format of the same kind",
                "description": "Returns the loss report with the produced files (base64), or "
                               "with download=true the single produced file itself as an "
                               "attachment (its loss count in X-Bunzai-Loss-Entries).",
                "requestBody": {"required": True, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "required": ["file", "to"], "properties": {
                        "file": _FILE,
                        "to": {"type": "string", "description": "target format id or alias"},
                        "from": _FROM,
                        "option": {"type": "array", "items": {"type": "string"},
                                   "description": "writer option KEY=VALUE, repeatable"},
                        "download": {"type": "boolean",
                                     "description": "answer with the file, not JSON"}}}}}},
                "responses": {
                    "200": {"description": "converted", "content": {
                        "application/json": {"schema": _ref("ConvertResult")},
                        "application/octet-stream": {"schema": {"type": "string",
                                                                "format": "binary"}}}},
                    **upload_errors,
                    "409": _error("refused: cross-kind target, or download=true for a "
                                  "conversion that produced several files"),
                },
            }},
            "/api/formats": {"get": {
                "summary": "Installed formats, as 'bunzai formats --json'",
                "parameters": [{"name": "kind", "in": "query", "required": False,
                                "schema": {"type": "string"},
                                "description": "only formats that hold this kind"}],
                "responses": {"200": _json({"type": "array", "items": _ref("Format")},
                                           "the roster"),
                              "400": _error("unknown kind")},
            }},
            "/api/info": {"get": {
                "summary": "Versions and the upload limit",
                "responses": {"200": _json(_ref("Info"), "facts the page needs")},
            }},
            "/openapi.json": {"get": {
                "summary": "This document",
                "responses": {"200": {"description": "OpenAPI 3.1",
                                      "content": {"application/json": {}}}},
            }},
            "/": {"get": {
                "summary": "The studio page (HTML; its script and style are under /static/)",
                "responses": {"200": {"description": "the page",
                                      "content": {"text/html": {}}}},
            }},
        },
        "components": {"schemas": _SCHEMAS},
    }

"""YAML files of text-generation-webui (sampler presets, instruction templates) through PyYAML.

Its files are one flat mapping.  How each value was quoted (plain, '…', "…", a ``|-`` block)
and how the file ends are its layout, so a file read and written again is the same bytes;
without a layout strings with line breaks are written as ``|-`` blocks, as the app saves an
instruction template, and everything else as PyYAML writes it (the app's preset writer).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import MalformedInput


def load(data: bytes, where: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The mapping in ``data`` and its layout; :class:`MalformedInput` for YAML that does not
    parse or is not a mapping."""
    import yaml

    try:
        text = data.decode("utf-8-sig")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        obj = yaml.safe_load(text)
    except UnicodeDecodeError as exc:
        raise MalformedInput(f"{where}: not UTF-8 text") from exc
    except yaml.YAMLError as exc:
        raise MalformedInput(f"{where}: the YAML does not parse: {exc}") from exc
    if not isinstance(obj, dict) or not isinstance(node, yaml.MappingNode):
        raise MalformedInput(f"{where}: expected a YAML mapping of settings")
    styles: dict[str, str] = {}
    for key, value in node.value:
        if isinstance(value, yaml.ScalarNode) and value.style:
            styles[str(key.value)] = value.style
    layout: dict[str, Any] = {"styles": styles}
    plain = dump(obj, {"styles": styles})
    if text != plain:
        if text.startswith(plain):
            layout["tail"] = text[len(plain):]
        elif plain.startswith(text):
            layout["cut"] = len(plain) - len(text)
    return obj, layout


def dump(obj: Mapping[str, Any], layout: Mapping[str, Any] | None = None) -> str:
    """``obj`` as YAML in the layout it was read with (see the module's rules)."""
    import yaml

    layout = layout or {}
    styles = layout.get("styles") if isinstance(layout.get("styles"), dict) else {}
    top = {id(v): styles.get(k) for k, v in obj.items() if isinstance(v, str)}

    class Dumper(yaml.SafeDumper):
        pass

    def represent_str(dumper: Any, value: str) -> Any:
        style = top.get(id(value))
        if style is None and "\n" in value and value == value.rstrip(" ") \
                and not any(line != line.rstrip(" ") for line in value.split("\n")):
            style = "|"
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, represent_str)
    text = yaml.dump(dict(obj), Dumper=Dumper, sort_keys=False, allow_unicode=True,
                     width=float("inf"))
    tail = layout.get("tail")
    if isinstance(tail, str):
        text += tail
    cut = layout.get("cut")
    if isinstance(cut, int) and 0 < cut <= len(text):
        text = text[:-cut]
    return text

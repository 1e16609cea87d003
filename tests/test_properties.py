"""Property tests: random canonical entities through every writable format of their kind.

For each (kind, format) pair hypothesis builds canonical entities, the format writes them, the
same format reads the result back, and every canonical difference must be covered by the loss
report (``bunzai.testing.conversion_problems``).  The entities are ones a reader could produce:
``media_type`` is what the bytes sniff as, positions, logic and placements come from the model's
vocabularies, and there is no passthrough (that is covered by the conformance kit).

Runs are derandomized (the same examples every time, so CI cannot fail by chance) and bounded
(``MAX_EXAMPLES`` per pair).  Set ``BUNZAI_PROPERTY_EXAMPLES`` to search longer locally.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bunzai.host.registry import Registry
from bunzai.io.containers.media import sniff_media
from bunzai.io.containers.png import minimal_png
from bunzai.io.input import as_input
from bunzai.model import (
    ATTACHMENT_TYPES,
    PLACEMENTS,
    POSITIONS,
    ROLES,
    SELECTIVE_LOGIC,
    Alternative,
    Asset,
    Attachment,
    Character,
    Chat,
    ChatMessage,
    Lorebook,
    LorebookEntry,
    Module,
    Participant,
    Persona,
    RegexScript,
)
from bunzai.model.chat import ROLES as CHAT_ROLES
from bunzai.testing import conversion_problems, load_registry

MAX_EXAMPLES = int(os.environ.get("BUNZAI_PROPERTY_EXAMPLES", "30"))

# -- strategies ------------------------------------------------------------------------------------

# Any Unicode scalar value (surrogates cannot be written as UTF-8, so no format can hold them).
_chars = st.characters(codec="utf-8")
text = st.text(_chars, max_size=40)
short = st.text(_chars, min_size=1, max_size=12)
name = st.text(_chars, max_size=24)
ints = st.integers(min_value=-(2**31), max_value=2**31 - 1)
small = st.integers(min_value=0, max_value=1000)
json_scalar = st.none() | st.booleans() | ints | st.floats(allow_nan=False,
                                                           allow_infinity=False) | text
json_value = st.recursive(json_scalar, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(short, inner, max_size=3), max_leaves=6)
extensions = st.dictionaries(st.sampled_from(["app_x", "kit", "depth_prompt", "talkativeness",
                                              "fav", "world", "chub"]) | short,
                             json_value, max_size=3)


def _opt(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


@st.composite
def assets(draw: st.DrawFn, types: tuple[str, ...] = ("icon", "background", "emotion",
                                                      "other", "x-risu-asset")) -> Asset:
    data = draw(st.none() | st.just(minimal_png(1, 1)) | st.binary(max_size=64)
                | st.just(b"RIFF\x00\x00\x00\x00WEBPVP8 "))
    uri = draw(_opt(st.sampled_from(["ccdefault:", "embeded://assets/icon/a.png",
                                     "https://example.invalid/a.png", "__asset:0"]) | text))
    if data is None and uri is None:
        uri = "https://example.invalid/a.png"
    return Asset(type=draw(st.sampled_from(types)), name=draw(name), uri=uri,
                 ext=draw(_opt(st.sampled_from(["png", "webp", "jpeg", "bin"]))),
                 media_type=sniff_media(data)[0] if data is not None else None, data=data,
                 extensions=draw(st.dictionaries(short, json_value, max_size=2)))


entries = st.builds(
    LorebookEntry,
    id=_opt(small | st.text("0123456789abcdef", min_size=1, max_size=8)),
    keys=st.lists(short, max_size=3), secondary_keys=st.lists(short, max_size=2),
    content=text, comment=_opt(text), name=_opt(name), enabled=st.booleans(),
    constant=_opt(st.booleans()), selective=_opt(st.booleans()),
    selective_logic=_opt(st.sampled_from(SELECTIVE_LOGIC)),
    insertion_order=_opt(st.integers(-1000, 1000)), priority=_opt(st.integers(0, 1000)),
    case_sensitive=_opt(st.booleans()), match_whole_words=_opt(st.booleans()),
    use_regex=_opt(st.booleans()), position=_opt(st.sampled_from(POSITIONS)),
    depth=_opt(st.integers(0, 100)), role=_opt(st.sampled_from(ROLES)),
    probability=_opt(st.integers(0, 100)), use_probability=_opt(st.booleans()),
    group=_opt(text), group_override=_opt(st.booleans()),
    group_weight=_opt(st.integers(0, 1000)), use_group_scoring=_opt(st.booleans()),
    scan_depth=_opt(st.integers(0, 100)), exclude_recursion=_opt(st.booleans()),
    prevent_recursion=_opt(st.booleans()), delay_until_recursion=_opt(st.integers(0, 5)),
    sticky=_opt(st.integers(0, 50)), cooldown=_opt(st.integers(0, 50)),
    delay=_opt(st.integers(0, 50)), vectorized=_opt(st.booleans()),
    automation_id=_opt(text), display_index=_opt(st.integers(0, 1000)),
    ignore_budget=_opt(st.booleans()),
    match_persona_description=_opt(st.booleans()),
    match_character_description=_opt(st.booleans()),
    match_character_personality=_opt(st.booleans()),
    match_character_depth_prompt=_opt(st.booleans()), match_scenario=_opt(st.booleans()),
    match_creator_notes=_opt(st.booleans()), outlet_name=_opt(text),
    triggers=_opt(st.lists(st.sampled_from(["normal", "continue", "impersonate", "swipe",
                                            "regenerate", "quiet"]), max_size=3, unique=True)),
    character_filter=_opt(st.fixed_dictionaries({"isExclude": st.booleans(),
                                                 "names": st.lists(short, max_size=2),
                                                 "tags": st.lists(short, max_size=2)})),
    extensions=extensions,
)

lorebooks = st.builds(
    Lorebook, name=_opt(name), description=_opt(text), scan_depth=_opt(st.integers(0, 100)),
    token_budget=_opt(st.integers(0, 100_000)), recursive_scanning=_opt(st.booleans()),
    entries=st.lists(entries, max_size=4), extensions=extensions,
)

regex_scripts = st.builds(
    RegexScript, id=_opt(st.uuids().map(str)), name=name, pattern=text,
    flags=_opt(st.lists(st.sampled_from("gimsuy"), unique=True).map("".join)), replace=text,
    trim_strings=st.lists(short, max_size=2),
    placement=st.lists(st.sampled_from(PLACEMENTS), max_size=3, unique=True),
    disabled=st.booleans(), markdown_only=_opt(st.booleans()), prompt_only=_opt(st.booleans()),
    run_on_edit=_opt(st.booleans()), substitute_regex=_opt(st.integers(0, 2)),
    min_depth=_opt(st.integers(0, 100)), max_depth=_opt(st.integers(0, 100)),
    extensions=extensions,
)

triggers = st.lists(st.fixed_dictionaries({"comment": text, "type": st.sampled_from(
    ["start", "manual", "output", "input"]), "conditions": st.just([]), "effect": st.just([])}),
    max_size=2)

characters = st.builds(
    Character, name=name, nickname=_opt(name), description=text, personality=text,
    scenario=text, first_mes=text, mes_example=text, creator_notes=text,
    creator_notes_multilingual=_opt(st.dictionaries(st.sampled_from(["en", "fr", "ja", "ko"]),
                                                    text, max_size=2)),
    system_prompt=text, post_history_instructions=text,
    alternate_greetings=st.lists(text, max_size=3),
    group_only_greetings=st.lists(text, max_size=2), tags=st.lists(short, max_size=3),
    creator=text, character_version=text, source=_opt(st.lists(text, max_size=2)),
    creation_date=_opt(st.integers(0, 2**31 - 1)),
    modification_date=_opt(st.integers(0, 2**31 - 1)), lorebook=_opt(lorebooks),
    assets=st.lists(assets(), max_size=2), regex_scripts=st.lists(regex_scripts, max_size=2),
    triggers=_opt(triggers), extensions=extensions,
)

personas = st.builds(
    Persona, name=name, description=text, title=_opt(text), note=_opt(text),
    avatar_id=_opt(short), avatar=_opt(assets(("user_icon", "icon"))),
    is_default=st.booleans(), position=_opt(st.sampled_from([0, 1, 2, 3, 4, 9])),
    depth=_opt(st.integers(0, 100)), role=_opt(st.integers(0, 2)), lorebook=_opt(name),
    connections=_opt(st.lists(st.fixed_dictionaries({"type": st.just("character"),
                                                     "id": short}), max_size=2)),
    extensions=extensions,
)

modules = st.builds(
    Module, id=_opt(st.uuids().map(str)), name=name, description=text, namespace=_opt(short),
    lorebook=_opt(lorebooks), regex_scripts=st.lists(regex_scripts, max_size=2),
    triggers=_opt(triggers), assets=st.lists(assets(("asset", "icon")), max_size=2),
    low_level_access=_opt(st.booleans()), extensions=extensions,
)

times = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1),
                     timezones=st.just(UTC))
attachments = st.builds(
    Attachment, type=st.sampled_from(ATTACHMENT_TYPES), name=_opt(name), title=_opt(text),
    uri=_opt(st.sampled_from(["https://example.invalid/a.png", "/user/images/a.png"]) | text),
    text=_opt(text), extensions=st.dictionaries(short, json_value, max_size=1),
)
alternatives = st.builds(Alternative, text=text, time=_opt(times), reasoning=_opt(text))


@st.composite
def chat_messages(draw: st.DrawFn) -> ChatMessage:
    alts = draw(st.lists(alternatives, max_size=3))
    chosen = draw(_opt(st.integers(0, max(len(alts) - 1, 0))))
    text_ = alts[chosen].text if alts and chosen is not None else draw(text)
    return ChatMessage(
        role=draw(st.sampled_from(CHAT_ROLES)), speaker=draw(_opt(name)), text=text_,
        time=draw(_opt(times)), hidden=draw(st.booleans()), alternatives=alts, chosen=chosen,
        reasoning=draw(_opt(text)), model=draw(_opt(short)), id=draw(_opt(short)),
        bookmark=draw(_opt(short)), attachments=draw(st.lists(attachments, max_size=2)),
        extensions=draw(extensions))


chats = st.builds(
    Chat, title=_opt(name), participants=st.lists(st.builds(
        Participant, name=name, role=st.sampled_from(CHAT_ROLES), id=_opt(short),
        avatar=_opt(short)), max_size=3),
    created=_opt(times), notes=_opt(text), memory=_opt(text), scenario=_opt(text),
    greeting=_opt(text), example_dialogue=_opt(text), system_prompt=_opt(text),
    branch_of=_opt(name), lorebook=_opt(lorebooks),
    messages=st.lists(chat_messages(), max_size=4), extensions=extensions,
)

STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "character": characters, "lorebook": lorebooks, "persona": personas,
    "regex": regex_scripts, "module": modules, "chat": chats,
}

# -- RisuAI's asset list and decorators ---------------------------------------------------------


_PICTURE = Asset(type="icon", name="main", data=minimal_png(1, 1), media_type="image/png")
_EMOTION = Asset(type="emotion", name="calm", data=minimal_png(1, 1), media_type="image/png")
_MOVED_ASSETS = {
    "no-bytes": [_PICTURE, Asset(type="emotion", name="gone", uri="__asset:9"),
                 Asset(type="background", name="sky", uri="https://example.invalid/sky.png")],
    "no-bytes-no-uri": [_PICTURE, Asset(type="other", name="nothing"), _EMOTION],
    "orphan-first": [Asset(type="other", name="loose", data=b"abc", orphan=True,
                           media_type="application/octet-stream"), _PICTURE, _EMOTION],
    "orphan-without-bytes": [_PICTURE, Asset(type="other", name="loose", orphan=True,
                                             uri="https://example.invalid/a"), _EMOTION],
    "orphan-data-uri": [_PICTURE, Asset(type="other", name="loose", data=b"hi", orphan=True,
                                        uri="data:;base64,aGk=",
                                        media_type="application/octet-stream"), _EMOTION],
}


@pytest.mark.parametrize("assets", list(_MOVED_ASSETS.values()), ids=list(_MOVED_ASSETS))
@pytest.mark.parametrize(("target", "options"), [("risu", {}), ("risu", {"container": "json"}),
                                                 ("risu-charx", {})],
                         ids=["risu-png", "risu-json", "risu-charx"])
def test_risu_names_the_assets_that_read_back_elsewhere(target: str, options: dict[str, Any],
                                                         assets: list[Asset]) -> None:
    problems = conversion_problems(_registry(), [Character(name="Marrow", assets=assets)],
                                   target, options)
    assert not problems, problems


@pytest.mark.parametrize("target", ["risu", "risu-charx"])
def test_risu_reports_the_dropped_asset_and_not_the_one_that_moves_up(target: str) -> None:
    # an asset's place in the list is layout: apps find assets by type and name
    ch = Character(name="Marrow", assets=_MOVED_ASSETS["no-bytes"])
    assert [e.path for e in _registry().write([ch], target, {}).loss
            if e.path.startswith("assets")] == ["assets[1]"]


_DECORATED = [
    LorebookEntry(keys=["tide"], secondary_keys=["moon"], selective=False,
                  selective_logic="not_all"),
    LorebookEntry(keys=["tide"], secondary_keys=[" "], selective=True, selective_logic="not_all"),
    LorebookEntry(keys=["tide"], probability=40),
    LorebookEntry(keys=["tide"], probability=40, use_probability=True),
    LorebookEntry(keys=["tide"], secondary_keys=["moon", "sun"], selective=True,
                  selective_logic="and_all"),
]


@pytest.mark.parametrize("entry", _DECORATED, ids=["selective-false", "blank-secondary-key",
                                                   "probability-unset", "probability-on",
                                                   "and-all"])
@pytest.mark.parametrize("target", ["risu", "risu-charx"])
def test_risu_decorator_settings_read_back_as_they_were(target: str,
                                                        entry: LorebookEntry) -> None:
    """Settings that are off or unset stay plain fields, as RisuAI's own import leaves them."""
    book = Lorebook(entries=[entry])
    result = _registry().write([Character(name="Marrow", lorebook=book)], target, {})
    f = result.files[0]
    _, back, _ = _registry().read(as_input(f.data, f"out{f.suffix}"), format=target)
    got = back.entities[0].lorebook.entries[0]
    fields = ("secondary_keys", "selective", "selective_logic", "probability",
              "use_probability", "content")
    assert {k: getattr(got, k) for k in fields} == {k: getattr(entry, k) for k in fields}


@pytest.mark.parametrize("entry", [
    LorebookEntry(keys=["tide"], secondary_keys=["moon"], selective_logic="not_all"),
    LorebookEntry(keys=["tide"], secondary_keys=[" moon ", "sea,salt", "a\nb"], selective=True,
                  selective_logic="not_any"),
    LorebookEntry(keys=["tide"], content="@@depth 3\nlore"),
], ids=["selective-unset", "untrimmed-comma-and-multiline-keys", "decorator-in-content"])
@pytest.mark.parametrize("target", ["risu", "risu-charx", "risu-lorebook", "risu-module"])
def test_risu_reports_what_a_decorator_cannot_carry(target: str, entry: LorebookEntry) -> None:
    """An unset ``selective`` reads back true, keys are trimmed and split, content is parsed."""
    kind = _registry().adapters[target].info.kind
    book = Lorebook(entries=[entry])
    entity = Character(name="Marrow", lorebook=book) if kind == "character" else (
        book if kind == "lorebook" else Module(name="Marrow", lorebook=book))
    problems = conversion_problems(_registry(), [entity], target)
    assert not problems, problems


# -- the property ----------------------------------------------------------------------------------


@cache
def _registry() -> Registry:
    return load_registry()


def _pairs() -> list[Any]:
    reg = _registry()
    out = []
    for kind in STRATEGIES:
        for info in reg.formats(kind):
            if info.can_write and info.can_read:
                out.append(pytest.param(kind, info.id, id=f"{kind}->{info.id}"))
    return out


def _entities(kind: str, multi: bool) -> st.SearchStrategy[list[Any]]:
    one = STRATEGIES[kind]
    if multi and kind in ("persona", "regex", "chat"):
        return st.lists(one, min_size=1, max_size=2)
    return one.map(lambda e: [e])


@pytest.mark.parametrize(("kind", "target"), _pairs())
def test_random_entities_round_trip_with_an_honest_loss_report(kind: str, target: str) -> None:
    reg = _registry()
    multi = reg.adapters[target].info.multi

    @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(_entities(kind, multi))
    def round_trip(ents: list[Any]) -> None:
        problems = conversion_problems(reg, ents, target)
        assert not problems, "\n".join(problems)

    round_trip()


# -- what the search found, kept as plain examples ---------------------------------------------

_PNG = minimal_png(1, 1)
FOUND = [
    ("sillytavern-persona", Persona(name="Ann", note="")),  # an empty note was not reported
    ("sillytavern-regex", RegexScript(name="r", pattern="", flags="")),  # "//" reads back as text
    ("sillytavern-regex", RegexScript(name="r", pattern="/x/")),  # a bare "/x/" is the regex x
    ("sillytavern-regex", RegexScript(name="r", pattern="p", flags="y")),  # ST rejects flag y
    ("agnai", Character(name="c", extensions={"depth_prompt": None})),  # read back aside
    ("risu-charx", Character(name="c", assets=[Asset(
        type="other", name="empty", data=b"", media_type="application/octet-stream")])),
    *[("risu-charx", Character(name="c", assets=[Asset(type="background", name=n, data=_PNG,
                                                       media_type="image/png")]))
      for n in ("del\x7fname", "../../escape")],  # were unwritable zip entry names
]


@pytest.mark.parametrize(("target", "entity"), FOUND,
                         ids=[f"{t}-{i}" for i, (t, _) in enumerate(FOUND)])
def test_what_the_search_found_stays_fixed(target: str, entity: Any) -> None:
    assert conversion_problems(_registry(), [entity], target) == []

"""Shared fixtures: a deterministic registry (core + two tiny test formats) and an HTTP client
that talks to the app in-process through httpx's ASGI transport."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import anyio
import httpx
import pytest

from bunzai.host.adapter import FormatAdapter
from bunzai.host.registry import Registry
from bunzai.host.types import Detection, Option, WriteResult
from bunzai.io import jsonio
from bunzai.io.outputs import OutputFile
from bunzai.loss.report import LossReport


class Ribbon(FormatAdapter):
    """A tiny character format for tests: ``{"ribbon": name, "text": description}``."""

    format_id = "test-ribbon"
    kind = "character"
    label = "Ribbon (test format)"
    suffix = ".ribbon.json"
    aliases = ("ribbon",)
    options = (Option("shout", bool, default=False, help="upper-case the name"),)

    def detect(self, input: Any) -> Detection:
        data = input.json
        if isinstance(data, Mapping) and isinstance(data.get("ribbon"), str):
            return Detection(0.8, "has a ribbon key")
        return Detection(0.0)

    def read(self, input: Any, options: Mapping[str, Any]) -> Any:
        from bunzai.model import Character

        data = input.json_mutable()
        return Character(name=data["ribbon"], description=str(data.get("text", "")))

    def write(self, entity: Any, options: Mapping[str, Any]) -> WriteResult:
        loss = LossReport()
        if entity.lorebook is not None:
            loss.dropped("lorebook", "a ribbon has no lorebook")
        if entity.first_mes:
            loss.dropped("first_mes", "a ribbon has no greeting")
        name = entity.name.upper() if options.get("shout") is True else entity.name
        body = jsonio.dumps({"ribbon": name, "text": entity.description})
        return WriteResult([OutputFile(body, self.suffix)], loss)


class Twin(Ribbon):
    """Scores exactly like Ribbon, so a ribbon file is ambiguous when both are installed."""

    format_id = "test-twin"
    label = "Twin (test format)"
    aliases = ()


@pytest.fixture
def registry() -> Registry:
    return Registry.load(autoload=False, extra=[("test-ribbon", Ribbon())])


@pytest.fixture
def twin_registry() -> Registry:
    return Registry.load(autoload=False, extra=[("test-ribbon", Ribbon()),
                                                ("test-twin", Twin())])


class Client:
    """A synchronous face over ``httpx.AsyncClient`` + ``ASGITransport`` (no server, no port)."""

    def __init__(self, app: Any, host: str = "127.0.0.1") -> None:
        self.app = app
        self.base = f"http://{host}"

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app, raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url=self.base) as client:
                return await client.request(method, url, **kwargs)

        return anyio.run(go)

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)


@pytest.fixture
def make_client(registry: Registry) -> Iterator[Callable[..., Client]]:
    from bunzai_studio.app import create_app

    def make(reg: Registry | None = None, **kwargs: Any) -> Client:
        kwargs.setdefault("allowed_hosts", {"127.0.0.1", "localhost", "::1"})
        return Client(create_app(registry=reg or registry, **kwargs))

    yield make


@pytest.fixture
def client(make_client: Callable[..., Client]) -> Client:
    return make_client()

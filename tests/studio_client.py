"""The studio's HTTP app called in-process (httpx's ASGI transport: no server, no port), for
tests outside the studio's own folder."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from bunzai.host.registry import Registry


@cache
def _app(registry: Registry) -> Any:
    from bunzai_studio.app import create_app

    return create_app(registry=registry, allowed_hosts={"127.0.0.1"})


def post_convert(registry: Registry, path: Path, to: str) -> tuple[int, dict[str, Any]]:
    """``POST /api/convert`` with ``path`` uploaded under its own name: (HTTP status, JSON)."""
    import anyio
    import httpx

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=_app(registry), raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return await c.post("/api/convert", data={"to": to},
                                files={"file": (path.name, path.read_bytes(),
                                                "application/octet-stream")})

    response = anyio.run(go)
    return response.status_code, response.json()

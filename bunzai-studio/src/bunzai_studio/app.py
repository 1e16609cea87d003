"""The Starlette application: the page, its static files and the JSON API.

Safety lives here and in the page script:

* every response carries a Content-Security-Policy that allows only this server's own script,
  style and fetches, and images only from here or ``data:`` URLs, so even a card field that
  somehow reached the DOM as markup could neither run a script nor load anything remote;
* requests whose ``Host`` is not a loopback name are refused while the studio binds loopback,
  so a web page cannot reach it through DNS rebinding;
* uploads are capped (``Content-Length``, bytes read, the file part) and parsed in memory;
* engine work runs in worker threads, at most two at a time, so one huge file cannot starve the
  page and memory stays bounded.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from bunzai import BunzaiError, UsageError

from . import __version__, engine
from .openapi import openapi_schema
from .uploads import LIMIT_HINT, FilePart, Form, max_upload_from_env, parse_form, read_body

if TYPE_CHECKING:
    from bunzai.api import Registry

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Job = Callable[[Form, FilePart], Callable[[], engine.Outcome]]
"""An upload endpoint's own part: its fields read from the form, and the engine's work."""

CSP = ("default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; "
       "connect-src 'self'; object-src 'none'; frame-src 'none'; frame-ancestors 'none'; "
       "base-uri 'none'; form-action 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
STATIC = Path(str(files("bunzai_studio") / "static"))


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and any address in 127.0.0.0/8 or ``::1``."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(header: str) -> str:
    """The name part of a Host header: ``[::1]:8765`` -> ``::1``, ``a:80`` -> ``a``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class SecurityMiddleware:
    """Adds the security headers to every response and, if asked, checks the Host header."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] | None) -> None:
        self.app = app
        self.allowed = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.allowed is not None:
            host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
            if _host_name(host) not in self.allowed:
                response = JSONResponse({"error": f"refused: Host {host!r} is not this "
                                                  "studio's address"}, status_code=400)
                await self._send_with_headers(response, scope, receive, send)
                return

        async def send_wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_wrapped)

    async def _send_with_headers(self, response: Response, scope: Scope, receive: Receive,
                                 send: Send) -> None:
        response.raw_headers.extend(SECURITY_HEADERS)
        await response(scope, receive, send)


class BunzaiJSON(JSONResponse):
    """JSON via core's serializer (orjson, big integers fall back to the standard library)."""

    def render(self, content: Any) -> bytes:
        from bunzai.api import dumps
        return dumps(content)


def _disposition(name: str) -> str:
    """``attachment`` with an ASCII fallback and the exact UTF-8 name (RFC 6266)."""
    fallback = name.encode("ascii", "replace").decode("ascii").replace('"', "_")
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


def _formats(registry: Registry, kind: str | None) -> Response:
    """The format table, of one kind (and the formats of any kind) when ``kind`` is given."""
    from bunzai.api import ANY_KIND, KINDS, format_rows

    rows = format_rows(registry=registry)
    if kind:
        if kind not in KINDS:
            return BunzaiJSON({"error": f"unknown kind {kind!r} (kinds: "
                                        f"{', '.join(KINDS)})", "exit_code": 2},
                              status_code=400)
        rows = [r for r in rows if r["kind"] in (kind, ANY_KIND)]
    return BunzaiJSON(rows)


def _download(outcome: engine.Outcome) -> Response:
    """The one file a conversion produced, as a download."""
    name, data, media_type = outcome.files[0]
    return Response(data, media_type=media_type, headers={
        "content-disposition": _disposition(name), "cache-control": "no-store",
        "x-bunzai-format": outcome.payload["format"], "x-bunzai-to": outcome.payload["to"],
        "x-bunzai-loss-entries": str(len(outcome.payload["loss"]))})


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return BunzaiJSON({"error": str(exc.detail)}, status_code=exc.status_code,
                      headers=exc.headers)


async def _internal_error(request: Request, exc: Exception) -> Response:
    # The CLI's wording for a bug; the traceback stays in the server's log, not the page.
    return BunzaiJSON({"error": f"internal error: {type(exc).__name__}: {exc} (please "
                                "report it)", "exit_code": 4}, status_code=500)


def _answer(outcome: engine.Outcome) -> Response:
    return BunzaiJSON(outcome.payload, status_code=outcome.status,
                      headers={"cache-control": "no-store"})


class _Uploads:
    """How every upload endpoint takes its request: the form read under the upload limit and
    its one file taken, then the endpoint's ``job`` reads its own fields and returns the
    engine's work, run in a worker thread, at most ``workers`` at a time.  A bad upload or
    field is the file's error (by name once the file is known), as the engine reports a bad
    file."""

    def __init__(self, limit: int, workers: int) -> None:
        self.limit = limit
        self.limiter = anyio.CapacityLimiter(workers)

    async def form(self, request: Request) -> Form:
        body = await read_body(request.stream(), request.headers.get("content-length"),
                               self.limit)
        return parse_form(body, request.headers.get("content-type"), limit=self.limit)

    async def run(self, request: Request, job: Job) -> engine.Outcome:
        filename = None
        try:
            form = await self.form(request)
            part = form.file()
            filename = part.filename
            work = job(form, part)
        except BunzaiError as exc:
            return engine.failure(exc, filename)
        return await anyio.to_thread.run_sync(work, limiter=self.limiter)


def create_app(*, registry: Registry | None = None, max_upload: int | None = None,
               allowed_hosts: Iterable[str] | None = None, workers: int = 2) -> Starlette:
    """The studio app.

    ``registry`` defaults to core's process-wide one; ``max_upload`` to
    ``BUNZAI_STUDIO_MAX_UPLOAD`` or 64 MiB; ``allowed_hosts`` (Host header names) to no check.
    """
    from bunzai.api import get_registry

    limit = max_upload if max_upload is not None else max_upload_from_env()
    uploads = _Uploads(limit, workers)
    index_html = (STATIC / "index.html").read_bytes()

    def reg() -> Registry:
        return registry if registry is not None else get_registry()

    async def inspect(request: Request) -> Response:
        def job(form: Form, part: FilePart) -> Callable[[], engine.Outcome]:
            from_format = form.value("from")
            return lambda: engine.inspect(reg(), part.data, part.filename,
                                          from_format=from_format)

        return _answer(await uploads.run(request, job))

    async def convert(request: Request) -> Response:
        from bunzai.api import parse_options

        filename, download = "", False

        def job(form: Form, part: FilePart) -> Callable[[], engine.Outcome]:
            nonlocal filename, download
            filename = part.filename
            to = form.value("to")
            if to is None:
                raise UsageError("convert needs the target format in the field 'to'")
            from_format = form.value("from")
            options = parse_options(form.values("option"))
            download = form.flag("download")
            return lambda: engine.convert(reg(), part.data, part.filename, to,
                                          from_format=from_format, options=options)

        outcome = await uploads.run(request, job)
        if outcome.status != 200 or not download:
            return _answer(outcome)
        if len(outcome.files) != 1:
            return _answer(engine.Outcome(409, {
                "file": filename, "exit_code": 5, "error_type": "ConversionRefused",
                "error": f"{filename}: this conversion produced {len(outcome.files)} files; "
                         "ask without download=true to get them all"}))
        return _download(outcome)

    async def formats(request: Request) -> Response:
        return _formats(reg(), request.query_params.get("kind"))

    async def info(request: Request) -> Response:
        from bunzai import __version__ as core_version

        return BunzaiJSON({"studio_version": __version__, "core_version": core_version,
                           "max_upload": limit, "max_upload_hint": LIMIT_HINT,
                           "formats": len(reg().adapters)})

    async def openapi(request: Request) -> Response:
        return BunzaiJSON(openapi_schema(limit))

    async def index(request: Request) -> Response:
        return HTMLResponse(index_html, headers={"cache-control": "no-store"})

    app = Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/api/inspect", inspect, methods=["POST"]),
            Route("/api/convert", convert, methods=["POST"]),
            Route("/api/formats", formats, methods=["GET"]),
            Route("/api/info", info, methods=["GET"]),
            Route("/openapi.json", openapi, methods=["GET"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={HTTPException: _http_error, Exception: _internal_error},
    )
    app.add_middleware(SecurityMiddleware, allowed_hosts=allowed_hosts)
    return app

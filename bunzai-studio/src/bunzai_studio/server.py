"""Running the studio: bind first (errors are one clear line), then hand the socket to uvicorn."""

from __future__ import annotations

import socket
import sys
import threading
import webbrowser

from bunzai import UsageError

from .app import LOOPBACK_NAMES, create_app, is_loopback


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, or a usage error naming the address and the reason."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(64)
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.setblocking(False)
    return sock


def url_for(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/"


def allowed_hosts(host: str) -> set[str] | None:
    """Host header names to accept: loopback names when bound to loopback, else any."""
    return {*LOOPBACK_NAMES, host.lower()} if is_loopback(host) else None


def serve(host: str, port: int, *, open_browser: bool, max_upload: int) -> None:
    """Serve until interrupted."""
    import uvicorn

    from bunzai.api import get_limits, set_limits

    if max_upload > get_limits().max_size:  # core must accept what the studio lets in
        set_limits(get_limits().replace(max_size=max_upload))
    sock = bind(host, port)
    url = url_for(host, sock.getsockname()[1])
    app = create_app(max_upload=max_upload, allowed_hosts=allowed_hosts(host))
    print(f"bunzai studio on {url}  (Ctrl+C to stop)", flush=True)
    if not is_loopback(host):
        print(f"bunzai: warning: listening on {host}, not loopback: anyone who can reach this "
              "address can upload files to this process", file=sys.stderr, flush=True)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])

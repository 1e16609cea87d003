"""``bunzai studio``: registered through the plugin hook, import-light, and really serving."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from bunzai.host.registry import Registry
from bunzai_studio.server import allowed_hosts, url_for

BUNZAI = [sys.executable, "-m", "bunzai.cli"]


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BUNZAI, *args], capture_output=True, text=True, timeout=timeout)


def test_registered_as_a_plugin_with_the_command_hook() -> None:
    reg = Registry.load()
    [rec] = [r for r in reg.host.loaded if r.name == "studio"]
    assert (rec.group, rec.distribution, rec.info) == ("bunzai.plugins", "bunzai-studio", None)
    assert rec.hooks == ["bunzai_register_commands"]
    assert not [b for b in reg.broken if b.distribution == "bunzai-studio"]


def test_plugin_and_command_import_no_web_stack() -> None:
    code = (
        "import sys, typer\n"
        "from bunzai.host.registry import Registry\n"
        "app = typer.Typer()\n"
        "Registry.load().register_commands(app)\n"
        "names = [c.name for c in app.registered_commands]\n"
        "heavy = [m for m in ('starlette', 'uvicorn', 'python_multipart', 'anyio', 'httpx')\n"
        "         if m in sys.modules]\n"
        "print(__import__('json').dumps([names, heavy]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    names, heavy = json.loads(out)
    assert "studio" in names and heavy == []


def test_help_documents_the_options() -> None:
    res = run("studio", "--help")
    assert res.returncode == 0
    for word in ("--host", "--port", "--open", "--max-upload", "BUNZAI_STUDIO_MAX_UPLOAD",
                 "127.0.0.1", "8765"):
        assert word in res.stdout


def test_bad_limit_and_busy_port_are_one_line_errors() -> None:
    res = run("studio", "--max-upload", "lots")
    assert res.returncode == 2
    assert res.stderr.strip() == ("bunzai: error: upload limit 'lots' is not a size (bytes, or "
                                  "with K, M, G, KiB, MiB, GiB)")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        res = run("studio", "--port", str(port))
    assert res.returncode == 2
    assert res.stderr.startswith(f"bunzai: error: cannot listen on 127.0.0.1:{port}: ")
    assert len(res.stderr.strip().splitlines()) == 1


def test_serves_on_loopback_and_refuses_foreign_hosts(tmp_path: Path) -> None:
    proc = subprocess.Popen([*BUNZAI, "studio", "--port", "0", "--max-upload", "1KiB"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("bunzai studio on http://127.0.0.1:"), line
        url = line.split()[3]
        deadline = time.monotonic() + 20
        while True:
            try:
                info = httpx.get(url + "api/info", timeout=5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        assert info.json()["max_upload"] == 1024
        assert "default-src 'self'" in info.headers["content-security-policy"]
        page = httpx.get(url, timeout=5)
        assert page.status_code == 200 and "/static/studio.js" in page.text
        evil = httpx.get(url, headers={"host": "rebound.example"}, timeout=5)
        assert evil.status_code == 400
        big = httpx.post(url + "api/inspect", files={"file": ("a.bin", b"x" * 2048)}, timeout=5)
        assert big.status_code == 413
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_allowed_hosts_and_urls() -> None:
    assert allowed_hosts("0.0.0.0") is None
    assert allowed_hosts("127.0.0.2") == {"localhost", "127.0.0.1", "::1", "127.0.0.2"}
    assert url_for("::1", 5) == "http://[::1]:5/"
    assert url_for("0.0.0.0", 80) == "http://127.0.0.1:80/"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_default_bind_is_loopback(host: str) -> None:
    from bunzai_studio.app import is_loopback

    assert is_loopback(host)
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")


def test_open_starts_the_browser_on_the_printed_url(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import threading
    import webbrowser

    import uvicorn

    from bunzai.io.limits import get_limits, set_limits
    from bunzai_studio import server

    opened: list[str] = []
    ran: list[object] = []
    done = threading.Event()

    def fake_open(url: str) -> bool:
        opened.append(url)
        done.set()
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: ran.append(sockets))
    limits = get_limits()
    try:
        server.serve("127.0.0.1", 0, open_browser=True, max_upload=limits.max_size + 1)
        # Core must accept whatever the studio lets in.
        assert get_limits().max_size == limits.max_size + 1
    finally:
        set_limits(limits)
    assert done.wait(10)
    printed = capsys.readouterr().out.split()[3]
    assert opened == [printed] and printed.startswith("http://127.0.0.1:")
    assert len(ran) == 1 and len(ran[0]) == 1  # type: ignore[arg-type]
    ran[0][0].close()  # type: ignore[index]

"""The studio in a real browser: Debian's Chromium, headless, driven by Playwright.

A real uvicorn server on a free loopback port serves the app with every installed format. The
tests upload files the way a person does (the file picker), read what the page shows, convert
and download, and check that hostile card text executes nothing and that the page never
requests anything but its own server.

Locally the suite skips when Chromium or Playwright is missing; under CI (``CI`` set) it fails
instead, because ``.ci/run`` installs both.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import bunzai
from bunzai.errors import BunzaiError
from bunzai.host.registry import Registry
from bunzai.io.containers.png import minimal_png
from bunzai.io.input import AdapterInput
from bunzai.io.outputs import safe_name
from bunzai.model import Asset, Character, Lorebook, LorebookEntry, RegexScript

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = Path(os.environ.get("BUNZAI_SCREENSHOT_DIR", REPO / "screenshots")) / \
    "studio-inspect.png"
"""Saved on every run for reviewers (gitignored); copy it to docs/images/ to update the README."""
MAX_UPLOAD = 2 * 1024 * 1024
EXPECTED_REFUSAL = re.compile(r"Failed to load resource: the server responded with a status of "
                              r"(400|409|413|422) \(.*\)")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must install it: see .ci/run)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


if not CHROMIUM.exists():
    _unavailable(f"{CHROMIUM} not found (apt-get install chromium)")
try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
except ImportError:
    _unavailable("the playwright Python package is not installed (pip install playwright)")


# -- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry.load()


@pytest.fixture(scope="module")
def server(registry: Registry) -> Iterator[str]:
    """A real HTTP server on a free loopback port, in a thread of this process."""
    import uvicorn

    from bunzai_studio.app import create_app
    from bunzai_studio.server import allowed_hosts, bind

    sock = bind("127.0.0.1", 0)
    app = create_app(registry=registry, max_upload=MAX_UPLOAD,
                     allowed_hosts=allowed_hosts("127.0.0.1"))
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    srv.should_exit = True
    thread.join(timeout=20)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@dataclass
class Watch:
    """What the page did besides rendering: dialogs, requests, console errors."""

    base: str
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self.dialogs == [], "a dialog fired"
        foreign = [u for u in self.requests
                   if not u.startswith((self.base, "data:", "blob:"))]
        assert foreign == [], "the page requested something other than its own server"
        # Chromium logs every non-2xx answer; the API's refusals (400/409/413/422) are expected.
        unexpected = [e for e in self.errors if not EXPECTED_REFUSAL.fullmatch(e)]
        assert unexpected == []


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[tuple[Page, Watch]]:
    context = browser.new_context(accept_downloads=True,
                                  viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    watch = Watch(server)

    def on_dialog(dialog: Any) -> None:
        watch.dialogs.append(dialog.message)
        dialog.dismiss()

    pg.on("dialog", on_dialog)
    pg.on("request", lambda r: watch.requests.append(r.url))
    pg.on("console", lambda m: watch.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: watch.errors.append(str(e)))
    pg.goto(server)
    pg.wait_for_selector("body[data-ready='1']")
    yield pg, watch
    context.close()


def upload(pg: Page, *files: Any) -> Any:
    """Pick files with the page's file input; the newest result is first."""
    results = pg.locator("[data-testid=result]")
    before = results.count()
    pg.set_input_files("#picker", list(files))
    expect(results).to_have_count(before + len(files))
    for i in range(len(files)):
        expect(results.nth(i).locator(".pending")).to_have_count(0)
    return results.first


def cli_inspect(path: Path) -> dict[str, Any]:
    res = subprocess.run([sys.executable, "-m", "bunzai.cli", "inspect", "--json", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)  # type: ignore[no-any-return]


def convert_and_download(pg: Page, result: Any, to: str, tmp_path: Path) -> Path:
    result.locator("[data-testid=convert-to]").select_option(to)
    result.locator("[data-testid=convert]").click()
    expect(result.locator("[data-testid=loss-report]")).to_be_visible()
    with pg.expect_download() as info:
        result.locator("[data-testid=download]").first.click()
    download = info.value
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    return path


# -- the project's own sample card (its screenshot is the one the README shows) -------------------


def test_sample_card_inspect_view_screenshot(page: tuple[Page, Watch], registry: Registry) -> None:
    if "sillytavern" not in registry.adapters:
        pytest.skip("the sillytavern adapter (bunzai-formats-tavern) is not installed")
    sample = REPO / "examples" / "cards" / "bunzai-sample.png"
    pg, _ = page
    result = upload(pg, str(sample))
    expect(result.locator("[data-testid=name]")).to_have_text(bunzai.read(sample).name)
    expect(result.locator("[data-testid=format]")).to_have_text("sillytavern")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SCREENSHOT), full_page=True,
                  clip={"x": 0, "y": 0, "width": 1280, "height": 1400})


# -- a real card ----------------------------------------------------------------------------------


def test_real_png_card_inspect_convert_to_charx_download(
        page: tuple[Page, Watch], registry: Registry, tmp_path: Path) -> None:
    from bunzai.testing import corpus_files, require_corpus

    if "sillytavern" not in registry.adapters:
        pytest.skip("the sillytavern adapter (bunzai-formats-tavern) is not installed")
    require_corpus()
    card = corpus_files("png-chara-v2")[0]
    name = bunzai.read(card, registry=registry).name
    pg, watch = page

    result = upload(pg, str(card))
    expect(result.locator("[data-testid=name]")).to_have_text(name)
    expect(result.locator("[data-testid=format]")).to_have_text("sillytavern")
    avatar = result.locator("img.avatar").get_attribute("src") or ""
    assert avatar.startswith("data:image/")

    if "risu-charx" not in registry.adapters:
        pytest.skip("the risu-charx adapter (bunzai-formats-risu) is not installed")
    path = convert_and_download(pg, result, "risu-charx", tmp_path)
    # named after the uploaded file, as the CLI names an output next to its source
    assert path.name == safe_name(card.stem) + ".charx"
    cli = subprocess.run([sys.executable, "-m", "bunzai.cli", "convert", str(card), "--to",
                          "risu-charx", "-o", str(tmp_path / "cli.charx"), "--json"],
                         capture_output=True, text=True, timeout=60)
    # the page shows the CLI's summary line, then one row per group of repeated losses
    expect(result.locator("[data-testid=loss-summary]")).to_have_text(
        json.loads(cli.stdout)["loss_summary"])
    seen = cli_inspect(path)
    assert seen["format"] == "risu-charx" and seen["entities"][0]["name"] == name
    watch.assert_clean()


def test_own_card_shows_its_parts_and_round_trips(
        page: tuple[Page, Watch], tmp_path: Path) -> None:
    pg, watch = page
    card = Character(
        name="Wren Atlas", description="A cartographer who maps dreams.",
        first_mes="You found my map room.", alternate_greetings=["Back again?"],
        tags=["explorer"],
        lorebook=Lorebook(entries=[
            LorebookEntry(keys=["compass"], content="It points home.", position="at_depth",
                          depth=2),
            LorebookEntry(keys=["ink"], content="Squid ink.", enabled=False)]),
        regex_scripts=[RegexScript(name="Tidy", pattern="\\s+$", replace="")],
        assets=[Asset(type="icon", name="main", data=minimal_png(8, 8, (40, 90, 200, 255)))],
        extensions={"acme": {"mood": "calm"}})
    data = bunzai.write(card, "vaud-json", registry=Registry.load(autoload=False)).data
    result = upload(pg, {"name": "wren.vaud.json", "mimeType": "application/json",
                         "buffer": data})
    expect(result.locator("[data-testid=name]")).to_have_text("Wren Atlas")
    expect(result.locator("[data-testid=format]")).to_have_text("vaud-json")
    lore = result.locator(".lorebook tbody tr")
    expect(lore).to_have_count(2)
    expect(lore.nth(0)).to_contain_text("compass")
    expect(lore.nth(0)).to_contain_text("at_depth (depth 2)")
    expect(lore.nth(1).locator(".no")).to_have_text("no")
    expect(result).to_contain_text("Back again?")
    expect(result.locator("details.json summary", has_text="acme")).to_have_count(1)
    path = convert_and_download(pg, result, "vaud-json", tmp_path)
    assert path.name == "wren.vaud.json"  # the upload's name, as the CLI would name it
    assert cli_inspect(path)["entities"][0]["lorebook_entries"] == 2
    watch.assert_clean()


# -- hostile input --------------------------------------------------------------------------------

SCRIPT = "<script>window.__pwned = 'script'</script>"
IMG = "<img src=x onerror=\"window.__pwned = 'img'; alert('img')\">"
LINK = "[map](javascript:window.__pwned='md') <a href=\"javascript:window.__pwned='a'\">go</a>"
BACKGROUND = ("<div><script>window.__pwned = 'bg'</script>"
              "<img src=x onerror=\"alert('bg')\"><iframe src=\"javascript:alert(1)\"></iframe>"
              "</div>")
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(\'svg\')"><script>alert(2)</script>'


def hostile_files(registry: Registry) -> list[dict[str, Any]]:
    card = Character(
        name=f"{IMG}Mallory", description=SCRIPT + LINK, first_mes=IMG,
        alternate_greetings=[LINK], creator_notes="<iframe src=javascript:alert(3)></iframe>",
        lorebook=Lorebook(entries=[LorebookEntry(keys=[IMG], content=SCRIPT, comment=IMG)]),
        regex_scripts=[RegexScript(name=IMG, pattern="x", replace=BACKGROUND)],
        assets=[Asset(type="icon", name=IMG, data=SVG),
                Asset(type="background", name="page", media_type="image/png",
                      data=BACKGROUND.encode())],
        extensions={"risuai": {"backgroundHTML": BACKGROUND}})
    files = [{"name": f"{IMG}.vaud.json", "mimeType": "application/json",
              "buffer": bunzai.write(card, "vaud-json", registry=registry).data}]
    if "sillytavern" in registry.adapters:
        tavern = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
            "name": f"{SCRIPT}Eve", "description": LINK, "personality": IMG, "scenario": "",
            "first_mes": SCRIPT, "mes_example": "", "creator_notes": BACKGROUND,
            "system_prompt": "", "post_history_instructions": "", "alternate_greetings": [IMG],
            "tags": [IMG], "creator": SCRIPT, "character_version": "1",
            "character_book": {"entries": [{"keys": [IMG], "content": SCRIPT, "enabled": True,
                                            "insertion_order": 0, "extensions": {}}],
                               "extensions": {}},
            "extensions": {"risuai": {"backgroundHTML": BACKGROUND}}}}
        files.append({"name": "eve.json", "mimeType": "application/json",
                      "buffer": json.dumps(tavern).encode()})
    return files


def test_hostile_card_text_executes_nothing(page: tuple[Page, Watch],
                                            registry: Registry) -> None:
    pg, watch = page
    files = hostile_files(registry)
    upload(pg, *files)
    results = pg.locator("[data-testid=result]")
    names = results.locator("[data-testid=name]").all_inner_texts()
    assert f"{IMG}Mallory" in names  # shown literally, as text
    if len(files) > 1:
        assert f"{SCRIPT}Eve" in names
    for i in range(len(files)):
        expect(results.nth(i).locator("[data-testid=error]")).to_have_count(0)
        backgrounds = results.nth(i).locator("details.json", has_text="risuai")
        backgrounds.first.locator("summary").click()
        expect(backgrounds.first.locator("pre")).to_contain_text("backgroundHTML")
    expect(results.last).to_contain_text(SCRIPT)
    # the audit panel lists what the card would run, its excerpts shown as text
    panel = results.first.locator("[data-testid=active-content]")
    expect(panel).to_contain_text("HTML event handler")
    expect(panel).to_contain_text("onerror")
    pg.wait_for_timeout(300)  # give any stray handler the chance to run
    assert pg.evaluate("window.__pwned") is None
    assert pg.evaluate("document.scripts.length") == 1
    assert pg.evaluate("document.querySelectorAll('iframe, object, embed, a[href]').length") == 0
    sources = pg.evaluate("Array.from(document.images, i => i.getAttribute('src'))")
    assert all(s.startswith("data:image/png;base64,") for s in sources), sources
    assert not any(u.endswith("/x") for u in watch.requests)
    watch.assert_clean()


# -- negative files -------------------------------------------------------------------------------


def test_unrecognized_and_oversized_files_show_one_line_messages(
        page: tuple[Page, Watch], registry: Registry) -> None:
    pg, watch = page
    photo = minimal_png(16, 16, (250, 200, 10, 255))
    with pytest.raises(BunzaiError) as info:
        registry.detect(AdapterInput(photo, "photo.png")).raise_for_status("photo.png")
    # Dropped onto the drop zone this time, as a person drags a file from their desktop.
    pg.evaluate("""bytes => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], "photo.png", {type: "image/png"}));
        document.getElementById("drop").dispatchEvent(
            new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
    }""", list(photo))
    result = pg.locator("[data-testid=result]").first
    expect(result.locator("[data-testid=error]")).to_have_text(str(info.value))
    expect(result.locator("[data-testid=format]")).to_have_count(0)

    big = {"name": "huge.bin", "mimeType": "application/octet-stream",
           "buffer": b"\0" * (MAX_UPLOAD + 1)}
    result = upload(pg, big)
    expect(result.locator("[data-testid=error]")).to_have_text(
        f"huge.bin: upload is {MAX_UPLOAD + 1:,} bytes, over the limit of {MAX_UPLOAD:,} "
        "(raise it with --max-upload or BUNZAI_STUDIO_MAX_UPLOAD)")
    assert "Traceback" not in pg.content()
    watch.assert_clean()

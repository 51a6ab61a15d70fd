"""Draw docs/images/first-screen.png: the Compare tab at 1440x1000 after one click on the first example.

.venv/bin/python scripts/screenshot_first_screen.py [OUT.png]

Serves the app on the packaged models (settings from the environment, a throwaway database) on a
free loopback port and drives Debian's Chromium (REA_CHROMIUM to use another); the PNG is
palette-reduced to stay small enough for the README.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images" / "first-screen.png"
CHROMIUM = os.environ.get("REA_CHROMIUM", "/usr/bin/chromium")
LAST_BOT = (
    '(side => { const b = [...document.querySelectorAll(`#chat-${side} [data-testid="bot"]`)];'
    " return b.length ? b[b.length - 1].innerText : ''; })"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(out: Path) -> None:
    from PIL import Image
    from playwright.sync_api import sync_playwright

    from app.main import launch
    from app.state import AppEngine
    from rea_core import Settings

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    engine = AppEngine.from_settings(
        Settings.from_env(), database_url=f"sqlite:///{tempfile.mkdtemp(prefix='rea-shot-')}/app.db"
    )
    port = free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("#message textarea", timeout=120_000)
            page.click("#example-0")
            page.wait_for_function(
                f"{LAST_BOT}(0).includes('first token') && {LAST_BOT}(1).includes('first token') && "
                "document.querySelectorAll('#chat-0 [data-testid=\"bot\"]').length >= 2",
                timeout=600_000,
            )
            page.wait_for_timeout(500)
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out))
            browser.close()
    finally:
        demo.close()
    Image.open(out).convert("RGB").quantize(colors=128).save(out, optimize=True)
    print(f"{out} ({out.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)

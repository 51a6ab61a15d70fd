"""Take the README's screenshots from the real app on the packaged models, in Debian's Chromium.

    .venv/bin/python scripts/readme_screenshots.py [--out docs/images]

first-screen.png: the Compare tab at 1440x1000 as a visitor first sees it. prompt-view.png: after the
paper's H.1 demo (seven given turns, two answered live), both columns' prompt views and retrieval
charts. results-tab.png: the Results tab with the shipped runs. Takes a few minutes on a 2-core CPU.
"""

from __future__ import annotations

import argparse
import os
import socket
import time
from pathlib import Path

CHROMIUM = os.environ.get("REA_CHROMIUM", "/usr/bin/chromium")
DESKTOP = {"width": 1440, "height": 1000}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images", type=Path)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import tempfile

    from playwright.sync_api import sync_playwright

    from app.main import launch
    from app.state import AppEngine
    from app.tabs.compare.handlers import demo_turns
    from rea_core import Settings, load_models

    args.out.mkdir(parents=True, exist_ok=True)
    print("loading the packaged models", flush=True)
    db = Path(tempfile.mkdtemp(prefix="rea-shots-")) / "app.db"
    engine = AppEngine(models=load_models(), settings=Settings(), database_url=f"sqlite:///{db}")
    port = free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            page = browser.new_page(viewport=DESKTOP)
            page.goto(url)
            page.wait_for_selector("#load-demo", timeout=120_000)
            page.wait_for_timeout(1500)
            page.screenshot(path=str(args.out / "first-screen.png"))
            print("first-screen.png", flush=True)

            start = time.perf_counter()
            page.click("#load-demo")
            print("playing the H.1 demo (two replies generated live)", flush=True)
            turns = demo_turns(engine)
            last = " ".join(turns[-1][0].split())[:40]
            page.wait_for_function(  # both columns answered every turn and show the last one's prompt
                """([n, last]) => [0, 1].every(s =>
                    document.querySelectorAll(`#chat-${s} [data-testid="bot"]`).length >= n
                    && (document.querySelector(`#prompt-${s}`)?.innerText || '')
                        .replace(/\\s+/g, ' ').includes(last))""",
                arg=[len(turns), last],
                timeout=900_000,
            )
            page.wait_for_timeout(3000)
            print(f"demo done in {time.perf_counter() - start:.0f} s", flush=True)
            views = page.locator("#views-0").bounding_box(), page.locator("#views-1").bounding_box()
            top = min(b["y"] for b in views)
            page.set_viewport_size({"width": DESKTOP["width"], "height": int(top + 1500)})
            page.screenshot(  # the prompt views and, below them, the retrieval charts
                path=str(args.out / "prompt-view.png"),
                clip={"x": 0, "y": top, "width": DESKTOP["width"], "height": 1400},
                full_page=True,
            )
            print("prompt-view.png", flush=True)

            page.set_viewport_size(DESKTOP)
            page.goto(f"{url}?tab=results")
            page.wait_for_selector("#results-intro", timeout=60_000)
            page.locator(".js-plotly-plot:visible").first.wait_for(timeout=60_000)
            page.wait_for_timeout(2000)
            page.screenshot(path=str(args.out / "results-tab.png"))
            print("results-tab.png", flush=True)
            browser.close()
    finally:
        demo.close()


if __name__ == "__main__":
    main()

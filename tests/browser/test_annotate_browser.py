"""A real Chromium signs in, labels three items with the keys 1, 2, 3 and undoes the last one."""

import os
from pathlib import Path

import pytest

from rea_core import RuntimeConfig, Settings

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("REA_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def studio(models, tmp_path_factory):
    """The app with a local account (Gradio auth) on a fresh database seeded with three items."""
    from annotations import create_db_engine, session_factory, upgrade
    from annotations import store_items as si
    from annotations.io import ImportRow
    from app.main import launch
    from app.state import AppEngine
    from tests.conftest import _free_port

    db = f"sqlite:///{tmp_path_factory.mktemp('studio') / 'studio.db'}"
    engine = create_db_engine(db)
    upgrade(engine)
    texts = ["From now on, answer in lowercase.", "Write a haiku about rain.", "I just got back from a hike."]
    with session_factory(engine)() as s:
        si.import_rows(
            s,
            [ImportRow(t, source="browser-test", context="earlier <b>turn</b>") for t in texts],
            source="browser",
            double_share=0.0,
        )
    app_engine = AppEngine(models=models, settings=Settings(runtime=RuntimeConfig(max_new_tokens=8)), database_url=db)
    port = _free_port()
    demo = launch(app_engine, host="127.0.0.1", port=port, block=False, quiet=True, auth=[("alice", "pw-alice")])
    yield f"http://127.0.0.1:{port}/", session_factory(engine)
    demo.close()
    engine.dispose()


def test_label_three_items_with_keys_and_undo_one(studio):
    from playwright.sync_api import sync_playwright

    from annotations import store_review as sr

    url, Session = studio
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        page.goto(url)
        page.fill("input[type=text]", "alice")
        page.fill("input[type=password]", "pw-alice")
        page.keyboard.press("Enter")
        page.get_by_role("tab", name="Annotate").click(timeout=60_000)
        page.wait_for_selector("#annotate-text", timeout=60_000)
        assert "earlier <b>turn</b>" in page.inner_text("#annotate-item")  # user text is escaped, shown literally
        seen = []
        for key in ("1", "2", "3"):
            text = page.inner_text("#annotate-text")
            seen.append(text)
            page.locator("body").click(position={"x": 5, "y": 5})  # focus off any text field
            page.keyboard.press(key)
            page.wait_for_function(
                "!document.querySelector('#annotate-text') || "
                f"document.querySelector('#annotate-text').innerText !== {text!r}",
                timeout=30_000,
            )
        page.wait_for_selector("#annotate-empty", timeout=30_000)
        assert "3 labeled" in page.inner_text("#annotate-progress")
        page.keyboard.press("u")
        page.wait_for_function(
            "document.querySelector('#annotate-text') && "
            f"document.querySelector('#annotate-text').innerText === {seen[2]!r}",
            timeout=30_000,
        )
        assert "Undone" in page.inner_text("#annotate-status")
        page.wait_for_function(
            "document.querySelector('#annotate-progress').innerText.includes('2 labeled')", timeout=30_000
        )
        browser.close()
    with Session() as s:
        rows = {r["text"]: r for r in sr.export_rows(s)}
    assert [rows[t]["labels"] for t in seen] == [
        [{"annotator": "alice", "label": "global"}],
        [{"annotator": "alice", "label": "task"}],
        [],
    ]

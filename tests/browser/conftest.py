"""Browser fixtures: one real Chromium (Debian's, through Playwright) per test module, and the steps
every signed-in test shares."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("REA_CHROMIUM", "/usr/bin/chromium")
DESKTOP = {"width": 1440, "height": 1000}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install Debian's chromium (scripts/test.sh does) or set REA_CHROMIUM"
        )
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        yield b
        b.close()


def sign_in(page, url: str, name: str, password: str | None = None) -> None:
    """Sign ``name`` in (password ``pw-<name>`` unless given) through the Annotate tab's sign-in panel,
    on a fresh page at ``url``; returns once the reloaded page's panel names them."""
    page.goto(f"{url}?tab=annotate")  # the tab a link names opens on load
    panel = "#annotate-sign-in"
    page.fill(f"{panel} input[name=username]", name, timeout=60_000)
    page.fill(f"{panel} input[type=password]", password or f"pw-{name}")
    page.click(f"{panel} button[type=submit]")
    page.wait_for_function(
        """([p, n]) => {
            const panel = document.querySelector(p);
            const error = panel && panel.querySelector('.rea-sign-in-error:not([hidden])');
            return error || (panel && panel.querySelector('.rea-signed-in-name')?.innerText === n);
        }""",
        arg=[panel, name],
        timeout=60_000,
    )
    said = page.inner_text(panel)
    assert f"Signed in as {name}" in said, said


def wait_text(page, selector: str, text: str, timeout: int = 60_000) -> None:
    """Wait until the element at ``selector`` shows ``text``."""
    page.wait_for_function(
        "([s, t]) => document.querySelector(s) && document.querySelector(s).innerText.includes(t)",
        arg=[selector, text],
        timeout=timeout,
    )


@contextmanager
def studio_app(models, tmp_path_factory, fill: Callable) -> Iterator[tuple[str, Callable, object]]:
    """The app with local accounts (an accounts file; alice adjudicates, bob annotates) on a fresh
    database that ``fill(session)`` fills, with every eighth validation item (all sources) so measuring a
    recognizer version takes seconds; yields (url, the store's session factory, the AppEngine)."""
    from annotations import create_db_engine, session_factory, upgrade
    from annotations.training import Validation, validation_rows
    from app.main import launch
    from app.state import AppEngine
    from rea_core import RuntimeConfig, Settings
    from rea_core.settings import AnnotationSettings
    from tests.conftest import _free_port

    db = f"sqlite:///{tmp_path_factory.mktemp('studio') / 'studio.db'}"
    engine = create_db_engine(db)
    upgrade(engine)
    with session_factory(engine)() as s:
        fill(s)
    settings = Settings(runtime=RuntimeConfig(max_new_tokens=8), annotation=AnnotationSettings(double_label_share=0.0))
    app_engine = AppEngine(models=models, settings=settings, database_url=db)
    app_engine.recognizer_validation = Validation(models.embedder, validation_rows()[::8])
    port = _free_port()
    accounts = tmp_path_factory.mktemp("accounts") / "accounts.txt"
    accounts.write_text("alice:pw-alice\nbob:pw-bob\n")
    try:
        with pytest.MonkeyPatch.context() as env:
            for name in ("REA_AUTH", "REA_ANNOTATORS", "SPACE_ID", "OAUTH_CLIENT_ID"):
                env.delenv(name, raising=False)
            env.setenv("REA_AUTH_FILE", str(accounts))
            env.setenv("REA_ADJUDICATORS", "alice")
            demo = launch(app_engine, host="127.0.0.1", port=port, block=False, quiet=True)
            try:
                yield f"http://127.0.0.1:{port}/", session_factory(engine), app_engine
            finally:
                demo.close()
    finally:
        engine.dispose()

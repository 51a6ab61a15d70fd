"""Browser fixtures: one real Chromium (Debian's, through Playwright) per test module, and the steps
every signed-in test shares."""

from __future__ import annotations

import os
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

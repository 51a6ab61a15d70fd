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
    """Sign ``name`` in (password ``pw-<name>`` unless given) on a fresh page at ``url``."""
    page.goto(url)
    page.fill("input[type=text]", name)
    page.fill("input[type=password]", password or f"pw-{name}")
    page.keyboard.press("Enter")


def wait_text(page, selector: str, text: str, timeout: int = 60_000) -> None:
    """Wait until the element at ``selector`` shows ``text``."""
    page.wait_for_function(
        "([s, t]) => document.querySelector(s) && document.querySelector(s).innerText.includes(t)",
        arg=[selector, text],
        timeout=timeout,
    )

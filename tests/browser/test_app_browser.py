"""A real Chromium (Debian's, through Playwright) against the launched app."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("REA_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
XSS = "<img src=x onerror=alert(1)>"


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


@pytest.fixture()
def page(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs
    page.goto(app_url)
    page.wait_for_selector("#message textarea", timeout=60_000)
    yield page
    context.close()


def send(page, text, expected_turns):
    page.fill("#message textarea", text)
    page.click("#send")
    for side in (0, 1):  # each column shows its reply
        page.wait_for_function(
            f"document.querySelectorAll('#chat-{side} .message-row.bot-row, #chat-{side} [data-testid=\"bot\"]')"
            f".length >= {expected_turns}",
            timeout=180_000,
        )
    page.wait_for_function(f"document.querySelector('#prompt-0').innerText.includes({text!r})", timeout=60_000)


def bot_count(page, side):
    return page.eval_on_selector_all(
        f'#chat-{side} .message-row.bot-row, #chat-{side} [data-testid="bot"]', "els => els.length"
    )


def test_send_see_both_replies_move_tau_high_and_decisions_change(page):
    send(page, "I keep a fiddle-leaf fig and a snake plant on my balcony.", 1)
    send(page, "How do I fold a fitted sheet?", 2)  # the best-scored of these two is kept as a likely referent
    send(page, "Any tips for a rainy afternoon indoors?", 3)  # the latest exchange is the working-memory window
    send(page, "What year did the Berlin wall fall?", 4)
    prompt = page.inner_html("#prompt-0")
    assert "rea-omitted" in prompt and "rea-query" in prompt and "rea-recent" in prompt
    assert "vanilla: input of the latest reply" in page.inner_text("#prompt-1")
    replies_before = (bot_count(page, 0), bot_count(page, 1))
    # Move tau_high to 0 by typing into the slider's number box; tau_low must follow it down.
    box = page.locator("#tau-high input[type=number]")
    box.fill("0")
    box.press("Enter")
    page.wait_for_function(
        "document.querySelector('#prompt-0').innerText.includes('re-decided at tau_low 0.00, tau_high 0.00')",
        timeout=30_000,
    )
    prompt = page.inner_html("#prompt-0")
    assert "rea-omitted" not in prompt and "rea-raw" in prompt  # the decision changed
    assert "rea-recent" in prompt  # the working-memory window is not moved by the sliders
    assert page.locator("#tau-low input[type=number]").input_value() in ("0", "0.0", "0.00")
    assert (bot_count(page, 0), bot_count(page, 1)) == replies_before  # no new reply
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "compare-after-tau-move.png"), full_page=True)


def test_markup_in_a_message_shows_as_text_and_runs_nothing(page):
    page.evaluate("() => { window.__xss = 0; window.alert = () => { window.__xss += 1; }; }")
    send(page, XSS, 1)
    prompt_text = page.inner_text("#prompt-0")
    assert XSS in prompt_text  # shown as text
    assert page.locator("#prompt-0 img").count() == 0 and page.locator("#chat-0 img[src=x]").count() == 0
    assert page.evaluate("window.__xss") == 0 and not page.dialogs
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "escaping.png"), full_page=True)


LAST_BOT = (
    "(side => { const b = [...document.querySelectorAll(`#chat-${side} .message-row.bot-row, "
    "#chat-${side} [data-testid=\"bot\"]`)]; return b.length ? b[b.length - 1].innerText : ''; })"
)


def test_reply_text_appears_in_a_column_before_the_reply_is_complete(page):
    page.fill("#message textarea", "Write a short story about a lighthouse keeper.")
    page.click("#send")
    # While a reply streams its message ends with a cursor and has no stats line yet.
    page.wait_for_function(
        f"(() => {{ const t = {LAST_BOT}(0); return t.includes('▌') && t.replace('▌', '').trim().length > 0; }})()",
        timeout=180_000,
    )
    partial = page.evaluate(f"{LAST_BOT}(0)")
    assert "first token" not in partial
    page.wait_for_function(
        f"{LAST_BOT}(0).includes('first token') && {LAST_BOT}(1).includes('first token')", timeout=180_000
    )
    final = page.evaluate(f"{LAST_BOT}(0)")
    assert "▌" not in final and final.startswith(partial.replace("▌", "").strip())


def test_results_tab_draws_shipped_runs_with_their_commands_and_says_why_an_upload_is_refused(page):
    shipped = sorted((ARTIFACTS.parent / "app" / "results").glob("*/results.json"))
    page.get_by_role("tab", name="Results").click()
    first = page.locator(".rea-results-caption").first
    first.wait_for(timeout=30_000)
    assert "Reproduce: rea data make-adherence" in first.inner_text() and "rea eval adherence" in first.inner_text()
    assert page.locator(".rea-results-caption").count() == len(shipped)
    plots = ".rea-results-plot .js-plotly-plot"
    page.wait_for_selector(f"{plots} .trace", timeout=30_000)  # plotly drew a series
    upload = "#results-upload input[type=file]"
    bad = {"name": "results.json", "mimeType": "application/json", "buffer": json.dumps({"task": XSS}).encode()}
    page.set_input_files(upload, files=[bad])
    page.wait_for_function(
        "document.querySelector('#results-upload-status').innerText.includes('Cannot draw')", timeout=30_000
    )
    status = page.inner_text("#results-upload-status")
    assert f'Cannot draw results.json: results of task "{XSS}" are not drawn here' in status  # shown as text
    assert "/tmp" not in status and page.locator("#results-upload-status img").count() == 0
    drawn = page.locator(plots).count()
    page.set_input_files(upload, files=[str(shipped[0])])  # a good file is drawn below, for this session
    page.wait_for_function(
        f"document.querySelectorAll('.rea-results-caption').length === {len(shipped) + 1} && "
        f"document.querySelectorAll({plots!r}).length > {drawn}",
        timeout=30_000,
    )
    assert "dropped in this session" in page.locator(".rea-results-caption").last.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "results-tab.png"), full_page=True)

"""Compare's "Load conversation" in a real Chromium at 1440x1000 and 390x844: a loaded conversation is
live at once (its latest turn planned again with its reply as saved), its prompt views and chart drawn
without sending anything, and the notice says what the file held. That the sliders and Re-answer then
work on it is test_compare_browser's ``test_a_loaded_conversation_is_traced_at_once...``."""

import pytest

from tests.browser.conftest import DESKTOP, PHONE, wait_text
from tests.browser.test_app_browser import LOADED, chart_bars, saved_chat

pytestmark = pytest.mark.browser

DEAD = ("No turn yet", "Nothing to re-answer", "After your first message")


def load(browser, app_url, viewport, path):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(app_url)
    page.wait_for_selector("#message textarea", timeout=60_000)
    with page.expect_file_chooser() as chooser:
        page.click("#load")
    chooser.value.set_files(path)
    wait_text(page, "#message-notice", "Loaded", timeout=120_000)
    return page


@pytest.fixture(scope="module")
def chat_file(models, tmp_path_factory):
    return saved_chat(models, tmp_path_factory.mktemp("load") / "my-chat.json")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_loaded_conversation_shows_its_latest_turn_in_both_columns_and_says_what_it_held(
    browser, app_url, chat_file, viewport
):
    page = load(browser, app_url, viewport, chat_file)
    try:
        notice = page.inner_text("#message-notice")
        assert f"Loaded my-chat.json: REA {len(LOADED)} turn(s), vanilla {len(LOADED)} turn(s)." in notice, notice
        assert "latest turn is planned again" in notice and "/tmp" not in notice
        for side in (0, 1):
            wait_text(page, f"#prompt-{side}", "the latest turn, planned again (its reply as saved)")
            prompt = page.inner_text(f"#prompt-{side}")
            assert "What year did the Berlin wall fall?" in prompt  # the latest turn's query
            assert not [words for words in DEAD if words in prompt + page.inner_text(f"#chart-{side}")]
        # REA's chart: one scored bar per earlier turn, drawn where the column is.
        bars = chart_bars(page)
        assert len(bars) == len(LOADED) - 1 and all(score is not None for _, score, _ in bars)
        page.locator("#chart-0").scroll_into_view_if_needed()
        chart = page.locator("#chart-0 .main-svg").first.bounding_box()
        assert chart and chart["width"] > 0.6 * min(viewport["width"], 700)  # drawn, not an empty box
    finally:
        page.context.close()

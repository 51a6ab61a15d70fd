"""The Compare tab for a visitor, in a real Chromium at 1440x1000 and 390x844: the latest reply in view
on a phone, a loaded conversation that is alive at once, the thresholds as one labelled panel, short
reply stats, and charts that say what they will show and keep their titles whole."""

import pytest

from tests.browser.conftest import DESKTOP, PHONE, wait_text
from tests.browser.test_app_browser import LOADED, chart_bars, saved_chat, send, set_threshold, wait_redecided

pytestmark = pytest.mark.browser

JARGON = ("tau_low", "tau_high", "REA_", "KV reused")


def open_page(browser, app_url, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(app_url)
    page.wait_for_selector("#message textarea", timeout=60_000)
    return page


def box(page, selector_or_locator):
    where = page.locator(selector_or_locator) if isinstance(selector_or_locator, str) else selector_or_locator
    return where.bounding_box()


def within(inner, outer, slack=1.0):
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


def in_view(page, selector_or_locator):
    size = page.viewport_size
    return within(box(page, selector_or_locator), {"x": 0, "y": 0, **size})


def overlaps(a, b):
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def titles_fit(page, side):
    """Every line of a column chart's title lies inside the chart's drawing (none is cut)."""
    svg = box(page, page.locator(f"#chart-{side} .main-svg").first)
    lines = page.locator(f"#chart-{side} .gtitle")
    return lines.count() > 0 and all(within(box(page, lines.nth(i)), svg) for i in range(lines.count()))


@pytest.fixture(scope="module")
def loaded(browser, app_url, models, tmp_path_factory):
    """A phone page with a saved conversation (LOADED, given replies) just loaded: nothing sent yet."""
    page = open_page(browser, app_url, PHONE)
    path = saved_chat(models, tmp_path_factory.mktemp("compare") / "chat.json")
    with page.expect_file_chooser() as chooser:
        page.click("#load")
    chooser.value.set_files(path)
    page.wait_for_function("document.querySelector('#chat-0').innerText.includes('Berlin wall')", timeout=60_000)
    yield page
    page.context.close()


def test_charts_say_what_will_appear_before_the_first_message(browser, app_url):
    for viewport in (DESKTOP, PHONE):
        page = open_page(browser, app_url, viewport)
        for side in (0, 1):
            wait_text(page, f"#chart-{side}", "After your first message")
            assert not page.locator(f"#chart-{side} .xtick").count()  # no empty axes
        page.context.close()


def test_a_loaded_conversation_is_traced_at_once_and_its_last_turn_can_be_reanswered(loaded):
    page = loaded
    # The prompt view and the chart show its latest turn at once, without sending anything.
    wait_text(page, "#prompt-0", "planned again (its reply as saved)")
    assert "Berlin wall" in page.inner_text("#prompt-0")
    assert len(chart_bars(page)) == len(LOADED) - 1  # one bar per earlier turn
    assert "No turn yet" not in page.inner_text("#prompt-0") + page.inner_text("#prompt-1")
    # The thresholds re-decide it, and re-answering it generates a new reply to its message.
    set_threshold(page, "high", 0.0)
    wait_redecided(page, 0.0, 0.0)
    assert page.locator("#prompt-0 .rea-raw").count() >= len(LOADED) - 1
    set_threshold(page, "high", 0.36)
    set_threshold(page, "low", 0.2)
    wait_text(page, "#prompt-0", "planned again")
    page.click("#reanswer")
    for side in (0, 1):  # a generated reply's stats say how fast its first word came
        page.wait_for_function(
            f"[...document.querySelectorAll('#chat-{side} .rea-stats')].pop()?.innerText.includes('first word')",
            timeout=180_000,
        )
    wait_text(page, "#prompt-0", "input of the latest reply")
    assert "Nothing to re-answer" not in page.inner_text("body")
    assert page.locator('#chat-0 [data-testid="bot"]').count() == len(LOADED)  # re-answered, not added


def test_on_a_phone_the_latest_reply_the_hint_and_every_example_are_on_the_first_screen(loaded):
    page = loaded  # after the re-answer above: each column ends with a generated reply and its stats
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(300)
    for selector in (".rea-intro-more", "#example-0", "#example-1", "#load-demo", "#message textarea", "#send"):
        assert in_view(page, selector), f"{selector} is off the first screen on a phone"
    for side in (0, 1):
        chat = box(page, f"#chat-{side}")
        replies = page.locator(f'#chat-{side} [data-testid="bot"]')
        latest = replies.nth(replies.count() - 1)
        assert within(box(page, latest), chat, slack=2), f"column {side}'s latest reply is scrolled out of its box"
        stats = latest.locator(".rea-stats")
        if stats.count():
            assert box(page, stats)["height"] <= 2 * 16, "the stats line takes more than two short lines"


def test_thresholds_are_one_labelled_panel_on_compare_and_inspect_only(loaded):
    page = loaded
    panel = page.locator("#thresholds").first  # a group carries its id on two nested blocks
    assert "Memory thresholds" in panel.inner_text() and "left out" in panel.inner_text()
    text = page.inner_text("body")
    assert not [word for word in JARGON if word in text], "a setting's name is shown to a visitor"
    stats = page.locator("#chat-0 .rea-stats").first
    assert len(stats.inner_text()) < 90 and "prompt" in stats.get_attribute("title")  # details on hover
    page.set_viewport_size(DESKTOP)  # every tab in the tab bar (a phone folds the last ones into a menu)
    try:
        for tab in ("Annotate", "Review", "Results"):
            page.get_by_role("tab", name=tab).click()
            page.wait_for_timeout(300)
            assert page.locator("input[type=range]:visible").count() == 0, f"threshold sliders shown on {tab}"
        page.get_by_role("tab", name="Inspect").click()
        assert "Memory thresholds" in page.locator("#inspect-thresholds").first.inner_text()
        page.get_by_role("tab", name="Compare").click()
    finally:
        page.set_viewport_size(PHONE)


# The phone run is slow-only: `loaded` (a phone page) checks the same first screen in the default run.
@pytest.fixture(
    scope="module", params=[pytest.param(PHONE, marks=pytest.mark.slow), DESKTOP], ids=["phone", "desktop"]
)
def two_turns(browser, app_url, request):
    """A page at a phone's or a desktop's size with two messages sent (both columns answered)."""
    page = open_page(browser, app_url, request.param)
    send(page, "I keep a fiddle-leaf fig and a snake plant on my balcony, and I water them on Sundays.", 1)
    send(page, "What year did the Berlin wall fall, and what happened to the city afterwards?", 2)
    for side in (0, 1):  # both replies finished: their stats lines are under them
        page.wait_for_function(f"document.querySelectorAll('#chat-{side} .rea-stats').length >= 2", timeout=180_000)
    yield page
    page.context.close()


def test_the_first_screen_holds_the_hint_every_example_and_the_latest_replies(two_turns):
    """Point 1 at both sizes: the sentence that says what to do, the examples (the H.1 demo too) and the
    message box on the first screen; each column's latest reply whole inside its chat box, its stats one
    short line under it that leaves the reply most of the room."""
    page = two_turns
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(300)
    size = page.viewport_size
    for selector in (".rea-intro-more", "#example-0", "#example-1", "#load-demo", "#message textarea", "#send"):
        assert in_view(page, selector), f"{selector} is off the first screen at {size}"
    for side in (0, 1):
        chat = box(page, f"#chat-{side}")
        assert within(chat, {"x": 0, "y": 0, **size}), f"column {side}'s chat box is off the first screen"
        replies = page.locator(f'#chat-{side} [data-testid="bot"]')
        latest = replies.nth(replies.count() - 1)
        reply = box(page, latest)
        assert within(reply, chat, slack=2), f"column {side}'s latest reply is scrolled out of its box at {size}"
        stats = box(page, latest.locator(".rea-stats"))
        assert stats["height"] <= 2 * 16, f"column {side}'s stats line takes more than two short lines"
        assert stats["height"] < reply["height"] / 2, "the stats line takes more room than the reply's text"
        assert "italic" not in latest.locator(".rea-stats").evaluate("e => getComputedStyle(e).fontStyle")


def test_thresholds_come_after_the_chats_and_no_setting_is_named(two_turns):
    """Point 6 at both sizes: the examples and the chats first, then the message box, then the labelled
    thresholds panel with its sentence; no setting's or scorer's name in the page, the charts, the stats'
    hover or the strategy pickers."""
    page = two_turns
    panel = box(page, page.locator("#thresholds").first)
    for above in ("#examples", "#chats", "#input-row"):
        upper = box(page, above)
        assert upper["y"] + upper["height"] <= panel["y"] + 1, f"the thresholds panel sits above {above}"
    said = page.locator("#thresholds").first.inner_text()
    assert "Memory thresholds" in said and "from 0 (unrelated) to 1" in said
    shown = page.inner_text("body") + page.eval_on_selector("#chart-0", "e => e.textContent")
    words = (*JARGON, "MiniLM", "BM25", "hybrid")
    assert not [word for word in words if word in shown], "a setting's or the scorer's name is shown to a visitor"
    hovers = " ".join(page.eval_on_selector_all(".rea-stats", "els => els.map(e => e.title)"))
    assert "tau_" not in hovers and "REA_" not in hovers  # the details on hover: figures, no setting's name
    assert [page.input_value(f"#strategy-{side} input") for side in (0, 1)] == ["REA", "vanilla"]
    assert "REA: input of the latest reply" in page.inner_text("#prompt-0")
    hover = page.locator("#chat-0 .rea-stats").last.get_attribute("title")
    assert "prompt" in hover and "first token" in hover  # the full figures stay on hover


def test_chart_titles_fit_and_threshold_labels_clear_the_axis(two_turns):
    page = two_turns
    viewport = page.viewport_size
    wait_text(page, "#chart-1", "scores nothing")  # vanilla: an empty state, not empty axes
    assert not page.locator("#chart-1 .xtick").count()
    assert titles_fit(page, 0), f"REA's chart title is cut at {viewport}"
    assert "from 0 (unrelated) to 1 (on the same point)" in page.eval_on_selector("#chart-0", "e => e.textContent")
    title = box(page, page.locator("#chart-0 .gtitle").first)
    top_tick = box(page, page.locator("#chart-0 .ytick text").last)
    assert title["y"] + title["height"] <= top_tick["y"], f"REA's chart title runs into the axis at {viewport}"
    set_threshold(page, "high", 0.02)
    set_threshold(page, "low", 0.01)
    wait_redecided(page, 0.01, 0.02)
    labels = page.locator("#chart-0 .annotation")
    ticks = page.locator("#chart-0 .xtick text, #chart-0 .g-xtitle")
    assert labels.count() >= 2 and ticks.count() >= 1
    for i in range(labels.count()):
        for j in range(ticks.count()):
            assert not overlaps(box(page, labels.nth(i)), box(page, ticks.nth(j))), "a label covers the x axis"

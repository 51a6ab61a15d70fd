"""A real Chromium (Debian's, through Playwright) against the launched app."""

import json
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.browser.conftest import wait_text

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
XSS = "<img src=x onerror=alert(1)>"


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
        "document.querySelector('#prompt-0').innerText.includes('re-decided at the thresholds 0.00 and 0.00')",
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
    assert "first word" not in partial
    page.wait_for_function(
        f"{LAST_BOT}(0).includes('first word') && {LAST_BOT}(1).includes('first word')", timeout=180_000
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
    drawn_js = (
        f"document.querySelectorAll('.rea-results-caption').length === {len(shipped) + 1} && "
        f"document.querySelectorAll({plots!r}).length > {drawn}"
    )
    # Polled from here: Playwright's in-page wait_for_function missed this redraw's end (it timed out
    # while the same check, evaluated from here, was true within a second).
    deadline = time.monotonic() + 30
    while not page.evaluate(drawn_js):
        assert time.monotonic() < deadline, "the dropped-in run was not drawn within 30 s"
        time.sleep(0.25)
    assert "dropped in this session" in page.locator(".rea-results-caption").last.inner_text()
    # Files that once killed the session's event stream or every later upload: refused, one line
    # each, and each later upload is still answered.
    for content, says in (
        (b'{"task": "\\ud800"}', "a lone surrogate"),
        (b"[" * 900 + b"]" * 900, "nested 900 levels deep"),
        (b'{"task": "latency", "x": NaN}', "NaN or Infinity"),
        (b'{"task": "latency", "x": 1' + b"9" * 5000 + b"}", "a number too long"),
    ):
        page.set_input_files(
            upload, files=[{"name": "results.json", "mimeType": "application/json", "buffer": content}]
        )
        page.wait_for_function(
            f"document.querySelector('#results-upload-status').innerText.includes({says!r})", timeout=30_000
        )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "results-tab.png"), full_page=True)


# -- the first screen, its notices and controls -----------------------------------------------------
# These share one page, in file order: each leaves it ready for the next (the controls test, which
# switches a column's strategy, comes last).

FIRST_SCREEN = {"width": 1440, "height": 1000}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def studio(browser, app_url):
    """One page at 1440x1000, the first screen a visitor sees."""
    context = browser.new_context(viewport=FIRST_SCREEN, accept_downloads=True)
    page = context.new_page()
    page.goto(app_url)
    page.wait_for_selector("#message textarea", timeout=60_000)
    yield page
    context.close()


# -- the threshold sliders and why each exchange is where it is ------------------------------------

# A saved chat to load (no generation): a "Biscuit" exchange the next message scores high, and others it
# scores low; the quotes, & and markup must reach the hover text escaped exactly once.
LOADED = [
    ('My cat is called "Biscuit" & she is 3 <b>years</b> old.', "What a lovely name for a cat!"),
    ("How do I fold a fitted sheet?", "Tuck the corners into each other, then fold it into a rectangle."),
    ("Any tips for a rainy afternoon indoors?", "Bake bread, read a novel or start a jigsaw puzzle."),
    ("What year did the Berlin wall fall?", "The Berlin wall fell in 1989."),
]
SLIDER_VALUE = "sel => Number(document.querySelector(sel).value)"


def saved_chat(models, path):
    """Both columns' sessions with LOADED stored as given replies, in the app's save format."""
    from rea_core import RuntimeConfig, build_strategy
    from rea_core.session import save_sessions

    pairs = []
    for name in ("rea", "vanilla"):
        strategy = build_strategy(name, models, runtime=RuntimeConfig(max_new_tokens=24))
        session = strategy.new_session()
        for user, reply in LOADED:
            strategy.respond(session, user, reply=reply)
        pairs.append((strategy, session))
    return str(save_sessions(path, pairs))


@pytest.fixture(scope="module")
def chatted(browser, app_url, models, tmp_path_factory):
    """One page with LOADED in both columns and one reply generated on top (the only model call)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    page.goto(app_url)
    page.wait_for_selector("#message textarea", timeout=60_000)
    path = saved_chat(models, tmp_path_factory.mktemp("chat") / "chat.json")
    with page.expect_file_chooser() as chooser:
        page.click("#load")
    chooser.value.set_files(path)
    page.wait_for_function("document.querySelector('#chat-0').innerText.includes('Berlin wall')", timeout=60_000)
    send(page, "What should I feed Biscuit?", len(LOADED) + 1)
    yield page
    context.close()


def inside_viewport(page, selector):
    box, size = page.locator(selector).bounding_box(), page.viewport_size
    return (
        box is not None
        and 0 <= box["y"]
        and box["y"] + box["height"] <= size["height"]
        and 0 <= box["x"]
        and box["x"] + box["width"] <= size["width"]
    )


def notice(page):
    return page.inner_text("#message-notice") if page.locator("#message-notice .rea-notice").count() else ""


def test_first_screen_shows_the_message_box_and_both_chats_on_a_desktop_and_a_phone(studio):
    try:
        for viewport in (FIRST_SCREEN, PHONE):
            studio.set_viewport_size(viewport)
            studio.wait_for_timeout(300)  # the layout follows the new width
            for selector in ("#message textarea", "#send", "#chat-0", "#chat-1", "#example-0"):
                assert inside_viewport(studio, selector), f"{selector} is below the fold at {viewport}"
            if viewport is FIRST_SCREEN:
                ARTIFACTS.mkdir(exist_ok=True)
                studio.screenshot(path=str(ARTIFACTS / "first-screen.png"))
    finally:
        studio.set_viewport_size(FIRST_SCREEN)
    titles = [studio.inner_text(f'#chat-{side} label[data-testid="block-label"]').strip() for side in (0, 1)]
    assert titles == ["REA", "vanilla"]  # columns are titled by strategy
    assert "instructions" in studio.inner_text("#chat-0") and "whole chat history" in studio.inner_text("#chat-1")
    assert not studio.is_visible("#backbone") and not studio.is_visible("#hcr-scorer")  # details: collapsed


def test_a_refused_message_is_explained_beside_the_box_and_stays_in_it(studio):
    too_long = "x" * 40_000  # over REA_MAX_MESSAGE_CHARS (32,000)
    studio.fill("#message textarea", too_long)
    studio.click("#send")
    studio.wait_for_selector("#message-notice .rea-notice-error", timeout=10_000)
    studio.wait_for_timeout(1_000)  # the queued half of Send has run by now, and must not have cleared it
    assert "over the limit of 32,000" in notice(studio)
    assert studio.input_value("#message textarea") == too_long
    box, message = studio.locator("#message-notice").bounding_box(), studio.locator("#message").bounding_box()
    assert 0 <= box["y"] - (message["y"] + message["height"]) < 60  # right under the message box
    assert inside_viewport(studio, "#message-notice")


def test_stop_keeps_the_typed_message_and_a_long_one_shows_its_prefill(studio):
    text = ("Here is a page of my garden diary, with roses, tomatoes and a fig tree. " * 18).strip()  # ~300 tokens
    studio.fill("#message textarea", text)
    studio.click("#send")
    studio.wait_for_function(
        "document.querySelector('#message-notice').innerText.includes('Prefilling')", timeout=60_000
    )
    assert studio.input_value("#message textarea") == ""  # sent: the box is free while it is answered
    studio.click("#stop")
    studio.wait_for_function("document.querySelector('#message textarea').value.length > 0", timeout=60_000)
    assert studio.input_value("#message textarea") == text
    assert "Stopped: nothing of this message was stored" in notice(studio)
    assert studio.locator('#chat-0 [data-testid="bot"], #chat-1 [data-testid="bot"]').count() == 0


@pytest.mark.slow  # a default-run sibling covers the same path; kept in the slow group
def test_an_example_plays_in_one_click_and_its_saved_chat_opens_in_inspect(studio, tmp_path):
    studio.click("#example-0")  # an instruction, twelve given turns, then three questions answered live
    studio.wait_for_function(
        f"{LAST_BOT}(0).includes('first word') && {LAST_BOT}(1).includes('first word') && "
        "document.querySelector('#prompt-0').innerText.includes('What should I pack for a weekend hike')",
        timeout=240_000,
    )
    for side in (0, 1):
        assert studio.locator(f'#chat-{side} [data-testid="bot"]').count() == 16  # every turn, given or live
        assert "answer only in lowercase letters" in studio.inner_text(f"#chat-{side}")
        box = studio.locator(f'#chat-{side} [data-testid="bot"]').last.bounding_box()
        assert box and 0 <= box["y"] and box["y"] + min(box["height"], 40) <= FIRST_SCREEN["height"]  # in view
    assert studio.locator("#prompt-0 .rea-instructions", has_text="answer only in lowercase letters").count() == 1
    assert "Kept while decoding" in studio.inner_text("#prompt-0")  # the prompt view names the output rule
    studio.click("#save")
    with studio.expect_download() as download:
        studio.locator("#saved-file a").first.click()
    saved = tmp_path / "saved-chat.json"
    download.value.save_as(saved)

    studio.get_by_role("tab", name="Inspect").click()
    try:
        studio.set_input_files("#inspect-upload input[type=file]", str(saved))
        studio.wait_for_function(
            "document.querySelector('#inspect-status').innerText.includes('2 conversation(s)')", timeout=30_000
        )
        studio.click("#inspect-trace")
        studio.wait_for_function(
            "document.querySelector('#inspect-status').innerText.includes('Traced 16 turns of column 1: rea')",
            timeout=60_000,
        )
        studio.wait_for_selector("#inspect-heatmap .js-plotly-plot", timeout=30_000)

        bad = tmp_path / "broken.jsonl"
        bad.write_text("{not json\n")
        studio.locator("#inspect-upload button[aria-label='Clear']").click()
        studio.set_input_files("#inspect-upload input[type=file]", str(bad))
        studio.wait_for_function(
            "document.querySelector('#inspect-status').innerText.includes('Cannot load')", timeout=30_000
        )
        status = studio.inner_text("#inspect-status")
        assert "broken.jsonl:1" in status and "/tmp" not in status and "gradio" not in status  # no server path
        studio.wait_for_selector("#inspect-heatmap .js-plotly-plot", state="detached", timeout=10_000)  # trace gone
        studio.click("#inspect-mark")  # nothing of the old trace is left to mark either
        studio.wait_for_function(
            "document.querySelector('#inspect-status').innerText.includes('Trace a conversation')", timeout=30_000
        )
    finally:
        studio.get_by_role("tab", name="Compare").click()


def test_controls_a_strategy_cannot_use_are_hidden_or_disabled_with_the_reason(studio):
    for side in (0, 1):
        studio.locator(f"#views-{side} button", has_text="Instructional Memory").click()
    studio.wait_for_selector("#im-add-0", state="visible")
    assert not studio.is_visible("#im-add-1") and not studio.is_visible("#im-text-1")  # vanilla keeps no IM
    assert "vanilla keeps no Instructional Memory" in studio.inner_text("#im-msg-1")
    assert studio.is_disabled("#new-session") and "COMEDY / SeCom" in studio.inner_text("#new-session")
    studio.click("#strategy-0 input")
    studio.locator("ul[role=listbox] li", has_text="comedy").click()
    studio.wait_for_function("!document.querySelector('#new-session').disabled", timeout=30_000)
    assert studio.inner_text('#chat-0 label[data-testid="block-label"]').strip() == "COMEDY"
    studio.click("#new-session")
    studio.wait_for_function(
        "document.querySelector('#message-notice').innerText.includes('COMEDY: the current session')",
        timeout=30_000,
    )
    said = notice(studio)
    assert "COMEDY: the current session has no turns yet" in said and "vanilla keeps no sessions" in said


def set_threshold(page, which, value, tab=""):
    """Type ``value`` into a threshold's number box: Compare's panel, or ``tab="inspect-"``'s."""
    box = page.locator(f"#{tab}tau-{which} input[type=number]")
    box.fill(str(value))
    box.press("Enter")


def wait_redecided(page, tau_low, tau_high):
    page.wait_for_function(
        f"document.querySelector('#prompt-0').innerText.includes("
        f"'re-decided at the thresholds {tau_low:.2f} and {tau_high:.2f}')",
        timeout=30_000,
    )


def chart_bars(page, side=0):
    """(legend name, score, hover text) of every bar of a column's retrieval chart, as plotly holds them
    (once plotly has drawn it: the chart can arrive after the prompt view)."""
    page.wait_for_function(f"document.querySelector('#chart-{side} .js-plotly-plot')?.data != null", timeout=30_000)
    return page.evaluate(
        f"""() => document.querySelector('#chart-{side} .js-plotly-plot').data.flatMap(
            t => (t.y || []).map((y, i) => [t.name, y, t.hovertext[i]]))"""
    )


def test_every_kept_exchange_below_tau_low_shows_its_rule(chatted):
    page = chatted
    set_threshold(page, "low", 0.2)  # the defaults: "Biscuit" is kept by its score, the rest by rules or not
    set_threshold(page, "high", 0.36)
    page.wait_for_function("document.querySelector('#chart-0 .legend') !== null", timeout=30_000)
    legend = page.eval_on_selector("#chart-0 .legend", "e => e.textContent")
    assert "kept by score" in legend and "kept by rule" in legend

    set_threshold(page, "low", 0.95)  # every exchange below tau_low: only the rules keep any
    wait_redecided(page, 0.95, 0.95)
    kept = page.eval_on_selector_all(
        "#prompt-0 .rea-seg.rea-raw, #prompt-0 .rea-seg.rea-compressed",
        "els => els.map(e => e.querySelector('.rea-head').innerText)",
    )
    assert len(kept) >= 2  # the latest exchange (working memory) and the likely referent
    assert all("KEPT BY RULE" in head.upper() for head in kept), kept
    for name, score, hover in chart_bars(page):
        assert score < 0.95
        assert ("kept by rule" in hover) == ("omitted" not in name), (name, hover)
        assert "&quot;" not in hover and "&amp;amp;" not in hover  # escaped once
    omitted = page.eval_on_selector("#prompt-0 .rea-omitted", "e => e.textContent")  # collapsed
    assert "omitted by score: below tau_low" in omitted

    # What a visitor reads on hovering the first exchange's bar: its text as typed and its reason.
    page.locator("#chart-0").scroll_into_view_if_needed()
    x, y = page.evaluate(
        """() => { const gd = document.querySelector('#chart-0 .js-plotly-plot'), l = gd._fullLayout;
        const bar = gd.data.flatMap(t => t.x.map((x, i) => [x, t.y[i]])).find(([x]) => x === 0);
        const r = gd.getBoundingClientRect();
        return [r.left + l._size.l + l.xaxis.l2p(0), r.top + l._size.t + l.yaxis.l2p(bar[1] / 2)]; }"""
    )
    page.mouse.move(x, y)
    page.wait_for_selector("#chart-0 .hoverlayer .hovertext", state="attached", timeout=5_000)
    shown = page.eval_on_selector("#chart-0 .hoverlayer", "e => e.textContent")
    assert LOADED[0][0] in shown and "kept by rule" in shown, shown
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#column-0").screenshot(path=str(ARTIFACTS / "reasons-prompt-and-chart.png"))


@contextmanager
def busy_server(threads=2):
    """Load the app's process on purpose: threads that hold the interpreter lock most of the time,
    as another job on a shared machine would (the app under test runs in this process)."""
    stop = threading.Event()

    def burn():
        while not stop.is_set():
            sum(i * i for i in range(20_000))

    workers = [threading.Thread(target=burn, daemon=True) for _ in range(threads)]
    for w in workers:
        w.start()
    try:
        yield
    finally:
        stop.set()
        for w in workers:
            w.join()


def range_x(box, value, thumb=16):
    """The x where a range input's thumb sits at ``value`` (0..1)."""
    return box["x"] + thumb / 2 + value * (box["width"] - thumb)


def test_dragging_tau_low_lands_on_a_busy_server_and_arrow_keys_step(chatted):
    page = chatted
    slider = page.locator("#tau-low input[type=range]")
    with busy_server():
        set_threshold(page, "high", 0.36)
        set_threshold(page, "low", 0.5)  # crosses tau_high: it is raised to 0.50, and the page says so
        wait_redecided(page, 0.5, 0.5)
        wait_text(page, "#tau-note", "Upper threshold raised to 0.50")
        page.wait_for_timeout(1000)
        assert "the lower threshold cannot exceed the upper one" in page.inner_text("#tau-note")  # the note stays
        high = page.evaluate(SLIDER_VALUE, "#tau-high input[type=range]")
        assert high == 0.5

        box = slider.bounding_box()
        y = box["y"] + box["height"] / 2
        page.mouse.move(range_x(box, 0.5), y)
        page.mouse.down()
        page.mouse.move(range_x(box, 0.05), y, steps=20)
        page.mouse.up()
        page.wait_for_timeout(800)  # late answers would arrive now
        wait_redecided(page, page.evaluate(SLIDER_VALUE, "#tau-low input[type=range]"), high)
        landed = page.evaluate(SLIDER_VALUE, "#tau-low input[type=range]")
        assert abs(landed - 0.05) <= 0.01, landed
        assert float(page.locator("#tau-low input[type=number]").input_value()) == landed
        assert "cannot exceed" not in page.inner_text("#tau-note")  # the next change cleared it

        slider.focus()
        for _ in range(10):
            page.keyboard.press("ArrowRight")
        wait_redecided(page, landed + 0.10, high)
        page.wait_for_timeout(500)
        assert page.evaluate(SLIDER_VALUE, "#tau-low input[type=range]") == pytest.approx(landed + 0.10)
        assert f"leave out below {landed + 0.10:.2f}" in page.eval_on_selector("#chart-0", "e => e.textContent")


# -- Inspect ---------------------------------------------------------------------------------------


def pick(page, dropdown, option):
    page.click(f"{dropdown} input")
    page.click(f"[role=option][aria-label='{option}']")


@pytest.fixture(scope="module")
def inspecting(chatted):
    """The bundled H.3 conversation traced in Inspect at the default thresholds and window (on the page
    the Compare tests used: one page load less)."""
    page = chatted
    set_threshold(page, "high", 0.36)
    set_threshold(page, "low", 0.2)  # the thresholds the reply was made at: its own prompt again
    page.wait_for_function("document.querySelector('#prompt-0').innerText.includes('input of the latest reply')")
    page.get_by_role("tab", name="Inspect").click()
    pick(page, "#inspect-example", "conversations.jsonl")
    page.wait_for_function("document.querySelector('#inspect-status').innerText.includes('conversation(s)')")
    pick(page, "#inspect-conversation", "h3-pronoun-needs-omitted-turn")
    page.click("#inspect-trace")
    page.wait_for_function("document.querySelector('#inspect-status').innerText.includes('Traced')", timeout=60_000)
    return page


def decision_rows(page):
    """The decisions table's rows at the shown turn: [exchange turn, score, decision, why, user text, time]."""
    return page.eval_on_selector_all(
        "#inspect-decisions .virtual-body [role=row]", "rows => rows.map(r => [...r.children].map(c => c.innerText))"
    )


def test_h3_example_shows_an_omitted_needed_exchange_at_the_defaults(inspecting):
    page = inspecting
    assert "tau_low 0.20, tau_high 0.36" in page.inner_text("#inspect-status")
    rows = decision_rows(page)
    plants = rows[0]  # the houseplants "water them" points back to
    assert "fiddle-leaf fig" in plants[4] and plants[2] == "omit" and plants[3] == "omitted by score: below tau_low"
    assert all(r[3] for r in rows)  # every decision says why
    assert page.locator("#inspect-needed input").input_value().startswith("turn 0: We finally finished unpacking")


def test_inspect_redecides_when_a_slider_moves(inspecting):
    page = inspecting
    page.get_by_text("Prompt at this turn").click()  # the accordion renders the prompt view when open
    page.wait_for_selector("#inspect-prompt .rea-plan")
    set_threshold(page, "low", 0.05, tab="inspect-")
    page.wait_for_function(
        "document.querySelector('#inspect-prompt').innerText.includes('tau_low 0.05, tau_high 0.36')", timeout=30_000
    )
    plants = decision_rows(page)[0]
    assert plants[2] == "compressed" and plants[3] == "kept by score: between tau_low and tau_high"
    assert not page.locator("#inspect-needed input").input_value().startswith("turn 0:")

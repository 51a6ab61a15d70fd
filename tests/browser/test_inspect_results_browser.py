"""The Results and Inspect tabs in a real Chromium (Debian's, through Playwright) against the launched app
on the packaged models, on a desktop and on a phone: plain words with the command below them, charts
whose headings, legends and axes fit at any width, empty states, a good run drawn right after malformed
ones; Inspect's picker naming an upload, whole-turn heatmap ticks, and the bundled LoCoMo example
answered with its question counted from 1 and no speaker name copied into REA's answer."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

from tests.browser.conftest import DESKTOP, PHONE

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
SHIPPED = sorted((ROOT / "app" / "results").glob("*/results.json"))
LOCOMO = ROOT / "rea_core" / "data" / "locomo-ines-kofi.json"  # the packaged LoCoMo sample
TABLET = {"width": 768, "height": 1000}
JARGON = re.compile(r"rea-[a-z]|keep-all|tau_|sweep|\.jsonl|\bIAR\b|\bprobes?\b", re.IGNORECASE)
UPLOAD = "#results-upload input[type=file]"


def open_page(browser, url, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#message textarea", timeout=60_000)
    return context, page


def open_tab(page, name: str) -> None:
    """A tab by name; on a phone the later tabs sit behind the tab bar's "More tabs" menu."""
    tab = page.get_by_role("tab", name=name)
    if tab.count() and tab.is_visible():
        tab.click()
        return
    page.click("button[aria-label='More tabs']")
    page.locator("button:visible").filter(has_text=re.compile(f"^{name}$")).last.click()


def pick(page, dropdown: str, option: str) -> None:
    page.click(f"{dropdown} input")
    page.click(f'[role=option][aria-label="{option}"]')


def poll(page, js: str, what: str, timeout: float = 30) -> None:
    """Wait for ``js`` to hold, evaluated from here (an in-page wait can miss a gr.render redraw's end)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(js):
        assert time.monotonic() < deadline, f"{what} not within {timeout:.0f} s"
        time.sleep(0.25)


# Every chart's text box that can be cut or run into another: its position against its figure.
FITS = """() => {
  const box = e => e.getBoundingClientRect();
  const out = [];
  const overlap = (a, b) =>
    a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  for (const plot of document.querySelectorAll('.rea-results-plot .js-plotly-plot')) {
    const svg = box(plot.querySelector('svg.main-svg'));
    const parts = [...plot.querySelectorAll(
      '.legendtext, .g-xtitle text, .g-ytitle text, .xtick text, .annotation-text')];
    for (const p of parts) {
      const b = box(p);
      if (b.width === 0) continue;
      if (b.left < svg.left - 1 || b.right > svg.right + 1 || b.top < svg.top - 1 || b.bottom > svg.bottom + 1)
        out.push('cut: ' + p.textContent);
    }
    const legend = plot.querySelector('.legend');
    const xtitle = plot.querySelector('.g-xtitle text');
    if (legend && xtitle && overlap(box(legend), box(xtitle)))
      out.push('legend over axis title: ' + xtitle.textContent);
  }
  for (const head of document.querySelectorAll('.rea-chart-head, .rea-results-caption h3')) {
    const b = box(head);
    if (b.right > window.innerWidth + 1 || head.scrollWidth > head.clientWidth + 1) out.push('cut: ' + head.innerText);
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1) out.push('page wider than the screen');
  return out;
}"""

CHART_TEXT = """() => [...document.querySelectorAll(
  '.rea-chart-head, .rea-results-caption h3, .rea-results-plain, .rea-results-plot .legendtext, ' +
  '.rea-results-plot .g-xtitle, .rea-results-plot .g-ytitle, .rea-results-plot .xtick')].map(e => e.textContent)"""


@pytest.mark.parametrize("viewport", [DESKTOP, TABLET, PHONE], ids=["desktop", "tablet", "phone"])
def test_results_read_in_plain_words_with_the_command_below_and_nothing_cut(browser, app_url, viewport):
    context, page = open_page(browser, app_url, viewport)
    try:
        open_tab(page, "Results")
        page.wait_for_selector(".rea-results-plot .js-plotly-plot .legendtext", timeout=30_000)
        page.wait_for_timeout(800)  # plotly's resize to the column after the first draw
        captions = page.locator(".rea-results-caption")
        assert captions.count() == len(SHIPPED)
        for i, path in enumerate(SHIPPED):
            command = json.loads(path.read_text(encoding="utf-8"))["provenance"]["command"]
            text = captions.nth(i).inner_text()
            assert f"Reproduce: {command}" in text.replace("\n", " ")  # shown as it is, for researchers
            assert text.index(captions.nth(i).locator(".rea-results-plain").inner_text()) < text.index("Reproduce:")
        heads = page.locator(".rea-results-caption h3").all_inner_texts()
        assert "Finding the earlier turn a follow-up needs (held-out long chats)" in heads
        shown = [t for t in page.evaluate(CHART_TEXT) if JARGON.search(t)]
        assert not shown, shown
        legend = page.locator(".rea-results-plot .legendtext").all_text_contents()
        assert "REA by score alone" in legend and "rea-hybrid-plain" not in legend
        assert "What happens as the omit threshold moves" in page.locator(".rea-chart-title").all_inner_texts()
        notes = page.locator(".rea-results-names").all_inner_texts()
        assert any("rea-hybrid-plain = REA by score alone" in n for n in notes)  # the arm name, in a small note
        assert page.evaluate(FITS) == []
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"results-plain-{viewport['width']}.png"), full_page=True)
    finally:
        context.close()


def test_results_empty_states_say_what_will_appear_and_when(browser, app_url, tmp_path):
    context, page = open_page(browser, app_url, PHONE)
    try:
        open_tab(page, "Results")
        empty = page.locator("#results-uploaded-empty")
        empty.wait_for(timeout=30_000)
        assert "appear here as soon as you drop its results.json" in empty.inner_text()
        data = json.loads((ROOT / "app/results/latency-30-turns/results.json").read_text(encoding="utf-8"))
        data.pop("provenance")
        for recs in data["per_turn"].values():
            for r in recs:
                r["generated"] = False  # a run that generated no reply: no reply time to draw
        run = tmp_path / "results.json"
        run.write_text(json.dumps(data), encoding="utf-8")
        page.set_input_files(UPLOAD, str(run))
        poll(page, "document.querySelectorAll('.rea-results-caption').length === %d" % (len(SHIPPED) + 1), "the run")
        page.locator("#results-uploaded-empty").wait_for(state="hidden", timeout=10_000)
        last = page.locator(".rea-results-chart").last
        last.locator(".annotation-text").wait_for(timeout=10_000)
        assert "Reply times appear here" in last.locator(".annotation-text").text_content()
        assert page.evaluate(FITS) == []
    finally:
        context.close()


def test_a_good_run_dropped_right_after_malformed_ones_is_drawn(browser, app_url):
    """Refused files one after another, each answered with its one line, then a good one dropped while
    the last refusal is still on its way (its request held back, as a slow network holds it): the good
    one is drawn, not lost, and the file before it is not read twice."""
    context, page = open_page(browser, app_url, DESKTOP)
    try:
        open_tab(page, "Results")
        page.wait_for_selector(".rea-results-caption", timeout=30_000)
        status = "document.querySelector('#results-upload-status').innerText"
        for content, says in (
            (b'{"task": "\\ud800"}', "a lone surrogate"),
            (b"[" * 900 + b"]" * 900, "nested 900 levels deep"),
            (b'{"task": "latency", "x": NaN}', "NaN or Infinity"),
        ):
            page.set_input_files(
                UPLOAD, files=[{"name": "bad.json", "mimeType": "application/json", "buffer": content}]
            )
            poll(page, f"{status}.includes({says!r})", f"the refusal ({says})")
        held = []

        def hold_first(route):
            if held:
                route.continue_()
            else:
                held.append(route)

        page.route("**/queue/join*", hold_first)
        too_long = b'{"task": "latency", "x": 1' + b"9" * 5000 + b"}"
        page.set_input_files(UPLOAD, files=[{"name": "long.json", "mimeType": "application/json", "buffer": too_long}])
        deadline = time.monotonic() + 30
        while not held:  # its upload is done and its event on its way
            assert time.monotonic() < deadline, "the refused file's event was never sent"
            page.wait_for_timeout(100)
        page.set_input_files(UPLOAD, str(SHIPPED[0]))  # while that event is pending
        page.wait_for_timeout(1500)
        held[0].continue_()
        poll(
            page,
            f"document.querySelectorAll('.rea-results-caption').length === {len(SHIPPED) + 1} && "
            f"{status}.includes('Drawn below: results.json')",
            "the good run",
        )
        page.unroute("**/queue/join*")
        assert "dropped in this session" in page.locator(".rea-results-caption").last.inner_text()
        page.wait_for_timeout(1500)  # the held event's answer: nothing read twice, nothing drawn twice
        assert page.locator(".rea-results-caption").count() == len(SHIPPED) + 1
        said = page.evaluate(status)
        assert said.count("Cannot draw long.json") == 1 and "Drawn below: results.json" in said
        page.wait_for_selector(".rea-results-chart .js-plotly-plot .trace", timeout=10_000)
    finally:
        context.close()


# -- Inspect ---------------------------------------------------------------------------------------


def test_an_upload_shows_its_own_name_in_the_picker_never_a_stale_example(browser, app_url, tmp_path):
    context, page = open_page(browser, app_url, DESKTOP)
    try:
        open_tab(page, "Inspect")
        pick(page, "#inspect-example", "conversations.jsonl")
        poll(page, "document.querySelector('#inspect-status').innerText.includes('in conversations.jsonl')", "load")
        mine = tmp_path / "my-chats-locomo.json"
        shutil.copy(LOCOMO, mine)
        page.set_input_files("#inspect-upload input[type=file]", str(mine))
        poll(page, "document.querySelector('#inspect-status').innerText.includes('in my-chats-locomo.json')", "upload")
        assert page.input_value("#inspect-example input") == "your upload: my-chats-locomo.json"
        bad = tmp_path / "broken.json"
        bad.write_text('{"qa": []}', encoding="utf-8")
        page.locator("#inspect-upload button[aria-label='Clear']").click()
        page.set_input_files("#inspect-upload input[type=file]", str(bad))
        poll(
            page, "document.querySelector('#inspect-status').innerText.includes('Cannot load broken.json')", "refusal"
        )
        assert page.input_value("#inspect-example input") == "your upload: broken.json"  # not the file before
        pick(page, "#inspect-example", "conversations.jsonl")
        poll(page, "document.querySelector('#inspect-status').innerText.includes('in conversations.jsonl')", "example")
        assert page.input_value("#inspect-example input") == "conversations.jsonl"
        poll(page, "!document.querySelector('#inspect-upload').innerText.includes('broken.json')", "drop zone emptied")
    finally:
        context.close()


# The phone run is slow-only: the same trace and answer as on a desktop (the Results tests cover a phone).
@pytest.mark.parametrize("viewport", [DESKTOP, pytest.param(PHONE, marks=pytest.mark.slow)], ids=["desktop", "phone"])
def test_the_bundled_locomo_example_traces_on_whole_turns_and_answers_question_one(browser, app_url, viewport):
    context, page = open_page(browser, app_url, viewport)
    try:
        open_tab(page, "Inspect")
        pick(page, "#inspect-example", "locomo-ines-kofi.json")
        poll(page, "document.querySelector('#inspect-status').innerText.includes('locomo-ines-kofi.json')", "load")
        assert "1 conversation(s) in locomo-ines-kofi.json. 5 question(s)" in page.inner_text("#inspect-status")
        page.click("#inspect-trace")
        poll(page, "document.querySelector('#inspect-status').innerText.includes('Traced 13 turns')", "trace", 90)
        page.wait_for_selector("#inspect-heatmap .xtick text", timeout=20_000)
        ticks = page.locator("#inspect-heatmap .xtick text").all_text_contents()
        assert ticks and all(re.fullmatch(r"\d+", t) for t in ticks), ticks  # no -0.5, 0.5
        numbers = [int(t) for t in ticks]
        assert numbers[0] == 0 and len(set(b - a for a, b in zip(numbers, numbers[1:]))) == 1
        heatmap = page.locator("#inspect-heatmap svg.main-svg").first.bounding_box()
        title = page.locator("#inspect-heatmap .gtitle").bounding_box()
        assert heatmap["x"] - 1 <= title["x"] and title["x"] + title["width"] <= heatmap["x"] + heatmap["width"] + 1

        page.get_by_text("Answers", exact=True).click()
        page.click("#inspect-question input")
        options = page.locator("[role=option]").all_inner_texts()
        page.keyboard.press("Escape")
        assert len(options) == 5 and "What is the name of Kofi's dog?" in options[0]
        counted = [re.search(r"(\d+)\. ", option).group(1) for option in options]  # "1. single-hop · What…"
        assert counted == ["1", "2", "3", "4", "5"], options  # counted from 1 for people, not from 0
        page.click("#inspect-ask")
        poll(page, "document.querySelector('#inspect-answers-note').innerText.includes('Answered')", "answer", 120)
        assert page.inner_text("#inspect-answers-note") == "Answered question 1 of ines-kofi."
        view = page.inner_text("#inspect-answer")
        assert "Question 1 (single-hop): What is the name of Kofi's dog?" in view and "Gold answer: Biscuit" in view
        said = page.locator("#inspect-answer .rea-answer-text")
        assert not re.match(r"\s*(Kofi|Ines)\s*:", said.inner_text())  # no speaker name copied from the turns
        generated = said.locator("span[title]")
        if generated.count():  # the model did copy one: the generated line stays on hover
            assert re.match(r"generated: (Kofi|Ines)\s*:", generated.get_attribute("title"))
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"inspect-locomo-{viewport['width']}.png"), full_page=True)
    finally:
        context.close()

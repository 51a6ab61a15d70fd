"""The Review and Annotate tabs in a real Chromium at 1440x1000 and 390x844: every column of the
disagreements fits and a row click picks its item; charts say what they will show before anything
is trained and their labels and titles never collide or get cut; a candidate worse than the one in
use is shown in red and needs typed words, going back does not; the item to label is large, its
context wraps, and the model's score shows only once it is labeled; an empty triage queue points to
the default one; the guideline table reads at phone width and links the full guideline."""

import re

import pytest

from tests.browser.conftest import DESKTOP, PHONE, sign_in, studio_app, wait_text

pytestmark = pytest.mark.browser

LONG_TEXT = (
    "From now on, whenever I paste a block of code into our conversation, I would like you to first restate in one "
    "sentence what the code is supposed to do, then list every bug you can find with the line number, and only "
    "after that propose a corrected version, keeping my variable names and comments exactly as they were written."
)
CONTEXT = (
    "user: I have been working on a data pipeline that reads CSV exports from our billing system and loads them "
    "into a warehouse table every night, and the job keeps failing on the third step with an encoding error. "
    * 3
    + "See https://example.com/"
    + "a" * 150
)
TO_LABEL = ["Please answer in Spanish from now on.", "What time does the bakery open on Sundays?", "Good evening!"]


@pytest.fixture(scope="module")
def studio(models, tmp_path_factory):
    """Three items to label (each with a long one-line context), two disagreements (one with a long
    text), and an earlier annotator's few labels, from which a candidate worse than the packaged
    recognizer is trained."""
    from annotations import store_items as si
    from annotations.io import ImportRow
    from tests.model.test_triage import STUDIO_LABELS

    def fill(s):
        si.import_rows(
            s,
            [ImportRow(t, source="browser-test", context=CONTEXT) for t in TO_LABEL],
            source="browser",
            double_share=0.0,
        )
        si.import_rows(
            s,
            [
                ImportRow(LONG_TEXT, source="handwritten", labels=[("carol", "global"), ("dave", "task")]),
                ImportRow("Keep it short.", source="handwritten", labels=[("carol", "global"), ("dave", "ordinary")]),
            ],
            source="disagreements",
        )
        si.import_rows(s, [ImportRow(t, labels=[("carol", lab)]) for t, lab in STUDIO_LABELS], source="earlier")

    with studio_app(models, tmp_path_factory, fill) as app:
        yield app


def _open(browser, url: str, name: str, tab: str, viewport: dict):
    page = browser.new_page(viewport=viewport)
    sign_in(page, url, name)
    if tab == "review":
        page.goto(f"{url}?tab=review")
        page.wait_for_selector("#review-stats :text('labeled')", timeout=60_000)
    else:
        page.wait_for_selector("#annotate-text", timeout=60_000)
    return page


def _boxes(page, selector: str) -> list[dict]:
    return page.evaluate(
        """s => Array.from(document.querySelectorAll(s)).filter(e => e.offsetParent !== null).map(e => {
            const r = e.getBoundingClientRect();
            return {text: e.textContent.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom};
        })""",
        selector,
    )


def _titles_fit(page) -> None:
    """Each chart's title lies inside its chart (plotly cuts what leaves the SVG)."""
    for chart in ("#review-metrics", "#review-pr", "#review-confusion"):
        (svg,) = _boxes(page, f"{chart} .main-svg:first-of-type")
        (title,) = _boxes(page, f"{chart} .gtitle")
        assert title["text"] and svg["left"] <= title["left"] and title["right"] <= svg["right"], (chart, title)


def test_disagreements_fit_a_row_click_picks_the_item_and_empty_charts_say_what_comes(studio, browser):
    url, Session, _ = studio
    for viewport in (DESKTOP, PHONE):
        page = _open(browser, url, "alice", "review", viewport)
        page.wait_for_selector("#review-disagreements .virtual-row [role=gridcell]", timeout=60_000)
        # Every column, labels included, stays on screen beside a long text.
        (table,) = _boxes(page, "#review-disagreements")
        cells = _boxes(page, "#review-disagreements th .header-content") + _boxes(
            page, "#review-disagreements .virtual-row [role=gridcell]"
        )
        assert [c["text"] for c in cells[:3]] == ["item", "text", "labels"]
        assert any("dave: task" in c["text"] for c in cells)
        for c in cells:
            assert table["left"] - 1 <= c["left"] and c["right"] <= min(table["right"], viewport["width"]) + 1, c
        # Before any version is trained, each chart says what will appear there and when, with no empty axes.
        for chart in ("#review-metrics", "#review-pr", "#review-confusion"):
            wait_text(page, chart, "after an adjudicator")
            note = page.text_content(f"{chart} .annotation-text")
            assert "appear here after an adjudicator" in note and "trains the first candidate" in note
            assert page.locator(f"{chart} .xtick").count() == 0
        _titles_fit(page)
        page.close()

    # A click on a row fills the item field, so Adjudicate works on that item (here on a phone).
    with Session() as s:
        from annotations import store_review as sr

        (long_id,) = [d.item_id for d in sr.disagreements(s) if d.text == LONG_TEXT]
    page = _open(browser, url, "alice", "review", PHONE)
    page.wait_for_selector("#review-disagreements .virtual-row [role=gridcell]", timeout=60_000)
    assert page.input_value("#review-item input") == ""  # no made-up item 0 before a row is clicked
    page.locator("#review-label label", has_text="task").click()
    page.click("#review-adjudicate")
    wait_text(page, "#review-status", "Pick an item")
    assert "no item 0" not in page.inner_text("#review-status")
    row = page.locator("#review-disagreements .virtual-row", has_text="whenever I paste").first
    row.locator("[role=gridcell]").nth(1).click()
    page.wait_for_function(
        "v => document.querySelector('#review-item input').value === v", arg=str(long_id), timeout=30_000
    )
    page.locator("#review-label label", has_text="task").click()
    page.click("#review-adjudicate")
    wait_text(page, "#review-status", f"Item {long_id} adjudicated as task")
    page.close()
    with Session() as s:
        assert [d.adjudicated for d in sr.disagreements(s, include_adjudicated=True) if d.item_id == long_id] == [
            "task"
        ]


def test_a_worse_candidate_is_red_and_needs_typed_words_going_back_does_not(studio, browser):
    from annotations import store_review as sr

    url, Session, engine = studio
    recognizer = engine.strategy("rea").recognizer
    packaged = recognizer.trained

    def active():
        with Session() as s:
            found = sr.active_version(s)
        return None if found is None else found.id

    page = _open(browser, url, "alice", "review", DESKTOP)
    page.click("#review-train")
    wait_text(page, "#review-status", "not in use", timeout=120_000)
    name = re.search(r"Trained (version \d+)", page.inner_text("#review-status")).group(1)
    # Trained on a handful of labels, it is worse than the packaged one: said in red, naming the drop.
    wait_text(page, "#review-worse", " drops ")
    worse = page.inner_text("#review-worse")
    drop = r"(precision|recall) drops (\d\.\d{3}) → (\d\.\d{3})"
    found = re.search(rf"{name.capitalize()} is worse than packaged \(in use\).*" + drop, worse)
    assert found and float(found.group(3)) < float(found.group(2)), worse
    assert page.eval_on_selector("#review-worse .rea-worse", "e => getComputedStyle(e).color") == "rgb(183, 28, 28)"

    page.click("#review-use")
    wait_text(page, "#review-confirm-text", f"type {name} below")
    assert re.search(drop, page.inner_text("#review-confirm-text"))  # the confirmation names the drop, in red
    red = page.eval_on_selector(
        "#review-confirm-text p:nth-of-type(2) > strong", "e => [e.innerText, getComputedStyle(e).color]"
    )
    assert " drops " in red[0] and red[1] == "rgb(183, 28, 28)", red
    assert page.is_visible("#review-confirm-typed") and name in page.inner_text("#review-confirm-typed")
    page.click("#review-use-confirm")  # the plain confirmation alone is refused
    wait_text(page, "#review-status", "Refused")
    assert f'Type "{name}"' in page.inner_text("#review-status")
    assert active() is None and recognizer.trained is packaged
    page.fill("#review-confirm-typed textarea", "use worse")  # words that do not name it: refused too
    page.click("#review-use-confirm")
    wait_text(page, "#review-status", f'You typed "use worse", not "{name}"')
    assert active() is None and recognizer.trained is packaged
    page.fill("#review-confirm-typed textarea", name)
    page.click("#review-use-confirm")
    wait_text(page, "#review-status", "Recognizer in use: version")
    version = active()
    assert version is not None and recognizer.trained is not packaged

    # The packaged one beside the version in use: two bars per metric, labels with two decimals that never meet.
    page.click("#review-version input")
    page.get_by_role("option", name=re.compile(r"^packaged")).click()
    wait_text(page, "#review-version-note", "packaged:")
    assert not page.is_visible("#review-worse")  # packaged is better: nothing in red
    for viewport in (DESKTOP, {"width": 600, "height": 900}, PHONE):
        page.set_viewport_size(viewport)
        page.wait_for_timeout(800)  # plotly redraws on resize
        labels = _boxes(page, "#review-metrics .bartext")
        assert len(labels) == 6 and all(re.fullmatch(r"\d\.\d\d|n/a", b["text"]) for b in labels), labels
        for i, a in enumerate(labels):
            for b in labels[i + 1 :]:
                apart = a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"]
                assert apart or b["bottom"] <= a["top"], (viewport, a, b)
        _titles_fit(page)

    # Going back to the packaged one is one click: no confirmation, no words to type.
    page.set_viewport_size(DESKTOP)
    assert not page.is_visible("#review-use")
    page.click("#review-put-back")
    wait_text(page, "#review-status", "Recognizer in use: packaged")
    assert not page.is_visible("#review-confirm")
    assert active() is None and recognizer.trained is packaged
    page.close()


def test_the_item_to_label_is_primary_its_context_wraps_and_its_score_comes_after(studio, browser):
    url, _, _ = studio
    for viewport in (PHONE, DESKTOP):
        page = _open(browser, url, "bob", "annotate", viewport)
        assert page.inner_text("#annotate-text") in TO_LABEL
        sizes = page.evaluate(
            """() => ['#annotate-text', '.rea-annotate-meta'].map(s => parseFloat(getComputedStyle(
                document.querySelector('#annotate-item ' + s)).fontSize))"""
        )
        assert sizes[0] >= 1.4 * sizes[1], sizes  # the text to label, not its metadata, draws the eye
        # The one-line context wraps within the screen.
        context = page.evaluate(
            """() => { const e = document.querySelector('#annotate-item pre.rea-annotate-context');
                const r = e.getBoundingClientRect();
                return {ws: getComputedStyle(e).whiteSpace, right: r.right, scroll: e.scrollWidth,
                        client: e.clientWidth, height: r.height}; }"""
        )
        assert context["ws"] == "pre-wrap" and context["scroll"] <= context["client"], context
        assert context["right"] <= viewport["width"] and context["height"] > 60, context
        # No model score before the label: it would sway it.
        for where in ("#annotate-item", "#annotate-progress", "#annotate-status"):
            assert "P(global)" not in page.inner_text(where), where
        page.close()

    page = _open(browser, url, "bob", "annotate", PHONE)
    labeled = page.inner_text("#annotate-text")
    page.click("#annotate-global")
    wait_text(page, "#annotate-status", "Saved")
    said = page.inner_text("#annotate-status")
    assert "item" in said and "recognizer in use (packaged)" in said and re.search(r"P\(global\) \d\.\d\d", said)
    assert "P(global)" not in page.inner_text("#annotate-item")  # the next item: no score
    page.click("#annotate-undo")
    wait_text(page, "#annotate-status", "Undone")
    assert page.inner_text("#annotate-text") == labeled and "P(global)" not in page.inner_text("#annotate-item")
    page.close()


def test_an_empty_triage_queue_counts_the_default_queue_and_switches_to_it(studio, browser):
    url, _, _ = studio
    page = _open(browser, url, "bob", "annotate", PHONE)
    page.locator("#annotate-mode label", has_text="likely missed").click()
    wait_text(page, "#annotate-item", "No likely missed items left")
    said = page.inner_text("#annotate-item")
    assert re.search(r"\b3 items wait in the default queue", said) and "Nothing left" not in said, said
    assert page.is_visible("#annotate-to-default")
    page.click("#annotate-to-default")
    page.wait_for_selector("#annotate-text", timeout=30_000)
    assert page.is_checked("#annotate-mode input[value='default']")
    assert not page.is_visible("#annotate-to-default")
    page.close()


def test_the_guideline_table_reads_on_a_phone_and_links_the_full_guideline(studio, browser):
    url, _, _ = studio
    for viewport in (DESKTOP, PHONE):
        page = _open(browser, url, "bob", "annotate", viewport)
        page.locator("#annotate-guideline-box").get_by_text("Guideline", exact=True).click()
        page.wait_for_selector("#annotate-guideline table", timeout=30_000)
        # No word in the table breaks across lines ("k e y", "glob al"): each visible header and label is one line.
        lines = page.evaluate(
            """() => Array.from(document.querySelectorAll('#annotate-guideline th, #annotate-guideline td strong'))
                .filter(e => e.getClientRects().length)
                .map(e => { const r = document.createRange(); r.selectNodeContents(e);
                            const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
                            return [e.textContent.trim(), tops.size]; })"""
        )
        assert len(lines) >= 6 and all(n == 1 for _, n in lines), (viewport, lines)
        assert {"global", "task", "ordinary"} <= {text for text, _ in lines}
        (box,) = _boxes(page, "#annotate-guideline-box")
        assert box["right"] <= viewport["width"]
        # The whole table is read without scrolling sideways: on a phone, one card per label.
        table = page.eval_on_selector(
            "#annotate-guideline table", "t => ({scroll: t.scrollWidth, client: t.clientWidth})"
        )
        assert table["scroll"] <= table["client"] + 1, (viewport, table)
        for cell in _boxes(page, "#annotate-guideline td"):
            assert box["left"] <= cell["left"] and cell["right"] <= box["right"], (viewport, cell)
        link = page.locator("#annotate-guideline a", has_text="full labeling guideline")
        assert link.get_attribute("href") == "#annotate-full-guideline"
        link.click()
        wait_text(page, "#annotate-full-guideline", "Instruction Recognizer validation set: labeling guideline")
        assert page.is_visible("#annotate-full-guideline-text h1")
        page.close()

"""A real Chromium signs in, labels three items with the keys 1, 2, 3 and undoes the last one; an
adjudicator trains a candidate recognizer that goes into use only when chosen, and puts the
packaged one back; an annotator sees no adjudicator button, and Review counts a new label at once."""

import re

import pytest

from tests.browser.conftest import sign_in, studio_app, wait_text

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def studio(models, tmp_path_factory):
    """Three items to label and the labels of one earlier annotator to train from."""
    from annotations import store_items as si
    from annotations.io import ImportRow
    from tests.model.test_triage import STUDIO_LABELS

    texts = ["From now on, answer in lowercase.", "Write a haiku about rain.", "I just got back from a hike."]

    def fill(s):
        si.import_rows(
            s,
            [ImportRow(t, source="browser-test", context="earlier <b>turn</b>") for t in texts],
            source="browser",
            double_share=0.0,
        )
        si.import_rows(s, [ImportRow(t, labels=[("carol", lab)]) for t, lab in STUDIO_LABELS], source="earlier")

    with studio_app(models, tmp_path_factory, fill) as app:
        yield app


def _sign_in(browser, url: str, name: str):
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    sign_in(page, url, name)
    page.get_by_role("tab", name="Review").click(timeout=60_000)
    page.wait_for_selector("#review-stats :text('labeled')", timeout=60_000)
    return page


def test_label_three_items_with_keys_and_undo_one(studio, browser):
    from annotations import store_review as sr

    url, Session, _ = studio
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    sign_in(page, url, "alice")
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
    page.close()
    with Session() as s:
        rows = {r["text"]: r for r in sr.export_rows(s)}
    assert [rows[t]["labels"] for t in seen] == [
        [{"annotator": "alice", "label": "global"}],
        [{"annotator": "alice", "label": "task"}],
        [],
    ]


# Slow-only: the Review test of a worse candidate trains, chooses and puts back the same way in the default run.
@pytest.mark.slow
def test_a_trained_candidate_is_not_in_use_until_chosen_and_packaged_can_be_chosen_back(studio, browser):
    from annotations import store_review as sr

    url, Session, engine = studio
    recognizer = engine.strategy("rea").recognizer
    packaged = recognizer.trained

    def active():
        with Session() as s:
            found = sr.active_version(s)
        return None if found is None else found.id

    page = _sign_in(browser, url, "alice")
    page.click("#review-train")
    wait_text(page, "#review-status", "not in use")
    assert recognizer.trained is packaged and active() is None  # every chat still runs the packaged one
    with Session() as s:
        n_final = sr.agreement_stats(s).n_final
    # One count of final labels on the page: the stats, the training message and the version list.
    assert f"{n_final} final labels" in page.inner_text("#review-stats")
    assert f"from the {n_final} final labels" in page.inner_text("#review-status")
    assert re.search(rf"version \d+ · {n_final} final labels", page.input_value("#review-version input"))
    assert "packaged (in use)" in page.inner_text("#review-comparison")  # beside the one in use, same items

    page.click("#review-use")
    wait_text(page, "#review-confirm", "in use for every chat")
    assert recognizer.trained is packaged  # asking is not choosing
    if page.is_visible("#review-confirm-typed"):  # a candidate worse than the one in use: typed on purpose
        name = re.search(r"type (version \d+) below", page.inner_text("#review-confirm-text")).group(1)
        page.fill("#review-confirm-typed textarea, #review-confirm-typed input", name)
    page.click("#review-use-confirm")
    wait_text(page, "#review-status", "Recognizer in use: version")
    version = active()
    assert version is not None and recognizer.trained is not packaged

    page.click("#review-version input")
    page.get_by_role("option", name=re.compile(r"^packaged")).click()
    wait_text(page, "#review-version-note", "packaged:")
    page.wait_for_timeout(1000)  # it used to snap back to the version in use within a second
    assert page.input_value("#review-version input").startswith("packaged")
    wait_text(page, "#review-put-back", "Put packaged back in use")
    page.click("#review-put-back")  # one click
    wait_text(page, "#review-status", "Recognizer in use: packaged")
    assert active() is None and recognizer.trained is packaged
    page.close()


def test_an_annotator_sees_no_adjudicator_buttons_and_review_counts_a_new_label_at_once(studio, browser):
    url, _, _ = studio
    page = _sign_in(browser, url, "bob")
    wait_text(page, "#review-role", "for adjudicators")
    for button in ("#review-train", "#review-adjudicate", "#review-use", "#review-use-confirm"):
        assert not page.is_visible(button), button
    assert "REA_" not in page.inner_text("body")
    before = int(re.search(r"(\d+) labeled", page.inner_text("#review-stats")).group(1))

    page.get_by_role("tab", name="Annotate").click()
    page.wait_for_selector("#annotate-text", timeout=60_000)
    page.click("#annotate-task")
    wait_text(page, "#annotate-status", "Saved")
    page.get_by_role("tab", name="Review").click()
    wait_text(page, "#review-stats", f"{before + 1} labeled")  # no Refresh pressed
    page.close()

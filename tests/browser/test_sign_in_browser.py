"""A real Chromium against the real app: the demo needs no login whatever is configured; Annotate and
Review ask for sign-in on their own tabs (a wrong password says so and changes nothing else); two
users in two browsers each see only their own name; without accounts the tabs say so in plain words."""

import pytest

from app.annotate_auth import NOT_CONFIGURED, SIGN_IN_TO_LABEL, SIGN_IN_TO_REVIEW
from tests.browser.conftest import DESKTOP, PHONE, sign_in, wait_text

pytestmark = pytest.mark.browser

PANEL = "#annotate-sign-in"


@pytest.fixture(scope="module")
def accounts_url(models, tmp_path_factory):
    """The real app with local accounts from a file (alice and bob annotate), on a fresh database."""
    from app.main import launch
    from app.state import AppEngine
    from tests.conftest import _free_port

    folder = tmp_path_factory.mktemp("sign-in")
    accounts = folder / "accounts.txt"
    accounts.write_text("alice:pw-alice\nbob:pw-bob\n")
    engine = AppEngine(models=models, database_url=f"sqlite:///{folder / 'app.db'}")
    port = _free_port()
    with pytest.MonkeyPatch.context() as env:
        for name in ("REA_AUTH", "REA_ADJUDICATORS", "REA_ANNOTATORS", "SPACE_ID", "OAUTH_CLIENT_ID"):
            env.delenv(name, raising=False)
        env.setenv("REA_AUTH_FILE", str(accounts))
        demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
        yield f"http://127.0.0.1:{port}/"
        demo.close()


def fits(page, selector: str) -> None:
    """Every part of the element at ``selector`` lies within the screen's width."""
    width = page.viewport_size["width"]
    for part in page.locator(f"{selector} input:visible, {selector} button:visible, {selector}").all():
        box = part.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (selector, box, width)


def test_demo_is_public_and_annotate_signs_in_and_out(accounts_url, browser):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(accounts_url)
    page.wait_for_selector("#message textarea", state="visible", timeout=60_000)  # the demo, no login page
    assert page.get_by_role("button", name="Login").count() == 0

    page.get_by_role("tab", name="Annotate").click()
    page.wait_for_selector(f"{PANEL} form.rea-sign-in", state="visible", timeout=60_000)
    fits(page, PANEL)
    page.evaluate("window.notReloaded = true")
    page.fill(f"{PANEL} input[name=username]", "alice")
    page.fill(f"{PANEL} input[type=password]", "not-her-password")
    page.click(f"{PANEL} button[type=submit]")
    page.wait_for_selector(f"{PANEL} .rea-sign-in-error:visible", timeout=30_000)
    assert page.inner_text(f"{PANEL} .rea-sign-in-error") == "Wrong name or password."
    assert page.evaluate("window.notReloaded === true")  # nothing else changed: the same page, still signed out
    assert page.is_visible(f"{PANEL} form.rea-sign-in") and not page.is_visible("#annotate-text")

    page.fill(f"{PANEL} input[type=password]", "pw-alice")
    page.click(f"{PANEL} button[type=submit]")
    wait_text(page, PANEL, "Signed in as alice (annotator)")
    page.wait_for_selector("#annotate-text", state="visible", timeout=60_000)  # the tab works: an item shows
    fits(page, PANEL)

    page.click(f"{PANEL} .rea-sign-out-button")
    page.wait_for_selector(f"{PANEL} form.rea-sign-in", state="visible", timeout=60_000)  # back to the panel
    assert "Signed in" not in page.inner_text(PANEL) and not page.is_visible("#annotate-text")
    context.close()


def test_signed_out_annotate_and_review_ask_for_an_account_on_their_tabs_while_compare_stays_public(
    accounts_url, browser
):
    for viewport in (DESKTOP, PHONE):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.goto(accounts_url)
        page.wait_for_selector("#message textarea", state="visible", timeout=60_000)  # no login page first
        assert "login" not in page.url and page.is_editable("#message textarea")
        page.fill("#message textarea", "From now on, answer in lowercase.")  # the demo takes input signed out
        assert page.input_value("#message textarea") == "From now on, answer in lowercase."

        page.goto(f"{accounts_url}?tab=annotate")
        page.wait_for_selector(f"{PANEL} form.rea-sign-in", state="visible", timeout=60_000)
        wait_text(page, "#annotate-who", SIGN_IN_TO_LABEL)  # labeling needs an account, and where to get one
        for hidden in ("#annotate-mode", "#annotate-global", "#annotate-undo", "#annotate-note", "#annotate-item"):
            assert not page.is_visible(hidden), (viewport, hidden)  # no labeling controls that can only refuse
        assert page.is_visible("#annotate-guideline-box")  # the guideline stays readable
        fits(page, PANEL)
        fits(page, "#annotate-who")

        page.goto(f"{accounts_url}?tab=review")
        page.wait_for_selector("#review-sign-in form.rea-sign-in", state="visible", timeout=60_000)
        wait_text(page, "#review-status", SIGN_IN_TO_REVIEW)
        for hidden in ("#review-refresh", "#review-version", "#review-metrics", "#review-pr", "#review-confusion"):
            assert not page.is_visible(hidden), (viewport, hidden)  # no blank charts or empty version list
        fits(page, "#review-sign-in")
        fits(page, "#review-status")
        assert "REA_" not in page.inner_text("body")
        context.close()


@pytest.mark.slow  # the signed-out panel's fit on a phone is in the default run (the test above)
def test_the_sign_in_panel_fits_a_phone(accounts_url, browser):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(accounts_url)
    page.wait_for_selector("#message textarea", state="visible", timeout=60_000)
    page.goto(f"{accounts_url}?tab=annotate")
    page.wait_for_selector(f"{PANEL} form.rea-sign-in", state="visible", timeout=60_000)
    fits(page, PANEL)
    sign_in(page, accounts_url, "bob")
    fits(page, PANEL)
    context.close()


def test_two_users_each_see_only_their_own_name(accounts_url, browser):
    pages = {}
    for name in ("alice", "bob"):
        context = browser.new_context(viewport=DESKTOP)
        pages[name] = context.new_page()
        sign_in(pages[name], accounts_url, name)
    for name, other in (("alice", "bob"), ("bob", "alice")):
        page = pages[name]
        page.goto(f"{accounts_url}?tab=review")  # opens on Review, its own panel and view
        wait_text(page, "#review-sign-in", f"Signed in as {name}")
        wait_text(page, "#review-stats", "labeled")
        page.get_by_role("tab", name="Annotate").click()
        wait_text(page, PANEL, f"Signed in as {name}")
        assert other not in page.inner_text(PANEL) + page.inner_text("#review-sign-in")
    for page in pages.values():
        page.context.close()


def test_without_accounts_annotate_and_review_say_so_plainly(app_url, browser, monkeypatch):
    for name in ("REA_AUTH", "REA_AUTH_FILE", "SPACE_ID", "OAUTH_CLIENT_ID"):  # as app_url was launched
        monkeypatch.delenv(name, raising=False)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(app_url)
    page.wait_for_selector("#message textarea", state="visible", timeout=60_000)
    page.get_by_role("tab", name="Annotate").click()
    wait_text(page, "#annotate-who", NOT_CONFIGURED)
    assert "ask whoever runs this studio for an account" in NOT_CONFIGURED  # where an account comes from
    assert not page.is_visible(f"{PANEL} form")
    assert not page.is_visible("#annotate-global") and not page.is_visible("#annotate-mode")
    page.get_by_role("tab", name="Review").click()
    wait_text(page, "#review-status", NOT_CONFIGURED)
    assert not page.is_visible("#review-metrics") and not page.is_visible("#review-refresh")
    html = page.content()
    for setting in ("REA_AUTH", "REA_AUTH_FILE", "hf_oauth"):
        assert setting not in html, setting
    context.close()

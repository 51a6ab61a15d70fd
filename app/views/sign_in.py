"""The sign-in panel at the top of the Annotate and Review tabs (the demo tabs need no login).

A visitor signs in with a local account through a small form that posts to ``rea/sign-in``, where
``app.user_sessions`` checks the password and sets the login cookies; on a Space with Hugging Face
OAuth, Gradio's ``LoginButton`` does it. The panel only shows who the login says is signed in: its
fields are never an identity. The page reloads after signing in or out, since a browser session
belongs to its user (``app.user_sessions``); a wrong password only shows one line.
"""

from __future__ import annotations

from html import escape

import gradio as gr

from .. import annotate_auth as auth
from ..user_sessions import WRONG_PASSWORD

TITLES = {"annotate": "Sign in to label", "review": "Sign in to review"}

# Sends the panel's forms with fetch, so a wrong password shows one line and nothing else changes;
# on success the page reloads on the tab the form came from. One listener for every panel.
SIGN_IN_JS = """
if (!window.reaSignIn) {
  window.reaSignIn = true;
  document.addEventListener("submit", async (event) => {
    const form = event.target.closest && event.target.closest("form[data-rea-sign]");
    if (!form) return;
    event.preventDefault();
    const error = form.querySelector(".rea-sign-in-error");
    const button = form.querySelector("button");
    const say = (text) => { if (error) { error.textContent = text; error.hidden = false; } };
    button.disabled = true;
    try {
      const answer = await fetch(form.action, {
        method: "POST",
        body: new URLSearchParams(new FormData(form)),
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (answer.ok) {
        const next = new URL(location.href);
        next.search = "?tab=" + encodeURIComponent(form.elements.tab.value);
        next.hash = "";
        location.assign(next.href);
        return;
      }
      const body = await answer.json().catch(() => ({}));
      say(body.error || "Not signed in; please try again.");
    } catch (e) {
      say("The studio could not be reached; please try again.");
    }
    button.disabled = false;
  }, true);
}
"""


def panel_html(tab: str, request: gr.Request | None, profile: gr.OAuthProfile | None) -> str:
    """The panel for this visitor: who is signed in (with "Sign out"), or the sign-in form; empty
    where no sign-in is configured (the tab itself says so)."""
    if not auth.sign_in_configured():
        return ""
    who = auth.identity(request, profile)
    if who is not None:
        line = f'<span>Signed in as <b class="rea-signed-in-name">{escape(who.name)}</b> ({escape(who.role)})</span>'
        if getattr(request, "username", None) == who.name:  # a local login: Hugging Face's button signs out there
            line += (
                f' <form class="rea-sign-out" method="post" action="rea/sign-out" data-rea-sign="out">'
                f'<input type="hidden" name="tab" value="{escape(tab)}">'
                '<button type="submit" class="rea-sign-out-button">Sign out</button></form>'
            )
        return f'<div class="rea-signed-in">{line}</div>'
    if profile is not None and auth.on_spaces_with_oauth():
        return (
            f'<p class="rea-sign-in-note">{escape(profile.username)} is not on this studio\'s list of annotators; '
            "ask whoever runs it to add you.</p>"
        )
    parts = []
    if auth.on_spaces_with_oauth():
        parts.append('<p class="rea-sign-in-note">Sign in with Hugging Face (the button above) to label.</p>')
    if auth.local_sign_in():
        failed = request is not None and request.query_params.get("sign_in") == "failed"  # a form sent without JS
        parts.append(
            '<form class="rea-sign-in" method="post" action="rea/sign-in" data-rea-sign="in">'
            f'<input type="hidden" name="tab" value="{escape(tab)}">'
            f'<span class="rea-sign-in-title">{TITLES.get(tab, "Sign in")}</span>'
            '<input name="username" type="text" aria-label="name" placeholder="name" autocomplete="username" required>'
            '<input name="password" type="password" aria-label="password" placeholder="password" '
            'autocomplete="current-password" required>'
            '<button type="submit">Sign in</button>'
            f'<span class="rea-sign-in-error" role="alert"{"" if failed else " hidden"}>{WRONG_PASSWORD}</span>'
            "</form>"
        )
    return "".join(parts)


def sign_in_panel(tab: str) -> gr.HTML:
    """Lay out the panel for ``tab`` ("annotate" or "review"), filled on every page load."""
    if auth.on_spaces_with_oauth():
        gr.LoginButton(elem_id=f"{tab}-hf-sign-in")
    panel = gr.HTML(elem_id=f"{tab}-sign-in", elem_classes=["rea-sign-in-panel"], js_on_load=SIGN_IN_JS)

    def current(request: gr.Request, profile: gr.OAuthProfile | None) -> str:
        return panel_html(tab, request, profile)

    gr.on(None, current, outputs=panel, api_visibility="private")  # on page load only
    return panel

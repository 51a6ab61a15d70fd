"""The Annotate tab: a signed-in annotator labels candidate inputs as global / task / ordinary
(REA paper, sections 3.3 and D.1) with buttons or the keys 1, 2, 3, s (skip) and u (undo);
``static/annotate_keys.js`` maps the keys to the buttons. Other annotators' labels are never
shown here (they stay hidden until adjudication, in the Review tab).
"""

import gradio as gr

from rea_core import REAError

from ... import annotate_auth as auth
from ...state import AppEngine
from ...store_guard import StoreUnavailable
from ...views.sign_in import sign_in_panel
from . import handlers as ah

BUTTONS = [("global", "1 · Global"), ("task", "2 · Task"), ("ordinary", "3 · Ordinary"), ("skip", "s · Skip")]


def build_annotate_tab(engine: AppEngine):
    """Lay out the tab and wire it; returns (on_load, outputs) for ``demo.load``."""
    shown = gr.State(None)  # ah.Shown: the item on screen and when it was shown, server side only
    sign_in_panel("annotate")  # who is signed in, or the form; the login, never a field, names the annotator
    who_md = gr.Markdown(elem_id="annotate-who")  # the not-signed-in text
    with gr.Accordion("Guideline", open=False, elem_id="annotate-guideline-box"):
        gr.Markdown(ah.guideline(), elem_id="annotate-guideline")
        full = ah.full_guideline()
        if full is not None:  # the short guideline links here (static/annotate_keys.js opens it)
            with gr.Accordion("Full labeling guideline", open=False, elem_id=ah.FULL_GUIDELINE_ANCHOR):
                gr.Markdown(full, elem_id="annotate-full-guideline-text")
    with gr.Column(visible=False, elem_id="annotate-body") as body:  # the labeling controls: shown once signed in
        mode = gr.Radio(
            ["default", "likely missed", "likely false alarm"],
            value="default",
            label="queue",
            info="likely missed: stage 1 stopped it but the trained classifier says global; "
            "likely false alarm: stored as global but looks task or ordinary",
            elem_id="annotate-mode",
        )
        item = gr.HTML(elem_id="annotate-item")
        to_default = gr.Button("Go to the default queue", visible=False, elem_id="annotate-to-default")
        with gr.Row():
            buttons = {
                value: gr.Button(
                    text, elem_id=f"annotate-{value}", variant="primary" if value != "skip" else "secondary"
                )
                for value, text in BUTTONS
            }
            undo_btn = gr.Button("u · Undo", elem_id="annotate-undo")
        note = gr.Textbox(label="note (optional, saved with the label)", elem_id="annotate-note")
        progress = gr.Markdown(elem_id="annotate-progress")
    status = gr.Markdown(elem_id="annotate-status")  # outside: a refusal shows signed out too
    outputs = [shown, item, progress, status, who_md, to_default, body]

    def shown_view(v: ah.View) -> dict:
        """The outputs a queue view fills; the switch button only where a triage queue ran dry."""
        label = f"Go to the default queue ({v.waiting_in_default} left)"
        return {
            shown: v.shown,
            item: v.html,
            progress: v.progress,
            to_default: gr.Button(label, visible=v.waiting_in_default > 0),
        }

    def refused(message: str):
        """Not signed in: the labeling controls hide, and the tab says that labeling needs an account."""
        if not auth.sign_in_configured():
            return {status: "", who_md: auth.NOT_CONFIGURED, body: gr.Column(visible=False)}
        return {status: message, who_md: auth.SIGN_IN_TO_LABEL, body: gr.Column(visible=False)}

    def on_load(request: gr.Request, profile: gr.OAuthProfile | None):
        who = auth.identity(request, profile)
        if who is None:
            return {shown: None, item: "", progress: "", **refused("")}  # the panel asks to sign in
        try:
            ah.sign_in(engine, who)
            v = ah.queue_view(engine, who)
        except StoreUnavailable as exc:
            return {status: f"**Database error:** {exc}", who_md: ""}
        return {
            **shown_view(v),
            status: "",
            who_md: "",  # the sign-in panel says who
            body: gr.Column(visible=True),
        }

    def act(value: str, state, text: str, queue: str, request: gr.Request, profile: gr.OAuthProfile | None):
        who = auth.identity(request, profile)  # checked on every write, on the server
        if who is None:
            return refused("**Not saved:** sign in first.")
        if state is None:
            return {status: "Nothing to label right now."}
        try:
            message = ah.label(engine, who, state, value, text or "")
        except ah.LabelNotSaved as exc:  # the item stays on screen: press again to retry
            gr.Warning("The label was NOT saved: the database is locked or down.")
            return {status: f"**Try again:** {exc}"}
        except REAError as exc:  # a note the database cannot keep: the item and the note stay on screen
            return {status: f"**Not saved:** {exc}"}
        try:
            v = ah.queue_view(engine, who, mode=queue or "default")
        except REAError as exc:
            return {status: f"{message} **Could not load the next item:** {exc}"}
        return {**shown_view(v), status: message, note: ""}

    def do_undo(request: gr.Request, profile: gr.OAuthProfile | None):
        who = auth.identity(request, profile)
        if who is None:
            return refused("**Nothing undone:** sign in first.")
        try:
            undone = ah.undo(engine, who)
            if undone is None:
                return {status: "Nothing to undo."}
            v = ah.queue_view(engine, who, item_id=undone.item_id)
        except StoreUnavailable as exc:
            return {status: f"**Try again:** {exc}"}
        what = f"label {undone.label}" if undone.action == "label" else "skip"
        return {**shown_view(v), status: f"Undone: {what} on item {undone.item_id}."}

    def handler_for(value: str):
        def handler(state, text, queue, request: gr.Request, profile: gr.OAuthProfile | None):
            return act(value, state, text, queue, request, profile)

        return handler

    def change_mode(queue: str, request: gr.Request, profile: gr.OAuthProfile | None):
        who = auth.identity(request, profile)
        if who is None:
            return refused("Sign in above to label.")
        try:
            v = ah.queue_view(engine, who, mode=queue or "default")
        except REAError as exc:
            return {status: f"**Could not load the queue:** {exc}"}
        return {**shown_view(v), status: ""}

    def go_default(request: gr.Request, profile: gr.OAuthProfile | None):
        """The way out of a triage queue that ran dry: the default queue, on the radio too."""
        return {**change_mode("default", request, profile), mode: "default"}

    for value, button in buttons.items():
        button.click(
            handler_for(value),
            inputs=[shown, note, mode],
            outputs=outputs + [note],
            api_name=f"annotate_{value}",
            trigger_mode="once",
            api_visibility="undocumented",
        )  # acts on the item this page shows: UI only, still checked per call
    mode.input(
        change_mode,
        inputs=[mode],
        outputs=outputs,
        api_name="annotate_mode",
        concurrency_id="model",
        concurrency_limit=engine.concurrency,
        api_visibility="undocumented",
    )
    to_default.click(
        go_default,
        outputs=outputs + [mode],
        api_name="annotate_to_default",
        api_visibility="private",
    )
    undo_btn.click(
        do_undo, outputs=outputs, api_name="annotate_undo", trigger_mode="once", api_visibility="undocumented"
    )
    return on_load, outputs

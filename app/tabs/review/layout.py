"""The Review tab: agreement (Cohen's kappa per pair, Fleiss' kappa), label counts, the
disagreements with an adjudicate action, and "Train recognizer", which makes a candidate version.
A version (the packaged one included) is shown beside the one in use on the same validation
items, and goes into use only through "Use this version" and a confirmation (REA paper, D.1-D.3); a
version worse than the one in use is shown in red and needs its name typed, going back does not.
Adjudicating, training and choosing are for adjudicators (role from the server's config): other
people do not see those buttons, and the handlers refuse them anyway.
"""

import html

import gradio as gr

from rea_core import REAError
from rea_core.recognizer import LABELS

from ... import annotate_auth as auth
from ...state import AppEngine
from ...views.recognizer_charts import confusion, metrics_bars, pr_curves
from ...views.sign_in import sign_in_panel
from . import handlers as rh

ANNOTATOR_NOTE = (
    "You review as an annotator: agreement and metrics are yours to read; adjudicating, training "
    "and choosing the recognizer are for adjudicators."
)


def _version_note(found, chosen: int, provenance: str) -> str:
    """Where the chosen version comes from: its label counts (as the training message gives them)."""
    if chosen == rh.PACKAGED:
        return f"**packaged**: {provenance}"
    v = next(v for v in found if v.id == chosen)
    m = v.metrics
    return (
        f"**version {v.id}**, trained by {html.escape(v.created_by)} on {v.created_at:%Y-%m-%d %H:%M} UTC "
        f"from {v.n_labels} final labels ({m['n_train']} to fit, {m['n_heldout']} held out, "
        f"{m['n_excluded_overlap']} left out as validation items)."
    )


def _charts(c: rh.Comparison | None):
    """Figures of the chosen version (and the one in use, when another) on the validation items; before
    anything is measured, each says what it will show and when."""
    if c is None:
        return metrics_bars(None, None, ("", "")), pr_curves(None, None, ("", "")), confusion(None, "")
    if not c.chosen_report:
        empty = "No validation set is installed,<br>so versions cannot be measured."
        return (
            metrics_bars(None, None, ("", ""), empty),
            pr_curves(None, None, ("", ""), empty),
            confusion(None, "", empty),
        )
    shown = c.chosen_report["all"]
    other = None if c.chosen == c.in_use else c.in_use_report["all"]
    names = (rh.name_of(c.chosen), f"{rh.name_of(c.in_use)} (in use)")
    return metrics_bars(shown, other, names), pr_curves(shown, other, names), confusion(shown, names[0])


def _worse_html(c: rh.Comparison | None) -> str:
    """The chosen version's drops against the one in use, in red; empty when it is not worse."""
    words = "" if c is None else c.worse_words()
    return f"<div class='rea-worse' role='alert'>{html.escape(words)}</div>" if words else ""


def _confirm_text(c: rh.Comparison, typed: bool) -> str:
    text = (
        f"**Put {rh.name_of(c.chosen)} in use for every chat, from its next message on?** "
        f"{c.headline()} Any version, the packaged one included, can be put back later."
    )
    if typed:
        text += (
            f"\n\n**{c.worse_words()}** To put it in use anyway, type **{rh.confirm_words(c.chosen)}** below, "
            'then press "Yes, put it in use".'
        )
    return text


def _choices(found, current: int) -> list[tuple[str, int]]:
    def tag(version_id: int) -> str:
        return " · in use" if version_id == current else ""

    return [(f"packaged (shipped classifier){tag(rh.PACKAGED)}", rh.PACKAGED)] + [
        (f"version {v.id} · {v.n_labels} final labels · by {v.created_by}{tag(v.id)}", v.id) for v in found
    ]


def build_review_tab(engine: AppEngine):
    """Lay out the tab and wire it; returns (on_load, outputs) to run when the tab is shown."""
    pending = gr.State(None)  # the version the confirmation is about, server side
    sign_in_panel("review")
    status = gr.Markdown(
        elem_id="review-status"
    )  # outside the body: a refusal or the sign-in note shows signed out too
    with gr.Column(visible=False, elem_id="review-body") as body:  # shown once signed in
        with gr.Row():
            refresh = gr.Button("Refresh", elem_id="review-refresh")
            train_btn = gr.Button(
                "Train a candidate recognizer", variant="primary", visible=False, elem_id="review-train"
            )
        role_note = gr.Markdown(visible=False, elem_id="review-role")
        stats = gr.Markdown(elem_id="review-stats")
        per_source = gr.Markdown(elem_id="review-per-source")
        with gr.Accordion("Disagreements", open=True, visible=False, elem_id="review-adjudication") as adjudication:
            table = gr.Dataframe(
                headers=["item", "text", "labels"],
                interactive=False,
                wrap=True,  # long texts wrap inside their column: the labels column stays on screen
                column_widths=["18%", "48%", "34%"],  # shares of the table width, which fits the screen
                elem_id="review-disagreements",
            )
            with gr.Row():
                item_id = gr.Textbox(  # empty until a row is clicked (a Number would show a made-up item 0)
                    label="item", placeholder="click a row above", max_lines=1, elem_id="review-item"
                )
                final = gr.Radio(list(LABELS), label="final label", elem_id="review-label")
                adjudicate_btn = gr.Button("Adjudicate", elem_id="review-adjudicate")
        gr.Markdown("### Recognizer versions")
        with gr.Row():
            version = gr.Dropdown([], label="version to look at", elem_id="review-version")
            use_btn = gr.Button("Use this version…", visible=False, elem_id="review-use")
            back_btn = gr.Button("Put it back in use", visible=False, elem_id="review-put-back")  # one click
        with gr.Group(visible=False, elem_id="review-confirm") as confirm_box:
            confirm_md = gr.Markdown(elem_id="review-confirm-text")
            typed = gr.Textbox(
                label="type the version's name to put a worse version in use",
                visible=False,
                elem_id="review-confirm-typed",
            )
            with gr.Row():
                confirm_btn = gr.Button("Yes, put it in use", variant="stop", elem_id="review-use-confirm")
                cancel_btn = gr.Button("Cancel", elem_id="review-use-cancel")
        version_note = gr.Markdown(elem_id="review-version-note")
        worse = gr.HTML(visible=False, elem_id="review-worse")
        comparison = gr.Markdown(elem_id="review-comparison")
        with gr.Row():  # 300 px or more each: on a narrow screen they stack instead of cutting titles off
            bars = gr.Plot(show_label=False, min_width=300, elem_id="review-metrics")
            curve = gr.Plot(show_label=False, min_width=300, elem_id="review-pr")
            matrix = gr.Plot(show_label=False, min_width=300, elem_id="review-confusion")
    outputs = [
        status,
        role_note,
        stats,
        per_source,
        adjudication,
        table,
        train_btn,
        version,
        use_btn,
        back_btn,
        confirm_box,
        confirm_md,
        typed,
        pending,
        version_note,
        worse,
        comparison,
        bars,
        curve,
        matrix,
        body,  # last: API clients read the status first, as before
    ]

    def view(request: gr.Request, profile: gr.OAuthProfile | None, selected: int | None = None, message: str = ""):
        who = auth.identity(request, profile)
        if who is None:
            said = auth.NOT_CONFIGURED if not auth.sign_in_configured() else auth.SIGN_IN_TO_REVIEW
            return {status: said, body: gr.Column(visible=False)}
        adjudicator = who.role == "adjudicator"
        try:
            found = rh.versions(engine)
            current = rh.in_use(engine)
            chosen = selected if selected in [rh.PACKAGED] + [v.id for v in found] else current
            c = rh.compare(engine, chosen, found) if found else None  # nothing to compare: nothing measured
            going_back = rh.is_revert(chosen, found)  # a version that was in use: one click, no confirmation
            b, p, m = _charts(c)
            return {
                body: gr.Column(visible=True),
                status: message or f"Recognizer in use: **{rh.name_of(current)}**.",
                role_note: gr.Markdown(ANNOTATOR_NOTE, visible=not adjudicator),
                stats: rh.stats_markdown(engine),
                per_source: rh.source_metrics_markdown(engine),
                adjudication: gr.Accordion(visible=adjudicator),
                table: rh.disagreement_rows(engine, who),
                train_btn: gr.Button(visible=adjudicator),
                version: gr.Dropdown(choices=_choices(found, current), value=chosen),
                use_btn: gr.Button(visible=adjudicator and chosen != current and not going_back),
                back_btn: gr.Button(
                    f"Put {rh.name_of(chosen)} back in use", visible=adjudicator and chosen != current and going_back
                ),
                confirm_box: gr.Group(visible=False),
                typed: gr.Textbox(value="", visible=False),
                pending: None,
                version_note: _version_note(found, chosen, rh.provenance(engine)),
                worse: gr.HTML(_worse_html(c), visible=bool(c and c.drops())),
                comparison: rh.NO_VERSIONS if c is None else c.headline() + "\n\n" + c.table(),
                bars: b,
                curve: p,
                matrix: m,
            }
        except REAError as exc:
            return {status: f"**Database error:** {exc}"}

    def on_load(request: gr.Request, profile: gr.OAuthProfile | None):
        return view(request, profile)

    def act_then_view(action, request: gr.Request, profile: gr.OAuthProfile | None):
        """Run ``action(who)`` as the person signed in for this request (the handlers check the role),
        then show the tab again with its message (and the version it names); a refusal replaces only the status."""
        who = auth.identity(request, profile)
        if who is None:
            return {status: "**Refused:** sign in first."}
        try:
            message, selected = action(who)
        except REAError as exc:
            return {status: f"**Refused:** {exc}"}
        return view(request, profile, selected=selected, message=message)

    def do_adjudicate(item, label, request: gr.Request, profile: gr.OAuthProfile | None):
        item = str(item if item is not None else "").strip()
        if not item.isdigit() or not label:
            return {status: "Pick an item (click its row above) and a final label."}
        return act_then_view(lambda who: (rh.adjudicate(engine, who, int(item), label), None), request, profile)

    def do_train(request: gr.Request, profile: gr.OAuthProfile | None):
        return act_then_view(lambda who: rh.train(engine, who), request, profile)

    def ask_use(selected, request: gr.Request, profile: gr.OAuthProfile | None):
        """The confirmation step: what changes for every chat, with both versions' validation numbers."""
        who = auth.identity(request, profile)
        try:
            auth.require_adjudicator(who)
            chosen = int(selected or 0)
            if chosen == rh.in_use(engine):
                return {status: f"{rh.name_of(chosen).capitalize()} is already in use."}
            found = rh.versions(engine)
            c = rh.compare(engine, chosen, found)
        except REAError as exc:
            return {status: f"**Refused:** {exc}"}
        needs_typing = rh.typed_confirmation_needed(c, found)
        return {
            confirm_box: gr.Group(visible=True),
            confirm_md: _confirm_text(c, needs_typing),
            typed: gr.Textbox(
                value="", visible=needs_typing, label=f'type "{rh.confirm_words(chosen)}" to put it in use anyway'
            ),
            pending: chosen,
        }

    def do_use(chosen, words, request: gr.Request, profile: gr.OAuthProfile | None):
        if chosen is None:
            return {status: 'Choose a version and press "Use this version" first.'}

        def use(who):
            rh.check_confirmation(engine, int(chosen), words or "")
            return rh.switch(engine, who, int(chosen)), int(chosen)

        return act_then_view(use, request, profile)

    def do_put_back(selected, request: gr.Request, profile: gr.OAuthProfile | None):
        """Going back to the packaged version or one that was in use before: one click, no confirmation."""
        if selected is None:
            return {status: "Choose a version first."}

        def put_back(who):
            chosen = int(selected)
            if not rh.is_revert(chosen, rh.versions(engine)):
                raise REAError(
                    f'{rh.name_of(chosen).capitalize()} was never in use: press "Use this version" instead.'
                )
            return rh.switch(engine, who, chosen), chosen

        return act_then_view(put_back, request, profile)

    def cancel_use():
        return {confirm_box: gr.Group(visible=False), typed: gr.Textbox(value="", visible=False), pending: None}

    def pick_row(evt: gr.SelectData):
        """A click anywhere in a row of the disagreements fills the item field with that row's item."""
        row = evt.row_value or []
        return {item_id: str(row[0]).strip()} if row and str(row[0]).strip().isdigit() else {}

    def show_version(selected, request: gr.Request, profile: gr.OAuthProfile | None):
        return view(request, profile, selected=None if selected is None else int(selected))

    refresh.click(on_load, outputs=outputs, api_name="review_refresh", api_visibility="private")
    adjudicate_btn.click(do_adjudicate, inputs=[item_id, final], outputs=outputs, api_name="review_adjudicate")
    train_btn.click(
        do_train,
        outputs=outputs,
        api_name="review_train",
        concurrency_id="model",
        concurrency_limit=engine.concurrency,
    )
    use_btn.click(ask_use, inputs=[version], outputs=outputs, api_name="review_ask_use", api_visibility="private")
    table.select(pick_row, outputs=[item_id], api_name="review_pick", api_visibility="private")
    confirm_btn.click(
        do_use,
        inputs=[pending, typed],
        outputs=outputs,
        api_name="review_use",  # a switch waits for running model calls
        concurrency_id="model",
        concurrency_limit=engine.concurrency,
    )
    back_btn.click(
        do_put_back,
        inputs=[version],
        outputs=outputs,
        api_name="review_put_back",  # a switch waits for running model calls
        concurrency_id="model",
        concurrency_limit=engine.concurrency,
    )
    cancel_btn.click(cancel_use, outputs=outputs, api_name="review_cancel_use", api_visibility="private")
    version.input(show_version, inputs=[version], outputs=outputs, api_name="review_version", api_visibility="private")
    return on_load, outputs

"""The Review tab: agreement (Cohen's kappa per pair, Fleiss' kappa), label counts, the
disagreements with an adjudicate action, and "Train recognizer" with the new version's metrics
and precision-recall curve beside the previous version's (REA paper, D.1-D.3). Disagreements,
adjudication, training and switching are for adjudicators (role from the server's config).
"""

import gradio as gr

from rea_core import REAError
from rea_core.recognizer import LABELS

from ... import annotate_auth as auth
from ...state import AppEngine
from ...views.recognizer_charts import confusion, metrics_bars, pr_curves
from . import handlers as rh

PACKAGED = "packaged (shipped trained classifier, no studio version)"


def _pipeline_metrics(metrics: dict) -> dict | None:
    """The whole recognizer's metrics of a version: on the validation set, else on the held-out split."""
    part = metrics.get("validation") or metrics.get("heldout")
    return part["pipeline"] if part else None


def _charts(found, selected: int | None):
    """Figures for the selected version (default: the active one) and the one before it."""
    if not found:
        return (
            metrics_bars(None, None, ("", "")),
            pr_curves(None, None, ("", "")),
            confusion(None, ""),
            "No trained version yet.",
        )
    ids = [v.id for v in found]
    index = ids.index(selected) if selected in ids else next((i for i, v in enumerate(found) if v.active), 0)
    current = found[index]
    on = "validation set" if current.metrics.get("validation") else "held-out split"
    if index + 1 < len(found):
        previous, prev_name = _pipeline_metrics(found[index + 1].metrics), f"version {found[index + 1].id}"
    else:
        base = current.metrics.get("baseline_validation")
        previous, prev_name = (base["pipeline"], "rules only") if base else (None, "")
    names = (f"version {current.id}", prev_name)
    m = current.metrics
    note = (
        f"Version {current.id}: trained on {m['n_train']} labels by {current.created_by}; metrics on the {on} "
        f"(the whole recognizer: rules, then this classifier where the rules defer)."
    )
    shown = _pipeline_metrics(m)
    return metrics_bars(shown, previous, names), pr_curves(shown, previous, names), confusion(shown, names[0]), note


def build_review_tab(engine: AppEngine):
    """Lay out the tab and wire it; returns (on_load, outputs) for ``demo.load``."""
    with gr.Row():
        refresh = gr.Button("Refresh", elem_id="review-refresh")
        train_btn = gr.Button("Train recognizer", variant="primary", elem_id="review-train")
    status = gr.Markdown(elem_id="review-status")
    shipped = gr.Markdown(elem_id="review-provenance")
    stats = gr.Markdown(elem_id="review-stats")
    per_source = gr.Markdown(elem_id="review-per-source")
    with gr.Accordion("Disagreements (adjudicators)", open=True):
        table = gr.Dataframe(
            headers=["item", "text", "labels", "adjudicated"], interactive=False, elem_id="review-disagreements"
        )
        with gr.Row():
            item_id = gr.Number(label="item", precision=0, elem_id="review-item")
            final = gr.Radio(list(LABELS), label="final label", elem_id="review-label")
            adjudicate_btn = gr.Button("Adjudicate", elem_id="review-adjudicate")
    with gr.Row():
        version = gr.Dropdown([], label="recognizer version", elem_id="review-version")
        use_btn = gr.Button("Use this version in the app", elem_id="review-use")
    chart_note = gr.Markdown(elem_id="review-chart-note")
    with gr.Row():
        bars = gr.Plot(show_label=False, elem_id="review-metrics")
        curve = gr.Plot(show_label=False, elem_id="review-pr")
        matrix = gr.Plot(show_label=False, elem_id="review-confusion")
    outputs = [status, stats, table, version, bars, curve, matrix, chart_note, shipped, per_source]

    def view(request: gr.Request, profile: gr.OAuthProfile | None, selected=None, message: str = ""):
        who = auth.identity(request, profile)
        if who is None:
            return {status: auth.NOT_CONFIGURED if not auth.sign_in_configured() else "Sign in to review."}
        try:
            in_use = rh.active_name(engine)  # applied at startup and on switches only, never on a page load
            found = rh.versions(engine)
            b, c, m, note = _charts(found, selected)
            choices = [(PACKAGED, 0)] + [(f"version {v.id}{' (in use)' if v.active else ''}", v.id) for v in found]
            return {
                status: message or f"Recognizer in use: {in_use}.",
                stats: rh.stats_markdown(engine),
                table: rh.disagreement_rows(engine, who),
                version: gr.Dropdown(
                    choices=choices,
                    value=selected if selected is not None else next((v.id for v in found if v.active), 0),
                ),
                bars: b,
                curve: c,
                matrix: m,
                chart_note: note,
                shipped: rh.provenance(engine),
                per_source: rh.source_metrics_markdown(engine),
            }
        except REAError as exc:
            return {status: f"**Database error:** {exc}"}

    def on_load(request: gr.Request, profile: gr.OAuthProfile | None):
        return view(request, profile)

    def act_then_view(action, request: gr.Request, profile: gr.OAuthProfile | None):
        """Run ``action(who)`` as the person signed in for this request (the handlers check the role),
        then show the tab again with its message; a refusal replaces only the status line."""
        who = auth.identity(request, profile)
        if who is None:
            return {status: "**Refused:** sign in first."}
        try:
            message = action(who)
        except REAError as exc:
            return {status: f"**Refused:** {exc}"}
        return view(request, profile, message=message)

    def do_adjudicate(item, label, request: gr.Request, profile: gr.OAuthProfile | None):
        if item is None or not label:
            return {status: "Pick an item and a final label."}
        return act_then_view(lambda who: rh.adjudicate(engine, who, int(item), label), request, profile)

    def do_train(request: gr.Request, profile: gr.OAuthProfile | None):
        return act_then_view(lambda who: rh.train(engine, who), request, profile)

    def do_use(selected, request: gr.Request, profile: gr.OAuthProfile | None):
        return act_then_view(lambda who: rh.switch(engine, who, int(selected or 0) or None), request, profile)

    def show_version(selected, request: gr.Request, profile: gr.OAuthProfile | None):
        return view(request, profile, selected=int(selected) if selected else None)

    refresh.click(on_load, outputs=outputs, api_name="review_refresh", api_visibility="private")
    adjudicate_btn.click(do_adjudicate, inputs=[item_id, final], outputs=outputs, api_name="review_adjudicate")
    train_btn.click(
        do_train,
        outputs=outputs,
        api_name="review_train",
        concurrency_id="model",
        concurrency_limit=engine.concurrency,
    )
    use_btn.click(
        do_use,
        inputs=[version],
        outputs=outputs,
        api_name="review_use",  # a switch waits for running model calls
        concurrency_id="model",
        concurrency_limit=engine.concurrency,
    )
    version.input(show_version, inputs=[version], outputs=outputs, api_name="review_version", api_visibility="private")
    return on_load, outputs

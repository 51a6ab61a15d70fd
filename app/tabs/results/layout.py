"""The Results tab: the project's own measured results as charts, each under the command that
reproduces it, and a drop zone for a ``rea eval … --out`` folder's results.json, drawn for this
browser session only."""

from __future__ import annotations

import gradio as gr

from ...state import AppEngine
from ...views.results_charts import DRAWN, ResultsView
from . import handlers as rh

INTRO = (
    "What REA measured on this app's packaged models, with the real `rea eval` commands: does the model "
    "still follow an instruction many turns later, how the prompt and the reply time grow over a long chat, "
    "and how much of the history REA keeps while keeping what a question needs. Each run names the command "
    "that reproduces it; small runs say so."
)


def _draw(caption: str, figures) -> None:
    """A run: its caption (escaped HTML) above its figures, side by side."""
    gr.HTML(caption)
    with gr.Row(equal_height=True):
        for fig in figures:
            gr.Plot(fig, show_label=False, elem_classes=["rea-results-plot"])


def build_results_tab(engine: AppEngine) -> None:
    """Lay out the tab and wire its upload; the shipped charts are built once, with the page."""
    gr.Markdown(INTRO, elem_id="results-intro")
    shipped = rh.shipped_results(engine.limits)
    if not shipped:
        gr.Markdown("No results are shipped with this copy of the app.", elem_id="results-none")
    for name, view in shipped:
        if isinstance(view, ResultsView):
            _draw(rh.caption_html(view), view.figures)
        else:
            gr.HTML(rh.broken_html(f"{name}/results.json", view))
    with gr.Group(elem_id="results-drop"):
        gr.Markdown(
            f"**Your own run.** Drop the `results.json` of a `rea eval … --out` folder ({DRAWN}; at most "
            f"{engine.limits.max_upload_mb:g} MB): it is drawn below for this browser session only."
        )
        upload = gr.File(
            label="results.json", file_types=[".json"], file_count="multiple", elem_id="results-upload", height=120
        )
    status = gr.HTML(elem_id="results-upload-status")
    # A handle into engine.session_state (the server's one memory cap), never the runs themselves.
    store = engine.session_state
    uploaded = gr.State(None, time_to_live=engine.limits.session_state_ttl_s, delete_callback=store.release)

    @gr.render(inputs=[uploaded])
    def draw_uploaded(held):
        runs, note = rh.drawn_runs(held, store)
        if note:
            gr.HTML(note)
        for run in runs:
            _draw(run.caption, run.plots())

    def on_upload(files, held):
        held, message = rh.add_uploads(files, held, store, engine.limits)
        return held, message, None  # the drop zone empties, ready for the next file

    upload.upload(
        on_upload,
        inputs=[upload, uploaded],
        outputs=[uploaded, status, upload],
        api_name="results_upload",
        api_visibility="private",
    )

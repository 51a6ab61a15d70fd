"""The Results tab: the project's own measured results as charts, each under the command that
reproduces it, and a drop zone for a ``rea eval … --out`` folder's results.json, drawn for this
browser session only."""

from __future__ import annotations

import gradio as gr

from ...state import AppEngine
from ...views.results_charts import ResultsView, drawn
from . import handlers as rh

INTRO = (
    "What REA measured on this app's packaged models: does the model still follow an instruction many turns "
    "later, how what it reads and the wait for a reply grow over a long chat, and how much of the chat REA "
    "keeps while keeping what a question needs. Small runs say so. Under each run, for researchers: how it "
    "was run and the command that reproduces it."
)
NO_UPLOAD = (
    "The charts of your own run appear here as soon as you drop its results.json above, for this browser session only."
)


def _draw(caption: str, headings, figures, key: str | None = None) -> None:
    """A run: its caption (escaped HTML) above its figures, side by side where the page is wide enough,
    each under its heading (escaped HTML). ``key``: the run's own, inside a ``gr.render``, so a redraw
    matches each component to its own (unkeyed, one took over the empty state's id and stayed)."""

    def keyed(part: str):
        return None if key is None else f"{key}-{part}"

    gr.HTML(caption, key=keyed("caption"))
    with gr.Row(equal_height=True, key=keyed("row")):
        for i, (heading, fig) in enumerate(zip(headings, figures, strict=True)):
            with gr.Column(min_width=300, elem_classes=["rea-results-chart"], key=keyed(f"chart-{i}")):
                gr.HTML(heading, key=keyed(f"heading-{i}"))
                gr.Plot(fig, show_label=False, elem_classes=["rea-results-plot"], key=keyed(f"plot-{i}"))


def build_results_tab(engine: AppEngine) -> None:
    """Lay out the tab and wire its upload; the shipped charts are built once, with the page."""
    gr.Markdown(INTRO, elem_id="results-intro")
    shipped = rh.shipped_results(engine.limits)
    if not shipped:
        gr.Markdown("No results are shipped with this copy of the app.", elem_id="results-none")
    for name, view in shipped:
        if isinstance(view, ResultsView):
            _draw(rh.caption_html(view), [rh.heading_html(h) for h in view.headings], view.figures)
        else:
            gr.HTML(rh.broken_html(f"{name}/results.json", view))
    with gr.Group(elem_id="results-drop"):
        gr.Markdown(
            f"**Your own run.** Drop the `results.json` of a `rea eval … --out` folder ({drawn()}; at most "
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
            gr.HTML(note, key="note")
        if not runs:
            # the id inside the value: a component's elem_id outlived it in a redraw (another took it over)
            gr.HTML(f'<p id="results-uploaded-empty" class="rea-results-empty">{NO_UPLOAD}</p>', key="empty")
        for i, run in enumerate(runs):
            _draw(run.caption, run.headings, run.plots(), key=f"run-{i}")

    # The files the previous drop held: a file dropped while that one is read joins it in the drop zone,
    # and the two come as one event, whose first file is then read already.
    seen = gr.State(())

    def on_upload(files, held, before):
        fresh, now = rh.unseen(files, before)
        if not fresh:
            return held, gr.skip(), None, now
        held, message = rh.add_uploads(fresh, held, store, engine.limits)
        return held, message, None, now  # the drop zone empties, ready for the next file

    # A file dropped while the previous one is still read is an event of its own ("multiple": the
    # default "once" dropped it, and the earlier reply then emptied the drop zone it lay in). One at a
    # time, so each reads the runs the one before it left in ``uploaded``.
    upload.upload(
        on_upload,
        inputs=[upload, uploaded, seen],
        outputs=[uploaded, status, upload, seen],
        trigger_mode="multiple",
        concurrency_limit=1,
        concurrency_id="results_upload",
        api_name="results_upload",
        api_visibility="private",
    )

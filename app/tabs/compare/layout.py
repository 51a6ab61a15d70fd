"""The Compare tab: two chat columns on one backbone (REA left, vanilla right by default), one input
box for both, Table-13 prompt views, retrieval charts, IM panels, live thresholds."""

from __future__ import annotations

import gradio as gr

from rea_core import REAError

from ...state import AppEngine
from . import handlers

SIDES = (0, 1)
DEFAULT_STRATEGIES = ("rea", "vanilla")


def build_compare_tab(engine: AppEngine, tau_low: gr.Slider, tau_high: gr.Slider, tau_note: gr.Markdown):
    """Lay out and wire the tab; returns (init function, its outputs) for the page-load event."""
    cols = gr.State(None)  # per browser session: [ColumnState, ColumnState]
    pending = gr.State(None)  # the message accepted for sending, between the chained events
    ui: dict[str, list] = {k: [] for k in ("strategy", "error", "chat", "prompt", "chart", "im", "im_text", "im_add", "im_pos", "im_remove", "im_msg")}

    # -- layout ------------------------------------------------------------------------------------
    form = gr.Radio([("measured best", "auto"), ("latent vectors", "latent"), ("text-compressed", "text")], value="auto",
                    label="REA's compressed replies (from the next reply on)", elem_id="compressed-form")
    with gr.Row(equal_height=False):
        for side in SIDES:
            with gr.Column(elem_id=f"column-{side}"):
                ui["strategy"].append(gr.Dropdown(engine.strategy_names(), value=DEFAULT_STRATEGIES[side], label="strategy", elem_id=f"strategy-{side}"))
                ui["error"].append(gr.HTML(elem_id=f"error-{side}"))
                ui["chat"].append(gr.Chatbot(label="conversation", height=380, elem_id=f"chat-{side}", feedback_options=None, sanitize_html=True))
                with gr.Accordion("Prompt structure (what the generator received)", open=True):
                    ui["prompt"].append(gr.HTML(elem_id=f"prompt-{side}"))
                with gr.Accordion("Retrieval scores of the latest query", open=True):
                    ui["chart"].append(gr.Plot(elem_id=f"chart-{side}", show_label=False))
                with gr.Accordion("Instructional Memory", open=False):
                    ui["im"].append(gr.HTML(elem_id=f"im-{side}"))
                    with gr.Row():
                        ui["im_text"].append(gr.Textbox(label="add an instruction", scale=3))
                        ui["im_add"].append(gr.Button("Add", scale=1))
                    with gr.Row():
                        ui["im_pos"].append(gr.Number(label="# to remove", precision=0, scale=3))
                        ui["im_remove"].append(gr.Button("Remove", scale=1))
                    ui["im_msg"].append(gr.Markdown())
    with gr.Row():
        textbox = gr.Textbox(placeholder="Message both columns (Enter to send)", show_label=False, scale=6, elem_id="message")
        send = gr.Button("Send", variant="primary", scale=1, elem_id="send")
        stop = gr.Button("Stop", variant="stop", scale=1, elem_id="stop")
    with gr.Row():
        reset = gr.Button("Reset", elem_id="reset")
        demo_btn = gr.Button("Load the H.1 demo", elem_id="load-demo")
        reanswer = gr.Button("Re-answer with these thresholds", elem_id="reanswer")
        new_session = gr.Button("New session", elem_id="new-session")  # COMEDY / SeCom session boundary
        save = gr.Button("Save conversation", elem_id="save")
        upload = gr.UploadButton("Load conversation", file_types=[".json"], elem_id="load")
    saved = gr.File(label="saved conversation", visible=False, elem_id="saved-file")

    view_outputs = [*ui["chat"], *ui["prompt"], *ui["chart"], *ui["im"], *ui["error"]]

    # -- handlers ----------------------------------------------------------------------------------
    def ensure(columns):
        return columns if columns is not None else [engine.new_column(name) for name in DEFAULT_STRATEGIES]

    def render(columns, lo, hi, message_pending=None):
        columns = ensure(columns)
        out = {}
        for side, column in zip(SIDES, columns):
            prompt, chart, im, error = handlers.column_views(engine, column, lo, hi)
            out.update({ui["chat"][side]: handlers.chat_messages(column, message_pending), ui["prompt"][side]: prompt,
                        ui["chart"][side]: chart, ui["im"][side]: im, ui["error"][side]: error})
        return out

    def init(lo, hi):
        columns = ensure(None)
        return {cols: columns, **render(columns, lo, hi)}

    def accept(text, columns):
        columns = ensure(columns)
        if not (text or "").strip():
            return {pending: None}  # empty messages do nothing
        try:
            message = handlers.check_message(engine, text)
        except REAError as exc:
            gr.Warning(str(exc))
            return {pending: None}
        out = {pending: message, textbox: "", cols: columns}
        out.update({ui["chat"][side]: handlers.chat_messages(columns[side], message) for side in SIDES})
        return out

    def generate(message, columns, lo, hi, chosen, request: gr.Request):
        """Stream both columns' replies; the views and stats follow when both have ended (or stopped)."""
        columns = ensure(columns)
        handlers.set_compressed_form(columns, chosen)
        if message:
            stopper = engine.stop_event(request.session_hash if request else None)
            try:
                for partial in handlers.stream_columns(engine, columns, message, lo, hi, stopper):
                    update = {ui["chat"][side]: handlers.chat_messages(columns[side], message, partial[side])
                              for side in SIDES if partial[side] is not None}
                    if update:  # an empty dict would read as one positional value
                        yield update
            finally:
                engine.release_stop_event(request.session_hash if request else None, stopper)
        yield {cols: columns, pending: None, **render(columns, lo, hi)}

    def stop_replies(request: gr.Request):
        engine.request_stop(request.session_hash if request else None)

    def on_thresholds(moved):
        def handler(lo, hi, columns):
            lo, hi, note = handlers.ordered_thresholds(lo, hi, moved)
            return {tau_low: lo, tau_high: hi, tau_note: note, **render(columns, lo, hi)}

        return handler

    def change_strategy(side):
        def handler(name, columns, lo, hi):
            columns = list(ensure(columns))
            if columns[side].strategy != name:
                columns[side] = engine.new_column(name)
            return {cols: columns, **render(columns, lo, hi)}

        return handler

    def reanswer_both(columns, lo, hi, chosen):
        columns = ensure(columns)
        handlers.set_compressed_form(columns, chosen)
        for column in columns:
            handlers.reanswer_column(engine, column, lo, hi)
        return {cols: columns, **render(columns, lo, hi)}

    def change_form(chosen, columns, lo, hi):
        columns = ensure(columns)
        handlers.set_compressed_form(columns, chosen)
        return {cols: columns, **render(columns, lo, hi)}

    def end_sessions(columns, lo, hi):
        columns = ensure(columns)
        notes = [handlers.end_session_column(engine, column) for column in columns]
        if any(notes):
            gr.Info(" ".join(n for n in notes if n))
        return {cols: columns, **render(columns, lo, hi)}

    def reset_all(columns, lo, hi):
        columns = [engine.new_column(c.strategy) for c in ensure(columns)]
        return {cols: columns, **render(columns, lo, hi)}

    def demo_all(columns, lo, hi):
        columns = handlers.load_demo(engine, ensure(columns), lo, hi)
        return {cols: columns, **render(columns, lo, hi)}

    def save_all(columns):
        return gr.File(value=handlers.save_columns(engine, ensure(columns)), visible=True)

    def load_all(file, columns, lo, hi):
        try:
            loaded = handlers.load_columns(engine, file if isinstance(file, str) else file.name)
        except REAError as exc:
            gr.Warning(str(exc))
            return {cols: columns}  # nothing replaced
        columns = list(ensure(columns))
        for side, column in zip(SIDES, loaded):
            columns[side] = column
        return {cols: columns, **{ui["strategy"][s]: columns[s].strategy for s in SIDES}, **render(columns, lo, hi)}

    def im_edit(side, action):
        def handler(value, columns, lo, hi):
            columns = ensure(columns)
            message = action(columns[side], value)
            return {cols: columns, ui["im_msg"][side]: message, **render(columns, lo, hi)}

        return handler

    # -- wiring (each chain once) ------------------------------------------------------------------
    thresholds = [tau_low, tau_high]
    model_call = dict(concurrency_id="model", concurrency_limit=engine.concurrency)
    gr.on([textbox.submit, send.click], accept, inputs=[textbox, cols], outputs=[pending, textbox, cols, *ui["chat"]], queue=False, api_name="accept_message").then(
        generate, inputs=[pending, cols, *thresholds, form], outputs=[cols, pending, *view_outputs], api_name="generate_replies", **model_call
    )
    gr.on([stop.click], stop_replies, inputs=None, outputs=None, queue=False, api_name="stop")
    gr.on([reanswer.click], reanswer_both, inputs=[cols, *thresholds, form], outputs=[cols, *view_outputs], api_name="reanswer", **model_call)
    gr.on([demo_btn.click], demo_all, inputs=[cols, *thresholds], outputs=[cols, *view_outputs], api_name="load_demo", **model_call)
    gr.on([new_session.click], end_sessions, inputs=[cols, *thresholds], outputs=[cols, *view_outputs], api_name="new_session", **model_call)
    form.change(change_form, inputs=[form, cols, *thresholds], outputs=[cols, *view_outputs], api_name="set_compressed_form", api_visibility="undocumented")
    gr.on([reset.click], reset_all, inputs=[cols, *thresholds], outputs=[cols, *view_outputs], api_name="reset")
    gr.on([save.click], save_all, inputs=[cols], outputs=[saved], api_name="save_conversation")
    gr.on([upload.upload], load_all, inputs=[upload, cols, *thresholds], outputs=[cols, *ui["strategy"], *view_outputs], api_name="load_conversation")
    tau_low.change(on_thresholds("low"), inputs=[*thresholds, cols], outputs=[*thresholds, tau_note, *view_outputs], trigger_mode="always_last", concurrency_limit=None, api_name="set_tau_low", api_visibility="undocumented")
    tau_high.change(on_thresholds("high"), inputs=[*thresholds, cols], outputs=[*thresholds, tau_note, *view_outputs], trigger_mode="always_last", concurrency_limit=None, api_name="set_tau_high", api_visibility="undocumented")
    for side in SIDES:
        ui["strategy"][side].change(change_strategy(side), inputs=[ui["strategy"][side], cols, *thresholds], outputs=[cols, *view_outputs], api_name=f"set_strategy_{side}", api_visibility="undocumented")
        ui["im_add"][side].click(im_edit(side, lambda column, text: handlers.im_add(column, text, max_chars=engine.config.max_message_chars)), inputs=[ui["im_text"][side], cols, *thresholds], outputs=[cols, ui["im_msg"][side], *view_outputs], api_name=f"im_add_{side}", api_visibility="private")
        ui["im_remove"][side].click(im_edit(side, handlers.im_remove), inputs=[ui["im_pos"][side], cols, *thresholds], outputs=[cols, ui["im_msg"][side], *view_outputs], api_name=f"im_remove_{side}", api_visibility="private")
    return init, [cols, *view_outputs]

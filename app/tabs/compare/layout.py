"""The Compare tab: two chat columns on one backbone (REA left, vanilla right by default), one input
box for both, Table-13 prompt views, retrieval charts, IM panels, live thresholds.

``lay_out`` builds the components into a ``CompareUI``; each ``wire_*`` function then connects one
group of events to it, so every group can be read (and changed) without the others.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr
from gradio.events import Dependency

from rea_core import REAError

from ... import thresholds
from ...state import AppEngine, ColumnState
from . import handlers

SIDES = (0, 1)
DEFAULT_STRATEGIES = ("rea", "vanilla")


@dataclass
class ColumnUI:
    """The components of one chat column."""

    strategy: gr.Dropdown
    error: gr.HTML
    chat: gr.Chatbot
    prompt: gr.HTML
    chart: gr.Plot
    im: gr.HTML
    im_text: gr.Textbox
    im_add: gr.Button
    im_pos: gr.Number
    im_remove: gr.Button
    im_msg: gr.Markdown


@dataclass
class CompareUI:
    """Every component the tab's events read or write, so the wiring needs no layout code."""

    columns: gr.State  # per browser session: [ColumnState, ColumnState]
    pending: gr.State  # the message accepted for sending, between the chained events
    form: gr.Radio
    sides: list[ColumnUI]
    message: gr.Textbox
    send: gr.Button
    stop: gr.Button
    reset: gr.Button
    load_demo: gr.Button
    reanswer: gr.Button
    new_session: gr.Button
    save: gr.Button
    load: gr.UploadButton
    saved: gr.File
    tau_low: gr.Slider  # the thresholds are shared with the other tabs; they live above the tabs
    tau_high: gr.Slider
    tau_note: gr.Markdown
    moved: Dependency  # a threshold moved (``thresholds.wire_thresholds``), the sliders already ordered

    @property
    def thresholds(self) -> list[gr.Slider]:
        return [self.tau_low, self.tau_high]

    def each(self, part: str) -> list:
        """One component of every column, left to right (e.g. ``each("chat")``)."""
        return [getattr(side, part) for side in self.sides]

    @property
    def view_outputs(self) -> list:
        """What ``render_views`` fills, in the order the events list them."""
        return [*self.each("chat"), *self.each("prompt"), *self.each("chart"), *self.each("im"), *self.each("error")]


def build_compare_tab(
    engine: AppEngine, tau_low: gr.Slider, tau_high: gr.Slider, tau_note: gr.Markdown, moved: Dependency
):
    """Lay out and wire the tab; returns (init function, its outputs) for the page-load event."""
    ui = lay_out(engine, tau_low, tau_high, tau_note, moved)
    wire_sending(ui, engine)
    wire_conversation_actions(ui, engine)
    wire_view_settings(ui, engine)
    wire_instructional_memory(ui, engine)
    wire_save_and_load(ui, engine)

    def init(lo, hi):
        return stored_with_views(ui, engine, ensure_columns(engine, None), lo, hi)

    return init, [ui.columns, *ui.view_outputs]


# -- layout ----------------------------------------------------------------------------------------


def lay_out(
    engine: AppEngine, tau_low: gr.Slider, tau_high: gr.Slider, tau_note: gr.Markdown, moved: Dependency
) -> CompareUI:
    """Create the tab's components (in page order) and return them; no events yet."""
    columns = gr.State(None)
    pending = gr.State(None)
    form = gr.Radio(
        [("measured best", "auto"), ("latent vectors", "latent"), ("text-compressed", "text")],
        value="auto",
        label="REA's compressed replies (from the next reply on)",
        elem_id="reply-form",
    )
    with gr.Row(equal_height=False):
        sides = [lay_out_column(engine, side) for side in SIDES]
    with gr.Row():
        message = gr.Textbox(
            placeholder="Message both columns (Enter to send)", show_label=False, scale=6, elem_id="message"
        )
        send = gr.Button("Send", variant="primary", scale=1, elem_id="send")
        stop = gr.Button("Stop", variant="stop", scale=1, elem_id="stop")
    with gr.Row():
        reset = gr.Button("Reset", elem_id="reset")
        load_demo = gr.Button("Load the H.1 demo", elem_id="load-demo")
        reanswer = gr.Button("Re-answer with these thresholds", elem_id="reanswer")
        new_session = gr.Button("New session", elem_id="new-session")  # COMEDY / SeCom session boundary
        save = gr.Button("Save conversation", elem_id="save")
        load = gr.UploadButton("Load conversation", file_types=[".json"], elem_id="load")
    saved = gr.File(label="saved conversation", visible=False, elem_id="saved-file")
    return CompareUI(
        columns=columns,
        pending=pending,
        form=form,
        sides=sides,
        message=message,
        send=send,
        stop=stop,
        reset=reset,
        load_demo=load_demo,
        reanswer=reanswer,
        new_session=new_session,
        save=save,
        load=load,
        saved=saved,
        tau_low=tau_low,
        tau_high=tau_high,
        tau_note=tau_note,
        moved=moved,
    )


def lay_out_column(engine: AppEngine, side: int) -> ColumnUI:
    """One chat column: strategy picker, conversation, prompt view, retrieval chart, IM panel."""
    with gr.Column(elem_id=f"column-{side}"):
        strategy = gr.Dropdown(
            engine.strategy_names(), value=DEFAULT_STRATEGIES[side], label="strategy", elem_id=f"strategy-{side}"
        )
        error = gr.HTML(elem_id=f"error-{side}")
        chat = gr.Chatbot(
            label="conversation", height=380, elem_id=f"chat-{side}", feedback_options=None, sanitize_html=True
        )
        with gr.Accordion("Prompt structure (what the generator received)", open=True):
            prompt = gr.HTML(elem_id=f"prompt-{side}")
        with gr.Accordion("Retrieval scores of the latest query", open=True):
            chart = gr.Plot(elem_id=f"chart-{side}", show_label=False)
        with gr.Accordion("Instructional Memory", open=False):
            im = gr.HTML(elem_id=f"im-{side}")
            with gr.Row():
                im_text = gr.Textbox(label="add an instruction", scale=3)
                im_add = gr.Button("Add", scale=1)
            with gr.Row():
                im_pos = gr.Number(label="# to remove", precision=0, scale=3)
                im_remove = gr.Button("Remove", scale=1)
            im_msg = gr.Markdown()
    return ColumnUI(
        strategy=strategy,
        error=error,
        chat=chat,
        prompt=prompt,
        chart=chart,
        im=im,
        im_text=im_text,
        im_add=im_add,
        im_pos=im_pos,
        im_remove=im_remove,
        im_msg=im_msg,
    )


# -- what every event returns ----------------------------------------------------------------------


def ensure_columns(engine: AppEngine, columns: list[ColumnState] | None) -> list[ColumnState]:
    """The session's columns; a session's first event gets the default pair."""
    return columns if columns is not None else [engine.new_column(name) for name in DEFAULT_STRATEGIES]


def render_views(
    ui: CompareUI, engine: AppEngine, columns, tau_low: float, tau_high: float, message_pending: str | None = None
) -> dict:
    """Both columns' chat, prompt view, chart, IM panel and error at the given thresholds."""
    columns = ensure_columns(engine, columns)
    out = {}
    for side, column in zip(ui.sides, columns):
        prompt, chart, im, error = handlers.column_views(engine, column, tau_low, tau_high)
        out.update(
            {
                side.chat: handlers.chat_messages(column, message_pending),
                side.prompt: prompt,
                side.chart: chart,
                side.im: im,
                side.error: error,
            }
        )
    return out


def stored_with_views(
    ui: CompareUI, engine: AppEngine, columns: list[ColumnState], tau_low: float, tau_high: float
) -> dict:
    """Keep ``columns`` as the session's and redraw them: the usual answer of an event that changed them."""
    return {ui.columns: columns, **render_views(ui, engine, columns, tau_low, tau_high)}


def model_queue(engine: AppEngine) -> dict:
    """Event settings for calls that run the model: they share one slot group with the other tabs' model calls."""
    return dict(concurrency_id="model", concurrency_limit=engine.concurrency)


def session_id(request: gr.Request | None) -> str | None:
    return request.session_hash if request else None


# -- events ----------------------------------------------------------------------------------------


def wire_sending(ui: CompareUI, engine: AppEngine) -> None:
    """Send (button or Enter) shows the message at once outside the queue, then streams both replies
    in the model queue; Stop ends both replies of this browser session."""

    def accept(text, columns):
        columns = ensure_columns(engine, columns)
        if not (text or "").strip():
            return {ui.pending: None}  # empty messages do nothing
        try:
            message = handlers.check_message(engine, text)
        except REAError as exc:
            gr.Warning(str(exc))
            return {ui.pending: None}
        out = {ui.pending: message, ui.message: "", ui.columns: columns}
        out.update({ui.sides[s].chat: handlers.chat_messages(columns[s], message) for s in SIDES})
        return out

    def generate(message, columns, lo, hi, chosen, request: gr.Request):
        """Stream both columns' replies; the views and stats follow when both have ended (or stopped)."""
        columns = ensure_columns(engine, columns)
        handlers.set_reply_form(columns, chosen)
        if message:
            stopper = engine.stop_event(session_id(request))
            try:
                for partial in handlers.stream_columns(engine, columns, message, lo, hi, stopper):
                    update = {
                        ui.sides[s].chat: handlers.chat_messages(columns[s], message, partial[s])
                        for s in SIDES
                        if partial[s] is not None
                    }
                    if update:  # an empty dict would read as one positional value
                        yield update
            finally:
                engine.release_stop_event(session_id(request), stopper)
        yield {ui.pending: None, **stored_with_views(ui, engine, columns, lo, hi)}

    def stop_replies(request: gr.Request):
        engine.request_stop(session_id(request))

    gr.on(
        [ui.message.submit, ui.send.click],
        accept,
        inputs=[ui.message, ui.columns],
        outputs=[ui.pending, ui.message, ui.columns, *ui.each("chat")],
        queue=False,
        api_name="accept_message",
    ).then(
        generate,
        inputs=[ui.pending, ui.columns, *ui.thresholds, ui.form],
        outputs=[ui.columns, ui.pending, *ui.view_outputs],
        api_name="generate_replies",
        **model_queue(engine),
    )
    gr.on([ui.stop.click], stop_replies, inputs=None, outputs=None, queue=False, api_name="stop")


def wire_conversation_actions(ui: CompareUI, engine: AppEngine) -> None:
    """Re-answer, the demo, a new session and reset: each rewrites both columns' conversations."""
    inputs, outputs = [ui.columns, *ui.thresholds], [ui.columns, *ui.view_outputs]

    def reanswer_both(columns, lo, hi, chosen):
        columns = ensure_columns(engine, columns)
        handlers.set_reply_form(columns, chosen)
        for column in columns:
            handlers.reanswer_column(engine, column, lo, hi)
        return stored_with_views(ui, engine, columns, lo, hi)

    def demo_both(columns, lo, hi):
        return stored_with_views(
            ui, engine, handlers.load_demo(engine, ensure_columns(engine, columns), lo, hi), lo, hi
        )

    def end_sessions(columns, lo, hi):
        columns = ensure_columns(engine, columns)
        notes = [handlers.end_session_column(engine, column) for column in columns]
        if any(notes):
            gr.Info(" ".join(n for n in notes if n))
        return stored_with_views(ui, engine, columns, lo, hi)

    def reset_both(columns, lo, hi):
        return stored_with_views(
            ui, engine, [engine.new_column(c.strategy) for c in ensure_columns(engine, columns)], lo, hi
        )

    gr.on(
        [ui.reanswer.click],
        reanswer_both,
        inputs=[*inputs, ui.form],
        outputs=outputs,
        api_name="reanswer",
        **model_queue(engine),
    )
    gr.on([ui.load_demo.click], demo_both, inputs=inputs, outputs=outputs, api_name="load_demo", **model_queue(engine))
    gr.on(
        [ui.new_session.click],
        end_sessions,
        inputs=inputs,
        outputs=outputs,
        api_name="new_session",
        **model_queue(engine),
    )
    gr.on([ui.reset.click], reset_both, inputs=inputs, outputs=outputs, api_name="reset")


def wire_view_settings(ui: CompareUI, engine: AppEngine) -> None:
    """The compressed form, the thresholds and each column's strategy: the views are redrawn at once
    (moved thresholds re-decide from cached scores) and nothing is generated."""

    def change_form(chosen, columns, lo, hi):
        columns = ensure_columns(engine, columns)
        handlers.set_reply_form(columns, chosen)
        return stored_with_views(ui, engine, columns, lo, hi)

    def thresholds_moved(lo, hi, columns):
        """Both columns re-decided at the sliders' values (ordered in the browser before this runs); the
        sliders are not written here, so a late answer cannot move them."""
        lo, hi, _ = thresholds.ordered_thresholds(lo, hi, "low")  # a client that sent them unordered
        return render_views(ui, engine, columns, lo, hi)

    def strategy_changed(side: int):
        def handler(name, columns, lo, hi):
            columns = list(ensure_columns(engine, columns))
            if columns[side].strategy != name:
                columns[side] = engine.new_column(name)
            return stored_with_views(ui, engine, columns, lo, hi)

        return handler

    ui.form.change(
        change_form,
        inputs=[ui.form, ui.columns, *ui.thresholds],
        outputs=[ui.columns, *ui.view_outputs],
        api_name="set_reply_form",
        api_visibility="undocumented",
    )
    ui.moved.then(
        thresholds_moved,
        inputs=[*ui.thresholds, ui.columns],
        outputs=ui.view_outputs,
        trigger_mode="always_last",  # one move at a time, then the latest
        concurrency_limit=None,
        show_progress="hidden",
        api_name="set_thresholds",
        api_visibility="undocumented",
    )
    for side, column_ui in zip(SIDES, ui.sides):
        column_ui.strategy.change(
            strategy_changed(side),
            inputs=[column_ui.strategy, ui.columns, *ui.thresholds],
            outputs=[ui.columns, *ui.view_outputs],
            api_name=f"set_strategy_{side}",
            api_visibility="undocumented",
        )


def wire_instructional_memory(ui: CompareUI, engine: AppEngine) -> None:
    """Each column's Add / Remove buttons edit that column's Instructional Memory by hand."""

    def add_instruction(column: ColumnState, text) -> str:
        return handlers.im_add(column, text, max_chars=engine.runtime.max_message_chars)

    def edit(side: int, action):
        def handler(value, columns, lo, hi):
            columns = ensure_columns(engine, columns)
            note = action(columns[side], value)
            return {ui.sides[side].im_msg: note, **stored_with_views(ui, engine, columns, lo, hi)}

        return handler

    for side, column_ui in zip(SIDES, ui.sides):
        outputs = [ui.columns, column_ui.im_msg, *ui.view_outputs]
        column_ui.im_add.click(
            edit(side, add_instruction),
            inputs=[column_ui.im_text, ui.columns, *ui.thresholds],
            outputs=outputs,
            api_name=f"im_add_{side}",
            api_visibility="private",
        )
        column_ui.im_remove.click(
            edit(side, handlers.im_remove),
            inputs=[column_ui.im_pos, ui.columns, *ui.thresholds],
            outputs=outputs,
            api_name=f"im_remove_{side}",
            api_visibility="private",
        )


def wire_save_and_load(ui: CompareUI, engine: AppEngine) -> None:
    """Save both columns to a JSON download; load one back (a refused file replaces nothing)."""

    def save_both(columns):
        return gr.File(value=handlers.save_columns(engine, ensure_columns(engine, columns)), visible=True)

    def load_both(file, columns, lo, hi):
        try:
            loaded = handlers.load_columns(engine, file if isinstance(file, str) else file.name)
        except REAError as exc:
            gr.Warning(str(exc))
            return {ui.columns: columns}  # nothing replaced
        columns = list(ensure_columns(engine, columns))
        for side, column in zip(SIDES, loaded):
            columns[side] = column
        return {
            **stored_with_views(ui, engine, columns, lo, hi),
            **{ui.sides[s].strategy: columns[s].strategy for s in SIDES},
        }

    gr.on([ui.save.click], save_both, inputs=[ui.columns], outputs=[ui.saved], api_name="save_conversation")
    gr.on(
        [ui.load.upload],
        load_both,
        inputs=[ui.load, ui.columns, *ui.thresholds],
        outputs=[ui.columns, *ui.each("strategy"), *ui.view_outputs],
        api_name="load_conversation",
    )

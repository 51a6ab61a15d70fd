"""The Compare tab: two chat columns on one backbone (REA left, vanilla right by default), one input
box for both, Table-13 prompt views, retrieval charts, IM panels, live thresholds.

The first screen holds what a visitor needs: example buttons, both chats (titled by strategy), the
message box with its notices; controls and the prompt views follow below it. ``lay_out`` builds
the components into a ``CompareUI``; each ``wire_*`` function then connects one group of events to
it, so every group can be read (and changed) without the others.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import gradio as gr
from gradio.events import Dependency

from rea_core import REAError, Thresholds
from rea_core.methods import get_strategy

from ...state import AppEngine, ColumnState
from ...thresholds import threshold_panel, wire_thresholds
from . import handlers
from .examples import EXAMPLES

SIDES = (0, 1)
DEFAULT_STRATEGIES = ("rea", "vanilla")
CHAT_HEIGHT = 360  # px: with the header, sliders and examples, the message box stays on a 1000 px screen
PREFILL_NOTE_TOKENS = 256  # shorter messages reach their first word in about a second: no note
STILL_ANSWERING = "Still answering the last message: yours stays in the box. Press Send once both replies are done."
RESTORE_JS = "(restore, current) => (restore && !(current || '').trim()) ? restore : current"


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
    examples: list[gr.Button]
    message: gr.Textbox
    send: gr.Button
    stop: gr.Button
    notice: gr.HTML  # errors, Stop and progress, next to the message box
    restore: gr.Textbox  # hidden: a message that was not answered, put back into an empty message box
    reset: gr.Button
    load_demo: gr.Button
    reanswer: gr.Button
    new_session: gr.Button
    save: gr.Button
    load: gr.UploadButton
    saved: gr.File
    tau_low: gr.Slider  # the tab's "Memory thresholds" panel (``app.thresholds.threshold_panel``)
    tau_high: gr.Slider
    tau_note: gr.Markdown
    moved: Dependency  # a threshold moved (``app.thresholds.wire_thresholds``), the sliders already ordered

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


def build_compare_tab(engine: AppEngine):
    """Lay out and wire the tab; returns the page-load event's function and outputs, and the tab's two
    threshold sliders (the function's inputs)."""
    ui = lay_out(engine)
    wire_sending(ui, engine)
    wire_conversation_actions(ui, engine)
    wire_view_settings(ui, engine)
    wire_strategy_controls(ui, engine)
    wire_instructional_memory(ui, engine)
    wire_save_and_load(ui, engine)

    def init(lo, hi):
        return stored_with_views(ui, engine, ensure_columns(engine, None), Thresholds.ordered(lo, hi))

    return init, [ui.columns, *ui.view_outputs], ui.tau_low, ui.tau_high


# -- layout ----------------------------------------------------------------------------------------


def lay_out(engine: AppEngine) -> CompareUI:
    """Create the tab's components (in page order) and return them; no events yet (but the thresholds'
    ordering in the browser, which the re-decide chains onto)."""
    columns = gr.State(None)
    pending = gr.State(None)
    with gr.Row(elem_id="examples", elem_classes="rea-examples"):
        examples = [
            gr.Button(label, size="sm", scale=0, elem_id=f"example-{number}")
            for number, (label, _) in enumerate(EXAMPLES)
        ]
        load_demo = gr.Button("The paper's H.1 demo (9 turns)", size="sm", scale=0, elem_id="load-demo")
    with gr.Row(equal_height=False, elem_id="chats"):
        chats = [lay_out_chat(engine, side) for side in SIDES]
    with gr.Row(elem_id="input-row"):
        message = gr.Textbox(
            placeholder="Message both columns",
            show_label=False,
            scale=6,
            min_width=150,
            elem_id="message",
            max_lines=6,
        )
        send = gr.Button("Send", variant="primary", scale=1, min_width=60, elem_id="send")
        stop = gr.Button("Stop", variant="stop", scale=1, min_width=60, elem_id="stop")
    notice = gr.HTML(elem_id="message-notice")
    restore = gr.Textbox(visible="hidden", elem_id="message-restore")
    with gr.Row(elem_id="conversation-actions"):
        reset = gr.Button("Reset", size="sm", elem_id="reset")
        reanswer = gr.Button("Re-answer with these thresholds", size="sm", elem_id="reanswer")
        new_session = gr.Button(size="sm", elem_id="new-session", **new_session_props(engine, DEFAULT_STRATEGIES))
        save = gr.Button("Save conversation", size="sm", elem_id="save")
        load = gr.UploadButton("Load conversation", size="sm", file_types=[".json"], elem_id="load")
    saved = gr.File(label="saved conversation", visible=False, elem_id="saved-file")
    tau_low, tau_high, tau_note = threshold_panel(engine.config.tau_low, engine.config.tau_high)
    moved = wire_thresholds(tau_low, tau_high, tau_note)
    with gr.Row():
        strategies = [
            gr.Dropdown(
                [(handlers.strategy_title(name), name) for name in engine.strategy_names()],  # "REA", not "rea"
                value=DEFAULT_STRATEGIES[side],
                label=f"{('left', 'right')[side]} column's strategy",
                elem_id=f"strategy-{side}",
            )
            for side in SIDES
        ]
        form = gr.Radio(
            [("measured best", "auto"), ("latent vectors", "latent"), ("text-compressed", "text")],
            value="auto",
            label="REA's compressed replies (from the next reply on)",
            elem_id="reply-form",
        )
    with gr.Row(equal_height=False, elem_id="column-views"):
        views = [lay_out_views(engine, side) for side in SIDES]
    sides = [
        ColumnUI(strategy=strategy, error=error, chat=chat, **view)
        for strategy, (chat, error), view in zip(strategies, chats, views)
    ]
    return CompareUI(
        columns=columns,
        pending=pending,
        form=form,
        sides=sides,
        examples=examples,
        message=message,
        send=send,
        stop=stop,
        notice=notice,
        restore=restore,
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


def lay_out_chat(engine: AppEngine, side: int) -> tuple[gr.Chatbot, gr.HTML]:
    """One column's conversation, titled by its strategy, and its error line just above the message box."""
    with gr.Column(elem_id=f"column-{side}", min_width=300):
        chat = gr.Chatbot(
            height=CHAT_HEIGHT,
            elem_id=f"chat-{side}",
            elem_classes="rea-chat",
            buttons=["copy_all"],  # its trash icon starts this column afresh (wire_conversation_actions)
            feedback_options=None,
            sanitize_html=True,
            **chat_props(DEFAULT_STRATEGIES[side]),
        )
        error = gr.HTML(elem_id=f"error-{side}")
    return chat, error


def lay_out_views(engine: AppEngine, side: int) -> dict:
    """One column's prompt view, retrieval chart and IM panel, below the message box."""
    uses_im = engine.strategy(DEFAULT_STRATEGIES[side]).uses_instructional_memory
    with gr.Column(elem_id=f"views-{side}"):
        with gr.Accordion("Prompt structure (what the generator received)", open=True):
            prompt = gr.HTML(elem_id=f"prompt-{side}")
        with gr.Accordion("Retrieval scores of the latest query", open=True):
            chart = gr.Plot(elem_id=f"chart-{side}", show_label=False)
        with gr.Accordion("Instructional Memory", open=False):
            im = gr.HTML(elem_id=f"im-{side}")
            with gr.Row():
                im_text = gr.Textbox(label="add an instruction", scale=3, visible=uses_im, elem_id=f"im-text-{side}")
                im_add = gr.Button("Add", scale=1, visible=uses_im, elem_id=f"im-add-{side}")
            with gr.Row():
                im_pos = gr.Number(label="# to remove", precision=0, scale=3, visible=uses_im)
                im_remove = gr.Button("Remove", scale=1, visible=uses_im, elem_id=f"im-remove-{side}")
            im_msg = gr.Markdown(im_reason(DEFAULT_STRATEGIES[side], uses_im), elem_id=f"im-msg-{side}")
    return dict(
        prompt=prompt,
        chart=chart,
        im=im,
        im_text=im_text,
        im_add=im_add,
        im_pos=im_pos,
        im_remove=im_remove,
        im_msg=im_msg,
    )


# -- what follows a column's strategy --------------------------------------------------------------


def chat_props(name: str) -> dict:
    """A chat's title (its strategy) and what it shows while empty (what the strategy does)."""
    title = handlers.strategy_title(name)
    blurb = handlers.STRATEGY_BLURBS.get(name, "")
    return dict(label=title, show_label=True, placeholder=f"**{title}**: {blurb}" if blurb else f"**{title}**")


def im_reason(name: str, uses_im: bool) -> str:
    """Why a column has no Add / Remove controls ("" when it has them)."""
    if uses_im:
        return ""
    return f"{handlers.strategy_title(name)} keeps no Instructional Memory, so there is nothing to add or remove."


def new_session_props(engine: AppEngine, names: Sequence[str]) -> dict:
    """New session works for strategies that organize memory by session; otherwise disabled, naming them."""
    if any(get_strategy(name).uses_sittings for name in names):
        return dict(value="New session", interactive=True)
    with_sittings = [handlers.strategy_title(n) for n in engine.strategy_names() if get_strategy(n).uses_sittings]
    return dict(
        value=f"New session (for {' / '.join(with_sittings) or 'session-based strategies'})", interactive=False
    )


# -- what every event returns ----------------------------------------------------------------------


def ensure_columns(engine: AppEngine, columns: list[ColumnState] | None) -> list[ColumnState]:
    """The session's columns; a session's first event gets the default pair. A loaded conversation's
    share of the session-state cap is touched, so an active session's file is the last one dropped."""
    if columns is None:
        return [engine.new_column(name) for name in DEFAULT_STRATEGIES]
    for column in columns:
        if column.lease is not None:
            engine.session_state.get_or(column.lease, None)
    return columns


def render_views(
    ui: CompareUI, engine: AppEngine, columns, thresholds: Thresholds, message_pending: str | None = None
) -> dict:
    """Both columns' chat, prompt view, chart, IM panel and error at the given thresholds."""
    columns = ensure_columns(engine, columns)
    out = {}
    for side, column in zip(ui.sides, columns):
        prompt, chart, im, error = handlers.column_views(engine, column, thresholds)
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


def stored_with_views(ui: CompareUI, engine: AppEngine, columns: list[ColumnState], thresholds: Thresholds) -> dict:
    """Keep ``columns`` as the session's and redraw them: the usual answer of an event that changed them."""
    return {ui.columns: columns, **render_views(ui, engine, columns, thresholds)}


def model_queue(engine: AppEngine) -> dict:
    """Event settings for calls that run the model: they share one slot group with the other tabs' model calls."""
    return dict(concurrency_id="model", concurrency_limit=engine.concurrency)


def session_id(request: gr.Request | None) -> str | None:
    return request.session_hash if request else None


def streamed_chats(
    ui: CompareUI,
    engine: AppEngine,
    columns: list[ColumnState],
    texts: Sequence[str | None],
    thresholds: Thresholds,
    stopper: threading.Event,
) -> Iterator[dict]:
    """Both columns answer their message (``texts``; None: that column does not), streamed into the
    chats; Stop (``stopper``, from ``engine.replying``) ends them. A long message first shows how many
    tokens are being prefilled."""
    tokens = max((engine.models.generator.count_tokens(t) for t in texts if t), default=0)
    started, shown, ended = time.monotonic(), "", set()
    for partial in handlers.stream_columns(engine, columns, texts, thresholds, stopper):
        update = {}
        for s in SIDES:
            if texts[s] is None or s in ended:
                continue
            if partial[s] is None:  # a column that ended shows its reply (with its stats) at once
                ended.add(s)
                update[ui.sides[s].chat] = handlers.chat_messages(columns[s])
            else:
                update[ui.sides[s].chat] = handlers.chat_messages(columns[s], texts[s], partial[s])
        note = ""
        if tokens >= PREFILL_NOTE_TOKENS and not any(partial):
            waited = time.monotonic() - started
            note = f"Prefilling {tokens:,} tokens of your message before the first word… {waited:.0f} s"
        if note != shown:
            update[ui.notice], shown = handlers.notice_html(note, "progress"), note
        if update:  # an empty dict would read as one positional value
            yield update


def stopped_sides(columns: list[ColumnState]) -> list[str]:
    """The titles of the columns whose reply Stop ended; their note moves from the column to the message box."""
    stopped = []
    for column in columns:
        if column.error == handlers.STOPPED:
            column.error = ""
            stopped.append(handlers.strategy_title(column.strategy))
    return stopped


def unanswered(columns: list[ColumnState], turns_before: list[int], message: str) -> tuple[str, str]:
    """(notice, message to put back) after a send: a message no column stored goes back into the box."""
    stopped = stopped_sides(columns)
    stored = [handlers.strategy_title(c.strategy) for c, n in zip(columns, turns_before) if c.session.n_turns > n]
    if stored and not stopped:
        return "", ""
    if stored:
        return (
            f"Stopped: {' and '.join(stopped)} did not store its reply ({' and '.join(stored)} had answered). "
            "Your message is back in the box.",
            message,
        )
    if stopped:
        return "Stopped: nothing of this message was stored. Your message is back in the box.", message
    return "No column could answer (the reason is under each chat). Your message is back in the box.", message


# -- events ----------------------------------------------------------------------------------------


def wire_sending(ui: CompareUI, engine: AppEngine) -> None:
    """Send (button or Enter) shows the message at once outside the queue, then streams both replies
    in the model queue; Stop ends both replies of this browser session. A refused message stays in
    the box with the reason beside it; so does one that Stop or a failure left unanswered."""

    def accept(text, columns, request: gr.Request):
        columns = ensure_columns(engine, columns)
        if not (text or "").strip():
            return {ui.pending: None, ui.notice: ""}  # empty messages do nothing
        if engine.is_replying(session_id(request)):  # the message stays in the box (``engine.replying``)
            return {ui.pending: None, ui.notice: handlers.notice_html(STILL_ANSWERING, "progress")}
        try:
            message = handlers.check_message(engine, text)
        except REAError as exc:  # shown in the page: this event runs outside the queue, where toasts are lost
            return {ui.pending: None, ui.notice: handlers.notice_html(f"Not sent: {exc}", "error")}
        out = {ui.pending: message, ui.message: "", ui.columns: columns, ui.notice: ""}
        out.update({ui.sides[s].chat: handlers.chat_messages(columns[s], message) for s in SIDES})
        return out

    def generate(message, columns, lo, hi, chosen, request: gr.Request):
        """Stream both columns' replies; the views and stats follow when both have ended (or stopped)."""
        thresholds, columns = Thresholds.ordered(lo, hi), ensure_columns(engine, columns)
        handlers.set_reply_form(columns, chosen)
        if not message:  # refused or empty: the notice ``accept`` wrote stays
            yield {ui.pending: None, **stored_with_views(ui, engine, columns, thresholds)}
            return
        with engine.replying(session_id(request)) as stopper:
            before = [c.session.n_turns for c in columns]
            yield from streamed_chats(ui, engine, columns, [message] * len(columns), thresholds, stopper)
            notice, restore = unanswered(columns, before, message)
            yield {
                ui.pending: None,
                **stored_with_views(ui, engine, columns, thresholds),
                ui.notice: handlers.notice_html(notice),
                ui.restore: restore,
            }

    def stop_replies(request: gr.Request):
        stopping = engine.request_stop(session_id(request))
        return handlers.notice_html("Stopping…" if stopping else "Nothing is being answered.", "progress")

    gr.on(
        [ui.message.submit, ui.send.click],
        accept,
        inputs=[ui.message, ui.columns],
        outputs=[ui.pending, ui.message, ui.columns, *ui.each("chat"), ui.notice],
        queue=False,
        api_name="accept_message",
    ).then(
        generate,
        inputs=[ui.pending, ui.columns, *ui.thresholds, ui.form],
        outputs=[ui.columns, ui.pending, *ui.view_outputs, ui.notice, ui.restore],
        api_name="generate_replies",
        show_progress="hidden",  # the chats stream; nothing greys out
        **model_queue(engine),
    ).then(None, inputs=[ui.restore, ui.message], outputs=[ui.message], js=RESTORE_JS, queue=False)
    gr.on([ui.stop.click], stop_replies, inputs=None, outputs=[ui.notice], queue=False, api_name="stop")


def wire_conversation_actions(ui: CompareUI, engine: AppEngine) -> None:
    """Re-answer, the examples and the demo (streamed like Send, stopped by Stop), a new session and
    reset: each rewrites both columns' conversations and says what it did beside the message box."""
    inputs, outputs = [ui.columns, *ui.thresholds], [ui.columns, *ui.view_outputs, ui.notice]

    def reanswer_both(columns, lo, hi, chosen, request: gr.Request):
        thresholds, columns = Thresholds.ordered(lo, hi), ensure_columns(engine, columns)
        handlers.set_reply_form(columns, chosen)
        with engine.replying(session_id(request)) as stopper:  # Send waits until the whole event has ended
            texts = [handlers.take_back_latest(engine, column) for column in columns]
            notice = restore = ""
            if not any(texts):
                for column in columns:
                    column.error = ""
                notice = "Nothing to re-answer yet: send a message first."
            else:
                yield from streamed_chats(ui, engine, columns, texts, thresholds, stopper)
                if stopped_sides(columns):
                    notice = (
                        "Stopped: the re-answered turn was taken back. Its message is back in the box: press Send."
                    )
                    restore = next(t for t in texts if t)
                for column, text in zip(columns, texts):
                    if text and column.error:
                        column.error += handlers.TAKEN_BACK
            yield {
                **stored_with_views(ui, engine, columns, thresholds),
                ui.notice: handlers.notice_html(notice),
                ui.restore: restore,
            }

    def play(turns_of: Callable[[], list], what: str):
        """A scripted conversation in fresh columns (same strategies), streamed turn by turn."""

        def handler(columns, lo, hi, chosen, request: gr.Request):
            turns, thresholds = turns_of(), Thresholds.ordered(lo, hi)
            columns = [engine.new_column(c.strategy) for c in ensure_columns(engine, columns)]
            handlers.set_reply_form(columns, chosen)
            yield {
                **stored_with_views(ui, engine, columns, thresholds),
                ui.notice: handlers.notice_html(f"Playing {what}: {len(turns)} turns in fresh columns.", "progress"),
            }
            with engine.replying(session_id(request)) as stopper:  # Send waits until the whole event has ended
                for message, partial in handlers.play_turns(engine, columns, turns, thresholds, stopper):
                    yield {
                        ui.sides[s].chat: handlers.chat_messages(columns[s], message, partial[s])
                        if partial[s] is not None
                        else handlers.chat_messages(columns[s])
                        for s in SIDES
                    }
                done = min(c.session.n_turns for c in columns)
                notice = (
                    f"Stopped {what} after {done} of {len(turns)} turns; the turns before were kept."
                    if stopped_sides(columns)
                    else ""
                )
                yield {**stored_with_views(ui, engine, columns, thresholds), ui.notice: handlers.notice_html(notice)}

        return handler

    def end_sittings(columns, lo, hi):
        columns = ensure_columns(engine, columns)
        notes = [handlers.end_sitting_column(engine, column) for column in columns]
        return {
            **stored_with_views(ui, engine, columns, Thresholds.ordered(lo, hi)),
            ui.notice: handlers.notice_html(" ".join(n for n in notes if n)),
        }

    def clear_column(side: int):
        def handler(columns, lo, hi):
            columns = list(ensure_columns(engine, columns))
            columns[side] = engine.new_column(columns[side].strategy)
            title = handlers.strategy_title(columns[side].strategy)
            return {
                **stored_with_views(ui, engine, columns, Thresholds.ordered(lo, hi)),
                ui.notice: handlers.notice_html(f"{title}'s conversation was cleared; the other column's is kept."),
            }

        return handler

    def reset_both(columns, lo, hi):
        return {
            **stored_with_views(
                ui,
                engine,
                [engine.new_column(c.strategy) for c in ensure_columns(engine, columns)],
                Thresholds.ordered(lo, hi),
            ),
            ui.notice: "",
        }

    streamed = dict(show_progress="hidden", **model_queue(engine))  # the chats stream; nothing greys out
    gr.on(
        [ui.reanswer.click],
        reanswer_both,
        inputs=[*inputs, ui.form],
        outputs=[*outputs, ui.restore],
        api_name="reanswer",
        **streamed,
    ).then(None, inputs=[ui.restore, ui.message], outputs=[ui.message], js=RESTORE_JS, queue=False)
    gr.on(
        [ui.load_demo.click],
        play(lambda: handlers.demo_turns(engine), "the H.1 demo"),
        inputs=[*inputs, ui.form],
        outputs=outputs,
        api_name="load_demo",
        **streamed,
    )
    for number, (button, (_, turns)) in enumerate(zip(ui.examples, EXAMPLES)):
        button.click(
            play(lambda turns=turns: list(turns), "the example"),
            inputs=[*inputs, ui.form],
            outputs=outputs,
            api_name=f"example_{number}",
            api_visibility="undocumented",
            **streamed,
        )
    gr.on(
        [ui.new_session.click],
        end_sittings,
        inputs=inputs,
        outputs=outputs,
        api_name="new_session",
        **model_queue(engine),
    )
    gr.on([ui.reset.click], reset_both, inputs=inputs, outputs=outputs, api_name="reset")
    for side, column_ui in zip(SIDES, ui.sides):
        column_ui.chat.clear(
            clear_column(side), inputs=inputs, outputs=outputs, api_name=f"clear_{side}", api_visibility="private"
        )


def wire_view_settings(ui: CompareUI, engine: AppEngine) -> None:
    """The compressed form, the thresholds and each column's strategy: the views are redrawn at once
    (moved thresholds re-decide from cached scores) and nothing is generated."""

    def change_form(chosen, columns, lo, hi):
        columns = ensure_columns(engine, columns)
        handlers.set_reply_form(columns, chosen)
        return stored_with_views(ui, engine, columns, Thresholds.ordered(lo, hi))

    def thresholds_moved(lo, hi, columns):
        """Both columns re-decided at the sliders' values (ordered in the browser before this runs); the
        sliders are not written here, so a late answer cannot move them."""
        return render_views(ui, engine, columns, Thresholds.ordered(lo, hi))

    def strategy_changed(side: int):
        def handler(name, columns, lo, hi):
            columns = list(ensure_columns(engine, columns))
            if columns[side].strategy != name:
                columns[side] = engine.new_column(name)
            return stored_with_views(ui, engine, columns, Thresholds.ordered(lo, hi))

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


def wire_strategy_controls(ui: CompareUI, engine: AppEngine) -> None:
    """A column's title follows its strategy, and controls the strategy cannot use are hidden (IM's
    Add / Remove) or disabled (New session) with the reason shown."""

    def follow(*names):
        out = {ui.new_session: gr.Button(**new_session_props(engine, names))}
        for side, name in zip(ui.sides, names):
            uses_im = engine.strategy(name).uses_instructional_memory
            out[side.chat] = gr.Chatbot(**chat_props(name))
            out.update(
                {part: gr.update(visible=uses_im) for part in (side.im_text, side.im_add, side.im_pos, side.im_remove)}
            )
            out[side.im_msg] = im_reason(name, uses_im)
        return out

    gr.on(
        [side.strategy.change for side in ui.sides],
        follow,
        inputs=ui.each("strategy"),
        outputs=[
            ui.new_session,
            *ui.each("chat"),
            *ui.each("im_text"),
            *ui.each("im_add"),
            *ui.each("im_pos"),
            *ui.each("im_remove"),
            *ui.each("im_msg"),
        ],
        queue=False,
        show_progress="hidden",
        api_visibility="private",
    )


def wire_instructional_memory(ui: CompareUI, engine: AppEngine) -> None:
    """Each column's Add / Remove buttons edit that column's Instructional Memory by hand (refused,
    with the reason, for a strategy that keeps none)."""

    def add_instruction(column: ColumnState, text, uses_im: bool) -> str:
        return handlers.im_add(column, text, max_chars=engine.runtime.max_message_chars, uses_im=uses_im)

    def remove_instruction(column: ColumnState, position, uses_im: bool) -> str:
        return handlers.im_remove(column, position, uses_im=uses_im)

    def edit(side: int, action):
        def handler(value, columns, lo, hi):
            columns = ensure_columns(engine, columns)
            column = columns[side]
            note = action(column, value, engine.column_strategy(column).uses_instructional_memory)
            return {ui.sides[side].im_msg: note, **stored_with_views(ui, engine, columns, Thresholds.ordered(lo, hi))}

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
            edit(side, remove_instruction),
            inputs=[column_ui.im_pos, ui.columns, *ui.thresholds],
            outputs=outputs,
            api_name=f"im_remove_{side}",
            api_visibility="private",
        )


def wire_save_and_load(ui: CompareUI, engine: AppEngine) -> None:
    """Save both columns to a JSON download; load one back (a refused file replaces nothing and says
    why beside the message box)."""

    def save_both(columns):
        return gr.File(value=handlers.save_columns(engine, ensure_columns(engine, columns)), visible=True)

    def load_both(file, columns, lo, hi):
        path = file if isinstance(file, str) else file.name
        try:
            loaded = handlers.load_columns(engine, path)
        except REAError as exc:
            return {ui.columns: columns, ui.notice: handlers.notice_html(f"Not loaded: {exc}", "error")}
        columns, thresholds = list(ensure_columns(engine, columns)), Thresholds.ordered(lo, hi)
        with engine.gate.chat():  # a visitor waits on this, as on a reply: Inspect traces wait instead
            for side, column in zip(SIDES, loaded):
                handlers.retrace_loaded(engine, column, thresholds)
                columns[side] = column
        return {
            **stored_with_views(ui, engine, columns, thresholds),
            **{ui.sides[s].strategy: columns[s].strategy for s in SIDES},
            ui.notice: handlers.notice_html(handlers.loaded_notice(loaded, path)),
        }

    gr.on([ui.save.click], save_both, inputs=[ui.columns], outputs=[ui.saved], api_name="save_conversation")
    gr.on(
        [ui.load.upload],
        load_both,
        inputs=[ui.load, ui.columns, *ui.thresholds],
        outputs=[ui.columns, *ui.each("strategy"), *ui.view_outputs, ui.notice],
        api_name="load_conversation",
        **model_queue(engine),  # its latest turn is planned again: embeddings and the recognizer
    )

"""The Inspect tab, for researchers: trace a conversation file turn by turn, see the query x
exchange score heatmap and the decisions, and mark omitted exchanges an answer needed (H.3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gradio as gr

from rea_core import REAError, load_conversations, trace_conversation
from rea_core.limits import DutyCycle

from ... import annotate_auth as auth
from ...state import AppEngine
from ...views.charts import trace_heatmap
from ...views.prompt import render_prompt_view
from . import handlers as ih

MARK_COLUMNS = ["id", "annotator", "conversation", "query turn", "exchange turn", "score", "note"]


def build_inspect_tab(engine: AppEngine, tau_low: gr.Slider, tau_high: gr.Slider) -> tuple[Callable, list[gr.Dataframe]]:
    """Lay out the tab and wire it; returns (on_load, outputs) for ``demo.load``: the marks table,
    filled for signed-in people on each page load."""
    # Per browser session, dropped after REA_TEMP_TTL_S without use (a long trace holds hundreds of MB).
    conversations = gr.State(None, time_to_live=engine.limits.temp_file_ttl_s)  # (source name, [Conversation])
    trace = gr.State(None, time_to_live=engine.limits.temp_file_ttl_s)

    with gr.Row():
        example = gr.Dropdown(ih.bundled_files(engine), label="bundled example file", value=None, elem_id="inspect-example")
        upload = gr.File(label="or upload a conversation JSONL", file_types=[".jsonl"], elem_id="inspect-upload")
    with gr.Row():
        conversation = gr.Dropdown([], label="conversation", elem_id="inspect-conversation")
        run = gr.Button("Trace retrieval", variant="primary", elem_id="inspect-trace")
    status = gr.Markdown(elem_id="inspect-status")
    turn = gr.Slider(0, 1, value=0, step=1, label="query turn", elem_id="inspect-turn")
    heatmap = gr.Plot(show_label=False, elem_id="inspect-heatmap")
    decisions = gr.Dataframe(headers=["exchange turn", "score", "decision", "why", "user text"], label="decisions at this turn", interactive=False)
    with gr.Accordion("Prompt at this turn", open=False):
        prompt = gr.HTML(elem_id="inspect-prompt")
    with gr.Row():
        needed = gr.Dropdown([], label="omitted exchange that was needed", elem_id="inspect-needed")
        note = gr.Textbox(label="note (optional)")
        mark = gr.Button("Mark as needed", elem_id="inspect-mark")
    marks = gr.Dataframe(headers=MARK_COLUMNS, label="retrieval-failure marks", interactive=False, elem_id="inspect-marks")
    with gr.Row():
        export = gr.Button("Export marks (JSONL)")
        recheck = gr.Button("Re-check marks with the current policy", elem_id="inspect-recheck")
        exported = gr.File(label="marks", visible=False)
    recheck_result = gr.Markdown(elem_id="inspect-recheck-result")

    def pick_source(name: str | None, file, *, source: str):
        path = (engine.examples_dir / name) if source == "example" and name else (Path(file if isinstance(file, str) else file.name) if file else None)
        if path is None:
            return {status: ""}
        if source == "example" and name not in ih.bundled_files(engine):  # a name from the request, not a path
            return {status: "Pick one of the bundled example files.", conversation: gr.Dropdown(choices=[], value=None)}
        try:
            engine.limits.check_file_size(path)
            convs = load_conversations(path, max_chars=engine.config.max_message_chars, max_turns=engine.limits.max_turns)
        except REAError as exc:
            return {status: f"**Cannot load {path.name}:** {exc}", conversation: gr.Dropdown(choices=[], value=None)}
        ids = [c.id for c in convs]
        return {conversations: (path.name, convs), conversation: gr.Dropdown(choices=ids, value=ids[0]),
                status: f"{len(ids)} conversation(s) in {path.name}."}

    def run_trace(conv_id, loaded, lo, hi, progress=gr.Progress()):
        if not loaded or not conv_id:
            return {status: "Pick a file and a conversation first."}
        source, convs = loaded
        found = [c for c in convs if c.id == conv_id]
        if not found:
            return {status: f"No conversation {str(conv_id)[:80]!r} in {source}."}
        (conv,) = found
        try:
            pace = DutyCycle(engine.limits.trace_share)  # a long trace leaves CPU to the chats

            def on_turn(done, total):
                progress((done, total), desc="tracing", unit="turns")
                pace()

            result = trace_conversation(engine.strategy("rea", tau_low=lo, tau_high=hi), conv, on_turn=on_turn)
        except REAError as exc:
            return {status: f"**Trace failed:** {exc}"}
        last = len(result.turns) - 1
        return {trace: (source, result), turn: gr.Slider(minimum=0, maximum=max(last, 1), value=last, step=1),
                status: f"Traced {len(result.turns)} turns of {conv_id} at tau_low {lo:.2f}, tau_high {hi:.2f}.", **show_turn(last, (source, result))}

    def show_turn(index, traced):
        if not traced:
            return {prompt: render_prompt_view(None)}
        _, result = traced
        index = max(0, min(int(index), len(result.turns) - 1))
        t = result.turns[index]
        users = [x.user for x in result.turns]
        rows = [[d.turn, round(d.score, 3) if d.score is not None else None, d.resolution.value,
                 d.reason.label, users[d.turn]] for d in t.decisions]
        omitted = [(f"turn {n}: {users[n][:60]}", n) for n in t.omitted_turns()]
        return {heatmap: trace_heatmap(result, index, engine.limits.heatmap_rows), decisions: rows,
                prompt: render_prompt_view(t.plan, title=f"turn {index}"), needed: gr.Dropdown(choices=omitted, value=omitted[0][1] if omitted else None)}

    def add_mark(index, exchange_turn, text, traced, lo, hi, request: gr.Request, profile: gr.OAuthProfile | None):
        if not traced or exchange_turn is None:
            return {status: "Trace a conversation and pick an omitted exchange first."}
        try:
            message = ih.mark_needed(engine, traced, int(index), int(exchange_turn), text or "", lo, hi, annotator=auth.mark_author(request, profile))
        except REAError as exc:
            return {status: f"**Not saved:** {exc}"}
        return {status: message, marks: ih.marks_rows(engine)}

    def export_marks(request: gr.Request, profile: gr.OAuthProfile | None):
        if auth.mark_author(request, profile) is None:
            gr.Warning("Sign in to export marks.")
            return gr.File(visible=False)
        try:
            path = ih.export_marks(engine, engine.downloads.new_dir("rea-marks-"))
        except REAError as exc:
            gr.Warning(str(exc))
            return gr.File(visible=False)
        return gr.File(value=path, visible=True)

    def recheck_marks(lo, hi):
        try:
            return ih.recheck_marks(engine, lo, hi)
        except REAError as exc:
            return f"**Re-check failed:** {exc}"

    def list_marks(request: gr.Request, profile: gr.OAuthProfile | None):
        if auth.mark_author(request, profile) is None:
            return []  # annotators' names and notes are for signed-in people
        try:
            return ih.marks_rows(engine)
        except REAError as exc:
            gr.Warning(str(exc))
            return []

    example.change(lambda n: pick_source(n, None, source="example"), inputs=[example], outputs=[conversations, conversation, status], api_name="inspect_example")
    upload.upload(lambda f: pick_source(None, f, source="upload"), inputs=[upload], outputs=[conversations, conversation, status], api_name="inspect_upload")
    run.click(run_trace, inputs=[conversation, conversations, tau_low, tau_high], outputs=[trace, turn, status, heatmap, decisions, prompt, needed],
              concurrency_id="trace", concurrency_limit=1, api_name="trace")  # one trace at a time, beside (not in) the chat queue
    turn.change(show_turn, inputs=[turn, trace], outputs=[heatmap, decisions, prompt, needed], trigger_mode="always_last", api_name="show_turn", api_visibility="undocumented")
    mark.click(add_mark, inputs=[turn, needed, note, trace, tau_low, tau_high], outputs=[status, marks], api_name="mark_needed")
    export.click(export_marks, outputs=[exported], api_name="export_marks")
    recheck.click(recheck_marks, inputs=[tau_low, tau_high], outputs=[recheck_result], concurrency_id="model", concurrency_limit=engine.concurrency, api_name="recheck_marks")
    return list_marks, [marks]

"""The Inspect tab, for researchers: trace a conversation file turn by turn, see the query x
exchange score heatmap and the decisions, and mark omitted exchanges an answer needed (H.3)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path

import gradio as gr
from gradio.events import Dependency

from rea_core import REAError, Resolution, Thresholds, prompt_time
from rea_core.limits import DutyCycle
from rea_core.retrieval import redecide_turn, trace_conversation

from ... import annotate_auth as auth
from ...session_state import StateDropped
from ...state import AppEngine
from ...views.answer import evidence_rows, omitted_choices, render_answer
from ...views.charts import trace_heatmap
from ...views.prompt import render_prompt_view
from ...views.reasons import reason_label
from . import handlers as ih
from .display import fit_heatmap, is_upload_entry, upload_entry

NO_QUESTIONS = (
    "No question with a gold answer in this conversation. Load a LoCoMo JSON file, or a conversation JSONL "
    'whose question turns carry "answer" (and "needed": the evidence exchanges).'
)
MARK_COLUMNS = ["id", "annotator", "conversation", "query turn", "exchange turn", "score", "note"]


@dataclass
class InspectUI:
    """Every component the tab's events read or write."""

    # Heavy values live in engine.session_state (one memory cap over all sessions); these hold Handles.
    conversations: gr.State  # Handle of handlers.LoadedFile: the picked file's conversations and questions
    trace: gr.State  # Handle of (source name, trace result) of the traced conversation
    example: gr.Dropdown
    upload: gr.File
    conversation: gr.Dropdown
    run: gr.Button
    status: gr.Markdown
    turn: gr.Slider
    heatmap: gr.Plot
    decisions: gr.Dataframe
    prompt: gr.HTML
    needed: gr.Dropdown
    note: gr.Textbox
    mark: gr.Button
    marks: gr.Dataframe
    export: gr.Button
    recheck: gr.Button
    recheck_stop: gr.Button  # ends a running re-check between its steps
    exported: gr.File
    recheck_result: gr.Markdown
    answers_note: gr.Markdown  # the Answers panel: what it holds, or why not
    question: gr.Dropdown
    ask: gr.Button
    answer_view: gr.HTML
    evidence: gr.Dataframe
    answer_prompt: gr.HTML
    evidence_needed: gr.Dropdown
    evidence_note: gr.Textbox
    evidence_mark: gr.Button
    answer: gr.State  # qa.QuestionAnswer shown, for its mark
    sessions: gr.State  # Handle of {conversation id: ChatSession} embedded for answering, per loaded file
    tau_low: gr.Slider  # shared with the Compare tab
    tau_high: gr.Slider
    moved: Dependency  # a threshold moved (``thresholds.wire_thresholds``), the sliders already ordered


def build_inspect_tab(
    engine: AppEngine, tau_low: gr.Slider, tau_high: gr.Slider, moved: Dependency
) -> tuple[Callable, list[gr.Dataframe]]:
    """Lay out the tab and wire it; returns (on_load, outputs) for ``demo.load``: the marks table,
    filled for signed-in people on each page load."""
    ui = lay_out(engine, tau_low, tau_high, moved)
    wire_tracing(ui, engine)
    list_marks = wire_marks(ui, engine)
    wire_answers(ui, engine)
    return list_marks, [ui.marks]


def lay_out(engine: AppEngine, tau_low: gr.Slider, tau_high: gr.Slider, moved: Dependency) -> InspectUI:
    """Create the tab's components (in page order) and return them; no events yet."""
    # Handles into engine.session_state (a long trace holds hundreds of MB): its values go when the
    # cap needs room or after REA_SESSION_TTL_S unused, and with the browser session.
    ttl, release = engine.limits.session_state_ttl_s, engine.session_state.release
    conversations = gr.State(None, time_to_live=ttl, delete_callback=release)
    trace = gr.State(None, time_to_live=ttl, delete_callback=release)
    answer = gr.State(None, time_to_live=ttl)
    sessions = gr.State(None, time_to_live=ttl, delete_callback=release)

    with gr.Row():
        example = gr.Dropdown(
            ih.bundled_files(engine), label="bundled example file", value=None, elem_id="inspect-example"
        )
        upload = gr.File(
            label="or upload a conversation JSONL, a LoCoMo JSON file, or a chat saved by Compare (.json)",
            file_types=[".jsonl", ".json"],
            elem_id="inspect-upload",
        )
    with gr.Row():
        conversation = gr.Dropdown([], label="conversation", elem_id="inspect-conversation")
        run = gr.Button("Trace retrieval", variant="primary", elem_id="inspect-trace")
    status = gr.Markdown(elem_id="inspect-status")
    turn = gr.Slider(0, 1, value=0, step=1, label="query turn", elem_id="inspect-turn")
    heatmap = gr.Plot(show_label=False, elem_id="inspect-heatmap")
    decisions = gr.Dataframe(
        headers=["exchange turn", "score", "decision", "why", "user text", "time"],
        label="decisions at this turn",
        interactive=False,
        elem_id="inspect-decisions",
    )
    with gr.Accordion("Prompt at this turn", open=False):
        prompt = gr.HTML(elem_id="inspect-prompt")
    with gr.Row():
        needed = gr.Dropdown([], label="omitted exchange that was needed", elem_id="inspect-needed")
        note = gr.Textbox(label="note (optional)")
        mark = gr.Button("Mark as needed", elem_id="inspect-mark")
    with gr.Accordion("Answers", open=False):
        answers_note = gr.Markdown(NO_QUESTIONS, elem_id="inspect-answers-note")
        with gr.Row():
            question = gr.Dropdown([], label="question", elem_id="inspect-question")
            ask = gr.Button("Answer with REA", variant="primary", elem_id="inspect-ask")
        answer_view = gr.HTML(render_answer(None), elem_id="inspect-answer")
        evidence = gr.Dataframe(
            headers=["exchange turn", "time", "score", "decision", "why", "user text"],
            label="the question's evidence exchanges: REA's decisions",
            interactive=False,
            elem_id="inspect-evidence",
        )
        with gr.Accordion("Prompt of this question", open=False):
            answer_prompt = gr.HTML(elem_id="inspect-answer-prompt")
        with gr.Row():
            evidence_needed = gr.Dropdown([], label="omitted evidence exchange", elem_id="inspect-evidence-needed")
            evidence_note = gr.Textbox(label="note (optional)")
            evidence_mark = gr.Button("Mark as needed", elem_id="inspect-evidence-mark")
    marks = gr.Dataframe(
        headers=MARK_COLUMNS, label="retrieval-failure marks", interactive=False, elem_id="inspect-marks"
    )
    with gr.Row():
        export = gr.Button("Export marks (JSONL)")
        recheck = gr.Button("Re-check marks with the current policy", elem_id="inspect-recheck")
        recheck_stop = gr.Button("Stop re-check", variant="stop", elem_id="inspect-recheck-stop")
        exported = gr.File(label="marks", visible=False)
    recheck_result = gr.Markdown(elem_id="inspect-recheck-result")
    return InspectUI(
        conversations=conversations,
        trace=trace,
        example=example,
        upload=upload,
        conversation=conversation,
        run=run,
        status=status,
        turn=turn,
        heatmap=heatmap,
        decisions=decisions,
        prompt=prompt,
        needed=needed,
        note=note,
        mark=mark,
        marks=marks,
        export=export,
        recheck=recheck,
        recheck_stop=recheck_stop,
        exported=exported,
        recheck_result=recheck_result,
        answers_note=answers_note,
        question=question,
        ask=ask,
        answer_view=answer_view,
        evidence=evidence,
        answer_prompt=answer_prompt,
        evidence_needed=evidence_needed,
        evidence_note=evidence_note,
        evidence_mark=evidence_mark,
        answer=answer,
        sessions=sessions,
        tau_low=tau_low,
        tau_high=tau_high,
        moved=moved,
    )


def wire_tracing(ui: InspectUI, engine: AppEngine) -> None:
    """Pick a file and a conversation, trace it (one trace at a time, paced), then step through its turns."""

    def cleared(status: str) -> dict:
        """A file that cannot be used: its reason, and nothing left on screen from the previous one."""
        return {
            ui.status: status,
            ui.conversations: None,
            ui.conversation: gr.Dropdown(choices=[], value=None),
            **cleared_trace(),
            **questions_of(None, None),
        }

    def cleared_trace() -> dict:
        return {
            ui.trace: None,
            ui.heatmap: None,
            ui.decisions: [],
            ui.prompt: render_prompt_view(None),
            ui.needed: gr.Dropdown(choices=[], value=None),
        }

    store = engine.session_state

    def pick_source(name: str | None, file, old: list, *, source: str):
        """``old``: the handles of this session's previous file, trace and answers cache, released.

        The picker and the drop zone show the file now loaded, whichever chose it: an upload reads
        "your upload: NAME" in the picker, an example empties the drop zone."""
        if source == "example" and is_upload_entry(name):
            return {ui.status: gr.skip()}  # the upload shown already, picked again
        bundled = ih.bundled_paths(engine)  # an example's name comes from the request: looked up, never a path
        if source == "example":
            path = bundled.get(name) if isinstance(name, str) else None
        else:
            path = Path(file if isinstance(file, str) else file.name) if file else None
        if path is None and not (source == "example" and name):
            return {ui.status: ""}
        for handle in old:
            store.release(handle)
        shown = (
            {ui.example: gr.Dropdown(choices=list(bundled)), ui.upload: None}
            if source == "example"
            else {ui.example: gr.Dropdown(choices=[*bundled, upload_entry(path.name)], value=upload_entry(path.name))}
        )
        if path is None:  # an example name that names no bundled file
            return cleared("Pick one of the bundled example files.") | shown
        try:
            loaded = ih.read_file(engine, path)
            handle = store.put(loaded, what=f"the file {path.name}")
        except StateDropped as exc:
            return cleared(f"**Cannot load {escape(path.name)}:** {escape(str(exc))}.") | shown
        except REAError as exc:  # the message quotes the file (ids, names): escaped as all user text
            message = escape(ih.without_folders(str(exc), path))
            return cleared(f"**Cannot load {escape(path.name)}:** {message}") | shown
        ids = [c.id for c in loaded.conversations]
        asked = sum(len(c.queries) for c in loaded.questions.values())
        note = f" {asked} question(s) with a gold answer (see Answers)." if asked else ""
        if loaded.note:
            note += f" Answers: {escape(ih.without_folders(loaded.note, path))}"
        return {
            ui.conversations: handle,
            ui.conversation: gr.Dropdown(choices=ids, value=ids[0]),
            ui.status: f"{len(ids)} conversation(s) in {escape(path.name)}.{note}",
            **cleared_trace(),
            **questions_of(loaded, ids[0]),
            **shown,
        }

    def run_trace(conv_id, file, old_trace, lo, hi, progress=gr.Progress()):
        if not file or not conv_id:
            return {ui.status: "Pick a file and a conversation first."}
        try:
            loaded = store.get(file)
        except StateDropped as exc:
            return {ui.status: f"**{escape(str(exc))}.**"}
        source, convs = loaded.source, loaded.conversations
        found = [c for c in convs if c.id == conv_id]
        if not found:
            return {ui.status: f"No conversation {escape(repr(str(conv_id)[:80]))} in {escape(source)}."}
        (conv,) = found
        try:
            pace = DutyCycle(engine.limits.trace_share)  # a long trace leaves CPU to the chats

            def on_turn(done, total):
                progress((done, total), desc="tracing", unit="turns")
                pace()

            thresholds = Thresholds(lo, hi)
            result = trace_conversation(
                engine.strategy("rea", thresholds),
                conv,
                on_turn=on_turn,
                turn_gate=engine.gate.background,  # each turn waits while a chat runs: chats first
                budget_s=engine.limits.trace_budget_s,
            )
        except REAError as exc:
            return {ui.status: f"**Trace failed:** {escape(exc.public)}"}
        try:
            traced = store.put((source, result), what=f"the trace of {conv_id}", replaces=old_trace)
        except StateDropped as exc:
            return {ui.status: f"**Trace not kept:** {escape(str(exc))}.", ui.trace: None}
        last = len(result.turns) - 1
        done = f"Traced {len(result.turns)} turns of {conv_id}" if not result.note else f"Stopped: {result.note}"
        done = escape(done)  # the id is the file's text (a Markdown component renders HTML)
        return {
            ui.trace: traced,
            ui.turn: gr.Slider(minimum=0, maximum=max(last, 1), value=last, step=1),
            ui.status: f"{done} at tau_low {thresholds.low:.2f}, tau_high {thresholds.high:.2f}.",
            **turn_views(last, result, thresholds),
        }

    def decided(index: int, result, thresholds: Thresholds) -> dict:
        """The decisions table, prompt view and omitted choices of turn ``index`` at the sliders'
        thresholds: re-decided from the traced scores, no model call."""
        plan, decisions = redecide_turn(engine.strategy("rea"), result, index, thresholds)
        users = [x.user for x in result.turns]
        times = [prompt_time(x.time) if x.time else "" for x in result.turns]  # "" where the file gave none
        rows = [
            [
                d.turn,
                round(d.score, 3) if d.score is not None else None,
                d.resolution.value,
                reason_label(d.resolution, d.reason),
                users[d.turn],
                times[d.turn],
            ]
            for d in decisions
        ]
        omitted = [
            (f"turn {d.turn}: {users[d.turn][:60]}", d.turn) for d in decisions if d.resolution is Resolution.OMIT
        ]
        return {
            ui.decisions: rows,
            ui.prompt: render_prompt_view(
                plan, title=f"turn {index} at tau_low {thresholds.low:.2f}, tau_high {thresholds.high:.2f}"
            ),
            ui.needed: gr.Dropdown(choices=omitted, value=omitted[0][1] if omitted else None),
        }

    def questions_of(loaded, conv_id, old_sessions=None) -> dict:
        """The Answers panel for a newly picked file or conversation: its questions, nothing answered
        (``old_sessions``, the previous answers cache, released)."""
        store.release(old_sessions)
        choices = ih.question_choices(loaded, conv_id)
        return {
            ui.question: gr.Dropdown(choices=choices, value=choices[0][1] if choices else None),
            ui.answers_note: f"{len(choices)} question(s) with a gold answer in this conversation."
            if choices
            else NO_QUESTIONS,
            ui.sessions: None,
            **shown_answer(ui, None),
        }

    def picked_conversation(conv_id, file, old_sessions):
        try:
            loaded = store.get(file) if file else None
        except StateDropped as exc:
            return {ui.answers_note: f"**{escape(str(exc))}.**"}
        return questions_of(loaded, conv_id, old_sessions)

    answers = [ui.question, ui.answers_note, ui.sessions, ui.answer, ui.answer_view, ui.evidence, ui.answer_prompt]
    answers.append(ui.evidence_needed)
    picked = [ui.conversations, ui.conversation, ui.status, ui.trace, ui.heatmap, ui.decisions, ui.prompt, ui.needed]
    picked += [*answers, ui.example, ui.upload]

    def turn_views(index, result, thresholds: Thresholds) -> dict:
        index = max(0, min(int(index), len(result.turns) - 1))
        heatmap = fit_heatmap(trace_heatmap(result, index, engine.limits.heatmap_rows))
        return {ui.heatmap: heatmap, **decided(index, result, thresholds)}

    def show_turn(index, traced, lo, hi):
        if not traced:
            return {ui.prompt: render_prompt_view(None)}
        try:
            _, result = store.get(traced)
        except StateDropped as exc:
            return {ui.status: f"**{escape(str(exc))}.**"}
        return turn_views(index, result, Thresholds.ordered(lo, hi))  # ordered in the browser already

    def thresholds_moved(index, traced, lo, hi):
        if not traced:
            return {ui.prompt: gr.skip()}  # nothing traced yet
        try:
            _, result = store.get(traced)
        except StateDropped as exc:
            return {ui.status: f"**{escape(str(exc))}.**"}
        thresholds = Thresholds.ordered(lo, hi)  # ordered in the browser already
        return decided(max(0, min(int(index), len(result.turns) - 1)), result, thresholds)

    held = [ui.conversations, ui.trace, ui.sessions]  # released when another file is picked
    ui.example.input(  # a person's pick only: the upload sets the picker too
        lambda n, *old: pick_source(n, None, old, source="example"),
        inputs=[ui.example, *held],
        outputs=picked,
        api_name="inspect_example",
    )
    ui.upload.upload(
        lambda f, *old: pick_source(None, f, old, source="upload"),
        inputs=[ui.upload, *held],
        outputs=picked,
        api_name="inspect_upload",
    )
    ui.conversation.change(
        picked_conversation,
        inputs=[ui.conversation, ui.conversations, ui.sessions],
        outputs=answers,
        api_name="inspect_questions",
        api_visibility="undocumented",
    )
    ui.run.click(
        run_trace,
        inputs=[ui.conversation, ui.conversations, ui.trace, ui.tau_low, ui.tau_high],
        outputs=[ui.trace, ui.turn, ui.status, ui.heatmap, ui.decisions, ui.prompt, ui.needed],
        concurrency_id="trace",
        concurrency_limit=1,
        api_name="trace",
    )  # one trace at a time, beside (not in) the chat queue
    ui.turn.change(
        show_turn,
        inputs=[ui.turn, ui.trace, ui.tau_low, ui.tau_high],
        outputs=[ui.heatmap, ui.decisions, ui.prompt, ui.needed, ui.status],
        trigger_mode="always_last",
        api_name="show_turn",
        api_visibility="undocumented",
    )
    ui.moved.then(  # the shared sliders re-decide the shown turn as they re-decide the Compare tab's columns
        thresholds_moved,
        inputs=[ui.turn, ui.trace, ui.tau_low, ui.tau_high],
        outputs=[ui.decisions, ui.prompt, ui.needed, ui.status],
        trigger_mode="always_last",
        concurrency_limit=None,
        show_progress="hidden",
        api_name="inspect_thresholds",
        api_visibility="undocumented",
    )


def wire_marks(ui: InspectUI, engine: AppEngine) -> Callable:
    """Mark an omitted exchange as needed, export the marks, re-check them with the current policy;
    returns the page-load function that fills the marks table."""

    def add_mark(index, exchange_turn, text, traced, lo, hi, request: gr.Request, profile: gr.OAuthProfile | None):
        if not traced or exchange_turn is None:
            return {ui.status: "Trace a conversation and pick an omitted exchange first."}
        try:
            message = ih.mark_needed(
                engine,
                engine.session_state.get(traced),
                int(index),
                int(exchange_turn),
                text or "",
                Thresholds.ordered(lo, hi),
                annotator=auth.mark_author(request, profile),
                session_hash=request.session_hash,
            )
        except REAError as exc:
            return {ui.status: f"**Not saved:** {exc}"}
        return {ui.status: message, ui.marks: visible_marks(engine, request, profile)}

    def list_marks(request: gr.Request, profile: gr.OAuthProfile | None) -> list[list]:
        return visible_marks(engine, request, profile)

    def export_marks(request: gr.Request, profile: gr.OAuthProfile | None):
        reader = auth.marks_reader(request, profile)
        if reader is None:
            gr.Warning("Sign in to export marks.")
            return gr.File(visible=False)
        try:
            path = ih.export_marks(engine, engine.downloads.new_dir("rea-marks-"), owner=reader.owner)
        except REAError as exc:
            gr.Warning(str(exc))
            return gr.File(visible=False)
        return gr.File(value=path, visible=True)

    rechecks: dict[str, threading.Event] = {}  # browser session -> the stop flag of its running re-check
    rechecks_lock = threading.Lock()

    def recheck_marks(lo, hi, request: gr.Request, profile: gr.OAuthProfile | None, progress=gr.Progress()):
        reader = auth.marks_reader(request, profile)
        if reader is None:
            return "**Not re-checked:** sign in to re-check marks (it re-checks your own marks)."
        stop, key = threading.Event(), request.session_hash or ""
        with rechecks_lock:
            rechecks[key] = stop
        try:
            return ih.recheck_marks(
                engine,
                Thresholds(lo, hi),
                owner=reader.owner,
                on_progress=lambda done, total: progress((done, total), desc="re-checking", unit="steps"),
                stop=stop,
            )
        except REAError as exc:
            return f"**Re-check failed:** {exc}"
        finally:
            with rechecks_lock:
                if rechecks.get(key) is stop:
                    del rechecks[key]

    def stop_recheck(request: gr.Request):
        """Set this session's stop flag: the re-check ends before its next step (a cancelled event's
        thread would otherwise run on), and says what it covered."""
        with rechecks_lock:
            stop = rechecks.get(request.session_hash or "")
        if stop is None:
            return gr.skip()
        stop.set()
        return "Stopping the re-check…"

    ui.mark.click(
        add_mark,
        inputs=[ui.turn, ui.needed, ui.note, ui.trace, ui.tau_low, ui.tau_high],
        outputs=[ui.status, ui.marks],
        api_name="mark_needed",
    )
    ui.export.click(export_marks, outputs=[ui.exported], api_name="export_marks")
    rechecking = ui.recheck.click(
        recheck_marks,
        inputs=[ui.tau_low, ui.tau_high],
        outputs=[ui.recheck_result],
        concurrency_id="trace",
        concurrency_limit=1,
        api_name="recheck_marks",
    )  # background work beside (not in) the chat queue, one at a time with traces
    ui.recheck_stop.click(
        stop_recheck,
        outputs=[ui.recheck_result],
        cancels=[rechecking],
        concurrency_limit=None,
        api_name="stop_recheck",
    )
    return list_marks


def visible_marks(engine: AppEngine, request: gr.Request, profile: gr.OAuthProfile | None) -> list[list]:
    """The marks table for this caller: their own marks, every annotator's for an adjudicator
    (``annotate_auth.marks_reader``); none without a login where sign-in is configured."""
    reader = auth.marks_reader(request, profile)
    if reader is None:
        return []  # annotators' names and notes are for signed-in people
    try:
        return ih.marks_rows(engine, owner=reader.owner)
    except REAError as exc:
        gr.Warning(str(exc))
        return []


def shown_answer(ui: InspectUI, answer, *, number: int | None = None) -> dict:
    """The Answers panel showing ``answer`` (a ``qa.QuestionAnswer``; None: empty), question ``number``
    (counted from 1)."""
    title = "" if answer is None else f"question at tau_low {answer.tau_low:.2f}, tau_high {answer.tau_high:.2f}"
    omitted = omitted_choices(answer)
    return {
        ui.answer: answer,
        ui.answer_view: render_answer(answer, number=number),
        ui.evidence: evidence_rows(answer),
        ui.answer_prompt: render_prompt_view(
            None if answer is None else answer.plan,
            prompt_tokens=None if answer is None else answer.prompt_tokens,
            title=title,
        ),
        ui.evidence_needed: gr.Dropdown(choices=omitted, value=omitted[0][1] if omitted else None),
    }


def wire_answers(ui: InspectUI, engine: AppEngine) -> None:
    """Answer a loaded question from REA's prompt at the sliders' thresholds (a model call, on the model
    queue), and mark an omitted evidence exchange of it as needed."""

    store = engine.session_state

    def ask(conv_id, index, file, cache, lo, hi):
        if not file or conv_id is None or index is None:
            return {ui.answers_note: "Load a file with questions and pick one first."}
        sessions = store.get_or(cache, {})  # a cache: dropped, it is rebuilt
        answer = failed = None
        try:
            loaded = store.get(file)
            thresholds = Thresholds.ordered(lo, hi)  # ordered in the browser already
            answer = ih.answer_question(engine, loaded, conv_id, int(index), thresholds, sessions)
        except REAError as exc:
            failed = f"**Not answered:** {escape(exc.public)}"  # no model server URL
        try:  # kept even when the answer ran out of time: the exchanges it embedded are reused
            cache = store.update(cache, sessions) if cache in store else store.put(sessions, what="the answers cache")
        except StateDropped:
            cache = None  # larger than the cap leaves: answered, not kept
        if failed:
            return {ui.answers_note: failed, ui.sessions: cache}
        number = int(index) + 1  # the picker's value is the 0-based index; people count from 1
        return {
            ui.answers_note: f"Answered question {number} of {escape(str(conv_id))}.",
            ui.sessions: cache,
            **shown_answer(ui, answer, number=number),
        }

    def mark(exchange_turn, text, answer, file, request: gr.Request, profile: gr.OAuthProfile | None):
        if answer is None or file is None or exchange_turn is None:
            return {ui.answers_note: "Answer a question and pick one of its omitted evidence exchanges first."}
        try:
            message = ih.mark_question_needed(
                engine,
                store.get(file),
                answer,
                int(exchange_turn),
                text or "",
                annotator=auth.mark_author(request, profile),
                session_hash=request.session_hash,
            )
        except REAError as exc:
            return {ui.answers_note: f"**Not saved:** {escape(str(exc))}"}
        return {ui.answers_note: escape(message), ui.marks: visible_marks(engine, request, profile)}

    ui.ask.click(
        ask,
        inputs=[ui.conversation, ui.question, ui.conversations, ui.sessions, ui.tau_low, ui.tau_high],
        outputs=[
            ui.answers_note,
            ui.sessions,
            ui.answer,
            ui.answer_view,
            ui.evidence,
            ui.answer_prompt,
            ui.evidence_needed,
        ],
        concurrency_id="model",
        concurrency_limit=engine.concurrency,
        api_name="answer_question",
    )
    ui.evidence_mark.click(
        mark,
        inputs=[ui.evidence_needed, ui.evidence_note, ui.answer, ui.conversations],
        outputs=[ui.answers_note, ui.marks],
        api_name="mark_question_needed",
    )

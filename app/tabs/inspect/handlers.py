"""Store-facing functions of the Inspect tab: retrieval-failure marks in the annotations database."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from rea_core import REAError, Thresholds
from rea_core.conversations import turn_record
from rea_core.limits import BudgetSpent, WorkBudget

from ...state import AppEngine
from ...store_guard import guard, storable, storable_note
from .quota import MarkQuotaExceeded, user_quota_message

log = logging.getLogger(__name__)


class MarkError(REAError):
    """A mark that was refused (no sign-in, a turn that does not exist) or not stored (database
    locked or down); the message says which, for a visitor."""


class AnswerError(REAError):
    """A question that cannot be answered (not in the loaded file); the message says why, for a visitor."""


def bundled_paths(engine: AppEngine) -> dict[str, Path]:
    """The example files Inspect offers, by name: conversation JSONL and LoCoMo JSON in ``examples/``
    (where the repository is at hand) and the LoCoMo sample packaged with rea_core (in any install)."""
    from rea_core.evals import locomo_sample

    folder = engine.examples_dir
    found = {
        p.name: p
        for p in (folder.iterdir() if folder.is_dir() else ())
        if p.is_file() and p.suffix in (".jsonl", ".json")
    }
    sample = locomo_sample()
    found.setdefault(sample.name, sample)
    return dict(sorted(found.items()))


def bundled_files(engine: AppEngine) -> list[str]:
    """The names of the example files Inspect offers (``bundled_paths``)."""
    return list(bundled_paths(engine))


@dataclass(frozen=True)
class LoadedFile:
    """A picked file: its conversations (for tracing) and, beside them, the questions with a gold answer
    (LoCoMo's, or JSONL turns carrying ``"answer"``) per conversation id, for the Answers panel."""

    source: str  # the file's name, never its folder
    conversations: list
    questions: dict = field(default_factory=dict)  # conversation id -> RetrievalCase (answered questions only)
    note: str = ""  # why the questions could not be read, where the conversations could


def read_conversations(engine: AppEngine, path: Path) -> list:
    """The conversations of a JSONL file, a LoCoMo JSON file or a chat saved by Compare's Save (``.json``),
    held to the app's limits (file size, turns, characters) before any of it is used."""
    return read_file(engine, path).conversations


def _locomo_data(path: Path) -> bool:
    """Whether a ``.json`` file is LoCoMo (else it is read as a saved chat, whose errors then explain it)."""
    from rea_core.evals import is_locomo
    from rea_core.validation import parse_json, read_text

    try:
        return is_locomo(parse_json(read_text(path), where=path.name))
    except REAError:
        return False


def answered(cases) -> dict:
    """Cases by id, down to their questions with a gold answer (those without one are dropped)."""
    kept = {c.id: replace(c, queries=tuple(q for q in c.queries if q.answer)) for c in cases}
    return {cid: c for cid, c in kept.items() if c.queries}


def read_file(engine: AppEngine, path: Path) -> LoadedFile:
    """``load_file`` for a visitor: a refusal is one line naming the file by its name alone (no
    folder, no Python detail); anything unforeseen goes to the server log with its traceback."""
    from rea_core.errors import DataFormatError

    try:
        return load_file(engine, path)
    except REAError as exc:
        log.info("conversation file refused: %s", exc)
        raise DataFormatError(without_folders(str(exc), path)) from exc
    except Exception as exc:
        log.exception("conversation file %s could not be loaded", path)
        raise DataFormatError(
            f"{path.name} could not be loaded: it is damaged or in no format this app reads"
        ) from exc


def load_file(engine: AppEngine, path: Path) -> LoadedFile:
    """A conversation JSONL file (its ``"answer"`` turns are questions), a LoCoMo JSON file (one
    conversation or a list; its exchanges become a conversation, its questions kept beside it), or a
    saved chat, held to the app's limits (file size, turns, characters).

    Raises:
        DataFormatError: the file cannot be used; the message names the file and line or conversation.
    """
    from rea_core import load_conversations
    from rea_core.errors import DataFormatError
    from rea_core.evals import case_conversation, load_locomo, parse_needed_rows
    from rea_core.session import saved_conversations

    engine.limits.check_file_size(path)
    limits = {"max_chars": engine.runtime.max_message_chars, "max_turns": engine.limits.max_turns}
    if path.suffix.lower() == ".json":
        if not _locomo_data(path):
            return LoadedFile(path.name, saved_conversations(path, **limits))
        cases = load_locomo(path)
        ids = [c.id for c in cases]
        if len(set(ids)) < len(ids):
            raise DataFormatError(f"{path}: two LoCoMo conversations share a sample_id")
        conversations = [case_conversation(c, where=f"{path}: conversation {c.id}", **limits) for c in cases]
        return LoadedFile(path.name, conversations, answered(cases))
    from rea_core.conversations import read_jsonl

    conversations = load_conversations(path, **limits)
    try:  # the conversations stand even where a turn's "needed" or "answer" is malformed
        questions = answered(parse_needed_rows(read_jsonl(path), answers=True))
    except DataFormatError as exc:
        return LoadedFile(path.name, conversations, note=f"questions not read: {exc}")
    return LoadedFile(path.name, conversations, questions)


def without_folders(message: str, path: Path) -> str:
    """``message`` naming ``path`` by its file name alone: the server's upload folder is no visitor's business."""
    return message.replace(str(path), path.name).replace(str(path.parent) + os.sep, "")


def _store():
    from annotations import marks

    return marks


def mark_needed(
    engine: AppEngine,
    traced,
    query_turn: int,
    exchange_turn: int,
    note: str,
    thresholds: Thresholds,
    *,
    annotator: str | None,
    session_hash: str | None = None,
) -> str:
    """Store one mark under ``annotator`` (``annotate_auth.mark_author``: None means refused), within
    the quotas of the browser session ``session_hash`` and of the annotator (``store_mark``).

    Indices come from the request, so they are checked here, not trusted from the page.
    """
    if not annotator:
        raise MarkError("sign in on the Annotate tab to save marks: they are kept under your name")
    source, trace = traced
    if not 0 <= query_turn < len(trace.turns):
        raise MarkError(f"no query turn {query_turn}; this trace has turns 0 to {len(trace.turns) - 1}")
    turn = trace.turns[query_turn]
    decision = next((d for d in turn.decisions if d.turn == exchange_turn), None)
    if decision is None:
        raise MarkError(f"turn {query_turn} made no decision about exchange {exchange_turn}")
    needed = trace.turns[exchange_turn]

    context = [turn_record(t.user, t.reply, t.time) for t in trace.turns[: query_turn + 1]]  # times where known
    store_mark(
        engine,
        session_hash,
        annotator=annotator,
        conversation_id=trace.conversation_id,
        query_turn=query_turn,
        exchange_turn=exchange_turn,
        query_text=storable(turn.user),
        exchange_user=storable(needed.user),
        exchange_reply=storable(needed.reply),
        score=decision.score,
        tau_low=thresholds.low,
        tau_high=thresholds.high,
        note=storable_note(note, MarkError),
        source=source,
        context=json.dumps(context, ensure_ascii=False),
    )
    return f"Marked: turn {query_turn} needed omitted exchange {exchange_turn} of {trace.conversation_id}."


def store_mark(engine: AppEngine, session_hash: str | None, **fields) -> None:
    """Write one mark within the quotas: this browser session's (``session_hash``; None for a
    call from inside the server) and the annotator's (``Limits.marks_per_user`` marks and
    ``Limits.marks_mb_per_user`` MB, checked in the mark's own transaction). Over any, nothing is
    written and the message says which.

    Raises:
        MarkQuotaExceeded: Over a quota.
        MarkError: The database is locked or down.
    """
    from annotations.marks import MarkBytesQuotaError, MarkQuotaError

    key = tuple(fields[name] for name in ("annotator", "conversation_id", "query_turn", "exchange_turn"))

    def write():
        with engine.db() as db:
            limits = engine.limits
            return _store().add_failure_mark(
                db, max_marks=limits.marks_per_user, max_bytes=limits.marks_bytes_per_user, **fields
            )

    with engine.session_marks.claim(session_hash, key):
        try:
            guard(write, "mark not saved", MarkError)
        except MarkQuotaError as exc:
            in_bytes = isinstance(exc, MarkBytesQuotaError)
            limit_mb = engine.limits.marks_mb_per_user
            message = user_quota_message(exc.annotator, exc.held, limit_mb=limit_mb, in_bytes=in_bytes)
            raise MarkQuotaExceeded(message) from None


def question_choices(loaded: LoadedFile | None, conversation_id: str | None) -> list[tuple[str, int]]:
    """The Answers picker: ("N. category · question", index into the case's questions), N counted from 1
    as people count (the value stays the 0-based index)."""
    from rea_core.evals import question_label

    case = loaded.questions.get(conversation_id) if loaded and conversation_id else None
    return [] if case is None else [(f"{i + 1}. {question_label(q)}", i) for i, q in enumerate(case.queries)]


def answer_question(
    engine: AppEngine, loaded: LoadedFile, conversation_id: str, index: int, thresholds: Thresholds, sessions
):
    """Question ``index`` of a loaded conversation answered from REA's prompt at these thresholds
    (``qa.answer_question``); ``sessions`` is the browser session's cache of embedded conversations.
    The conversation and index come from the request, so they are checked here."""
    from rea_core.evals import answer_question as answer

    case = loaded.questions.get(conversation_id)
    if case is None:
        raise AnswerError(f"{loaded.source} holds no question with a gold answer for {str(conversation_id)[:80]!r}")
    if not 0 <= index < len(case.queries):
        raise AnswerError(f"no question {index + 1}; this conversation has questions 1 to {len(case.queries)}")
    strategy = engine.strategy("rea", thresholds)
    question = case.queries[index]
    budget = WorkBudget(engine.limits.answer_budget_s, what="the answer", variable="REA_ANSWER_BUDGET_S")
    with engine.gate.chat():  # a visitor waits for it: a running trace pauses between its turns
        try:
            return answer(strategy, case, question, sessions=sessions, budget=budget)  # a short answer
        except BudgetSpent as spent:
            session = sessions.get(case.id)
            embedded = 0 if session is None else session.episodes.n_embedded
            raise AnswerError(
                f"{spent.note} after embedding {embedded:,} of the {question.position:,} exchanges before "
                "this question; answer it again to go on from there (they are kept for this session)"
            ) from None


def question_mark_id(case, question) -> str:
    """The conversation id a question's marks go under: the case's own where the question is one of its
    turns (JSONL), else one per question (LoCoMo asks them all after the last exchange, so they would
    share a query turn and the export would merge their evidence)."""
    if question.position < len(case.exchanges):
        return case.id
    return f"{case.id} q{case.queries.index(question)}"


def mark_question_needed(
    engine: AppEngine,
    loaded: LoadedFile,
    answer,
    exchange_turn: int,
    note: str,
    *,
    annotator: str | None,
    session_hash: str | None = None,
) -> str:
    """Store a retrieval-failure mark for a question: REA omitted ``exchange_turn``, one of its evidence
    exchanges, from the answer's prompt. The query turn is the question's position; the stored context is
    the exchanges before it plus the question as the last user turn, with times, so the marks export (JSONL
    with ``"needed"``) carries it as it carries a traced turn's mark. Quotas as ``mark_needed``'s."""
    if not annotator:
        raise MarkError("sign in on the Annotate tab to save marks: they are kept under your name")
    case = loaded.questions.get(answer.case_id)
    if case is None:
        raise MarkError("answer the question again: its conversation is no longer loaded")
    evidence = next((e for e in answer.evidence if e.turn == exchange_turn), None)
    if evidence is None or exchange_turn not in answer.omitted_evidence():
        raise MarkError(f"exchange {exchange_turn} is not an omitted evidence exchange of this question")
    question = next((q for q in case.queries if q.text == answer.question and q.position == answer.position), None)
    if question is None:
        raise MarkError("answer the question again: it is not in the loaded file")
    position = answer.position
    context = [turn_record(user, reply, case.time_of(i)) for i, (user, reply) in enumerate(case.exchanges[:position])]
    asked = case.time_of(position) if position < len(case.exchanges) else None
    context.append(turn_record(question.text, time=asked))
    conversation_id = question_mark_id(case, question)
    user, reply = case.exchanges[exchange_turn]
    store_mark(
        engine,
        session_hash,
        annotator=annotator,
        conversation_id=conversation_id,
        query_turn=position,
        exchange_turn=exchange_turn,
        query_text=storable(question.text),
        exchange_user=storable(user),
        exchange_reply=storable(reply),
        score=evidence.score,
        tau_low=answer.tau_low,
        tau_high=answer.tau_high,
        note=storable_note(note, MarkError),
        source=loaded.source,
        context=json.dumps(context, ensure_ascii=False),
    )
    return f"Marked: the question needed omitted evidence exchange {exchange_turn} of {conversation_id}."


def marks_rows(engine: AppEngine, *, owner: str | None = None) -> list[list]:
    """The marks table: ``owner``'s marks (``annotate_auth.marks_reader``), every annotator's for None."""

    def read():
        with engine.db() as db:
            return [
                [
                    m.id,
                    m.annotator,
                    m.conversation_id,
                    m.query_turn,
                    m.exchange_turn,
                    None if m.score is None else round(m.score, 3),
                    m.note,
                ]
                for m in _store().list_failure_marks(db, annotator=owner)
            ]

    return guard(read, "marks not loaded", MarkError)


def export_marks(engine: AppEngine, folder: str, *, owner: str | None = None) -> str:
    """The marks of ``owner`` (None: every annotator's) as ``rea eval retrieval`` cases, in ``folder``."""
    path = Path(folder) / "retrieval-failure-marks.jsonl"

    def write():
        with engine.db() as db:
            _store().export_failure_marks_jsonl(db, path, annotator=owner)

    guard(write, "marks not exported", MarkError)
    return str(path)


NO_MARKS = (
    "No marks with a stored conversation yet: trace a conversation and mark an omitted exchange that was needed."
)


def recheck_marks(
    engine: AppEngine,
    thresholds: Thresholds,
    *,
    owner: str | None,
    on_progress=None,
    stop=None,
) -> str:
    """Re-run REA's current policy (these thresholds) on ``owner``'s stored marks (None: every
    annotator's, for an adjudicator) and say how many it now keeps (``evals.recheck``).

    It is background work: each step waits while a chat runs (``engine.gate.background``), its
    computing is paced to ``Limits.trace_share`` of the wall time and held to
    ``Limits.recheck_budget_s``, and ``stop`` (a ``threading.Event``) ends it between steps; an early
    end says why and how many marks it covered. ``on_progress(done, total)``: steps, for a progress bar.
    """
    from rea_core.evals import parse_needed_cases, recheck_cases
    from rea_core.limits import DutyCycle

    def read():
        with engine.db() as db:
            marks = _store()
            return marks.marks_as_conversations(marks.list_failure_marks(db, annotator=owner))

    conversations = guard(read, "marks not loaded", MarkError)
    cases = parse_needed_cases(conversations, where="stored marks")
    if not cases:
        return NO_MARKS
    strategy = engine.strategy("rea", thresholds)
    pace = DutyCycle(engine.limits.trace_share)  # leaves the CPU to chats, as a trace does

    def progressed(done: int, total: int) -> None:
        if on_progress is not None:
            on_progress(done, total)
        pace()

    result = recheck_cases(
        strategy,
        cases,
        step_gate=engine.gate.background,  # each step waits while a chat runs: chats first
        on_progress=progressed,
        budget_s=engine.limits.recheck_budget_s,
        stop=stop,
    )
    return recheck_summary(result, strategy.config.scorer, thresholds)


def recheck_summary(result, scorer: str, thresholds: Thresholds) -> str:
    """A re-check (``evals.recheck.Recheck``) in one Markdown paragraph, saying why it ended early."""
    records = result.records
    covered = f"covered **{result.marks} of {result.total_marks}** marks"
    if not records:
        return f"**Stopped:** {result.note}; it {covered}."
    fixed = sum(r["all_kept"] for r in records)
    summary = (
        f"Current policy ({scorer} scorer, tau_low {thresholds.low:.2f}, "
        f"tau_high {thresholds.high:.2f}) keeps every needed exchange for "
        f"**{fixed} of {len(records)}** marked queries "
        f"({sum(r['recall'] for r in records) / len(records):.0%} of marked exchanges), "
        f"keeping {sum(r['kept_share'] for r in records) / len(records):.0%} of their history on average."
    )
    return summary if not result.note else f"**Stopped:** {result.note}; it {covered}. {summary}"

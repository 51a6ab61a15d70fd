"""Store-facing functions of the Inspect tab: retrieval-failure marks in the annotations database."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rea_core import REAError

from ...state import AppEngine
from ...store_guard import NOTE_MAX_CHARS, guard, storable


class MarkError(REAError):
    """A mark that was refused (no sign-in, a turn that does not exist) or not stored (database
    locked or down); the message says which, for a visitor."""


def bundled_files(engine: AppEngine) -> list[str]:
    return sorted(p.name for p in engine.examples_dir.glob("*.jsonl"))


def read_conversations(engine: AppEngine, path: Path) -> list:
    """The conversations of a JSONL file, or of a chat saved by Compare's Save (``.json``), held to
    the app's limits (file size, turns, characters) before any of it is used."""
    from rea_core import load_conversations
    from rea_core.session import saved_conversations

    engine.limits.check_file_size(path)
    read = saved_conversations if path.suffix.lower() == ".json" else load_conversations
    return read(path, max_chars=engine.runtime.max_message_chars, max_turns=engine.limits.max_turns)


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
    tau_low: float,
    tau_high: float,
    *,
    annotator: str | None,
) -> str:
    """Store one mark under ``annotator`` (``annotate_auth.mark_author``: None means refused).

    Indices come from the request, so they are checked here, not trusted from the page.
    """
    if not annotator:
        raise MarkError("sign in to mark exchanges: this deployment stores marks under the signed-in name")
    source, trace = traced
    if not 0 <= query_turn < len(trace.turns):
        raise MarkError(f"no query turn {query_turn}; this trace has turns 0 to {len(trace.turns) - 1}")
    turn = trace.turns[query_turn]
    decision = next((d for d in turn.decisions if d.turn == exchange_turn), None)
    if decision is None:
        raise MarkError(f"turn {query_turn} made no decision about exchange {exchange_turn}")
    needed = trace.turns[exchange_turn]

    context = [  # conversation JSONL turns, times kept where known
        {"user": t.user, "assistant": t.reply, **({"time": t.time} if t.time else {})}
        for t in trace.turns[: query_turn + 1]
    ]

    def write():
        with engine.db() as session:
            return _store().add_failure_mark(
                session,
                annotator=annotator,
                conversation_id=trace.conversation_id,
                query_turn=query_turn,
                exchange_turn=exchange_turn,
                query_text=storable(turn.user),
                exchange_user=storable(needed.user),
                exchange_reply=storable(needed.reply),
                score=decision.score,
                tau_low=tau_low,
                tau_high=tau_high,
                note=storable(note, NOTE_MAX_CHARS),
                source=source,
                context=json.dumps(context, ensure_ascii=False),
            )

    guard(write, "mark not saved", MarkError)
    return f"Marked: turn {query_turn} needed omitted exchange {exchange_turn} of {trace.conversation_id}."


def marks_rows(engine: AppEngine) -> list[list]:
    def read():
        with engine.db() as session:
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
                for m in _store().list_failure_marks(session)
            ]

    return guard(read, "marks not loaded", MarkError)


def export_marks(engine: AppEngine, folder: str) -> str:
    path = Path(folder) / "retrieval-failure-marks.jsonl"

    def write():
        with engine.db() as session:
            _store().export_failure_marks_jsonl(session, path)

    guard(write, "marks not exported", MarkError)
    return str(path)


def recheck_marks(engine: AppEngine, tau_low: float, tau_high: float) -> str:
    """Re-run REA's current policy (these thresholds) on every stored mark: how many it now keeps."""
    from rea_core.evals.retrieval import parse_needed_cases, rea_records

    def read():
        with engine.db() as session:
            marks = _store()
            return marks.marks_as_conversations(marks.list_failure_marks(session))

    conversations = guard(read, "marks not loaded", MarkError)
    cases = parse_needed_cases(conversations, where="stored marks")
    if not cases:
        return (
            "No marks with a stored conversation yet: "
            "trace a conversation and mark an omitted exchange that was needed."
        )
    strategy = engine.strategy("rea", tau_low=tau_low, tau_high=tau_high)
    records = [r for case in cases for r in rea_records(strategy, case)]
    fixed = sum(r["all_kept"] for r in records)
    cfg = strategy.config
    return (
        f"Current policy ({cfg.scorer} scorer, tau_low {tau_low:.2f}, "
        f"tau_high {tau_high:.2f}) keeps every needed exchange for "
        f"**{fixed} of {len(records)}** marked queries "
        f"({sum(r['recall'] for r in records) / len(records):.0%} of marked exchanges), "
        f"keeping {sum(r['kept_share'] for r in records) / len(records):.0%} of their history on average."
    )

"""Retrieval traces: what HCR decided at every turn of a conversation, for finding failures (REA paper, H.3).

A trace replays a conversation through a strategy (given replies stored, missing ones left empty
unless generated) and keeps, per turn, the decisions, the plan and Instructional Memory, so a
researcher can see which earlier exchange an answer needed but did not get.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from time import perf_counter
from typing import Callable

import numpy as np

from ..conversations import Conversation
from ..memory.episodic import Exchange
from ..prompt_layout import stable_placements
from ..types import Decision, PromptPlan, Reason, Recognition, Resolution
from .thresholds import Thresholds


@dataclass(frozen=True)
class TurnTrace:
    turn: int
    user: str
    reply: str
    generated: bool
    decisions: tuple[Decision, ...]  # one per earlier exchange
    instructions: tuple[str, ...]  # IM after this turn's recognition
    plan: PromptPlan
    recognition: Recognition | None
    time: str | None = None  # when the user sent it (stored form of rea_core.timestamps), None when unknown

    def omitted_turns(self) -> list[int]:
        return [d.turn for d in self.decisions if d.resolution is Resolution.OMIT]


@dataclass(frozen=True)
class RetrievalTrace:
    conversation_id: str
    turns: tuple[TurnTrace, ...]
    note: str = ""  # why the trace ended before the conversation did ("" when it traced every turn)

    def score_matrix(self, first: int = 0, last: int | None = None) -> np.ndarray:
        """(last - first, last) scores of query turns [first, last): row = query turn, column =
        earlier exchange; NaN on and above the diagonal. The default is the whole (T, T) matrix;
        a window keeps the work per view bounded on long conversations."""
        last = len(self.turns) if last is None else last
        matrix = np.full((max(0, last - first), max(0, last)), np.nan)  # (rows, exchanges)
        for t in self.turns[first:last]:
            for d in t.decisions:
                if d.score is not None:
                    matrix[t.turn - first, d.turn] = d.score
        return matrix


def trace_conversation(
    strategy,
    conversation: Conversation,
    *,
    generate_missing: bool = False,
    latents: bool | None = None,
    on_turn: Callable[[int, int], None] | None = None,
    turn_gate: Callable[[], AbstractContextManager] | None = None,
    budget_s: float | None = None,
) -> RetrievalTrace:
    """Replay ``conversation`` through ``strategy`` and record every turn's retrieval decisions.

    Turns without an assistant reply are generated when ``generate_missing``, else stored empty
    (retrieval then sees only their user text).

    ``latents`` (default: only when replies are generated or the latent scorer decides): latent
    replies cost one codec pass per exchange under the shared generator lock (minutes for a long
    upload, blocking every other user) and change no decision of the MiniLM scorer, so a trace of
    given replies skips them and its plans show compressed exchanges as text-compressed.

    ``on_turn(done, total)`` is called after every turn: progress for a UI, or a pause that keeps a
    long trace from taking all of a shared machine.

    ``turn_gate()`` is entered around each turn (the app's ``ModelGate.background``: a turn starts
    only while no chat runs). ``budget_s`` bounds the seconds spent inside turns (waits at the gate
    and in ``on_turn`` not counted): once used up, the trace ends after that turn and its ``note``
    says so; the turns traced so far are returned. The first turn always runs.
    """
    if latents is None:
        latents = generate_missing or strategy.config.scorer == "latent"
    if not latents:
        strategy = text_replies(strategy)
    session = strategy.new_session()
    traces, busy, note, total = [], 0.0, "", len(conversation.turns)
    for done, turn in enumerate(conversation.turns, 1):
        given = turn.assistant if turn.assistant is not None else (None if generate_missing else "")
        with turn_gate() if turn_gate is not None else nullcontext():
            start = perf_counter()
            result = strategy.respond(session, turn.user, reply=given, time=turn.time)
            busy += perf_counter() - start
        traces.append(
            TurnTrace(
                turn=result.turn,
                user=turn.user,
                reply=result.reply,
                generated=result.generated,
                decisions=result.decisions,
                instructions=tuple(session.instructions.texts()),
                plan=result.plan,
                recognition=result.recognition,
                time=session.episodes.exchanges[-1].time,
            )
        )
        if on_turn is not None:
            on_turn(done, total)
        if budget_s is not None and busy >= budget_s and done < total:
            note = (
                f"traced {done} of {total} turns: the trace's time budget of {budget_s:g} s "
                "(REA_TRACE_BUDGET_S) ran out"
            )
            break
    return RetrievalTrace(conversation_id=conversation.id, turns=tuple(traces), note=note)


def text_replies(strategy):
    """``strategy`` with compressed replies as text: a trace of given replies has no latents."""
    return strategy.with_reply_form("text")


def redecide_turn(
    strategy, trace: RetrievalTrace, index: int, thresholds: Thresholds
) -> tuple[PromptPlan, tuple[Decision, ...]]:
    """Turn ``index`` of ``trace`` decided again at other thresholds from its recorded scores: no model
    call, so a view can follow live sliders (the app's Inspect tab).

    ``strategy`` is the REA strategy that traced (its window and referent rules apply again; its layout
    after the traced prompt of the turn before, as the session read it). Where the
    decisions come out as traced, the traced plan and decisions are returned unchanged; otherwise the
    plan shows compressed replies as text, as a trace of given replies does.
    """
    turn = trace.turns[index]
    if not turn.decisions or any(d.score is None for d in turn.decisions):
        return turn.plan, turn.decisions  # nothing scored, nothing to re-decide
    exchanges = [
        Exchange(turn=t.turn, user=t.user, reply=t.reply, time=t.time) for t in trace.turns[: len(turn.decisions)]
    ]
    scores = np.array([d.score for d in turn.decisions], dtype=np.float64)
    anchor = stable_placements(trace.turns[index - 1].plan) if index else ()  # the prompt the turn came after
    held = [d.turn for d in turn.decisions if d.reason is Reason.IN_IM]  # IM's bare instructions, as traced
    plan, decisions = text_replies(strategy).replan(
        turn.plan.query, exchanges, turn.instructions, scores, thresholds, anchor=anchor, held_turns=held
    )
    return (turn.plan, turn.decisions) if decisions == turn.decisions else (plan, decisions)

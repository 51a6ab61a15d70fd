"""Re-checking stored retrieval-failure marks under the current policy, bounded for a shared server.

A mark says HCR omitted an exchange a query needed (REA paper, section 3.2's retrieval; the
Inspect tab's marks export as ``retrieval`` cases). A re-check runs the same per-case scoring
as ``rea eval retrieval`` (``retrieval.iter_rea_records``), but as background work: each step
(a few exchanges embedded, or one query scored) passes the server's chats-first gate, the steps'
own computing is held to a time budget, and a stop flag ends it between steps. Whatever it
covered before it ended is kept, with how many marks that was.

Example:
    >>> result = recheck_cases(strategy, cases, budget_s=60.0)
    >>> result.marks, result.total_marks, result.note
    (12, 12, '')
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from ..limits import BudgetSpent, WorkBudget
from .retrieval import RetrievalCase, gated_steps, iter_rea_records

BUDGET_VARIABLE = "REA_RECHECK_BUDGET_S"


@dataclass(frozen=True)
class Recheck:
    """What a re-check covered: one record per marked query scored (``retrieval.rea_records``)."""

    records: tuple[dict, ...]
    marks: int  # marked exchanges of the queries scored
    total_marks: int  # marked exchanges of every case given
    note: str = ""  # why it ended before covering every mark; "" when it covered them all


def recheck_cases(
    strategy,
    cases: Sequence[RetrievalCase],
    *,
    step_gate: Callable[[], AbstractContextManager] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    budget_s: float | None = None,
    stop: threading.Event | None = None,
) -> Recheck:
    """Score every marked query of ``cases`` with ``strategy`` (an REA strategy at the thresholds to check).

    Args:
        strategy: The REA strategy whose scoring and planning decide (no generation).
        cases: The marks as retrieval cases (``annotations.marks.marks_as_conversations``, parsed).
        step_gate: Entered around each step (the app's ``ModelGate.background``: a step starts only
            while no chat runs); its waits are not counted against the budget.
        on_progress: Called after each step with (steps done, steps in all): progress for a UI, or
            a pause (``limits.DutyCycle``) that leaves the CPU to chats.
        budget_s: Seconds the steps themselves may take; once spent, the re-check ends before the
            next step. The first step always runs.
        stop: Set (a Stop button) to end the re-check before its next step.

    Returns:
        The records of the queries scored, the marks they hold, and why it ended early (or "").
    """
    total_marks = sum(len(q.needed) for c in cases for q in c.queries)
    total_steps = sum(gated_steps(c) for c in cases)
    budget = WorkBudget(
        budget_s,
        what="the re-check",
        variable=BUDGET_VARIABLE,
        gate=step_gate,
        stop=stop,
        on_step=None if on_progress is None else lambda done: on_progress(done, total_steps),
    )
    marks = 0
    records: list[dict] = []
    note = ""
    try:
        for case in cases:
            queries = sorted(case.queries, key=lambda q: q.position)
            for query, record in zip(queries, iter_rea_records(strategy, case, step=budget.step)):
                records.append(record)
                marks += len(query.needed)
    except BudgetSpent as ended:
        note = ended.note
    return Recheck(records=tuple(records), marks=marks, total_marks=total_marks, note=note)

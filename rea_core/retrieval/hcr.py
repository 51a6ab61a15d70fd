"""Heuristic Context Retrieval decisions (REA paper, section 3.4). Pure functions of scores.

    score >= tau_high            -> raw        (user text + raw reply)
    tau_low <= score < tau_high  -> compressed (user text + compressed reply)
    score < tau_low              -> omit       (left out now; a later query can bring it back)

The paper's thresholds are 0.5 / 0.7 for its scorer; ours are calibrated per scorer
(``methods.rea.config.CALIBRATED_THRESHOLDS``). The pair arrives as one checked ``Thresholds``
(``retrieval.thresholds``). When tau_low == tau_high nothing is compressed.

Two rules then keep what the next reply depends on whatever its score (each decision records its
``Reason``): the working-memory window (``keep_window``) keeps the latest exchanges raw within a
token budget and a band before them at least compressed -- the context of follow-ups and the
demonstrations of the instructions in force, which a small model copies far more reliably than it
obeys a stated rule (the paper's own limitation, appendix H.3; production memory systems keep such
a buffer beside what they retrieve) -- and ``keep_best`` keeps a follow-up's likely referent.
Before both, ``hold_in_im`` leaves out an exchange whose message was a global instruction and nothing
else: the Instructional Memory prefix already reads it verbatim, so the window and the referents do
not spend tokens repeating it. Last, ``fit_budget`` demotes the lowest-scored exchanges when the plan
would not fit the model's window: left alone, the generator would cut the prompt's oldest tokens, the
system prompt and the Instructional Memory prefix first.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

import numpy as np

from ..types import Decision, Reason, Resolution
from .thresholds import Thresholds

_BY_CODE = (Resolution.OMIT, Resolution.COMPRESSED, Resolution.RAW)


def decide(scores: np.ndarray | Sequence[float], thresholds: Thresholds) -> np.ndarray:
    """Vectorized decision codes: 0 omit, 1 compressed, 2 raw."""
    s = np.asarray(scores, dtype=np.float64)
    return (s >= thresholds.low).astype(np.int8) + (s >= thresholds.high).astype(np.int8)


def plan_context(
    turns: Sequence[int], scores: np.ndarray | Sequence[float], thresholds: Thresholds
) -> tuple[Decision, ...]:
    """One ``Decision`` per exchange, in the order given."""
    codes = decide(scores, thresholds)
    if len(codes) != len(turns):
        raise ValueError(f"{len(turns)} turns but {len(codes)} scores")
    return tuple(
        Decision(turn=int(t), score=float(s), resolution=_BY_CODE[c])
        for t, s, c in zip(turns, np.asarray(scores, dtype=np.float64), codes)
    )


def recent_tokens(exchanges: Sequence, n: int, count_tokens: Callable[[str], int]) -> list[int]:
    """Raw tokens (user text plus reply) of the latest ``n`` exchanges, oldest first: what the window weighs."""
    latest = exchanges[max(0, len(exchanges) - n) :] if n > 0 else []
    return [count_tokens(ex.user) + count_tokens(ex.reply) for ex in latest]


def window_size(latest_tokens: Sequence[int], raw_tokens: int) -> int:
    """How many of the latest exchanges the raw window holds. ``latest_tokens``: the tokens of the
    latest exchanges (oldest first, as many as the window may hold at most). The latest is always in
    (a follow-up's likeliest referent, whatever its size); earlier ones join while the window's
    tokens stay within ``raw_tokens``."""
    n, used = 0, 0
    for tokens in reversed(list(latest_tokens)):
        if n and used + tokens > raw_tokens:
            break
        n, used = n + 1, used + tokens
    return n


def hold_in_im(decisions: Sequence[Decision], held: Sequence[int]) -> tuple[Decision, ...]:
    """The exchanges at positions ``held`` omitted with ``Reason.IN_IM``: their whole user message is an
    Instructional Memory entry (``InstructionalMemory.bare_turns``), which IM reads verbatim at the top
    of the prompt, and the reply to a bare instruction is an acknowledgement. Scores are kept for views."""
    out = list(decisions)
    for i in held:
        out[i] = replace(out[i], resolution=Resolution.OMIT, reason=Reason.IN_IM)
    return tuple(out)


def keep_window(
    decisions: Sequence[Decision], latest_tokens: Sequence[int], *, raw_tokens: int, band: int
) -> tuple[Decision, ...]:
    """The working-memory window: the latest exchanges raw (``window_size``), then the ``band``
    exchanges before them at least compressed. Window exchanges are raw whatever the thresholds;
    scores are kept, so the sliders still re-decide everything outside the window. An exchange held in
    IM (``hold_in_im``) keeps its place in the window but is not repeated."""
    out = list(decisions)
    n = len(out)
    k = min(n, window_size(latest_tokens, raw_tokens))
    for i in range(n - k, n):
        if out[i].reason is not Reason.IN_IM:
            out[i] = replace(out[i], resolution=Resolution.RAW, reason=Reason.RECENT)
    for i in range(max(0, n - k - band), n - k):
        if out[i].resolution is Resolution.OMIT and out[i].reason is not Reason.IN_IM:
            out[i] = replace(out[i], resolution=Resolution.COMPRESSED, reason=Reason.RECENT_BAND)
    return tuple(out)


def keep_best(decisions: Sequence[Decision], k: int) -> tuple[Decision, ...]:
    """The ``k`` best-scored omitted exchanges lifted to compressed (ties: the later first; none held
    in IM): a follow-up's referent ranks high far more often than it clears an absolute threshold."""
    out = list(decisions)
    if k <= 0 or not out:
        return tuple(out)
    omitted = np.array([d.resolution is Resolution.OMIT and d.reason is not Reason.IN_IM for d in out])
    value = np.array([d.score if d.score is not None else -np.inf for d in out], dtype=np.float64)
    for i in best_omitted(omitted, value, k):
        out[i] = replace(out[i], resolution=Resolution.COMPRESSED, reason=Reason.REFERENT)
    return tuple(out)


def best_omitted(omitted: np.ndarray, value: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest ``value`` among the ``omitted`` mask (ties: the later first),
    in linear time: ``keep_best``'s choice, fast enough for 100k exchanges per query."""
    candidates = np.flatnonzero(omitted)
    if k <= 0 or not len(candidates):
        return candidates[:0]
    keyed = value[candidates] + candidates * 1e-12  # ties go to the later exchange
    if len(candidates) > k:
        candidates = candidates[np.argpartition(-keyed, k - 1)[:k]]
    return candidates


def fixed_decisions(
    turns: Sequence[int], resolution: Resolution, scores: Sequence[float | None] | None = None
) -> tuple[Decision, ...]:
    """Every exchange at one resolution: HCR switched off (ablations) or a full-history baseline."""
    scores = scores if scores is not None else [None] * len(turns)
    return tuple(
        Decision(turn=int(t), score=None if s is None else float(s), resolution=resolution, reason=Reason.FIXED)
        for t, s in zip(turns, scores)
    )


def fit_budget(
    decisions: Sequence[Decision], cost: Callable[[int, Resolution], int], excess: int
) -> tuple[tuple[Decision, ...], int]:
    """Demote exchanges until the prompt sheds ``excess`` tokens; returns the decisions and the
    excess left (above 0 only when the latest window alone does not fit).

    ``cost(i, resolution)``: the tokens exchange ``i`` takes at ``resolution``. The lowest-scored
    exchanges go first (older first on ties): every raw one becomes compressed before any
    compressed one is omitted, so the most exchanges stay in view at some resolution. The raw
    working-memory window (``Reason.RECENT``) is never demoted. Demoted decisions carry
    ``Reason.BUDGET``.
    """
    out = list(decisions)
    if excess <= 0:
        return tuple(out), excess
    order = sorted(
        (i for i, d in enumerate(out) if d.reason is not Reason.RECENT),
        key=lambda i: (-np.inf if out[i].score is None else out[i].score, out[i].turn),
    )
    for source, target in ((Resolution.RAW, Resolution.COMPRESSED), (Resolution.COMPRESSED, Resolution.OMIT)):
        for i in order:
            if excess <= 0:
                return tuple(out), excess
            if out[i].resolution is source:
                excess -= cost(i, source) - cost(i, target)
                out[i] = replace(out[i], resolution=target, reason=Reason.BUDGET)
    return tuple(out), excess

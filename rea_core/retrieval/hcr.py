"""Heuristic Context Retrieval decisions (seed 000, section 3.4). Pure functions of scores.

    score >= tau_high            -> raw        (user text + raw reply)
    tau_low <= score < tau_high  -> compressed (user text + compressed reply)
    score < tau_low              -> omit       (left out now; a later query can bring it back)

The paper's thresholds are 0.5 / 0.7 for its scorer; ours are calibrated per scorer
(``config.CALIBRATED_THRESHOLDS``). When tau_low == tau_high nothing is compressed. ``keep_recent``
then lifts the latest exchanges to a floor: recent turns are the context of follow-ups and the
demonstrations of the instructions in force.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from ..config import validate_thresholds
from ..types import Decision, Resolution

_BY_CODE = (Resolution.OMIT, Resolution.COMPRESSED, Resolution.RAW)


def decide(scores: np.ndarray | Sequence[float], *, tau_low: float, tau_high: float) -> np.ndarray:
    """Vectorized decision codes: 0 omit, 1 compressed, 2 raw. Raises ThresholdError on bad thresholds."""
    lo, hi = validate_thresholds(tau_low, tau_high)
    s = np.asarray(scores, dtype=np.float64)
    return (s >= lo).astype(np.int8) + (s >= hi).astype(np.int8)


def plan_context(
    turns: Sequence[int], scores: np.ndarray | Sequence[float], *, tau_low: float, tau_high: float
) -> tuple[Decision, ...]:
    """One ``Decision`` per exchange, in the order given."""
    codes = decide(scores, tau_low=tau_low, tau_high=tau_high)
    if len(codes) != len(turns):
        raise ValueError(f"{len(turns)} turns but {len(codes)} scores")
    return tuple(
        Decision(turn=int(t), score=float(s), resolution=_BY_CODE[c]) for t, s, c in zip(turns, np.asarray(scores, dtype=np.float64), codes)
    )


def keep_recent(decisions: Sequence[Decision], *, recent_raw: int = 0, recent_floor: int = 0) -> tuple[Decision, ...]:
    """The latest ``recent_raw`` exchanges raw and the latest ``recent_floor`` at least compressed; scores kept."""
    out = list(decisions)
    n = len(out)
    for i in range(max(0, n - max(recent_raw, recent_floor)), n):
        floor = Resolution.RAW if i >= n - recent_raw else Resolution.COMPRESSED
        if _RANK[out[i].resolution] < _RANK[floor]:
            out[i] = replace(out[i], resolution=floor)
    return tuple(out)


def keep_best(decisions: Sequence[Decision], k: int) -> tuple[Decision, ...]:
    """The ``k`` best-scored omitted exchanges lifted to compressed (ties: the later first): a
    follow-up's referent ranks high far more often than it clears an absolute threshold."""
    out = list(decisions)
    omitted = [i for i, d in enumerate(out) if d.resolution is Resolution.OMIT]
    ranked = sorted(omitted, key=lambda i: (-(out[i].score if out[i].score is not None else float("-inf")), -i))
    for i in ranked[: max(0, k)]:
        out[i] = replace(out[i], resolution=Resolution.COMPRESSED)
    return tuple(out)


_RANK = {Resolution.OMIT: 0, Resolution.COMPRESSED: 1, Resolution.RAW: 2}


def fixed_decisions(turns: Sequence[int], resolution: Resolution, scores: Sequence[float | None] | None = None) -> tuple[Decision, ...]:
    """Every exchange at one resolution: HCR switched off (ablations) or a full-history baseline."""
    scores = scores if scores is not None else [None] * len(turns)
    return tuple(Decision(turn=int(t), score=None if s is None else float(s), resolution=resolution) for t, s in zip(turns, scores))

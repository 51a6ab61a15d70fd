"""Heuristic Context Retrieval decisions (seed 000, section 3.4). Pure functions of scores.

    score >= tau_high            -> raw        (user text + raw reply)
    tau_low <= score < tau_high  -> compressed (user text + compressed reply)
    score < tau_low              -> omit       (left out now; a later query can bring it back)

Defaults tau_low = 0.5, tau_high = 0.7. When tau_low == tau_high nothing is compressed.
"""

from __future__ import annotations

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


def fixed_decisions(turns: Sequence[int], resolution: Resolution, scores: Sequence[float | None] | None = None) -> tuple[Decision, ...]:
    """Every exchange at one resolution: HCR switched off (ablations) or a full-history baseline."""
    scores = scores if scores is not None else [None] * len(turns)
    return tuple(Decision(turn=int(t), score=None if s is None else float(s), resolution=resolution) for t, s in zip(turns, scores))

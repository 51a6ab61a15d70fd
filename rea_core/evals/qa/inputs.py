"""Which questions ``rea eval qa`` asks: the questions with a gold answer kept (by LoCoMo category where
asked), checked for what the arms need, and a ``--limit`` spread evenly across conversations."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from ...errors import DataFormatError
from ..cases import RetrievalCase

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}  # LoCoMo's numbering


def select_questions(cases: Sequence[RetrievalCase], limit: int | None) -> list[RetrievalCase]:
    """``limit`` questions spread across conversations (round robin) and, within one, evenly over its
    question list (so LoCoMo's categories mix). Deterministic: the same call picks the same questions."""
    if limit is None:
        return list(cases)
    caps = [len(c.queries) for c in cases]
    quotas = [0] * len(cases)
    left = min(limit, sum(caps))
    while left:
        for i in range(len(cases)):
            if left and quotas[i] < caps[i]:
                quotas[i] += 1
                left -= 1
    picked = []
    for case, k in zip(cases, quotas):
        if k:
            idx = np.linspace(0, len(case.queries) - 1, k).round().astype(int) if k > 1 else [0]
            picked.append(replace(case, queries=tuple(case.queries[i] for i in sorted(set(int(j) for j in idx)))))
    return picked


def prepare_cases(
    cases: Sequence[RetrievalCase],
    arms: Sequence[str],
    limit: int | None,
    *,
    categories: Sequence[str] | None = None,
) -> list[RetrievalCase]:
    """Cases down to the questions with a gold answer (of ``categories``, LoCoMo's names, where given),
    checked for what the arms need, then ``limit``ed.

    Raises:
        DataFormatError: no question has an answer, an unknown category, or the oracle arm meets a
            question without evidence.
    """
    unknown = [c for c in categories or () if c not in CATEGORIES.values()]
    if unknown:
        raise DataFormatError(f"unknown category {', '.join(unknown)}; choose from {', '.join(CATEGORIES.values())}")

    def wanted(q) -> bool:
        return bool(q.answer) and (not categories or CATEGORIES.get(q.category) in categories)

    kept = [replace(c, queries=tuple(q for q in c.queries if wanted(q))) for c in cases]
    kept = [c for c in kept if c.queries]
    if not kept:
        raise DataFormatError(
            'no question carries a gold answer ("answer")'
            + (f" in categories {', '.join(categories)}" if categories else "")
            + "; nothing to evaluate"
        )
    if "oracle" in arms:
        for c in kept:
            for q in c.queries:
                if not q.needed:
                    raise DataFormatError(
                        f'{c.id}: the question at turn {q.position} ({q.text[:60]!r}) has no "needed" evidence, '
                        "which the oracle arm shows; add it or leave oracle out of --arms"
                    )
    if limit is not None and limit < 1:
        raise DataFormatError("--limit must be at least 1")
    return select_questions(kept, limit)

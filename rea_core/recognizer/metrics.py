"""Recognizer metrics (REA paper, Table 9: precision, recall, F1 on the class *global*), computed once.

Every number the project reports about the recognizer (the Review tab, training versions,
``rea eval recognizer``, the benchmarks) comes from ``evaluate_recognizer``: the scores of an
``InstructionRecognizer`` exactly as REA runs it, stage 1 then stage 2, so metrics describe the
code that runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .labels import GLOBAL, REVOKE
from .recognize import InstructionRecognizer

if TYPE_CHECKING:
    from ..backends.base import Embedder
    from ..types import Recognition
    from .trained import TrainedRecognizer

PR_POINTS = 101  # PR curves are stored at most this many points, so a version's metrics stay small


def evaluate_scores(gold: Sequence[str], scores: Sequence[float], threshold: float = 0.5) -> dict[str, Any]:
    """Global-vs-rest metrics of scores: precision, recall, F1, accuracy, confusion, PR curve.

    Args:
        gold: Gold labels (global / task / ordinary).
        scores: P(global) per input; at or above ``threshold`` counts as predicted global.

    Returns:
        A JSON-ready dict; ``confusion`` is [[TN, FP], [FN, TP]] over (not global, global).
    """
    from sklearn.metrics import (
        average_precision_score,
        confusion_matrix,
        precision_recall_curve,
        precision_recall_fscore_support,
    )

    y = np.array([g == GLOBAL for g in gold], dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    pred = s >= threshold
    precision, recall, f1, _ = (
        precision_recall_fscore_support(y, pred, average="binary", zero_division=0.0)
        if len(y)
        else (0.0, 0.0, 0.0, None)
    )
    confusion = confusion_matrix(y, pred, labels=[False, True]).tolist() if len(y) else [[0, 0], [0, 0]]
    out: dict[str, Any] = {
        "n": int(len(y)),
        "positives": int(y.sum()),
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
        "accuracy": float((pred == y).mean()) if len(y) else 0.0,
        "confusion": confusion,
        "threshold": threshold,
        "pr_curve": None,
        "average_precision": None,
    }
    if y.any() and (~y).any():
        p, r, _ = precision_recall_curve(y, s)
        keep = np.unique(np.linspace(0, len(p) - 1, min(len(p), PR_POINTS)).round().astype(int))
        out["pr_curve"] = {"precision": p[keep].round(4).tolist(), "recall": r[keep].round(4).tolist()}
        out["average_precision"] = float(average_precision_score(y, s))
    return out


def defined(m: dict[str, Any], key: str) -> float | None:
    """``m[key]`` (precision, recall or f1 of ``evaluate_scores``), or None where the ratio is 0/0:
    precision with nothing predicted global, recall with no global input, F1 with neither.
    ``evaluate_scores`` stores those as 0 (scikit-learn's zero_division); a reader must not see 0."""
    (_, fp), (fn, tp) = m["confusion"]
    denominator = {"precision": tp + fp, "recall": tp + fn, "f1": tp + fp + fn}[key]
    return m[key] if denominator else None


def verdict_scores(verdicts: Sequence["Recognition"]) -> np.ndarray:
    """P(global) per verdict; a revocation scores 0 (it adds no instruction)."""
    return np.array([0.0 if v.label == REVOKE else v.score for v in verdicts], dtype=np.float64)


def recognizer_scores(recognizer: InstructionRecognizer, texts: Sequence[str]) -> np.ndarray:
    """P(global) per input as ``recognizer`` decides it."""
    return verdict_scores(recognizer.recognize_many(list(texts)))


def decision_threshold(recognizer: InstructionRecognizer) -> float:
    """The score at or above which ``recognizer`` says global (its stage 2's threshold)."""
    return recognizer.trained.threshold if recognizer.trained is not None else recognizer.config.threshold


def evaluate_recognizer(
    recognizer: InstructionRecognizer, texts: Sequence[str], gold: Sequence[str]
) -> dict[str, Any]:
    """``evaluate_scores`` of the whole recognizer; predicted global exactly when ``recognize`` says global."""
    return evaluate_scores(gold, recognizer_scores(recognizer, texts), decision_threshold(recognizer))


def evaluate_model(
    model: "TrainedRecognizer | None", texts: Sequence[str], gold: Sequence[str], embedder: "Embedder | None"
) -> dict[str, Any]:
    """Metrics of the recognizer REA runs with ``model`` as stage 2 ("pipeline") and of ``model`` alone ("classifier").

    ``model=None`` measures the rules-only recognizer (deferred inputs are not global): the
    baseline a first trained version is compared with.
    """
    out = {
        "pipeline": evaluate_recognizer(InstructionRecognizer(None, trained=model, embedder=embedder), texts, gold),
        "classifier": None,
    }
    if model is not None:
        out["classifier"] = evaluate_scores(gold, model.p_global(texts, embedder), model.threshold)
    return out


def baseline_metrics(texts: Sequence[str], gold: Sequence[str]) -> dict[str, Any]:
    """Rules-only recognizer metrics: the version-0 comparison when nothing was trained yet."""
    return evaluate_model(None, texts, gold, None)

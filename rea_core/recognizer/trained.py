"""A recognizer stage 2 trained from human labels (seed 000, sections 3.3, A.4 and D.1-D.2).

The paper's stage 2 is a few-shot LLM; its precision (0.6182) is the recognizer's weak side. This
module fits a small classifier on sentence embeddings of labeled inputs (global / task /
ordinary), so annotators' labels can replace the LLM where the rule filter defers. The model is
multinomial logistic regression on the packaged embedder's unit vectors plus, by default, the
lexical features of ``recognizer_features.py`` (cue flags, hashed n-grams; issue 16): a few
thousand numbers, saved as JSON (no pickle), quick to train on CPU. `evaluate_scores` gives the metrics seed 000
reports in Table 9 (precision, recall, F1 on the class *global*) plus a confusion matrix and a
precision-recall curve.

Example:
    >>> result = train_recognizer(texts, labels, load_embedder(), validation=val_rows)
    >>> result.model.save("recognizer.json"); result.metrics["heldout"]["pipeline"]["f1"]
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends.base import Embedder
from ..errors import InputError

LABELS = ("global", "task", "ordinary")
GLOBAL = "global"
PR_POINTS = 101  # PR curves are stored at most this many points, so a version's metrics stay small
KIND_EMBEDDING, KIND_LEXICAL = "logreg-embeddings", "logreg-embeddings-lexical"
N_HASH = 4096  # hashed uni/bigram columns: enough for scope words, small enough to ship as JSON (issue 16)


def normalize_text(text: str) -> str:
    """Whitespace-collapsed lowercase text: the key for deduplication and train/validation overlap."""
    return " ".join(text.split()).lower()


@dataclass
class TrainedRecognizer:
    """Logistic regression over sentence embeddings (and lexical features); ``p_global`` is its stage-2 score.

    Attributes:
        embedder_name: The embedder the weights belong to; another one would give meaningless scores.
        classes: Class names, in the row order of ``coef``.
        coef: (n_classes, n_features) weights: embedding dims first, then ``recognizer_features`` columns.
        intercept: (n_classes,) biases.
        threshold: P(global) at or above which stage 2 says global.
        n_hash: Hashed n-gram columns after the embedding (0: embedding only, the first studio format).
        provenance: Where the weights came from (label set, counts, split, metrics), shown in the app.
    """

    embedder_name: str
    classes: list[str]
    coef: np.ndarray
    intercept: np.ndarray
    threshold: float = 0.5
    n_hash: int = 0
    provenance: dict[str, Any] = field(default_factory=dict)

    def features(self, texts: Sequence[str], embedder: Embedder) -> np.ndarray:
        """(n, n_features) inputs of the model: the unit embedding, then (when used) the lexical features."""
        X = embedder.encode(list(texts)).astype(np.float64)  # (n, dim)
        if not self.n_hash:
            return X
        from .features import lexical_features

        return np.hstack([X, lexical_features(texts, self.n_hash)])  # (n, dim + cues + n_hash)

    def proba(self, features: np.ndarray) -> np.ndarray:
        """(n, n_classes) class probabilities for (n, n_features) inputs (softmax of the logits)."""
        logits = features @ self.coef.T + self.intercept  # (n, n_classes)
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def p_global_features(self, features: np.ndarray) -> np.ndarray:
        """(n,) P(global) for precomputed features; 0 when no training label was global."""
        if GLOBAL not in self.classes:
            return np.zeros(len(features), dtype=np.float64)
        return self.proba(features)[:, self.classes.index(GLOBAL)]

    def p_global(self, texts: Sequence[str], embedder: Embedder) -> np.ndarray:
        """(n,) P(global) of raw texts, embedded with ``embedder`` (must be the training one)."""
        if embedder.name != self.embedder_name:
            raise InputError(f"this recognizer was trained on embedder {self.embedder_name!r}, not {embedder.name!r}")
        if not texts:
            return np.zeros(0)
        return self.p_global_features(self.features(texts, embedder))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": KIND_LEXICAL if self.n_hash else KIND_EMBEDDING, "embedder_name": self.embedder_name,
                "classes": list(self.classes), "coef": np.round(self.coef, 6).tolist(), "intercept": np.round(self.intercept, 6).tolist(),
                "threshold": self.threshold, "n_hash": self.n_hash, "provenance": self.provenance}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrainedRecognizer":
        if data.get("kind") not in (KIND_EMBEDDING, KIND_LEXICAL):
            raise InputError(f"not a trained recognizer file (kind={data.get('kind')!r})")
        model = cls(embedder_name=data["embedder_name"], classes=list(data["classes"]),
                    coef=np.asarray(data["coef"], dtype=np.float64), intercept=np.asarray(data["intercept"], dtype=np.float64),
                    threshold=float(data.get("threshold", 0.5)), n_hash=int(data.get("n_hash", 0)), provenance=dict(data.get("provenance") or {}))
        if model.coef.ndim != 2 or model.coef.shape[0] != len(model.classes) or model.intercept.shape != (len(model.classes),):
            raise InputError(f"trained recognizer weights do not fit its {len(model.classes)} classes (coef {model.coef.shape})")
        return model

    def save(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "TrainedRecognizer":
        with open(path, encoding="utf-8") as handle:
            return cls.from_dict(json.load(handle))


@dataclass
class TrainingResult:
    """A fitted model and its metrics (``heldout`` and, when given, ``validation``)."""

    model: TrainedRecognizer
    metrics: dict[str, Any] = field(default_factory=dict)


def fit(texts: Sequence[str], labels: Sequence[str], embedder: Embedder, *, seed: int = 0, n_hash: int = N_HASH,
        C: float = 4.0, sample_weight: Sequence[float] | None = None) -> TrainedRecognizer:
    """Fit the classifier. Classes are weighted by inverse frequency: globals are rare (D.1).

    ``n_hash`` > 0 adds the lexical features of ``recognizer_features`` (cue flags and hashed
    n-grams) beside the embedding; 0 fits on the embedding alone.
    """
    classes = sorted(set(labels))
    if len(classes) < 2:
        raise InputError(f"training needs at least two different labels; got only {classes}")
    shell = TrainedRecognizer(embedder_name=embedder.name, classes=classes, coef=np.zeros((0, 0)), intercept=np.zeros(0), n_hash=n_hash)
    return fit_features(shell.features(texts, embedder), labels, embedder.name, n_hash=n_hash, seed=seed, C=C, sample_weight=sample_weight)


def fit_features(X: np.ndarray, labels: Sequence[str], embedder_name: str, *, n_hash: int, seed: int = 0, C: float = 4.0,
                 sample_weight: Sequence[float] | None = None) -> TrainedRecognizer:
    """Fit on precomputed (n, n_features) inputs: lets cross-validation featurize once."""
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=C, class_weight="balanced", max_iter=5000, random_state=seed).fit(X, list(labels), sample_weight=sample_weight)
    coef, intercept = clf.coef_, clf.intercept_
    if len(clf.classes_) == 2:  # sklearn keeps one row for two classes; softmax([-z/2, z/2]) == sigmoid(z)
        coef = np.vstack([-coef[0] / 2, coef[0] / 2])
        intercept = np.array([-intercept[0] / 2, intercept[0] / 2])
    return TrainedRecognizer(embedder_name=embedder_name, classes=[str(c) for c in clf.classes_], coef=coef, intercept=intercept, n_hash=n_hash)


def evaluate_scores(gold: Sequence[str], scores: Sequence[float], threshold: float = 0.5) -> dict[str, Any]:
    """Global-vs-rest metrics of scores: precision, recall, F1, accuracy, confusion, PR curve.

    Args:
        gold: Gold labels (global / task / ordinary).
        scores: P(global) per input; at or above ``threshold`` counts as predicted global.

    Returns:
        A JSON-ready dict; ``confusion`` is [[TN, FP], [FN, TP]] over (not global, global).
    """
    from sklearn.metrics import average_precision_score, precision_recall_curve

    y = np.array([g == GLOBAL for g in gold], dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    pred = s >= threshold
    tp, fp = int((pred & y).sum()), int((pred & ~y).sum())
    fn, tn = int((~pred & y).sum()), int((~pred & ~y).sum())
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    out: dict[str, Any] = {"n": int(len(y)), "positives": int(y.sum()), "precision": precision, "recall": recall, "f1": f1,
                           "accuracy": (tp + tn) / len(y) if len(y) else 0.0, "confusion": [[tn, fp], [fn, tp]],
                           "threshold": threshold, "pr_curve": None, "average_precision": None}
    if y.any() and (~y).any():
        p, r, _ = precision_recall_curve(y, s)
        keep = np.unique(np.linspace(0, len(p) - 1, min(len(p), PR_POINTS)).round().astype(int))
        out["pr_curve"] = {"precision": p[keep].round(4).tolist(), "recall": r[keep].round(4).tolist()}
        out["average_precision"] = float(average_precision_score(y, s))
    return out


def pipeline_scores(texts: Sequence[str], model: TrainedRecognizer | None, embedder: Embedder | None) -> np.ndarray:
    """Scores of the whole recognizer as the app runs it: stage 1, then ``model`` where stage 1 defers.

    The decision is ``InstructionRecognizer.recognize_many``'s, so these metrics describe the code
    that runs. With ``model=None`` this is the rules-only recognizer (deferred inputs are not
    global), the baseline a first trained version is compared with. A revocation scores 0: it is
    not a new global instruction.
    """
    from .recognize import REVOKE, InstructionRecognizer

    recognizer = InstructionRecognizer(None, trained=model, embedder=embedder)
    return np.array([0.0 if r.label == REVOKE else r.score for r in recognizer.recognize_many(list(texts))], dtype=np.float64)


def evaluate_model(model: TrainedRecognizer | None, texts: Sequence[str], gold: Sequence[str], embedder: Embedder | None) -> dict[str, Any]:
    """Metrics of the pipeline (what the app uses) and of the classifier alone (None for rules-only)."""
    threshold = model.threshold if model else 0.5
    out = {"pipeline": evaluate_scores(gold, pipeline_scores(texts, model, embedder), threshold), "classifier": None}
    if model is not None:
        out["classifier"] = evaluate_scores(gold, model.p_global(texts, embedder), threshold)
    return out


def train_recognizer(texts: Sequence[str], labels: Sequence[str], embedder: Embedder, *,
                     validation: Sequence[dict] | None = None, heldout_share: float = 0.25, seed: int = 0) -> TrainingResult:
    """Split labels into train and held-out, fit, and measure on held-out and validation sets.

    Inputs whose text also appears in ``validation`` are left out of both training and held-out,
    so the validation numbers measure generalization, not memory.

    Args:
        texts: Labeled inputs.
        labels: One of LABELS per input.
        embedder: The sentence embedder (the packaged all-MiniLM-L6-v2 by default).
        validation: Rows with ``text`` and ``label`` (e.g. rea_core/data/recognizer_validation.jsonl).
        heldout_share: Share of labels kept out of training for the held-out metrics.
        seed: Seed of the stratified split and the solver.

    Raises:
        InputError: Unknown labels, or too few labels to train and hold some out.
    """
    from sklearn.model_selection import train_test_split

    bad = sorted({lab for lab in labels if lab not in LABELS})
    if bad:
        raise InputError(f"unknown label(s) {bad}; expected one of {list(LABELS)}")
    val_keys = {normalize_text(r["text"]) for r in validation or ()}
    rows = [(t, lab) for t, lab in zip(texts, labels) if normalize_text(t) not in val_keys]
    if len(rows) < 8 or len({lab for _, lab in rows}) < 2:
        raise InputError(f"training needs at least 8 labeled inputs with two different labels; have {len(rows)}")
    counts = {lab: sum(1 for _, x in rows if x == lab) for lab in {lab for _, lab in rows}}
    stratify = [lab for _, lab in rows] if min(counts.values()) >= 2 else None
    train, heldout = train_test_split(rows, test_size=heldout_share, random_state=seed, stratify=stratify)
    model = fit([t for t, _ in train], [lab for _, lab in train], embedder, seed=seed)
    metrics: dict[str, Any] = {"n_train": len(train), "n_heldout": len(heldout), "n_excluded_overlap": len(texts) - len(rows),
                               "label_counts": counts, "embedder": embedder.name, "validation": None}
    metrics["heldout"] = evaluate_model(model, [t for t, _ in heldout], [lab for _, lab in heldout], embedder)
    if validation:
        metrics["validation"] = evaluate_model(model, [r["text"] for r in validation], [r["label"] for r in validation], embedder)
    return TrainingResult(model=model, metrics=metrics)


def baseline_metrics(texts: Sequence[str], gold: Sequence[str]) -> dict[str, Any]:
    """Rules-only recognizer metrics: the version-0 comparison when nothing was trained yet."""
    return evaluate_model(None, texts, gold, None)

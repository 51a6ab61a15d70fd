"""Training the recognizer's stage 2 with honest metrics (REA paper, sections D.1-D.3).

``train_recognizer`` fits annotators' labels (the studio's versions) with a held-out split and the
validation set; ``train_default`` fits the shipped label set (``default.py``) and picks the
threshold by grouped cross-validation. Both measure with ``metrics.evaluate_model``.

Example:
    >>> result = train_recognizer(texts, labels, load_embedder(), validation=val_rows)
    >>> result.model.save("recognizer.json"); result.metrics["heldout"]["pipeline"]["f1"]
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from ..backends.base import Embedder
from ..errors import InputError
from ..recognizer.default import LabeledInput
from ..recognizer.labels import GLOBAL, LABELS
from ..recognizer.metrics import evaluate_model, evaluate_scores
from ..recognizer.rules import rule_stage
from ..recognizer.trained import N_HASH, TrainedRecognizer, fit, fit_features
from ..text import normalize

CV_FOLDS = 5
BETA = 2.0  # the threshold maximizes F2: a missed instruction costs more than an extra one (D.3)


@dataclass
class TrainingResult:
    """A fitted model and its metrics (``heldout`` and, when given, ``validation``)."""

    model: TrainedRecognizer
    metrics: dict[str, Any] = field(default_factory=dict)


def train_recognizer(
    texts: Sequence[str],
    labels: Sequence[str],
    embedder: Embedder,
    *,
    validation: Sequence[dict] | None = None,
    heldout_share: float = 0.25,
    seed: int = 0,
) -> TrainingResult:
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
    val_keys = {normalize(r["text"]) for r in validation or ()}
    rows = [(t, lab) for t, lab in zip(texts, labels) if normalize(t) not in val_keys]
    if len(rows) < 8 or len({lab for _, lab in rows}) < 2:
        raise InputError(f"training needs at least 8 labeled inputs with two different labels; have {len(rows)}")
    counts = {lab: sum(1 for _, x in rows if x == lab) for lab in {lab for _, lab in rows}}
    stratify = [lab for _, lab in rows] if min(counts.values()) >= 2 else None
    train, heldout = train_test_split(rows, test_size=heldout_share, random_state=seed, stratify=stratify)
    model = fit([t for t, _ in train], [lab for _, lab in train], embedder, seed=seed)
    metrics: dict[str, Any] = {
        "n_train": len(train),
        "n_heldout": len(heldout),
        "n_excluded_overlap": len(texts) - len(rows),
        "label_counts": counts,
        "embedder": embedder.name,
        "validation": None,
    }
    metrics["heldout"] = evaluate_model(model, [t for t, _ in heldout], [lab for _, lab in heldout], embedder)
    if validation:
        metrics["validation"] = evaluate_model(
            model, [r["text"] for r in validation], [r["label"] for r in validation], embedder
        )
    return TrainingResult(model=model, metrics=metrics)


def choose_threshold(gold: Sequence[str], scores: np.ndarray, beta: float = BETA) -> float:
    """The threshold in [0.2, 0.8] with the best F-beta on (out-of-fold) scores; ties go to the higher one."""
    best, best_f = 0.5, -1.0
    for th in np.round(np.arange(0.2, 0.801, 0.025), 3):
        m = evaluate_scores(gold, scores, float(th))
        p, r = m["precision"], m["recall"]
        f = (1 + beta**2) * p * r / (beta**2 * p + r) if p + r else 0.0
        if f >= best_f:
            best, best_f = float(th), f
    return best


def _oof_pipeline_scores(
    model_template: TrainedRecognizer, X: np.ndarray, rows: Sequence[LabeledInput], seed: int
) -> np.ndarray:
    """Out-of-fold pipeline scores of the train rows (folds never split a group)."""
    from sklearn.model_selection import StratifiedGroupKFold

    labels = [r.label for r in rows]
    stage1 = [rule_stage(r.text)[0] for r in rows]
    scores = np.zeros(len(rows))
    folds = StratifiedGroupKFold(n_splits=CV_FOLDS, shuffle=True, random_state=seed)
    for train_idx, test_idx in folds.split(X, labels, groups=[f"{r.source}|{r.group}" for r in rows]):
        m = fit_features(
            X[train_idx],
            [labels[i] for i in train_idx],
            model_template.embedder_name,
            n_hash=model_template.n_hash,
            seed=seed,
        )
        scores[test_idx] = m.p_global_features(X[test_idx])
    for i, label in enumerate(stage1):  # stage 1 decides where it is sure, as in the running recognizer
        if label is not None:
            scores[i] = 1.0 if label == GLOBAL else 0.0
    return scores


def _metrics_by_source(model: TrainedRecognizer, rows: Sequence[LabeledInput], embedder: Embedder) -> dict[str, Any]:
    out = {}
    for source in sorted({r.source for r in rows}):
        part = [r for r in rows if r.source == source]
        out[source] = evaluate_model(model, [r.text for r in part], [r.label for r in part], embedder)["pipeline"]
    return out


def train_default(
    rows: Sequence[LabeledInput],
    embedder: Embedder,
    *,
    label_set: str,
    tests: dict[str, Sequence[LabeledInput]] | None = None,
    seed: int = 0,
    n_hash: int = N_HASH,
) -> TrainingResult:
    """Fit on the train split, pick the threshold by grouped CV on it, measure the held-out split and ``tests``.

    Raises:
        InputError: No train or no held-out rows, or fewer than two labels in training.
    """
    train = [r for r in rows if r.split == "train"]
    heldout = [r for r in rows if r.split == "heldout"]
    if not train or not heldout:
        raise InputError(f"the label set needs train and heldout rows; has {len(train)} and {len(heldout)}")
    template = TrainedRecognizer(
        embedder_name=embedder.name, classes=[], coef=np.zeros((0, 0)), intercept=np.zeros(0), n_hash=n_hash
    )
    X = template.features([r.text for r in train], embedder)  # (n_train, n_features)
    oof = _oof_pipeline_scores(template, X, train, seed)
    model = fit_features(X, [r.label for r in train], embedder.name, n_hash=n_hash, seed=seed)
    model.threshold = choose_threshold([r.label for r in train], oof)
    metrics: dict[str, Any] = {
        "n_train": len(train),
        "n_heldout": len(heldout),
        "embedder": embedder.name,
        "threshold": model.threshold,
        "cv_train": evaluate_scores([r.label for r in train], oof, model.threshold),
        "heldout": evaluate_model(model, [r.text for r in heldout], [r.label for r in heldout], embedder),
        "heldout_by_source": _metrics_by_source(model, heldout, embedder),
        "tests": {},
    }
    for name, test in (tests or {}).items():
        metrics["tests"][name] = evaluate_model(model, [r.text for r in test], [r.label for r in test], embedder)
    counts = Counter((r.split, r.label) for r in rows)
    held = metrics["heldout"]["pipeline"]
    model.provenance = {
        "label_set": label_set,
        "label_set_sha256": hashlib.sha256("".join(r.text + r.label + r.split for r in rows).encode()).hexdigest()[
            :16
        ],
        "sources": sorted({r.source for r in train}),
        "n_train": len(train),
        "n_heldout": len(heldout),
        "counts": {f"{s}/{lab}": n for (s, lab), n in sorted(counts.items())},
        "trained_on": date.today().isoformat(),
        "threshold_from": f"F{BETA:g} on {CV_FOLDS}-fold grouped out-of-fold scores of the train split",
        "features": f"{embedder.name} embedding + cue flags + {n_hash} hashed uni/bigrams",
        "heldout": {k: held[k] for k in ("precision", "recall", "f1", "n", "positives")},
    }
    return TrainingResult(model=model, metrics=metrics)

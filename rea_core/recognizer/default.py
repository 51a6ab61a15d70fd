"""The shipped stage 2: a recognizer trained on the documented label set, loaded with no database (issue 16).

Label set: ``rea_core/data/recognizer_train.jsonl`` (built by scripts/build_recognizer_training.py,
documented in docs/recognizer_training_set.md); each row has ``text``, ``label``, ``source``,
``group`` and ``split`` ("train" or "heldout"). The weights are fitted on the train split only;
the threshold is chosen on out-of-fold scores of the train split (grouped cross-validation);
the held-out split is only measured. The result ships as ``rea_core/data/recognizer_default.json``
with its provenance, so the app can say what it runs.

Example:
    rea train recognizer --labels rea_core/data/recognizer_train.jsonl --out rea_core/data/recognizer_default.json
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..backends.base import Embedder
from ..conversations import read_jsonl
from ..errors import DataFormatError, InputError
from .trained import LABELS, N_HASH, TrainedRecognizer, TrainingResult, evaluate_model, evaluate_scores, fit_features

SPLITS = ("train", "heldout")
CV_FOLDS = 5
BETA = 2.0  # the threshold maximizes F2: a missed instruction costs more than an extra one (D.3)


@dataclass(frozen=True)
class LabeledInput:
    """One row of a recognizer label set."""

    text: str
    label: str
    source: str = "unknown"
    group: str = ""
    split: str = "train"


def data_path(name: str) -> Path:
    return Path(str(resources.files("rea_core").joinpath("data", name)))


def load_label_set(path: str | Path) -> list[LabeledInput]:
    """Rows of a label-set JSONL; DataFormatError names the line of a bad row."""
    if not Path(path).is_file():
        raise DataFormatError(f"{path}: no such label-set file")
    rows = []
    for where, r in read_jsonl(path, what="labeled rows"):  # one JSONL reader for every data file
        if not isinstance(r, dict) or not isinstance(r.get("text"), str) or not r["text"].strip() or r.get("label") not in LABELS:
            raise DataFormatError(f"{where}: needs a non-empty \"text\" and a \"label\" in {LABELS}")
        split = r.get("split", "heldout")
        if split not in SPLITS:
            raise DataFormatError(f"{where}: \"split\" must be one of {SPLITS}, got {split!r}")
        n = where.rsplit(":", 1)[1]
        rows.append(LabeledInput(r["text"], r["label"], str(r.get("source", "unknown")), str(r.get("group") or r.get("id") or n), split))
    if not rows:
        raise DataFormatError(f"{path}: no labeled rows")
    return rows


def load_default_recognizer() -> TrainedRecognizer:
    """The shipped trained stage 2 (package data); needs no database and no network."""
    path = data_path("recognizer_default.json")
    if not path.is_file():
        raise InputError(f"the shipped recognizer {path} is missing; rebuild it with `rea train recognizer --labels ...`")
    return TrainedRecognizer.load(path)


def provenance_line(model: TrainedRecognizer | None) -> str:
    """One line saying what stage 2 runs and where its weights came from (for the app and CLI)."""
    if model is None:
        return "Stage 2: few-shot LLM classifier (no trained recognizer loaded)."
    p = model.provenance
    if not p:
        return f"Stage 2: trained classifier on {model.embedder_name} (no provenance recorded)."
    held = p.get("heldout", {})
    return (f"Stage 2: shipped trained classifier ({p.get('label_set', '?')}, {p.get('n_train', '?')} train labels from "
            f"{', '.join(p.get('sources', []))}; trained {p.get('trained_on', '?')}, threshold {model.threshold:.2f}; "
            f"held-out {p.get('n_heldout', '?')}: precision {held.get('precision', 0):.3f}, recall {held.get('recall', 0):.3f}).")


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


def _oof_pipeline_scores(model_template: TrainedRecognizer, X: np.ndarray, rows: Sequence[LabeledInput], seed: int) -> np.ndarray:
    """Out-of-fold pipeline scores of the train rows (folds never split a group)."""
    from sklearn.model_selection import StratifiedGroupKFold

    from .recognize import GLOBAL, rule_stage

    labels = [r.label for r in rows]
    stage1 = [rule_stage(r.text)[0] for r in rows]
    scores = np.zeros(len(rows))
    folds = StratifiedGroupKFold(n_splits=CV_FOLDS, shuffle=True, random_state=seed)
    for train_idx, test_idx in folds.split(X, labels, groups=[f"{r.source}|{r.group}" for r in rows]):
        m = fit_features(X[train_idx], [labels[i] for i in train_idx], model_template.embedder_name, n_hash=model_template.n_hash, seed=seed)
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


def train_default(rows: Sequence[LabeledInput], embedder: Embedder, *, label_set: str, tests: dict[str, Sequence[LabeledInput]] | None = None,
                  seed: int = 0, n_hash: int = N_HASH) -> TrainingResult:
    """Fit on the train split, pick the threshold by grouped CV on it, measure the held-out split and ``tests``.

    Raises:
        InputError: No train or no held-out rows, or fewer than two labels in training.
    """
    train = [r for r in rows if r.split == "train"]
    heldout = [r for r in rows if r.split == "heldout"]
    if not train or not heldout:
        raise InputError(f"the label set needs train and heldout rows; has {len(train)} and {len(heldout)}")
    template = TrainedRecognizer(embedder_name=embedder.name, classes=[], coef=np.zeros((0, 0)), intercept=np.zeros(0), n_hash=n_hash)
    X = template.features([r.text for r in train], embedder)  # (n_train, n_features)
    oof = _oof_pipeline_scores(template, X, train, seed)
    model = fit_features(X, [r.label for r in train], embedder.name, n_hash=n_hash, seed=seed)
    model.threshold = choose_threshold([r.label for r in train], oof)
    metrics: dict[str, Any] = {"n_train": len(train), "n_heldout": len(heldout), "embedder": embedder.name, "threshold": model.threshold,
                               "cv_train": evaluate_scores([r.label for r in train], oof, model.threshold),
                               "heldout": evaluate_model(model, [r.text for r in heldout], [r.label for r in heldout], embedder),
                               "heldout_by_source": _metrics_by_source(model, heldout, embedder), "tests": {}}
    for name, test in (tests or {}).items():
        metrics["tests"][name] = evaluate_model(model, [r.text for r in test], [r.label for r in test], embedder)
    counts = Counter((r.split, r.label) for r in rows)
    held = metrics["heldout"]["pipeline"]
    model.provenance = {"label_set": label_set, "label_set_sha256": hashlib.sha256("".join(r.text + r.label + r.split for r in rows).encode()).hexdigest()[:16],
                        "sources": sorted({r.source for r in train}), "n_train": len(train), "n_heldout": len(heldout),
                        "counts": {f"{s}/{lab}": n for (s, lab), n in sorted(counts.items())}, "trained_on": date.today().isoformat(),
                        "threshold_from": f"F{BETA:g} on {CV_FOLDS}-fold grouped out-of-fold scores of the train split",
                        "features": f"{embedder.name} embedding + cue flags + {n_hash} hashed uni/bigrams",
                        "heldout": {k: held[k] for k in ("precision", "recall", "f1", "n", "positives")}}
    return TrainingResult(model=model, metrics=metrics)

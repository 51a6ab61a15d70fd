"""A recognizer stage 2 trained from human labels (REA paper, sections 3.3, A.4 and D.1-D.2).

The paper's stage 2 is a few-shot LLM; its precision (0.6182) is the recognizer's weak side. This
module fits a small classifier on sentence embeddings of labeled inputs (global / task /
ordinary), so annotators' labels can replace the LLM where the rule filter defers. The model is
multinomial logistic regression on the packaged embedder's unit vectors plus, by default, the
lexical features of ``features.py`` (cue flags, hashed n-grams): a few
thousand numbers, saved as JSON (no pickle), quick to train on CPU.
Training with held-out metrics is in ``training.py``; the metrics in ``metrics.py``.

Example:
    >>> model = fit(texts, labels, load_embedder()); model.save("recognizer.json")
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
from .labels import GLOBAL

KIND_EMBEDDING, KIND_LEXICAL = "logreg-embeddings", "logreg-embeddings-lexical"
N_HASH = 4096  # hashed uni/bigram columns: enough for scope words, small enough to ship as JSON


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

    def embedding_part(self, features: np.ndarray) -> np.ndarray:
        """The (n, dim) embedding columns of (n, n_features) ``features`` (the lexical ones follow them)."""
        from .features import CUE_NAMES

        n_lexical = len(CUE_NAMES) + self.n_hash if self.n_hash else 0
        return features[:, : features.shape[1] - n_lexical]

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
        return {
            "kind": KIND_LEXICAL if self.n_hash else KIND_EMBEDDING,
            "embedder_name": self.embedder_name,
            "classes": list(self.classes),
            "coef": np.round(self.coef, 6).tolist(),
            "intercept": np.round(self.intercept, 6).tolist(),
            "threshold": self.threshold,
            "n_hash": self.n_hash,
            "provenance": self.provenance,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrainedRecognizer":
        if data.get("kind") not in (KIND_EMBEDDING, KIND_LEXICAL):
            raise InputError(f"not a trained recognizer file (kind={data.get('kind')!r})")
        model = cls(
            embedder_name=data["embedder_name"],
            classes=list(data["classes"]),
            coef=np.asarray(data["coef"], dtype=np.float64),
            intercept=np.asarray(data["intercept"], dtype=np.float64),
            threshold=float(data.get("threshold", 0.5)),
            n_hash=int(data.get("n_hash", 0)),
            provenance=dict(data.get("provenance") or {}),
        )
        if (
            model.coef.ndim != 2
            or model.coef.shape[0] != len(model.classes)
            or model.intercept.shape != (len(model.classes),)
        ):
            raise InputError(
                f"trained recognizer weights do not fit its {len(model.classes)} classes (coef {model.coef.shape})"
            )
        return model

    def save(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(self.to_dict(), handle)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "TrainedRecognizer":
        with open(path, encoding="utf-8") as handle:
            return cls.from_dict(json.load(handle))


def fit(
    texts: Sequence[str],
    labels: Sequence[str],
    embedder: Embedder,
    *,
    seed: int = 0,
    n_hash: int = N_HASH,
    C: float = 4.0,
    sample_weight: Sequence[float] | None = None,
) -> TrainedRecognizer:
    """Fit the classifier. Classes are weighted by inverse frequency: globals are rare (D.1).

    ``n_hash`` > 0 adds the lexical features of ``recognizer_features`` (cue flags and hashed
    n-grams) beside the embedding; 0 fits on the embedding alone.
    """
    classes = sorted(set(labels))
    if len(classes) < 2:
        raise InputError(f"training needs at least two different labels; got only {classes}")
    shell = TrainedRecognizer(
        embedder_name=embedder.name, classes=classes, coef=np.zeros((0, 0)), intercept=np.zeros(0), n_hash=n_hash
    )
    return fit_features(
        shell.features(texts, embedder),
        labels,
        embedder.name,
        n_hash=n_hash,
        seed=seed,
        C=C,
        sample_weight=sample_weight,
    )


def fit_features(
    X: np.ndarray,
    labels: Sequence[str],
    embedder_name: str,
    *,
    n_hash: int,
    seed: int = 0,
    C: float = 4.0,
    sample_weight: Sequence[float] | None = None,
) -> TrainedRecognizer:
    """Fit on precomputed (n, n_features) inputs: lets cross-validation featurize once."""
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=C, class_weight="balanced", max_iter=5000, random_state=seed).fit(
        X, list(labels), sample_weight=sample_weight
    )
    coef, intercept = clf.coef_, clf.intercept_
    if len(clf.classes_) == 2:  # sklearn keeps one row for two classes; softmax([-z/2, z/2]) == sigmoid(z)
        coef = np.vstack([-coef[0] / 2, coef[0] / 2])
        intercept = np.array([-intercept[0] / 2, intercept[0] / 2])
    return TrainedRecognizer(
        embedder_name=embedder_name,
        classes=[str(c) for c in clf.classes_],
        coef=coef,
        intercept=intercept,
        n_hash=n_hash,
    )

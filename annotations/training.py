"""Train the recognizer from the store's labels, keep the version, and measure versions on the
validation set (REA paper, D.1-D.2).

Glue between `rea_core.training.recognizer` (the training and metrics) and the store (the labels
and versions), shared by the app's "Train recognizer" action and `rea train recognizer`, so both
do the same thing. A version trained here is a candidate: it goes into use only when someone
chooses it (`store_review.set_active_version`), after comparing it with the version in use on
the same validation items (`Validation`), which no studio version is trained on.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from sqlalchemy.orm import sessionmaker

from rea_core.backends import Embedder
from rea_core.evals import default_validation_path
from rea_core.recognizer import (
    InstructionRecognizer,
    TrainedRecognizer,
    baseline_metrics,
    decision_threshold,
    evaluate_scores,
    load_label_set,
    recognizer_scores,
)
from rea_core.training import train_recognizer

from . import store_items, store_review

REMEMBERED_TEXTS = 50_000  # vectors kept per process (384 floats each: about 80 MB at most)


def validation_rows() -> list[dict[str, Any]] | None:
    """The packaged recognizer validation set ({text, label, source} rows), or None when it is absent."""
    path = default_validation_path()
    if not path.is_file():
        return None
    return [{"text": r.text, "label": r.label, "source": r.source} for r in load_label_set(path)] or None


class RememberingEmbedder:
    """An ``Embedder`` that keeps the vectors of the texts it encoded (the first ``limit`` of them), so
    measuring several versions on the same validation items, or rescoring the same items, embeds each text once."""

    def __init__(self, inner: Embedder, limit: int = REMEMBERED_TEXTS):
        self.inner, self.name, self.dim, self.limit = inner, inner.name, inner.dim, limit
        self._kept: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._kept))
        fresh = dict(zip(missing, self.inner.encode(missing))) if missing else {}
        for text, vector in fresh.items():
            if len(self._kept) < self.limit:
                self._kept[text] = vector
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([fresh[t] if t in fresh else self._kept[t] for t in texts])


def validation_report(
    model: TrainedRecognizer | None, rows: Sequence[dict[str, Any]], embedder: Embedder | None
) -> dict[str, Any] | None:
    """The whole recognizer with ``model`` as stage 2 (None: rules only) on the validation rows:
    metrics on all of them and per source, and each row's verdict (global or not), in one scoring pass."""
    if not rows:
        return None
    recognizer = InstructionRecognizer(None, trained=model, embedder=embedder if model is not None else None)
    gold = [r["label"] for r in rows]
    scores = recognizer_scores(recognizer, [r["text"] for r in rows])  # (n,)
    threshold = decision_threshold(recognizer)
    by_source = {}
    for source in sorted({r.get("source", "unknown") for r in rows}):
        index = [i for i, r in enumerate(rows) if r.get("source", "unknown") == source]
        by_source[source] = evaluate_scores([gold[i] for i in index], scores[index], threshold)
    return {
        "all": evaluate_scores(gold, scores, threshold),
        "by_source": by_source,
        "predicted": (scores >= threshold).tolist(),
    }


class Validation:
    """The validation set and the measurements of recognizers on it, each computed once per process."""

    def __init__(self, embedder: Embedder, rows: Sequence[dict[str, Any]] | None = None):
        self.rows = list(validation_rows() or []) if rows is None else list(rows)
        self.embedder = embedder if isinstance(embedder, RememberingEmbedder) else RememberingEmbedder(embedder)
        self._reports: dict[Hashable, dict[str, Any] | None] = {}
        self._lock = threading.Lock()  # two pages asking at once measure once

    def report(self, key: Hashable, model: TrainedRecognizer | None) -> dict[str, Any] | None:
        """``validation_report`` of ``model``, remembered under ``key`` ("packaged", a version id)."""
        with self._lock:
            if key not in self._reports:
                self._reports[key] = validation_report(model, self.rows, self.embedder)
            return self._reports[key]


def train_from_store(
    Session: sessionmaker,
    embedder: Embedder,
    *,
    created_by: str,
    activate: bool = False,
    validation: list[dict[str, Any]] | None = None,
    seed: int = 0,
) -> store_review.VersionInfo:
    """Fit on the final labels, measure on a held-out split and the validation set, save as a candidate
    (``activate`` also puts it in use and rescores the queue).

    The metrics also hold `baseline_validation` (the rules-only recognizer on the same validation
    set) and `validation_report` (``validation_report`` of the new version).
    """
    validation = validation if validation is not None else validation_rows()
    with Session() as db:
        texts, labels = store_review.training_data(db)
    result = train_recognizer(texts, labels, embedder, validation=validation, seed=seed)
    metrics = dict(result.metrics)
    if validation:
        metrics["baseline_validation"] = baseline_metrics(
            [r["text"] for r in validation], [r["label"] for r in validation]
        )
        metrics["validation_report"] = validation_report(result.model, validation, embedder)
    with Session() as db:
        version = store_review.save_version(
            db, result.model.to_dict(), metrics, created_by=created_by, n_labels=len(texts), activate=activate
        )
    if activate:
        rescore(Session, embedder, result.model, version.id)
    return version


def rescore(Session: sessionmaker, embedder: Embedder, model: TrainedRecognizer, version_id: int | None) -> None:
    """Give every item still waiting for a label the P(global) of the version in use (None: the
    packaged one), so the queue puts its least sure first."""
    with Session() as db:
        waiting = store_items.open_items(db, "")
    if not waiting:
        return
    scores = model.p_global([it.text for it in waiting], embedder)
    with Session() as db:
        store_review.set_scores(db, dict(zip([it.id for it in waiting], scores.tolist())), version_id)


def load_version(Session: sessionmaker, version_id: int) -> TrainedRecognizer:
    with Session() as db:
        return TrainedRecognizer.from_dict(store_review.version_model(db, version_id))

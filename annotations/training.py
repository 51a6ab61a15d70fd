"""Train the recognizer from the store's labels and keep the version (REA paper, D.1-D.2).

Glue between `rea_core.training.recognizer` (the training and metrics) and the store
(the labels and versions), shared by the app's "Train recognizer" action and `rea train
recognizer`, so both do the same thing.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import sessionmaker

from rea_core.backends.base import Embedder
from rea_core.evals.recognizer_eval import default_validation_path
from rea_core.recognizer.default import load_label_set
from rea_core.recognizer.metrics import baseline_metrics
from rea_core.recognizer.trained import TrainedRecognizer
from rea_core.training.recognizer import train_recognizer

from . import store_review


def validation_rows() -> list[dict[str, Any]] | None:
    """The packaged recognizer validation set ({text, label} rows), or None when it is absent."""
    path = default_validation_path()
    if not path.is_file():
        return None
    return [{"text": r.text, "label": r.label} for r in load_label_set(path)] or None


def train_from_store(
    Session: sessionmaker,
    embedder: Embedder,
    *,
    created_by: str,
    activate: bool = True,
    validation: list[dict[str, Any]] | None = None,
    seed: int = 0,
) -> store_review.VersionInfo:
    """Fit on the final labels, measure on a held-out split and the validation set, save, rescore the queue.

    The metrics also hold `baseline`: the rules-only recognizer on the same validation set,
    the comparison when no earlier version exists.
    """
    validation = validation if validation is not None else validation_rows()
    with Session() as session:
        texts, labels = store_review.training_data(session)
    result = train_recognizer(texts, labels, embedder, validation=validation, seed=seed)
    metrics = dict(result.metrics)
    if validation:
        metrics["baseline_validation"] = baseline_metrics(
            [r["text"] for r in validation], [r["label"] for r in validation]
        )
    with Session() as session:
        version = store_review.save_version(
            session, result.model.to_dict(), metrics, created_by=created_by, n_labels=len(texts), activate=activate
        )
    if activate:
        rescore(Session, embedder, result.model, version.id)
    return version


def rescore(Session: sessionmaker, embedder: Embedder, model: TrainedRecognizer, version_id: int) -> None:
    """Give every item the new version's P(global), so the queue puts its least sure first."""
    with Session() as session:
        rows = store_review.item_texts(session)
    if not rows:
        return
    scores = model.p_global([t for _, t in rows], embedder)
    with Session() as session:
        store_review.set_scores(session, dict(zip([i for i, _ in rows], scores.tolist())), version_id)


def load_version(Session: sessionmaker, version_id: int) -> TrainedRecognizer:
    with Session() as session:
        return TrainedRecognizer.from_dict(store_review.version_model(session, version_id))

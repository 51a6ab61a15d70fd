"""Store functions of the annotation studio's review side; each takes a `Session`.

Agreement (Cohen's kappa per pair, Fleiss' kappa over all multi-labeled items), disagreements
and adjudication, exports with every annotator's label, the training set (adjudicated label,
else the majority) and trained recognizer versions with their metrics.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from .agreement import cohen_kappa, fleiss_kappa, majority
from .db import reading, writing
from .models import LABEL_CHOICES, Adjudication, Annotator, CurrentLabel, Item, RecognizerVersion
from .store_items import AccessError


def _labels_by_item(db: Session) -> dict[int, dict[str, str]]:
    rows = db.execute(
        select(CurrentLabel.item_id, Annotator.name, CurrentLabel.label)
        .join(Annotator, Annotator.id == CurrentLabel.annotator_id)
        .order_by(CurrentLabel.item_id, Annotator.name)
    )
    out: dict[int, dict[str, str]] = defaultdict(dict)
    for item_id, name, label in rows:
        out[item_id][name] = label
    return out


@dataclass
class AgreementStats:
    pairs: list[tuple[str, str, int, float | None]] = field(default_factory=list)  # (a, b, shared items, kappa)
    fleiss_items: int = 0
    fleiss: float | None = None
    label_counts: dict[str, int] = field(default_factory=dict)  # current labels per class
    final_counts: dict[str, int] = field(default_factory=dict)  # adjudicated-or-majority per class
    n_items: int = 0
    n_labeled: int = 0  # items with at least one annotator's label
    n_adjudicated: int = 0
    n_ties: int = 0  # labeled items whose labels tie and that nobody adjudicated: no final label yet

    @property
    def n_final(self) -> int:
        """Items with a final label: exactly the labels "Train recognizer" learns from (``training_data``)."""
        return sum(self.final_counts.values())


def agreement_stats(db: Session) -> AgreementStats:
    with reading(db):
        by_item = _labels_by_item(db)
        adjudicated = dict(db.execute(select(Adjudication.item_id, Adjudication.label)).all())
        n_items = db.query(Item).count()
    names = sorted({n for labels in by_item.values() for n in labels})
    stats = AgreementStats(n_items=n_items, n_labeled=len(by_item), n_adjudicated=len(adjudicated))
    for a, b in combinations(names, 2):
        shared = [(labels[a], labels[b]) for labels in by_item.values() if a in labels and b in labels]
        if shared:
            stats.pairs.append((a, b, len(shared), cohen_kappa([x for x, _ in shared], [y for _, y in shared])))
    multi = [Counter(labels.values()) for labels in by_item.values() if len(labels) >= 2]
    stats.fleiss_items, stats.fleiss = len(multi), fleiss_kappa(multi)
    stats.label_counts = dict(Counter(label for labels in by_item.values() for label in labels.values()))
    finals = Counter(
        adjudicated.get(i) or majority(list(by_item.get(i, {}).values())) for i in set(by_item) | set(adjudicated)
    )
    stats.n_ties = finals.pop(None, 0)
    stats.final_counts = dict(finals)
    return stats


@dataclass
class Disagreement:
    item_id: int
    text: str
    context: str | None
    labels: dict[str, str]
    adjudicated: str | None


def disagreements(db: Session, *, include_adjudicated: bool = False, limit: int = 200) -> list[Disagreement]:
    """Items whose annotators gave different labels, not yet adjudicated ones first."""
    with reading(db):
        by_item = _labels_by_item(db)
        split = [i for i, labels in by_item.items() if len(set(labels.values())) > 1]
        adjudicated = (
            dict(
                db.execute(
                    select(Adjudication.item_id, Adjudication.label).where(Adjudication.item_id.in_(split))
                ).all()
            )
            if split
            else {}
        )
        items = {i.id: i for i in db.scalars(select(Item).where(Item.id.in_(split)))} if split else {}
        out = [
            Disagreement(i, items[i].text, items[i].context, by_item[i], adjudicated.get(i))
            for i in sorted(split)
            if include_adjudicated or i not in adjudicated
        ]
    out.sort(key=lambda d: (d.adjudicated is not None, d.item_id))
    return out[:limit]


def adjudicate(db: Session, item_id: int, label: str, adjudicator: str, note: str = "") -> Adjudication:
    """Set the final label of an item; only an annotator with the adjudicator role may.

    Raises:
        AccessError: `adjudicator` is not a known adjudicator.
        ValueError: Unknown label or item.
    """
    if label not in LABEL_CHOICES:
        raise ValueError(f"label must be one of {', '.join(LABEL_CHOICES)}")
    with writing(db, "the adjudication was NOT saved"):
        role = db.scalar(select(Annotator.role).where(Annotator.name == adjudicator))
        if role != "adjudicator":
            raise AccessError(f"{adjudicator!r} is not an adjudicator")
        if db.get(Item, item_id) is None:
            raise ValueError(f"no item {item_id}")
        adj = db.scalars(select(Adjudication).where(Adjudication.item_id == item_id)).one_or_none()
        if adj is None:
            adj = Adjudication(item_id=item_id, label=label, adjudicator=adjudicator, note=note)
            db.add(adj)
        else:
            adj.label, adj.adjudicator, adj.note = label, adjudicator, note
        return adj


def export_rows(db: Session, *, labeled_only: bool = False) -> list[dict[str, Any]]:
    """One dict per item: text, every annotator's label, majority, adjudicated and final label."""
    with reading(db):
        by_item = _labels_by_item(db)
        adj = {a.item_id: a for a in db.scalars(select(Adjudication))}
        items = list(db.scalars(select(Item).order_by(Item.id)))
        rows = []
        for item in items:
            labels = by_item.get(item.id, {})
            if labeled_only and not labels and item.id not in adj:
                continue
            maj = majority(list(labels.values()))
            a = adj.get(item.id)
            rows.append(
                {
                    "id": item.id,
                    "text": item.text,
                    "source": item.source,
                    "context": item.context,
                    "labels": [{"annotator": n, "label": lab} for n, lab in labels.items()],
                    "n_labels": len(labels),
                    "majority": maj,
                    "adjudicated": a.label if a else None,
                    "adjudicator": a.adjudicator if a else None,
                    "final_label": a.label if a else maj,
                }
            )
    return rows


def labeled_rows(db: Session) -> list[tuple[str, str, str]]:
    """(text, final label, source) of every item with a final label: recall and precision per source."""
    return [
        (r["text"], r["final_label"], r["source"] or "unknown")
        for r in export_rows(db, labeled_only=True)
        if r["final_label"]
    ]


def training_data(db: Session) -> tuple[list[str], list[str]]:
    """Texts and final labels (adjudicated, else majority; ties left out) for recognizer training;
    as many as ``agreement_stats(...).n_final``."""
    rows = [r for r in export_rows(db, labeled_only=True) if r["final_label"]]
    return [r["text"] for r in rows], [r["final_label"] for r in rows]


@dataclass
class VersionInfo:
    id: int
    created_at: datetime
    created_by: str
    n_labels: int
    active: bool
    metrics: dict[str, Any]


def _info(v: RecognizerVersion) -> VersionInfo:
    return VersionInfo(v.id, v.created_at, v.created_by, v.n_labels, v.active, json.loads(v.metrics_json))


def save_version(
    db: Session,
    model: dict[str, Any],
    metrics: dict[str, Any],
    *,
    created_by: str,
    n_labels: int,
    activate: bool = False,
) -> VersionInfo:
    """Store a trained recognizer and its metrics, as a candidate; `activate` also puts it in use."""
    with writing(db, "the trained recognizer was NOT saved"):
        if activate:
            db.execute(update(RecognizerVersion).values(active=False))
        version = RecognizerVersion(
            created_by=created_by,
            n_labels=n_labels,
            model_json=json.dumps(model),
            metrics_json=json.dumps(metrics),
            active=activate,
        )
        db.add(version)
        db.flush()
        return _info(version)


def list_versions(db: Session) -> list[VersionInfo]:
    """Trained versions, newest first."""
    with reading(db):
        return [_info(v) for v in db.scalars(select(RecognizerVersion).order_by(RecognizerVersion.id.desc()))]


def add_version_metrics(db: Session, version_id: int, **parts: Any) -> None:
    """Keep more measurements of a version (e.g. on the validation set), so they are computed once."""
    with writing(db):
        v = db.get(RecognizerVersion, version_id)
        if v is None:
            raise ValueError(f"no recognizer version {version_id}")
        v.metrics_json = json.dumps({**json.loads(v.metrics_json), **parts})


def version_model(db: Session, version_id: int) -> dict[str, Any]:
    with reading(db):
        v = db.get(RecognizerVersion, version_id)
        if v is None:
            raise ValueError(f"no recognizer version {version_id}")
        return json.loads(v.model_json)


def active_version(db: Session) -> VersionInfo | None:
    with reading(db):
        v = db.scalars(select(RecognizerVersion).where(RecognizerVersion.active.is_(True))).first()
        return _info(v) if v else None


def set_active_version(db: Session, version_id: int | None) -> None:
    """Switch the recognizer in use to a version, or (None) back to the packaged one."""
    with writing(db, "the recognizer was NOT switched"):
        if version_id is not None and db.get(RecognizerVersion, version_id) is None:
            raise ValueError(f"no recognizer version {version_id}")
        db.execute(update(RecognizerVersion).values(active=False))
        if version_id is not None:
            db.execute(update(RecognizerVersion).where(RecognizerVersion.id == version_id).values(active=True))


def item_texts(db: Session) -> list[tuple[int, str]]:
    with reading(db):
        return list(db.execute(select(Item.id, Item.text).order_by(Item.id)).all())


def set_scores(db: Session, scores: dict[int, float], version_id: int | None) -> None:
    """Store the recognizer's P(global) per item, which orders the labeling queue."""
    with writing(db):
        for item_id, score in scores.items():
            db.execute(update(Item).where(Item.id == item_id).values(score=float(score), score_version=version_id))

"""Store functions of the annotation studio's labeling side; each takes a `Session`.

Imports (one transaction per file), the seed pool, the labeling queue, labels with history,
skips, undo and progress. Writes take SQLite's write lock up front (BEGIN IMMEDIATE) so
concurrent annotators queue on the busy timeout instead of failing; a locked or unreachable
database raises `StoreError` and nothing of the action is saved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import and_, case, delete, exists, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from rea_core.recognizer import rule_priors
from rea_core.settings import AnnotationSettings
from rea_core.text import normalize

from .db import reading, retrying, writing
from .io import ImportRow
from .models import LABEL_CHOICES, ROLES, Adjudication, Annotator, CurrentLabel, ImportBatch, Item, LabelEvent

Scorer = Callable[[Sequence[str]], Sequence[float]]


class AccessError(PermissionError):
    """The signed-in person may not do this (e.g. adjudicate without the adjudicator role)."""


def text_hash(text: str) -> str:
    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()


def is_double(digest: str, share: float) -> bool:
    """Deterministic per text, so a re-import never changes which items get two annotators; a larger
    share keeps every item a smaller one chose."""
    return int(digest[:8], 16) / 0xFFFFFFFF < share


def _share(double_share: float | None) -> float:
    return AnnotationSettings.current().double_label_share if double_share is None else double_share


def apply_double_share(db: Session, share: float) -> int:
    """Mark which items get a second label under ``share`` (the setting may have changed since they
    were imported); labels already given stay. Returns how many items changed."""

    with reading(db):  # a page load that changes nothing takes no write lock
        rows = db.execute(select(Item.id, Item.text_hash, Item.double)).all()
    changed = {i: is_double(h, share) for i, h, double in rows if is_double(h, share) != bool(double)}
    if not changed:
        return 0

    def run() -> int:
        with writing(db):
            for value in (True, False):
                ids = [i for i, v in changed.items() if v is value]
                for start in range(0, len(ids), 500):
                    db.execute(update(Item).where(Item.id.in_(ids[start : start + 500])).values(double=value))
            return len(changed)

    return retrying(run)


def _annotator(db: Session, name: str, role: str | None = None) -> Annotator:
    name = name.strip()
    if not name:
        raise AccessError("sign in first: no annotator name")
    found = db.scalars(select(Annotator).where(Annotator.name == name)).one_or_none()
    if found is None:
        found = Annotator(name=name, role=role or "annotator")
        db.add(found)
        db.flush()
    elif role and found.role != role:
        found.role = role
    return found


def ensure_annotator(db: Session, name: str, role: str = "annotator") -> Annotator:
    """Create or update the annotator row at sign-in (role comes from the server's config)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}")

    def run():
        with writing(db):
            return _annotator(db, name, role)

    return retrying(run)


def _set_label(
    db: Session,
    item_id: int,
    annotator: Annotator,
    label: str,
    *,
    note: str = "",
    seconds: float | None = None,
    shown_score: float | None = None,
) -> LabelEvent:
    event = LabelEvent(
        item_id=item_id,
        annotator_id=annotator.id,
        action="label",
        label=label,
        note=note,
        seconds=seconds,
        shown_score=shown_score,
        undone=False,
    )
    db.add(event)
    db.flush()
    current = db.scalars(
        select(CurrentLabel).where(CurrentLabel.item_id == item_id, CurrentLabel.annotator_id == annotator.id)
    ).one_or_none()
    if current is None:
        db.add(CurrentLabel(item_id=item_id, annotator_id=annotator.id, label=label, event_id=event.id))
    else:
        current.label, current.event_id, current.updated_at = label, event.id, event.created_at
    db.flush()
    return event


@dataclass
class ImportResult:
    batch_id: int
    n_rows: int
    n_new_items: int
    n_duplicates: int
    n_labels: int


def import_rows(
    db: Session,
    rows: Sequence[ImportRow],
    *,
    source: str,
    annotator: str | None = None,
    double_share: float | None = None,
    scorer: Scorer = rule_priors,
) -> ImportResult:
    """Import one file's rows in one transaction: all of it, or (on any error) nothing.

    ``double_share`` of the new items (default: the ``REA_DOUBLE_LABEL_SHARE`` setting) get a second label.
    Duplicates (same text after normalizing case and spaces, in the file or already stored)
    become one item; their labels still attach to it.
    """
    hashes = [text_hash(r.text) for r in rows]
    share = _share(double_share)

    def run() -> ImportResult:
        with writing(db):
            existing: dict[str, int] = {}
            unique = sorted(set(hashes))
            for start in range(0, len(unique), 500):
                chunk = unique[start : start + 500]
                existing.update(db.execute(select(Item.text_hash, Item.id).where(Item.text_hash.in_(chunk))).all())
            batch = ImportBatch(source=source[:500], annotator=annotator, n_rows=len(rows))
            db.add(batch)
            db.flush()
            new_rows = {h: r for h, r in zip(hashes, rows) if h not in existing}
            scores = list(scorer([r.text for r in new_rows.values()])) if new_rows else []
            for (h, r), score in zip(new_rows.items(), scores):
                item = Item(
                    text=r.text,
                    text_hash=h,
                    source=r.source[:200],
                    context=r.context,
                    batch_id=batch.id,
                    double=is_double(h, share),
                    score=float(score),
                )
                db.add(item)
                db.flush()
                existing[h] = item.id
            n_labels = 0
            for h, r in zip(hashes, rows):
                for name, label in r.labels:
                    _set_label(db, existing[h], _annotator(db, name), label)
                    n_labels += 1
                if r.adjudicated:
                    adj = db.scalars(select(Adjudication).where(Adjudication.item_id == existing[h])).one_or_none()
                    if adj is None:
                        db.add(
                            Adjudication(
                                item_id=existing[h], label=r.adjudicated, adjudicator=r.adjudicator or "import"
                            )
                        )
                    else:
                        adj.label, adj.adjudicator = r.adjudicated, r.adjudicator or "import"
            batch.n_new_items, batch.n_labels = len(new_rows), n_labels
            return ImportResult(batch.id, len(rows), len(new_rows), len(rows) - len(new_rows), n_labels)

    return retrying(run)


def count_items(db: Session) -> int:
    with reading(db):
        return db.scalar(select(func.count(Item.id))) or 0


def ensure_seeded(
    db: Session, rows_factory: Callable[[], Sequence[ImportRow]] | None = None, double_share: float | None = None
) -> int:
    """Import the built-in seed pool when the store has no items yet; returns items added."""
    if count_items(db):
        return 0
    from .seed import seed_rows

    rows = (rows_factory or seed_rows)()
    try:
        return import_rows(db, rows, source="seed:packaged", double_share=double_share).n_new_items
    except IntegrityError:  # another process seeded at the same moment
        return 0


def _label_count():
    return select(func.count(CurrentLabel.id)).where(CurrentLabel.item_id == Item.id).correlate(Item).scalar_subquery()


@dataclass
class QueueItem:
    id: int
    text: str
    source: str
    context: str | None
    score: float | None


def _open_query(db: Session, annotator: str):
    """Items this annotator may still label: fewer labels than needed (2 for the double-annotated
    share, else 1), not adjudicated, neither labeled nor skipped by them. Returns (query, label count)."""
    who = db.scalars(select(Annotator.id).where(Annotator.name == annotator)).one_or_none()
    n = _label_count()
    query = select(Item).where(n < case((Item.double, 2), else_=1), ~exists().where(Adjudication.item_id == Item.id))
    if who is not None:
        query = query.where(
            ~exists().where(CurrentLabel.item_id == Item.id, CurrentLabel.annotator_id == who),
            ~exists().where(
                LabelEvent.item_id == Item.id,
                LabelEvent.annotator_id == who,
                LabelEvent.action == "skip",
                LabelEvent.undone.is_(False),
            ),
        )
    return query, n


def next_item(db: Session, annotator: str) -> QueueItem | None:
    """The annotator's next item: a second label on an item someone else labeled first (only the
    double-labeled share waits for one), so agreement is measurable from the first labels; then
    the recognizer's least sure."""
    with reading(db):
        query, n = _open_query(db, annotator)
        query = query.order_by(n.desc(), func.abs(func.coalesce(Item.score, 0.5) - 0.5), Item.id).limit(1)
        item = db.scalars(query).first()
        return None if item is None else QueueItem(item.id, item.text, item.source, item.context, item.score)


def open_items(db: Session, annotator: str, limit: int = 5000) -> list[QueueItem]:
    """Every item still in the annotator's queue (oldest first; annotator "": every item still waiting
    for a label), for the triage queue modes and rescoring."""
    with reading(db):
        query, _ = _open_query(db, annotator)
        return [
            QueueItem(i.id, i.text, i.source, i.context, i.score)
            for i in db.scalars(query.order_by(Item.id).limit(limit))
        ]


def get_item(db: Session, item_id: int) -> QueueItem | None:
    with reading(db):
        item = db.get(Item, item_id)
        return None if item is None else QueueItem(item.id, item.text, item.source, item.context, item.score)


def record_label(
    db: Session,
    annotator: str,
    item_id: int,
    label: str,
    *,
    seconds: float | None = None,
    shown_score: float | None = None,
    note: str = "",
) -> LabelEvent:
    """Give or change an annotator's label on an item; the previous one stays in history.

    Raises:
        ValueError: Unknown label or item.
        StoreError: The database is locked or unreachable; the label was not saved.
    """
    if label not in LABEL_CHOICES:
        raise ValueError(f"label must be one of {', '.join(LABEL_CHOICES)}")

    def run() -> LabelEvent:
        with writing(db, "the label was NOT saved"):
            if db.get(Item, item_id) is None:
                raise ValueError(f"no item {item_id}")
            return _set_label(
                db,
                item_id,
                _annotator(db, annotator),
                label,
                note=note,
                seconds=seconds,
                shown_score=shown_score,
            )

    return retrying(run)


def record_skip(db: Session, annotator: str, item_id: int, *, seconds: float | None = None) -> LabelEvent:
    """Skip an item for this annotator (it leaves their queue; undo brings it back)."""

    def run() -> LabelEvent:
        with writing(db, "the skip was NOT saved"):
            if db.get(Item, item_id) is None:
                raise ValueError(f"no item {item_id}")
            event = LabelEvent(
                item_id=item_id,
                annotator_id=_annotator(db, annotator).id,
                action="skip",
                seconds=seconds,
                undone=False,
            )
            db.add(event)
            db.flush()
            return event

    return retrying(run)


@dataclass
class Undone:
    item_id: int
    action: str
    label: str | None
    restored: str | None  # the label now current on that item for this annotator (None: none)


def undo_last(db: Session, annotator: str) -> Undone | None:
    """Undo the annotator's latest label or skip; the earlier label (if any) becomes current again."""

    def run() -> Undone | None:
        with writing(db, "nothing was undone"):
            who = db.scalars(select(Annotator).where(Annotator.name == annotator)).one_or_none()
            if who is None:
                return None
            last = db.scalars(
                select(LabelEvent)
                .where(LabelEvent.annotator_id == who.id, LabelEvent.undone.is_(False))
                .order_by(LabelEvent.id.desc())
                .limit(1)
            ).first()
            if last is None:
                return None
            last.undone = True
            db.flush()
            restored = None
            if last.action == "label":
                previous = db.scalars(
                    select(LabelEvent)
                    .where(
                        LabelEvent.item_id == last.item_id,
                        LabelEvent.annotator_id == who.id,
                        LabelEvent.action == "label",
                        LabelEvent.undone.is_(False),
                    )
                    .order_by(LabelEvent.id.desc())
                    .limit(1)
                ).first()
                current = db.scalars(
                    select(CurrentLabel).where(
                        and_(CurrentLabel.item_id == last.item_id, CurrentLabel.annotator_id == who.id)
                    )
                ).one_or_none()
                if previous is None:
                    db.execute(
                        delete(CurrentLabel).where(
                            CurrentLabel.item_id == last.item_id, CurrentLabel.annotator_id == who.id
                        )
                    )
                elif current is not None:
                    current.label, current.event_id = previous.label, previous.id
                    restored = previous.label
            return Undone(last.item_id, last.action, last.label, restored)

    return retrying(run)


@dataclass
class Progress:
    mine: int  # items this annotator labeled
    my_left: int  # items still in their queue
    team_done: int  # labels given, counting at most the labels each item needs
    team_total: int  # labels needed: one per item, two per double-annotated item


def progress(db: Session, annotator: str) -> Progress:
    with reading(db):
        need = case((Item.double, 2), else_=1)
        n = _label_count()
        team_total = db.scalar(select(func.coalesce(func.sum(need), 0))) or 0
        team_done = db.scalar(select(func.coalesce(func.sum(case((n < need, n), else_=need)), 0))) or 0
        who = db.scalars(select(Annotator.id).where(Annotator.name == annotator)).one_or_none()
        mine = db.scalar(select(func.count(CurrentLabel.id)).where(CurrentLabel.annotator_id == who)) if who else 0
        left = select(func.count(Item.id)).where(n < need, ~exists().where(Adjudication.item_id == Item.id))
        if who is not None:
            left = left.where(
                ~exists().where(CurrentLabel.item_id == Item.id, CurrentLabel.annotator_id == who),
                ~exists().where(
                    LabelEvent.item_id == Item.id,
                    LabelEvent.annotator_id == who,
                    LabelEvent.action == "skip",
                    LabelEvent.undone.is_(False),
                ),
            )
        return Progress(int(mine or 0), int(db.scalar(left) or 0), int(team_done), int(team_total))


def my_label(db: Session, annotator: str, item_id: int) -> str | None:
    with reading(db):
        return db.scalar(
            select(CurrentLabel.label)
            .join(Annotator, Annotator.id == CurrentLabel.annotator_id)
            .where(Annotator.name == annotator, CurrentLabel.item_id == item_id)
        )

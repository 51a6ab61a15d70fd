"""Every query on the annotation store; each function takes a `Session`.

Each write function is one transaction: it commits on success and rolls back
on any error, so a failed call leaves nothing half-written. A locked or
unreachable database surfaces as `StoreError` with a message fit for users.
Sessions are meant to be short-lived (one per UI action), built by
`annotations.db.session_factory`.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from typing import IO, Any

from sqlalchemy import LargeBinary, cast, delete, func, inspect, literal, select
from sqlalchemy.orm import Session

from .contexts import load_contexts, parse_turns, store_context
from .db import reading, retrying, writing
from .models import MarkContext, RetrievalFailureMark

ANONYMOUS = "anonymous"
KEY_FIELDS = ("annotator", "conversation_id", "query_turn", "exchange_turn")
REQUIRED_FIELDS = (
    "conversation_id",
    "query_turn",
    "exchange_turn",
    "query_text",
    "exchange_user",
    "exchange_reply",
    "tau_low",
    "tau_high",
    "source",
)
COLUMNS = [name for name in inspect(RetrievalFailureMark).columns.keys() if name != "context_sha256"] + ["context"]
# id and created_at belong to the store, not the caller; the context is given as JSON text (or a list).
SETTABLE_FIELDS = frozenset(COLUMNS) - {"id", "created_at"}


class MarkQuotaError(ValueError):
    """An annotator already holds the most marks allowed; nothing was written."""

    def __init__(self, annotator: str, held: int, limit: int):
        super().__init__(f"{annotator!r} has stored {held} marks, the most one annotator may store ({limit})")
        self.annotator, self.held, self.limit = annotator, held, limit


class MarkBytesQuotaError(MarkQuotaError):
    """A mark would take an annotator's marks past the bytes allowed (``stored_bytes``); nothing was written.
    ``held`` is the bytes they would hold with it."""

    def __init__(self, annotator: str, held: int, limit: int):
        ValueError.__init__(
            self,
            f"{annotator!r} would hold {held / 2**20:.3g} MB of marks with this one, over the most one "
            f"annotator may store ({limit / 2**20:.3g} MB)",
        )
        self.annotator, self.held, self.limit = annotator, held, limit


def _validated(fields: dict[str, Any]) -> dict[str, Any]:
    """Check field names up front so a typo fails loudly instead of being dropped."""
    unknown = sorted(set(fields) - SETTABLE_FIELDS)
    if unknown:
        raise TypeError(f"Unknown failure-mark field(s): {', '.join(unknown)}; allowed: {sorted(SETTABLE_FIELDS)}")
    missing = [name for name in REQUIRED_FIELDS if fields.get(name) is None]
    if missing:
        raise TypeError(f"Missing failure-mark field(s): {', '.join(missing)}")
    values = dict(fields)
    # NULLs never collide in a unique constraint, so an unnamed annotator is
    # stored as "anonymous" to keep marking twice idempotent.
    annotator = values.get("annotator")
    values["annotator"] = annotator.strip() if isinstance(annotator, str) and annotator.strip() else ANONYMOUS
    if values.get("note") is None:
        values.pop("note", None)
    return values


def _find_by_key(db: Session, values: dict[str, Any]) -> RetrievalFailureMark | None:
    conditions = [getattr(RetrievalFailureMark, name) == values[name] for name in KEY_FIELDS]
    return db.scalars(select(RetrievalFailureMark).where(*conditions)).one_or_none()


def add_failure_mark(
    db: Session, *, max_marks: int | None = None, max_bytes: int | None = None, **fields: Any
) -> RetrievalFailureMark:
    """Record that HCR omitted an exchange a query needed, once per key.

    Marking the same (annotator, conversation_id, query_turn, exchange_turn)
    again updates the existing row with the newly given fields (note, score,
    thresholds, texts) instead of adding a duplicate; `created_at` keeps the
    first marking time. The context is stored once however many marks share
    it (``annotations.contexts``).

    Args:
        db: An open database session; committed (or rolled back) here.
        max_marks: The most marks one annotator may hold (None: no limit); an update of
            one of them is always allowed, since it adds no row.
        max_bytes: The most bytes one annotator's marks may hold (``stored_bytes``; None: no
            limit), checked after the write in the same transaction; a write that leaves them
            over it and holding more than before is rolled back.
        **fields: Column values. Required: conversation_id, query_turn,
            exchange_turn, query_text, exchange_user, exchange_reply,
            tau_low, tau_high, source. Optional: annotator (None or blank
            becomes "anonymous"), score, note, context (JSON list of turns, or a list).

    Returns:
        The new or updated mark, readable after the session closes.

    Raises:
        TypeError: A field is unknown or a required one is missing, or the context is not a list.
        MarkQuotaError: The annotator holds ``max_marks`` marks already; nothing was saved.
        MarkBytesQuotaError: The mark would take the annotator past ``max_bytes``; nothing was saved.
        StoreError: The database is locked or unreachable; nothing was saved.
    """
    values = _validated(fields)
    given = "context" in values  # an update without one keeps the mark's context
    turns = parse_turns(values.pop("context", None))
    if given:
        values["context_sha256"] = None

    def write() -> RetrievalFailureMark:
        with writing(db):  # read-then-write: SQLite's write lock is taken first
            mark = _find_by_key(db, values)
            if mark is None and max_marks is not None:
                held = count_failure_marks(db, values["annotator"])
                if held >= max_marks:
                    raise MarkQuotaError(values["annotator"], held, max_marks)
            before = stored_bytes(db, values["annotator"]) if max_bytes is not None else 0
            if turns is not None:
                values["context_sha256"] = store_context(db, turns)
            if mark is None:
                mark = RetrievalFailureMark(**values)
                db.add(mark)
            else:
                for name, value in values.items():
                    setattr(mark, name, value)
            db.flush()
            if max_bytes is not None:
                after = stored_bytes(db, values["annotator"])
                if after > max_bytes and after > before:  # writing() rolls the mark and its context back
                    raise MarkBytesQuotaError(values["annotator"], after, max_bytes)
            return _with_contexts(db, [mark])[0]

    return retrying(write)


def count_failure_marks(db: Session, annotator: str) -> int:
    """How many marks ``annotator`` holds (inside the caller's transaction)."""
    query = select(func.count()).select_from(RetrievalFailureMark).where(RetrievalFailureMark.annotator == annotator)
    return db.execute(query).scalar_one()


def _octets(db: Session, column):
    """The UTF-8 bytes of a text column, in the session's SQL dialect."""
    if db.get_bind().dialect.name == "postgresql":
        return func.octet_length(column)
    return func.length(cast(column, LargeBinary))  # SQLite: a BLOB's length is its bytes


MARK_TEXTS = ("conversation_id", "query_text", "exchange_user", "exchange_reply", "note", "source")


def stored_bytes(db: Session, annotator: str) -> int:
    """The bytes ``annotator``'s marks hold (inside the caller's transaction): their texts, plus each
    distinct turn of their contexts once (a context shares its rows with the contexts that extend it,
    ``annotations.contexts``), so marks on one conversation count its turns once.

    Why bytes and not rows: one mark keeps its conversation up to the query, megabytes for a long one.
    """
    mine = RetrievalFailureMark.annotator == annotator
    texts = sum(
        (func.coalesce(_octets(db, getattr(RetrievalFailureMark, name)), 0) for name in MARK_TEXTS), literal(0)
    )
    own = db.execute(select(func.coalesce(func.sum(texts), 0)).where(mine)).scalar_one()
    table = MarkContext.__table__
    size = _octets(db, table.c.turn).label("size")
    heads = select(table.c.sha256, table.c.parent, size).where(
        table.c.sha256.in_(select(RetrievalFailureMark.context_sha256).where(mine))
    )
    walk = heads.cte("owned_contexts", recursive=True)
    walk = walk.union(select(table.c.sha256, table.c.parent, size).join(walk, table.c.sha256 == walk.c.parent))
    contexts = db.execute(select(func.coalesce(func.sum(walk.c.size), 0))).scalar_one()
    return int(own) + int(contexts)


def _with_contexts(db: Session, marks: list[RetrievalFailureMark]) -> list[RetrievalFailureMark]:
    """Fill each mark's ``context`` from the shared contexts table (one recursive query)."""
    texts = load_contexts(db, {m.context_sha256 for m in marks if m.context_sha256})
    for mark in marks:
        mark.context = texts.get(mark.context_sha256) if mark.context_sha256 else None
    return marks


def list_failure_marks(
    db: Session, conversation_id: str | None = None, *, annotator: str | None = None
) -> list[RetrievalFailureMark]:
    """Return marks newest first, optionally for one conversation and of one annotator (None: everyone's,
    for an adjudicator or the CLI).

    Raises:
        StoreError: The database is locked or unreachable.
    """
    query = select(RetrievalFailureMark).order_by(
        RetrievalFailureMark.created_at.desc(), RetrievalFailureMark.id.desc()
    )
    if conversation_id is not None:
        query = query.where(RetrievalFailureMark.conversation_id == conversation_id)
    if annotator is not None:
        query = query.where(RetrievalFailureMark.annotator == annotator)
    with reading(db):
        return _with_contexts(db, list(db.scalars(query)))


def delete_failure_mark(db: Session, mark_id: int) -> bool:
    """Delete one mark by id.

    Returns:
        True if a row was deleted, False if no mark had that id.

    Raises:
        StoreError: The database is locked or unreachable; nothing was deleted.
    """
    with writing(db, "nothing was deleted"):
        result = db.execute(delete(RetrievalFailureMark).where(RetrievalFailureMark.id == mark_id))
    return result.rowcount > 0


def mark_to_dict(mark: RetrievalFailureMark) -> dict[str, Any]:
    """Every field of a mark as JSON-ready values (datetimes in ISO 8601), its context as JSON text."""
    out: dict[str, Any] = {}
    for name in COLUMNS:
        value = getattr(mark, name)
        out[name] = value.isoformat() if isinstance(value, datetime) else value
    return out


def marks_as_conversations(marks: list[RetrievalFailureMark]) -> list[dict]:
    """Marks as retrieval test cases: one conversation per (source, conversation) with the turns
    up to its latest marked query, each marked query turn carrying ``"needed"`` (0-based exchange
    indices), the format ``rea eval retrieval`` reads. Marks without stored context are skipped."""
    groups: dict[tuple[str, str], list[RetrievalFailureMark]] = {}
    for mark in marks:
        if mark.context:
            groups.setdefault((mark.source, mark.conversation_id), []).append(mark)
    out, used = [], set()
    for (source, conv_id), group in groups.items():
        longest = max(group, key=lambda m: m.query_turn)
        turns = [dict(t) for t in json.loads(longest.context)]
        needed: dict[int, set[int]] = {}
        for m in group:
            needed.setdefault(m.query_turn, set()).add(m.exchange_turn)
        for turn, exchanges in needed.items():
            turns[turn]["needed"] = sorted(exchanges)
        case_id = conv_id if conv_id not in used else f"{conv_id}@{source}"
        used.add(case_id)
        out.append({"id": case_id, "turns": turns, "source": source})
    return out


def export_failure_marks_jsonl(
    db: Session,
    path_or_file: str | os.PathLike[str] | IO[str],
    *,
    raw: bool = False,
    annotator: str | None = None,
) -> int:
    """Write the marks (of ``annotator`` only, if given; None: everyone's) as conversation JSONL with
    ``needed`` turns (``marks_as_conversations``), the input of ``rea eval retrieval``; with
    ``raw=True``, every mark's columns, oldest first.

    Rows are read before the file is opened, so a database error leaves no
    partial file behind.

    Args:
        db: An open database session.
        path_or_file: A path to (over)write, or an open text file.
        raw: Every mark's columns instead of conversations.
        annotator: Only this annotator's marks (the app's owner filter); None: everyone's.

    Returns:
        The number of lines written (conversations, or marks with ``raw``).

    Raises:
        StoreError: The database is locked or unreachable.
    """
    query = select(RetrievalFailureMark).order_by(RetrievalFailureMark.id)
    if annotator is not None:
        query = query.where(RetrievalFailureMark.annotator == annotator)
    with reading(db):
        marks = list(db.scalars(query))
        _with_contexts(db, marks)
    rows = [mark_to_dict(mark) for mark in marks] if raw else marks_as_conversations(marks)
    lines = [json.dumps(row, ensure_ascii=False) + "\n" for row in rows]
    if isinstance(path_or_file, (str, os.PathLike)):
        with private_file(path_or_file) as handle:
            handle.writelines(lines)
    else:
        path_or_file.writelines(lines)
    return len(lines)


def private_file(path: str | os.PathLike[str]) -> IO[str]:
    """A text file (over)written for its owner only (0600), whatever the umask: marks carry
    annotators' names, notes and whole conversations."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # an existing file keeps its mode on open: tighten it
    except OSError:
        os.close(fd)
        raise
    return os.fdopen(fd, "w", encoding="utf-8")

"""SQLAlchemy models for human annotations of REA's recognizer and Heuristic Context Retrieval.

A `RetrievalFailureMark` records that HCR omitted an exchange which a later
query actually needed, together with the score and thresholds (tau_low,
tau_high) in force, so misses can be collected and thresholds re-tuned. Its conversation
context is a `MarkContext` key: contexts are stored once and shared (annotations.contexts).

The annotation studio (REA paper, sections 3.3 and D.1-D.3) labels candidate
inputs (`Item`) as global / task / ordinary: every action is a `LabelEvent`
(history, never deleted; undo flags it), `CurrentLabel` holds the one current
label per annotator and item, `Adjudication` the final word on a
disagreement, and `RecognizerVersion` each recognizer trained from the labels
with its metrics. Schema changes go through `annotations/migrations`, never
`create_all`.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Integer, MetaData, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from rea_core.recognizer import LABELS

# Deterministic constraint names: Alembic batch mode on SQLite needs names to
# find constraints again, and migrations must spell the same names.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utc_now() -> datetime:
    """Current time as a timezone-aware UTC datetime."""
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator):
    """DateTime that always stores UTC and always loads timezone-aware values.

    SQLite keeps no zone, so without this a value would come back naive.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("UTCDateTime needs a timezone-aware datetime")
        return value.astimezone(timezone.utc)

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base for every annotation model."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class RetrievalFailureMark(Base):
    """A human's mark that HCR omitted an exchange a query needed.

    The unique key (annotator, conversation_id, query_turn, exchange_turn)
    makes marking the same miss twice update one row instead of adding two.
    """

    __tablename__ = "retrieval_failure_marks"
    __table_args__ = (
        # Named explicitly: the conventional name would pass PostgreSQL's 63-character limit.
        UniqueConstraint(
            "annotator", "conversation_id", "query_turn", "exchange_turn", name="uq_retrieval_failure_marks_key"
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utc_now)
    annotator: Mapped[str | None] = mapped_column(String(200))  # who marked; may be "anonymous"
    conversation_id: Mapped[str] = mapped_column(String(200), index=True)
    query_turn: Mapped[int] = mapped_column(Integer)  # turn whose query needed the exchange
    exchange_turn: Mapped[int] = mapped_column(Integer)  # omitted exchange that was needed
    query_text: Mapped[str] = mapped_column(Text)
    exchange_user: Mapped[str] = mapped_column(Text)
    exchange_reply: Mapped[str] = mapped_column(Text)
    score: Mapped[float | None] = mapped_column(Float)  # HCR score the exchange got
    tau_low: Mapped[float] = mapped_column(Float)
    tau_high: Mapped[float] = mapped_column(Float)
    note: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(500))  # file name or "bundled:examples"
    # The conversation's turns up to and including the query, stored once in `mark_contexts`
    # (annotations.contexts); None for marks made before migration 0003.
    context_sha256: Mapped[str | None] = mapped_column(ForeignKey("mark_contexts.sha256"), nullable=True)

    @property
    def context(self) -> str | None:
        """JSON list of the turns up to and including the query ({"user", "assistant"}), so the marks
        export as retrieval test cases; filled by the store functions that read marks."""
        return self.__dict__.get("_context")

    @context.setter
    def context(self, value: str | None) -> None:
        self.__dict__["_context"] = value

    def __repr__(self) -> str:
        return (
            f"RetrievalFailureMark(id={self.id!r}, conversation_id={self.conversation_id!r}, "
            f"query_turn={self.query_turn!r}, exchange_turn={self.exchange_turn!r})"
        )


class MarkContext(Base):
    """One stored mark context: its last turn and the context one turn shorter (annotations.contexts).

    Keyed by a sha256 over ``parent`` and ``turn``, so equal contexts are one row and contexts
    sharing a prefix share its rows.
    """

    __tablename__ = "mark_contexts"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    parent: Mapped[str | None] = mapped_column(ForeignKey("mark_contexts.sha256"), nullable=True)
    turn: Mapped[str] = mapped_column(Text)  # JSON of one turn record


LABEL_CHOICES = LABELS  # the recognizer's label set (rea_core/recognizer/labels.py)
ROLES = ("annotator", "adjudicator")


class Annotator(Base):
    """A signed-in person; the name comes from the login (Gradio auth or Hugging Face OAuth)."""

    __tablename__ = "annotators"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    role: Mapped[str] = mapped_column(String(20), default="annotator")  # "annotator" or "adjudicator"
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utc_now)


class ImportBatch(Base):
    """One imported file or seed run: which file, by whom, how many rows and new items."""

    __tablename__ = "import_batches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utc_now)
    source: Mapped[str] = mapped_column(String(500))  # file name or "seed:<pool>"
    annotator: Mapped[str | None] = mapped_column(String(200))  # whose labels the file carried, if any
    n_rows: Mapped[int] = mapped_column(Integer, default=0)
    n_new_items: Mapped[int] = mapped_column(Integer, default=0)
    n_labels: Mapped[int] = mapped_column(Integer, default=0)


class Item(Base):
    """A candidate user input to label; `text_hash` (normalized text) deduplicates imports."""

    __tablename__ = "items"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utc_now)
    text: Mapped[str] = mapped_column(Text)
    text_hash: Mapped[str] = mapped_column(String(64), unique=True)
    source: Mapped[str] = mapped_column(String(200), default="")  # e.g. "ifbench:constraint", "chitchat", a file name
    context: Mapped[str | None] = mapped_column(Text)  # earlier turns or the full prompt the text came from
    batch_id: Mapped[int | None] = mapped_column(ForeignKey("import_batches.id"))
    double: Mapped[bool] = mapped_column(Boolean, default=False)  # goes to two annotators, for agreement
    score: Mapped[float | None] = mapped_column(Float)  # current recognizer's P(global), orders the queue
    score_version: Mapped[int | None] = mapped_column(Integer)  # recognizer version that gave `score` (None: rules)


class LabelEvent(Base):
    """Every label or skip an annotator gave, kept as history; undo sets `undone`."""

    __tablename__ = "label_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utc_now)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotators.id"), index=True)
    action: Mapped[str] = mapped_column(String(10))  # "label" or "skip"
    label: Mapped[str | None] = mapped_column(String(20))
    note: Mapped[str] = mapped_column(Text, default="")
    seconds: Mapped[float | None] = mapped_column(Float)  # time from showing the item to this action
    shown_score: Mapped[float | None] = mapped_column(Float)  # recognizer score the annotator saw
    undone: Mapped[bool] = mapped_column(Boolean, default=False)


class CurrentLabel(Base):
    """The one current label of an annotator on an item (the latest not-undone label event)."""

    __tablename__ = "current_labels"
    __table_args__ = (UniqueConstraint("item_id", "annotator_id", name="uq_current_labels_item_annotator"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotators.id"))
    label: Mapped[str] = mapped_column(String(20))
    event_id: Mapped[int] = mapped_column(ForeignKey("label_events.id"))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utc_now)


class Adjudication(Base):
    """An adjudicator's final label for an item; it overrides the majority in exports and training."""

    __tablename__ = "adjudications"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), unique=True)
    label: Mapped[str] = mapped_column(String(20))
    adjudicator: Mapped[str] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utc_now)


class RecognizerVersion(Base):
    """A recognizer trained from the labels: its weights (JSON), metrics (JSON) and whether it is in use."""

    __tablename__ = "recognizer_versions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utc_now)
    created_by: Mapped[str] = mapped_column(String(200))
    n_labels: Mapped[int] = mapped_column(Integer)
    model_json: Mapped[str] = mapped_column(Text)
    metrics_json: Mapped[str] = mapped_column(Text)
    active: Mapped[bool] = mapped_column(Boolean, default=False)
